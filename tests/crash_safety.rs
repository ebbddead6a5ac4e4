//! Crash safety: the process is aborted (as by a crash or `kill -9`) at every step of the
//! apply transaction and of undo. After each, the repository passes `git fsck`, no file is
//! half-written, a new apply refuses to build on the wreck, and `git clada undo` brings back
//! exactly the state before the apply — after which applying again gives the normal result.

mod common;

use common::{block, State, TestRepo};

/// Every fail point of the apply transaction, in order.
const APPLY_POINTS: &[&str] = &[
    "apply:after-snapshot-trees",
    "apply:after-journal",
    "apply:after-execute",
    "apply:after-tree",
    "apply:index-locked",
    "apply:after-index",
    "apply:before-ref",
    "apply:after-ref",
];

/// A repository with every kind of uncommitted work, and a reply that edits a file the user
/// also changed, overwrites an untracked file, creates, deletes and moves files.
fn scenario() -> (TestRepo, String) {
    let repo = TestRepo::with_files(&[
        ("src/lib.rs", "pub fn a() {}\n"),
        ("notes.md", "n0\n"),
        ("old.txt", "old\n"),
        ("gone.txt", "bye\n"),
        (".gitignore", "*.log\n"),
    ]);
    repo.write("notes.md", "n1 staged\n");
    repo.git(&["add", "notes.md"]);
    repo.write("notes.md", "n1 staged\nn2 unstaged\n");
    repo.write("src/lib.rs", "pub fn a() {}\n// user edit\n");
    repo.write("scratch.txt", "untracked, will be overwritten\n");
    repo.write("keep.txt", "untracked, left alone\n");
    repo.write("app.log", "ignored\n");
    let reply = [
        block(
            "r1",
            &[
                ("action", "file_replace_text"),
                ("path", "src/lib.rs"),
                ("old_text", "pub fn a() {}"),
                ("new_text", "pub fn a() -> u32 { 42 }"),
            ],
        ),
        block(
            "r2",
            &[
                ("action", "file_write"),
                ("path", "scratch.txt"),
                ("content", "AI\n"),
            ],
        ),
        block(
            "r3",
            &[
                ("action", "file_write"),
                ("path", "src/new.rs"),
                ("content", "// new\n"),
            ],
        ),
        block("r4", &[("action", "file_delete"), ("path", "gone.txt")]),
        block(
            "r5",
            &[
                ("action", "file_move"),
                ("old_path", "old.txt"),
                ("new_path", "moved/old.txt"),
            ],
        ),
    ]
    .concat();
    (repo, reply)
}

fn assert_no_partial_files(repo: &TestRepo, before: &State, after_clean: &State) {
    for (path, (_, bytes)) in common::files_of(repo.path()) {
        assert!(
            !path.contains(".clada-tmp"),
            "a temporary file was left behind: {path}"
        );
        let ok = before.files.get(&path).map(|(_, b)| b) == Some(&bytes)
            || after_clean.files.get(&path).map(|(_, b)| b) == Some(&bytes);
        assert!(
            ok,
            "{path} holds neither its old nor its new content: {:?}",
            String::from_utf8_lossy(&bytes)
        );
    }
}

#[test]
fn every_fail_point_of_apply_is_recoverable_by_undo() {
    // The state a successful apply produces, for the "no half-written file" check.
    let (clean, reply) = scenario();
    let out = clean.apply(&reply, &[]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let after_clean = clean.state();

    for point in APPLY_POINTS {
        let (repo, reply) = scenario();
        let before = repo.state();
        let out = repo
            .spawn_apply(&[("GIT_CLADA_FAILPOINT", point)], &reply, &[])
            .wait_with_output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            None,
            "{point}: the process should have aborted"
        );
        assert!(
            String::from_utf8_lossy(&out.stderr).contains(point),
            "{point}"
        );

        repo.assert_fsck();
        assert_no_partial_files(&repo, &before, &after_clean);

        if *point == "apply:after-snapshot-trees" {
            // Before the journal exists nothing but unreferenced objects was written: the
            // state is untouched and a re-run simply works.
            assert_eq!(repo.state(), before, "{point}");
            let out = repo.apply(&reply, &[]);
            assert_eq!(out.status.code(), Some(0), "{point}");
            assert_eq!(repo.state().files, after_clean.files, "{point}");
            continue;
        }

        // A new apply refuses to build on an interrupted transaction.
        let again = repo.apply(&reply, &[]);
        assert_eq!(
            again.status.code(),
            Some(3),
            "{point}: {}",
            String::from_utf8_lossy(&again.stderr)
        );
        assert!(
            String::from_utf8_lossy(&again.stderr).contains("git clada undo"),
            "{point}"
        );

        // Undo rolls everything back to exactly the state before the apply.
        let undo = repo.clada(&["undo"]);
        assert_eq!(
            undo.status.code(),
            Some(0),
            "{point}: {}",
            String::from_utf8_lossy(&undo.stderr)
        );
        let restored = repo.state();
        assert_eq!(restored.head, before.head, "{point}: HEAD");
        assert_eq!(restored.index, before.index, "{point}: index");
        assert_eq!(restored.files, before.files, "{point}: worktree files");
        assert_eq!(restored.status, before.status, "{point}: status");
        repo.assert_fsck();

        // And applying again gives the normal result.
        let out = repo.apply(&reply, &[]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{point}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(
            repo.state().files,
            after_clean.files,
            "{point}: re-run result"
        );
        assert_eq!(repo.status(), after_clean.status, "{point}");
    }
}

#[test]
fn an_interrupted_undo_is_finished_by_running_undo_again() {
    for point in [
        "restore:after-journal",
        "restore:after-worktree",
        "restore:after-index",
    ] {
        let (repo, reply) = scenario();
        let before = repo.state();
        let out = repo.apply(&reply, &[]);
        assert_eq!(out.status.code(), Some(0));
        let mut cmd = repo.clada_cmd();
        let crashed = cmd
            .env("GIT_CLADA_FAILPOINT", point)
            .arg("undo")
            .output()
            .unwrap();
        assert_eq!(crashed.status.code(), None, "{point}: should abort");
        repo.assert_fsck();
        // Nothing else runs on top of a half-done undo.
        let blocked = repo.apply(&reply, &[]);
        assert_eq!(blocked.status.code(), Some(3), "{point}");
        let undo = repo.clada(&["undo"]);
        assert_eq!(
            undo.status.code(),
            Some(0),
            "{point}: {}",
            String::from_utf8_lossy(&undo.stderr)
        );
        let restored = repo.state();
        assert_eq!(restored.head, before.head, "{point}");
        assert_eq!(restored.index, before.index, "{point}");
        assert_eq!(restored.files, before.files, "{point}");
        repo.assert_fsck();
    }
}
