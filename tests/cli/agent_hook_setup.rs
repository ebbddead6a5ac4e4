//! `git clada agent-hook install|uninstall|status` and the hook's own set-up duties, in real
//! repositories with the agents' settings files in a temporary HOME: every event that ends
//! a tool call is registered (a failed call's edit is the agent's), an older install gains
//! the events it lacks, Codex's trust is written for git-clada's handlers only (comments of
//! config.toml kept, a broken file refused), Claude Code's personal project file is ignored
//! through info/exclude, `status` says what is in place, trusted and heard from, a
//! read-only tool's hook returns before reading anything, and the model recorded with the
//! agent's calls wins over the configured `provenance.model`.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Output;

use common::{exit_code, spawn_fed, TestRepo};

fn payload(repo: &TestRepo, name: &str, vars: &[(&str, &str)]) -> String {
    common::agent_fixtures::payload(repo, "claude-code", name, vars)
}

/// A payload whose transcript names no model (the file does not exist).
fn without_transcript(payload: &str) -> String {
    let transcript = format!(
        "{}/claude-code/transcript.jsonl",
        common::agent_fixtures::FIXTURES
    );
    payload.replace(&transcript, "/nonexistent/transcript.jsonl")
}

fn hook(repo: &TestRepo, agent: &str, input: &str) -> Output {
    let mut cmd = repo.clada_cmd();
    cmd.args(["agent-hook", agent]);
    spawn_fed(cmd, input).wait_with_output().expect("run hook")
}

fn hook_ok(repo: &TestRepo, input: &str) -> Output {
    let out = hook(repo, "claude-code", input);
    assert_eq!(exit_code(&out), 0, "hook failed: {}", stderr(&out));
    out
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn note(repo: &TestRepo, rev: &str) -> String {
    repo.git(&["notes", "--ref", "ai", "show", rev])
}

/// `git clada agent-hook ARGS`, with no agent's folder taken from the environment and
/// `path` (when given) as the whole PATH git-clada sees (to choose the `codex` it finds).
fn clada(repo: &TestRepo, args: &[&str], path: Option<&str>) -> Output {
    let mut cmd = repo.clada_cmd();
    for var in ["CLAUDE_CONFIG_DIR", "GEMINI_CLI_HOME", "CODEX_HOME"] {
        cmd.env_remove(var);
    }
    if let Some(p) = path {
        cmd.env("PATH", p);
    }
    cmd.arg("agent-hook").args(args);
    cmd.output().expect("run git-clada")
}

fn read_json(path: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path:?}: {e}: {text}"))
}

/// The matcher of each group of `event` holding git-clada's handler (`None`: no matcher).
fn our_groups(doc: &serde_json::Value, event: &str) -> Vec<Option<String>> {
    doc["hooks"][event]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|g| {
            g["hooks"]
                .as_array()
                .into_iter()
                .flatten()
                .any(|h| h["command"] == "git clada agent-hook claude-code")
        })
        .map(|g| g["matcher"].as_str().map(str::to_string))
        .collect()
}

const CLAUDE_EVENTS: [(&str, Option<&str>); 6] = [
    ("PreToolUse", Some("*")),
    ("PostToolUse", Some("*")),
    ("PostToolUseFailure", Some("*")),
    ("PermissionDenied", Some("*")),
    ("Stop", None),
    ("SessionStart", None),
];

#[test]
fn install_registers_every_event_that_ends_a_tool_call_and_session_start() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let out = clada(&repo, &["install", "claude-code"], None);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    let doc = read_json(&repo.home.path().join(".claude/settings.json"));
    for (event, matcher) in CLAUDE_EVENTS {
        assert_eq!(
            our_groups(&doc, event),
            vec![matcher.map(str::to_string)],
            "{event}: {doc}"
        );
    }
}

