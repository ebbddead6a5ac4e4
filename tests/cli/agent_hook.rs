//! `git clada agent-hook`: Claude Code's hook payloads (tests/fixtures/agent-hooks/, each
//! citing the documentation it follows) piped to the real binary around real edits in real
//! repositories, checked with git: what each tool call changed is recorded, the turn becomes
//! one AI commit holding only the agent's change, the user's work stays uncommitted and
//! unattributed, and a hook never blocks the agent.

use crate::common;

use std::process::Output;

use common::{exit_code, spawn_fed, TestRepo};

/// A fixture with its placeholders filled in (JSON-escaped values).
fn payload(repo: &TestRepo, name: &str, vars: &[(&str, &str)]) -> String {
    payload_of(repo, "claude-code", name, vars)
}

fn payload_of(repo: &TestRepo, agent: &str, name: &str, vars: &[(&str, &str)]) -> String {
    common::agent_fixtures::payload(repo, agent, name, vars)
}

fn hook(repo: &TestRepo, input: &str) -> Output {
    hook_of(repo, "claude-code", input)
}

fn hook_of(repo: &TestRepo, agent: &str, input: &str) -> Output {
    let mut cmd = repo.clada_cmd();
    cmd.args(["agent-hook", agent]);
    spawn_fed(cmd, input).wait_with_output().expect("run hook")
}

