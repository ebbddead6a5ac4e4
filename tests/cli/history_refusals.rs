//! Every refusal of the history commands (DESIGN §7.1): exit 3, a message that says why and
//! what to do, and nothing changed — the observable state (`TestRepo::state()`: HEAD, refs,
//! index, every worktree file, status) and git's ref storage (loose refs, packed refs,
//! reflogs, `ORIG_HEAD`) are byte-identical before and after.

use crate::common;

use std::collections::BTreeMap;

use common::{block, TestRepo};

fn code(out: &std::process::Output) -> i32 {
    out.status.code().unwrap_or(-1)
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// git's ref storage: every file under `.git/refs` and `.git/logs`, `packed-refs`, `HEAD`,
/// `ORIG_HEAD`.
fn ref_files(repo: &TestRepo) -> BTreeMap<String, (u32, Vec<u8>)> {
    let git = repo.path().join(".git");
    let mut out = BTreeMap::new();
    for dir in ["refs", "logs"] {
        if git.join(dir).exists() {
            for (k, v) in common::files_of(&git.join(dir)) {
                out.insert(format!("{dir}/{k}"), v);
            }
        }
    }
    for f in ["packed-refs", "HEAD", "ORIG_HEAD"] {
        if let Ok(bytes) = std::fs::read(git.join(f)) {
            out.insert(f.to_string(), (0, bytes));
        }
    }
    out
}

/// Runs git-clada with `args` and asserts a refusal whose message contains every one of
/// `expect`, with nothing changed.
fn assert_refused(repo: &TestRepo, args: &[&str], expect: &[&str]) {
    let state = repo.state();
    let refs = ref_files(repo);
    let out = repo.clada(args);
    assert_eq!(code(&out), 3, "{args:?} must be refused: {}", stderr(&out));
    let err = stderr(&out);
    for e in expect {
        assert!(err.contains(e), "{args:?}: expected {e:?} in:\n{err}");
    }
    assert_eq!(repo.state(), state, "{args:?} changed the repository");
    assert_eq!(ref_files(repo), refs, "{args:?} changed git's refs");
}

fn ai_write(repo: &TestRepo, id: &str, path: &str, content: &str) {
    let reply = block(
        id,
        &[
            ("action", "file_write"),
            ("path", path),
            ("content", content),
        ],
    );
    let out = repo.apply(&reply, &[]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
}

fn two_ai_commits() -> TestRepo {
    let repo = TestRepo::with_files(&[("a.txt", "a\n"), ("other.txt", "o\n")]);
    ai_write(&repo, "r1", "a.txt", "one\n");
    ai_write(&repo, "r2", "b.txt", "two\n");
    repo
}

#[test]
fn head_not_an_ai_commit() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    assert_refused(&repo, &["undo"], &["is not a git-clada commit"]);
    assert_refused(
        &repo,
        &["squash", "--mode", "auto_ai"],
        &["is not a git-clada commit", "git clada log"],
    );
    // An AI commit below a human one is not "the last clada operation" either.
    let repo = two_ai_commits();
    repo.write("h.txt", "h\n");
    repo.git(&["add", "h.txt"]);
    repo.git(&["commit", "-q", "-m", "human on top"]);
    assert_refused(
        &repo,
        &["undo"],
        &["\"human on top\"", "is not a git-clada commit"],
    );
    assert_refused(
        &repo,
        &["squash", "--mode", "auto_ai"],
        &["\"human on top\""],
    );
    assert_refused(&repo, &["redo"], &["nothing to redo"]);
}

#[test]
fn dirty_paths_that_would_be_touched_are_named() {
    let repo = two_ai_commits();
    repo.write("b.txt", "edited after the AI\n");
    assert_refused(
        &repo,
        &["undo"],
        &[
            "the worktree has changed since the apply: b.txt",
            "commit or stash",
        ],
    );
    // redo: the worktree must be as the undo left it.
    repo.git(&["checkout", "--", "b.txt"]);
    assert_eq!(code(&repo.clada(&["undo"])), 0);
    repo.write("b.txt", "re-created after the undo\n");
    assert_refused(&repo, &["redo"], &["redo would overwrite 'b.txt'"]);
    // While stepped back, changed tracked files would be lost by the next step.
    std::fs::remove_file(repo.path().join("b.txt")).expect("remove b.txt");
    assert_eq!(code(&repo.clada(&["step-back"])), 0);
    repo.write("other.txt", "edited while stepped back\n");
    for args in [
        &["step-back"][..],
        &["step-forward"],
        &["step-forward", "--all"],
    ] {
        assert_refused(
            &repo,
            args,
            &["you changed tracked files while stepped back: other.txt"],
        );
    }
}

fn with_remote(repo: &TestRepo) -> tempfile::TempDir {
    let remote = tempfile::tempdir().unwrap();
    let out = std::process::Command::new("git")
        .args(["init", "-q", "--bare"])
        .arg(remote.path())
        .output()
        .unwrap();
    assert!(out.status.success());
    repo.git(&["remote", "add", "origin", remote.path().to_str().unwrap()]);
    repo.git(&["push", "-q", "-u", "origin", "main"]);
    remote
}

#[test]
fn pushed_commits_are_never_rewritten() {
    let repo = two_ai_commits();
    let _remote = with_remote(&repo);
    assert_refused(
        &repo,
        &["undo"],
        &[
            "already published (reachable from refs/remotes/origin/main)",
            "git revert",
        ],
    );
    assert_refused(
        &repo,
        &["squash", "--mode", "auto_ai"],
        &["already published", "refs/remotes/origin/main"],
    );
    assert_refused(
        &repo,
        &["squash", "--mode", "ai_messages", "--no-contiguous-only"],
        &["already published"],
    );
}

#[test]
fn tagged_commits_are_never_rewritten() {
    let repo = two_ai_commits();
    repo.git(&["tag", "v1", "HEAD~1"]);
    assert_refused(&repo, &["squash", "--mode", "auto_ai"], &["refs/tags/v1"]);
    repo.git(&["tag", "-a", "-m", "release", "v2", "HEAD"]);
    assert_refused(&repo, &["undo"], &["refs/tags/v"]);
}

#[test]
fn a_squash_that_was_pushed_is_not_undone() {
    let repo = two_ai_commits();
    assert_eq!(code(&repo.clada(&["squash", "--mode", "auto_ai"])), 0);
    let _remote = with_remote(&repo);
    assert_refused(&repo, &["undo"], &["already published", "git revert"]);
}

#[test]
fn squash_leaves_the_published_part_of_a_run_alone() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    ai_write(&repo, "p1", "a.txt", "1\n");
    ai_write(&repo, "p2", "a.txt", "2\n");
    let _remote = with_remote(&repo);
    let pushed = repo.head();
    ai_write(&repo, "p3", "b.txt", "3\n");
    ai_write(&repo, "p4", "b.txt", "4\n");
    let out = repo.clada(&["--format", "json", "squash", "--mode", "auto_ai"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["groups"][0]["squashed"].as_array().unwrap().len(), 2);
    assert_eq!(report["leftAlone"].as_array().unwrap().len(), 2);
    assert_eq!(repo.git(&["rev-parse", "HEAD~1"]).trim(), pushed);
}

#[test]
fn merges_are_never_crossed() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    ai_write(&repo, "m1", "a.txt", "1\n");
    ai_write(&repo, "m2", "a.txt", "2\n");
    repo.git(&["checkout", "-q", "-b", "side"]);
    repo.write("s.txt", "s\n");
    repo.git(&["add", "s.txt"]);
    repo.git(&["commit", "-q", "-m", "side"]);
    repo.git(&["checkout", "-q", "main"]);
    repo.git(&["merge", "-q", "--no-ff", "--no-edit", "side"]);
    assert_refused(
        &repo,
        &["squash", "--mode", "auto_ai"],
        &["is a merge commit"],
    );
    assert_refused(&repo, &["squash", "--mode", "ai_messages"], &["merge"]);
    assert_refused(
        &repo,
        &["step-back"],
        &["is a merge commit", "across a merge"],
    );
    repo.write("h.txt", "h\n");
    repo.git(&["add", "h.txt"]);
    repo.git(&["commit", "-q", "-m", "after the merge"]);
    assert_refused(
        &repo,
        &["squash", "--mode", "ai_messages", "--no-contiguous-only"],
        &["below merge commit", "never crosses a merge"],
    );
}

