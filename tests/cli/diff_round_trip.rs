//! The `git diff` round trip: random files with random edits (changed lines, new files, deleted
//! files, renames, mode changes, CRLF files, files without a last line break) are committed and
//! edited in a real repository; `git diff` of the edit, applied to the original with
//! `git clada apply`, must give the tree `git apply --index` gives (and the edited tree itself).
//! `CLADA_ROUNDTRIP_CASES` sets the number of cases (default 40), `CLADA_DIFF_SEED` the seed.

use crate::common;
use crate::differential_support;

use std::os::unix::fs::PermissionsExt;

use common::{exit_code, output_text, TestRepo};
use differential_support::*;

fn set_mode(repo: &TestRepo, rel: &str, exec: bool) {
    let p = repo.path().join(rel);
    let mut perm = std::fs::metadata(&p).expect("stat").permissions();
    perm.set_mode(if exec { 0o755 } else { 0o644 });
    std::fs::set_permissions(&p, perm).expect("chmod");
}

/// Symbolic links of a tree: path → target.
type Links = std::collections::BTreeMap<String, String>;

/// Writes `tree` and `links` into the worktree after removing `before`'s files and links.
fn put_all(repo: &TestRepo, before: (&Tree, &Links), (tree, links): (&Tree, &Links)) {
    for p in before.0.keys().chain(before.1.keys()) {
        let _ = std::fs::remove_file(repo.path().join(p));
    }
    for (p, (exec, bytes)) in tree {
        repo.write_bytes(p, bytes);
        set_mode(repo, p, *exec);
    }
    for (p, target) in links {
        let at = repo.path().join(p);
        std::fs::create_dir_all(at.parent().expect("parent")).expect("mkdir");
        std::os::unix::fs::symlink(target, &at).expect("symlink");
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
    let none = Links::new();
    round_trip_links((before, &none), (after, &none), (fenced, true), case)
}

/// [`round_trip`] of trees with symbolic links; without `symlinks`, the repository is set to
/// `core.symlinks = false` before the diff is applied (links are plain files holding their
/// targets), as on a filesystem without links.
fn round_trip_links(
    before: (&Tree, &Links),
    after: (&Tree, &Links),
    (fenced, symlinks): (bool, bool),
    case: &str,
) -> bool {
    let repo = TestRepo::new();
    put_all(&repo, (&Tree::new(), &Links::new()), before);
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "before"]);
    put_all(&repo, before, after);
    repo.git(&["add", "-A"]);
    let edited = repo.git(&["write-tree"]);
    // Bytes: a Latin-1 file's diff is not UTF-8.
    let diff = repo.git_output(&["diff", "--cached", "-M", "HEAD"]).stdout;
    if diff.is_empty() {
        return false;
    }
    if !symlinks {
        repo.git(&["config", "core.symlinks", "false"]);
        for p in before.1.keys().chain(after.1.keys()) {
            let _ = std::fs::remove_file(repo.path().join(p));
        }
    }
    repo.git(&["reset", "-q", "--hard"]);
    repo.write_bytes("change.diff", &diff);
    repo.git(&["apply", "--index", "change.diff"]);
    std::fs::remove_file(repo.path().join("change.diff")).expect("rm");
    let by_git = repo.git(&["write-tree"]);
    repo.git(&["reset", "-q", "--hard"]);
    let reply = match fenced {
        true => [&b"Here is the change:\n\n```diff\n"[..], &diff, b"```\n"].concat(),
        false => diff.clone(),
    };
    let out = repo.apply_bytes(&reply, &[]);
    let diff = String::from_utf8_lossy(&diff);
    let case = format!("{case}; diff:\n{diff}\nreport:\n{}", output_text(&out));
    assert_eq!(exit_code(&out), 0, "{case}");
    let by_clada = repo.git(&["rev-parse", "HEAD^{tree}"]);
    assert_eq!(by_git, edited, "git apply --index itself, {case}");
    assert_eq!(by_clada.trim(), by_git.trim(), "{case}");
    assert_eq!(repo.status(), "", "{case}");
    repo.assert_fsck();
    // The worktree holds what the commit says: each link a link to its target, or without
    // symlinks a plain file holding it.
    for (p, target) in after.1 {
        let at = repo.path().join(p);
        match symlinks {
            true => assert_eq!(
                std::fs::read_link(&at).expect("a link").to_string_lossy(),
                *target,
                "{p}, {case}"
            ),
            false => assert_eq!(std::fs::read(&at).expect("a file"), target.as_bytes()),
        }
    }
    // And `git clada undo` gives back the tree, links included.
    let undo = repo.clada(&["undo"]);
    assert_eq!(exit_code(&undo), 0, "undo: {}, {case}", output_text(&undo));
    assert_eq!(repo.status(), "", "after undo, {case}");
    for (p, target) in before.1 {
        let at = repo.path().join(p);
        match symlinks {
            true => assert_eq!(
                std::fs::read_link(&at).expect("a link").to_string_lossy(),
                *target,
                "undo: {p}, {case}"
            ),
            false => assert_eq!(std::fs::read(&at).expect("a file"), target.as_bytes()),
        }
    }
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

