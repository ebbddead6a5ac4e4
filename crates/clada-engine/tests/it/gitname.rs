//! The `.git` look-alike rules of the sandbox agree with gix's implementation of git's
//! `verify_path` protections (HFS+ and NTFS) on every name built from the pieces that matter.

use clada_engine::sandbox::gitname;
use gix::bstr::BStr;
use gix::validate::path::component as check_component;
use gix::validate::path::component::{Error, Mode, Options};

const OPTS: Options = Options {
    protect_windows: false,
    protect_hfs: true,
    protect_ntfs: true,
};

const PIECES: &[&str] = &[
    ".", "g", "I", "t", "~", "1", "4", "9", " ", ":", "\u{200C}", "\u{FEFF}", "x", "GIT", "git",
    "modules", "MODULES", "gi7eba", "gitmod", "\u{00E9}",
];

/// Every concatenation of up to `n` pieces.
fn names(n: usize) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut layer = vec![String::new()];
    for _ in 0..n {
        let mut next = Vec::new();
        for prefix in &layer {
            for p in PIECES {
                next.push(format!("{prefix}{p}"));
            }
        }
        out.extend(next.iter().cloned());
        layer = next;
    }
    out
}

#[test]
fn dotgit_and_gitmodules_lookalikes_match_gix() {
    let mut checked = 0;
    for name in names(4) {
        if name.is_empty() || name == "." || name == ".." {
            continue;
        }
        let b: &BStr = name.as_str().into();
        let gix_dotgit = matches!(check_component(b, None, OPTS), Err(Error::DotGitDir));
        assert_eq!(
            gitname::dotgit(&name).is_some(),
            gix_dotgit,
            "{name:?}: ours {:?}",
            gitname::dotgit(&name)
        );
        if gix_dotgit {
            continue;
        }
        let gix_modules = matches!(
            check_component(b, Some(Mode::Symlink), OPTS),
            Err(Error::SymlinkedGitModules)
        );
        let ours = gitname::symlink_name(&name).is_some_and(|(n, _)| n == ".gitmodules");
        assert_eq!(ours, gix_modules, "{name:?} as a symlink");
        checked += 1;
    }
    assert!(checked > 100_000, "{checked}");
}

#[test]
fn component_check_sees_the_lookalikes_of_the_issue() {
    for name in [
        ".g\u{200C}it",
        ".git.",
        ".git ",
        "GIT~1",
        ".git::$INDEX_ALLOCATION",
    ] {
        assert!(gitname::dotgit(name).is_some(), "{name:?}");
        assert!(
            matches!(
                check_component(name.into(), None, OPTS),
                Err(Error::DotGitDir)
            ),
            "{name:?}"
        );
    }
}
