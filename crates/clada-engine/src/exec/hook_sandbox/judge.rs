//! A failed contained hook: the model's ❌ or the user's ⏸ (docs/hooks-sandbox.md, "A failed
//! hook"). Only a refusal naming a real path outside every grant the hook had is the
//! sandbox's — then the exact configuration line that allows it is proposed. A reply that
//! prints "Permission denied" about nothing, about a path the hook could reach, or about a
//! credential, stays the model's failure.

use std::path::{Path, PathBuf};

use super::grants;

/// Phrases a refusal of the sandbox prints (strerror texts and the codes tools print).
const REFUSALS: &[&str] = &[
    "permission denied",
    "read-only file system",
    "operation not permitted",
    "eacces",
    "erofs",
    "eperm",
];

/// Words that say a refused access was a write (a path outside the writable folders is
/// proposed for `sandbox.write`, not `sandbox.read`).
const WRITES: &[&str] = &[
    "cannot create",
    "can't create",
    "could not create",
    "unable to create",
    "failed to create",
    "cannot touch",
    "cannot write",
    "cannot remove",
    "cannot move",
    "read-only file system",
    "erofs",
    "mkdir",
];

/// What one contained run could reach, to judge its failure.
#[derive(Debug, Clone, Default)]
pub(crate) struct View {
    pub readable: Vec<PathBuf>,
    pub writable: Vec<PathBuf>,
    /// The git directories, and why they were read-only when they were (no overlay).
    pub git_dirs: Vec<PathBuf>,
    pub git_read_only: Option<String>,
    pub home: Option<PathBuf>,
    /// Where the user's own configuration file is (named in a proposal).
    pub user_file: Option<PathBuf>,
}

/// What the user can do about a failure that is the sandbox's, if it is.
pub(crate) fn needs_user(output: &str, view: &View) -> Option<String> {
    for line in output.lines() {
        let lower = line.to_ascii_lowercase();
        if !REFUSALS.iter().any(|r| lower.contains(r)) {
            continue;
        }
        let write = WRITES.iter().any(|w| lower.contains(w));
        for p in paths_in(line, view.home.as_deref()) {
            if let Some(how) = judge_path(&p, view, write) {
                return Some(how);
            }
        }
    }
    None
}

/// The absolute (or `~/`) paths a line names, without the quotes and punctuation around them.
fn paths_in(line: &str, home: Option<&Path>) -> Vec<PathBuf> {
    line.split(|c: char| c.is_whitespace() || c == '=')
        .map(|w| {
            w.trim_matches(|c: char| {
                matches!(
                    c,
                    '\'' | '"' | '`' | ':' | ',' | ';' | '(' | ')' | '[' | ']' | '‘' | '’'
                )
            })
        })
        .filter_map(|w| match w.strip_prefix("~/") {
            Some(rest) => home.map(|h| h.join(rest)),
            None if w.starts_with('/') && w.len() > 1 => Some(PathBuf::from(w)),
            None => None,
        })
        .map(|p| crate::sandbox::normalize(&p))
        .collect()
}

/// The ⏸ for one named path, if it is one the sandbox kept from the hook (`write`: the line
/// says it was a write).
fn judge_path(p: &Path, view: &View, write: bool) -> Option<String> {
    let home = view.home.as_deref();
    if grants::is_secret(p, home) || is_etc_secret(p) {
        return None;
    }
    // A path that is not there (nor its folder) cannot have been refused by the sandbox.
    let exists = std::fs::symlink_metadata(p).is_ok() || p.parent().is_some_and(|d| d.is_dir());
    if !exists {
        return None;
    }
    let inside = |list: &[PathBuf]| list.iter().any(|g| p.starts_with(g));
    if let Some(why) = &view.git_read_only {
        if inside(&view.git_dirs) {
            return Some(format!(
                "the hook could not write '{}': the git directory was read-only for it \
                 because {why}; commit with --no-verify, or run the hook yourself \
                 (`git commit`)",
                p.display()
            ));
        }
    }
    if !inside(&view.readable) && !write {
        let dir = proposal(p, home)?;
        return Some(line(view, "read", &dir, p, "read"));
    }
    if !inside(&view.writable) && (write || inside(&view.readable)) {
        let dir = write_proposal(p, home)?;
        return Some(line(view, "write", &dir, p, "write"));
    }
    None
}

