//! An agent's turn as one operation (docs/agents.md, DESIGN §7.2): Claude Code's hook payloads
//! piped to the real binary around real edits, then `git clada undo`, `redo`, `undo --list`,
//! `show`, `log` and `squash --mode session`, checked with git.

use crate::common;

use std::process::Output;

use common::{exit_code, output_text, spawn_fed, TestRepo};

fn payload(repo: &TestRepo, name: &str, vars: &[(&str, &str)]) -> String {
    common::agent_fixtures::payload(repo, "claude-code", name, vars)
}

fn hook(repo: &TestRepo, input: &str) -> Output {
    let mut cmd = repo.clada_cmd();
    cmd.args(["agent-hook", "claude-code"]);
    spawn_fed(cmd, input).wait_with_output().expect("run hook")
}

fn hook_ok(repo: &TestRepo, input: &str) -> Output {
    let out = hook(repo, input);
    assert_eq!(exit_code(&out), 0, "hook failed: {}", output_text(&out));
    out
}

/// One Write or Edit tool call: PreToolUse, the edit, PostToolUse.
fn agent_edit(repo: &TestRepo, tool: &str, id: &str, file: &str, content: &str) {
    let vars = [("FILE", file), ("ID", id), ("CONTENT", content)];
    hook_ok(repo, &payload(repo, &format!("pre-{tool}"), &vars));
    repo.write(file, content);
    hook_ok(repo, &payload(repo, &format!("post-{tool}"), &vars));
}

/// One Bash tool call running `cmd` in the repository.
fn agent_bash(repo: &TestRepo, id: &str, cmd: &str) {
    let vars = [("ID", id), ("COMMAND", cmd)];
    hook_ok(repo, &payload(repo, "pre-bash", &vars));
    let sh = repo.command("sh").args(["-c", cmd]).output().expect("sh");
    assert!(
        sh.status.success(),
        "{}",
        String::from_utf8_lossy(&sh.stderr)
    );
    hook_ok(repo, &payload(repo, "post-bash", &vars));
}

fn stop(repo: &TestRepo) -> Output {
    hook_ok(repo, &payload(repo, "stop", &[]))
}

fn clada_ok(repo: &TestRepo, args: &[&str]) -> Output {
    let out = repo.clada(args);
    assert_eq!(exit_code(&out), 0, "{args:?}: {}", output_text(&out));
    out
}

/// The turn of issue 50: an Edit of `src/app.py`, a Write of `src/new_module.py`, a Bash
/// `sed -i` of `src/util.py`; the user's own edits before (`notes.md`) and during it
/// (`src/util.py`, far from the agent's line; `todo.md`).
fn the_turn(repo: &TestRepo) {
    repo.write("notes.md", "notes\nmine before the turn\n");
    agent_edit(
        repo,
        "edit",
        "toolu_1",
        "src/app.py",
        "import util\nprint('agent')\n",
    );
    agent_edit(repo, "write", "toolu_2", "src/new_module.py", "X = 1\n");
    repo.write("todo.md", "mine during the turn\n");
    repo.write("src/util.py", "def f():\n    return 1\n\n\n\n# mine\n");
    agent_bash(repo, "toolu_3", "sed -i 's/return 1/return 2/' src/util.py");
    stop(repo);
}

fn turn_repo() -> TestRepo {
    TestRepo::with_files(&[
        ("src/app.py", "import util\n"),
        ("src/util.py", "def f():\n    return 1\n\n\n\n# end\n"),
        ("notes.md", "notes\n"),
    ])
}

#[test]
fn one_undo_takes_back_the_whole_turn_and_keeps_the_users_edits() {
    let repo = turn_repo();
    let initial = repo.head();
    the_turn(&repo);
    assert_ne!(repo.head(), initial);
    let out = clada_ok(&repo, &["undo"]);
    let text = output_text(&out);
    assert_eq!(repo.head(), initial, "{text}");
    assert_eq!(repo.read("src/app.py"), "import util\n");
    assert!(!repo.exists("src/new_module.py"), "{text}");
    assert_eq!(
        repo.read("src/util.py"),
        "def f():\n    return 1\n\n\n\n# mine\n"
    );
    assert_eq!(repo.read("notes.md"), "notes\nmine before the turn\n");
    assert_eq!(repo.read("todo.md"), "mine during the turn\n");
    assert_eq!(
        repo.status().trim_end(),
        " M notes.md\n M src/util.py\n?? todo.md"
    );
    // Nothing is left for a second undo of the same turn.
    let out = repo.clada(&["undo"]);
    assert_eq!(exit_code(&out), 3, "{}", output_text(&out));
    repo.assert_fsck();
}

