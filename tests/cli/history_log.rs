//! `git clada log`, `show` and `status` on real repositories.

use crate::common;

use common::{block, TestRepo};

fn code(out: &std::process::Output) -> i32 {
    out.status.code().unwrap_or(-1)
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn stdout(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn run(repo: &TestRepo, args: &[&str]) -> String {
    let out = repo.clada(args);
    assert_eq!(code(&out), 0, "{args:?}: {}", stderr(&out));
    stdout(&out)
}

fn json(repo: &TestRepo, args: &[&str]) -> serde_json::Value {
    let mut all = vec!["--format", "json"];
    all.extend_from_slice(args);
    serde_json::from_str(&run(repo, &all)).expect("JSON")
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

fn failing(id: &str) -> String {
    block(
        id,
        &[
            ("action", "file_replace_text"),
            ("path", "a.txt"),
            ("old_text", "not in the file"),
            ("new_text", "x"),
        ],
    )
}

fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}

#[test]
fn log_lists_git_clada_commits_with_age_and_block_counts() {
    let mut repo = TestRepo::with_files(&[("a.txt", "a\n"), ("m.txt", "m\n")]);
    let t = now();
    let date = format!("{} +0000", t - 2 * 3600);
    repo.env = vec![
        ("GIT_AUTHOR_DATE".into(), date.clone()),
        ("GIT_COMMITTER_DATE".into(), date),
    ];
    assert_eq!(code(&repo.apply(&write("l1", "b.txt", "b\n"), &[])), 0);
    repo.write("x.txt", "human\n");
    repo.git(&["add", "x.txt"]);
    repo.git(&["commit", "-q", "-m", "human commit"]);
    repo.write("m.txt", "my work\n");
    let reply = format!("{}{}", write("l2", "c.txt", "c\n"), failing("l3"));
    assert_eq!(code(&repo.apply(&reply, &["--wip", "commit"])), 1);
    repo.env.clear();

    let text = run(&repo, &["--format", "human", "log"]);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert!(lines[0].contains("2 hours ago"), "{text}");
    assert!(lines[0].contains("AI: create c.txt"), "{text}");
    assert!(lines[0].ends_with("[1 ok, 1 failed]"), "{text}");
    assert!(
        lines[1].contains("clada: snapshot before AI edit"),
        "{text}"
    );
    assert!(
        lines[1].contains("[snapshot of your uncommitted work]"),
        "{text}"
    );
    assert!(lines[2].contains("AI: create b.txt"), "{text}");
    assert!(lines[2].ends_with("[1 ok]"), "{text}");
    assert!(!text.contains("human commit"), "{text}");
    let head = repo.head();
    assert!(lines[0].starts_with(&format!("*{}", &head[..7])), "{text}");

    let j = json(&repo, &["log", "-n", "2"]);
    let entries = j["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 2);
    assert_eq!(entries[0]["commit"], head.as_str());
    assert_eq!(entries[0]["kind"], "apply");
    assert_eq!(entries[0]["blocksOk"], 1);
    assert_eq!(entries[0]["blocksFailed"], 1);
    assert_eq!(entries[1]["kind"], "snapshot");
    assert_eq!(j["branch"], "main");

    // A squash never folds the snapshot of the user's work into an AI commit (issue 38 §1):
    // with it between them, no two AI commits are adjacent, and the log stays as it was.
    let out = repo.clada(&["squash", "--mode", "ai_messages"]);
    assert_eq!(code(&out), 3, "{}", stderr(&out));
    assert!(stderr(&out).contains("snapshot"), "{}", stderr(&out));
    assert_eq!(run(&repo, &["--format", "human", "log"]), text);
}

#[test]
fn log_on_a_repository_without_ai_commits() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    assert_eq!(
        run(&repo, &["--format", "human", "log"]),
        "no git-clada commits on main\n"
    );
}

#[test]
fn show_prints_the_stored_reply_and_its_report_in_every_format() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let reply = format!(
        "Prose the LLM wrote.\n{}{}",
        write("s1", "b.txt", "b\n"),
        failing("s2")
    );
    assert_eq!(code(&repo.apply(&reply, &[])), 1);

    let human = run(&repo, &["--format", "human", "show"]);
    assert!(
        human.contains("--- reply ---\nProse the LLM wrote.\n"),
        "{human}"
    );
    assert!(human.contains(&reply), "the reply, byte for byte:\n{human}");
    assert!(human.contains("s1 ✅ file_write b.txt"), "{human}");
    assert!(human.contains("s2 ❌ file_replace_text a.txt"), "{human}");

    let llm = run(&repo, &["--format", "llm", "show", "HEAD"]);
    assert!(llm.contains("=== CLADA RESULTS ==="), "{llm}");
    assert!(llm.contains("=== END ==="), "{llm}");

    let j = json(&repo, &["show", "HEAD"]);
    assert_eq!(j["kind"], "apply");
    assert_eq!(j["replies"][0]["reply"], reply.as_str());
    assert_eq!(j["replies"][0]["report"]["results"][1]["blockId"], "s2");
    assert_eq!(j["replies"][0]["report"]["success"], false);
}

#[test]
fn show_of_a_squash_prints_every_original_reply() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    assert_eq!(code(&repo.apply(&write("q1", "b.txt", "1\n"), &[])), 0);
    repo.write("a.txt", "mine\n");
    assert_eq!(code(&repo.apply(&write("q2", "c.txt", "2\n"), &[])), 0);
    let out = repo.clada(&["squash", "--mode", "auto_ai"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let j = json(&repo, &["show"]);
    assert_eq!(j["kind"], "squash");
    let replies = j["replies"].as_array().unwrap();
    assert_eq!(replies.len(), 2, "the snapshot has no reply: {j}");
    assert!(replies[0]["reply"].as_str().unwrap().contains("#!end_q1"));
    assert_eq!(replies[1]["report"]["results"][0]["blockId"], "q2");
    let human = run(&repo, &["--format", "human", "show"]);
    assert!(human.contains("=== 1 of 2: "), "{human}");
    assert!(human.contains("=== 2 of 2: "), "{human}");
}

#[test]
fn show_of_a_snapshot_names_the_users_paths() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n"), ("mine.txt", "m\n")]);
    repo.write("mine.txt", "changed\n");
    assert_eq!(
        code(&repo.apply(&write("p1", "b.txt", "b\n"), &["--wip", "commit"])),
        0
    );
    let j = json(&repo, &["show", "HEAD~1"]);
    assert_eq!(j["kind"], "snapshot");
    assert_eq!(j["snapshotPaths"], serde_json::json!(["mine.txt"]));
    assert!(j["replies"].as_array().unwrap().is_empty());
}

#[test]
fn show_refuses_commits_git_clada_did_not_make() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let out = repo.clada(&["show"]);
    assert_eq!(code(&out), 3);
    assert!(
        stderr(&out).contains("is not a git-clada commit"),
        "{}",
        stderr(&out)
    );
    // A revision that does not exist is a usage error, not a safety refusal.
    let out = repo.clada(&["show", "no-such-rev"]);
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("unknown revision 'no-such-rev'"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn status_says_where_you_are_and_what_undo_would_do() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n"), ("mine.txt", "m\n")]);
    let text = run(&repo, &["--format", "human", "status"]);
    assert!(text.starts_with("On branch main at "), "{text}");
    assert!(
        text.contains("`git clada undo` would refuse: HEAD"),
        "{text}"
    );

    repo.write("mine.txt", "changed\n");
    assert_eq!(code(&repo.apply(&write("t1", "b.txt", "b\n"), &[])), 0);
    let text = run(&repo, &["--format", "human", "status"]);
    assert!(
        text.contains("`git clada undo` would take back the apply "),
        "{text}"
    );
    assert!(text.contains("\"AI: create b.txt\""), "{text}");
    assert!(
        text.contains("bring back your uncommitted work (0 staged, 1 unstaged path)"),
        "{text}"
    );
    let j = json(&repo, &["status"]);
    assert_eq!(j["branch"], "main");
    assert_eq!(j["undo"]["kind"], "apply");
    assert!(j["steppedBack"].is_null());

    // After an undo, redo is offered.
    assert_eq!(code(&repo.clada(&["undo"])), 0);
    let j = json(&repo, &["status"]);
    assert_eq!(j["redo"]["kind"], "apply");
}

#[test]
fn status_while_stepped_back() {
    let repo = TestRepo::with_files(&[("a.txt", "0\n")]);
    for i in 1..=3 {
        repo.write("a.txt", &format!("{i}\n"));
        repo.git(&["commit", "-q", "-am", &format!("commit {i}")]);
    }
    repo.write("u.txt", "untracked\n");
    assert_eq!(code(&repo.clada(&["step-back"])), 0);
    assert_eq!(code(&repo.clada(&["step-back"])), 0);
    let text = run(&repo, &["--format", "human", "status"]);
    assert!(
        text.starts_with("Stepped back: at 2 of 3 behind main: commit 1 ("),
        "{text}"
    );
    assert!(text.contains("parked in refs/clada/stash/"), "{text}");
    let j = json(&repo, &["status"]);
    assert_eq!(j["steppedBack"]["behind"], 2);
    assert_eq!(j["steppedBack"]["total"], 3);
    assert_eq!(j["detached"], true);
    // The log starts at the tip and marks where HEAD is (no AI commits here, so empty).
    assert_eq!(
        run(&repo, &["--format", "human", "log"]),
        "no git-clada commits on main\n"
    );
}

#[test]
fn status_reports_an_interrupted_apply_and_a_merge_in_progress() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let crashed = repo
        .spawn_apply(
            &[("GIT_CLADA_FAILPOINT", "apply:after-execute")],
            &write("i1", "a.txt", "crashed\n"),
            &[],
        )
        .wait_with_output()
        .unwrap();
    assert!(!crashed.status.success());
    let text = run(&repo, &["--format", "human", "status"]);
    assert!(
        text.contains("Interrupted: an apply of stdin was interrupted"),
        "{text}"
    );
    assert!(
        text.contains("`git clada undo` would roll back the interrupted apply of stdin"),
        "{text}"
    );
    assert_eq!(code(&repo.clada(&["undo"])), 0);
    assert_eq!(repo.read("a.txt"), "a\n");

    let head = repo.head();
    std::fs::write(repo.path().join(".git/MERGE_HEAD"), format!("{head}\n")).unwrap();
    let j = json(&repo, &["status"]);
    assert!(j["inProgress"].as_str().unwrap().contains("merge"), "{j}");
}

