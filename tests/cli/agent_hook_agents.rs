//! `git clada agent-hook` for Cursor, Gemini CLI and Codex: `install`/`uninstall` in each
//! agent's own settings file, and each agent's payloads (tests/fixtures/agent-hooks/, each
//! citing the documentation it follows) piped to the real binary around real edits in real
//! repositories: one AI commit per turn attributed to that agent, the user's edits left
//! uncommitted; Cursor's older `afterFileEdit`, an edit reported twice, and git-ai installed
//! beside git-clada. The turns recorded from the real Claude Code, Codex and Gemini CLI
//! (`<agent>/recorded/`, written by tests/cli/real_agents.rs) are replayed payload by payload.

use crate::common;

use std::process::Output;

use common::{exit_code, spawn_fed, TestRepo};

/// A fixture of `agent` with its placeholders filled in (JSON-escaped values).
fn payload(repo: &TestRepo, agent: &str, name: &str, vars: &[(&str, &str)]) -> String {
    common::agent_fixtures::payload(repo, agent, name, vars)
}

/// Runs `git clada agent-hook AGENT` with `input`; it must not fail.
fn hook(repo: &TestRepo, agent: &str, input: &str) -> Output {
    let mut cmd = repo.clada_cmd();
    cmd.args(["agent-hook", agent]);
    let out = spawn_fed(cmd, input).wait_with_output().expect("run hook");
    assert_eq!(
        exit_code(&out),
        0,
        "hook failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn note(repo: &TestRepo, rev: &str) -> String {
    repo.git(&["notes", "--ref", "ai", "show", rev])
}

fn changed(repo: &TestRepo, rev: &str) -> String {
    repo.git(&["diff-tree", "--no-commit-id", "--name-only", "-r", rev])
        .trim_end()
        .to_string()
}

/// `git clada agent-hook ACTION AGENT FLAGS`, with no agent's configuration folder taken
/// from the environment (the test's HOME is the user's).
fn settings_cmd(repo: &TestRepo, action: &str, agent: &str, flags: &[&str]) -> Output {
    let mut cmd = repo.clada_cmd();
    for var in ["CLAUDE_CONFIG_DIR", "GEMINI_CLI_HOME", "CODEX_HOME"] {
        cmd.env_remove(var);
    }
    cmd.args(["agent-hook", action, agent]).args(flags);
    cmd.output().expect("run git-clada")
}

/// The commands of the handlers of `event` in a settings file of either shape.
fn commands(doc: &serde_json::Value, event: &str) -> Vec<String> {
    let mut out = Vec::new();
    for entry in doc["hooks"][event].as_array().into_iter().flatten() {
        if let Some(c) = entry["command"].as_str() {
            out.push(c.to_string());
        }
        for h in entry["hooks"].as_array().into_iter().flatten() {
            if let Some(c) = h["command"].as_str() {
                out.push(c.to_string());
            }
        }
    }
    out
}

fn read_json(path: &std::path::Path) -> serde_json::Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path:?}: {e}: {text}"))
}