/// Latin-1 (or Windows-1252) text as `before`'s bytes: every `e` is `é` (0xE9) and every `o`
/// is `ö` (0xF6), so the same line is the same bytes on both sides of an edit.
fn latin1(tree: &Tree) -> Tree {
    tree.iter()
        .map(|(p, (exec, bytes))| {
            let b = bytes
                .iter()
                .map(|&c| match c {
                    b'e' => 0xE9,
                    b'o' => 0xF6,
                    c => c,
                })
                .collect();
            (p.clone(), (*exec, b))
        })
        .collect()
}

/// `git diff` of a Latin-1 file prints its bytes (issue 54.5): random edits of such files
/// (changed lines, CRLF, no last line break, new, deleted and renamed files, mode changes)
/// give the tree `git apply --index` gives.
#[test]
fn a_diff_of_latin1_files_gives_the_tree_git_apply_gives() {
    let n = std::env::var("CLADA_ROUNDTRIP_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(40usize)
        .div_ceil(2);
    let mut rng = Rng::new(seed() ^ 0x1A71);
    let mut checked = 0;
    for i in 0..n {
        let mut before = Tree::new();
        for k in 0..1 + rng.below(3) {
            let f = random_file(&mut rng, 2, 30);
            before.insert(format!("src/l{k}.txt"), (rng.chance(15), f.bytes()));
        }
        let after = edit(&mut rng, &before);
        let (before, after) = (latin1(&before), latin1(&after));
        if round_trip(
            &before,
            &after,
            rng.chance(50),
            &format!("latin-1 case {i}"),
        ) {
            checked += 1;
        }
    }
    assert!(
        checked * 2 > n,
        "too few cases had a change: {checked} of {n}"
    );
}

/// The shapes of a Latin-1 diff one by one: a changed line, a hunk header whose section
/// heading (a line git shows after `@@`) is Latin-1, a Windows-1252 CRLF file, a new and a
/// deleted file, a UTF-8 file beside a Latin-1 one in one diff.
#[test]
fn latin1_hunks_apply_as_git_apply_applies_them() {
    let file = |b: &[u8]| (false, b.to_vec());
    let long: Vec<u8> = [
        &b"caf\xe9 au lait\n"[..],
        b"  line 2\n  line 3\n  line 4\n  line 5\n  line 6\n  line 7\n  line 8\n",
        b"  na\xefve\n  line 10\n  line 11\n",
    ]
    .concat();
    let cases: Vec<(&str, Tree, Tree)> = vec![
        (
            "a changed line",
            Tree::from([("a.txt".into(), file(b"caf\xe9\nna\xefve\n"))]),
            Tree::from([("a.txt".into(), file(b"caf\xe8\nna\xefve\n"))]),
        ),
        (
            "a Latin-1 section heading",
            Tree::from([("h.txt".into(), file(&long))]),
            Tree::from([(
                "h.txt".into(),
                file(&common::replace_bytes(&long, b"na\xefve", b"NA\xcfVE")),
            )]),
        ),
        (
            "a Windows-1252 CRLF file",
            Tree::from([("w.cs".into(), file(b"\x93one\x94\r\ntwo\r\n"))]),
            Tree::from([("w.cs".into(), file(b"\x93one\x94\r\n\x96two\r\n"))]),
        ),
        (
            "a new and a deleted file",
            Tree::from([("old.txt".into(), file(b"\xe0 bient\xf4t\n"))]),
            Tree::from([("new.txt".into(), file(b"gr\xfc\xdfe\n\xff"))]),
        ),
        (
            "UTF-8 and Latin-1 in one diff",
            Tree::from([
                ("u.txt".into(), file("café\n".as_bytes())),
                ("l.txt".into(), file(b"caf\xe9\n")),
            ]),
            Tree::from([
                ("u.txt".into(), file("cafés\n".as_bytes())),
                ("l.txt".into(), file(b"caf\xe9s\n")),
            ]),
        ),
    ];
    for (what, before, after) in cases {
        assert!(round_trip(&before, &after, false, what), "{what}: no diff");
    }
}

/// Symbolic links in `git diff` (issue 54.3): made, retargeted, deleted, turned into files and
/// back, renamed, to a folder and dangling — the tree `git apply --index` gives, the worktree
/// the commit says and undo back to the start; and the same where `core.symlinks` is false
/// (links are plain files holding their targets, committed as links).
#[test]
fn symbolic_links_in_a_diff_give_the_tree_git_apply_gives() {
    let file = |b: &str| (false, b.as_bytes().to_vec());
    let files = Tree::from([
        ("d/t.txt".into(), file("t\n")),
        ("x.txt".into(), file("x\n")),
        ("sub/deep/y.txt".into(), file("y\n")),
    ]);
    let links = |l: &[(&str, &str)]| -> Links {
        l.iter()
            .map(|(p, t)| (p.to_string(), t.to_string()))
            .collect()
    };
    let without = |t: &Tree, p: &str| {
        let mut t = t.clone();
        t.remove(p);
        t
    };
    let with = |t: &Tree, p: &str, c: &str| {
        let mut t = t.clone();
        t.insert(p.into(), file(c));
        t
    };
    type Side = (Tree, Links);
    let cases: Vec<(&str, Side, Side)> = vec![
        (
            "new links, in a folder and up",
            (files.clone(), links(&[])),
            (
                files.clone(),
                links(&[
                    ("d/l", "t.txt"),
                    ("sub/deep/up", "../../x.txt"),
                    ("top", "d"),
                ]),
            ),
        ),
        (
            "a link's target changed",
            (files.clone(), links(&[("d/l", "t.txt")])),
            (files.clone(), links(&[("d/l", "../x.txt")])),
        ),
        (
            "a link deleted",
            (files.clone(), links(&[("d/l", "t.txt"), ("k", "x.txt")])),
            (files.clone(), links(&[("k", "x.txt")])),
        ),
        (
            "a file becomes a link",
            (files.clone(), links(&[])),
            (without(&files, "x.txt"), links(&[("x.txt", "d/t.txt")])),
        ),
        (
            "a link becomes a file",
            (without(&files, "x.txt"), links(&[("x.txt", "d/t.txt")])),
            (with(&files, "x.txt", "now a file\n"), links(&[])),
        ),
        (
            "a link renamed in its folder, and a dangling one",
            (files.clone(), links(&[("d/l", "t.txt")])),
            (
                files.clone(),
                links(&[("d/m", "t.txt"), ("d/gone", "missing/file")]),
            ),
        ),
        (
            "a link to a link",
            (files.clone(), links(&[("d/l", "t.txt")])),
            (files.clone(), links(&[("d/l", "t.txt"), ("chain", "d/l")])),
        ),
    ];
    for (what, before, after) in &cases {
        for symlinks in [true, false] {
            let case = format!("{what} (core.symlinks {symlinks})");
            assert!(
                round_trip_links(
                    (&before.0, &before.1),
                    (&after.0, &after.1),
                    (false, symlinks),
                    &case
                ),
                "{case}: no diff"
            );
        }
    }
}