#[test]
fn redo_puts_the_whole_turn_back_and_undo_takes_it_again() {
    let repo = turn_repo();
    the_turn(&repo);
    let turn = repo.head();
    let after = repo.state();
    clada_ok(&repo, &["undo"]);
    assert_eq!(repo.read("src/app.py"), "import util\n");
    let undone = repo.state();
    let out = clada_ok(&repo, &["redo"]);
    assert_eq!(repo.head(), turn, "{}", output_text(&out));
    common::assert_same_user_state(&repo.state(), &after, "redo of the turn");
    assert_eq!(repo.read("src/new_module.py"), "X = 1\n");
    clada_ok(&repo, &["undo"]);
    common::assert_same_user_state(&repo.state(), &undone, "undo after redo");
    repo.assert_fsck();
}

#[test]
fn a_turn_without_a_new_file_leaves_nothing_of_the_agent_after_one_undo() {
    let repo = TestRepo::with_files(&[("a.txt", "one\ntwo\n")]);
    let initial = repo.head();
    agent_edit(&repo, "edit", "toolu_1", "a.txt", "one\nTWO\n");
    stop(&repo);
    clada_ok(&repo, &["undo"]);
    assert_eq!(repo.head(), initial);
    assert_eq!(repo.read("a.txt"), "one\ntwo\n");
    assert_eq!(repo.status(), "");
    repo.assert_fsck();
}

#[test]
fn undo_keeps_the_users_edit_after_the_turn_away_from_the_agents_lines() {
    let repo = TestRepo::with_files(&[("a.txt", "1\n2\n3\n4\n5\n6\n7\n")]);
    let initial = repo.head();
    agent_edit(
        &repo,
        "edit",
        "toolu_1",
        "a.txt",
        "1 agent\n2\n3\n4\n5\n6\n7\n",
    );
    stop(&repo);
    repo.write("a.txt", "1 agent\n2\n3\n4\n5\n6\n7 mine\n");
    clada_ok(&repo, &["undo"]);
    assert_eq!(repo.head(), initial);
    assert_eq!(repo.read("a.txt"), "1\n2\n3\n4\n5\n6\n7 mine\n");
    // Redo puts the agent's line back beside it.
    clada_ok(&repo, &["redo"]);
    assert_eq!(repo.read("a.txt"), "1 agent\n2\n3\n4\n5\n6\n7 mine\n");
    assert_eq!(repo.git(&["diff", "--numstat"]), "1\t1\ta.txt\n");
    repo.assert_fsck();
}

#[test]
fn undo_refuses_where_the_users_edit_after_the_turn_touches_the_agents_lines() {
    let repo = TestRepo::with_files(&[("a.txt", "1\n2\n3\n4\n5\n6\n7\n")]);
    agent_edit(
        &repo,
        "edit",
        "toolu_1",
        "a.txt",
        "1\n2\n3 agent\n4\n5\n6\n7\n",
    );
    stop(&repo);
    repo.write("a.txt", "1\n2\n3 agent\n4 mine\n5\n6\n7\n");
    let before = repo.state();
    let out = repo.clada(&["undo"]);
    assert_eq!(exit_code(&out), 3, "{}", output_text(&out));
    let text = output_text(&out);
    assert!(text.contains("a.txt lines 3-4"), "{text}");
    assert!(text.contains("nothing was changed"), "{text}");
    assert_eq!(repo.state(), before);
}