fn hook_ok(repo: &TestRepo, input: &str) -> Output {
    let out = hook(repo, input);
    assert_eq!(
        exit_code(&out),
        0,
        "hook failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// One Write or Edit tool call: PreToolUse, the edit, PostToolUse.
fn agent_edit(repo: &TestRepo, tool: &str, id: &str, file: &str, content: &str) {
    let vars = [("FILE", file), ("ID", id), ("CONTENT", content)];
    hook_ok(repo, &payload(repo, &format!("pre-{tool}"), &vars));
    repo.write(file, content);
    hook_ok(repo, &payload(repo, &format!("post-{tool}"), &vars));
}

fn stop(repo: &TestRepo) -> Output {
    hook_ok(repo, &payload(repo, "stop", &[]))
}

/// The paths the commit at `rev` changed.
fn changed(repo: &TestRepo, rev: &str) -> String {
    repo.git(&["diff-tree", "--no-commit-id", "--name-only", "-r", rev])
        .trim_end()
        .to_string()
}

fn note(repo: &TestRepo, rev: &str) -> String {
    repo.git(&["notes", "--ref", "ai", "show", rev])
}

#[test]
fn a_users_edit_between_two_agent_edits_stays_uncommitted_and_unattributed() {
    let repo = TestRepo::with_files(&[("a.txt", "one\ntwo\n"), ("user.txt", "mine\n")]);
    let initial = repo.head();
    agent_edit(&repo, "edit", "toolu_1", "a.txt", "one\nTWO by agent\n");
    repo.write("user.txt", "mine\nmy own edit\n");
    agent_edit(&repo, "write", "toolu_2", "new.txt", "created by agent\n");
    let out = stop(&repo);
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("AI commit"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        repo.git(&["rev-parse", "HEAD~1"]).trim_end(),
        initial.trim_end()
    );
    assert!(
        repo.subject("HEAD").starts_with("AI:"),
        "{}",
        repo.subject("HEAD")
    );
    assert_eq!(changed(&repo, "HEAD"), "a.txt\nnew.txt");
    assert_eq!(repo.status().trim_end(), " M user.txt");
    assert_eq!(repo.read("user.txt"), "mine\nmy own edit\n");
    let log = note(&repo, "HEAD");
    assert!(log.contains("a.txt\n  s_") && log.contains(" 2\n"), "{log}");
    assert!(log.contains("new.txt\n  s_"), "{log}");
    assert!(!log.contains("user.txt"), "{log}");
    assert!(log.contains("\"tool\": \"claude\""), "{log}");
    assert!(log.contains("\"model\": \"claude-sonnet-4-5\""), "{log}");
    assert!(log.contains("\"id\": \"abc123\""), "{log}");
    // The turn's checkpoints are gone once committed.
    assert_eq!(repo.git(&["for-each-ref", "refs/clada/agent/"]), "");
    repo.assert_fsck();
}

#[test]
fn a_users_edit_of_the_agents_file_between_its_edits_stays_the_users() {
    let repo = TestRepo::with_files(&[("a.txt", "1\n2\n3\n4\n5\n6\n7\n")]);
    agent_edit(
        &repo,
        "edit",
        "toolu_1",
        "a.txt",
        "1 agent\n2\n3\n4\n5\n6\n7\n",
    );
    repo.write("a.txt", "1 agent\n2\n3\n4 user\n5\n6\n7\n");
    agent_edit(
        &repo,
        "edit",
        "toolu_2",
        "a.txt",
        "1 agent\n2\n3\n4 user\n5\n6\n7 agent\n",
    );
    stop(&repo);
    assert_eq!(
        repo.git(&["show", "HEAD:a.txt"]),
        "1 agent\n2\n3\n4\n5\n6\n7 agent\n"
    );
    assert_eq!(repo.read("a.txt"), "1 agent\n2\n3\n4 user\n5\n6\n7 agent\n");
    assert_eq!(repo.git(&["diff", "--numstat"]), "1\t1\ta.txt\n");
    let log = note(&repo, "HEAD");
    assert!(log.contains(" 1,7\n"), "{log}");
}

#[test]
fn a_bash_tool_editing_two_files_is_one_checkpoint_of_those_two() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n"), ("b.txt", "b\n"), ("mine.txt", "m\n")]);
    repo.write("mine.txt", "m\nuncommitted before the call\n");
    repo.write("scratch.txt", "my untracked notes\n");
    let cmd = "printf 'a2\\n' >> a.txt && printf 'c\\n' > c.txt";
    let vars = [("ID", "toolu_b"), ("COMMAND", cmd)];
    hook_ok(&repo, &payload(&repo, "pre-bash", &vars));
    let sh = repo
        .command("sh")
        .args(["-c", cmd])
        .output()
        .expect("run sh");
    assert!(sh.status.success());
    hook_ok(&repo, &payload(&repo, "post-bash", &vars));
    let state = repo.git(&["cat-file", "-p", "refs/clada/agent/main:state.json"]);
    let state: serde_json::Value = serde_json::from_str(&state).unwrap();
    let paths: Vec<&str> = state["checkpoints"][0]["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths, ["a.txt", "c.txt"]);
    assert_eq!(state["checkpoints"].as_array().unwrap().len(), 1);
    stop(&repo);
    assert_eq!(changed(&repo, "HEAD"), "a.txt\nc.txt");
    assert_eq!(repo.git(&["show", "HEAD:a.txt"]), "a\na2\n");
    assert_eq!(repo.status().trim_end(), " M mine.txt\n?? scratch.txt");
    repo.assert_fsck();
}

#[test]
fn parallel_tool_calls_pair_by_tool_use_id() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n"), ("b.txt", "b\n")]);
    let a = [
        ("FILE", "a.txt"),
        ("ID", "toolu_A"),
        ("CONTENT", "a agent\n"),
    ];
    let b = [
        ("FILE", "b.txt"),
        ("ID", "toolu_B"),
        ("CONTENT", "b agent\n"),
    ];
    hook_ok(&repo, &payload(&repo, "pre-write", &a));
    hook_ok(&repo, &payload(&repo, "pre-write", &b));
    repo.write("b.txt", "b agent\n");
    hook_ok(&repo, &payload(&repo, "post-write", &b));
    repo.write("a.txt", "a agent\n");
    hook_ok(&repo, &payload(&repo, "post-write", &a));
    let state = repo.git(&["cat-file", "-p", "refs/clada/agent/main:state.json"]);
    let state: serde_json::Value = serde_json::from_str(&state).unwrap();
    let cps = state["checkpoints"].as_array().unwrap();
    let pairs: Vec<(String, String)> = cps
        .iter()
        .map(|c| {
            let paths: Vec<&str> = c["changes"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x["path"].as_str().unwrap())
                .collect();
            (c["key"].as_str().unwrap().to_string(), paths.join(","))
        })
        .collect();
    assert_eq!(
        pairs,
        [
            ("toolu_B".to_string(), "b.txt".to_string()),
            ("toolu_A".to_string(), "a.txt".to_string())
        ]
    );
    assert!(state["open"].as_array().unwrap().is_empty());
    stop(&repo);
    assert_eq!(changed(&repo, "HEAD"), "a.txt\nb.txt");
    assert_eq!(repo.status().trim_end(), "");
}

#[test]
fn one_undo_takes_back_the_turn_commit_and_the_agents_edits() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n"), ("user.txt", "u\n")]);
    let initial = repo.head();
    repo.write("user.txt", "u\nmine\n");
    agent_edit(&repo, "edit", "toolu_1", "a.txt", "a by agent\n");
    stop(&repo);
    let out = repo.clada(&["undo"]);
    assert_eq!(
        exit_code(&out),
        0,
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(repo.head(), initial);
    assert_eq!(repo.read("a.txt"), "a\n");
    assert_eq!(repo.read("user.txt"), "u\nmine\n");
    assert_eq!(repo.status().trim_end(), " M user.txt");
    // Nothing of the turn is left for a second undo.
    let out = repo.clada(&["undo"]);
    assert_eq!(exit_code(&out), 3, "{}", common::output_text(&out));
    assert_eq!(repo.read("a.txt"), "a\n");
    repo.assert_fsck();
}

#[test]
fn blame_after_the_turn_commit_shows_the_agents_lines_as_ai_by_claude() {
    let repo = TestRepo::with_files(&[("a.txt", "one\ntwo\nthree\n")]);
    agent_edit(&repo, "edit", "toolu_1", "a.txt", "one\nTWO\nthree\n");
    stop(&repo);
    let out = repo.clada(&["--format", "json", "blame", "a.txt"]);
    assert_eq!(
        exit_code(&out),
        0,
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let blame: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let lines = blame["lines"].as_array().unwrap();
    let origin = |i: usize| lines[i]["origin"].as_str().unwrap().to_string();
    assert_eq!(origin(1), "ai", "{blame}");
    assert_eq!(lines[1]["agent"], "claude", "{blame}");
    assert_eq!(lines[1]["model"], "claude-sonnet-4-5", "{blame}");
    assert_ne!(origin(0), "ai", "{blame}");
    assert_ne!(origin(2), "ai", "{blame}");
}

#[test]
fn a_malformed_payload_is_a_non_blocking_error_that_changes_nothing() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    agent_edit(&repo, "edit", "toolu_1", "a.txt", "a2\n");
    let before = repo.state();
    for input in ["{not json", r#"{"session_id":"abc123"}"#] {
        let out = hook(&repo, input);
        assert_eq!(exit_code(&out), 1, "exit 2 would block the agent");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("agent-hook claude-code") && err.contains("payload"),
            "{err}"
        );
        common::assert_same_user_state(&repo.state(), &before, input);
    }
}

