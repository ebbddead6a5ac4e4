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
        if round_trip(&before, &after, rng.chance(50), &format!("case {i}")) {
            checked += 1;
        }
    }
    println!("git diff round trip: {checked} of {n} cases checked (the others had no change)");
    assert!(
        checked * 2 > n,
        "too few cases had a change: {checked} of {n}"
    );
}

/// `before` committed, `after` staged: `git diff --cached -M` of it, applied to `before` by
/// `git clada apply` (`fenced`: inside a markdown fence), must give the tree `git apply
/// --index` gives, which is `after`'s. False when the two trees are the same (no diff).
fn round_trip(before: &Tree, after: &Tree, fenced: bool, case: &str) -> bool {
    let repo = TestRepo::new();
    put(&repo, &Tree::new(), before);
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "before"]);
    put(&repo, before, after);
    repo.git(&["add", "-A"]);
    let edited = repo.git(&["write-tree"]);
    let diff = repo.git(&["diff", "--cached", "-M", "HEAD"]);
    if diff.is_empty() {
        return false;
    }
    repo.git(&["reset", "-q", "--hard"]);
    repo.write("change.diff", &diff);
    repo.git(&["apply", "--index", "change.diff"]);
    std::fs::remove_file(repo.path().join("change.diff")).expect("rm");
    let by_git = repo.git(&["write-tree"]);
    repo.git(&["reset", "-q", "--hard"]);
    let reply = match fenced {
        true => format!("Here is the change:\n\n```diff\n{diff}```\n"),
        false => diff.clone(),
    };
    let out = repo.apply(&reply, &[]);
    let case = format!("{case}; diff:\n{diff}\nreport:\n{}", output_text(&out));
    assert_eq!(exit_code(&out), 0, "{case}");
    let by_clada = repo.git(&["rev-parse", "HEAD^{tree}"]);
    assert_eq!(by_git, edited, "git apply --index itself, {case}");
    assert_eq!(by_clada.trim(), by_git.trim(), "{case}");
    assert_eq!(repo.status(), "", "{case}");
    repo.assert_fsck();
    true
}

/// git writes a UTF-8 BOM as part of line 1 and `git apply` applies hunks that show it there
/// (issue 54.1, 14 real commits): an edit of line 1, a CRLF file, a whole-file delete, a new
/// file, a BOM removed and one added.
#[test]
fn a_bom_on_line_one_is_part_of_line_one_as_git_writes_it() {
    let bom = "\u{feff}";
    let file = |text: String| (false, text.into_bytes());
    let lf = format!("{bom}first\nsecond\nthird\n");
    let crlf = format!("{bom}one\r\ntwo\r\nthree\r\nfour\r\n");
    let cases: Vec<(&str, Tree, Tree)> = vec![
        (
            "line 1 of an LF file",
            Tree::from([("a.txt".into(), file(lf.clone()))]),
            Tree::from([("a.txt".into(), file(lf.replace("first", "FIRST")))]),
        ),
        (
            "lines 1 and 3 of a CRLF file",
            Tree::from([("b.cs".into(), file(crlf.clone()))]),
            Tree::from([(
                "b.cs".into(),
                file(crlf.replace("one", "ONE").replace("three", "3")),
            )]),
        ),
        (
            "a whole-file delete",
            Tree::from([
                ("a.txt".into(), file(lf.clone())),
                ("k".into(), file("k\n".into())),
            ]),
            Tree::from([("k".into(), file("k\n".into()))]),
        ),
        (
            "a new file",
            Tree::from([("k".into(), file("k\n".into()))]),
            Tree::from([
                ("k".into(), file("k\n".into())),
                ("n.txt".into(), file(lf.clone())),
            ]),
        ),
        (
            "the BOM removed",
            Tree::from([("a.txt".into(), file(lf.clone()))]),
            Tree::from([("a.txt".into(), file(lf.replace(bom, "")))]),
        ),
        (
            "a BOM added",
            Tree::from([("a.txt".into(), file(lf.replace(bom, "")))]),
            Tree::from([("a.txt".into(), file(lf.clone()))]),
        ),
    ];
    for (what, before, after) in cases {
        assert!(round_trip(&before, &after, false, what), "{what}: no diff");
    }
}

/// A model's diff of a BOM file does not show the BOM (it never saw it): the hunk still
/// applies to line 1 and the BOM stays.
#[test]
fn a_hunk_without_the_bom_still_edits_line_one_and_keeps_it() {
    let repo = TestRepo::with_files(&[("a.txt", "\u{feff}first\nsecond\n")]);
    let diff = "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n-first\n+FIRST\n second\n";
    let out = repo.apply(diff, &[]);
    assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
    assert_eq!(repo.read("a.txt"), "\u{feff}FIRST\nsecond\n");
    let delete = "--- a/a.txt\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-FIRST\n-second\n";
    let out = repo.apply(delete, &[]);
    assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
    assert!(!repo.exists("a.txt"));
}
