//! Issue 9: the user's uncommitted work stays uncommitted, and nothing an apply touches is
//! lost (exec and untracked files, `git rm --cached`, work done after the apply, replies that
//! change only untracked files, failing hooks, `--no-commit`, redo after an undo that kept an
//! unrelated edit). Every test runs the real binary on a real repository and checks it with
//! the git CLI.

use crate::common;

use common::{assert_same_user_state, block, replace_block as replace, TestRepo};

use common::{exit_code as code, output_text, write_block as write};

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn exec(id: &str, code: &str) -> String {
    block(id, &[("action", "exec"), ("lang", "bash"), ("code", code)])
}

#[track_caller]
fn ok(out: &std::process::Output) {
    assert_eq!(code(out), 0, "{}", output_text(out));
}

#[track_caller]
fn undo_restores(repo: &TestRepo, before: &common::State, what: &str) {
    let out = repo.clada(&["undo"]);
    ok(&out);
    assert_same_user_state(&repo.state(), before, what);
    repo.assert_fsck();
}

/// The user's work in every shape: staged, unstaged, staged-then-edited, new staged file,
/// untracked, ignored.
fn dirty_repo() -> TestRepo {
    let repo = TestRepo::with_files(&[
        ("staged.txt", "s0\n"),
        ("unstaged.txt", "u0\n"),
        ("both.txt", "b0\n"),
        ("ai.txt", "a0\n"),
        (
            "shared.txt",
            "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\n",
        ),
        (".gitignore", "*.log\n"),
    ]);
    repo.write("staged.txt", "s1\n");
    repo.git(&["add", "staged.txt"]);
    repo.write("unstaged.txt", "u1\n");
    repo.write("both.txt", "b1\n");
    repo.git(&["add", "both.txt"]);
    repo.write("both.txt", "b2\n");
    repo.write("new-staged.txt", "n\n");
    repo.git(&["add", "new-staged.txt"]);
    repo.write("untracked.txt", "t\n");
    repo.write("debug.log", "ignored\n");
    repo
}

#[test]
fn uncommitted_work_stays_uncommitted_and_the_ai_commit_holds_only_the_ai_changes() {
    let repo = dirty_repo();
    let head = repo.head();
    let status_before = repo.status();
    let staged_before = repo.git(&["diff", "--cached"]);
    let unstaged_before = repo.git(&["diff"]);
    let before = repo.state();

    let out = repo.apply(&replace("ai1", "ai.txt", "a0", "a1"), &[]);
    ok(&out);
    let report = TestRepo::report(&out);
    assert!(report.get("snapshotCommit").is_none(), "{report}");
    // The AI commit sits directly on HEAD and holds only the AI's change.
    assert_eq!(repo.git(&["rev-parse", "HEAD~1"]).trim(), head);
    assert_eq!(
        repo.git(&["diff-tree", "--no-commit-id", "--name-status", "-r", "HEAD"]),
        "M\tai.txt\n"
    );
    // The user's work is exactly as it was: staged stays staged, unstaged stays unstaged.
    assert_eq!(repo.status(), status_before);
    assert_eq!(repo.git(&["diff", "--cached"]), staged_before);
    assert_eq!(repo.git(&["diff"]), unstaged_before);
    assert_eq!(repo.read("debug.log"), "ignored\n");
    // …and recorded for undo as a stash-format commit under refs/clada/.
    let commit = repo.head();
    let kept = repo.git(&["rev-parse", &format!("refs/clada/work/{commit}")]);
    let kept = kept.trim();
    assert_eq!(repo.git(&["rev-parse", &format!("{kept}^1")]).trim(), head);
    assert_eq!(repo.git(&["show", &format!("{kept}:both.txt")]), "b2\n");
    assert_eq!(repo.git(&["show", &format!("{kept}^2:both.txt")]), "b1\n");
    repo.assert_fsck();

    undo_restores(&repo, &before, "undo of a kept-work apply");
    // redo comes back to the same state, undo again to the start.
    ok(&repo.clada(&["redo"]));
    assert_eq!(repo.head(), commit);
    assert_eq!(repo.status(), status_before);
    assert_eq!(repo.read("ai.txt"), "a1\n");
    undo_restores(&repo, &before, "undo after redo");
}