#[test]
fn a_post_without_its_pre_is_not_attributed() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    repo.write("a.txt", "changed\n");
    let vars = [
        ("FILE", "a.txt"),
        ("ID", "toolu_x"),
        ("CONTENT", "changed\n"),
    ];
    let out = hook_ok(&repo, &payload(&repo, "post-write", &vars));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not attributed"));
    stop(&repo);
    assert_eq!(repo.git(&["rev-list", "--count", "HEAD"]).trim_end(), "1");
    assert_eq!(repo.status().trim_end(), " M a.txt");
}

#[test]
fn install_is_idempotent_keeps_other_hooks_and_uninstall_removes_only_ours() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let file = repo.path().join(".claude/settings.local.json");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    let theirs = r#"{"model":"opus","hooks":{"PostToolUse":[{"matcher":"Edit","hooks":[{"type":"command","command":"prettier --write"}]}]}}"#;
    std::fs::write(&file, theirs).unwrap();
    let install = || repo.clada(&["agent-hook", "install", "claude-code", "--project-local"]);
    assert_eq!(exit_code(&install()), 0);
    let once = std::fs::read_to_string(&file).unwrap();
    assert_eq!(exit_code(&install()), 0);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), once);
    let v: serde_json::Value = serde_json::from_str(&once).unwrap();
    assert_eq!(v["model"], "opus");
    assert_eq!(
        v["hooks"]["PostToolUse"][0]["hooks"][0]["command"],
        "prettier --write"
    );
    for event in ["PreToolUse", "PostToolUse", "Stop"] {
        let groups = v["hooks"][event].as_array().unwrap();
        assert!(
            groups
                .iter()
                .any(|g| g["hooks"][0]["command"] == "git clada agent-hook claude-code"),
            "{event}: {once}"
        );
    }
    let out = repo.clada(&["agent-hook", "uninstall", "claude-code", "--project-local"]);
    assert_eq!(exit_code(&out), 0);
    let after: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let original: serde_json::Value = serde_json::from_str(theirs).unwrap();
    assert_eq!(after, original);

    let out = repo.clada(&["agent-hook", "install", "claude-code", "--shared"]);
    assert_eq!(exit_code(&out), 0);
    let shared = std::fs::read_to_string(repo.path().join(".claude/settings.json")).unwrap();
    assert!(
        shared.contains(
            "command -v git-clada >/dev/null || exit 0; git clada agent-hook claude-code"
        ),
        "{shared}"
    );
}