/// `sed -i … && pytest` with a failing test: Claude Code ends the call with
/// PostToolUseFailure; its edit is the agent's and the turn commits it.
#[test]
fn a_failed_bash_calls_edit_is_the_agents_and_the_turn_commits_it() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n"), ("mine.txt", "m\n")]);
    let out = clada(&repo, &["install", "claude-code"], None);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    let doc = read_json(&repo.home.path().join(".claude/settings.json"));
    assert_eq!(our_groups(&doc, "PostToolUseFailure").len(), 1, "{doc}");
    let initial = repo.head();
    repo.write("mine.txt", "m\nmy own line\n");
    let cmd = "sed -i 's/a/a fixed/' a.txt && false";
    let vars = [("ID", "toolu_f"), ("COMMAND", cmd)];
    hook_ok(&repo, &payload(&repo, "pre-bash", &vars));
    let sh = repo.command("sh").args(["-c", cmd]).output().expect("sh");
    assert!(!sh.status.success(), "the call fails");
    hook_ok(&repo, &payload(&repo, "post-bash-failure", &vars));
    hook_ok(&repo, &payload(&repo, "stop", &[]));
    assert_eq!(
        repo.git(&["rev-parse", "HEAD~1"]).trim_end(),
        initial.trim_end()
    );
    assert_eq!(
        repo.git(&["diff-tree", "--no-commit-id", "--name-only", "-r", "HEAD"]),
        "a.txt\n"
    );
    assert_eq!(repo.git(&["show", "HEAD:a.txt"]), "a fixed\n");
    assert_eq!(repo.status(), " M mine.txt\n");
    let log = note(&repo, "HEAD");
    assert!(
        log.contains("a.txt\n  s_") && log.contains("\"tool\": \"claude\""),
        "{log}"
    );
    repo.assert_fsck();
}

#[test]
fn install_again_adds_the_events_an_older_install_lacks_says_so_and_keeps_the_rest() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let file = repo.home.path().join(".claude/settings.json");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    // An install by an older git-clada, a hook of the user's after it.
    let ours = r#"{"type":"command","command":"git clada agent-hook claude-code"}"#;
    let older = format!(
        r#"{{"hooks":{{"PreToolUse":[{{"matcher":"*","hooks":[{ours}]}},{{"matcher":"Bash","hooks":[{{"type":"command","command":"./guard.sh"}}]}}],"PostToolUse":[{{"matcher":"*","hooks":[{ours}]}}],"Stop":[{{"hooks":[{ours}]}}]}}}}"#
    );
    std::fs::write(&file, &older).unwrap();
    let out = clada(&repo, &["install", "claude-code"], None);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert!(
        stderr(&out).contains(
            "added the events an older install of git-clada's hooks lacked: PostToolUseFailure, PermissionDenied, SessionStart"
        ),
        "{}",
        stderr(&out)
    );
    let doc = read_json(&file);
    // Ours stay where they were (first), the user's after them.
    assert_eq!(
        doc["hooks"]["PreToolUse"][0]["hooks"][0]["command"],
        "git clada agent-hook claude-code"
    );
    assert_eq!(
        doc["hooks"]["PreToolUse"][1]["hooks"][0]["command"],
        "./guard.sh"
    );
    for (event, matcher) in CLAUDE_EVENTS {
        assert_eq!(
            our_groups(&doc, event),
            vec![matcher.map(str::to_string)],
            "{event}"
        );
    }
    let once = std::fs::read_to_string(&file).unwrap();
    let again = clada(&repo, &["install", "claude-code"], None);
    assert_eq!(exit_code(&again), 0);
    assert!(
        !stderr(&again).contains("added the events"),
        "{}",
        stderr(&again)
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), once);

    let out = clada(&repo, &["uninstall", "claude-code"], None);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    let expected: serde_json::Value = serde_json::from_str(
        r#"{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"./guard.sh"}]}]}}"#,
    )
    .unwrap();
    assert_eq!(read_json(&file), expected);
}

/// Auto mode denied the call after its PreToolUse: the call never ran, so its before-state
/// is dropped, and an edit the user made meanwhile stays theirs.
#[test]
fn a_denied_call_leaves_no_before_state_and_records_nothing() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let vars = [("FILE", "a.txt"), ("ID", "toolu_d"), ("CONTENT", "")];
    hook_ok(&repo, &payload(&repo, "pre-edit", &vars));
    let state = || repo.git(&["cat-file", "-p", "refs/clada/agent/main:state.json"]);
    assert!(state().contains("toolu_d"), "{}", state());
    repo.write("a.txt", "a\nmine, while the prompt was open\n");
    hook_ok(&repo, &payload(&repo, "permission-denied", &vars));
    // Nothing left: the state ref goes with its last record.
    assert_eq!(repo.git(&["for-each-ref", "refs/clada/agent/"]), "");
    hook_ok(&repo, &payload(&repo, "stop", &[]));
    assert_eq!(repo.git(&["rev-list", "--count", "HEAD"]), "1\n");
    assert_eq!(repo.status(), " M a.txt\n");
}

