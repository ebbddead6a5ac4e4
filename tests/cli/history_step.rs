//! `git clada step-back` / `step-forward` on real repositories: round trips with parked
//! staged, unstaged and untracked work, one process per command (state lives in refs),
//! the stash-format commit, reflogs, dry runs and every refusal.

use crate::common;

use common::TestRepo;

fn code(out: &std::process::Output) -> i32 {
    out.status.code().unwrap_or(-1)
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn json(out: &std::process::Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}):\n{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            stderr(out)
        )
    })
}

fn back(repo: &TestRepo) -> serde_json::Value {
    let out = repo.clada(&["--format", "json", "step-back"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    json(&out)
}

fn forward(repo: &TestRepo, all: bool) -> serde_json::Value {
    let out = if all {
        repo.clada(&["--format", "json", "step-forward", "--all"])
    } else {
        repo.clada(&["--format", "json", "step-forward"])
    };
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    json(&out)
}

/// A history of four commits: init (a, gone.txt), c1 (+b), c2 (a changed, gone.txt
/// deleted, tool.sh executable), c3 (+link, +dir/deep.txt).
fn history() -> TestRepo {
    let repo = TestRepo::with_files(&[
        ("a.txt", "a0\n"),
        ("gone.txt", "will be deleted\n"),
        (".gitignore", "*.log\nbuild/\n"),
    ]);
    repo.write("b.txt", "b\n");
    repo.git(&["add", "b.txt"]);
    repo.git(&["commit", "-q", "-m", "c1: add b"]);
    repo.write("a.txt", "a1\n");
    repo.write("tool.sh", "#!/bin/sh\necho hi\n");
    repo.set_executable("tool.sh");
    repo.git(&["rm", "-q", "gone.txt"]);
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "c2: change a, delete gone, add tool"]);
    std::os::unix::fs::symlink("a.txt", repo.path().join("link")).unwrap();
    repo.write("dir/deep.txt", "deep\n");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "c3: link and dir"]);
    repo
}

/// Uncommitted work of every kind on top of `history()`.
fn make_work(repo: &TestRepo) {
    repo.write("a.txt", "staged\n");
    repo.git(&["add", "a.txt"]);
    repo.write("a.txt", "staged then changed\n");
    repo.write("b.txt", "unstaged\n");
    repo.write("new-staged.txt", "new\n");
    repo.git(&["add", "new-staged.txt"]);
    repo.git(&["rm", "-q", "--cached", "dir/deep.txt"]);
    repo.write("untracked.txt", "u\n");
    repo.write("udir/nested/file.txt", "nested untracked\n");
    std::os::unix::fs::symlink("b.txt", repo.path().join("ulink")).unwrap();
    repo.write("run.sh", "#!/bin/sh\n");
    repo.set_executable("run.sh");
    repo.write("debug.log", "ignored stays\n");
    repo.write("build/out.bin", "ignored too\n");
}

#[test]
fn back_twice_then_forward_all_restores_everything_exactly() {
    let repo = history();
    make_work(&repo);
    let before = repo.state();
    let tip = repo.head();

    let r = back(&repo);
    assert_eq!(r["behind"], 1);
    assert_eq!(r["from"], tip.as_str());
    let stashed: Vec<&str> = r["stashedFiles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    for p in [
        "a.txt",
        "b.txt",
        "new-staged.txt",
        "untracked.txt",
        "udir/nested/file.txt",
        "ulink",
        "run.sh",
    ] {
        assert!(stashed.contains(&p), "{p} parked: {stashed:?}");
    }
    // HEAD detached at the parent, a clean checkout of it; ignored files stay.
    assert_eq!(repo.head(), repo.git(&["rev-parse", "main~1"]).trim());
    assert!(repo
        .git_output(&["symbolic-ref", "-q", "HEAD"])
        .stdout
        .is_empty());
    assert_eq!(repo.status(), "");
    assert!(!repo.exists("link") && !repo.exists("dir") && !repo.exists("untracked.txt"));
    assert!(!repo.exists("udir"), "emptied untracked directories go too");
    assert_eq!(repo.read("debug.log"), "ignored stays\n");
    assert_eq!(repo.read("build/out.bin"), "ignored too\n");
    // The parked work is a stash-format commit git itself can read.
    let stash = format!("refs/clada/stash/{tip}");
    let parents = repo.git(&["log", "-1", "--format=%P", &stash]);
    assert_eq!(parents.split_whitespace().count(), 3, "{parents}");
    assert_eq!(parents.split_whitespace().next(), Some(tip.as_str()));
    let shown = repo.git(&[
        "stash",
        "show",
        "--include-untracked",
        "--name-only",
        &stash,
    ]);
    assert!(
        shown.contains("untracked.txt") && shown.contains("b.txt"),
        "{shown}"
    );

    let r = back(&repo);
    assert_eq!(r["behind"], 2);
    assert_eq!(repo.head(), repo.git(&["rev-parse", "main~2"]).trim());
    assert_eq!(repo.read("a.txt"), "a0\n");
    assert_eq!(repo.read("gone.txt"), "will be deleted\n");
    assert!(!repo.exists("tool.sh"));
    assert_eq!(repo.status(), "");

    let r = forward(&repo, true);
    assert_eq!(r["returned"], true);
    assert_eq!(
        repo.state(),
        before,
        "everything, refs included, is as it was"
    );
    repo.assert_fsck();
}