#[test]
fn install_defaults_to_the_users_settings() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let out = repo.clada(&["agent-hook", "install", "claude-code"]);
    assert_eq!(
        exit_code(&out),
        0,
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let user = repo.home.path().join(".claude/settings.json");
    let text = std::fs::read_to_string(&user).expect("user settings written");
    assert!(text.contains("git clada agent-hook claude-code"), "{text}");
    assert!(!repo.path().join(".claude").exists());
}

#[test]
fn a_failing_pre_commit_hook_leaves_the_turn_pending_without_blocking_the_agent() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n"), ("user.txt", "u\n")]);
    let initial = repo.head();
    let hooks = repo.path().join(".git/hooks");
    std::fs::create_dir_all(&hooks).unwrap();
    repo.write(
        ".git/hooks/pre-commit",
        "#!/bin/sh\necho 'lint failed' >&2\nexit 1\n",
    );
    repo.set_executable(".git/hooks/pre-commit");
    repo.write("user.txt", "u\nmine\n");
    agent_edit(&repo, "edit", "toolu_1", "a.txt", "a by agent\n");
    let out = hook(&repo, &payload(&repo, "stop", &[]));
    assert_eq!(exit_code(&out), 1, "non-blocking, not 2");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("not committed") && err.contains("hook"),
        "{err}"
    );
    assert_eq!(repo.head(), initial);
    assert_eq!(repo.read("a.txt"), "a by agent\n");
    // Fixed, `git clada commit` commits the agent's change alone.
    std::fs::remove_file(hooks.join("pre-commit")).unwrap();
    let out = repo.clada(&["commit"]);
    assert_eq!(exit_code(&out), 0, "{}", common::output_text(&out));
    assert_eq!(changed(&repo, "HEAD"), "a.txt");
    assert_eq!(repo.status().trim_end(), " M user.txt");
    assert!(note(&repo, "HEAD").contains("\"tool\": \"claude\""));
}

#[test]
fn an_agent_that_commits_itself_finds_its_work_committed_and_no_turn_commit_follows() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let cmd = "printf 'a2\\n' >> a.txt && git commit -qam 'by the agent'";
    let vars = [("ID", "toolu_c"), ("COMMAND", cmd)];
    hook_ok(&repo, &payload(&repo, "pre-bash", &vars));
    let sh = repo.command("sh").args(["-c", cmd]).output().expect("sh");
    assert!(
        sh.status.success(),
        "{}",
        String::from_utf8_lossy(&sh.stderr)
    );
    hook_ok(&repo, &payload(&repo, "post-bash", &vars));
    // The agent's own commit carries its authorship log, written by the PostToolUse hook
    // that saw HEAD move during the call (no git hook installed here).
    let log = note(&repo, "HEAD");
    assert!(log.contains("a.txt\n  s_") && log.contains(" 2\n"), "{log}");
    assert!(log.contains("\"tool\": \"claude\""), "{log}");
    assert!(log.contains("\"model\": \"claude-sonnet-4-5\""), "{log}");
    assert!(log.contains("\"id\": \"abc123\""), "{log}");
    stop(&repo);
    assert_eq!(repo.subject("HEAD").trim_end(), "by the agent");
    assert_eq!(repo.git(&["rev-list", "--count", "HEAD"]).trim_end(), "2");
    assert_eq!(repo.status().trim_end(), "");
    assert_eq!(repo.git(&["for-each-ref", "refs/clada/agent/"]), "");
    repo.assert_fsck();
}

#[test]
fn the_users_commit_of_the_agents_lines_gets_their_log_from_the_post_commit_hook() {
    let mut repo = TestRepo::with_files(&[("a.txt", "one\ntwo\nthree\n")]);
    // git finds git-clada on PATH, as the installed hooks need.
    repo.env.push(("PATH".into(), common::path_with_clada(&[])));
    let out = repo.clada(&["hooks", "install"]);
    assert_eq!(exit_code(&out), 0, "{}", common::output_text(&out));
    agent_edit(&repo, "edit", "toolu_1", "a.txt", "one\nTWO\nTHREE\n");
    // The user changes one of the agent's lines and adds one of their own, then commits.
    repo.write("a.txt", "one\nTWO\nthree by me\nfour by me\n");
    repo.git(&["commit", "-qam", "my commit"]);
    let log = note(&repo, "HEAD");
    assert!(log.contains("a.txt\n  s_"), "{log}");
    let lines: Vec<&str> = log.lines().filter(|l| l.starts_with("  s_")).collect();
    assert_eq!(lines.len(), 1, "{log}");
    assert!(
        lines[0].ends_with(" 2"),
        "only the agent's line 2 is its: {log}"
    );
    assert!(log.contains("\"tool\": \"claude\""), "{log}");
    // The commit took the agent's change: the end of the turn commits nothing more.
    assert_eq!(repo.git(&["for-each-ref", "refs/clada/agent/"]), "");
    stop(&repo);
    assert_eq!(repo.subject("HEAD").trim_end(), "my commit");
    assert_eq!(repo.git(&["rev-list", "--count", "HEAD"]).trim_end(), "2");
    assert_eq!(repo.status().trim_end(), "");
    // Idempotent: the hook run again leaves the note as it is.
    let again = repo.clada(&["provenance", "post-commit"]);
    assert_eq!(exit_code(&again), 0);
    assert_eq!(note(&repo, "HEAD"), log);
    repo.assert_fsck();
}

