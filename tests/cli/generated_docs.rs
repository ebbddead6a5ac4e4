//! The checked-in man pages and shell completions must match what the clap definitions
//! generate; regenerate them with `cargo run -- generate` after changing any help text.

use std::path::Path;

fn files_under(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let p = entry.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p.strip_prefix(dir).unwrap().to_string_lossy().into_owned());
            }
        }
    }
    out.sort();
    out
}

#[test]
fn man_pages_and_completions_are_current() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let fresh = tempfile::tempdir().unwrap();
    git_clada::cli::generate::write_all(fresh.path()).unwrap();
    for sub in ["man", "completions"] {
        let generated = files_under(&fresh.path().join(sub));
        let checked_in = files_under(&root.join(sub));
        assert_eq!(
            generated, checked_in,
            "{sub}/ has different files than the generator produces; run `cargo run -- generate`"
        );
        for f in generated {
            let want = std::fs::read(fresh.path().join(sub).join(&f)).unwrap();
            let have = std::fs::read(root.join(sub).join(&f)).unwrap();
            assert!(
                want == have,
                "{sub}/{f} is stale; run `cargo run -- generate`"
            );
        }
    }
}

#[test]
fn every_subcommand_has_a_man_page() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for sub in git_clada::cli::command().get_subcommands() {
        if sub.is_hide_set() {
            continue;
        }
        let page = root
            .join("man/man1")
            .join(format!("git-clada-{}.1", sub.get_name()));
        assert!(page.exists(), "missing {}", page.display());
    }
}
