//! What undo, redo and status say: only the paths an undo rewrote, what finishing an
//! interrupted apply did, a status sentence that reads right for every kind of operation, and
//! a human commit made while a reply ran is not blamed on exec.

use crate::common;

use common::{block, TestRepo};

fn code(out: &std::process::Output) -> i32 {
    out.status.code().unwrap_or(-1)
}

fn text(out: &std::process::Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn human(repo: &TestRepo, args: &[&str]) -> String {
    let mut all = vec!["--format", "human"];
    all.extend_from_slice(args);
    let out = repo.clada(&all);
    assert_eq!(code(&out), 0, "{args:?}: {}", text(&out));
    text(&out)
}

fn write(id: &str, path: &str, content: &str) -> String {
    block(
        id,
        &[
            ("action", "file_write"),
            ("path", path),
            ("content", content),
        ],
    )
}

#[test]
fn undo_lists_only_the_paths_it_rewrote() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n"), ("b.txt", "b\n")]);
    repo.write("mine.txt", "my untracked notes\n");
    repo.write("b.txt", "b\nmy edit\n");
    // The reply writes a.txt and a new file; its file_create over mine.txt fails (the file
    // exists) and its edit of b.txt fails: neither is touched by the apply, nor by the undo.
    let reply = format!(
        "{}{}{}",
        write("p01", "a.txt", "AI\n"),
        block(
            "p02",
            &[
                ("action", "file_create"),
                ("path", "mine.txt"),
                ("content", "AI")
            ]
        ),
        write("p03", "new/x.txt", "AI\n"),
    );
    let out = repo.apply(&reply, &[]);
    assert_eq!(code(&out), 1, "{}", text(&out));
    let undo = human(&repo, &["undo"]);
    assert!(
        undo.contains("2 paths rewritten: a.txt, new/x.txt\n"),
        "{undo}"
    );
    assert!(!undo.contains("mine.txt"), "{undo}");
    assert!(!undo.contains("b.txt"), "{undo}");
    assert_eq!(repo.read("mine.txt"), "my untracked notes\n");
}

#[test]
fn finishing_an_interrupted_apply_says_it_rolled_it_back() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let crashed = repo
        .spawn_apply(
            &[("GIT_CLADA_FAILPOINT", "apply:after-execute")],
            &write("i01", "a.txt", "crashed\n"),
            &[],
        )
        .wait_with_output()
        .unwrap();
    assert!(!crashed.status.success());
    let status = human(&repo, &["status"]);
    assert!(
        status.contains("`git clada undo` would roll back the interrupted apply of stdin"),
        "{status}"
    );
    let undo = human(&repo, &["undo"]);
    assert!(
        undo.starts_with("Rolled back the interrupted apply of stdin (it had not finished; none of its changes are left)"),
        "{undo}"
    );
    assert!(!undo.contains("Finished"), "{undo}");
    assert_eq!(repo.read("a.txt"), "a\n");
}

#[test]
fn finishing_an_interrupted_undo_says_it_completed_it() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    assert_eq!(code(&repo.apply(&write("f01", "a.txt", "AI\n"), &[])), 0);
    let mut cmd = repo.clada_cmd();
    cmd.env("GIT_CLADA_FAILPOINT", "restore:after-worktree")
        .arg("undo");
    assert!(!cmd.output().unwrap().status.success());
    let undo = human(&repo, &["undo"]);
    assert!(
        undo.starts_with("Completed the interrupted undo of "),
        "{undo}"
    );
    assert!(
        undo.contains(", which had been interrupted: HEAD is now at "),
        "{undo}"
    );
    assert_eq!(repo.read("a.txt"), "a\n");
}

#[test]
fn status_reads_right_for_every_kind_of_operation() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    assert_eq!(code(&repo.apply(&write("k01", "a.txt", "one\n"), &[])), 0);
    let s = human(&repo, &["status"]);
    assert!(
        s.contains("`git clada undo` would take back the apply ")
            && s.contains("\"AI: edit a.txt\""),
        "{s}"
    );
    assert_eq!(
        code(&repo.apply(&write("k02", "b.txt", "two\n"), &["--no-commit"])),
        0
    );
    let s = human(&repo, &["status"]);
    assert!(
        s.contains("`git clada undo` would take back the uncommitted apply of stdin\n"),
        "{s}"
    );
    assert_eq!(code(&repo.clada(&["undo"])), 0);
    let s = human(&repo, &["status"]);
    assert!(
        s.contains("`git clada redo` would put back the uncommitted apply of stdin\n"),
        "{s}"
    );
    assert!(
        s.contains("`git clada undo` would take back the apply "),
        "{s}"
    );
    assert_eq!(code(&repo.clada(&["step-back"])), 0);
    let s = human(&repo, &["status"]);
    assert!(
        s.contains("`git clada undo` would take back the step-back to "),
        "{s}"
    );
    assert!(!s.contains("would take back step-back"), "{s}");
    assert!(!s.contains("would uncommitted-apply"), "{s}");
}

/// A person's commit landing while a reply's exec runs is reported as HEAD moving while the
/// reply ran, not as something exec did.
#[test]
fn a_commit_made_while_the_reply_ran_is_not_blamed_on_exec() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n"), ("human.txt", "h\n")]);
    // The exec block signals through files outside the worktree, which the OS sandbox
    // (issue 21) forbids: the user's own config turns it off for this test.
    repo.user_config("sandbox:\n  level: off\n");
    let signal = repo.home.path().join("exec-started");
    let go = repo.home.path().join("go");
    let reply = block(
        "h01",
        &[
            ("action", "exec"),
            ("lang", "bash"),
            (
                "code",
                &format!(
                    "touch '{}'; while [ ! -e '{}' ]; do sleep 0.01; done",
                    signal.display(),
                    go.display()
                ),
            ),
        ],
    );
    let mut child = repo.spawn_apply(&[], &reply, &["--exec", "allow"]);
    while !signal.exists() {
        // An apply that ended without running the block would leave this loop waiting.
        if let Ok(Some(status)) = child.try_wait() {
            panic!("the apply ended before its exec block started: {status}");
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    repo.write("human.txt", "human edit\n");
    repo.git(&["commit", "-q", "-am", "human commit"]);
    std::fs::write(&go, "").unwrap();
    let out = child.wait_with_output().unwrap();
    let t = text(&out);
    assert!(t.contains("HEAD moved while the reply ran"), "{t}");
    assert!(!t.contains("exec changed git's state"), "{t}");
    assert_eq!(repo.subject("HEAD"), "human commit");
}