#[test]
fn project_local_install_is_ignored_through_info_exclude_and_uninstall_removes_that_line() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let exclude = repo.path().join(".git/info/exclude");
    let before = std::fs::read_to_string(&exclude).unwrap_or_default();
    std::fs::write(&exclude, format!("{before}# mine\n*.swp")).unwrap();
    let mine = std::fs::read_to_string(&exclude).unwrap();
    for _ in 0..2 {
        let out = clada(&repo, &["install", "claude-code", "--project-local"], None);
        assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    }
    assert!(repo.path().join(".claude/settings.local.json").is_file());
    assert_eq!(
        repo.status(),
        "",
        "the personal file is neither untracked nor staged"
    );
    repo.git(&["add", "-A"]);
    assert_eq!(repo.git(&["diff", "--cached", "--name-only"]), "");
    assert_eq!(
        std::fs::read_to_string(&exclude).unwrap(),
        format!("{mine}\n/.claude/settings.local.json\n")
    );
    let out = clada(
        &repo,
        &["uninstall", "claude-code", "--project-local"],
        None,
    );
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert_eq!(
        std::fs::read_to_string(&exclude).unwrap(),
        format!("{mine}\n")
    );
    // The file is kept (it holds nothing of git-clada's now) and shows again.
    assert_eq!(repo.status(), "?? .claude/settings.local.json\n");
}

/// A directory holding a `codex` that reports `version`, first on a PATH that still finds
/// git.
fn fake_codex(repo: &TestRepo, version: &str) -> (PathBuf, String) {
    let dir = repo.home.path().join("bin");
    std::fs::create_dir_all(&dir).unwrap();
    let codex = dir.join("codex");
    std::fs::write(&codex, format!("#!/bin/sh\necho 'codex-cli {version}'\n")).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&codex, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = common::path_with_clada(std::slice::from_ref(&dir));
    (dir, path)
}

/// The trust Codex 0.171.0 computes for git-clada's handlers (its app-server's
/// `currentHash` in `hooks/list`).
const CODEX_HASHES: [(&str, &str); 3] = [
    (
        "pre_tool_use",
        "sha256:f1c932f5c2fed03e04bc3a7e02773a531c0ed30af9edb7c1ea2b9ab6302160b2",
    ),
    (
        "post_tool_use",
        "sha256:b3f022deaaf494e1a4d43f449af009b85c14b228f52945f33ed86f81ce9ea6d7",
    ),
    (
        "stop",
        "sha256:d172956d9c065adc6ab2a7b0fe6bc9d0da706544b0372a21419b3b6cca2c6187",
    ),
];

#[test]
fn install_codex_trusts_its_own_handlers_keeping_config_toml_and_uninstall_takes_exactly_that_back()
{
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let (_bin, path) = fake_codex(&repo, "0.171.0");
    let codex_home = repo.home.path().join(".codex");
    std::fs::create_dir_all(&codex_home).unwrap();
    let hooks = codex_home.join("hooks.json");
    // The user's own hook comes first: ours are the second group of PreToolUse.
    std::fs::write(
        &hooks,
        r#"{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"./guard.sh"}]}]}}"#,
    )
    .unwrap();
    let config = codex_home.join("config.toml");
    let theirs = format!(
        "# my Codex settings\nmodel = \"gpt-5\" # the default\n\n[hooks.state.\"{}:pre_tool_use:0:0\"]\n# trusted by me\ntrusted_hash = \"sha256:0000\"\n",
        hooks.display()
    );
    std::fs::write(&config, &theirs).unwrap();
    let out = clada(&repo, &["install", "codex"], Some(&path));
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert!(
        stdout(&out).contains("trusted git-clada's 3 Codex hooks"),
        "{}",
        stdout(&out)
    );
    let text = std::fs::read_to_string(&config).unwrap();
    assert!(
        text.starts_with(&theirs),
        "the user's part is kept as it was:\n{text}"
    );
    let doc: toml_edit::DocumentMut = text.parse().unwrap();
    let state = doc["hooks"]["state"].as_table().unwrap();
    assert_eq!(state.len(), 4, "{text}");
    let group = |label: &str| if label == "pre_tool_use" { 1 } else { 0 };
    for (label, hash) in CODEX_HASHES {
        let key = format!("{}:{label}:{}:0", hooks.display(), group(label));
        assert_eq!(
            state[key.as_str()]["trusted_hash"].as_str(),
            Some(hash),
            "{key}\n{text}"
        );
    }
    let again = clada(&repo, &["install", "codex"], Some(&path));
    assert_eq!(exit_code(&again), 0, "{}", stderr(&again));
    assert_eq!(
        std::fs::read_to_string(&config).unwrap(),
        text,
        "idempotent"
    );

    let out = clada(&repo, &["uninstall", "codex"], Some(&path));
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(&config).unwrap(), theirs);
    assert_eq!(
        read_json(&hooks),
        serde_json::json!({"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"./guard.sh"}]}]}})
    );
}

#[test]
fn install_codex_refuses_a_config_toml_that_does_not_parse_and_writes_nothing() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let (_bin, path) = fake_codex(&repo, "0.171.0");
    let codex_home = repo.home.path().join(".codex");
    std::fs::create_dir_all(&codex_home).unwrap();
    let config = codex_home.join("config.toml");
    std::fs::write(&config, "model = \"gpt-5\"\n[hooks\nx = 1\n").unwrap();
    let out = clada(&repo, &["install", "codex"], Some(&path));
    assert_ne!(exit_code(&out), 0);
    let err = stderr(&out);
    assert!(
        err.contains("config.toml, line 2") && err.contains("nothing was written"),
        "{err}"
    );
    assert!(!codex_home.join("hooks.json").exists());
    assert_eq!(
        std::fs::read_to_string(&config).unwrap(),
        "model = \"gpt-5\"\n[hooks\nx = 1\n"
    );
}