#[test]
fn a_commit_of_some_of_the_agents_files_leaves_the_rest_for_the_turn_commit() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n"), ("b.txt", "b\n"), ("u.txt", "u\n")]);
    let initial = repo.head();
    agent_edit(&repo, "edit", "toolu_1", "a.txt", "a by agent\n");
    agent_edit(&repo, "edit", "toolu_2", "b.txt", "b by agent\n");
    repo.write("u.txt", "u\nmine\n");
    // The user commits a.txt alone, with no git hook installed: the Stop sees HEAD moved.
    repo.git(&["commit", "-qm", "just a", "--", "a.txt"]);
    let user_commit = repo.head();
    stop(&repo);
    assert_eq!(repo.git(&["rev-parse", "HEAD~1"]).trim_end(), user_commit);
    assert_eq!(repo.git(&["rev-parse", "HEAD~2"]).trim_end(), initial);
    assert_eq!(changed(&repo, "HEAD~1"), "a.txt");
    assert_eq!(changed(&repo, "HEAD"), "b.txt");
    assert!(
        repo.subject("HEAD").starts_with("AI:"),
        "{}",
        repo.subject("HEAD")
    );
    let log = note(&repo, &user_commit);
    assert!(log.contains("a.txt\n  s_") && log.contains(" 1\n"), "{log}");
    assert!(!log.contains("b.txt"), "{log}");
    assert!(log.contains("\"tool\": \"claude\""), "{log}");
    assert!(note(&repo, "HEAD").contains("b.txt\n  s_"));
    assert_eq!(repo.status().trim_end(), " M u.txt");
    assert_eq!(repo.git(&["for-each-ref", "refs/clada/agent/"]), "");
    repo.assert_fsck();
}

#[test]
fn gemini_calls_pair_in_arrival_order_and_after_agent_commits_the_turn() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n"), ("user.txt", "u\n")]);
    let gem = |name: &str, file: &str, content: &str| {
        let p = payload_of(
            &repo,
            "gemini",
            name,
            &[("FILE", file), ("CONTENT", content)],
        );
        let out = hook_of(&repo, "gemini", &p);
        assert_eq!(
            exit_code(&out),
            0,
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    gem("before-write", "a.txt", "a by gemini\n");
    repo.write("a.txt", "a by gemini\n");
    gem("after-write", "a.txt", "a by gemini\n");
    repo.write("user.txt", "u\nmine\n");
    gem("before-write", "b.txt", "new\n");
    repo.write("b.txt", "new\n");
    gem("after-write", "b.txt", "new\n");
    gem("after-agent", "", "");
    assert_eq!(changed(&repo, "HEAD"), "a.txt\nb.txt");
    assert_eq!(repo.status().trim_end(), " M user.txt");
    assert!(note(&repo, "HEAD").contains("\"tool\": \"gemini\""));
}

#[test]
fn a_read_only_tool_records_nothing() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    // Claude Code's Read tool (hooks reference: tool_input.file_path), before and after.
    let read = payload(
        &repo,
        "pre-write",
        &[("FILE", "a.txt"), ("ID", "toolu_r"), ("CONTENT", "")],
    )
    .replace("\"Write\"", "\"Read\"");
    hook_ok(&repo, &read);
    hook_ok(&repo, &read.replace("PreToolUse", "PostToolUse"));
    assert_eq!(repo.git(&["for-each-ref", "refs/clada/"]), "");
}