#[test]
fn forward_one_step_at_a_time_reattaches_at_the_tip() {
    let repo = history();
    repo.write("untracked.txt", "u\n");
    let before = repo.state();
    for _ in 0..3 {
        back(&repo);
    }
    assert_eq!(repo.head(), repo.git(&["rev-parse", "main~3"]).trim());
    let r = forward(&repo, false);
    assert_eq!(r["behind"], 2);
    assert_eq!(r["returned"], false);
    assert_eq!(repo.head(), repo.git(&["rev-parse", "main~2"]).trim());
    let r = forward(&repo, false);
    assert_eq!(r["behind"], 1);
    let r = forward(&repo, false);
    assert_eq!(r["behind"], 0);
    assert_eq!(r["returned"], true);
    assert_eq!(repo.state(), before);
    // Every move is in HEAD's reflog, the branch never moved.
    let reflog = repo.git(&["reflog", "-7", "--format=%gs", "HEAD"]);
    let lines: Vec<&str> = reflog.lines().collect();
    assert!(
        lines[0].starts_with("clada: step-forward to the tip"),
        "{reflog}"
    );
    assert!(lines[1].starts_with("clada: step-forward to "), "{reflog}");
    assert!(lines[5].starts_with("clada: step-back to "), "{reflog}");
    assert_eq!(
        repo.git(&["reflog", "-1", "--format=%gs", "main"]),
        "commit: c3: link and dir\n"
    );
}

#[test]
fn clean_worktree_needs_no_stash() {
    let repo = history();
    let before = repo.state();
    let r = back(&repo);
    assert!(r["stash"].is_null());
    assert!(repo.git(&["for-each-ref", "refs/clada/stash/"]).is_empty());
    assert_eq!(
        repo.git(&["rev-parse", "refs/clada/step/tip"]).trim(),
        r["tip"].as_str().unwrap()
    );
    forward(&repo, true);
    assert_eq!(repo.state(), before);
}

#[test]
fn apply_and_squash_refuse_while_stepped_back() {
    let repo = history();
    back(&repo);
    let before = repo.state();
    // `undo` takes the step back (history_undo_stack.rs); with nothing undone, redo refuses.
    let out = repo.clada(&["redo"]);
    assert_eq!(code(&out), 3, "{}", stderr(&out));
    assert!(stderr(&out).contains("nothing to redo"), "{}", stderr(&out));
    let out = repo.clada(&["squash", "--mode", "auto_ai"]);
    assert_eq!(code(&out), 3, "squash: {}", stderr(&out));
    assert!(
        stderr(&out).contains("step-forward --all"),
        "squash: {}",
        stderr(&out)
    );
    let out = repo.apply(
        &common::block(
            "st1",
            &[("action", "file_write"), ("path", "x"), ("content", "x")],
        ),
        &[],
    );
    assert_eq!(code(&out), 3, "{}", stderr(&out));
    assert_eq!(repo.state(), before);
}

#[test]
fn changed_tracked_files_while_stepped_back_are_never_lost() {
    let repo = history();
    back(&repo);
    repo.write("a.txt", "edited while stepped back\n");
    let before = repo.state();
    for args in [
        vec!["step-back"],
        vec!["step-forward"],
        vec!["step-forward", "--all"],
    ] {
        let out = repo.clada(&args);
        assert_eq!(code(&out), 3, "{args:?}: {}", stderr(&out));
        let err = stderr(&out);
        assert!(
            err.contains("you changed tracked files while stepped back: a.txt"),
            "{err}"
        );
        assert!(err.contains("git stash"), "{err}");
        assert_eq!(repo.state(), before, "{args:?}");
    }
    // Discarding the change lets it continue.
    repo.git(&["checkout", "--", "a.txt"]);
    forward(&repo, true);
    assert_eq!(repo.status(), "");
}

