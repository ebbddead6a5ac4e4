//! `git clada apply` as a git transaction, on real repositories checked with the real git CLI.

use crate::common;

use common::{assert_same_user_state, block, replace_block as replace, TestRepo};

fn code(out: &std::process::Output) -> i32 {
    out.status.code().unwrap_or(-1)
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
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
fn clean_repo_gets_one_ai_commit_with_trailers_and_a_clean_status() {
    let repo = TestRepo::with_files(&[("src/lib.rs", "pub fn a() {}\n"), ("README", "hi\n")]);
    let before = repo.head();
    let reply = format!(
        "Some prose.\n{}\n{}",
        replace(
            "abc",
            "src/lib.rs",
            "pub fn a() {}",
            "pub fn a() -> u8 { 1 }"
        ),
        write("def", "src/util.rs", "pub fn u() {}\n")
    );
    let out = repo.apply(&reply, &[]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let report = TestRepo::report(&out);
    assert_eq!(report["success"], true);
    let commit = report["gitCommit"].as_str().unwrap().to_string();
    assert_eq!(repo.head(), commit);
    assert_eq!(repo.git(&["rev-parse", "HEAD~1"]).trim(), before);
    assert_eq!(
        repo.subject("HEAD"),
        "AI: edit src/lib.rs, create src/util.rs"
    );
    let trailers = repo.git(&["log", "-1", "--format=%(trailers:only,unfold)"]);
    assert!(trailers.contains("Clada-Version: 0.1.0"), "{trailers}");
    assert!(trailers.contains("Clada-Blocks: abc def"), "{trailers}");
    assert!(!trailers.contains("Clada-Failed"), "{trailers}");
    // The stored reply is exactly the input.
    let blob = trailers
        .lines()
        .find_map(|l| l.strip_prefix("Clada-Reply: "))
        .unwrap()
        .trim()
        .to_string();
    assert_eq!(repo.git(&["cat-file", "blob", &blob]), reply);
    // The commit touches exactly the AI's paths.
    let touched = repo.git(&["diff-tree", "--no-commit-id", "--name-status", "-r", "HEAD"]);
    assert_eq!(touched, "M\tsrc/lib.rs\nA\tsrc/util.rs\n");
    assert_eq!(repo.status(), "");
    assert_eq!(repo.git(&["diff-files", "--stat"]), "");
    repo.assert_fsck();
    // Results as a note, readable with plain git.
    let note = repo.git(&["log", "-1", "--notes=clada", "--format=%N"]);
    let note: serde_json::Value = serde_json::from_str(&note).unwrap();
    assert_eq!(note["results"][0]["blockId"], "abc");
    // Reflog entry names the operation.
    let reflog = repo.git(&["reflog", "-1", "--format=%gs", "main"]);
    assert!(
        reflog.starts_with("clada: apply stdin: AI: edit src/lib.rs"),
        "{reflog}"
    );
}

#[test]
fn failed_block_is_listed_in_the_commit_and_exit_status_is_1() {
    let repo = TestRepo::with_files(&[("a.txt", "one\n")]);
    let reply = format!(
        "{}{}",
        replace("ok1", "a.txt", "one", "uno"),
        replace("bad", "a.txt", "zzz", "x")
    );
    let out = repo.apply(&reply, &[]);
    assert_eq!(code(&out), 1);
    let msg = repo.git(&["log", "-1", "--format=%B"]);
    assert!(msg.contains("Applied 1 of 2 blocks from stdin."), "{msg}");
    assert!(
        msg.contains("- bad file_replace_text a.txt: FAILED"),
        "{msg}"
    );
    assert!(msg.contains("Clada-Failed: bad"), "{msg}");
    assert_eq!(repo.read("a.txt"), "uno\n");
    assert_eq!(repo.status(), "");
}

#[test]
fn wip_commit_snapshots_a_dirty_repo_and_the_ai_commit_holds_only_the_ai_changes() {
    let repo = TestRepo::with_files(&[
        ("staged.txt", "s0\n"),
        ("unstaged.txt", "u0\n"),
        ("both.txt", "b0\n"),
        ("ai.txt", "a0\n"),
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
    let head = repo.head();

    let out = repo.apply(&replace("ai1", "ai.txt", "a0", "a1"), &["--wip", "commit"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let report = TestRepo::report(&out);
    let snapshot = report["snapshotCommit"].as_str().unwrap().to_string();
    assert_eq!(repo.git(&["rev-parse", "HEAD~1"]).trim(), snapshot);
    assert_eq!(repo.git(&["rev-parse", "HEAD~2"]).trim(), head);
    assert_eq!(repo.subject("HEAD~1"), "clada: snapshot before AI edit");
    // The snapshot holds exactly the user's tracked work (worktree content), nothing else.
    let snap = repo.git(&[
        "diff-tree",
        "--no-commit-id",
        "--name-status",
        "-r",
        "HEAD~1",
    ]);
    assert_eq!(
        snap,
        "M\tboth.txt\nA\tnew-staged.txt\nM\tstaged.txt\nM\tunstaged.txt\n"
    );
    assert_eq!(repo.git(&["show", "HEAD~1:both.txt"]), "b2\n");
    assert!(repo
        .git(&["log", "-1", "--format=%B", "HEAD~1"])
        .contains("Clada-Snapshot: yes"));
    // The AI commit holds only the AI's change.
    let ai = repo.git(&["diff-tree", "--no-commit-id", "--name-status", "-r", "HEAD"]);
    assert_eq!(ai, "M\tai.txt\n");
    // Untracked and ignored files are untouched and uncommitted.
    assert_eq!(repo.read("untracked.txt"), "t\n");
    assert_eq!(repo.read("debug.log"), "ignored\n");
    assert_eq!(repo.status(), "?? untracked.txt\n");
    repo.assert_fsck();
}

#[test]
fn no_snapshot_refuses_a_dirty_tree_and_changes_nothing() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    repo.write("a.txt", "mine\n");
    let before = repo.state();
    let out = repo.apply(&replace("x1", "a.txt", "mine", "ai"), &["--no-snapshot"]);
    assert_eq!(code(&out), 3, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("uncommitted changes in a.txt"),
        "{}",
        stderr(&out)
    );
    assert_eq!(repo.state(), before);
}

#[test]
fn exec_that_creates_files_is_committed_but_the_users_untracked_files_are_not() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    repo.write("mine.txt", "user\n");
    let reply = block(
        "ex1",
        &[
            ("action", "exec"),
            ("lang", "bash"),
            (
                "code",
                "mkdir -p gen && echo made > gen/out.txt && echo changed > a.txt",
            ),
        ],
    );
    let out = repo.apply(&reply, &["--exec", "allow"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let ai = repo.git(&["diff-tree", "--no-commit-id", "--name-status", "-r", "HEAD"]);
    assert_eq!(ai, "M\ta.txt\nA\tgen/out.txt\n");
    assert_eq!(repo.status(), "?? mine.txt\n");
}

#[test]
fn exec_is_denied_without_a_terminal_by_default() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let before = repo.state();
    let reply = block(
        "ex2",
        &[("action", "exec"), ("lang", "bash"), ("code", "touch x")],
    );
    let out = repo.apply(&reply, &[]);
    assert_ne!(code(&out), 0);
    assert!(!repo.exists("x"));
    assert_eq!(repo.state(), before);
}

fn install_hook(repo: &TestRepo, dir: &str, name: &str, body: &str) {
    let path = format!("{dir}/{name}");
    repo.write(&path, &format!("#!/bin/sh\n{body}\n"));
    repo.set_executable(&path);
}

#[test]
fn failing_pre_commit_hook_commits_nothing_and_undo_takes_the_changes_back() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n"), ("b.txt", "b\n")]);
    install_hook(
        &repo,
        ".git/hooks",
        "pre-commit",
        "echo 'lint: a.txt is ugly' >&2; exit 1",
    );
    repo.write("b.txt", "user edit\n");
    repo.write("c.txt", "staged\n");
    repo.git(&["add", "c.txt"]);
    let head = repo.head();
    let before = repo.state();
    let out = repo.apply(&replace("h1", "a.txt", "a", "ai"), &[]);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    let report = TestRepo::report(&out);
    let step = &report["steps"][0];
    assert_eq!(step["name"], "hook pre-commit");
    assert_eq!(step["success"], false);
    assert!(step["output"]
        .as_str()
        .unwrap()
        .contains("lint: a.txt is ugly"));
    assert_eq!(repo.head(), head, "nothing committed");
    assert!(report.get("gitCommit").is_none());
    // The AI's change is in the worktree, unstaged; the user's index is as it was.
    assert_eq!(repo.status(), " M a.txt\n M b.txt\nA  c.txt\n");
    assert_eq!(repo.read("a.txt"), "ai\n");
    repo.assert_fsck();
    // The failed apply is undoable: exactly the state before.
    let out = repo.clada(&["undo"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_same_user_state(&repo.state(), &before, "undo after a failing hook");
    assert_eq!(repo.head(), head);
    repo.assert_fsck();
}

#[test]
fn hooks_in_core_hooks_path_run_and_commit_msg_can_edit_the_message() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    repo.git(&["config", "core.hooksPath", "myhooks"]);
    install_hook(&repo, "myhooks", "pre-commit", "echo pre > .pre-ran");
    install_hook(
        &repo,
        "myhooks",
        "commit-msg",
        "printf '\\nReviewed-by: hook\\n' >> \"$1\"",
    );
    install_hook(
        &repo,
        "myhooks",
        "post-commit",
        "git rev-parse HEAD > .post-ran",
    );
    repo.git(&["add", "myhooks"]);
    repo.git(&["commit", "-q", "--no-verify", "-m", "hooks"]);
    std::fs::write(
        repo.path().join(".git/info/exclude"),
        ".pre-ran\n.post-ran\n",
    )
    .unwrap();
    let out = repo.apply(&replace("k1", "a.txt", "a", "b"), &[]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(repo.exists(".pre-ran"));
    assert_eq!(repo.read(".post-ran").trim(), repo.head());
    let msg = repo.git(&["log", "-1", "--format=%B"]);
    assert!(msg.contains("Reviewed-by: hook"), "{msg}");
    assert!(msg.contains("Clada-Blocks: k1"), "{msg}");
}

#[test]
fn no_verify_skips_the_hooks() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    install_hook(&repo, ".git/hooks", "pre-commit", "exit 1");
    let out = repo.apply(&replace("v1", "a.txt", "a", "b"), &["--no-verify"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(repo.subject("HEAD"), "AI: edit a.txt");
}

#[test]
fn message_option_replaces_the_subject_only() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let out = repo.apply(
        &replace("m1", "a.txt", "a", "b"),
        &["-m", "AI: rename the greeting"],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(repo.subject("HEAD"), "AI: rename the greeting");
    assert!(repo
        .git(&["log", "-1", "--format=%B"])
        .contains("Clada-Blocks: m1"));
}

#[test]
fn no_commit_stages_the_changes() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let head = repo.head();
    let out = repo.apply(&write("n1", "new.txt", "x\n"), &["--no-commit"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(repo.head(), head);
    assert_eq!(repo.status(), "A  new.txt\n");
}

#[test]
fn atomic_restores_everything_when_a_block_fails() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n"), ("b.txt", "b\n")]);
    repo.write("b.txt", "user\n");
    let before = repo.state();
    let reply = format!(
        "{}{}{}",
        replace("t1", "a.txt", "a", "changed"),
        write("t2", "c/new.txt", "new\n"),
        replace("t3", "a.txt", "not there", "x")
    );
    let out = repo.apply(&reply, &["--atomic"]);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    let report = TestRepo::report(&out);
    assert!(report["warnings"].to_string().contains("--atomic"));
    assert_eq!(repo.state(), before);
    repo.assert_fsck();
}

#[test]
fn dry_run_changes_nothing_at_all() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    repo.write("a.txt", "dirty\n");
    repo.write("u.txt", "untracked\n");
    let before = repo.state();
    let git_before = common::files_of(&repo.path().join(".git"));
    let reply = format!(
        "{}{}",
        replace("d1", "a.txt", "dirty", "ai"),
        write("d2", "new/file.txt", "n\n")
    );
    let mut cmd = repo.clada_cmd();
    let file = repo.home.path().join("reply.md");
    std::fs::write(&file, &reply).unwrap();
    let out = cmd
        .args(["--dry-run", "--format", "human", "apply"])
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("+ai"), "the diff is shown:\n{stdout}");
    assert!(stdout.contains("+++ b/new/file.txt"), "{stdout}");
    assert_eq!(repo.state(), before);
    assert_eq!(
        common::files_of(&repo.path().join(".git")),
        git_before,
        ".git changed"
    );
}

#[test]
fn refuses_during_merge_rebase_cherry_pick_revert_and_bisect() {
    for (file, what) in [
        ("MERGE_HEAD", "merge"),
        ("CHERRY_PICK_HEAD", "cherry-pick"),
        ("REVERT_HEAD", "revert"),
        ("BISECT_LOG", "bisect"),
        ("rebase-merge/interactive", "rebase"),
    ] {
        let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
        let head = repo.head();
        let p = repo.path().join(".git").join(file);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, format!("{head}\n")).unwrap();
        let before = repo.state();
        let out = repo.apply(&replace("r1", "a.txt", "a", "b"), &[]);
        assert_eq!(code(&out), 3, "{what}: {}", stderr(&out));
        assert!(stderr(&out).contains(what), "{what}: {}", stderr(&out));
        assert_eq!(repo.state(), before, "{what}");
    }
}

#[test]
fn refuses_on_an_unborn_branch() {
    let repo = TestRepo::new();
    repo.write("a.txt", "a\n");
    let before = repo.state();
    let out = repo.apply(&write("u1", "b.txt", "b\n"), &[]);
    assert_eq!(code(&out), 3);
    assert!(
        stderr(&out).contains("has no commit yet"),
        "{}",
        stderr(&out)
    );
    assert_eq!(repo.state(), before);
}

#[test]
fn refuses_while_stepped_back() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let head = repo.head();
    repo.git(&["update-ref", "refs/clada/step/tip", &head]);
    let before = repo.state();
    let out = repo.apply(&write("s1", "b.txt", "b\n"), &[]);
    assert_eq!(code(&out), 3);
    assert!(
        stderr(&out).contains("step-forward --all"),
        "{}",
        stderr(&out)
    );
    assert_eq!(repo.state(), before);
}

#[test]
fn refuses_with_unresolved_conflicts_in_the_index() {
    let repo = TestRepo::with_files(&[("a.txt", "base\n")]);
    repo.git(&["checkout", "-q", "-b", "other"]);
    repo.write("a.txt", "other\n");
    repo.git(&["commit", "-qam", "other"]);
    repo.git(&["checkout", "-q", "main"]);
    repo.write("a.txt", "main\n");
    repo.git(&["commit", "-qam", "main"]);
    let _ = repo.git_output(&["merge", "other"]);
    // Leave only the conflicted index (no MERGE_HEAD) to check the index test on its own.
    std::fs::remove_file(repo.path().join(".git/MERGE_HEAD")).unwrap();
    let out = repo.apply(&write("c1", "b.txt", "b\n"), &[]);
    assert_eq!(code(&out), 3, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("unresolved conflicts in a.txt"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn nothing_valid_means_git_is_not_touched() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let git_before = common::files_of(&repo.path().join(".git"));
    let out = repo.apply(
        "#!nesl [@three-char-SHA-256: zz]\naction = \"file_write\"\n#!end_zz\n",
        &[],
    );
    assert_eq!(code(&out), 1);
    let report = TestRepo::report(&out);
    assert_eq!(
        report["parseErrors"][0]["message"],
        "Missing required parameter: path"
    );
    assert_eq!(common::files_of(&repo.path().join(".git")), git_before);
}

#[test]
fn ignored_files_written_by_an_action_are_not_committed() {
    let repo = TestRepo::with_files(&[(".gitignore", "build/\n"), ("a.txt", "a\n")]);
    let reply = format!(
        "{}{}",
        write("i1", "build/out.txt", "x\n"),
        write("i2", "b.txt", "b\n")
    );
    let out = repo.apply(&reply, &[]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let ai = repo.git(&["diff-tree", "--no-commit-id", "--name-status", "-r", "HEAD"]);
    assert_eq!(ai, "A\tb.txt\n");
    assert_eq!(repo.read("build/out.txt"), "x\n");
    let report = TestRepo::report(&out);
    assert!(report["warnings"]
        .to_string()
        .contains("build/out.txt is ignored"));
}

#[test]
fn paths_outside_the_worktree_are_refused() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let before = repo.state();
    let out = repo.apply(&write("o1", "../escape.txt", "x\n"), &[]);
    assert_eq!(code(&out), 3, "{}", stderr(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("path_escape"));
    assert!(!repo.path().parent().unwrap().join("escape.txt").exists());
    assert_eq!(repo.state(), before);
    let out = repo.apply(&write("o2", ".git/config", "x\n"), &[]);
    assert_eq!(code(&out), 3);
    assert_eq!(repo.state(), before);
}

#[test]
fn detached_head_is_refused_as_undo_refuses_it() {
    // Issue 22: undo, redo, squash and step refuse a detached HEAD, so an apply there would
    // make a commit nothing can take back; it is refused with nothing changed.
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let head = repo.head();
    repo.git(&["checkout", "-q", "--detach"]);
    let before = repo.state();
    let out = repo.apply(&replace("dh", "a.txt", "a", "b"), &[]);
    assert_eq!(code(&out), 3, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("HEAD is detached") && stderr(&out).contains("git switch -c"),
        "{}",
        stderr(&out)
    );
    assert_eq!(repo.state(), before);
    assert_eq!(repo.head(), head);
}

#[test]
fn works_from_a_subdirectory_with_dash_c_and_with_git_dir() {
    let repo = TestRepo::with_files(&[("sub/a.txt", "a\n")]);
    // -C: paths stay relative to the worktree root.
    let mut cmd = repo.clada_cmd();
    let file = repo.home.path().join("r.md");
    std::fs::write(&file, replace("c1", "sub/a.txt", "a", "b")).unwrap();
    let out = cmd
        .args(["-C", "sub", "--format", "json", "apply"])
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(repo.read("sub/a.txt"), "b\n");
    // GIT_DIR + GIT_WORK_TREE from elsewhere.
    let elsewhere = tempfile::tempdir().unwrap();
    std::fs::write(&file, replace("c2", "sub/a.txt", "b", "c")).unwrap();
    let mut cmd = repo.clada_cmd();
    let out = cmd
        .current_dir(elsewhere.path())
        .env("GIT_DIR", repo.path().join(".git"))
        .env("GIT_WORK_TREE", repo.path())
        .args(["--format", "json", "apply"])
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(repo.read("sub/a.txt"), "c\n");
    assert_eq!(repo.status(), "");
}

#[test]
fn not_a_repository_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let repo = TestRepo::new();
    let file = dir.path().join("r.md");
    std::fs::write(&file, write("nr", "a.txt", "x\n")).unwrap();
    let mut cmd = repo.clada_cmd();
    let out = cmd
        .current_dir(dir.path())
        .env("GIT_CEILING_DIRECTORIES", dir.path().parent().unwrap())
        .arg("apply")
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("not a git repository"),
        "{}",
        stderr(&out)
    );
    assert!(stderr(&out).contains("--no-git"), "{}", stderr(&out));
}

/// The clada lock file names its holder by pid, written over the previous holder's record
/// (never truncated first): a longer leftover must not leak into the name a waiting
/// git-clada reports.
#[test]
fn the_lock_file_names_the_running_holder_over_a_longer_leftover() {
    use std::os::fd::AsRawFd;
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let lock = repo.path().join(".git/clada.lock");
    std::fs::write(&lock, "99999999999999\nleftover\n").unwrap();
    install_hook(&repo, ".git/hooks", "pre-commit", "sleep 1");
    let first = repo.spawn_apply(&[], &replace("p1", "a.txt", "a", "A"), &[]);
    let pid = first.id();
    // Wait until the first apply holds the lock (its pid is in the file).
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    let named = || {
        let text = std::fs::read_to_string(&lock).unwrap_or_default();
        text.lines().next().map(str::trim) == Some(pid.to_string().as_str())
    };
    while !named() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(named(), "{:?}", std::fs::read_to_string(&lock));
    let second = repo
        .spawn_apply(
            &[("GIT_CLADA_LOCK_WAIT_MS", "50")],
            &replace("p2", "a.txt", "a", "B"),
            &[],
        )
        .wait_with_output()
        .unwrap();
    let first = first.wait_with_output().unwrap();
    assert_eq!(code(&first), 0, "{}", stderr(&first));
    assert_eq!(code(&second), 2, "{}", stderr(&second));
    assert!(
        stderr(&second).contains(&format!(
            "another git-clada is running in this repository (pid {pid})"
        )),
        "{}",
        stderr(&second)
    );
    // Released: the lock is free again, whatever the file still holds.
    let f = std::fs::OpenOptions::new().write(true).open(&lock).unwrap();
    // SAFETY: flock on a descriptor we own.
    let rc = unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
    assert_eq!(rc, 0, "the lock is released when the apply ends");
}

#[test]
fn concurrent_applies_serialise_and_never_interleave() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n"), ("b.txt", "b\n")]);
    // A slow pre-commit hook keeps the first apply inside its transaction.
    install_hook(&repo, ".git/hooks", "pre-commit", "sleep 1");
    let spawn = |reply: String, wait_ms: &str| {
        repo.spawn_apply(&[("GIT_CLADA_LOCK_WAIT_MS", wait_ms)], &reply, &[])
    };
    // Second apply gives up quickly: it must fail cleanly, changing nothing.
    let first = spawn(replace("p1", "a.txt", "a", "A"), "5000");
    std::thread::sleep(std::time::Duration::from_millis(300));
    let second = spawn(replace("p2", "b.txt", "b", "B"), "100");
    let second = second.wait_with_output().unwrap();
    let first = first.wait_with_output().unwrap();
    assert_eq!(code(&first), 0, "{}", stderr(&first));
    assert_eq!(code(&second), 2, "{}", stderr(&second));
    assert!(
        stderr(&second).contains("another git-clada is running"),
        "{}",
        stderr(&second)
    );
    assert_eq!(repo.read("b.txt"), "b\n");
    // With a long enough wait, both succeed one after the other.
    let first = spawn(replace("q1", "a.txt", "A", "AA"), "10000");
    std::thread::sleep(std::time::Duration::from_millis(300));
    let second = spawn(replace("q2", "b.txt", "b", "BB"), "10000");
    let (first, second) = (
        first.wait_with_output().unwrap(),
        second.wait_with_output().unwrap(),
    );
    assert_eq!(code(&first), 0, "{}", stderr(&first));
    assert_eq!(code(&second), 0, "{}", stderr(&second));
    let log = repo.git(&["log", "--format=%s", "-3"]);
    assert_eq!(log, "AI: edit b.txt\nAI: edit a.txt\nAI: edit a.txt\n");
    assert_eq!(repo.status(), "");
    repo.assert_fsck();
}

#[test]
fn gitattributes_filters_apply_to_what_is_committed() {
    let repo = TestRepo::with_files(&[
        (".gitattributes", "*.txt text eol=crlf\n"),
        ("a.txt", "one\n"),
    ]);
    // The worktree holds CRLF (as a checkout with these attributes writes it).
    std::fs::remove_file(repo.path().join("a.txt")).unwrap();
    repo.git(&["checkout", "--", "a.txt"]);
    let reply = block(
        "ea",
        &[
            ("action", "file_write"),
            ("path", "b.txt"),
            ("content", "x\r\ny\r\n"),
        ],
    );
    let out = repo.apply(&reply, &[]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    // git stores LF for text files, whatever the worktree holds.
    assert_eq!(repo.git(&["cat-file", "blob", "HEAD:b.txt"]), "x\ny\n");
    assert_eq!(repo.status(), "");
}

#[test]
fn autocrlf_applies_to_what_is_committed() {
    let repo = TestRepo::with_files(&[("a.txt", "one\n")]);
    repo.git(&["config", "core.autocrlf", "true"]);
    let reply = block(
        "ac",
        &[
            ("action", "file_write"),
            ("path", "b.txt"),
            ("content", "x\r\ny\r\n"),
        ],
    );
    let out = repo.apply(&reply, &[]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(repo.git(&["cat-file", "blob", "HEAD:b.txt"]), "x\ny\n");
}

#[test]
fn a_missing_identity_or_a_bad_date_is_a_clear_error_and_changes_nothing() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    repo.git(&["config", "--unset", "user.name"]);
    repo.git(&["config", "--unset", "user.email"]);
    let before = repo.state();
    let reply = replace("id", "a.txt", "a", "b");
    let mut cmd = repo.clada_cmd();
    for var in [
        "GIT_AUTHOR_NAME",
        "GIT_AUTHOR_EMAIL",
        "GIT_COMMITTER_NAME",
        "GIT_COMMITTER_EMAIL",
        "EMAIL",
    ] {
        cmd.env_remove(var);
    }
    let file = repo.home.path().join("r.md");
    std::fs::write(&file, &reply).unwrap();
    let out = cmd.arg("apply").arg(&file).output().unwrap();
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("git config --global user.name"),
        "{}",
        stderr(&out)
    );
    assert_eq!(repo.state(), before);

    repo.git(&["config", "user.name", "T"]);
    repo.git(&["config", "user.email", "t@example.com"]);
    let mut cmd = repo.clada_cmd();
    let out = cmd
        .env("GIT_AUTHOR_DATE", "not a date")
        .arg("apply")
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("GIT_AUTHOR_DATE 'not a date'"),
        "{}",
        stderr(&out)
    );
    assert_eq!(repo.read("a.txt"), "a\n");
}

#[test]
fn commit_dates_and_identity_follow_git_rules() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    repo.git(&["config", "author.name", "Author Name"]);
    let mut cmd = repo.clada_cmd();
    let file = repo.home.path().join("r.md");
    std::fs::write(&file, replace("dt", "a.txt", "a", "b")).unwrap();
    let out = cmd
        .env_remove("GIT_AUTHOR_NAME")
        .env("GIT_AUTHOR_DATE", "@1700000000 +0200")
        .arg("apply")
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(
        repo.git(&["log", "-1", "--format=%an|%ae|%ad|%cn", "--date=raw"])
            .trim(),
        "Author Name|test@example.com|1700000000 +0200|Test User"
    );
}

#[test]
fn a_git_command_holding_the_index_lock_makes_apply_fail_with_nothing_changed() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n"), ("b.txt", "b\n")]);
    repo.write("a.txt", "users edit\n");
    repo.write("mine.txt", "untracked\n");
    // Another git command is in the middle of writing the index.
    let lock = repo.path().join(".git/index.lock");
    std::fs::write(&lock, b"").unwrap();
    let before = repo.state();
    let reply = [
        write("l1", "new.txt", "new\n"),
        replace("l2", "b.txt", "b", "B"),
    ]
    .concat();
    let out = repo.apply(&reply, &["--exec", "allow"]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("cannot lock the index"),
        "{}",
        stderr(&out)
    );
    assert_eq!(repo.state(), before);
    assert!(!repo.exists("new.txt"));
    assert!(
        lock.exists(),
        "the other command's lock is not ours to remove"
    );
    // No interrupted transaction is left behind: once the lock is gone, apply just works.
    std::fs::remove_file(&lock).unwrap();
    let out = repo.apply(&reply, &[]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(repo.read("b.txt"), "B\n");
    repo.assert_fsck();
}

#[test]
fn with_exec_a_held_index_lock_rolls_the_replys_changes_back() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n"), ("b.txt", "b\n")]);
    repo.write("mine.txt", "untracked\n");
    let lock = repo.path().join(".git/index.lock");
    std::fs::write(&lock, b"").unwrap();
    let before = repo.state();
    let reply = [
        replace("x1", "b.txt", "b", "B"),
        block(
            "x2",
            &[
                ("action", "exec"),
                ("lang", "bash"),
                (
                    "code",
                    "mkdir -p gen && echo made > gen/out.txt && echo changed > a.txt",
                ),
            ],
        ),
    ]
    .concat();
    let out = repo.apply(&reply, &["--exec", "allow"]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("cannot lock the index"), "{err}");
    assert!(err.contains("rolled back; nothing was committed"), "{err}");
    assert_eq!(repo.state(), before);
    assert!(!repo.exists("gen/out.txt"));
    std::fs::remove_file(&lock).unwrap();
    // Nothing is pending: status has nothing interrupted to report, and undo has nothing to do.
    assert_eq!(code(&repo.clada(&["undo"])), 3);
    repo.assert_fsck();
}