#[test]
fn agent_commit_edit_makes_an_ai_commit_per_tool_call_without_git_hooks() {
    let repo = TestRepo::with_files(&[
        ("a.txt", "a\n"),
        ("user.txt", "u\n"),
        (".clada.yml", "agent:\n  commit: edit\n"),
    ]);
    let initial = repo.head();
    // A pre-commit hook that would refuse every commit: `edit` commits run no git hooks.
    repo.write(".git/hooks/pre-commit", "#!/bin/sh\nexit 1\n");
    repo.set_executable(".git/hooks/pre-commit");
    agent_edit(&repo, "edit", "toolu_1", "a.txt", "a by agent\n");
    assert!(
        repo.subject("HEAD").starts_with("AI:"),
        "{}",
        repo.subject("HEAD")
    );
    assert_eq!(changed(&repo, "HEAD"), "a.txt");
    repo.write("user.txt", "u\nmine\n");
    agent_edit(&repo, "write", "toolu_2", "b.txt", "new\n");
    assert_eq!(changed(&repo, "HEAD"), "b.txt");
    assert_eq!(repo.git(&["rev-parse", "HEAD~2"]).trim_end(), initial);
    for rev in ["HEAD", "HEAD~1"] {
        assert!(note(&repo, rev).contains("\"tool\": \"claude\""), "{rev}");
    }
    // The end of the turn has nothing left to commit.
    stop(&repo);
    assert_eq!(repo.git(&["rev-list", "--count", "HEAD"]).trim_end(), "3");
    assert_eq!(repo.status().trim_end(), " M user.txt");
    assert_eq!(repo.git(&["for-each-ref", "refs/clada/agent/"]), "");
    // Each edit is undone on its own.
    let out = repo.clada(&["undo"]);
    assert_eq!(exit_code(&out), 0, "{}", common::output_text(&out));
    assert_eq!(repo.git(&["rev-parse", "HEAD~1"]).trim_end(), initial);
    repo.assert_fsck();
}

#[test]
fn agent_commit_none_never_commits_and_the_users_commit_gets_the_log() {
    let mut repo = TestRepo::with_files(&[
        ("a.txt", "one\ntwo\n"),
        (".clada.yml", "agent:\n  commit: none\n"),
    ]);
    repo.env.push(("PATH".into(), common::path_with_clada(&[])));
    let out = repo.clada(&["hooks", "install"]);
    assert_eq!(exit_code(&out), 0, "{}", common::output_text(&out));
    let initial = repo.head();
    agent_edit(&repo, "edit", "toolu_1", "a.txt", "one\nTWO\n");
    stop(&repo);
    assert_eq!(repo.head(), initial);
    assert_eq!(repo.status().trim_end(), " M a.txt");
    // Still attributed, in the state, until someone commits.
    assert_ne!(repo.git(&["for-each-ref", "refs/clada/agent/"]), "");
    repo.write("a.txt", "one\nTWO\nthree by me\n");
    repo.git(&["commit", "-qam", "mine"]);
    let log = note(&repo, "HEAD");
    let lines: Vec<&str> = log.lines().filter(|l| l.starts_with("  s_")).collect();
    assert_eq!(lines.len(), 1, "{log}");
    assert!(lines[0].ends_with(" 2"), "{log}");
    assert!(log.contains("\"tool\": \"claude\""), "{log}");
    assert_eq!(repo.git(&["for-each-ref", "refs/clada/agent/"]), "");
    repo.assert_fsck();
}

#[test]
fn undo_takes_back_each_uncommitted_agent_call_in_turn_and_keeps_the_users_edit() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n"), ("user.txt", "u\n")]);
    let initial = repo.head();
    agent_edit(&repo, "edit", "toolu_1", "a.txt", "a by agent\n");
    agent_edit(&repo, "write", "toolu_2", "new.txt", "created by agent\n");
    repo.write("user.txt", "u\nmine\n");
    let undo = || {
        let out = repo.clada(&["undo"]);
        assert_eq!(exit_code(&out), 0, "{}", common::output_text(&out));
    };
    undo();
    assert!(!repo.path().join("new.txt").exists());
    assert_eq!(repo.read("a.txt"), "a by agent\n");
    undo();
    assert_eq!(repo.read("a.txt"), "a\n");
    assert_eq!(repo.read("user.txt"), "u\nmine\n");
    assert_eq!(repo.head(), initial);
    assert_eq!(repo.status().trim_end(), " M user.txt");
    assert_eq!(repo.git(&["for-each-ref", "refs/clada/agent/"]), "");
    // Nothing of the agent's is left: the end of the turn commits nothing.
    stop(&repo);
    assert_eq!(repo.head(), initial);
    repo.assert_fsck();
}

