//! Repositories with a clean/smudge filter driver (`filter.<name>.clean/smudge` plus a
//! `.gitattributes` line): every operation that writes files runs the smudge filter as git
//! does, and one whose filter fails stops before it changes anything, with a message naming
//! the file and what to fix — never leaving an interrupted state behind.

use crate::common;

use common::{assert_ok as ok, block, TestRepo};

fn code(out: &std::process::Output) -> Option<i32> {
    out.status.code()
}

/// Stored content says `STORED` where the worktree says `local`.
fn filtered_repo() -> TestRepo {
    let repo = TestRepo::new();
    repo.git(&["config", "filter.swap.clean", "sed s/local/STORED/g"]);
    repo.git(&["config", "filter.swap.smudge", "sed s/STORED/local/g"]);
    repo.git(&["config", "filter.swap.required", "true"]);
    repo.write(".gitattributes", "*.txt filter=swap\n");
    repo.write("a.txt", "a local value\n");
    repo.write("b.txt", "b local value\n");
    repo.write("plain.md", "not filtered\n");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "initial"]);
    assert_eq!(repo.git(&["show", "HEAD:a.txt"]), "a STORED value\n");
    assert_eq!(repo.status(), "");
    repo
}

fn reply() -> String {
    [
        block(
            "f01",
            &[
                ("action", "file_replace_text"),
                ("path", "a.txt"),
                ("old_text", "a local value"),
                ("new_text", "a local value, edited"),
            ],
        ),
        block(
            "f02",
            &[
                ("action", "file_write"),
                ("path", "c.txt"),
                ("content", "c local new\n"),
            ],
        ),
    ]
    .concat()
}

#[test]
fn undo_redo_and_step_run_the_smudge_filter() {
    let repo = filtered_repo();
    let before = repo.state();
    ok(&repo.apply(&reply(), &[]), "apply");
    assert_eq!(
        repo.git(&["show", "HEAD:a.txt"]),
        "a STORED value, edited\n"
    );
    assert_eq!(repo.git(&["show", "HEAD:c.txt"]), "c STORED new\n");
    assert_eq!(repo.status(), "");
    let after = repo.state();

    ok(&repo.clada(&["undo"]), "undo");
    common::assert_same_user_state(&repo.state(), &before, "undo");
    assert_eq!(repo.read("a.txt"), "a local value\n");

    ok(&repo.clada(&["redo"]), "redo");
    common::assert_same_user_state(&repo.state(), &after, "redo");
    assert_eq!(repo.read("c.txt"), "c local new\n");

    ok(&repo.clada(&["step-back"]), "step-back");
    assert_eq!(repo.read("a.txt"), "a local value\n");
    assert!(!repo.exists("c.txt"));
    assert_eq!(repo.status(), "");
    ok(&repo.clada(&["step-forward", "--all"]), "step-forward");
    common::assert_same_user_state(&repo.state(), &after, "step-forward");
    repo.assert_fsck();
}

#[test]
fn a_failing_smudge_filter_stops_undo_before_anything_changes() {
    let repo = filtered_repo();
    ok(&repo.apply(&reply(), &[]), "apply");
    let applied = repo.state();

    repo.git(&["config", "filter.swap.smudge", "false"]);
    let out = repo.clada(&["undo"]);
    assert_ne!(code(&out), Some(0), "undo must fail");
    assert!(code(&out).is_some(), "a clean failure, not a crash");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("a.txt"), "names the file: {err}");
    assert!(!err.contains("delayed"), "no misleading message: {err}");
    assert_eq!(repo.state(), applied, "nothing changed");
    // Nothing is left interrupted: other commands are not blocked.
    let status = repo.clada(&["--format", "json", "status"]);
    ok(&status, "status");
    let report: serde_json::Value = serde_json::from_slice(&status.stdout).unwrap();
    assert!(report["interrupted"].is_null(), "{report}");

    let out = repo.clada(&["step-back"]);
    assert_ne!(code(&out), Some(0), "step-back must fail");
    assert_eq!(repo.state(), applied, "step-back changed nothing");

    // Fixed, the same undo works.
    repo.git(&["config", "filter.swap.smudge", "sed s/STORED/local/g"]);
    ok(&repo.clada(&["undo"]), "undo after the fix");
    assert_eq!(repo.read("a.txt"), "a local value\n");
    assert_eq!(repo.status(), "");
    let undone = repo.state();

    repo.git(&["config", "filter.swap.smudge", "false"]);
    let out = repo.clada(&["redo"]);
    assert_ne!(code(&out), Some(0), "redo must fail");
    assert_eq!(repo.state(), undone, "redo changed nothing");
    repo.git(&["config", "filter.swap.smudge", "sed s/STORED/local/g"]);
    ok(&repo.clada(&["redo"]), "redo after the fix");
    assert_eq!(repo.read("a.txt"), "a local value, edited\n");
    assert_eq!(repo.status(), "");
}