/// Folders below the home folder a write grant is proposed for (issue 51 §7): caches and
/// package stores, whose content tools fetch again. `*` is any one name.
const WRITABLE_HOME: &[&str] = &[
    ".cache/*",
    ".cargo/registry",
    ".cargo/git",
    ".npm",
    ".pnpm-store",
    ".local/share/pnpm/store",
    ".yarn/berry/cache",
    ".bun/install/cache",
    ".m2/repository",
    ".gradle/caches",
    ".nuget/packages",
];

/// Temporary folders a write grant is proposed in (a folder directly in one of them).
const TEMP_DIRS: &[&str] = &["/tmp", "/var/tmp"];

/// The folder to propose a write grant on for `p`, if any. A failure a reply can print names
/// whatever path it likes, so only folders that hold data are proposed: a cache or package
/// store of the home folder, or a folder of its own directly in `/tmp` — never a dotfile or
/// start-up file of the home folder (`~/.gitconfig`, `~/.profile`, `~/.bashrc`), never
/// `~/.config/{git,autostart,systemd}`, `~/.local/bin` or another folder on `$PATH`, never a
/// folder holding programs (`~/.cache/pre-commit`).
fn write_proposal(p: &Path, home: Option<&Path>) -> Option<PathBuf> {
    // A package store is one by its name (thousands of entries would read as programs);
    // any other folder is looked into.
    let (dir, store) = match cache_folder(p, home) {
        Some((d, pattern)) => (d, !pattern.contains('*')),
        None => (temp_folder(p)?, false),
    };
    let on_path = std::env::var_os("PATH").is_some_and(|path| {
        std::env::split_paths(&path)
            .filter(|d| d.is_absolute())
            .any(|d| d.starts_with(&dir) || dir.starts_with(&d))
    });
    if on_path
        || !grants::acceptable(&dir, home)
        || grants::is_system(&dir)
        || (!store && grants::holds_programs(&dir))
    {
        return None;
    }
    Some(dir)
}

/// The cache folder of [`WRITABLE_HOME`] `p` lies in, with its pattern.
fn cache_folder(p: &Path, home: Option<&Path>) -> Option<(PathBuf, &'static str)> {
    let home = home?;
    let rest = p.strip_prefix(home).ok()?;
    let parts: Vec<&std::ffi::OsStr> = rest.iter().collect();
    WRITABLE_HOME.iter().find_map(|pattern| {
        let want: Vec<&str> = pattern.split('/').collect();
        // The folder itself or something in it (`~/.cache/tool`, `~/.cache/tool/db`).
        if parts.len() < want.len() {
            return None;
        }
        let matches = want.iter().zip(&parts).all(|(w, got)| {
            let got = got.to_string_lossy();
            match *w {
                "*" => !got.starts_with('.'),
                w => got == w,
            }
        });
        matches.then(|| {
            let dir = parts[..want.len()]
                .iter()
                .fold(home.to_path_buf(), |d, c| d.join(c));
            (dir, *pattern)
        })
    })
}

/// The folder directly in a temporary folder that `p` lies in (`/tmp/build` for
/// `/tmp/build/x`), unless it is hidden or one other programs keep their sockets and tickets
/// in (`ssh-*`, `tmux-*`, `systemd-*`, `krb5cc*`).
fn temp_folder(p: &Path) -> Option<PathBuf> {
    TEMP_DIRS.iter().find_map(|t| {
        let first = p.strip_prefix(t).ok()?.iter().next()?;
        let name = first.to_string_lossy();
        let reserved = ["ssh-", "tmux-", "systemd-", "krb5cc"]
            .iter()
            .any(|r| name.starts_with(r));
        let dir = Path::new(t).join(first);
        // Only a folder (a file directly in /tmp would make the grant all of /tmp's).
        (!name.starts_with('.') && !reserved && dir != p && dir.is_dir()).then_some(dir)
    })
}

/// `/etc`'s secrets, which the sandbox never reads.
fn is_etc_secret(p: &Path) -> bool {
    p.strip_prefix("/etc").ok().is_some_and(|rest| {
        super::super::confine::ETC_SECRETS
            .iter()
            .any(|s| rest.starts_with(s))
    })
}

