//! The real agents — Claude Code, Codex and Gemini CLI, at the versions `scripts/test`
//! installs — each playing an ordinary turn against the tests' scripted model server
//! (tests/cli/common/model_server.rs), with git-clada's hooks installed by
//! `git clada agent-hook install AGENT` into the test's HOME, as a user would. The model edits
//! a file with the agent's edit tool, creates one, and runs `sed -i` on a third through the
//! shell tool; the human edited another file, and another line of the agent's, before the
//! turn. Checked with git: one AI commit holding exactly the agent's lines, the human's edits
//! uncommitted, the authorship log naming the agent and the model, `git fsck` clean, and
//! nothing but loopback reached (the server is the CLIs' proxy too).
//!
//! The rest of a day's use — a failing shell call, an ignored file, the user's untracked file,
//! a human edit next to the agent's, a turn the pre-commit hook refuses, three agents at once
//! — is in `real_agents/scenarios.rs`, on the same harness.
//!
//! Each CLI run is killed after `RUN_LIMIT`, and a failure shows the CLI's output and the
//! server's request log.

use crate::common;
#[path = "common/model_server.rs"]
mod model_server;
#[path = "real_agents/scenarios.rs"]
mod scenarios;

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::TestRepo;
use model_server::{Api, ModelServer, Step};
use serde_json::json;

/// How long one CLI run may take before it is killed.
const RUN_LIMIT: Duration = Duration::from_secs(120);

/// The CLIs' folders under the tools cache, as `scripts/test` installs them.
const CLAUDE_CODE: &str = "claude-code-2.1.332/node_modules/.bin/claude";
const CODEX: &str = "codex-0.171.0/node_modules/.bin/codex";
const GEMINI_CLI: &str = "gemini-cli-0.61.0/node_modules/.bin/gemini";

/// `${XDG_CACHE_HOME:-$HOME/.cache}/git-clada-ci`, where `scripts/test` installs the CLIs
/// (outside the clone: CI clones afresh every run).
fn tools_dir() -> PathBuf {
    match std::env::var_os("XDG_CACHE_HOME").filter(|v| !v.is_empty()) {
        Some(cache) => PathBuf::from(cache).join("git-clada-ci"),
        None => {
            PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".cache/git-clada-ci")
        }
    }
}

/// The installed CLI at `rel` under the tools cache; panics naming the install step.
fn cli(rel: &str) -> PathBuf {
    let path = tools_dir().join(rel);
    assert!(
        path.exists(),
        "{} is missing: run `scripts/test --install-only` to install the agent CLIs",
        path.display()
    );
    path
}

/// What a CLI run printed, and how it ended.
struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

/// The environment a CLI keeps from the test's own: nothing that could name another account,
/// provider or configuration (the test sets what it needs).
const KEPT: [&str; 6] = ["PATH", "TMPDIR", "USER", "LOGNAME", "SHELL", "TERM"];

/// `program` in the repository with the fixed test environment, the inherited environment
/// reduced to `KEPT`, git-clada under test first on PATH (for the hooks' `git clada`), and the
/// server as every proxy: a request for another host reaches it and is refused.
fn agent_cmd(repo: &TestRepo, server: &ModelServer, program: &Path) -> Command {
    let mut cmd = repo.command(program);
    let set: Vec<String> = cmd
        .get_envs()
        .map(|(k, _)| k.to_string_lossy().into_owned())
        .collect();
    for (k, _) in std::env::vars_os() {
        let k = k.to_string_lossy().into_owned();
        if !KEPT.contains(&k.as_str()) && !set.contains(&k) {
            cmd.env_remove(&k);
        }
    }
    cmd.env("PATH", common::path_with_clada(&[]));
    for var in [
        "HTTPS_PROXY",
        "HTTP_PROXY",
        "ALL_PROXY",
        "https_proxy",
        "http_proxy",
        "all_proxy",
    ] {
        cmd.env(var, server.url());
    }
    cmd.env("NO_PROXY", "127.0.0.1,localhost")
        .env("no_proxy", "127.0.0.1,localhost");
    cmd
}

/// A CLI run under way: its process (a group of its own) and where its output goes.
struct Running {
    child: std::process::Child,
    out: tempfile::TempDir,
    started: Instant,
}

/// Starts `cmd` in a process group of its own, its output to files.
fn start(mut cmd: Command, what: &str) -> Running {
    let out = tempfile::tempdir().expect("tempdir");
    cmd.stdin(Stdio::null())
        .stdout(std::fs::File::create(out.path().join("stdout")).expect("stdout file"))
        .stderr(std::fs::File::create(out.path().join("stderr")).expect("stderr file"))
        .process_group(0);
    let child = cmd.spawn().unwrap_or_else(|e| panic!("start {what}: {e}"));
    Running {
        child,
        out,
        started: Instant::now(),
    }
}