#[test]
fn refuses_at_the_root_and_across_a_merge() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let before = repo.state();
    let out = repo.clada(&["step-back"]);
    assert_eq!(code(&out), 3, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("is the root commit"),
        "{}",
        stderr(&out)
    );
    assert_eq!(repo.state(), before);

    repo.git(&["checkout", "-q", "-b", "side"]);
    repo.write("s.txt", "side\n");
    repo.git(&["add", "s.txt"]);
    repo.git(&["commit", "-q", "-m", "side"]);
    repo.git(&["checkout", "-q", "main"]);
    repo.write("m.txt", "main\n");
    repo.git(&["add", "m.txt"]);
    repo.git(&["commit", "-q", "-m", "main"]);
    repo.git(&["merge", "-q", "--no-edit", "side"]);
    let before = repo.state();
    let out = repo.clada(&["step-back"]);
    assert_eq!(code(&out), 3, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("is a merge commit"),
        "{}",
        stderr(&out)
    );
    assert!(stderr(&out).contains("across a merge"), "{}", stderr(&out));
    assert_eq!(repo.state(), before);
}

#[test]
fn an_ignored_file_in_the_way_is_named_and_nothing_changes() {
    let repo = TestRepo::with_files(&[(".gitignore", "*.log\n"), ("a.txt", "a\n")]);
    repo.write("trace.log", "tracked once\n");
    repo.git(&["add", "-f", "trace.log"]);
    repo.git(&["commit", "-q", "-m", "track a log"]);
    repo.git(&["rm", "-q", "--cached", "trace.log"]);
    repo.git(&["commit", "-q", "-m", "untrack it"]);
    repo.write("trace.log", "my local log\n");
    let before = repo.state();
    let out = repo.clada(&["step-back"]);
    assert_eq!(code(&out), 3, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("'trace.log' (an untracked file would be overwritten)"),
        "{}",
        stderr(&out)
    );
    assert_eq!(repo.state(), before);
}

#[test]
fn step_forward_without_step_back_and_step_back_on_a_detached_head_refuse() {
    let repo = history();
    let before = repo.state();
    let out = repo.clada(&["step-forward"]);
    assert_eq!(code(&out), 3);
    assert!(
        stderr(&out).contains("not stepped back"),
        "{}",
        stderr(&out)
    );
    repo.git(&["checkout", "-q", "--detach"]);
    let detached = repo.state();
    let out = repo.clada(&["step-back"]);
    assert_eq!(code(&out), 3);
    assert!(
        stderr(&out).contains("HEAD is detached"),
        "{}",
        stderr(&out)
    );
    assert_eq!(repo.state(), detached);
    repo.git(&["checkout", "-q", "main"]);
    assert_eq!(repo.state(), before);
}

#[test]
fn a_branch_moved_while_stepped_back_is_not_reattached() {
    let repo = history();
    repo.write("untracked.txt", "u\n");
    back(&repo);
    let elsewhere = repo.git(&["rev-parse", "main~2"]);
    repo.git(&["update-ref", "refs/heads/main", elsewhere.trim()]);
    let before = repo.state();
    let out = repo.clada(&["step-forward", "--all"]);
    assert_eq!(code(&out), 3);
    assert!(
        stderr(&out).contains("the branch main moved while you were stepped back"),
        "{}",
        stderr(&out)
    );
    assert_eq!(repo.state(), before);
}