#[test]
fn undo_refuses_where_the_users_edit_during_the_turn_touches_the_agents_lines() {
    let repo = TestRepo::with_files(&[("a.txt", "1\n2\n3\n4\n5\n6\n7\n")]);
    agent_edit(
        &repo,
        "edit",
        "toolu_1",
        "a.txt",
        "1\n2\n3 agent\n4\n5\n6\n7\n",
    );
    // The user's edit right below the agent's line, then another agent call elsewhere.
    repo.write("a.txt", "1\n2\n3 agent\n4 mine\n5\n6\n7\n");
    agent_edit(
        &repo,
        "edit",
        "toolu_2",
        "a.txt",
        "1\n2\n3 agent\n4 mine\n5\n6\n7 agent\n",
    );
    stop(&repo);
    let before = repo.state();
    let out = repo.clada(&["undo"]);
    assert_eq!(exit_code(&out), 3, "{}", output_text(&out));
    let text = output_text(&out);
    assert!(text.contains("a.txt lines 3-4"), "{text}");
    assert_eq!(repo.state(), before);
    // Once the user's edit there is out of the way, the turn goes back whole.
    repo.write("a.txt", "1\n2\n3 agent\n4\n5\n6\n7 agent\n");
    clada_ok(&repo, &["undo"]);
    assert_eq!(repo.read("a.txt"), "1\n2\n3\n4\n5\n6\n7\n");
    repo.assert_fsck();
}

#[test]
fn undo_list_shows_uncommitted_tool_calls_then_turns() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    agent_edit(&repo, "edit", "toolu_1", "a.txt", "a by agent\n");
    stop(&repo);
    agent_edit(&repo, "write", "toolu_2", "b.txt", "b\n");
    let out = clada_ok(&repo, &["--format", "json", "undo", "--list"]);
    let list: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let undo = list["undo"].as_array().unwrap();
    assert_eq!(undo[0]["kind"], "agent-call", "{list}");
    assert!(
        undo[0]["subject"]
            .as_str()
            .unwrap()
            .contains("Write call toolu_2"),
        "{list}"
    );
    assert_eq!(undo[1]["kind"], "turn", "{list}");
    assert_eq!(undo[1]["commit"], repo.head().trim_end(), "{list}");
    assert_eq!(undo.len(), 2, "{list}");
    let human = output_text(&clada_ok(&repo, &["undo", "--list"]));
    assert!(human.contains("Write call toolu_2"), "{human}");
    assert!(human.contains("turn"), "{human}");
    // Undone, both are listed for redo, in the order redo puts them back.
    clada_ok(&repo, &["undo"]);
    clada_ok(&repo, &["undo"]);
    let out = clada_ok(&repo, &["--format", "json", "undo", "--list"]);
    let list: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let redo = list["redo"].as_array().unwrap();
    assert_eq!(redo[0]["kind"], "turn", "{list}");
    assert_eq!(redo[1]["kind"], "agent-call", "{list}");
    clada_ok(&repo, &["redo"]);
    clada_ok(&repo, &["redo"]);
    assert_eq!(repo.read("b.txt"), "b\n");
    assert_eq!(repo.read("a.txt"), "a by agent\n");
}

#[test]
fn redo_puts_back_an_undone_uncommitted_tool_call() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n"), ("user.txt", "u\n")]);
    let initial = repo.head();
    agent_edit(&repo, "edit", "toolu_1", "a.txt", "a by agent\n");
    repo.write("user.txt", "u\nmine\n");
    let out = clada_ok(&repo, &["undo"]);
    assert!(output_text(&out).contains("redo"), "{}", output_text(&out));
    assert_eq!(repo.read("a.txt"), "a\n");
    let out = clada_ok(&repo, &["redo"]);
    assert!(
        output_text(&out).contains("Edit call toolu_1"),
        "{}",
        output_text(&out)
    );
    assert_eq!(repo.read("a.txt"), "a by agent\n");
    assert_eq!(repo.read("user.txt"), "u\nmine\n");
    // The call is the agent's again: the end of the turn commits it, the user's edit stays.
    stop(&repo);
    assert_ne!(repo.head(), initial);
    assert_eq!(
        repo.git(&["diff-tree", "--no-commit-id", "--name-only", "-r", "HEAD"]),
        "a.txt\n"
    );
    assert_eq!(repo.status().trim_end(), " M user.txt");
    repo.assert_fsck();
}