/// Waits for a run to end, killing its process group once it has run `RUN_LIMIT`.
fn finish(mut r: Running, what: &str, server: &ModelServer) -> Run {
    let status = loop {
        if let Some(status) = r.child.try_wait().expect("wait") {
            break Some(status);
        }
        if r.started.elapsed() > RUN_LIMIT {
            // SAFETY: signals the process group this test started (its id is the child's).
            unsafe { libc::kill(-(r.child.id() as i32), libc::SIGKILL) };
            let _ = r.child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let read = |name: &str| {
        String::from_utf8_lossy(&std::fs::read(r.out.path().join(name)).unwrap_or_default())
            .into_owned()
    };
    let run = Run {
        code: status.and_then(|s| s.code()),
        stdout: read("stdout"),
        stderr: read("stderr"),
    };
    assert!(
        status.is_some(),
        "{what} did not finish within {} s and was killed\n{}",
        RUN_LIMIT.as_secs(),
        context(&run, server)
    );
    run
}

/// Runs `cmd` to its end (`start`, `finish`).
fn run(cmd: Command, what: &str, server: &ModelServer) -> Run {
    finish(start(cmd, what), what, server)
}

/// A CLI's output and the server's requests, for a failing assertion.
fn context(run: &Run, server: &ModelServer) -> String {
    format!(
        "exit code: {:?}\n--- stdout\n{}\n--- stderr\n{}\n--- the model server's requests\n{}",
        run.code,
        run.stdout,
        run.stderr,
        server.log()
    )
}

/// `git clada agent-hook install AGENT` (the user's scope), as the user runs it: with the
/// installed Codex on PATH, so `install codex` writes the trust Codex asks for.
fn install(repo: &TestRepo, agent: &str) {
    let mut cmd = repo.clada_cmd();
    for var in ["CLAUDE_CONFIG_DIR", "GEMINI_CLI_HOME", "CODEX_HOME"] {
        cmd.env_remove(var);
    }
    let codex_dir = cli(CODEX).parent().expect("codex's folder").to_path_buf();
    cmd.env("PATH", common::path_with_clada(&[codex_dir]));
    let out = cmd
        .args(["agent-hook", "install", agent])
        .output()
        .expect("run git-clada");
    common::assert_ok(&out, &format!("agent-hook install {agent}"));
}

/// One agent's way through the ordinary turn.
struct Agent {
    /// `git clada agent-hook AGENT`.
    name: &'static str,
    /// The tool its authorship log names.
    tool: &'static str,
    api: Api,
    /// The model the server names itself, which the log must name.
    model: &'static str,
    /// The turn's tool calls (the answer follows), given the repository's path.
    calls: fn(&Path) -> Vec<Step>,
    /// The user's own configuration, written before `install`.
    configure: fn(&TestRepo, &ModelServer),
    /// The CLI's command line for a headless turn.
    command: fn(&TestRepo, &ModelServer) -> Command,
    /// The calls that replace each `(old, new)` line of a file, given the folder the CLI
    /// runs in and the file's path from there (Claude Code reads the file first: its Edit
    /// refuses one it has not read).
    edit: fn(&Path, &str, &[Change]) -> Vec<Step>,
    /// The call that creates a file holding a text, given the folder and the file's path.
    create: fn(&Path, &str, &str) -> Step,
    /// The shell tool's call running a command in the repository.
    shell: fn(&str) -> Step,
}

/// One line's change, `(old, new)` (`new` may be several lines).
type Change<'a> = (&'a str, &'a str);

const PROMPT: &str = "Make the change the script describes.";

const SED: &str = "sed -i 's/^beta$/beta (sed)/' util.txt";

fn write_file(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, text).unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
}

/// Before the turn: the repository's files, the human's edits, the user's configuration and
/// git-clada's hooks.
fn before_turn(agent: &Agent) -> (TestRepo, String, ModelServer) {
    let repo = TestRepo::with_files(&[
        ("app.txt", "one\ntwo\nthree\nfour\nfive\nsix\n"),
        ("util.txt", "alpha\nbeta\n"),
        ("notes.txt", "notes\n"),
    ]);
    let initial = repo.head();
    repo.write("notes.txt", "notes\na human note\n");
    repo.write("app.txt", "one (human)\ntwo\nthree\nfour\nfive\nsix\n");
    let mut script = (agent.calls)(repo.path());
    script.push(Step::answer(
        "Done: app.txt edited, new.txt created, util.txt changed.",
    ));
    let server = ModelServer::start(agent.api, agent.model, script);
    (agent.configure)(&repo, &server);
    // The turn commit's subject from the prompt, read from the agent's own transcript.
    repo.user_config("agent:\n  subject: prompt\n");
    install(&repo, agent.name);
    (repo, initial, server)
}

fn ordinary_turn(agent: &Agent) {
    let (repo, initial, server) = before_turn(agent);
    let run = run((agent.command)(&repo, &server), agent.name, &server);
    let ctx = context(&run, &server);
    assert_eq!(run.code, Some(0), "{} failed\n{ctx}", agent.name);
    let calls = (agent.calls)(repo.path()).len();
    let results = server.tool_results();
    assert_eq!(
        results.len(),
        calls,
        "every tool call's result came back: {results:#?}\n{ctx}"
    );
    assert_eq!(
        server.outside(),
        Vec::<String>::new(),
        "nothing but loopback\n{ctx}"
    );

    // One AI commit on the commit the turn started from, holding the agent's lines only.
    let parent = repo.git_output(&["rev-parse", "-q", "--verify", "HEAD~1"]);
    assert_eq!(
        String::from_utf8_lossy(&parent.stdout).trim(),
        initial,
        "one commit on the turn's start\n{ctx}"
    );
    let subject = repo.subject("HEAD");
    let subject = subject.trim_end();
    // The prompt, as git-clada reads it from the agent's own transcript.
    assert_eq!(subject, format!("AI: {PROMPT}"), "{ctx}");
    let msg = repo.git(&["log", "-1", "--format=%B"]);
    assert!(
        msg.contains(&format!("Clada-Agent: {}\n", agent.name)) && !msg.contains("Clada-Reply"),
        "{msg}"
    );
    let files = repo.git(&["diff-tree", "--no-commit-id", "--name-only", "-r", "HEAD"]);
    assert_eq!(files, "app.txt\nnew.txt\nutil.txt\n", "{ctx}");
    assert_eq!(
        repo.git(&["show", "HEAD:app.txt"]),
        "one\ntwo\nthree\nfour\nfive (agent)\nsix\n"
    );
    assert_eq!(
        repo.git(&["show", "HEAD:new.txt"]),
        "created by the agent\n"
    );
    assert_eq!(repo.git(&["show", "HEAD:util.txt"]), "alpha\nbeta (sed)\n");
    // The human's edits stay in the worktree, uncommitted.
    assert_eq!(repo.status(), " M app.txt\n M notes.txt\n", "{ctx}");
    assert_eq!(
        repo.read("app.txt"),
        "one (human)\ntwo\nthree\nfour\nfive (agent)\nsix\n"
    );
    assert_eq!(repo.read("notes.txt"), "notes\na human note\n");

    let log = repo.git(&["notes", "--ref", "ai", "show", "HEAD"]);
    assert_eq!(
        common::agent_fixtures::attested(&log),
        [("app.txt", "5"), ("new.txt", "1"), ("util.txt", "2")]
            .map(|(f, r)| (f.to_string(), r.to_string())),
        "the log attests exactly the agent's lines:\n{log}"
    );
    assert!(
        log.contains(&format!("\"tool\": \"{}\"", agent.tool)),
        "{log}"
    );
    assert!(
        log.contains(&format!("\"model\": \"{}\"", agent.model)),
        "{log}"
    );
    assert_eq!(
        repo.git(&["for-each-ref", "refs/clada/agent/"]),
        "",
        "the turn's state is cleared"
    );
    undo_and_redo_the_turn(&repo, &initial);
}

/// One `git clada undo` takes the whole turn back — the commit, the new file, the edit and
/// the shell's `sed -i` — and keeps the human's edits; `git clada redo` puts it back.
fn undo_and_redo_the_turn(repo: &TestRepo, initial: &str) {
    let turn = repo.head();
    let after = repo.state();
    let out = repo.clada(&["undo"]);
    common::assert_ok(&out, "undo of the turn");
    assert_eq!(repo.head(), initial);
    assert!(!repo.exists("new.txt"));
    assert_eq!(
        repo.read("app.txt"),
        "one (human)\ntwo\nthree\nfour\nfive\nsix\n"
    );
    assert_eq!(repo.read("util.txt"), "alpha\nbeta\n");
    assert_eq!(repo.read("notes.txt"), "notes\na human note\n");
    assert_eq!(repo.status(), " M app.txt\n M notes.txt\n");
    let out = repo.clada(&["redo"]);
    common::assert_ok(&out, "redo of the turn");
    assert_eq!(repo.head(), turn);
    common::assert_same_user_state(&repo.state(), &after, "redo of the turn");
    repo.assert_fsck();
}

const CLAUDE: Agent = Agent {
    name: "claude-code",
    tool: "claude",
    api: Api::Anthropic,
    // Not a model Claude Code knows (it asks for its default): the log's model is the one
    // that answered, read from the transcript.
    model: "claude-scripted-1",
    calls: |root| {
        let app = root.join("app.txt").display().to_string();
        vec![
            // Claude Code's Edit refuses a file it has not read.
            Step::call("Read", json!({"file_path": app})),
            Step::call(
                "Edit",
                json!({"file_path": app, "old_string": "five\n", "new_string": "five (agent)\n"}),
            ),
            Step::call(
                "Write",
                json!({"file_path": root.join("new.txt"), "content": "created by the agent\n"}),
            ),
            Step::call("Bash", json!({"command": SED, "description": "Mark beta"})),
        ]
    },
    configure: |_, _| {},
    command: |repo, server| {
        let mut cmd = agent_cmd(repo, server, &cli(CLAUDE_CODE));
        cmd.env("ANTHROPIC_BASE_URL", server.url())
            .env("ANTHROPIC_API_KEY", "scripted")
            .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
            // `--dangerously-skip-permissions` is refused as root: edits are accepted and
            // Bash allowed instead.
            .args([
                "-p",
                PROMPT,
                "--permission-mode",
                "acceptEdits",
                "--allowedTools",
                "Bash",
            ]);
        cmd
    },
    edit: |root, rel, lines| {
        let file = root.join(rel).display().to_string();
        let mut calls = vec![Step::call("Read", json!({"file_path": file}))];
        calls.extend(lines.iter().map(|(old, new)| {
            Step::call(
                "Edit",
                json!({"file_path": file, "old_string": format!("{old}\n"), "new_string": format!("{new}\n")}),
            )
        }));
        calls
    },
    create: |root, rel, text| {
        Step::call(
            "Write",
            json!({"file_path": root.join(rel), "content": text}),
        )
    },
    shell: |command| Step::call("Bash", json!({"command": command, "description": "Run it"})),
};

#[test]
#[cfg_attr(not(has_agents), ignore = "needs the agent CLIs (scripts/test)")]
fn claude_code_turn_is_one_ai_commit_of_the_agents_lines() {
    ordinary_turn(&CLAUDE);
}

/// Codex's own configuration: the server as its model provider (a bundled model, or it
/// refuses `apply_patch`), no update check, no analytics, no plugin sync (it reaches GitHub
/// and chatgpt.com at start-up).
fn codex_config(repo: &TestRepo, server: &ModelServer) {
    let config = format!(
        r#"model = "gpt-5.5"
model_provider = "scripted"
check_for_update_on_startup = false

[analytics]
enabled = false

[features]
plugins = false
remote_plugin = false
apps = false

[model_providers.scripted]
name = "scripted"
base_url = "{}/v1"
wire_api = "responses"
env_key = "SCRIPTED_API_KEY"
"#,
        server.url()
    );
    write_file(&repo.home.path().join(".codex/config.toml"), &config);
}

/// `codex exec` with the sandbox `sandbox` (`workspace-write`, Codex's own for a headless
/// run, keeps `.git` read-only: the agent's own `git add` needs `danger-full-access`).
fn codex_command(repo: &TestRepo, server: &ModelServer, sandbox: &str) -> Command {
    let mut cmd = agent_cmd(repo, server, &cli(CODEX));
    // Codex runs only hooks the user trusted: the trust `install codex` wrote, no
    // --dangerously-bypass-hook-trust (headless `codex exec` skips untrusted ones).
    cmd.env("SCRIPTED_API_KEY", "scripted")
        .args(["exec", "--sandbox", sandbox, "--json", PROMPT]);
    cmd
}

const CODEX_AGENT: Agent = Agent {
    name: "codex",
    tool: "codex",
    api: Api::Responses,
    model: "gpt-5.5",
    calls: |_| {
        vec![
            Step::call(
                "apply_patch",
                json!("*** Begin Patch\n*** Update File: app.txt\n@@\n four\n-five\n+five (agent)\n*** End Patch\n"),
            ),
            Step::call(
                "apply_patch",
                json!("*** Begin Patch\n*** Add File: new.txt\n+created by the agent\n*** End Patch\n"),
            ),
            Step::call("exec_command", json!({"cmd": SED})),
        ]
    },
    configure: codex_config,
    command: |repo, server| codex_command(repo, server, "workspace-write"),
    // One apply_patch per file, a hunk per line.
    edit: |_, rel, lines| {
        let mut patch = format!("*** Begin Patch\n*** Update File: {rel}\n");
        for (old, new) in lines {
            patch.push_str(&format!("@@\n-{old}\n"));
            for line in new.lines() {
                patch.push_str(&format!("+{line}\n"));
            }
        }
        patch.push_str("*** End Patch\n");
        vec![Step::call("apply_patch", json!(patch))]
    },
    create: |_, rel, text| {
        let body: String = text.lines().map(|l| format!("+{l}\n")).collect();
        Step::call(
            "apply_patch",
            json!(format!(
                "*** Begin Patch\n*** Add File: {rel}\n{body}*** End Patch\n"
            )),
        )
    },
    shell: |command| Step::call("exec_command", json!({"cmd": command})),
};

#[test]
#[cfg_attr(not(has_agents), ignore = "needs the agent CLIs (scripts/test)")]
fn codex_turn_is_one_ai_commit_of_the_agents_lines() {
    ordinary_turn(&CODEX_AGENT);
}

/// Gemini CLI's own settings: an API key (the base URL alone is refused: "Invalid auth method
/// selected"), folder trust off (a headless run in an untrusted folder refuses to start), no
/// auto-update, no usage statistics.
fn gemini_settings(repo: &TestRepo, _: &ModelServer) {
    let settings = json!({
        "security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": false}},
        "general": {"enableAutoUpdate": false, "enableAutoUpdateNotification": false},
        "privacy": {"usageStatisticsEnabled": false},
    });
    write_file(
        &repo.home.path().join(".gemini/settings.json"),
        &settings.to_string(),
    );
}