#[test]
fn undo_of_an_agent_call_refuses_when_its_file_changed_since() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    agent_edit(&repo, "edit", "toolu_1", "a.txt", "a by agent\n");
    repo.write("a.txt", "a by agent\nand by me\n");
    let out = repo.clada(&["undo"]);
    assert_eq!(exit_code(&out), 3, "{}", common::output_text(&out));
    let text = common::output_text(&out);
    assert!(
        text.contains("a.txt changed since") && text.contains("toolu_1"),
        "{text}"
    );
    assert_eq!(repo.read("a.txt"), "a by agent\nand by me\n");
    assert_ne!(repo.git(&["for-each-ref", "refs/clada/agent/"]), "");
}

#[test]
fn a_commit_of_part_of_the_agents_file_leaves_the_rest_for_the_turn_commit() {
    let repo = TestRepo::with_files(&[("a.txt", "1\n2\n3\n4\n5\n6\n7\n8\n")]);
    agent_edit(
        &repo,
        "edit",
        "toolu_1",
        "a.txt",
        "1 agent\n2\n3\n4\n5\n6\n7\n8 agent\n",
    );
    // The user stages only the first of the agent's two hunks (as `git add -p` would).
    let staged = "1 agent\n2\n3\n4\n5\n6\n7\n8\n";
    let mut cmd = repo.git_cmd();
    cmd.args(["hash-object", "-w", "--stdin"]);
    let out = spawn_fed(cmd, staged)
        .wait_with_output()
        .expect("hash-object");
    let blob = String::from_utf8_lossy(&out.stdout).trim().to_string();
    repo.git(&[
        "update-index",
        "--cacheinfo",
        &format!("100644,{blob},a.txt"),
    ]);
    repo.git(&["commit", "-qm", "first hunk"]);
    let user_commit = repo.head();
    stop(&repo);
    assert_eq!(repo.git(&["rev-parse", "HEAD~1"]).trim_end(), user_commit);
    assert!(
        repo.subject("HEAD").starts_with("AI:"),
        "{}",
        repo.subject("HEAD")
    );
    assert_eq!(
        repo.git(&["show", "HEAD:a.txt"]),
        "1 agent\n2\n3\n4\n5\n6\n7\n8 agent\n"
    );
    let first = note(&repo, &user_commit);
    assert!(
        first.contains("a.txt\n  s_") && first.contains(" 1\n"),
        "{first}"
    );
    let rest = note(&repo, "HEAD");
    assert!(
        rest.contains("a.txt\n  s_") && rest.contains(" 8\n"),
        "{rest}"
    );
    assert_eq!(repo.status().trim_end(), "");
    repo.assert_fsck();
}

#[test]
fn a_hook_that_finds_the_lock_held_past_its_budget_sets_its_record_aside_for_the_next() {
    let repo = TestRepo::with_files(&[("a.txt", "one\n"), ("user.txt", "mine\n")]);
    // Another hook's long work (a turn commit running git's hooks) holds the agent lock.
    let lock = common::agent_fixtures::hold_agent_lock(&repo);
    let busy = |input: &str| {
        let mut cmd = repo.clada_cmd();
        cmd.args(["agent-hook", "claude-code"])
            .env("GIT_CLADA_AGENT_LOCK_BUDGET_MS", "50");
        let out = spawn_fed(cmd, input).wait_with_output().expect("hook");
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(exit_code(&out), 0, "{err}");
        assert!(err.contains("set aside"), "{err}");
    };
    let vars = [
        ("FILE", "a.txt"),
        ("ID", "toolu_busy"),
        ("CONTENT", "one\nby claude\n"),
    ];
    busy(&payload(&repo, "pre-write", &vars));
    repo.write("a.txt", "one\nby claude\n");
    busy(&payload(&repo, "post-write", &vars));
    // Nothing moved: no ref, the records wait beside the state.
    assert!(repo
        .git(&["for-each-ref", "refs/clada/agent/"])
        .trim()
        .is_empty());
    let pending = std::fs::read_dir(repo.path().join(".git/clada/agent-pending"))
        .expect("set-aside records")
        .count();
    assert_eq!(pending, 2);
    // What the after-hook saw counts: the user's line added since is the user's.
    repo.write("a.txt", "by the user\none\nby claude\n");
    drop(lock);
    let out = stop(&repo);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(changed(&repo, "HEAD"), "a.txt", "{err}");
    assert_eq!(repo.git(&["show", "HEAD:a.txt"]), "one\nby claude\n");
    assert_eq!(repo.read("a.txt"), "by the user\none\nby claude\n");
    assert_eq!(repo.status().trim_end(), " M a.txt");
    assert!(note(&repo, "HEAD").contains("\"tool\": \"claude\""));
    let left =
        std::fs::read_dir(repo.path().join(".git/clada/agent-pending")).map_or(0, |d| d.count());
    assert_eq!(left, 0, "folded records are removed");
    repo.assert_fsck();
}