#[test]
fn install_codex_without_a_known_codex_prints_the_hooks_step_and_writes_no_trust() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let (_bin, path) = fake_codex(&repo, "0.150.0");
    let out = clada(&repo, &["install", "codex"], Some(&path));
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("type /hooks and trust git-clada's hooks"),
        "{}",
        stderr(&out)
    );
    assert!(
        stderr(&out).contains("codex-cli 0.150.0"),
        "{}",
        stderr(&out)
    );
    assert!(repo.home.path().join(".codex/hooks.json").is_file());
    assert!(!repo.home.path().join(".codex/config.toml").exists());

    // No codex at all on PATH: only git's folder and git-clada's.
    let git = std::process::Command::new("sh")
        .args(["-c", "command -v git"])
        .output()
        .expect("sh");
    let git = PathBuf::from(String::from_utf8_lossy(&git.stdout).trim());
    let clada_dir = Path::new(env!("CARGO_BIN_EXE_git-clada")).parent().unwrap();
    let only = format!(
        "{}:{}",
        git.parent().unwrap().display(),
        clada_dir.display()
    );
    let out = clada(&repo, &["install", "codex"], Some(&only));
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("no `codex` on PATH"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn install_codex_shared_writes_no_trust_and_says_teammates_trust_it_themselves() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let (_bin, path) = fake_codex(&repo, "0.171.0");
    let out = clada(&repo, &["install", "codex", "--shared"], Some(&path));
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("once each teammate trusts them"),
        "{}",
        stderr(&out)
    );
    assert!(repo.path().join(".codex/hooks.json").is_file());
    assert!(!repo.home.path().join(".codex/config.toml").exists());
}

#[test]
fn install_says_to_run_git_clada_hooks_install_until_it_has_run() {
    let mut repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    repo.env.push(("PATH".into(), common::path_with_clada(&[])));
    let out = clada(&repo, &["install", "gemini"], None);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("run `git clada hooks install`"),
        "{}",
        stderr(&out)
    );
    assert!(
        !repo.path().join(".git/hooks/post-commit").exists(),
        "install does not run it"
    );
    let out = repo.clada(&["hooks", "install"]);
    assert_eq!(exit_code(&out), 0);
    let out = clada(&repo, &["install", "gemini"], None);
    assert!(
        !stderr(&out).contains("git clada hooks install"),
        "{}",
        stderr(&out)
    );
}

fn status_json(repo: &TestRepo, path: Option<&str>) -> serde_json::Value {
    let out = clada(repo, &["status"], path);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    let mut cmd = repo.clada_cmd();
    for var in ["CLAUDE_CONFIG_DIR", "GEMINI_CLI_HOME", "CODEX_HOME"] {
        cmd.env_remove(var);
    }
    if let Some(p) = path {
        cmd.env("PATH", p);
    }
    let out = cmd
        .args(["--format", "json", "agent-hook", "status"])
        .output()
        .unwrap();
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", stdout(&out)))
}