const GEMINI: Agent = Agent {
    name: "gemini",
    tool: "gemini",
    api: Api::Gemini,
    // Gemini CLI's transcript names the model it asked for (`-m`), not the one that answered:
    // the two are the same here.
    model: "gemini-2.5-flash",
    calls: |root| {
        vec![
            Step::call(
                "replace",
                json!({"file_path": root.join("app.txt"), "old_string": "five\n", "new_string": "five (agent)\n",
                    "instruction": "Mark line five as the agent's."}),
            ),
            Step::call(
                "write_file",
                json!({"file_path": root.join("new.txt"), "content": "created by the agent\n"}),
            ),
            Step::call(
                "run_shell_command",
                json!({"command": SED, "description": "Mark beta"}),
            ),
        ]
    },
    configure: gemini_settings,
    command: |repo, server| {
        let mut cmd = agent_cmd(repo, server, &cli(GEMINI_CLI));
        cmd.env("GOOGLE_GEMINI_BASE_URL", server.url())
            .env("GEMINI_API_KEY", "scripted")
            .args([
                "-p",
                PROMPT,
                "--approval-mode",
                "yolo",
                "-m",
                "gemini-2.5-flash",
            ]);
        cmd
    },
    edit: |root, rel, lines| {
        lines
            .iter()
            .map(|(old, new)| {
                Step::call(
                    "replace",
                    json!({"file_path": root.join(rel), "old_string": format!("{old}\n"), "new_string": format!("{new}\n"),
                        "instruction": "Change the line as the script says."}),
                )
            })
            .collect()
    },
    create: |root, rel, text| {
        Step::call(
            "write_file",
            json!({"file_path": root.join(rel), "content": text}),
        )
    },
    shell: |command| {
        Step::call(
            "run_shell_command",
            json!({"command": command, "description": "Run it"}),
        )
    },
};