#[test]
fn log_reads_the_same_history_whatever_the_commit_cache_holds() {
    // `log` walks through `.git/clada/commits` (the AI commits' bytes kept in one file); a
    // record is believed only if it hashes to its commit's id.
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    for i in 1..=3 {
        let out = repo.apply(&write(&format!("c{i}"), "a.txt", &format!("{i}\n")), &[]);
        assert_eq!(code(&out), 0, "{}", stderr(&out));
    }
    let cache = repo.path().join(".git/clada/commits");
    let kept = std::fs::read(&cache).expect("the applies kept their commits");
    let expected = json(&repo, &["log"]);
    assert_eq!(
        expected["entries"].as_array().map(Vec::len),
        Some(3),
        "{expected}"
    );

    // Same lengths, so every record still parses; its bytes no longer hash to its id.
    let tampered = common::replace_bytes(&kept, b"AI: ", b"XX: ");
    assert_ne!(tampered, kept, "the test changes something");
    for (label, bytes) in [
        ("tampered", Some(tampered)),
        ("cut short", Some(kept[..kept.len() / 2].to_vec())),
        ("no cache", None),
    ] {
        match bytes {
            Some(b) => std::fs::write(&cache, b).unwrap(),
            None => std::fs::remove_file(&cache).unwrap(),
        }
        assert_eq!(json(&repo, &["log"]), expected, "{label}");
    }
}