#[test]
fn redo_of_a_tool_call_refuses_once_the_agent_recorded_another() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    agent_edit(&repo, "edit", "toolu_1", "a.txt", "a by agent\n");
    clada_ok(&repo, &["undo"]);
    agent_edit(&repo, "write", "toolu_2", "b.txt", "b\n");
    let before = repo.state();
    let out = repo.clada(&["redo"]);
    assert_eq!(exit_code(&out), 3, "{}", output_text(&out));
    assert!(
        output_text(&out).contains("recorded tool calls since"),
        "{}",
        output_text(&out)
    );
    assert_eq!(repo.state(), before);
}

#[test]
fn one_undo_takes_back_the_commit_git_clada_commit_made_of_a_refused_turn() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n"), ("user.txt", "u\n")]);
    let initial = repo.head();
    repo.write(
        ".git/hooks/pre-commit",
        "#!/bin/sh\necho 'lint failed' >&2\nexit 1\n",
    );
    repo.set_executable(".git/hooks/pre-commit");
    repo.write("user.txt", "u\nmine\n");
    agent_edit(&repo, "edit", "toolu_1", "a.txt", "a by agent\n");
    let out = hook(&repo, &payload(&repo, "stop", &[]));
    assert_eq!(exit_code(&out), 1, "{}", output_text(&out));
    std::fs::remove_file(repo.path().join(".git/hooks/pre-commit")).unwrap();
    clada_ok(&repo, &["commit"]);
    assert_ne!(repo.head(), initial);
    clada_ok(&repo, &["undo"]);
    assert_eq!(repo.head(), initial);
    assert_eq!(repo.read("a.txt"), "a\n");
    assert_eq!(repo.status().trim_end(), " M user.txt");
    let out = repo.clada(&["undo"]);
    assert_eq!(exit_code(&out), 3, "{}", output_text(&out));
    repo.assert_fsck();
}

#[test]
fn a_turn_commit_has_its_own_message_and_trailers() {
    let repo = turn_repo();
    the_turn(&repo);
    let msg = repo.git(&["log", "-1", "--format=%B"]);
    assert!(
        msg.starts_with("AI: edit src/app.py, create src/new_module.py (+1 more)\n\n"),
        "{msg}"
    );
    assert!(
        msg.contains("claude-code turn: 3 tool calls changed files.\n"),
        "{msg}"
    );
    assert!(
        msg.contains("- Edit src/app.py\n- Write src/new_module.py\n- Bash src/util.py\n"),
        "{msg}"
    );
    for t in [
        "Clada-Agent: claude-code\n",
        "Clada-Session: abc123\n",
        "Clada-Model: claude-sonnet-4-5\n",
        "Clada-Tool-Calls: 3\n",
    ] {
        assert!(msg.contains(t), "{t}: {msg}");
    }
    for absent in ["Applied ", "Clada-Reply", "Clada-Blocks", "blocks"] {
        assert!(!msg.contains(absent), "{absent}: {msg}");
    }
    // The stored report says nothing of "an earlier apply".
    let report = repo.git(&["notes", "--ref", "clada", "show", "HEAD"]);
    assert!(!report.contains("earlier apply"), "{report}");
    assert!(!repo
        .git_output(&["notes", "--ref", "clada-reply", "show", "HEAD"])
        .status
        .success());
}

#[test]
fn show_lists_a_turns_tool_calls_and_log_calls_it_a_turn() {
    let repo = turn_repo();
    the_turn(&repo);
    let out = clada_ok(&repo, &["--format", "json", "show", "HEAD"]);
    let show: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(show["kind"], "turn", "{show}");
    assert!(show["replies"].as_array().unwrap().is_empty(), "{show}");
    let turn = &show["turns"][0];
    assert_eq!(turn["agent"], "claude-code", "{show}");
    assert_eq!(turn["session"], "abc123", "{show}");
    assert_eq!(turn["model"], "claude-sonnet-4-5", "{show}");
    let calls: Vec<(String, String)> = turn["calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["tool"].as_str().unwrap().to_string(),
                c["paths"][0].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        calls,
        [
            ("Edit".to_string(), "src/app.py".to_string()),
            ("Write".to_string(), "src/new_module.py".to_string()),
            ("Bash".to_string(), "src/util.py".to_string()),
        ]
    );
    let human = output_text(&clada_ok(&repo, &["show"]));
    assert!(human.contains("3 tool calls:"), "{human}");
    assert!(
        human.contains("  2. Write (toolu_2): src/new_module.py"),
        "{human}"
    );
    assert!(!human.contains("--- reply ---"), "{human}");
    let out = clada_ok(&repo, &["--format", "json", "log"]);
    let log: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(log["entries"][0]["kind"], "turn", "{log}");
    assert_eq!(log["entries"][0]["agent"], "claude-code", "{log}");
    assert_eq!(log["entries"][0]["toolCalls"], 3, "{log}");
    let human = output_text(&clada_ok(&repo, &["log"]));
    assert!(
        human.contains("[claude-code turn, 3 tool calls, session abc123]"),
        "{human}"
    );
}

