//! undo/redo of an apply restores exactly the state before it, including untracked files the
//! AI overwrote and ignored files it created.

use crate::common;

use common::{block, TestRepo};

#[test]
fn undo_restores_overwritten_untracked_and_removes_created_ignored_files() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n"), (".gitignore", "*.log\n")]);
    repo.write("scratch.txt", "mine, untracked\n");
    repo.write("a.txt", "a\nuser line\n");
    let before = repo.state();
    let reply = [
        block(
            "w1",
            &[
                ("action", "file_write"),
                ("path", "scratch.txt"),
                ("content", "AI\n"),
            ],
        ),
        block(
            "w2",
            &[
                ("action", "file_write"),
                ("path", "out.log"),
                ("content", "AI log\n"),
            ],
        ),
        block(
            "w3",
            &[
                ("action", "file_append"),
                ("path", "a.txt"),
                ("content", "ai line\n"),
            ],
        ),
    ]
    .concat();
    let out = repo.apply(&reply, &[]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(repo.read("scratch.txt"), "AI\n");
    let after_apply = repo.state();

    let undo = repo.clada(&["undo"]);
    assert_eq!(
        undo.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&undo.stderr)
    );
    common::assert_same_user_state(&repo.state(), &before, "after undo");
    repo.assert_fsck();

    let redo = repo.clada(&["redo"]);
    assert_eq!(
        redo.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&redo.stderr)
    );
    // Redo brings back every committed change; the ignored file was never committed.
    let after_redo = repo.state();
    assert_eq!(after_redo.head, after_apply.head);
    assert_eq!(after_redo.index, after_apply.index);
    assert_eq!(after_redo.status, after_apply.status);
}

#[test]
fn undo_refuses_when_the_worktree_changed_and_changes_nothing() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let reply = block(
        "c1",
        &[
            ("action", "file_write"),
            ("path", "a.txt"),
            ("content", "ai\n"),
        ],
    );
    assert_eq!(repo.apply(&reply, &[]).status.code(), Some(0));
    repo.write("a.txt", "edited after the apply\n");
    let before = repo.state();
    let out = repo.clada(&["undo"]);
    assert_eq!(out.status.code(), Some(3));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("the worktree has changed since the apply: a.txt"),
        "{err}"
    );
    assert_eq!(repo.state(), before);
}

#[test]
fn undo_dry_run_prints_the_plan_and_changes_nothing() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let reply = block(
        "d1",
        &[
            ("action", "file_write"),
            ("path", "b.txt"),
            ("content", "b\n"),
        ],
    );
    assert_eq!(repo.apply(&reply, &[]).status.code(), Some(0));
    let before = repo.state();
    let git_before = common::files_of(&repo.path().join(".git"));
    let out = repo.clada(&["--dry-run", "--format", "json", "undo"]);
    assert_eq!(out.status.code(), Some(0));
    let plan: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(plan["operation"], "undo");
    assert_eq!(plan["paths"], serde_json::json!(["b.txt"]));
    assert_eq!(plan["dryRun"], true);
    assert_eq!(repo.state(), before);
    assert_eq!(common::files_of(&repo.path().join(".git")), git_before);
}
