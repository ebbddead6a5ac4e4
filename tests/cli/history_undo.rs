//! undo/redo cases the property tests found (kept as plain tests so they always run): an
//! apply that overwrites or deletes the user's untracked files, taken back and redone.

use crate::common;

use common::{block, TestRepo};

fn code(out: &std::process::Output) -> i32 {
    out.status.code().unwrap_or(-1)
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn ok(repo: &TestRepo, args: &[&str]) {
    let out = repo.clada(args);
    assert_eq!(code(&out), 0, "{args:?}: {}", stderr(&out));
}

#[test]
fn an_untracked_file_the_ai_overwrote_comes_back_and_redo_overwrites_it_again() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    repo.write("notes.txt", "my untracked notes\n");
    let before = repo.state();
    let reply = block(
        "ow1",
        &[
            ("action", "file_write"),
            ("path", "notes.txt"),
            ("content", "AI text"),
        ],
    );
    assert_eq!(code(&repo.apply(&reply, &[])), 0);
    let applied = repo.state();
    assert_eq!(repo.status(), "");
    ok(&repo, &["undo"]);
    assert_eq!(repo.state().files, before.files);
    assert_eq!(repo.read("notes.txt"), "my untracked notes\n");
    assert_eq!(repo.status(), "?? notes.txt\n");
    // The record still holds the notes, so redo may overwrite them again…
    ok(&repo, &["redo"]);
    assert_eq!(repo.state().files, applied.files);
    assert_eq!(repo.status(), "");
    // …and the next undo brings them back once more.
    ok(&repo, &["undo"]);
    assert_eq!(repo.read("notes.txt"), "my untracked notes\n");
    // Changed since the undo: redo refuses rather than lose that.
    repo.write("notes.txt", "edited after the undo\n");
    let out = repo.clada(&["redo"]);
    assert_eq!(code(&out), 3, "{}", stderr(&out));
    assert!(stderr(&out).contains("'notes.txt'"), "{}", stderr(&out));
    assert_eq!(repo.read("notes.txt"), "edited after the undo\n");
}

#[test]
fn redo_deletes_again_an_untracked_file_the_ai_deleted() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    repo.write("scratch.txt", "untracked scratch\n");
    let before = repo.state();
    let reply = format!(
        "{}{}",
        block("dl1", &[("action", "file_delete"), ("path", "scratch.txt")]),
        block(
            "dl2",
            &[
                ("action", "file_write"),
                ("path", "a.txt"),
                ("content", "b")
            ]
        )
    );
    assert_eq!(code(&repo.apply(&reply, &[])), 0);
    assert!(!repo.exists("scratch.txt"));
    let applied = repo.state();
    ok(&repo, &["undo"]);
    let undone = repo.state();
    assert_eq!(undone.files, before.files);
    assert_eq!(undone.status, before.status);
    ok(&repo, &["redo"]);
    let redone = repo.state();
    assert_eq!(redone.files, applied.files);
    assert_eq!(redone.head, applied.head);
    assert_eq!(redone.status, applied.status);
    repo.assert_fsck();
}

#[test]
fn an_executable_replaced_by_a_dangling_symlink_survives_apply_undo_redo() {
    let repo = TestRepo::with_files(&[("tool.sh", "#!/bin/sh\n")]);
    repo.set_executable("tool.sh");
    repo.git(&["commit", "-q", "-am", "executable"]);
    std::fs::remove_file(repo.path().join("tool.sh")).unwrap();
    std::os::unix::fs::symlink("missing-target", repo.path().join("tool.sh")).unwrap();
    assert_eq!(repo.status(), " T tool.sh\n");
    let before = repo.state();
    let reply = block(
        "sy1",
        &[
            ("action", "file_write"),
            ("path", "a.txt"),
            ("content", "a"),
        ],
    );
    assert_eq!(code(&repo.apply(&reply, &[])), 0);
    let applied = repo.state();
    ok(&repo, &["undo"]);
    assert_eq!(repo.state().files, before.files);
    assert_eq!(repo.status(), " T tool.sh\n");
    ok(&repo, &["redo"]);
    assert_eq!(repo.state().files, applied.files);
    ok(&repo, &["step-back"]);
    ok(&repo, &["step-forward", "--all"]);
    assert_eq!(repo.state().files, applied.files);
}

#[test]
fn undo_keeps_unrelated_worktree_changes_and_refuses_staged_ones() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n"), ("z.txt", "z\n")]);
    let reply = block(
        "un1",
        &[
            ("action", "file_write"),
            ("path", "a.txt"),
            ("content", "ai"),
        ],
    );
    assert_eq!(code(&repo.apply(&reply, &[])), 0);
    let ai = repo.head();
    // A file the undo does not rewrite may be edited meanwhile: the edit stays.
    repo.write("z.txt", "edited after the apply\n");
    ok(&repo, &["undo"]);
    assert_eq!(repo.read("a.txt"), "a\n");
    assert_eq!(repo.read("z.txt"), "edited after the apply\n");
    assert_eq!(repo.status(), " M z.txt\n");
    // Redo insists on exactly the state undo left (it re-checks everything it restores).
    repo.git(&["checkout", "--", "z.txt"]);
    ok(&repo, &["redo"]);
    assert_eq!(repo.head(), ai);
    // A staged change would be lost with the index undo puts back: refused, named.
    repo.write("z.txt", "staged after the apply\n");
    repo.git(&["add", "z.txt"]);
    let before = repo.state();
    let out = repo.clada(&["undo"]);
    assert_eq!(code(&out), 3, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("the index has changed since the apply (staged: z.txt)"),
        "{}",
        stderr(&out)
    );
    assert_eq!(repo.state(), before);
}

#[test]
fn one_undo_takes_back_the_commit_of_changes_a_hook_left_pending_and_redo_puts_it_back() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n"), ("b.txt", "b\n")]);
    let head = repo.head();
    repo.write("b.txt", "b\nthe user's\n");
    let before = repo.state();
    repo.write(
        ".git/hooks/pre-commit",
        "#!/bin/sh\necho 'lint failed' >&2\nexit 1\n",
    );
    repo.set_executable(".git/hooks/pre-commit");
    let reply = format!(
        "{}{}",
        block(
            "p1",
            &[
                ("action", "file_write"),
                ("path", "a.txt"),
                ("content", "A\n")
            ]
        ),
        block(
            "p2",
            &[
                ("action", "file_write"),
                ("path", "new.txt"),
                ("content", "new\n")
            ]
        )
    );
    assert_eq!(
        code(&repo.apply(&reply, &[])),
        1,
        "the hook stops the commit"
    );
    std::fs::remove_file(repo.path().join(".git/hooks/pre-commit")).unwrap();
    ok(&repo, &["commit"]);
    assert_ne!(repo.head(), head);
    let committed = repo.state();
    // One operation: the commit and the changes it took go back together.
    ok(&repo, &["undo"]);
    assert_eq!(repo.head(), head);
    common::assert_same_user_state(&repo.state(), &before, "undo of the commit");
    assert!(!repo.exists("new.txt"));
    ok(&repo, &["redo"]);
    common::assert_same_user_state(&repo.state(), &committed, "redo of the commit");
    ok(&repo, &["undo"]);
    let out = repo.clada(&["undo"]);
    assert_eq!(code(&out), 3, "nothing is left to undo: {}", stderr(&out));
    repo.assert_fsck();
}