#[test]
fn squash_mode_session_gathers_one_agent_sessions_turns() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n"), ("b.txt", "b\n"), ("c.txt", "c\n")]);
    let initial = repo.head();
    agent_edit(&repo, "edit", "toolu_1", "a.txt", "a by agent\n");
    stop(&repo);
    agent_edit(&repo, "edit", "toolu_2", "b.txt", "b by agent\n");
    agent_edit(&repo, "edit", "toolu_3", "c.txt", "c by agent\n");
    stop(&repo);
    let tree = repo.git(&["rev-parse", "HEAD^{tree}"]);
    let out = clada_ok(&repo, &["squash", "--mode", "session"]);
    assert_eq!(
        repo.git(&["rev-parse", "HEAD~1"]).trim_end(),
        initial,
        "{}",
        output_text(&out)
    );
    assert_eq!(repo.git(&["rev-parse", "HEAD^{tree}"]), tree);
    let msg = repo.git(&["log", "-1", "--format=%B"]);
    assert!(msg.contains("Clada-Session: abc123\n"), "{msg}");
    assert!(msg.contains("Clada-Tool-Calls: 3\n"), "{msg}");
    assert_eq!(msg.matches("Clada-Agent:").count(), 1, "{msg}");
    // Both turns' calls are shown for the squash.
    let out = clada_ok(&repo, &["--format", "json", "show"]);
    let show: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(show["turns"].as_array().unwrap().len(), 2, "{show}");
    // --session names it; another session has nothing to squash.
    clada_ok(&repo, &["undo"]);
    let out = repo.clada(&["squash", "--mode", "session", "--session", "other"]);
    assert_eq!(exit_code(&out), 3, "{}", output_text(&out));
    clada_ok(
        &repo,
        &["squash", "--mode", "session", "--session", "abc123"],
    );
    assert_eq!(repo.git(&["rev-parse", "HEAD~1"]).trim_end(), initial);
    repo.assert_fsck();
}

#[test]
fn agent_subject_prompt_in_your_own_config_makes_the_subject_from_the_prompt() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let transcript = repo.home.path().join("t.jsonl");
    std::fs::write(
        &transcript,
        "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"  Make the\\u001b[31m greeting friendlier, and keep it short because the tests compare it\\nsecond line\"}}\n{\"type\":\"assistant\",\"message\":{\"model\":\"claude-sonnet-4-5\",\"content\":[]}}\n",
    )
    .unwrap();
    let with_transcript = |name: &str, vars: &[(&str, &str)]| {
        payload(&repo, name, vars).replace(
            &format!(
                "{}/claude-code/transcript.jsonl",
                common::agent_fixtures::FIXTURES
            ),
            &transcript.display().to_string(),
        )
    };
    let edit = |id: &str, content: &str| {
        let vars = [("FILE", "a.txt"), ("ID", id), ("CONTENT", content)];
        hook_ok(&repo, &with_transcript("pre-edit", &vars));
        repo.write("a.txt", content);
        hook_ok(&repo, &with_transcript("post-edit", &vars));
    };
    // A repository's file cannot put prompts into commits.
    repo.write(".clada.yml", "agent:\n  subject: prompt\n");
    repo.git(&["add", ".clada.yml"]);
    repo.git(&["commit", "-qm", "config"]);
    edit("toolu_1", "a by agent\n");
    hook_ok(&repo, &with_transcript("stop", &[]));
    assert_eq!(repo.subject("HEAD").trim_end(), "AI: edit a.txt");
    repo.user_config("agent:\n  subject: prompt\n");
    edit("toolu_2", "a by agent again\n");
    hook_ok(&repo, &with_transcript("stop", &[]));
    let subject = repo.subject("HEAD");
    let subject = subject.trim_end();
    assert_eq!(
        subject,
        "AI: Make the[31m greeting friendlier, and keep it short because the…"
    );
    assert!(subject.chars().count() <= 72, "{subject}");
}