fn entry<'a>(report: &'a serde_json::Value, agent: &str, scope: &str) -> &'a serde_json::Value {
    report["agents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["agent"] == agent && a["scope"] == scope)
        .unwrap_or_else(|| panic!("no {agent} {scope} in {report}"))
}

#[test]
fn status_says_per_agent_what_is_installed_trusted_and_last_heard() {
    let mut repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let (_bin, path) = fake_codex(&repo, "0.171.0");
    repo.env.push(("PATH".into(), path.clone()));
    let report = status_json(&repo, None);
    assert_eq!(report["agents"], serde_json::json!([]), "{report}");
    assert_eq!(
        report["git_hooks"]["fix"], "git clada hooks install",
        "{report}"
    );

    // Claude Code as an older git-clada installed it; Codex trusted; Gemini CLI with folder
    // trust on (its default) in a folder not trusted.
    let claude = repo.home.path().join(".claude/settings.json");
    std::fs::create_dir_all(claude.parent().unwrap()).unwrap();
    let ours = r#"{"type":"command","command":"git clada agent-hook claude-code"}"#;
    std::fs::write(
        &claude,
        format!(r#"{{"hooks":{{"PreToolUse":[{{"matcher":"*","hooks":[{ours}]}}],"PostToolUse":[{{"matcher":"*","hooks":[{ours}]}}],"Stop":[{{"hooks":[{ours}]}}]}}}}"#),
    )
    .unwrap();
    for agent in ["codex", "gemini"] {
        let out = clada(&repo, &["install", agent], None);
        assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    }
    let vars = [("FILE", "a.txt"), ("ID", "toolu_1"), ("CONTENT", "")];
    hook_ok(&repo, &payload(&repo, "pre-edit", &vars));
    let report = status_json(&repo, None);

    let c = entry(&report, "claude-code", "user");
    assert_eq!(
        c["missing_events"],
        serde_json::json!(["PostToolUseFailure", "PermissionDenied", "SessionStart"]),
        "{c}"
    );
    assert_eq!(
        c["fix"][0], "git clada agent-hook install claude-code --user",
        "{c}"
    );
    assert_eq!(c["trust"]["state"], "not-needed", "{c}");
    assert_eq!(c["last_heard"]["event"], "PreToolUse", "{c}");

    let x = entry(&report, "codex", "user");
    assert_eq!(x["missing_events"], serde_json::json!([]), "{x}");
    assert_eq!(x["trust"]["state"], "trusted", "{x}");
    assert_eq!(x["last_heard"], serde_json::Value::Null, "never heard: {x}");

    let g = entry(&report, "gemini", "user");
    assert_eq!(g["trust"]["state"], "not-trusted", "{g}");
    // Trusting the folder the way Gemini CLI records it.
    let root = std::fs::canonicalize(repo.path()).unwrap();
    std::fs::write(
        repo.home.path().join(".gemini/trustedFolders.json"),
        serde_json::json!({ root.display().to_string(): "TRUST_FOLDER" }).to_string(),
    )
    .unwrap();
    // Codex's trust taken back: only the Stop handler stays trusted.
    let config = repo.home.path().join(".codex/config.toml");
    let text = std::fs::read_to_string(&config).unwrap();
    let kept: String = text
        .split("\n\n")
        .filter(|part| !part.contains("pre_tool_use") && !part.contains("post_tool_use"))
        .collect::<Vec<_>>()
        .join("\n\n");
    std::fs::write(&config, kept).unwrap();
    let out = repo.clada(&["hooks", "install"]);
    assert_eq!(exit_code(&out), 0);

    let report = status_json(&repo, None);
    assert_eq!(
        entry(&report, "gemini", "user")["trust"]["state"],
        "trusted",
        "{report}"
    );
    let x = entry(&report, "codex", "user");
    assert_eq!(x["trust"]["state"], "partly-trusted", "{x}");
    assert!(
        x["trust"]["detail"]
            .as_str()
            .unwrap()
            .contains("PreToolUse, PostToolUse"),
        "{x}"
    );
    assert_eq!(
        report["git_hooks"]["fix"],
        serde_json::Value::Null,
        "{report}"
    );
    assert_eq!(
        report["git_hooks"]["missing"],
        serde_json::json!([]),
        "{report}"
    );

    let out = clada(&repo, &["status"], None);
    let text = stdout(&out);
    assert!(text.contains("claude-code (user settings"), "{text}");
    assert!(
        text.contains("missing:    PostToolUseFailure, PermissionDenied, SessionStart"),
        "{text}"
    );
    assert!(
        text.contains("to fix:     git clada agent-hook install claude-code --user"),
        "{text}"
    );
}

/// A read-only tool's hook (most of an agent's calls) reads neither the configuration nor
/// the repository: here a configuration that cannot be read does not trouble it, while an
/// edit tool's hook reports it.
#[test]
fn a_read_only_tools_hook_returns_before_reading_the_configuration_or_the_repository() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    repo.write(".clada.yml", "agent: [not a map\n");
    let read = payload(
        &repo,
        "pre-write",
        &[("FILE", "a.txt"), ("ID", "toolu_r"), ("CONTENT", "")],
    )
    .replace("\"Write\"", "\"Read\"");
    for input in [read.clone(), read.replace("PreToolUse", "PostToolUse")] {
        let out = hook(&repo, "claude-code", &input);
        assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
        assert_eq!(stderr(&out), "");
    }
    assert!(!repo.path().join(".git/clada").exists());
    let edit = read.replace("\"Read\"", "\"Edit\"");
    let out = hook(&repo, "claude-code", &edit);
    assert_eq!(exit_code(&out), 1, "{}", stderr(&out));
    assert!(stderr(&out).contains(".clada.yml"), "{}", stderr(&out));
}

