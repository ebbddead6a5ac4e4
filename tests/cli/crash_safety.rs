//! Crash safety: the process is aborted (as by a crash or `kill -9`) at every step of the
//! apply transaction and of undo. After each, the repository passes `git fsck`, no file is
//! half-written, a new apply refuses to build on the wreck, and `git clada undo` brings back
//! exactly the state before the apply — after which applying again gives the normal result.

use crate::common;

use common::{assert_aborted, assert_ok, block, State, TestRepo};

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

/// Runs the apply of `reply` with the fail point `point` and checks it aborted there.
fn crash_apply(repo: &TestRepo, reply: &str, point: &str) {
    let out = repo
        .spawn_apply(&[("GIT_CLADA_FAILPOINT", point)], reply, &[])
        .wait_with_output()
        .unwrap();
    assert_aborted(&out, point);
}

/// Runs git-clada with `args` and the fail point `point` and checks it aborted there.
fn crash_clada(repo: &TestRepo, args: &[&str], point: &str) {
    let out = repo
        .clada_cmd()
        .env("GIT_CLADA_FAILPOINT", point)
        .args(args)
        .output()
        .unwrap();
    assert_aborted(&out, point);
}

/// Every journaled step and every lock git-clada takes, in the order the operations reach
/// them; `#n` is the n-th time a point is reached in one run.
fn crash_points() -> Vec<String> {
    let mut points: Vec<String> = APPLY_POINTS.iter().map(|p| p.to_string()).collect();
    for p in [
        "restore:after-journal",
        "restore:after-refs-before",
        "restore:after-remove",
        "restore:after-worktree",
        "restore:after-index",
        "restore:after-head",
        "restore:after-refs-after",
        "squash:before-refs",
    ] {
        points.push(p.to_string());
    }
    for n in 1..=2 {
        for p in ["index:locked", "index:written", "index:committed"] {
            points.push(format!("{p}#{n}"));
        }
    }
    for n in 1..=5 {
        for p in [
            "refs:before-lock",
            "refs:prepared",
            "refs:locked",
            "refs:committed",
        ] {
            points.push(format!("{p}#{n}"));
        }
    }
    points
}