#[test]
#[cfg_attr(not(has_agents), ignore = "needs the agent CLIs (scripts/test)")]
fn gemini_cli_turn_is_one_ai_commit_of_the_agents_lines() {
    ordinary_turn(&GEMINI);
}

// ---------------------------------------------------------------------------------------
// The hook payloads each CLI really sends, recorded by a capture handler registered in
// place of git-clada. The fixtures under tests/fixtures/agent-hooks/<agent>/recorded/ were
// written by these runs (`CLADA_RECORD_AGENT_HOOKS=1`); otherwise each run checks that the
// CLI still sends what they hold (the same events, fields and types) and the facts git-clada
// relies on: which event ends a failing shell call, and where the model is.

/// A capture handler: each payload to a file of its own, named by arrival.
const CAPTURE: &str = "#!/bin/sh\ncat > \"$CLADA_CAPTURE/$(date +%s%N).json\"\n";

/// Registers `command` for each of `events` in the settings file at `path` (Claude Code's,
/// Gemini CLI's and Codex's `hooks.json` share the nested shape), keeping what is there.
fn register(path: &Path, events: &[&str], command: &str) {
    let mut doc: serde_json::Value = std::fs::read_to_string(path)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_else(|| json!({}));
    for event in events {
        doc["hooks"][*event] =
            json!([{"matcher": "*", "hooks": [{"type": "command", "command": command}]}]);
    }
    write_file(path, &doc.to_string());
}