#[test]
fn a_file_both_changed_gets_heads_version_plus_the_ai_change_and_keeps_both_on_disk() {
    let repo = dirty_repo();
    repo.write(
        "shared.txt",
        "ONE (user)\ntwo\nthree\nfour\nfive\nsix\nseven\neight\n",
    );
    let before = repo.state();
    let out = repo.apply(&replace("m01", "shared.txt", "eight", "EIGHT (ai)"), &[]);
    ok(&out);
    // Committed: HEAD's version with only the AI's change.
    assert_eq!(
        repo.git(&["show", "HEAD:shared.txt"]),
        "one\ntwo\nthree\nfour\nfive\nsix\nseven\nEIGHT (ai)\n"
    );
    // On disk: both changes; `git diff` shows only the user's.
    assert_eq!(
        repo.read("shared.txt"),
        "ONE (user)\ntwo\nthree\nfour\nfive\nsix\nseven\nEIGHT (ai)\n"
    );
    let diff = repo.git(&["diff", "--", "shared.txt"]);
    assert!(diff.contains("-one\n+ONE (user)\n"), "{diff}");
    assert!(!diff.contains("EIGHT"), "{diff}");
    assert_eq!(
        repo.git(&["diff-tree", "--no-commit-id", "--name-only", "-r", "HEAD"]),
        "shared.txt\n"
    );
    undo_restores(&repo, &before, "undo of a merged apply");
}

/// Issue 38: where the AI's change cannot be separated from the user's (the merge with their
/// unstaged or staged change conflicts), it stays in the worktree, uncommitted: the report
/// marks it ⏸, the commit (if any) names it, no snapshot commit holds the user's work, a later
/// apply or `git clada commit` never commits it for them, and undo restores their state.
#[test]
fn an_overlapping_change_stays_in_the_worktree_uncommitted_and_is_never_committed_for_the_user() {
    for (path, reply, committed) in [
        (
            "shared.txt",
            replace("c01", "shared.txt", "seven", "SEVEN"),
            false,
        ),
        (
            "staged.txt",
            replace("c01", "staged.txt", "s1", "s2"),
            false,
        ),
        (
            "staged.txt",
            format!(
                "{}{}",
                replace("c01", "staged.txt", "s1", "s2"),
                replace("c02", "ai.txt", "a0", "a1")
            ),
            true,
        ),
    ] {
        let repo = dirty_repo();
        repo.write(
            "shared.txt",
            "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight (user)\n",
        );
        let before = repo.state();
        let head = repo.head();
        let staged_before = repo.git(&["diff", "--cached"]);
        let out = repo.apply(&reply, &[]);
        ok(&out);
        let report = TestRepo::report(&out);
        assert!(report.get("snapshotCommit").is_none(), "{path}: {report}");
        let warnings = report["warnings"].to_string();
        assert!(
            warnings.contains("⏸ not committed") && warnings.contains(&format!("git diff {path}")),
            "{path}: {warnings}"
        );
        // The user's line beside the AI's edit is still in the file (an edit of the very
        // line the user changed — staged.txt — does take theirs out, and says so).
        assert_eq!(
            warnings.contains("no longer in the worktree"),
            path == "staged.txt",
            "{warnings}"
        );
        let after_first = repo.state();
        // The user's staged work is exactly as it was: nothing of it was committed.
        assert_eq!(repo.git(&["diff", "--cached"]), staged_before, "{path}");
        let text = repo.read(path);
        assert!(
            text.contains("SEVEN") || text.contains("s2"),
            "{path}: {text}"
        );
        if committed {
            assert_eq!(repo.git(&["rev-parse", "HEAD~1"]).trim(), head);
            assert_eq!(
                repo.git(&["diff-tree", "--no-commit-id", "--name-only", "-r", "HEAD"]),
                "ai.txt\n"
            );
            let msg = repo.git(&["log", "-1", "--format=%B"]);
            assert!(msg.contains(&format!("Clada-Uncommitted: {path}")), "{msg}");
            let log = repo.clada(&["log", "--format", "json"]);
            let log: serde_json::Value = serde_json::from_slice(&log.stdout).expect("json");
            assert_eq!(log["entries"][0]["uncommitted"][0], path);
        } else {
            assert_eq!(repo.head(), head, "{path}: nothing to commit");
        }
        // Not pending: neither `git clada commit` nor a later apply commits it.
        let commit = repo.clada(&["commit"]);
        assert_eq!(code(&commit), 3, "{}", output_text(&commit));
        let tip = repo.head();
        ok(&repo.apply(&write("c03", "later.txt", "later\n"), &[]));
        assert_eq!(
            repo.git(&["diff-tree", "--no-commit-id", "--name-only", "-r", "HEAD"]),
            "later.txt\n",
            "{path}"
        );
        assert_eq!(repo.git(&["rev-parse", "HEAD~1"]).trim(), tip);
        undo_restores(&repo, &after_first, path);
        undo_restores(&repo, &before, path);
    }
}