#[test]
fn a_turn_the_pre_commit_hook_refuses_names_the_hook_and_its_output() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let initial = repo.head();
    repo.write(
        ".git/hooks/pre-commit",
        "#!/bin/sh\nprintf 'ruff: E501 line too long\\033]0;pwned\\007\\n' >&2\nexit 1\n",
    );
    repo.set_executable(".git/hooks/pre-commit");
    agent_edit(&repo, "edit", "toolu_1", "a.txt", "a by agent\n");
    let out = hook(&repo, &payload(&repo, "stop", &[]));
    assert_eq!(exit_code(&out), 1, "non-blocking, not 2");
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(err.contains("pre-commit"), "{err}");
    assert!(err.contains("ruff: E501 line too long"), "{err}");
    // The hook's output is escaped, not passed to the terminal.
    assert!(!err.contains('\u{1b}') && !err.contains('\u{7}'), "{err:?}");
    assert!(err.contains("\\x1b]0;pwned"), "{err}");
    // One account of what happened to the changes, and no word of an earlier apply.
    assert!(
        err.contains("stay in the worktree as pending AI changes")
            && err.contains("`git clada commit`"),
        "{err}"
    );
    assert!(
        !err.contains("earlier apply") && !err.contains("next apply"),
        "{err}"
    );
    assert_eq!(repo.head(), initial);
    assert_eq!(repo.read("a.txt"), "a by agent\n");
}

#[test]
fn one_undo_takes_back_an_ignored_file_the_turn_wrote_and_redo_writes_it_again() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n"), (".gitignore", ".env\n")]);
    let initial = repo.head();
    agent_edit(&repo, "write", "toolu_1", ".env", "API_KEY=x\n");
    agent_edit(&repo, "edit", "toolu_2", "a.txt", "a by agent\n");
    stop(&repo);
    let turn = repo.head();
    clada_ok(&repo, &["undo"]);
    assert_eq!(repo.head(), initial);
    assert!(!repo.exists(".env"));
    assert_eq!(repo.read("a.txt"), "a\n");
    clada_ok(&repo, &["redo"]);
    assert_eq!(repo.head(), turn);
    assert_eq!(repo.read(".env"), "API_KEY=x\n");
    assert_eq!(repo.status(), "");
    repo.assert_fsck();
}

/// A turn's pending record is its commit's own once the commit takes it: after a day of
/// turns no pending record is left on the branch (it used to stay, nesting every taken
/// record under the next), and undo and redo of three turns still walk them one by one.
#[test]
fn turn_commits_leave_no_pending_record_behind() {
    let repo = TestRepo::with_files(&[("a.txt", "1\n2\n3\n")]);
    let initial = repo.head();
    let pending = || {
        repo.git_output(&["rev-parse", "--verify", "-q", "refs/clada/pending/main"])
            .status
            .success()
    };
    for (n, content) in ["1a\n2\n3\n", "1a\n2b\n3\n", "1a\n2b\n3c\n"]
        .iter()
        .enumerate()
    {
        agent_edit(&repo, "edit", &format!("toolu_{n}"), "a.txt", content);
        stop(&repo);
        assert!(!pending(), "turn {n} left a pending record");
    }
    let third = repo.head();
    for _ in 0..3 {
        clada_ok(&repo, &["undo"]);
        assert!(!pending(), "an undo left a pending record");
    }
    assert_eq!(repo.head(), initial);
    assert_eq!(repo.read("a.txt"), "1\n2\n3\n");
    for _ in 0..3 {
        clada_ok(&repo, &["redo"]);
        assert!(!pending(), "a redo left a pending record");
    }
    assert_eq!(repo.head(), third);
    assert_eq!(repo.read("a.txt"), "1a\n2b\n3c\n");
    assert_eq!(repo.status(), "");
    repo.assert_fsck();
}