#[test]
fn detached_head() {
    let repo = two_ai_commits();
    repo.git(&["checkout", "-q", "--detach"]);
    assert_refused(&repo, &["undo"], &["HEAD is detached", "git switch"]);
    assert_refused(&repo, &["redo"], &["HEAD is detached"]);
    assert_refused(
        &repo,
        &["squash", "--mode", "auto_ai"],
        &["HEAD is detached"],
    );
    assert_refused(&repo, &["step-back"], &["HEAD is detached"]);
    assert_refused(&repo, &["step-forward"], &["not stepped back"]);
}

#[test]
fn stepped_back() {
    let repo = two_ai_commits();
    repo.write("untracked.txt", "u\n");
    assert_eq!(code(&repo.clada(&["step-back"])), 0);
    // `undo` takes the step back (history_undo_stack.rs); nothing was undone to redo.
    assert_refused(&repo, &["redo"], &["nothing to redo"]);
    for args in [
        &["squash", "--mode", "auto_ai"][..],
        &["squash", "--mode", "ai_messages"],
    ] {
        assert_refused(&repo, args, &["you are stepped back", "step-forward --all"]);
    }
    let state = repo.state();
    let out = repo.apply(
        &block(
            "sb1",
            &[("action", "file_write"), ("path", "x"), ("content", "x")],
        ),
        &[],
    );
    assert_eq!(code(&out), 3, "{}", stderr(&out));
    assert_eq!(repo.state(), state);
}