/// Claude Code names the model only in SessionStart: with no transcript to read, that model
/// is the turn commit's, not the configured `provenance.model`.
#[test]
fn the_model_session_start_named_wins_over_the_configured_one_for_the_turn_commit() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    repo.user_config("provenance:\n  model: configured-model\n");
    let start = payload(&repo, "session-start", &[("MODEL", "claude-opus-9")]);
    let out = hook_ok(&repo, &without_transcript(&start));
    assert_eq!(
        stdout(&out),
        "",
        "SessionStart's stdout would reach the model's context"
    );
    let vars = [
        ("FILE", "a.txt"),
        ("ID", "toolu_1"),
        ("CONTENT", "a by agent\n"),
    ];
    hook_ok(
        &repo,
        &without_transcript(&payload(&repo, "pre-edit", &vars)),
    );
    repo.write("a.txt", "a by agent\n");
    hook_ok(
        &repo,
        &without_transcript(&payload(&repo, "post-edit", &vars)),
    );
    hook_ok(&repo, &without_transcript(&payload(&repo, "stop", &[])));
    let log = note(&repo, "HEAD");
    assert!(log.contains("\"model\": \"claude-opus-9\""), "{log}");
}

/// The user's own commit of the agent's lines (git-clada's post-commit hook): the model the
/// agent's calls recorded, else the configured `provenance.model`, never `unknown` while
/// one of them names it.
#[test]
fn the_users_commit_of_agent_lines_names_the_recorded_model_else_the_configured_one() {
    for (session_model, expected) in [
        (Some("claude-opus-9"), "claude-opus-9"),
        (None, "configured-model"),
    ] {
        let mut repo = TestRepo::with_files(&[
            ("a.txt", "one\n"),
            (".clada.yml", "agent:\n  commit: none\n"),
        ]);
        repo.env.push(("PATH".into(), common::path_with_clada(&[])));
        repo.user_config("provenance:\n  model: configured-model\n");
        let out = repo.clada(&["hooks", "install"]);
        assert_eq!(exit_code(&out), 0, "{}", common::output_text(&out));
        if let Some(m) = session_model {
            hook_ok(
                &repo,
                &without_transcript(&payload(&repo, "session-start", &[("MODEL", m)])),
            );
        }
        let vars = [
            ("FILE", "a.txt"),
            ("ID", "toolu_1"),
            ("CONTENT", "one\ntwo\n"),
        ];
        hook_ok(
            &repo,
            &without_transcript(&payload(&repo, "pre-edit", &vars)),
        );
        repo.write("a.txt", "one\ntwo\n");
        hook_ok(
            &repo,
            &without_transcript(&payload(&repo, "post-edit", &vars)),
        );
        repo.git(&["commit", "-qam", "my commit"]);
        let log = note(&repo, "HEAD");
        assert!(
            log.contains(&format!("\"model\": \"{expected}\"")),
            "{expected}: {log}"
        );
    }
}