#[test]
fn dry_runs_change_nothing() {
    let repo = history();
    make_work(&repo);
    let before = repo.state();
    let git_before = common::files_of(&repo.path().join(".git"));
    let out = repo.clada(&["--dry-run", "--format", "human", "step-back"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("Would park your uncommitted work"), "{text}");
    assert!(text.contains("Would step back to"), "{text}");
    assert_eq!(repo.state(), before);
    assert_eq!(common::files_of(&repo.path().join(".git")), git_before);

    back(&repo);
    let stepped = repo.state();
    let out = repo.clada(&["--dry-run", "--format", "json", "step-forward", "--all"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(json(&out)["returned"], true);
    assert_eq!(repo.state(), stepped);
}

#[test]
fn switching_back_by_hand_is_finished_by_step_forward() {
    let repo = history();
    repo.write("untracked.txt", "u\n");
    repo.write("b.txt", "mine\n");
    let before = repo.state();
    back(&repo);
    repo.git(&["checkout", "-q", "main"]);
    let out = repo.clada(&["step-back"]);
    assert_eq!(code(&out), 3, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("step-forward --all"),
        "{}",
        stderr(&out)
    );
    forward(&repo, true);
    assert_eq!(repo.state(), before);
}

#[test]
fn an_untracked_file_where_an_older_commit_tracks_one_is_parked_and_comes_back() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    repo.write("new.txt", "old tracked content\n");
    repo.git(&["add", "new.txt"]);
    repo.git(&["commit", "-q", "-m", "track new.txt"]);
    repo.git(&["rm", "-q", "new.txt"]);
    repo.git(&["commit", "-q", "-m", "delete new.txt"]);
    repo.write("new.txt", "my untracked file\n");
    let before = repo.state();
    back(&repo);
    assert_eq!(repo.read("new.txt"), "old tracked content\n");
    assert_eq!(repo.status(), "");
    let r = forward(&repo, true);
    assert_eq!(r["restoredFiles"], serde_json::json!(["new.txt"]));
    assert_eq!(repo.state(), before);
}

#[test]
fn a_commit_made_while_stepped_back_is_not_walked_over() {
    let repo = history();
    back(&repo);
    repo.write("b.txt", "committed while stepped back\n");
    repo.git(&["commit", "-q", "-am", "detached work"]);
    let before = repo.state();
    for args in [&["step-back"][..], &["step-forward", "--all"]] {
        let out = repo.clada(args);
        assert_eq!(code(&out), 3, "{args:?}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("git branch <name>"),
            "{}",
            stderr(&out)
        );
        assert_eq!(repo.state(), before);
    }
    let position = repo.git(&["rev-parse", "refs/clada/step/position"]);
    repo.git(&["branch", "kept"]);
    repo.git(&["checkout", "-q", "--detach", position.trim()]);
    forward(&repo, true);
    assert_eq!(repo.subject("kept"), "detached work");
    assert_eq!(repo.status(), "");
}

/// Step-back keeps the listings of unchanged directories (`.git/clada/untracked-cache`) so
/// parking reads only directories that changed; an untracked file created in a kept
/// directory, and a file the index stopped tracking without its directory changing, are
/// still parked exactly as a full listing finds them, and a damaged cache is ignored.
#[test]
fn untracked_files_in_directories_kept_by_the_untracked_cache_are_still_parked() {
    let settle = || std::thread::sleep(std::time::Duration::from_millis(2100));
    let repo = TestRepo::with_files(&[
        ("a.txt", "a0\n"),
        ("d/one.txt", "1\n"),
        ("e/x.txt", "x\n"),
        ("e/y.txt", "y\n"),
    ]);
    repo.write("a.txt", "a1\n");
    repo.git(&["commit", "-q", "-am", "change a"]);
    // Listings are kept only for directories that last changed over a second before.
    settle();
    let r = back(&repo);
    assert_eq!(r["stashedFiles"], serde_json::json!([]));
    forward(&repo, true);
    assert!(repo.path().join(".git/clada/untracked-cache").is_file());

    // d changes (a new file); e does not, but the index no longer tracks e/x.txt. Both
    // settle, so only their times and the tracked names tell the kept listings are stale.
    repo.write("d/new.txt", "new\n");
    repo.git(&["rm", "-q", "--cached", "e/x.txt"]);
    settle();
    let before = repo.state();
    let listed = repo.git(&["status", "--porcelain", "--untracked-files=all"]);
    assert!(
        listed.contains("?? d/new.txt") && listed.contains("?? e/x.txt"),
        "{listed}"
    );
    let r = back(&repo);
    assert_eq!(
        r["stashedFiles"],
        serde_json::json!(["e/x.txt", "d/new.txt", "e/x.txt"])
    );
    // Parked: gone, or (e/x.txt, tracked in the commit stepped back to) checked out clean.
    assert!(!repo.exists("d/new.txt"));
    assert_eq!(repo.status(), "");
    forward(&repo, true);
    assert_eq!(repo.state(), before);

    // A damaged cache is ignored (and replaced).
    std::fs::write(repo.path().join(".git/clada/untracked-cache"), b"junk").unwrap();
    repo.write("d/later.txt", "later\n");
    let r = back(&repo);
    let stashed = r["stashedFiles"].to_string();
    assert!(stashed.contains("d/later.txt"), "{stashed}");
    forward(&repo, true);
    repo.assert_fsck();
}
