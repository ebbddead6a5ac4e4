//! The `git diff` round trip: random files with random edits (changed lines, new files, deleted
//! files, renames, mode changes, CRLF files, files without a last line break) are committed and
//! edited in a real repository; `git diff` of the edit, applied to the original with
//! `git clada apply`, must give the tree `git apply --index` gives (and the edited tree itself).
//! `CLADA_ROUNDTRIP_CASES` sets the number of cases (default 40), `CLADA_DIFF_SEED` the seed.

mod common;
mod differential_support;

use std::os::unix::fs::PermissionsExt;

use common::{exit_code, output_text, TestRepo};
use differential_support::*;

fn set_mode(repo: &TestRepo, rel: &str, exec: bool) {
    let p = repo.path().join(rel);
    let mut perm = std::fs::metadata(&p).expect("stat").permissions();
    perm.set_mode(if exec { 0o755 } else { 0o644 });
    std::fs::set_permissions(&p, perm).expect("chmod");
}

/// Writes `tree` into the worktree (modes included) after removing what was there.
fn put(repo: &TestRepo, before: &Tree, tree: &Tree) {
    for p in before.keys() {
        let _ = std::fs::remove_file(repo.path().join(p));
    }
    for (p, (exec, bytes)) in tree {
        repo.write_bytes(p, bytes);
        set_mode(repo, p, *exec);
    }
}

/// A random edit of `before`: every file changed, deleted, renamed or given another mode, and
/// maybe a new file.
fn edit(rng: &mut Rng, before: &Tree) -> Tree {
    let mut after = Tree::new();
    for (p, (exec, bytes)) in before {
        let text = String::from_utf8(bytes.clone()).expect("utf8");
        let spec = FileSpec {
            lines: text
                .split_inclusive('\n')
                .map(|l| l.trim_end_matches('\n').trim_end_matches('\r').to_string())
                .collect(),
            crlf: text.contains("\r\n"),
            final_break: text.ends_with('\n'),
        };
        let changes = random_changes(rng, &spec.lines, 3, 4);
        let mut changed = FileSpec {
            lines: apply_changes(&spec.lines, &changes),
            ..spec.clone()
        };
        if rng.chance(10) {
            changed.final_break = !changed.final_break;
        }
        match rng.below(100) {
            0..=9 => {}
            10..=19 => {
                after.insert(format!("moved/{p}"), (*exec, changed.bytes()));
            }
            20..=27 => {
                after.insert(p.clone(), (!exec, changed.bytes()));
            }
            _ => {
                after.insert(p.clone(), (*exec, changed.bytes()));
            }
        }
    }
    if rng.chance(30) {
        let f = random_file(rng, 1, 8);
        after.insert(
            format!("new/n{}.txt", rng.below(1000)),
            (rng.chance(30), f.bytes()),
        );
    }
    after
}

#[test]
fn git_diff_applied_by_git_clada_gives_the_tree_git_apply_gives() {
    let n = std::env::var("CLADA_ROUNDTRIP_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(40);
    let mut rng = Rng::new(seed() ^ 0x7E57);
    let mut checked = 0;
    for i in 0..n {
        let mut before = Tree::new();
        for k in 0..1 + rng.below(3) {
            let f = random_file(&mut rng, 2, 30);
            before.insert(format!("src/f{k}.txt"), (rng.chance(15), f.bytes()));
        }
        let after = edit(&mut rng, &before);
        let repo = TestRepo::new();
        put(&repo, &Tree::new(), &before);
        repo.git(&["add", "-A"]);
        repo.git(&["commit", "-q", "-m", "before"]);
        put(&repo, &before, &after);
        repo.git(&["add", "-A"]);
        let edited = repo.git(&["write-tree"]);
        let diff = repo.git(&["diff", "--cached", "-M", "HEAD"]);
        if diff.is_empty() {
            continue;
        }
        repo.git(&["reset", "-q", "--hard"]);
        repo.write("change.diff", &diff);
        repo.git(&["apply", "--index", "change.diff"]);
        std::fs::remove_file(repo.path().join("change.diff")).expect("rm");
        let by_git = repo.git(&["write-tree"]);
        repo.git(&["reset", "-q", "--hard"]);
        let reply = if rng.chance(50) {
            format!("Here is the change:\n\n```diff\n{diff}```\n")
        } else {
            diff.clone()
        };
        let out = repo.apply(&reply, &[]);
        let case = format!("case {i}; diff:\n{diff}\nreport:\n{}", output_text(&out));
        assert_eq!(exit_code(&out), 0, "{case}");
        let by_clada = repo.git(&["rev-parse", "HEAD^{tree}"]);
        assert_eq!(by_git, edited, "git apply --index itself, {case}");
        assert_eq!(by_clada.trim(), by_git.trim(), "{case}");
        assert_eq!(repo.status(), "", "{case}");
        repo.assert_fsck();
        checked += 1;
    }
    println!("git diff round trip: {checked} of {n} cases checked (the others had no change)");
    assert!(
        checked * 2 > n,
        "too few cases had a change: {checked} of {n}"
    );
}