/// One agent's recording run.
struct Recording {
    agent: &'static Agent,
    /// The CLI, as the fixtures' README names it.
    version: &'static str,
    /// The settings file the capture handler goes in, under HOME.
    settings: &'static str,
    events: &'static [&'static str],
    /// The tool calls, each with the label its payloads are saved under.
    calls: fn(&Path) -> Vec<(&'static str, Step)>,
}

/// A failing shell command that edits first, as `sed -i … && pytest` with a failing test.
const FAILING: &str = "sed -i 's/^alpha$/alpha (sed)/' util.txt && false";

/// Runs the recording turn; the captured payloads in arrival order, each named
/// `EVENT[.LABEL]` (tool events labelled by their call, in order), placeholders put in.
fn record(rec: &Recording) -> (Vec<(String, serde_json::Value)>, Run) {
    let repo = TestRepo::with_files(&[
        ("app.txt", "one\ntwo\nthree\nfour\nfive\nsix\n"),
        ("util.txt", "alpha\nbeta\n"),
    ]);
    let labelled = (rec.calls)(repo.path());
    let mut script: Vec<Step> = labelled.iter().map(|(_, s)| s.clone()).collect();
    script.push(Step::answer("Done."));
    let server = ModelServer::start(rec.agent.api, rec.agent.model, script);
    (rec.agent.configure)(&repo, &server);
    let capture = repo.home.path().join("capture");
    std::fs::create_dir_all(&capture).expect("mkdir");
    let handler = repo.home.path().join("capture.sh");
    write_file(&handler, CAPTURE);
    let command = format!("sh {}", handler.display());
    register(&repo.home.path().join(rec.settings), rec.events, &command);
    let mut cmd = (rec.agent.command)(&repo, &server);
    if rec.agent.name == "codex" {
        // The capture handler is registered by hand, not by `install`: nothing trusts it.
        cmd.arg("--dangerously-bypass-hook-trust");
    }
    cmd.env("CLADA_CAPTURE", &capture);
    let run = run(cmd, rec.agent.name, &server);
    assert_eq!(run.code, Some(0), "{}", context(&run, &server));

    let mut files: Vec<PathBuf> = std::fs::read_dir(&capture)
        .expect("captured payloads")
        .map(|e| e.expect("entry").path())
        .collect();
    files.sort();
    let root = repo.path().display().to_string();
    let (mut before, mut after) = (0, 0);
    let mut out = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).expect("payload");
        let mut v: serde_json::Value = serde_json::from_str(&text).unwrap_or_else(|e| {
            panic!(
                "{} sent a payload that is not JSON ({e}): {text}",
                rec.agent.name
            )
        });
        let event = v["hook_event_name"]
            .as_str()
            .unwrap_or("unnamed")
            .to_string();
        let label = match event.as_str() {
            "PreToolUse" | "BeforeTool" => {
                before += 1;
                labelled.get(before - 1).map(|(l, _)| *l)
            }
            "PostToolUse" | "PostToolUseFailure" | "AfterTool" => {
                after += 1;
                labelled.get(after - 1).map(|(l, _)| *l)
            }
            _ => None,
        };
        if let Some(t) = v.get("transcript_path").and_then(|t| t.as_str()) {
            let t = t.to_string();
            v = serde_json::from_str(&v.to_string().replace(&t, "{TRANSCRIPT}")).expect("JSON");
        }
        if v.get("tool_use_id").is_some_and(|id| id.is_string()) {
            v["tool_use_id"] = json!("{ID}");
        }
        let v = serde_json::from_str(&v.to_string().replace(&root, "{ROOT}")).expect("JSON");
        let name = match label {
            Some(l) => format!("{event}.{l}"),
            None => event,
        };
        out.push((name, v));
    }
    (out, run)
}

