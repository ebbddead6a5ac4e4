//! An index an earlier git-clada wrote wrong (issue 33: a cache-tree that counted an
//! intent-to-add entry) is found by `git clada status` and put right by `git clada
//! repair-index`, which changes nothing else.

use crate::common;

use common::{assert_ok as ok, TestRepo};

/// The body of `index` up to its extensions (header and entries, version 2 or 3).
fn entries_part(index: &[u8]) -> &[u8] {
    let count = u32::from_be_bytes([index[8], index[9], index[10], index[11]]);
    let mut at = 12;
    for _ in 0..count {
        let flags = u16::from_be_bytes([index[at + 60], index[at + 61]]);
        let header = 62 + if flags & 0x4000 != 0 { 2 } else { 0 };
        let name = usize::from(flags & 0x0fff);
        at += (header + name + 8) & !7;
    }
    &index[..at]
}

/// The extensions of `index` (between its entries and its checksum).
fn extensions_part(index: &[u8]) -> &[u8] {
    let start = entries_part(index).len();
    &index[start..index.len() - 20]
}

/// The issue's repository with the index git-clada used to write: git's own entries (with
/// `d/b.txt` intent-to-add) under a cache-tree that counts only the committed files, as if
/// the intent-to-add entry were one of them.
fn broken_repo() -> TestRepo {
    let repo = TestRepo::with_files(&[
        ("d/a.txt", "a0\n"),
        ("d/z.txt", "z0\n"),
        ("root.txt", "r0\n"),
        ("u.txt", "u0\n"),
    ]);
    repo.git(&["write-tree"]);
    let path = repo.path().join(".git/index");
    let clean = std::fs::read(&path).expect("read index");
    let tree = extensions_part(&clean).to_vec();
    assert!(tree.starts_with(b"TREE"), "git wrote a cache-tree");
    repo.write("d/b.txt", "new\n");
    repo.git(&["add", "-N", "d/b.txt"]);
    let with_ita = std::fs::read(&path).expect("read index");
    let mut broken = entries_part(&with_ita).to_vec();
    broken.extend_from_slice(&tree);
    use sha1::Digest;
    let sum = sha1::Sha1::digest(&broken);
    broken.extend_from_slice(&sum);
    std::fs::write(&path, &broken).expect("write index");
    // The symptom the issue reported: a tracked, unchanged file shows as added.
    assert!(repo.status().contains("A  d/z.txt"), "{}", repo.status());
    repo
}

#[test]
fn status_finds_the_broken_cache_tree_and_repair_index_drops_it() {
    let repo = broken_repo();
    let status = common::output_text(&repo.clada(&["status"]));
    assert!(status.contains("git clada repair-index"), "{status}");
    assert!(status.contains("the cache-tree of"), "{status}");

    let before = std::fs::read(repo.path().join(".git/index")).expect("read index");
    let dry = repo.clada(&["repair-index", "--dry-run"]);
    ok(&dry, "repair-index --dry-run");
    assert!(common::output_text(&dry).contains("needs repair"));
    assert_eq!(
        std::fs::read(repo.path().join(".git/index")).expect("read"),
        before
    );

    ok(&repo.clada(&["repair-index"]), "repair-index");
    assert_eq!(
        repo.status(),
        " A d/b.txt\n",
        "only the intent-to-add file shows"
    );
    let status = common::output_text(&repo.clada(&["status"]));
    assert!(!status.contains("repair-index"), "{status}");
    let again = common::output_text(&repo.clada(&["repair-index"]));
    assert!(again.contains("nothing to repair"), "{again}");

    // The user's next commit holds every file once.
    repo.write("u.txt", "u1\n");
    repo.git(&["add", "u.txt"]);
    repo.git(&["commit", "-qm", "user"]);
    assert_eq!(
        repo.git(&["ls-tree", "-r", "--name-only", "HEAD"]),
        "d/a.txt\nd/z.txt\nroot.txt\nu.txt\n"
    );
    repo.assert_fsck();
}

#[test]
fn a_sound_index_needs_no_repair() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n"), ("d/b.txt", "b\n")]);
    repo.git(&["write-tree"]);
    repo.write("d/c.txt", "c\n");
    repo.git(&["add", "-N", "d/c.txt"]);
    let before = std::fs::read(repo.path().join(".git/index")).expect("read index");
    let out = repo.clada(&["repair-index", "--format", "json"]);
    ok(&out, "repair-index");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(report["repaired"], false);
    assert!(report["problem"].is_null());
    assert_eq!(
        std::fs::read(repo.path().join(".git/index")).expect("read"),
        before
    );
}