/// Install into the user's file (the default) next to the user's own hook, twice; the
/// committed file with the guard; `--project-local` refused; uninstall leaves the user's.
fn check_install(agent: &str, user_file: &str, shared_file: &str, events: &[&str], flat: bool) {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let user = repo.home.path().join(user_file);
    std::fs::create_dir_all(user.parent().unwrap()).unwrap();
    let theirs = match flat {
        true => format!(
            r#"{{"version":1,"hooks":{{"{}":[{{"command":"./audit.sh"}}]}}}}"#,
            events[1]
        ),
        false => format!(
            r#"{{"theme":"dark","hooks":{{"{}":[{{"matcher":"write_file","hooks":[{{"type":"command","command":"./audit.sh"}}]}}]}}}}"#,
            events[1]
        ),
    };
    std::fs::write(&user, &theirs).unwrap();
    let out = settings_cmd(&repo, "install", agent, &[]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    let once = std::fs::read_to_string(&user).unwrap();
    let out = settings_cmd(&repo, "install", agent, &["--user"]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(&user).unwrap(), once, "idempotent");
    let doc = read_json(&user);
    let ours = format!("git clada agent-hook {agent}");
    for event in events {
        assert!(
            commands(&doc, event).contains(&ours),
            "{agent} {event}: {once}"
        );
    }
    assert!(commands(&doc, events[1]).contains(&"./audit.sh".to_string()));
    if flat {
        assert_eq!(doc["version"], 1, "{once}");
    } else {
        let group = doc["hooks"][events[0]]
            .as_array()
            .unwrap()
            .iter()
            .find(|g| g["hooks"][0]["command"] == ours.as_str())
            .expect("our group");
        assert_eq!(group["matcher"], "*", "{once}");
    }

    let out = settings_cmd(&repo, "uninstall", agent, &[]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    let original: serde_json::Value = serde_json::from_str(&theirs).unwrap();
    assert_eq!(read_json(&user), original);

    let out = settings_cmd(&repo, "install", agent, &["--shared"]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    let shared = read_json(&repo.path().join(shared_file));
    let guarded = format!("command -v git-clada >/dev/null || exit 0; {ours}");
    for event in events {
        assert_eq!(
            commands(&shared, event),
            std::slice::from_ref(&guarded),
            "{agent} {event}"
        );
    }

    let out = settings_cmd(&repo, "install", agent, &["--project-local"]);
    assert_eq!(exit_code(&out), 2, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("has no personal settings file for one project"),
        "{}",
        stderr(&out)
    );
    // Only the committed file was written in the repository.
    assert_eq!(repo.status(), format!("?? {shared_file}\n"));
}

#[test]
fn install_cursor_writes_its_hooks_json_flat_with_version_1() {
    check_install(
        "cursor",
        ".cursor/hooks.json",
        ".cursor/hooks.json",
        &[
            "preToolUse",
            "postToolUse",
            "postToolUseFailure",
            "afterFileEdit",
            "stop",
        ],
        true,
    );
}

#[test]
fn install_gemini_writes_its_settings_json() {
    check_install(
        "gemini",
        ".gemini/settings.json",
        ".gemini/settings.json",
        &["BeforeTool", "AfterTool", "AfterAgent"],
        false,
    );
}

#[test]
fn install_codex_writes_its_hooks_json() {
    check_install(
        "codex",
        ".codex/hooks.json",
        ".codex/hooks.json",
        &["PreToolUse", "PostToolUse", "Stop"],
        false,
    );
}

/// One Cursor Write call: preToolUse, the edit, postToolUse.
fn cursor_write(repo: &TestRepo, id: &str, file: &str, content: &str) {
    let vars = [("FILE", file), ("ID", id), ("CONTENT", content)];
    hook(
        repo,
        "cursor",
        &payload(repo, "cursor", "pre-tool-use", &vars),
    );
    repo.write(file, content);
    hook(
        repo,
        "cursor",
        &payload(repo, "cursor", "post-tool-use", &vars),
    );
}

/// The turn's commit holds `files` only, attributed to `tool`; `user` stays modified.
fn assert_turn(repo: &TestRepo, initial: &str, files: &str, tool: &str, user: &str) {
    assert_eq!(
        repo.git(&["rev-parse", "HEAD~1"]).trim_end(),
        initial.trim_end()
    );
    assert!(
        repo.subject("HEAD").starts_with("AI:"),
        "{}",
        repo.subject("HEAD")
    );
    assert_eq!(changed(repo, "HEAD"), files);
    assert_eq!(repo.status(), format!(" M {user}\n"));
    let log = note(repo, "HEAD");
    assert!(log.contains(&format!("\"tool\": \"{tool}\"")), "{log}");
    assert!(!log.contains(user), "{log}");
    assert_eq!(repo.git(&["for-each-ref", "refs/clada/agent/"]), "");
    repo.assert_fsck();
}

#[test]
fn cursor_turn_is_one_ai_commit_by_cursor_and_the_users_edit_stays_uncommitted() {
    let repo = TestRepo::with_files(&[("a.txt", "one\n"), ("user.txt", "mine\n")]);
    let initial = repo.head();
    cursor_write(&repo, "cur_tool_1", "a.txt", "one\nby cursor\n");
    repo.write("user.txt", "mine\nmy own edit\n");
    cursor_write(&repo, "cur_tool_2", "b.txt", "new by cursor\n");
    let out = hook(&repo, "cursor", &payload(&repo, "cursor", "stop", &[]));
    assert!(stderr(&out).contains("AI commit"), "{}", stderr(&out));
    assert_turn(&repo, &initial, "a.txt\nb.txt", "cursor", "user.txt");
    let log = note(&repo, "HEAD");
    assert!(log.contains("\"model\": \"claude-4.5-sonnet\""), "{log}");
    assert!(log.contains("\"id\": \"cur-conv-1\""), "{log}");
}

#[test]
fn gemini_turn_is_one_ai_commit_by_gemini_and_the_users_edit_stays_uncommitted() {
    let repo = TestRepo::with_files(&[("a.txt", "one\n"), ("user.txt", "mine\n")]);
    let initial = repo.head();
    let vars = [("FILE", "a.txt"), ("CONTENT", "one\nby gemini\n")];
    hook(
        &repo,
        "gemini",
        &payload(&repo, "gemini", "before-write", &vars),
    );
    repo.write("a.txt", "one\nby gemini\n");
    repo.write("user.txt", "mine\nmy own edit\n");
    hook(
        &repo,
        "gemini",
        &payload(&repo, "gemini", "after-write", &vars),
    );
    hook(
        &repo,
        "gemini",
        &payload(&repo, "gemini", "after-agent", &[]),
    );
    assert_turn(&repo, &initial, "a.txt", "gemini", "user.txt");
}

const PATCH: &str = "*** Begin Patch\n*** Update File: a.txt\n@@\n one\n+by codex\n*** Add File: src/c.txt\n+created by codex\n*** End Patch\n";

#[test]
fn codex_apply_patch_editing_two_files_is_one_ai_commit_by_codex() {
    let repo = TestRepo::with_files(&[("a.txt", "one\n"), ("user.txt", "mine\n")]);
    let initial = repo.head();
    let vars = [("PATCH", PATCH), ("ID", "call_1")];
    hook(
        &repo,
        "codex",
        &payload(&repo, "codex", "pre-apply-patch", &vars),
    );
    repo.write("a.txt", "one\nby codex\n");
    repo.write("src/c.txt", "created by codex\n");
    repo.write("user.txt", "mine\nmy own edit\n");
    hook(
        &repo,
        "codex",
        &payload(&repo, "codex", "post-apply-patch", &vars),
    );
    let out = hook(&repo, "codex", &payload(&repo, "codex", "stop", &[]));
    assert!(stderr(&out).contains("AI commit"), "{}", stderr(&out));
    assert_turn(&repo, &initial, "a.txt\nsrc/c.txt", "codex", "user.txt");
    let log = note(&repo, "HEAD");
    assert!(log.contains("a.txt\n  s_") && log.contains(" 2\n"), "{log}");
    assert!(log.contains("src/c.txt\n  s_"), "{log}");
    assert!(log.contains("\"model\": \"gpt-5.1-codex\""), "{log}");
}

/// Cursor's `afterFileEdit` of `file`, its one edit `old` → `new`.
fn after_file_edit(repo: &TestRepo, file: &str, old: &str, new: &str) -> Output {
    let vars = [("FILE", file), ("OLD", old), ("NEW", new)];
    hook(
        repo,
        "cursor",
        &payload(repo, "cursor", "after-file-edit", &vars),
    )
}

#[test]
fn cursor_after_file_edit_rebuilds_the_before_state_from_its_edits() {
    let repo = TestRepo::with_files(&[("a.txt", "1\n2\n3\n"), ("user.txt", "mine\n")]);
    let initial = repo.head();
    // The user's own uncommitted line in a.txt, before the agent's edit of that file.
    repo.write("a.txt", "1 user\n2\n3\n");
    repo.write("a.txt", "1 user\n2\n3 cursor\n");
    let out = after_file_edit(&repo, "a.txt", "3\n", "3 cursor\n");
    assert!(!stderr(&out).contains("not attributed"), "{}", stderr(&out));
    hook(&repo, "cursor", &payload(&repo, "cursor", "stop", &[]));
    assert_eq!(
        repo.git(&["rev-parse", "HEAD~1"]).trim_end(),
        initial.trim_end()
    );
    // Only the agent's line is committed; the user's stays uncommitted.
    assert_eq!(repo.git(&["show", "HEAD:a.txt"]), "1\n2\n3 cursor\n");
    assert_eq!(repo.read("a.txt"), "1 user\n2\n3 cursor\n");
    let log = note(&repo, "HEAD");
    assert!(log.contains("a.txt\n  s_") && log.contains(" 3\n"), "{log}");
    assert!(log.contains("\"tool\": \"cursor\""), "{log}");
    repo.assert_fsck();
}

#[test]
fn cursor_after_file_edit_that_does_not_rebuild_exactly_is_not_attributed() {
    let repo = TestRepo::with_files(&[("a.txt", "x\nx\n")]);
    let initial = repo.head();
    // The edit's new text is found twice: which one the agent wrote cannot be told.
    repo.write("a.txt", "x\nx\nx\n");
    let out = after_file_edit(&repo, "a.txt", "", "x\n");
    assert!(
        stderr(&out).contains("not attributed") && stderr(&out).contains("a.txt"),
        "{}",
        stderr(&out)
    );
    let out = hook(&repo, "cursor", &payload(&repo, "cursor", "stop", &[]));
    assert!(!stderr(&out).contains("AI commit"), "{}", stderr(&out));
    assert_eq!(repo.head(), initial);
    assert_eq!(repo.status(), " M a.txt\n");
    assert_eq!(repo.read("a.txt"), "x\nx\nx\n");
}

#[test]
fn one_cursor_edit_reported_by_cursors_and_claude_codes_hooks_is_recorded_once() {
    let repo = TestRepo::with_files(&[("a.txt", "one\n")]);
    let initial = repo.head();
    let vars = [
        ("FILE", "a.txt"),
        ("ID", "cur_tool_1"),
        ("CONTENT", "one\ntwo\n"),
    ];
    let p = |name: &str| payload(&repo, "cursor", name, &vars);
    // Cursor runs its own hooks and Claude Code's settings' hooks (concurrently: the
    // Claude-shaped copy of preToolUse can come after the edit).
    hook(&repo, "cursor", &p("pre-tool-use"));
    repo.write("a.txt", "one\ntwo\n");
    hook(&repo, "claude-code", &p("claude-pre-tool-use"));
    let own = hook(&repo, "cursor", &p("post-tool-use"));
    let copy = hook(&repo, "claude-code", &p("claude-post-tool-use"));
    let legacy = after_file_edit(&repo, "a.txt", "one\n", "one\ntwo\n");
    for out in [&own, &copy, &legacy] {
        assert!(!stderr(out).contains("not attributed"), "{}", stderr(out));
    }
    let state = repo.git(&["cat-file", "-p", "refs/clada/agent/main:state.json"]);
    let v: serde_json::Value = serde_json::from_str(&state).unwrap();
    assert_eq!(
        v["checkpoints"].as_array().map(Vec::len),
        Some(1),
        "{state}"
    );
    assert_eq!(v["open"].as_array().map(Vec::len), Some(0), "{state}");
    hook(&repo, "claude-code", &p("claude-stop"));
    hook(&repo, "cursor", &p("stop"));
    assert_eq!(
        repo.git(&["rev-parse", "HEAD~1"]).trim_end(),
        initial.trim_end()
    );
    assert_eq!(changed(&repo, "HEAD"), "a.txt");
    assert_eq!(repo.status(), "");
    let log = note(&repo, "HEAD");
    assert!(log.contains("\"tool\": \"cursor\""), "{log}");
    assert!(!log.contains("\"tool\": \"claude\""), "{log}");
}

#[test]
fn edits_no_hook_reported_are_named_at_the_end_of_the_turn_and_left_uncommitted() {
    let repo = TestRepo::with_files(&[
        ("a.txt", "1\n2\n3\n4\n5\n"),
        ("b.txt", "bee\n"),
        ("user.txt", "u\n"),
    ]);
    let initial = repo.head();
    // The user's work from before the turn: left alone and not named.
    repo.write("user.txt", "u\nmine\n");
    let patch = "*** Begin Patch\n*** Update File: a.txt\n@@\n-1\n+1 codex\n*** End Patch\n";
    let vars = [("PATCH", patch), ("ID", "call_1")];
    hook(
        &repo,
        "codex",
        &payload(&repo, "codex", "pre-apply-patch", &vars),
    );
    repo.write("a.txt", "1 codex\n2\n3\n4\n5\n");
    hook(
        &repo,
        "codex",
        &payload(&repo, "codex", "post-apply-patch", &vars),
    );
    // An apply_patch that fired no hook (openai/codex#26751): a tracked file, a new file,
    // and a.txt again after its checkpoint.
    repo.write("b.txt", "bee\nunreported\n");
    repo.write("d.txt", "unreported new file\n");
    repo.write("a.txt", "1 codex\n2\n3\n4\n5 unreported\n");
    let out = hook(&repo, "codex", &payload(&repo, "codex", "stop", &[]));
    let err = stderr(&out);
    assert!(err.contains("not attributed"), "{err}");
    assert!(err.contains("a.txt, b.txt, d.txt"), "{err}");
    assert!(!err.contains("user.txt"), "{err}");
    // Only the checkpoint's version of a.txt is committed as codex's.
    assert_eq!(
        repo.git(&["rev-parse", "HEAD~1"]).trim_end(),
        initial.trim_end()
    );
    assert_eq!(changed(&repo, "HEAD"), "a.txt");
    assert_eq!(repo.git(&["show", "HEAD:a.txt"]), "1 codex\n2\n3\n4\n5\n");
    // Nothing lost: every unreported edit is still in the worktree.
    assert_eq!(repo.read("a.txt"), "1 codex\n2\n3\n4\n5 unreported\n");
    assert_eq!(repo.read("b.txt"), "bee\nunreported\n");
    assert_eq!(repo.read("d.txt"), "unreported new file\n");
    assert_eq!(repo.status(), " M a.txt\n M b.txt\n M user.txt\n?? d.txt\n");
    let log = note(&repo, "HEAD");
    assert!(!log.contains("b.txt") && !log.contains("d.txt"), "{log}");
    assert_eq!(repo.git(&["for-each-ref", "refs/clada/agent/"]), "");
}

#[test]
fn an_unreported_edit_next_to_the_agents_lines_leaves_the_file_uncommitted_and_whole() {
    let repo = TestRepo::with_files(&[("a.txt", "one\n")]);
    let initial = repo.head();
    let patch = "*** Begin Patch\n*** Update File: a.txt\n@@\n one\n+by codex\n*** End Patch\n";
    let vars = [("PATCH", patch), ("ID", "call_1")];
    hook(
        &repo,
        "codex",
        &payload(&repo, "codex", "pre-apply-patch", &vars),
    );
    repo.write("a.txt", "one\nby codex\n");
    hook(
        &repo,
        "codex",
        &payload(&repo, "codex", "post-apply-patch", &vars),
    );
    repo.write("a.txt", "one\nby codex\nunreported\n");
    let out = hook(&repo, "codex", &payload(&repo, "codex", "stop", &[]));
    let err = stderr(&out);
    assert!(err.contains("not attributed"), "{err}");
    // The agent's one hunk touches the later edit: it is left out of the commit (named), so
    // nothing is committed as codex's and nothing is lost.
    assert!(err.contains("a.txt line 2 touches your edit"), "{err}");
    assert_eq!(repo.head(), initial);
    assert_eq!(repo.read("a.txt"), "one\nby codex\nunreported\n");
    assert_eq!(repo.status(), " M a.txt\n");
    // It stays recorded as codex's until someone commits it.
    let refs = repo.git(&["for-each-ref", "--format=%(refname)", "refs/clada/"]);
    assert_eq!(refs, "refs/clada/agent/main\n");
}

#[test]
fn install_beside_git_ai_hooks_says_so() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let file = repo.home.path().join(".claude/settings.json");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    // git-ai's installer's shape (agent-hooks.md §4.1, §4.2).
    let git_ai = r#"{"hooks":{"PostToolUse":[{"matcher":"*","hooks":[{"type":"command","command":"/usr/local/bin/git-ai checkpoint claude --hook-input stdin"}]}]}}"#;
    std::fs::write(&file, git_ai).unwrap();
    let out = settings_cmd(&repo, "install", "claude-code", &[]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("git-ai is installed too") && err.contains("PostToolUse"),
        "{err}"
    );
    assert!(err.contains("refs/notes/ai"), "{err}");
    // Its hooks stay; ours are added.
    let doc = read_json(&file);
    let post = commands(&doc, "PostToolUse");
    assert!(
        post.iter().any(|c| c.contains("git-ai checkpoint")),
        "{post:?}"
    );
    assert!(
        post.contains(&"git clada agent-hook claude-code".to_string()),
        "{post:?}"
    );
}

#[test]
fn with_git_ai_recording_the_repository_the_turn_commit_leaves_refs_notes_ai_to_it() {
    let repo = TestRepo::with_files(&[("a.txt", "one\n")]);
    let initial = repo.head();
    // git-ai's working logs (agent-hooks.md §4.1: .git/ai/working_logs/<base_commit>/).
    std::fs::create_dir_all(repo.path().join(".git/ai/working_logs")).unwrap();
    cursor_write(&repo, "cur_tool_1", "a.txt", "one\nby cursor\n");
    let out = hook(&repo, "cursor", &payload(&repo, "cursor", "stop", &[]));
    let err = stderr(&out);
    assert!(err.contains("AI commit"), "{err}");
    assert!(
        err.contains("left to it") && err.contains(".git/ai"),
        "{err}"
    );
    assert_eq!(
        repo.git(&["rev-parse", "HEAD~1"]).trim_end(),
        initial.trim_end()
    );
    assert_eq!(changed(&repo, "HEAD"), "a.txt");
    assert!(repo.subject("HEAD").starts_with("AI:"));
    let notes = repo.git_output(&["notes", "--ref", "ai", "list"]);
    assert_eq!(String::from_utf8_lossy(&notes.stdout), "", "no log written");
    assert_eq!(repo.git(&["for-each-ref", "refs/notes/ai"]), "");
    repo.assert_fsck();
}

/// A Claude Code Edit of `file` to `content`, with a user's formatter hook rewriting the file
/// to `formatted` before our PostToolUse hashes it (`first`) or after.
fn edit_with_formatter(repo: &TestRepo, file: &str, content: &str, formatted: &str, first: bool) {
    let vars = [("FILE", file), ("ID", "toolu_1"), ("CONTENT", content)];
    hook(
        repo,
        "claude-code",
        &payload(repo, "claude-code", "pre-edit", &vars),
    );
    repo.write(file, content);
    if first {
        repo.write(file, formatted);
    }
    hook(
        repo,
        "claude-code",
        &payload(repo, "claude-code", "post-edit", &vars),
    );
    if !first {
        repo.write(file, formatted);
    }
}

#[test]
fn a_formatter_that_ran_before_our_post_tool_use_counts_as_the_agents() {
    let repo = TestRepo::with_files(&[("a.js", "let a = 1;\n")]);
    let initial = repo.head();
    edit_with_formatter(
        &repo,
        "a.js",
        "let a = 1;\nlet b=2\n",
        "let a = 1;\nlet b = 2;\n",
        true,
    );
    let out = hook(
        &repo,
        "claude-code",
        &payload(&repo, "claude-code", "stop", &[]),
    );
    assert!(!stderr(&out).contains("not attributed"), "{}", stderr(&out));
    assert_eq!(
        repo.git(&["rev-parse", "HEAD~1"]).trim_end(),
        initial.trim_end()
    );
    assert_eq!(repo.git(&["show", "HEAD:a.js"]), "let a = 1;\nlet b = 2;\n");
    assert_eq!(repo.status(), "");
    let log = note(&repo, "HEAD");
    assert!(log.contains("a.js\n  s_") && log.contains(" 2\n"), "{log}");
}

#[test]
fn a_formatter_that_ran_after_our_post_tool_use_is_not_the_agents_and_nothing_is_lost() {
    let repo = TestRepo::with_files(&[("a.js", "let a=1\nx\ny\nz\n")]);
    let initial = repo.head();
    // The formatter rewrites a line far from the agent's: that line stays uncommitted.
    edit_with_formatter(
        &repo,
        "a.js",
        "let a=1\nx\ny\nz\nlet b = 2;\n",
        "let a = 1;\nx\ny\nz\nlet b = 2;\n",
        false,
    );
    let out = hook(
        &repo,
        "claude-code",
        &payload(&repo, "claude-code", "stop", &[]),
    );
    assert!(
        stderr(&out).contains("not attributed") && stderr(&out).contains("a.js"),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        repo.git(&["rev-parse", "HEAD~1"]).trim_end(),
        initial.trim_end()
    );
    assert_eq!(
        repo.git(&["show", "HEAD:a.js"]),
        "let a=1\nx\ny\nz\nlet b = 2;\n"
    );
    assert_eq!(repo.read("a.js"), "let a = 1;\nx\ny\nz\nlet b = 2;\n");
    assert_eq!(repo.git(&["diff", "--numstat"]), "1\t1\ta.js\n");

    // Rewriting the agent's own line: the two cannot be told apart, the file stays whole.
    let repo = TestRepo::with_files(&[("a.js", "let a = 1;\n")]);
    let initial = repo.head();
    edit_with_formatter(
        &repo,
        "a.js",
        "let a = 1;\nlet b=2\n",
        "let a = 1;\nlet b = 2;\n",
        false,
    );
    let out = hook(
        &repo,
        "claude-code",
        &payload(&repo, "claude-code", "stop", &[]),
    );
    assert!(stderr(&out).contains("not attributed"), "{}", stderr(&out));
    assert_eq!(repo.head(), initial);
    assert_eq!(repo.read("a.js"), "let a = 1;\nlet b = 2;\n");
    assert_eq!(repo.status(), " M a.js\n");
}

#[test]
fn with_git_ai_the_users_commit_of_the_agents_lines_gets_no_log_from_git_clada() {
    let mut repo = TestRepo::with_files(&[("a.txt", "one\n")]);
    repo.env.push(("PATH".into(), common::path_with_clada(&[])));
    let out = repo.clada(&["hooks", "install"]);
    assert_eq!(exit_code(&out), 0, "{}", common::output_text(&out));
    std::fs::create_dir_all(repo.path().join(".git/ai/working_logs")).unwrap();
    cursor_write(&repo, "cur_tool_1", "a.txt", "one\nby cursor\n");
    // git-clada's post-commit hook runs here, and the next hook catches up too.
    repo.git(&["commit", "-qam", "my commit"]);
    hook(&repo, "cursor", &payload(&repo, "cursor", "stop", &[]));
    assert_eq!(repo.subject("HEAD").trim_end(), "my commit");
    assert_eq!(repo.git(&["for-each-ref", "refs/notes/ai"]), "");
    assert_eq!(repo.status(), "");
}

/// Cursor's `afterFileEdit` while another hook holds the agent lock past the wait: a
/// non-blocking error (exit 1, never 2) that says what and what to do, and nothing recorded —
/// the edit stays in the worktree, uncommitted and unattributed, and the next turn's commit
/// does not take it.
#[test]
fn cursor_after_file_edit_with_the_agent_lock_held_fails_without_blocking_or_recording() {
    let repo = TestRepo::with_files(&[("a.txt", "1\n2\n")]);
    let initial = repo.head();
    let lock = common::agent_fixtures::hold_agent_lock(&repo);
    repo.write("a.txt", "1\n2 cursor\n");
    let vars = [("FILE", "a.txt"), ("OLD", "2\n"), ("NEW", "2 cursor\n")];
    let mut cmd = repo.clada_cmd();
    cmd.args(["agent-hook", "cursor"])
        .env("GIT_CLADA_LOCK_WAIT_MS", "200");
    let out = spawn_fed(cmd, &payload(&repo, "cursor", "after-file-edit", &vars))
        .wait_with_output()
        .expect("run hook");
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(exit_code(&out), 1, "{err}");
    assert!(err.contains("another git-clada agent hook"), "{err}");
    assert!(err.contains("is not recorded: the edit of"), "{err}");
    assert!(err.contains("a.txt stays in the worktree"), "{err}");
    assert!(repo
        .git(&["for-each-ref", "refs/clada/agent/"])
        .trim()
        .is_empty());
    drop(lock);
    hook(&repo, "cursor", &payload(&repo, "cursor", "stop", &[]));
    assert_eq!(repo.head(), initial, "an unrecorded edit is not committed");
    assert_eq!(repo.read("a.txt"), "1\n2 cursor\n");
    assert_eq!(repo.status().trim_end(), " M a.txt");
    repo.assert_fsck();
}

/// A recorded turn replayed: each payload the CLI sent (tests/fixtures/agent-hooks/AGENT/
/// recorded/, in the order it sent them), with the files the call wrote written before the
/// payload that reports it, as the CLI wrote them.
fn replay(repo: &TestRepo, agent: &str, turn: &[(&str, &[(&str, &str)])], vars: &[(&str, &str)]) {
    for (name, writes) in turn {
        for (file, content) in *writes {
            repo.write(file, content);
        }
        // Each call's own id (`{ID}`): its label.
        let id = name.split('.').nth(1).unwrap_or("none");
        let mut all = vars.to_vec();
        all.push(("ID", id));
        let out = hook(
            repo,
            agent,
            &payload(repo, agent, &format!("recorded/{name}"), &all),
        );
        assert!(
            !stderr(&out).contains("not attributed"),
            "{agent} {name}: {}",
            stderr(&out)
        );
    }
}

const APP: &str = "one\ntwo\nthree\nfour\nfive\nsix\n";
const APP_EDITED: &str = "one\ntwo\nthree\nfour\nfive (agent)\nsix\n";
const UTIL_SED: &str = "alpha\nbeta (sed)\n";
const UTIL_BOTH: &str = "alpha (sed)\nbeta (sed)\n";
const NEW: &str = "created by the agent\n";

/// The replayed turn's one AI commit: the agent's three files, the failing shell call's edit
/// included, attributed line by line to `tool` and `model`; nothing left over.
fn assert_recorded_turn(repo: &TestRepo, initial: &str, tool: &str, model: &str) {
    assert_eq!(repo.git(&["rev-parse", "HEAD~1"]).trim_end(), initial);
    assert_eq!(changed(repo, "HEAD"), "app.txt\nnew.txt\nutil.txt");
    assert_eq!(repo.git(&["show", "HEAD:app.txt"]), APP_EDITED);
    assert_eq!(repo.git(&["show", "HEAD:util.txt"]), UTIL_BOTH);
    assert_eq!(repo.status(), "");
    let log = note(repo, "HEAD");
    assert_eq!(
        common::agent_fixtures::attested(&log),
        [("app.txt", "5"), ("new.txt", "1"), ("util.txt", "1-2")]
            .map(|(f, r)| (f.to_string(), r.to_string())),
        "{log}"
    );
    assert!(log.contains(&format!("\"tool\": \"{tool}\"")), "{log}");
    assert!(log.contains(&format!("\"model\": \"{model}\"")), "{log}");
    assert_eq!(repo.git(&["for-each-ref", "refs/clada/agent/"]), "");
    repo.assert_fsck();
}

fn recorded_repo() -> (TestRepo, String) {
    let repo = TestRepo::with_files(&[("app.txt", APP), ("util.txt", "alpha\nbeta\n")]);
    let initial = repo.head();
    (repo, initial)
}

/// Claude Code 2.1.332's own payloads: the session and prompt events are taken without
/// error, a Read records nothing, and the Bash call that edited and then failed — reported by
/// PostToolUseFailure — has its edit in the turn's commit (when that event reaches git-clada).
#[test]
fn recorded_claude_code_turn_replayed_is_one_ai_commit() {
    let (repo, initial) = recorded_repo();
    let turn: &[(&str, &[(&str, &str)])] = &[
        ("SessionStart", &[]),
        ("UserPromptSubmit", &[]),
        ("PreToolUse.read", &[]),
        ("PostToolUse.read", &[]),
        ("PreToolUse.edit", &[]),
        ("PostToolUse.edit", &[("app.txt", APP_EDITED)]),
        ("PreToolUse.write", &[]),
        ("PostToolUse.write", &[("new.txt", NEW)]),
        ("PreToolUse.bash", &[]),
        ("PostToolUse.bash", &[("util.txt", UTIL_SED)]),
        ("PreToolUse.bash-fails", &[]),
        ("PostToolUseFailure.bash-fails", &[("util.txt", UTIL_BOTH)]),
    ];
    replay(&repo, "claude-code", turn, &[]);
    let state = repo.git(&["cat-file", "-p", "refs/clada/agent/main:state.json"]);
    let v: serde_json::Value = serde_json::from_str(&state).unwrap();
    // Four checkpoints (the Read changed nothing), none left open.
    assert_eq!(
        v["checkpoints"].as_array().map(Vec::len),
        Some(4),
        "{state}"
    );
    assert_eq!(v["open"].as_array().map(Vec::len), Some(0), "{state}");
    replay(
        &repo,
        "claude-code",
        &[("Stop", &[]), ("SessionEnd", &[])],
        &[],
    );
    assert_recorded_turn(&repo, &initial, "claude", "claude-sonnet-4-5");
}

/// Codex 0.171.0's own payloads: apply_patch's patch in `tool_input.command`, exec_command
/// as `Bash`, a failing shell call ended by PostToolUse; the model from the payloads.
#[test]
fn recorded_codex_turn_replayed_is_one_ai_commit() {
    let (repo, initial) = recorded_repo();
    let turn: &[(&str, &[(&str, &str)])] = &[
        ("SessionStart", &[]),
        ("UserPromptSubmit", &[]),
        ("PreToolUse.apply-patch-update", &[]),
        ("PostToolUse.apply-patch-update", &[("app.txt", APP_EDITED)]),
        ("PreToolUse.apply-patch-add", &[]),
        ("PostToolUse.apply-patch-add", &[("new.txt", NEW)]),
        ("PreToolUse.bash", &[]),
        ("PostToolUse.bash", &[("util.txt", UTIL_SED)]),
        ("PreToolUse.bash-fails", &[]),
        ("PostToolUse.bash-fails", &[("util.txt", UTIL_BOTH)]),
        ("Stop", &[]),
        ("SessionEnd", &[]),
    ];
    replay(&repo, "codex", turn, &[]);
    assert_recorded_turn(&repo, &initial, "codex", "gpt-5.5");
}

/// Gemini CLI 0.61.0's own payloads: no call ids (AfterTool pairs with the session's oldest
/// BeforeTool), a failing shell call ended by AfterTool, the model from its transcript's
/// top-level `model` (the shape its chat files have).
#[test]
fn recorded_gemini_cli_turn_replayed_is_one_ai_commit() {
    let (repo, initial) = recorded_repo();
    let transcript = repo.home.path().join("session.jsonl");
    std::fs::write(
        &transcript,
        "{\"id\":\"m1\",\"type\":\"user\",\"content\":[{\"text\":\"go\"}]}\n\
         {\"id\":\"m2\",\"type\":\"gemini\",\"content\":\"\",\"model\":\"gemini-2.5-flash\"}\n",
    )
    .unwrap();
    let turn: &[(&str, &[(&str, &str)])] = &[
        ("SessionStart", &[]),
        ("BeforeAgent", &[]),
        ("BeforeTool.replace", &[]),
        ("AfterTool.replace", &[("app.txt", APP_EDITED)]),
        ("BeforeTool.write-file", &[]),
        ("AfterTool.write-file", &[("new.txt", NEW)]),
        ("BeforeTool.shell", &[]),
        ("AfterTool.shell", &[("util.txt", UTIL_SED)]),
        ("BeforeTool.shell-fails", &[]),
        ("AfterTool.shell-fails", &[("util.txt", UTIL_BOTH)]),
        ("AfterAgent", &[]),
        ("SessionEnd", &[]),
    ];
    let path = transcript.display().to_string();
    replay(&repo, "gemini", turn, &[("TRANSCRIPT", &path)]);
    assert_recorded_turn(&repo, &initial, "gemini", "gemini-2.5-flash");
}

/// The end of a turn drops the session's tool calls that never ended. Codex 0.171.0 fires
/// only PreToolUse for an apply_patch that fails (seen under the real CLI,
/// tests/cli/real_agents.rs): nothing is left open in `refs/clada/agent/<branch>` after the turn.
#[test]
fn a_codex_apply_patch_that_failed_leaves_nothing_open_after_the_turn() {
    let (repo, initial) = recorded_repo();
    let turn: &[(&str, &[(&str, &str)])] = &[
        ("PreToolUse.apply-patch-update", &[]),
        ("PostToolUse.apply-patch-update", &[("app.txt", APP_EDITED)]),
        // The patch did not apply: no PostToolUse, nothing written.
        ("PreToolUse.apply-patch-add", &[]),
        ("Stop", &[]),
    ];
    replay(&repo, "codex", turn, &[]);
    assert_eq!(repo.git(&["rev-parse", "HEAD~1"]).trim_end(), initial);
    assert_eq!(changed(&repo, "HEAD"), "app.txt");
    assert_eq!(repo.git(&["for-each-ref", "refs/clada/agent/"]), "");
    repo.assert_fsck();
}

/// Gemini CLI's BeforeTool of a call that then never ran (cancelled) has no AfterTool, and
/// its calls pair in arrival order: once the turn is over, that before-state is dropped, so
/// the next turn's AfterTool pairs with its own call's BeforeTool.
#[test]
fn a_gemini_call_that_never_ended_does_not_pair_with_the_next_turns_call() {
    let (repo, initial) = recorded_repo();
    let transcript = repo.home.path().join("session.jsonl");
    std::fs::write(&transcript, "").unwrap();
    let path = transcript.display().to_string();
    let vars = [("TRANSCRIPT", path.as_str())];
    let turn: &[(&str, &[(&str, &str)])] = &[("BeforeTool.write-file", &[]), ("AfterAgent", &[])];
    replay(&repo, "gemini", turn, &vars);
    assert_eq!(repo.head(), initial);
    assert_eq!(repo.git(&["for-each-ref", "refs/clada/agent/"]), "");
    let turn: &[(&str, &[(&str, &str)])] = &[
        ("BeforeTool.replace", &[]),
        ("AfterTool.replace", &[("app.txt", APP_EDITED)]),
        ("AfterAgent", &[]),
    ];
    replay(&repo, "gemini", turn, &vars);
    assert_eq!(repo.git(&["rev-parse", "HEAD~1"]).trim_end(), initial);
    assert_eq!(changed(&repo, "HEAD"), "app.txt");
    assert_eq!(repo.status(), "");
    assert_eq!(repo.git(&["for-each-ref", "refs/clada/agent/"]), "");
    repo.assert_fsck();
}