/// Codex's CLI where `scripts/test` installs it (`${XDG_CACHE_HOME:-$HOME/.cache}/git-clada-ci`,
/// build.rs's `has_agents`).
fn codex_cli() -> PathBuf {
    let cache = match std::env::var_os("XDG_CACHE_HOME").filter(|v| !v.is_empty()) {
        Some(c) => PathBuf::from(c),
        None => PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".cache"),
    };
    cache.join("git-clada-ci/codex-0.171.0/node_modules/.bin/codex")
}

/// What Codex itself (its app-server's `hooks/list`) says of the hooks it finds for `repo`.
fn codex_hooks_list(repo: &TestRepo, codex: &Path) -> Vec<serde_json::Value> {
    use std::io::{BufRead, Write};
    let mut child = repo
        .command(codex)
        .arg("app-server")
        .env_remove("CODEX_HOME")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("start codex app-server");
    let root = repo.path().display().to_string();
    let requests = [
        serde_json::json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"clientInfo":{"name":"git-clada-test","version":"1"},"capabilities":{"experimentalApi":true}}}),
        serde_json::json!({"jsonrpc":"2.0","method":"initialized"}),
        serde_json::json!({"jsonrpc":"2.0","id":1,"method":"hooks/list","params":{"cwds":[root]}}),
    ];
    let mut stdin = child.stdin.take().expect("stdin");
    for r in requests {
        writeln!(stdin, "{r}").expect("write a request");
    }
    let stdout = std::io::BufReader::new(child.stdout.take().expect("stdout"));
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in stdout.lines().map_while(Result::ok) {
            let v: serde_json::Value = serde_json::from_str(&line).unwrap_or_default();
            if v["id"] == 1 {
                let _ = tx.send(v);
                return;
            }
        }
    });
    let answer = rx
        .recv_timeout(std::time::Duration::from_secs(120))
        .expect("codex answered hooks/list");
    drop(stdin);
    let _ = child.kill();
    let _ = child.wait();
    answer["result"]["data"][0]["hooks"]
        .as_array()
        .cloned()
        .unwrap_or_else(|| panic!("{answer}"))
}

/// The real Codex 0.171.0 runs what `install codex` wrote: every git-clada hook it finds is
/// trusted, the user's own hook is not (install trusts nothing else); after `uninstall`,
/// Codex finds none of git-clada's.
#[test]
#[cfg_attr(
    not(has_agents),
    ignore = "needs Codex 0.171.0 in the tools cache (scripts/test)"
)]
fn codex_itself_trusts_exactly_the_hooks_install_wrote() {
    let mut repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let codex = codex_cli();
    let dir = codex.parent().expect("codex's folder").to_path_buf();
    repo.env
        .push(("PATH".into(), common::path_with_clada(&[dir])));
    let hooks = repo.home.path().join(".codex/hooks.json");
    std::fs::create_dir_all(hooks.parent().unwrap()).unwrap();
    std::fs::write(
        &hooks,
        r#"{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"./guard.sh"}]}]}}"#,
    )
    .unwrap();
    let out = clada(&repo, &["install", "codex"], None);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert!(
        stdout(&out).contains("trusted git-clada's 3 Codex hooks"),
        "{}",
        stdout(&out)
    );
    let listed = codex_hooks_list(&repo, &codex);
    let status = |cmd: &str| -> Vec<String> {
        listed
            .iter()
            .filter(|h| h["command"] == cmd)
            .map(|h| format!("{} {}", h["eventName"], h["trustStatus"]))
            .collect()
    };
    assert_eq!(
        status("git clada agent-hook codex"),
        [
            r#""preToolUse" "trusted""#,
            r#""postToolUse" "trusted""#,
            r#""stop" "trusted""#
        ],
        "{listed:?}"
    );
    assert_eq!(status("./guard.sh"), [r#""preToolUse" "untrusted""#]);
    let out = clada(&repo, &["uninstall", "codex"], None);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert!(status_after(&repo, &codex).is_empty());
}

fn status_after(repo: &TestRepo, codex: &Path) -> Vec<serde_json::Value> {
    codex_hooks_list(repo, codex)
        .into_iter()
        .filter(|h| h["command"] == "git clada agent-hook codex")
        .collect()
}
