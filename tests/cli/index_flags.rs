//! Index flags users set survive every git-clada operation: skip-worktree (a sparse
//! checkout), assume-unchanged and intent-to-add (`git add -N`). The index is rebuilt from
//! trees by undo, redo and step, and trees hold no flags; losing skip-worktree makes every
//! file outside the sparse cone show as deleted (and the next apply commits the deletions).

use crate::common;

use common::{assert_ok as ok, block, TestRepo};

/// What the flags look like to git: `ls-files -v` (S skip-worktree, lowercase
/// assume-unchanged), the status (` A` for intent-to-add, ` D` for a lost sparse file) and
/// the files on disk.
fn flag_state(repo: &TestRepo) -> (String, String, Vec<String>) {
    (
        repo.git(&["ls-files", "-v"]),
        repo.status(),
        common::files_of(repo.path()).into_keys().collect(),
    )
}

fn edit(path: &str, old: &str, new: &str) -> String {
    block(
        "e01",
        &[
            ("action", "file_replace_text"),
            ("path", path),
            ("old_text", old),
            ("new_text", new),
        ],
    )
}

/// A repository in a sparse checkout of `in/`: `out/` holds files that are tracked but not
/// in the worktree.
fn sparse_repo() -> TestRepo {
    let repo = TestRepo::with_files(&[
        ("in/a.txt", "a0\n"),
        ("out/b.txt", "b0\n"),
        ("out/deep/c.txt", "c0\n"),
        ("root.txt", "r0\n"),
    ]);
    repo.git(&["sparse-checkout", "set", "in"]);
    assert!(!repo.exists("out/b.txt"));
    assert!(repo.git(&["ls-files", "-v"]).contains("S out/b.txt"));
    repo
}

#[test]
fn sparse_checkout_survives_apply_undo_redo() {
    let repo = sparse_repo();
    let before = flag_state(&repo);
    assert_eq!(before.1, "", "a fresh sparse checkout is clean");

    ok(&repo.apply(&edit("in/a.txt", "a0", "a1"), &[]), "apply");
    let after = flag_state(&repo);
    assert_eq!(after.1, "", "apply leaves a clean sparse checkout");
    assert!(after.0.contains("S out/b.txt"), "{}", after.0);
    let changed = repo.git(&["show", "--name-only", "--format=", "HEAD"]);
    assert_eq!(changed.trim(), "in/a.txt");

    ok(&repo.clada(&["undo"]), "undo");
    assert_eq!(flag_state(&repo), before, "undo restores the sparse bits");

    ok(&repo.clada(&["redo"]), "redo");
    assert_eq!(flag_state(&repo), after, "redo keeps them");

    // The next apply commits only its own change, no deletion of the sparse files.
    ok(&repo.apply(&edit("in/a.txt", "a1", "a2"), &[]), "apply 2");
    let changed = repo.git(&["show", "--name-only", "--format=", "HEAD"]);
    assert_eq!(changed.trim(), "in/a.txt");
    assert_eq!(repo.status(), "");
    repo.assert_fsck();
}

#[test]
fn undo_of_an_apply_that_wrote_outside_the_cone_makes_the_file_sparse_again() {
    let repo = sparse_repo();
    let before = flag_state(&repo);
    let reply = block(
        "w01",
        &[
            ("action", "file_write"),
            ("path", "out/b.txt"),
            ("content", "b by the AI\n"),
        ],
    );
    ok(&repo.apply(&reply, &[]), "apply");
    assert_eq!(repo.read("out/b.txt"), "b by the AI\n");
    assert_eq!(repo.status(), "");
    let after = flag_state(&repo);
    ok(&repo.clada(&["undo"]), "undo");
    assert_eq!(flag_state(&repo), before);
    assert!(!repo.exists("out/b.txt"));
    assert_eq!(repo.git(&["show", ":out/b.txt"]), "b0\n");
    ok(&repo.clada(&["redo"]), "redo");
    assert_eq!(
        flag_state(&repo),
        after,
        "redo writes it again, as the apply did"
    );
}

#[test]
fn sparse_checkout_survives_squash_and_step() {
    let repo = sparse_repo();
    let before = flag_state(&repo);
    // History that changes files on both sides of the cone.
    ok(&repo.apply(&edit("in/a.txt", "a0", "a1"), &[]), "apply 1");
    ok(&repo.apply(&edit("in/a.txt", "a1", "a2"), &[]), "apply 2");
    ok(&repo.clada(&["squash", "--mode", "auto_ai"]), "squash");
    assert_eq!(repo.status(), "");
    let tip_state = flag_state(&repo);
    assert!(tip_state.0.contains("S out/b.txt"));

    ok(&repo.clada(&["step-back"]), "step-back");
    let back = flag_state(&repo);
    assert_eq!(
        back, before,
        "one step back is the initial commit, still sparse"
    );
    ok(&repo.clada(&["step-forward", "--all"]), "step-forward");
    assert_eq!(flag_state(&repo), tip_state);
    repo.assert_fsck();
}