/// Set-aside records wait for a hook of their own branch, and one that cannot be read is
/// moved out of the way (kept for the user, never read again) instead of being tried by
/// every hook.
#[test]
fn set_aside_records_wait_for_their_branch_and_an_unreadable_one_is_moved_aside() {
    let repo = TestRepo::with_files(&[("a.txt", "one\n"), ("b.txt", "two\n")]);
    let pending = repo.path().join(".git/clada/agent-pending");
    let names = || -> Vec<String> {
        let mut n: Vec<String> = std::fs::read_dir(&pending)
            .map(|d| {
                d.filter_map(|e| e.ok())
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        n.sort();
        n
    };
    // On branch `other`, a pre-hook finds the agent lock held and sets its record aside.
    repo.git(&["switch", "-q", "-c", "other"]);
    let lock = common::agent_fixtures::hold_agent_lock(&repo);
    let vars = [
        ("FILE", "b.txt"),
        ("ID", "toolu_other"),
        ("CONTENT", "two\nb\n"),
    ];
    let mut cmd = repo.clada_cmd();
    cmd.args(["agent-hook", "claude-code"])
        .env("GIT_CLADA_AGENT_LOCK_BUDGET_MS", "50");
    let out = spawn_fed(cmd, &payload(&repo, "pre-write", &vars))
        .wait_with_output()
        .expect("hook");
    assert!(String::from_utf8_lossy(&out.stderr).contains("set aside"));
    drop(lock);
    let other = names();
    assert_eq!(other.len(), 1, "{other:?}");
    std::fs::write(
        pending.join("000000000000000000000001-1.json"),
        "{ not a record",
    )
    .expect("write");
    // On main, a whole turn: the other branch's record waits, the damaged one is moved aside.
    repo.git(&["switch", "-q", "main"]);
    agent_edit(&repo, "write", "toolu_main", "a.txt", "one\nby claude\n");
    stop(&repo);
    assert_eq!(changed(&repo, "HEAD"), "a.txt");
    let mut expected = vec![
        "000000000000000000000001-1.json.unreadable".to_string(),
        other[0].clone(),
    ];
    expected.sort();
    assert_eq!(names(), expected);
    // Back on `other`, its record is folded in: the call's edit is the agent's.
    repo.git(&["switch", "-q", "other"]);
    repo.write("b.txt", "two\nb\n");
    hook_ok(&repo, &payload(&repo, "post-write", &vars));
    stop(&repo);
    assert_eq!(changed(&repo, "HEAD"), "b.txt");
    assert!(note(&repo, "HEAD").contains("\"tool\": \"claude\""));
    assert_eq!(
        names(),
        vec!["000000000000000000000001-1.json.unreadable".to_string()]
    );
    repo.assert_fsck();
}

/// A hook that finds the lock held and cannot set its record aside (here a file stands where
/// the folder of set-aside records goes) fails without blocking the agent and says where;
/// nothing moves, and the user's files are as they were.
#[test]
fn a_hook_that_cannot_set_its_record_aside_fails_without_blocking_and_says_where() {
    let repo = TestRepo::with_files(&[("a.txt", "one\n")]);
    std::fs::create_dir_all(repo.path().join(".git/clada")).expect("mkdir");
    std::fs::write(repo.path().join(".git/clada/agent-pending"), "in the way\n").expect("write");
    let lock = common::agent_fixtures::hold_agent_lock(&repo);
    let vars = [
        ("FILE", "a.txt"),
        ("ID", "toolu_x"),
        ("CONTENT", "one\ntwo\n"),
    ];
    let mut cmd = repo.clada_cmd();
    cmd.args(["agent-hook", "claude-code"])
        .env("GIT_CLADA_AGENT_LOCK_BUDGET_MS", "50");
    let out = spawn_fed(cmd, &payload(&repo, "pre-write", &vars))
        .wait_with_output()
        .expect("hook");
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(exit_code(&out), 1, "{err}");
    assert!(err.contains("agent-pending"), "{err}");
    drop(lock);
    assert!(repo
        .git(&["for-each-ref", "refs/clada/agent/"])
        .trim()
        .is_empty());
    assert_eq!(repo.read("a.txt"), "one\n");
    assert_eq!(repo.status(), "");
    repo.assert_fsck();
}