#[test]
fn every_operation_killed_at_every_step_recovers_to_before_or_after() {
    let points = crash_points();
    let ops = common::crash::ops();
    // One thread per operation: the runs are independent repositories.
    let reports: Vec<Vec<String>> = std::thread::scope(|scope| {
        let handles: Vec<_> = ops
            .iter()
            .map(|op| {
                let points = &points;
                scope.spawn(move || {
                    let mut report = Vec::new();
                    for point in points {
                        let repo = common::crash::copy_of(&op.template);
                        let out = op.run(&repo, &[("GIT_CLADA_FAILPOINT", point)]);
                        if out.status.code().is_some() {
                            // Not on this operation's path: it ran to the end.
                            assert_eq!(
                                out.status.code(),
                                Some(0),
                                "{} with {point}: {}",
                                op.name,
                                String::from_utf8_lossy(&out.stderr)
                            );
                            continue;
                        }
                        let what = format!("{} killed at {point}", op.name);
                        let (outcome, recovered) =
                            common::crash::recover_and_check(op, &repo, &what);
                        if op.restart {
                            common::crash::restart_and_check(op, &repo, &what);
                        }
                        report.push(format!("{what}: {outcome:?} (recovery ran: {recovered})"));
                    }
                    assert!(
                        report.len() >= 5,
                        "{}: only {} fail points reached",
                        op.name,
                        report.len()
                    );
                    report
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("an operation's crash runs failed"))
            .collect()
    });
    eprintln!("{}", reports.concat().join("\n"));
}

/// `git commit -a` holds `index.lock` while its editor is open. A recovery running then
/// must not delete it: it waits, fails with a clear message, and finishes once git is done.
#[test]
fn recovery_never_removes_an_index_lock_a_running_git_commit_holds() {
    let (repo, reply) = scenario();
    let before = repo.state();
    let out = repo.apply(&reply, &[]);
    assert_eq!(out.status.code(), Some(0));
    crash_clada(&repo, &["undo"], "restore:after-worktree");
    // The killed undo held git's index lock (a restore holds it throughout); the person
    // removes it, as git's message advises, and starts a commit.
    let _ = std::fs::remove_file(repo.path().join(".git/index.lock"));

    // A git commit whose editor waits for a signal file, then aborts the commit.
    let signal = repo.home.path().join("go");
    let editor = repo.home.path().join("editor.sh");
    std::fs::write(
        &editor,
        format!(
            "#!/bin/sh\nwhile [ ! -e '{}' ]; do sleep 0.02; done\nexit 1\n",
            signal.display()
        ),
    )
    .unwrap();
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&editor, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let mut commit = std::process::Command::new("git");
    commit
        .args(["commit", "-a"])
        .current_dir(repo.path())
        .env("GIT_EDITOR", &editor)
        .env("HOME", repo.home.path())
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    let mut git = commit.spawn().unwrap();
    let lock = repo.path().join(".git/index.lock");
    while !lock.exists() {
        assert!(git.try_wait().unwrap().is_none(), "git commit ended early");
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let identity = |md: std::fs::Metadata| {
        use std::os::unix::fs::MetadataExt;
        (md.dev(), md.ino())
    };
    let held = identity(std::fs::metadata(&lock).unwrap());

    let undo = repo.clada(&["undo"]);
    assert_ne!(undo.status.code(), Some(0), "the index is locked by git");
    assert!(
        String::from_utf8_lossy(&undo.stderr).contains("index.lock"),
        "{}",
        String::from_utf8_lossy(&undo.stderr)
    );
    assert_eq!(
        std::fs::metadata(&lock).ok().map(identity),
        Some(held),
        "the running git commit's lock is untouched"
    );

    std::fs::write(&signal, "").unwrap();
    git.wait().unwrap();
    assert!(!lock.exists());
    assert_ok(&repo.clada(&["undo"]), "undo");
    common::assert_same_user_state(&repo.state(), &before, "undo once git is done");
    repo.assert_fsck();
}

/// A ref lock that appears after a crash, where git-clada had only announced it would lock
/// that ref, holding something git-clada did not mean to write, is another process's: it is
/// left in place.
#[test]
fn recovery_leaves_ref_locks_it_cannot_prove_its_own() {
    let (repo, reply) = scenario();
    let before = repo.state();
    crash_apply(&repo, &reply, "refs:before-lock#1");
    let lock = repo.path().join(".git/refs/heads/main.lock");
    assert!(!lock.exists(), "killed before the lock was taken");
    let foreign = b"0123456789012345678901234567890123456789\n";
    std::fs::write(&lock, foreign).unwrap();

    assert_ok(&repo.clada(&["undo"]), "undo");
    assert_eq!(
        std::fs::read(&lock).ok().as_deref(),
        Some(&foreign[..]),
        "left in place"
    );
    std::fs::remove_file(&lock).unwrap();
    common::assert_same_user_state(&repo.state(), &before, "rolled back");
    repo.assert_fsck();
}

/// A commit made after an apply was killed (on top of the branch the apply never moved) is
/// not dropped by the roll-back: the files and index are rolled back, the branch stays.
#[test]
fn rolling_back_a_killed_apply_never_drops_a_commit_made_since() {
    let (repo, reply) = scenario();
    let before = repo.state();
    crash_apply(&repo, &reply, "apply:after-journal");
    repo.write("human.txt", "made while the apply lay dead\n");
    repo.git(&["add", "human.txt"]);
    repo.git(&["commit", "-q", "-m", "human", "--", "human.txt"]);
    let human = repo.head();

    let undo = repo.clada(&["undo"]);
    let stderr = String::from_utf8_lossy(&undo.stderr);
    assert_ne!(undo.status.code(), Some(0), "says HEAD was left alone");
    assert!(stderr.contains("never moves a branch back"), "{stderr}");
    assert_eq!(repo.head(), human, "the human commit stays on the branch");
    assert_eq!(repo.read("human.txt"), "made while the apply lay dead\n");
    // The reply's files are rolled back, the user's work is back.
    for (path, content) in &before.files {
        assert_eq!(
            common::files_of(repo.path()).get(path),
            Some(content),
            "{path}"
        );
    }
    let status = repo.clada(&["--format", "json", "status"]);
    let report: serde_json::Value = serde_json::from_slice(&status.stdout).unwrap();
    assert!(report["interrupted"].is_null(), "{report}");
    repo.assert_fsck();
}

/// step-back killed while parking the work (at every step of its journaled restore): status
/// says so, `git clada undo` finishes the step-back, and `step-forward --all` then brings
/// back exactly the work that was there — nothing is asked to be stashed again, nothing lost.
#[test]
fn a_step_back_killed_while_parking_is_finished_and_returns_the_work() {
    for point in [
        "restore:after-journal",
        "restore:after-refs-before",
        "restore:after-remove",
        "restore:after-worktree",
        "restore:after-index",
        "restore:after-head",
        "refs:prepared#2",
        "refs:locked#4",
    ] {
        let (repo, reply) = scenario();
        assert_eq!(repo.apply(&reply, &[]).status.code(), Some(0));
        repo.write("notes.md", "work while stepping\n");
        repo.write("parked/u.txt", "untracked work\n");
        let before = repo.state();
        crash_clada(&repo, &["step-back"], point);
        let status = repo.clada(&["--format", "json", "status"]);
        let report: serde_json::Value = serde_json::from_slice(&status.stdout).unwrap();
        assert!(!report["interrupted"].is_null(), "{point}: {report}");
        // Nothing builds on the half-done step.
        let blocked = repo.clada(&["step-forward", "--all"]);
        assert_eq!(blocked.status.code(), Some(3), "{point}");

        assert_ok(&repo.clada(&["undo"]), point);
        assert!(
            repo.exists(".git/refs/clada/step/tip"),
            "{point}: stepped back"
        );
        assert!(!repo.exists("parked/u.txt"), "{point}: the work is parked");
        assert_ok(&repo.clada(&["step-forward", "--all"]), point);
        common::assert_same_user_state(&repo.state(), &before, point);
        assert!(common::crash::lock_files(&repo.path().join(".git")).is_empty());
        repo.assert_fsck();
    }
}