#[test]
fn a_step_across_a_change_outside_the_cone_does_not_materialise_it() {
    let repo = TestRepo::with_files(&[("in/a.txt", "a0\n"), ("out/b.txt", "b0\n")]);
    repo.write("out/b.txt", "b1\n");
    repo.write("in/a.txt", "a1\n");
    repo.git(&["commit", "-qam", "both sides"]);
    repo.git(&["sparse-checkout", "set", "in"]);
    let tip = flag_state(&repo);
    ok(&repo.clada(&["step-back"]), "step-back");
    let back = flag_state(&repo);
    assert_eq!(back.1, "", "no sparse file shows as deleted or changed");
    assert!(!repo.exists("out/b.txt"), "the sparse file stays out");
    assert!(back.0.contains("S out/b.txt"));
    assert_eq!(repo.git(&["show", ":out/b.txt"]), "b0\n");
    assert_eq!(repo.read("in/a.txt"), "a0\n");
    ok(&repo.clada(&["step-forward", "--all"]), "step-forward");
    assert_eq!(flag_state(&repo), tip);
}

#[test]
fn assume_unchanged_survives_apply_undo_redo_and_step() {
    let repo = TestRepo::with_files(&[("a.txt", "a0\n"), ("b.txt", "b0\n")]);
    repo.git(&["update-index", "--assume-unchanged", "b.txt"]);
    let before = flag_state(&repo);
    assert!(before.0.contains("h b.txt"), "{}", before.0);

    ok(&repo.apply(&edit("a.txt", "a0", "a1"), &[]), "apply");
    let after = flag_state(&repo);
    assert!(
        after.0.contains("h b.txt"),
        "apply keeps the bit: {}",
        after.0
    );
    ok(&repo.clada(&["undo"]), "undo");
    assert_eq!(flag_state(&repo), before);
    ok(&repo.clada(&["redo"]), "redo");
    assert_eq!(flag_state(&repo), after);
    ok(&repo.clada(&["step-back"]), "step-back");
    assert!(repo.git(&["ls-files", "-v"]).contains("h b.txt"));
    ok(&repo.clada(&["step-forward", "--all"]), "step-forward");
    assert_eq!(flag_state(&repo), after);
}

#[test]
fn intent_to_add_survives_apply_undo_and_step() {
    let repo = TestRepo::with_files(&[("a.txt", "a0\n")]);
    repo.write("planned.txt", "not staged yet\n");
    repo.git(&["add", "-N", "planned.txt"]);
    let before = flag_state(&repo);
    assert_eq!(before.1, " A planned.txt\n");

    ok(&repo.apply(&edit("a.txt", "a0", "a1"), &[]), "apply");
    ok(&repo.clada(&["undo"]), "undo");
    assert_eq!(
        flag_state(&repo),
        before,
        "undo brings the intent-to-add entry back"
    );
    assert_eq!(repo.read("planned.txt"), "not staged yet\n");

    repo.git(&["commit", "-qam", "second"]);
    // `commit -a` committed planned.txt; make a new intent-to-add entry and step.
    repo.write("later.txt", "later\n");
    repo.git(&["add", "-N", "later.txt"]);
    let tip = flag_state(&repo);
    ok(&repo.clada(&["step-back"]), "step-back");
    assert!(
        !repo.exists("later.txt"),
        "parked with the rest of the work"
    );
    ok(&repo.clada(&["step-forward", "--all"]), "step-forward");
    assert_eq!(
        flag_state(&repo),
        tip,
        "step-forward brings it back as intent-to-add"
    );
    repo.assert_fsck();
}

/// The cache-tree git-clada writes must not count intent-to-add entries: git leaves them out
/// of trees and invalidates every cache-tree node above them. A cache-tree that counted one
/// made `git status` show a tracked, unchanged file as added, and the user's next
/// `git add X && git commit` wrote a tree with duplicate entries that lost files (issue 33).
#[test]
fn intent_to_add_next_to_an_apply_leaves_a_cache_tree_git_agrees_with() {
    let repo = TestRepo::with_files(&[
        ("d/a.txt", "a0\n"),
        ("d/z.txt", "z0\n"),
        ("root.txt", "r0\n"),
        ("u.txt", "u0\n"),
    ]);
    repo.write("d/b.txt", "new\n");
    repo.git(&["add", "-N", "d/b.txt"]);

    ok(&repo.apply(&edit("d/a.txt", "a0", "a1"), &[]), "apply");
    assert_eq!(
        repo.status(),
        " A d/b.txt\n",
        "only the intent-to-add file shows, as added and not staged"
    );
    assert_eq!(repo.git(&["diff", "--cached", "--name-status"]), "");
    assert_eq!(repo.git(&["diff", "HEAD", "--name-status"]), "A\td/b.txt\n");

    // The user's next commit holds every file, once.
    repo.write("u.txt", "u1\n");
    repo.git(&["add", "u.txt"]);
    repo.git(&["commit", "-qm", "user"]);
    assert_eq!(
        repo.git(&["ls-tree", "-r", "--name-only", "HEAD"]),
        "d/a.txt\nd/z.txt\nroot.txt\nu.txt\n"
    );
    repo.assert_fsck();
    assert_eq!(repo.status(), " A d/b.txt\n");
}