/// A value's shape: its fields and their types, with arrays as the set of their elements'
/// shapes (what a fixture must still match; the values themselves vary by run).
fn shape(v: &serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .filter(|(k, _)| k.as_str() != "_source")
                .map(|(k, v)| (k.clone(), shape(v)))
                .collect::<std::collections::BTreeMap<_, _>>()
                .into_iter()
                .collect(),
        ),
        Value::Array(a) => {
            let mut shapes: Vec<Value> = a.iter().map(shape).collect();
            shapes.sort_by_key(|s| s.to_string());
            shapes.dedup();
            Value::Array(shapes)
        }
        Value::String(_) => json!("string"),
        Value::Number(_) => json!("number"),
        Value::Bool(_) => json!("bool"),
        Value::Null => json!("null"),
    }
}

/// Writes the recorded payloads (`CLADA_RECORD_AGENT_HOOKS` set), or checks that the
/// fixtures still have the shape of what the CLI sends; the payloads by name.
fn recorded(rec: &Recording) -> std::collections::BTreeMap<String, serde_json::Value> {
    let (payloads, _) = record(rec);
    let dir = Path::new(common::agent_fixtures::FIXTURES)
        .join(rec.agent.name)
        .join("recorded");
    let mut by_name = std::collections::BTreeMap::new();
    for (name, v) in payloads {
        by_name.entry(name).or_insert(v);
    }
    let writing = std::env::var_os("CLADA_RECORD_AGENT_HOOKS").is_some();
    for (name, v) in &by_name {
        let path = dir.join(format!("{name}.json"));
        if writing {
            let mut v = v.clone();
            if let Some(m) = v.as_object_mut() {
                m.shift_insert(
                    0,
                    "_source".into(),
                    json!(format!(
                        "recorded from {} by tests/cli/real_agents.rs ({name})",
                        rec.version
                    )),
                );
            }
            write_file(
                &path,
                &(serde_json::to_string_pretty(&v).expect("JSON") + "\n"),
            );
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
            panic!(
                "{}: {e} ({} sends {name}; record it with CLADA_RECORD_AGENT_HOOKS=1)",
                path.display(),
                rec.version
            )
        });
        let fixture: serde_json::Value = serde_json::from_str(&text).expect("fixture is JSON");
        assert_eq!(
            shape(&fixture),
            shape(v),
            "{} no longer matches what {} sends (re-record with CLADA_RECORD_AGENT_HOOKS=1):\n{}",
            path.display(),
            rec.version,
            serde_json::to_string_pretty(v).expect("JSON")
        );
    }
    if !writing {
        for entry in std::fs::read_dir(&dir).expect("recorded fixtures") {
            let file = entry
                .expect("entry")
                .file_name()
                .to_string_lossy()
                .into_owned();
            let name = file.trim_end_matches(".json");
            assert!(
                by_name.contains_key(name),
                "{} sends no {name} any more (tests/fixtures/agent-hooks/{}/recorded/{file})",
                rec.version,
                rec.agent.name
            );
        }
    }
    by_name
}