/// Issue 38: a path the user staged gets the AI's change committed (HEAD's version plus the
/// AI's change), and its index entry keeps the user's staged change on top, so `git diff
/// --cached` shows exactly the user's change and `git diff` the rest.
#[test]
fn a_staged_path_gets_the_ai_change_committed_and_the_users_change_stays_staged() {
    let repo = TestRepo::with_files(&[("f.txt", "1\n2\n3\n4\n5\n6\n7\n8\n")]);
    repo.write("f.txt", "1 staged\n2\n3\n4\n5\n6\n7\n8\n");
    repo.git(&["add", "f.txt"]);
    repo.write("f.txt", "1 staged\n2\n3\n4 unstaged\n5\n6\n7\n8\n");
    let head = repo.head();
    let before = repo.state();
    let out = repo.apply(&replace("s01", "f.txt", "8\n", "8 ai\n"), &[]);
    ok(&out);
    assert!(TestRepo::report(&out).get("snapshotCommit").is_none());
    assert_eq!(repo.git(&["rev-parse", "HEAD~1"]).trim(), head);
    assert_eq!(
        repo.git(&["show", "HEAD:f.txt"]),
        "1\n2\n3\n4\n5\n6\n7\n8 ai\n",
        "the commit: HEAD plus the AI's change only"
    );
    let cached = repo.git(&["diff", "--cached"]);
    assert!(cached.contains("-1\n+1 staged\n"), "{cached}");
    assert!(
        !cached.contains("+8 ai") && !cached.contains("4 unstaged"),
        "{cached}"
    );
    let unstaged = repo.git(&["diff"]);
    assert!(unstaged.contains("-4\n+4 unstaged\n"), "{unstaged}");
    assert!(
        !unstaged.contains("+8 ai") && !unstaged.contains("+1 staged"),
        "{unstaged}"
    );
    assert_eq!(
        repo.read("f.txt"),
        "1 staged\n2\n3\n4 unstaged\n5\n6\n7\n8 ai\n"
    );
    repo.assert_fsck();
    undo_restores(&repo, &before, "undo of a staged-path apply");
}