/// Issue 38 §3: when a hook stops the commit of a new file, the file is pending like any
/// other AI change: `git clada commit` commits it (it said "nothing is pending"), and with
/// the user's own unstaged edit elsewhere, it makes one AI commit holding only the AI's
/// changes (it made a snapshot commit and an empty AI commit), the user's edit left unstaged.
#[test]
fn git_clada_commit_commits_a_new_file_a_hook_stopped_and_leaves_the_users_edit_alone() {
    for user_edit in [false, true] {
        let repo = TestRepo::with_files(&[("a.txt", "a\n"), ("b.txt", "b\n")]);
        install_hook(
            &repo,
            ".git/hooks",
            "pre-commit",
            "echo 'lint failed' >&2; exit 1",
        );
        let head = repo.head();
        let reply = format!(
            "{}{}",
            replace("p1", "a.txt", "a", "A"),
            write("p2", "new.txt", "new\n")
        );
        let out = repo.apply(&reply, &[]);
        assert_eq!(code(&out), 1, "{}", stderr(&out));
        assert_eq!(repo.head(), head, "the hook stopped the commit");
        std::fs::remove_file(repo.path().join(".git/hooks/pre-commit")).unwrap();
        if user_edit {
            repo.write("b.txt", "the user's\n");
        }
        let out = repo.clada(&["commit"]);
        assert_eq!(
            code(&out),
            0,
            "{}{}",
            common::output_text(&out),
            stderr(&out)
        );
        assert_eq!(
            repo.git(&["rev-parse", "HEAD~1"]).trim(),
            head,
            "one commit"
        );
        assert_eq!(
            repo.git(&["diff-tree", "--no-commit-id", "--name-status", "-r", "HEAD"]),
            "M\ta.txt\nA\tnew.txt\n",
            "the AI's changes only"
        );
        let expected = if user_edit { " M b.txt\n" } else { "" };
        assert_eq!(repo.status(), expected, "the user's edit stays unstaged");
        repo.assert_fsck();
    }
}