const CLAUDE_RECORDING: Recording = Recording {
    agent: &CLAUDE,
    version: "Claude Code 2.1.332",
    settings: ".claude/settings.json",
    events: &[
        "SessionStart",
        "UserPromptSubmit",
        "PreToolUse",
        "PostToolUse",
        "PostToolUseFailure",
        "Stop",
        "SessionEnd",
    ],
    calls: |root| {
        let app = root.join("app.txt").display().to_string();
        vec![
            ("read", Step::call("Read", json!({"file_path": app}))),
            (
                "edit",
                Step::call(
                    "Edit",
                    json!({"file_path": app, "old_string": "five\n", "new_string": "five (agent)\n"}),
                ),
            ),
            (
                "write",
                Step::call(
                    "Write",
                    json!({"file_path": root.join("new.txt"), "content": "created by the agent\n"}),
                ),
            ),
            (
                "bash",
                Step::call("Bash", json!({"command": SED, "description": "Mark beta"})),
            ),
            (
                "bash-fails",
                Step::call(
                    "Bash",
                    json!({"command": FAILING, "description": "Mark alpha, then fail"}),
                ),
            ),
        ]
    },
};

#[test]
#[cfg_attr(not(has_agents), ignore = "needs the agent CLIs (scripts/test)")]
fn claude_code_hook_payloads_match_the_recorded_fixtures() {
    let p = recorded(&CLAUDE_RECORDING);
    // A Bash call that exits non-zero ends with PostToolUseFailure, not PostToolUse.
    assert!(
        p.contains_key("PostToolUseFailure.bash-fails"),
        "{:?}",
        p.keys()
    );
    assert!(!p.contains_key("PostToolUse.bash-fails"), "{:?}", p.keys());
    assert_eq!(p["PostToolUseFailure.bash-fails"]["error"], "Exit code 1");
    // Read-only tools fire the hooks too (matcher `*`).
    assert!(p.contains_key("PreToolUse.read") && p.contains_key("PostToolUse.read"));
    // Every tool event carries its call's id; SessionStart of a headless run names no model.
    for (name, v) in &p {
        if name.contains('.') {
            assert_eq!(v["tool_use_id"], "{ID}", "{name}");
        }
    }
    assert!(
        p["SessionStart"].get("model").is_none(),
        "{}",
        p["SessionStart"]
    );
    assert!(p.contains_key("Stop"));
}