/// The folder to propose for `p`: below the home folder its first folder (`~/.rustup`), or
/// its second under `.config`, `.local/share` and `.cache` (`~/.config/tool`); elsewhere the
/// folder holding it. `None` when that would not be an acceptable grant.
fn proposal(p: &Path, home: Option<&Path>) -> Option<PathBuf> {
    let dir = match home.and_then(|h| p.strip_prefix(h).ok().map(|rest| (h, rest))) {
        Some((h, rest)) => {
            let parts: Vec<_> = rest.components().collect();
            let take = match parts.first().map(|c| c.as_os_str().to_string_lossy()) {
                Some(first) if first == ".config" || first == ".cache" => 2,
                Some(first) if first == ".local" => 3,
                _ => 1,
            };
            let mut d = h.to_path_buf();
            for c in parts.iter().take(take.min(parts.len())) {
                d.push(c);
            }
            d
        }
        None if p.is_dir() => p.to_path_buf(),
        None => p.parent()?.to_path_buf(),
    };
    grants::acceptable(&dir, home).then_some(dir)
}

/// The ⏸'s text: what was refused, and the exact line for the user's own file.
fn line(view: &View, key: &str, dir: &Path, p: &Path, what: &str) -> String {
    let shown = match view.home.as_deref().and_then(|h| dir.strip_prefix(h).ok()) {
        Some(rest) => format!("~/{}", rest.display()),
        None => dir.display().to_string(),
    };
    let file = view
        .user_file
        .as_ref()
        .map(|f| f.display().to_string())
        .unwrap_or_else(|| "your git-clada configuration file".into());
    format!(
        "the sandbox did not let the hook {what} '{}'; if the hook needs it, add to {file}:\n  \
         sandbox:\n    {key}: [\"{shown}\"]\nthen commit again (`git clada commit`) — \
         `git clada hooks check` tries the hooks first",
        p.display()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(home: &Path, root: &Path) -> View {
        View {
            readable: vec![root.to_path_buf(), "/usr".into()],
            writable: vec![root.to_path_buf()],
            git_dirs: vec![root.join(".git")],
            git_read_only: None,
            home: Some(home.to_path_buf()),
            user_file: Some(home.join(".config/clada/config.yml")),
        }
    }

    #[test]
    fn only_a_real_path_outside_the_grants_is_the_users() {
        let t = tempfile::tempdir().unwrap();
        let home = t.path().join("home");
        let root = home.join("project");
        std::fs::create_dir_all(root.join(".git")).unwrap();
        std::fs::create_dir_all(home.join(".rustup/toolchains")).unwrap();
        std::fs::create_dir_all(home.join(".ssh")).unwrap();
        std::fs::write(home.join(".ssh/id_rsa"), "k").unwrap();
        let v = view(&home, &root);
        let how = needs_user(
            &format!(
                "error: could not open '{}/.rustup/toolchains/x': Permission denied (os error 13)",
                home.display()
            ),
            &v,
        )
        .unwrap();
        assert!(how.contains("read: [\"~/.rustup\"]"), "{how}");
        assert!(how.contains(".config/clada/config.yml"), "{how}");
        // No path, a path the hook could reach, a path that is not there, a credential:
        // the model's failure.
        for out in [
            "test failed: Permission denied".to_string(),
            format!("{}/src/x.rs: Permission denied", root.display()),
            "/nonexistent/dir/x: Permission denied".to_string(),
            format!("{}/.ssh/id_rsa: Permission denied", home.display()),
            "/etc/shadow: Permission denied".to_string(),
        ] {
            assert_eq!(needs_user(&out, &v), None, "{out}");
        }
        // A write refused in a readable folder of the home: a write line, never over programs.
        let mut v2 = v.clone();
        v2.readable.push(home.join(".cache"));
        std::fs::create_dir_all(home.join(".cache/tool")).unwrap();
        let how = needs_user(
            &format!(
                "OSError: [Errno 30] Read-only file system: '{}/.cache/tool/db'",
                home.display()
            ),
            &v2,
        )
        .unwrap();
        assert!(how.contains("write: [\"~/.cache/tool\"]"), "{how}");
        std::fs::create_dir_all(home.join(".cache/tool/bin")).unwrap();
        assert_eq!(
            needs_user(
                &format!("{}/.cache/tool/db: Permission denied", home.display()),
                &v2
            ),
            None
        );
    }

    #[test]
    fn a_refused_write_proposes_a_write_line_only_in_the_home_folder() {
        let t = tempfile::tempdir().unwrap();
        let home = t.path().join("home");
        let root = home.join("project");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::create_dir_all(home.join(".cache/tool")).unwrap();
        let v = view(&home, &root);
        let how = needs_user(
            &format!(
                "sh: 1: cannot create {}/.cache/tool/x: Permission denied",
                home.display()
            ),
            &v,
        )
        .unwrap();
        assert!(how.contains("write: [\"~/.cache/tool\"]"), "{how}");
        // Outside the home folder and its caches no write line is proposed (a hidden folder of
        // /tmp, as tempfile makes, is not one of its own).
        let out = format!(
            "sh: 1: cannot create {}/x: Permission denied",
            t.path().display()
        );
        assert_eq!(needs_user(&out, &v), None);
    }

    #[test]
    fn write_lines_are_proposed_only_for_caches_and_temporary_folders() {
        let t = tempfile::tempdir().unwrap();
        let home = t.path().join("home");
        let root = home.join("project");
        std::fs::create_dir_all(&root).unwrap();
        for d in [
            ".cache/tool",
            ".cache/pre-commit/repo1/bin",
            ".cargo/registry/cache",
            ".cargo/bin",
            ".npm/_cacache",
            ".local/bin",
            ".config/git",
            ".config/autostart",
            ".config/systemd/user",
            ".config/fish",
            ".local/share/applications",
            ".tool",
        ] {
            std::fs::create_dir_all(home.join(d)).unwrap();
        }
        for f in [
            ".gitconfig",
            ".profile",
            ".bashrc",
            ".zshenv",
            ".local/bin/git",
        ] {
            std::fs::write(home.join(f), "x").unwrap();
        }
        let mut v = view(&home, &root);
        // The git configuration is readable to hooks: its write refusal is the clearest lure.
        v.readable.push(home.join(".gitconfig"));
        let said = |rel: &str| {
            needs_user(
                &format!(
                    "touch: cannot touch '{}/{rel}': Permission denied",
                    home.display()
                ),
                &v,
            )
        };
        for (rel, want) in [
            (".cache/tool/db", "~/.cache/tool"),
            (".cargo/registry/cache/x.crate", "~/.cargo/registry"),
            (".npm/_cacache/index", "~/.npm"),
        ] {
            let how = said(rel).unwrap_or_default();
            assert!(
                how.contains(&format!("write: [\"{want}\"]")),
                "{rel}: {how}"
            );
        }
        for rel in [
            ".gitconfig",
            ".profile",
            ".bashrc",
            ".zshenv",
            ".local/bin/git",
            ".cargo/bin/cargo",
            ".config/git/config",
            ".config/autostart/x.desktop",
            ".config/systemd/user/x.service",
            ".config/fish/config.fish",
            ".local/share/applications/x.desktop",
            ".tool/state",
            ".cache/.hidden/x",
            ".cache/pre-commit/db.db",
        ] {
            assert_eq!(said(rel), None, "{rel}");
        }
        // A folder of its own in /tmp: proposed; /tmp itself, a hidden one or ssh's: not.
        let own = tempfile::Builder::new()
            .prefix("clada-judge-")
            .tempdir_in("/tmp")
            .unwrap();
        let how = needs_user(
            &format!(
                "cannot create {}/out: Permission denied",
                own.path().display()
            ),
            &v,
        )
        .unwrap_or_default();
        assert!(
            how.contains(&format!("write: [\"{}\"]", own.path().display())),
            "{how}"
        );
        for out in [
            "cannot create /tmp/x: Permission denied".to_string(),
            "cannot create /tmp/ssh-XXXX/agent.1: Permission denied".to_string(),
        ] {
            assert_eq!(needs_user(&out, &v), None, "{out}");
        }
    }

    #[test]
    fn a_read_only_git_directory_is_the_users_only_where_no_overlay_was_possible() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().join("p");
        std::fs::create_dir_all(root.join(".git/refs")).unwrap();
        let mut v = view(t.path(), &root);
        v.readable.push(root.join(".git"));
        let out = format!(
            "error: cannot lock ref 'refs/stash': unable to create '{}/.git/refs/stash.lock': Read-only file system",
            root.display()
        );
        // With the overlay, a write there cannot have been refused: the model's.
        v.writable.push(root.join(".git"));
        assert_eq!(needs_user(&out, &v), None);
        v.writable.pop();
        v.git_read_only = Some("this kernel has no overlayfs in user namespaces".into());
        let how = needs_user(&out, &v).unwrap();
        assert!(how.contains("no overlayfs"), "{how}");
    }
}