#[test]
fn git_operations_in_progress() {
    for (file, what) in [
        ("MERGE_HEAD", "merge"),
        ("CHERRY_PICK_HEAD", "cherry-pick"),
        ("REVERT_HEAD", "revert"),
        ("BISECT_LOG", "bisect"),
        ("rebase-merge/interactive", "rebase"),
    ] {
        let repo = two_ai_commits();
        let head = repo.head();
        let p = repo.path().join(".git").join(file);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, format!("{head}\n")).unwrap();
        for args in [
            &["undo"][..],
            &["redo"],
            &["squash", "--mode", "auto_ai"],
            &["step-back"],
        ] {
            assert_refused(&repo, args, &[what]);
        }
    }
    // A real merge stopped by a conflict.
    let repo = TestRepo::with_files(&[("a.txt", "base\n")]);
    repo.git(&["checkout", "-q", "-b", "other"]);
    repo.write("a.txt", "other\n");
    repo.git(&["commit", "-q", "-am", "other"]);
    repo.git(&["checkout", "-q", "main"]);
    ai_write(&repo, "mg", "a.txt", "ai\n");
    ai_write(&repo, "mh", "a.txt", "ai again\n");
    assert!(!repo.git_output(&["merge", "other"]).status.success());
    for args in [
        &["undo"][..],
        &["squash", "--mode", "auto_ai"],
        &["step-back"],
    ] {
        assert_refused(
            &repo,
            args,
            &["a merge is in progress", "git merge --abort"],
        );
    }
}

#[test]
fn an_interrupted_apply_blocks_squash_and_step() {
    let repo = two_ai_commits();
    let reply = block(
        "ia",
        &[
            ("action", "file_write"),
            ("path", "c.txt"),
            ("content", "c"),
        ],
    );
    let crashed = repo
        .spawn_apply(
            &[("GIT_CLADA_FAILPOINT", "apply:after-execute")],
            &reply,
            &[],
        )
        .wait_with_output()
        .unwrap();
    assert!(!crashed.status.success());
    for args in [&["squash", "--mode", "auto_ai"][..], &["step-back"]] {
        assert_refused(&repo, args, &["was interrupted", "git clada undo"]);
    }
}