const CODEX_RECORDING: Recording = Recording {
    agent: &CODEX_AGENT,
    version: "Codex 0.171.0",
    settings: ".codex/hooks.json",
    events: &[
        "SessionStart",
        "UserPromptSubmit",
        "PreToolUse",
        "PostToolUse",
        "Stop",
        "SessionEnd",
    ],
    calls: |_| {
        vec![
            (
                "apply-patch-update",
                Step::call("apply_patch", json!("*** Begin Patch\n*** Update File: app.txt\n@@\n four\n-five\n+five (agent)\n*** End Patch\n")),
            ),
            (
                "apply-patch-add",
                Step::call("apply_patch", json!("*** Begin Patch\n*** Add File: new.txt\n+created by the agent\n*** End Patch\n")),
            ),
            ("bash", Step::call("exec_command", json!({"cmd": SED}))),
            ("bash-fails", Step::call("exec_command", json!({"cmd": FAILING}))),
        ]
    },
};

#[test]
#[cfg_attr(not(has_agents), ignore = "needs the agent CLIs (scripts/test)")]
fn codex_hook_payloads_match_the_recorded_fixtures() {
    let p = recorded(&CODEX_RECORDING);
    // A shell call that exits non-zero still ends with PostToolUse (Codex has no failure
    // event); its tool_response is the output only, without the exit code.
    assert!(p.contains_key("PostToolUse.bash-fails"), "{:?}", p.keys());
    // exec_command is reported as `Bash`, apply_patch with its patch in tool_input.command.
    assert_eq!(p["PreToolUse.bash"]["tool_name"], "Bash");
    assert_eq!(p["PreToolUse.bash"]["tool_input"]["command"], SED);
    assert_eq!(p["PreToolUse.apply-patch-add"]["tool_name"], "apply_patch");
    assert!(p["PreToolUse.apply-patch-add"]["tool_input"]["command"]
        .as_str()
        .is_some_and(|c| c.contains("*** Add File: new.txt")));
    // The model is in SessionStart and in every turn event.
    for (name, v) in &p {
        if name.contains('.') {
            assert_eq!(v["tool_use_id"], "{ID}", "{name}");
        }
        if name != "SessionEnd" && name != "UserPromptSubmit" {
            assert_eq!(v["model"], "gpt-5.5", "{name}");
        }
    }
    assert!(p.contains_key("Stop"));
}

const GEMINI_RECORDING: Recording = Recording {
    agent: &GEMINI,
    version: "Gemini CLI 0.61.0",
    settings: ".gemini/settings.json",
    events: &[
        "SessionStart",
        "BeforeAgent",
        "BeforeTool",
        "AfterTool",
        "AfterAgent",
        "SessionEnd",
    ],
    calls: |root| {
        vec![
            (
                "replace",
                Step::call(
                    "replace",
                    json!({"file_path": root.join("app.txt"), "old_string": "five\n", "new_string": "five (agent)\n",
                        "instruction": "Mark line five as the agent's."}),
                ),
            ),
            (
                "write-file",
                Step::call(
                    "write_file",
                    json!({"file_path": root.join("new.txt"), "content": "created by the agent\n"}),
                ),
            ),
            (
                "shell",
                Step::call(
                    "run_shell_command",
                    json!({"command": SED, "description": "Mark beta"}),
                ),
            ),
            (
                "shell-fails",
                Step::call(
                    "run_shell_command",
                    json!({"command": FAILING, "description": "Mark alpha, then fail"}),
                ),
            ),
        ]
    },
};

#[test]
#[cfg_attr(not(has_agents), ignore = "needs the agent CLIs (scripts/test)")]
fn gemini_cli_hook_payloads_match_the_recorded_fixtures() {
    let p = recorded(&GEMINI_RECORDING);
    // A shell call that exits non-zero ends with AfterTool; the exit code is only in the
    // text the model reads.
    let failed = &p["AfterTool.shell-fails"]["tool_response"]["llmContent"];
    assert!(
        failed.as_str().is_some_and(|t| t.contains("Exit Code: 1")),
        "{failed}"
    );
    // No call ids, and no model in SessionStart.
    for (name, v) in &p {
        assert!(v.get("tool_use_id").is_none(), "{name}: {v}");
    }
    assert!(
        p["SessionStart"].get("model").is_none(),
        "{}",
        p["SessionStart"]
    );
    assert!(p.contains_key("AfterAgent"));
}