/// `--wip commit` still makes the snapshot commit of the user's work, below the AI commit.
#[test]
fn wip_commit_keeps_the_snapshot_commit_for_users_who_ask() {
    let repo = dirty_repo();
    let head = repo.head();
    let before = repo.state();
    let out = repo.apply(&replace("w01", "ai.txt", "a0", "a1"), &["--wip", "commit"]);
    ok(&out);
    let snapshot = TestRepo::report(&out)["snapshotCommit"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert_eq!(repo.git(&["rev-parse", "HEAD~1"]).trim(), snapshot);
    assert_eq!(repo.git(&["rev-parse", "HEAD~2"]).trim(), head);
    undo_restores(&repo, &before, "undo of a --wip commit apply");
}

#[test]
fn a_clean_tree_behaves_as_before() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let head = repo.head();
    ok(&repo.apply(&replace("x01", "a.txt", "a", "b"), &[]));
    assert_eq!(repo.git(&["rev-parse", "HEAD~1"]).trim(), head);
    assert_eq!(repo.status(), "");
    assert!(repo.git(&["for-each-ref", "refs/clada/work"]).is_empty());
}

#[test]
fn exec_deleting_and_appending_to_untracked_files_is_undone_exactly() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    repo.write("notes.txt", "my notes\n");
    repo.write("keep.txt", "keep\n");
    repo.write("a.txt", "dirty\n");
    let before = repo.state();
    let reply = format!(
        "{}{}",
        write("w01", "b.txt", "b\n"),
        exec(
            "e1",
            "rm notes.txt; echo more >> keep.txt; printf 'a\\n' > a.txt"
        )
    );
    let out = repo.apply(&reply, &["--exec", "allow"]);
    ok(&out);
    let report = TestRepo::report(&out);
    let warnings = report["warnings"].to_string();
    assert!(
        warnings.contains("notes.txt (untracked, not committed)")
            && warnings.contains("keep.txt (untracked, not committed)")
            && warnings.contains("a.txt"),
        "{warnings}"
    );
    // The untracked files exec touched are not committed; the reverted file is.
    let committed = repo.git(&["diff-tree", "--no-commit-id", "--name-only", "-r", "HEAD"]);
    assert_eq!(committed, "b.txt\n");
    undo_restores(&repo, &before, "undo of exec on untracked files");
    assert_eq!(repo.read("notes.txt"), "my notes\n");
    assert_eq!(repo.read("keep.txt"), "keep\n");
    assert_eq!(repo.read("a.txt"), "dirty\n");
}

#[test]
fn a_file_removed_with_rm_cached_is_not_committed_by_exec_and_undo_keeps_it() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n"), ("secrets.env", "KEY=1\n")]);
    repo.git(&["rm", "-q", "--cached", "secrets.env"]);
    let before = repo.state();
    let reply = format!(
        "{}{}",
        replace("r01", "a.txt", "a", "b"),
        exec("e01", "echo ran")
    );
    ok(&repo.apply(&reply, &["--exec", "allow"]));
    let committed = repo.git(&["diff-tree", "--no-commit-id", "--name-only", "-r", "HEAD"]);
    assert_eq!(committed, "a.txt\n");
    assert_eq!(repo.read("secrets.env"), "KEY=1\n");
    undo_restores(&repo, &before, "undo after rm --cached");
    assert_eq!(repo.read("secrets.env"), "KEY=1\n");
}

#[test]
fn undo_refuses_to_destroy_an_ignored_file_the_user_edited_after_the_apply() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n"), (".gitignore", "*.log\n")]);
    let reply = format!(
        "{}{}",
        replace("r01", "a.txt", "a", "b"),
        write("w01", "out.log", "ai\n")
    );
    ok(&repo.apply(&reply, &[]));
    repo.write("out.log", "the user's edit\n");
    let before_undo = repo.state();
    let out = repo.clada(&["undo"]);
    assert_eq!(code(&out), 3, "{}", stderr(&out));
    assert!(stderr(&out).contains("out.log"), "{}", stderr(&out));
    assert_same_user_state(&repo.state(), &before_undo, "refused undo");
}

#[test]
fn undo_refuses_to_overwrite_a_file_the_user_recreated_where_the_ai_deleted_one() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n"), ("gone.txt", "g\n")]);
    let reply = block("d01", &[("action", "file_delete"), ("path", "gone.txt")]);
    ok(&repo.apply(&reply, &[]));
    repo.write("gone.txt", "the user's new file\n");
    let before_undo = repo.state();
    let out = repo.clada(&["undo"]);
    assert_eq!(code(&out), 3, "{}", stderr(&out));
    assert!(stderr(&out).contains("gone.txt"), "{}", stderr(&out));
    assert_same_user_state(&repo.state(), &before_undo, "refused undo");
    // The dry run names the path too.
    repo.write("gone.txt", "");
    std::fs::remove_file(repo.path().join("gone.txt")).unwrap_or_default();
    let out = repo.clada(&["--format", "json", "--dry-run", "undo"]);
    ok(&out);
    assert!(String::from_utf8_lossy(&out.stdout).contains("gone.txt"));
}

#[test]
fn a_reply_that_changes_only_untracked_or_ignored_files_is_undoable() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n"), (".gitignore", "*.log\n")]);
    repo.write("scratch.txt", "mine\n");
    repo.write("build.log", "old log\n");
    let before = repo.state();
    let reply = format!(
        "{}{}",
        block("d01", &[("action", "file_delete"), ("path", "scratch.txt")]),
        write("w01", "build.log", "new log\n")
    );
    let out = repo.apply(&reply, &[]);
    ok(&out);
    assert!(TestRepo::report(&out)["warnings"]
        .to_string()
        .contains("git clada undo"));
    assert!(!repo.path().join("scratch.txt").exists());
    // dry-run undo lists both paths, untracked and ignored.
    let out = repo.clada(&["--format", "json", "--dry-run", "undo"]);
    ok(&out);
    let dry = String::from_utf8_lossy(&out.stdout);
    assert!(
        dry.contains("scratch.txt") && dry.contains("build.log"),
        "{dry}"
    );
    undo_restores(&repo, &before, "undo of an untracked-only reply");
}

#[test]
fn no_commit_applies_are_undoable() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n"), ("b.txt", "b\n")]);
    repo.write("b.txt", "user\n");
    let before = repo.state();
    ok(&repo.apply(&replace("r01", "a.txt", "a", "ai"), &["--no-commit"]));
    assert_eq!(repo.status(), "M  a.txt\n M b.txt\n");
    undo_restores(&repo, &before, "undo of --no-commit");
}

#[test]
fn redo_is_not_refused_because_undo_kept_an_unrelated_edit() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n"), ("b.txt", "b\n")]);
    ok(&repo.apply(&replace("r01", "a.txt", "a", "ai"), &[]));
    let commit = repo.head();
    repo.write("b.txt", "user edit after the apply\n");
    ok(&repo.clada(&["undo"]));
    assert_eq!(repo.read("b.txt"), "user edit after the apply\n");
    let out = repo.clada(&["redo"]);
    ok(&out);
    assert_eq!(repo.head(), commit);
    assert_eq!(repo.read("a.txt"), "ai\n");
    assert_eq!(repo.read("b.txt"), "user edit after the apply\n");
    repo.assert_fsck();
}

#[test]
fn a_commit_made_by_exec_is_reported_and_the_repository_left_as_exec_left_it() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    // Only possible without the OS sandbox, which keeps .git read-only (issue 21).
    repo.user_config("sandbox:\n  level: off\n");
    let reply = format!(
        "{}{}",
        replace("r01", "a.txt", "a", "ai"),
        exec("e01", "git add a.txt && git commit -q -m 'by exec'")
    );
    let out = repo.apply(&reply, &["--exec", "allow"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let report = TestRepo::report(&out);
    assert!(report.get("gitCommit").is_none());
    assert!(
        report["warnings"]
            .to_string()
            .contains("HEAD moved while the reply ran"),
        "{report}"
    );
    assert_eq!(repo.subject("HEAD"), "by exec");
    assert_eq!(repo.status(), "");
    assert!(!repo.path().join(".git/clada/transaction.json").exists());
    repo.assert_fsck();
}
