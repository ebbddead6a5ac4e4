//! `git clada mcp` driven by a real MCP client that is not ours: the official Python SDK
//! (`mcp` from PyPI) in `tests/mcp/client.py`, which starts the server as a child process
//! over stdio and records what it sees; this file asserts on that transcript and checks the
//! repository with the real git CLI. A second client here speaks JSON-RPC itself, to send
//! what no SDK would (garbage, malformed requests).
//!
//! `scripts/test` installs the SDK into `target/ci-tools/venv`. Where neither that venv nor
//! `python3` on PATH can import `mcp` and `jsonschema`, the SDK tests are ignored (`has_mcp_sdk`,
//! from build.rs), and the Inspector's without it (`has_inspector`); run anyway
//! (`--include-ignored`), they fail saying what is missing.

use crate::common;

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::Stdio;

use common::{assert_same_user_state, block, exit_code, output_text, write_block, TestRepo};
use serde_json::{json, Value};

/// A Python that can import the SDK and jsonschema.
fn python() -> Option<PathBuf> {
    let venv = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/ci-tools/venv/bin/python");
    [venv, PathBuf::from("python3")].into_iter().find(|p| {
        std::process::Command::new(p)
            .args(["-c", "import mcp, mcp_types, jsonschema, anyio"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    })
}

fn python_or_skip() -> Option<PathBuf> {
    let found = python();
    assert!(
        found.is_some(),
        "no Python with the MCP SDK was found in target/ci-tools/venv or on PATH (bash \
         scripts/test installs it: pip install mcp)"
    );
    found
}

/// `git-clada mcp` with `extra` arguments, as the client's server command.
fn server(extra: &[&str]) -> Vec<String> {
    let mut argv = vec![env!("CARGO_BIN_EXE_git-clada").to_string(), "mcp".into()];
    argv.extend(extra.iter().map(|s| s.to_string()));
    argv
}

/// One client's spec: the server command, the repository, the steps.
fn spec(repo: &TestRepo, argv: Vec<String>, steps: Value) -> Value {
    json!({"server": argv, "cwd": repo.path(), "steps": steps})
}

/// Runs the Python client with `spec` and returns its transcript.
fn run_client(python: &Path, repo: &TestRepo, spec: &Value) -> Value {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp/client.py");
    let mut cmd = repo.command(python);
    cmd.arg(script);
    let child = common::spawn_fed(cmd, &spec.to_string());
    let out = child.wait_with_output().expect("wait for the client");
    assert_eq!(exit_code(&out), 0, "client failed:\n{}", output_text(&out));
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("transcript is not JSON ({e}):\n{}", output_text(&out)))
}

/// The steps of a one-client transcript, each checked to have raised nothing.
fn steps(transcript: &Value) -> Vec<Value> {
    let steps = transcript["steps"].as_array().expect("steps").clone();
    for (i, s) in steps.iter().enumerate() {
        assert!(s.get("exception").is_none(), "step {i} raised: {s:#}");
        let mismatch = s.get("outputMismatch").cloned().unwrap_or(json!([]));
        assert_eq!(
            mismatch,
            json!([]),
            "step {i}: result does not match the output schema: {s:#}"
        );
    }
    steps
}

fn text(step: &Value) -> &str {
    step["text"].as_str().unwrap_or_default()
}

/// Commits on the branch (subjects, newest first).
fn subjects(repo: &TestRepo) -> Vec<String> {
    repo.git(&["log", "--format=%s"])
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
#[cfg_attr(
    not(has_mcp_sdk),
    ignore = "needs the Python MCP SDK (bash scripts/test installs it)"
)]
fn the_python_sdk_applies_edits_gets_hints_and_undoes_them_exactly() {
    let Some(python) = python_or_skip() else {
        return;
    };
    let repo = TestRepo::with_files(&[
        ("src/app.py", "def total(xs):\n    return sum(xs)\n"),
        ("README.md", "# Demo\n"),
    ]);
    // The user's uncommitted work, which no call may touch.
    repo.write("README.md", "# Demo\n\nwork in progress\n");
    repo.write("notes.txt", "mine\n");
    let before = repo.state();
    let reply = format!(
        "Here you go.\n\n{}\n{}",
        write_block("k1x", "src/util.py", "def double(x):\n    return 2 * x\n"),
        block(
            "k2x",
            &[
                ("action", "file_replace_text"),
                ("path", "src/app.py"),
                ("old_text", "    return  sum(xs)"),
                ("new_text", "    return sum(xs) or 0"),
            ]
        )
    );
    let steps = steps(&run_client(
        &python,
        &repo,
        &spec(
            &repo,
            server(&["--session", "py-one"]),
            json!([
                {"do": "info"},
                {"do": "tools"},
                {"do": "prompts"},
                {"do": "prompt", "name": "nesl", "args": {"actions": "file_write"}},
                {"do": "prompt", "name": "klingon"},
                {"do": "call", "tool": "apply", "args": {"reply": reply}},
                {"do": "call", "tool": "edit", "args": {"path": "src/app.py", "old_string": "    return sum(xs)", "new_string": "    return sum(xs) or 0"}},
                {"do": "git", "args": ["status", "--porcelain"]},
                {"do": "call", "tool": "read", "args": {"path": "src/app.py", "lines": "2"}},
                {"do": "call", "tool": "grep", "args": {"pattern": "double", "path": "src"}},
                {"do": "call", "tool": "log", "args": {}},
                {"do": "call", "tool": "edit", "args": {"path": "../outside.txt", "old_string": "", "new_string": "escaped\n"}},
                {"do": "call", "tool": "edit", "args": {"actions": [{"action": "file_write", "path": ".git/hooks/post-commit", "content": "echo hi\n"}]}},
                {"do": "call", "tool": "undo", "args": {}},
                {"do": "call", "tool": "undo", "args": {}},
                {"do": "call", "tool": "status", "args": {}},
            ]),
        ),
    ));
    let info = &steps[0];
    assert_eq!(info["name"], "git-clada");
    assert_eq!(info["protocolVersion"], "2025-11-25");
    assert!(info["instructions"]
        .as_str()
        .unwrap_or_default()
        .contains("py-one"));

    // Every tool, each input schema valid JSON Schema; the report tools declare theirs.
    let tools = steps[1]["tools"].as_array().expect("tools");
    let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    assert_eq!(
        names,
        [
            "apply", "edit", "check", "read", "grep", "ls", "glob", "undo", "redo", "status",
            "log", "show"
        ]
    );
    for t in tools {
        assert_eq!(
            t["inputProblem"],
            Value::Null,
            "{}: {}",
            t["name"],
            t["inputProblem"]
        );
        assert_eq!(
            t["outputProblem"],
            Value::Null,
            "{}: {}",
            t["name"],
            t["outputProblem"]
        );
        let reports = ["apply", "edit", "check"];
        assert_eq!(
            t["hasOutputSchema"],
            reports.contains(&t["name"].as_str().unwrap_or_default()),
            "{}",
            t["name"]
        );
    }
    let edit = &tools[1];
    let actions = edit["inputSchema"]["properties"]["actions"]["items"]["properties"]["action"]
        ["enum"]
        .as_array()
        .expect("edit lists the actions");
    assert!(actions.contains(&json!("file_replace_text")));
    assert!(edit["inputSchema"]["properties"]["old_string"].is_object());
    // Options come from the clap definitions, the agent's own and no more.
    let apply_props = &tools[0]["inputSchema"]["properties"];
    assert!(apply_props["atomic"]["description"]
        .as_str()
        .unwrap_or_default()
        .contains("All-or-nothing"));
    assert!(apply_props.get("exec").is_none() && apply_props.get("no_verify").is_none());
    assert_eq!(tools[3]["readOnly"], true);
    assert_eq!(tools[1]["readOnly"], false);

    assert_eq!(steps[2]["prompts"], json!(["nesl", "nesl-upper", "sham"]));
    assert!(text(&steps[3]).contains("### file_write"));
    assert!(!text(&steps[3]).contains("### exec"));
    assert_eq!(steps[4]["error"]["code"], -32602, "{:#}", steps[4]);

    // apply: one block applied and committed, one failed with its hint.
    let applied = &steps[5];
    assert_eq!(applied["isError"], true, "{applied:#}");
    assert!(text(applied).contains("k2x ❌"), "{}", text(applied));
    assert!(
        text(applied).contains("closest match at lines 2-2"),
        "{}",
        text(applied)
    );
    let report = &applied["structured"];
    assert_eq!(report["results"][0]["success"], true);
    assert_eq!(report["results"][1]["hint"]["kind"], "not_found");
    assert!(report["gitCommit"].is_string());

    // edit in the editor-tool shape: one more AI commit, with the session.
    let edited = &steps[6];
    assert_eq!(edited["isError"], false, "{edited:#}");
    assert_eq!(
        edited["structured"]["results"][0]["action"],
        "file_replace_text"
    );
    // The user's work stayed uncommitted.
    assert_eq!(steps[7]["stdout"], " M README.md\n?? notes.txt\n");
    assert!(
        text(&steps[8]).contains("2:     return sum(xs) or 0"),
        "{}",
        text(&steps[8])
    );
    assert_eq!(
        steps[9]["structured"]["results"][0]["data"][0]["file"],
        "src/util.py"
    );
    assert!(
        text(&steps[10]).contains("session py-one"),
        "{}",
        text(&steps[10])
    );

    // A path outside the repository, and under .git, are refused; nothing is written.
    for refused in [&steps[11], &steps[12]] {
        assert_eq!(refused["isError"], true, "{refused:#}");
        assert_eq!(
            refused["structured"]["results"][0]["refused"], true,
            "{refused:#}"
        );
    }
    assert!(
        text(&steps[11]).contains("path_escape"),
        "{}",
        text(&steps[11])
    );
    assert!(!repo
        .path()
        .parent()
        .expect("parent")
        .join("outside.txt")
        .exists());

    // Two undos: the repository is exactly as before, the user's work included.
    for undone in [&steps[13], &steps[14]] {
        assert_eq!(undone["isError"], false, "{undone:#}");
        assert_eq!(undone["structured"]["operation"], "undo");
    }
    assert_eq!(steps[15]["isError"], false);
    assert_same_user_state(&repo.state(), &before, "after the two undos");
    assert_eq!(subjects(&repo), ["initial"]);
    repo.assert_fsck();
}

#[test]
#[cfg_attr(
    not(has_mcp_sdk),
    ignore = "needs the Python MCP SDK (bash scripts/test installs it)"
)]
fn exec_approval_is_an_elicitation_where_the_client_can_show_one() {
    let Some(python) = python_or_skip() else {
        return;
    };
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let run = |answer: Value, file: &str| -> Value {
        let mut s = spec(
            &repo,
            server(&["--exec", "ask"]),
            json!([{"do": "call", "tool": "edit", "args": {"actions": [
                {"action": "exec", "lang": "bash", "code": format!("echo ran > {file}")}
            ]}}]),
        );
        s["elicit"] = answer;
        steps(&run_client(&python, &repo, &s)).remove(0)
    };
    let yes = run(json!("yes"), "yes.txt");
    assert_eq!(yes["isError"], false, "{yes:#}");
    let asked = yes["elicited"][0].as_str().unwrap_or_default();
    assert!(asked.contains("echo ran > yes.txt"), "{asked}");
    assert_eq!(repo.read("yes.txt"), "ran\n");
    assert!(repo.git(&["ls-files"]).contains("yes.txt"), "committed");

    let declined = run(json!("decline"), "no.txt");
    assert_eq!(declined["isError"], true);
    assert!(text(&declined).contains("declined"), "{}", text(&declined));
    assert!(!repo.exists("no.txt"));

    // A client that cannot show a form: refused, with how to approve it.
    let unasked = run(Value::Null, "never.txt");
    assert_eq!(unasked["isError"], true);
    assert_eq!(unasked["elicited"], json!([]));
    // The how-to is the user's (issue 26), and the agent talks to the user: it is in the
    // structured result and in the text, under the ⏸ line (issue 40).
    let how = unasked["structured"]["results"][0]["needsUser"]["how"]
        .as_str()
        .unwrap_or_default();
    assert!(
        how.contains(".git/clada/allowed-commands.json"),
        "{unasked:#}"
    );
    assert!(text(&unasked).contains("⏸"), "{}", text(&unasked));
    assert!(
        text(&unasked).contains(&format!("    for the user — to allow it: {how}")),
        "{}",
        text(&unasked)
    );
    assert!(!repo.exists("never.txt"));
    repo.assert_fsck();
}

#[test]
#[cfg_attr(
    not(has_mcp_sdk),
    ignore = "needs the Python MCP SDK (bash scripts/test installs it)"
)]
fn a_long_exec_reports_progress_and_a_cancelled_call_stops_it() {
    let Some(python) = python_or_skip() else {
        return;
    };
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let exec = |code: &str| json!({"actions": [{"action": "exec", "lang": "bash", "code": code}]});
    let steps = steps(&run_client(
        &python,
        &repo,
        &spec(
            &repo,
            server(&["--exec", "allow"]),
            json!([
                {"do": "call", "tool": "edit", "args": exec("sleep 1; echo done"), "progress": true},
                {"do": "cancel", "tool": "edit", "args": exec("echo $$ > pid.txt; sleep 60.25; echo late > late.txt"), "when_file": "pid.txt"},
                {"do": "call", "tool": "edit", "args": {"path": "a.txt", "old_string": "a", "new_string": "b"}},
            ]),
        ),
    ));
    let progressed = &steps[0];
    assert_eq!(progressed["isError"], false, "{progressed:#}");
    let messages: Vec<&str> = progressed["progress"]
        .as_array()
        .expect("progress")
        .iter()
        .filter_map(|p| p["message"].as_str())
        .collect();
    assert!(
        messages
            .iter()
            .any(|m| m.contains("block task-1: bash code")),
        "{messages:?}"
    );
    let cancelled = &steps[1];
    assert_eq!(cancelled["cancelled"], true, "{cancelled:#}");
    assert_eq!(cancelled["finished"], false, "{cancelled:#}");
    // The block runs in its own PID namespace where it can (issue 37 §1), so the pid it wrote
    // is not one this side can look up: the block's `sleep 60.25` must be gone from every
    // process on the machine instead (waited for a little: the kill is asynchronous).
    let sleeping = || {
        std::fs::read_dir("/proc")
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|e| std::fs::read(e.path().join("cmdline")).ok())
            .any(|c| c.split(|&b| b == 0).any(|arg| arg == b"60.25"))
    };
    let mut gone = !sleeping();
    for _ in 0..50 {
        if gone {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
        gone = !sleeping();
    }
    assert!(gone, "the exec's process was killed: {cancelled:#}");
    assert!(!repo.exists("late.txt"));
    // The server kept serving and the repository lock is free.
    assert_eq!(steps[2]["isError"], false, "{:#}", steps[2]);
    assert_eq!(repo.read("a.txt"), "b\n");
    repo.assert_fsck();
}

#[test]
#[cfg_attr(
    not(has_mcp_sdk),
    ignore = "needs the Python MCP SDK (bash scripts/test installs it)"
)]
fn two_clients_at_once_are_serialised_and_a_held_lock_is_a_clear_tool_error() {
    let Some(python) = python_or_skip() else {
        return;
    };
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let writes = |prefix: &str| -> Value {
        (1..=3)
            .map(|i| {
                json!({"do": "call", "tool": "edit", "args": {"actions": [
                    {"action": "file_write", "path": format!("{prefix}{i}.txt"), "content": format!("{prefix} {i}\n")}
                ]}})
            })
            .collect()
    };
    let both = json!({"parallel": [
        spec(&repo, server(&["--session", "left"]), writes("left")),
        spec(&repo, server(&["--session", "right"]), writes("right")),
    ]});
    let transcript = run_client(&python, &repo, &both);
    let mut ok = 0;
    for client in transcript["parallel"].as_array().expect("two transcripts") {
        for s in steps(client) {
            if s["isError"] == false {
                ok += 1;
            } else {
                assert!(
                    text(&s).contains("another git-clada is running"),
                    "a failure must be the lock's: {s:#}"
                );
            }
        }
    }
    assert_eq!(
        subjects(&repo).len(),
        1 + ok,
        "one commit per successful call"
    );
    assert_eq!(repo.status(), "");
    repo.assert_fsck();

    // Held by someone else for longer than the wait: a tool error saying so, and the server
    // serves the next call.
    let steps = steps(&run_client(
        &python,
        &repo,
        &spec(
            &repo,
            server(&[]),
            json!([
                {"do": "lock", "path": ".git/clada.lock"},
                {"do": "call", "tool": "edit", "args": {"path": "a.txt", "old_string": "a", "new_string": "b"}},
                {"do": "unlock"},
                {"do": "call", "tool": "edit", "args": {"path": "a.txt", "old_string": "a", "new_string": "b"}},
            ]),
        ),
    ));
    assert_eq!(steps[1]["isError"], true);
    assert!(
        text(&steps[1]).contains("another git-clada is running"),
        "{}",
        text(&steps[1])
    );
    assert!(steps[1]["structured"]["fatalError"].is_string());
    assert_eq!(steps[3]["isError"], false, "{:#}", steps[3]);
    assert_eq!(repo.read("a.txt"), "b\n");
}

#[test]
#[cfg_attr(
    not(has_mcp_sdk),
    ignore = "needs the Python MCP SDK (bash scripts/test installs it)"
)]
fn squash_by_session_collapses_one_sessions_commits() {
    let Some(python) = python_or_skip() else {
        return;
    };
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let session = |name: &str, files: [&str; 2]| {
        let steps: Vec<Value> = files
            .iter()
            .map(|f| {
                json!({"do": "call", "tool": "edit", "args": {"actions": [
                    {"action": "file_write", "path": f, "content": format!("{name}\n")}
                ]}})
            })
            .collect();
        for s in self::steps(&run_client(
            &python,
            &repo,
            &spec(&repo, server(&["--session", name]), json!(steps)),
        )) {
            assert_eq!(s["isError"], false, "{s:#}");
        }
    };
    session("alpha", ["a1.txt", "a2.txt"]);
    session("beta", ["b1.txt", "b2.txt"]);
    let log = |repo: &TestRepo| -> Value {
        let out = repo.clada(&["--format", "json", "log"]);
        serde_json::from_slice(&out.stdout).expect("log json")
    };
    let sessions: Vec<Value> = log(&repo)["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .map(|e| e["sessions"].clone())
        .collect();
    assert_eq!(
        sessions,
        [
            json!(["beta"]),
            json!(["beta"]),
            json!(["alpha"]),
            json!(["alpha"])
        ]
    );
    let human = repo.clada(&["--format", "human", "log"]);
    assert!(
        output_text(&human).contains("session alpha"),
        "{}",
        output_text(&human)
    );

    let tree = repo.git(&["rev-parse", "HEAD^{tree}"]);
    let out = repo.clada(&[
        "--format",
        "json",
        "squash",
        "--mode",
        "session",
        "--session",
        "alpha",
    ]);
    assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
    let report: Value = serde_json::from_slice(&out.stdout).expect("squash json");
    assert_eq!(
        report["groups"][0]["squashed"].as_array().map(Vec::len),
        Some(2)
    );
    assert_eq!(
        repo.git(&["rev-parse", "HEAD^{tree}"]),
        tree,
        "same final tree"
    );
    let entries = log(&repo)["entries"].clone();
    assert_eq!(entries.as_array().map(Vec::len), Some(3));
    assert_eq!(entries[2]["kind"], "squash");
    assert_eq!(entries[2]["sessions"], json!(["alpha"]));
    assert!(repo
        .git(&["log", "-1", "--format=%B", "HEAD~2"])
        .contains("Clada-Session: alpha"));

    // Without --session: the newest session's commits (beta's).
    let out = repo.clada(&["squash", "--mode", "session"]);
    assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
    let entries = log(&repo)["entries"].clone();
    assert_eq!(entries.as_array().map(Vec::len), Some(2));
    assert_eq!(entries[0]["sessions"], json!(["beta"]));
    assert_eq!(entries[0]["kind"], "squash");
    assert_eq!(repo.git(&["rev-parse", "HEAD^{tree}"]), tree);
    repo.assert_fsck();

    // A session with one commit left has nothing to squash it with; --session elsewhere is a
    // usage error.
    let out = repo.clada(&["squash", "--mode", "session", "--session", "gamma"]);
    assert_eq!(exit_code(&out), 3, "{}", output_text(&out));
    let out = repo.clada(&["squash", "--mode", "auto_ai", "--session", "alpha"]);
    assert_eq!(exit_code(&out), 2, "{}", output_text(&out));
}

/// A JSON-RPC client of our own over the server's stdio, for what an SDK never sends.
struct Raw {
    child: std::process::Child,
    out: BufReader<std::process::ChildStdout>,
}

impl Raw {
    fn start(repo: &TestRepo) -> Raw {
        Raw::start_with(repo, &[], &[])
    }

    /// The server with more arguments and environment variables.
    fn start_with(repo: &TestRepo, args: &[&str], env: &[(&str, &str)]) -> Raw {
        let mut child = repo
            .clada_cmd()
            .args(["mcp", "--session", "raw"])
            .args(args)
            .envs(env.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start the server");
        let out = BufReader::new(child.stdout.take().expect("stdout"));
        Raw { child, out }
    }

    fn send(&mut self, line: &str) {
        let stdin = self.child.stdin.as_mut().expect("stdin");
        stdin.write_all(line.as_bytes()).expect("write");
        stdin.write_all(b"\n").expect("write");
        stdin.flush().expect("flush");
    }

    /// The next message from the server.
    fn recv(&mut self) -> Value {
        let mut line = String::new();
        self.out.read_line(&mut line).expect("read");
        assert!(!line.is_empty(), "the server closed its output");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"))
    }

    fn request(&mut self, id: u64, method: &str, params: Value) -> Value {
        self.send(
            &json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string(),
        );
        self.recv()
    }
}

#[test]
fn malformed_requests_get_errors_and_the_server_keeps_serving() {
    let repo = TestRepo::with_files(&[("a.txt", "hello world\n")]);
    let mut raw = Raw::start(&repo);
    // Before the handshake: a notification and a stray response are dropped, a request is
    // answered with an error; none of them ends the server.
    raw.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    raw.send(r#"{"jsonrpc":"2.0","id":99,"result":{}}"#);
    let early = raw.request(0, "tools/list", json!({}));
    assert!(early["error"]["code"].is_i64(), "{early:#}");
    let init = raw.request(
        1,
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}),
    );
    assert_eq!(
        init["result"]["serverInfo"]["name"], "git-clada",
        "{init:#}"
    );
    raw.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    // Not JSON at all: a parse error with `id: null` (there is no id to answer), and the
    // server goes on.
    raw.send("this is not json {");
    let parse = raw.recv();
    assert_eq!(parse["error"]["code"], -32700, "{parse:#}");
    assert_eq!(parse.get("id"), Some(&Value::Null), "{parse:#}");
    // A batch (MCP has none): an Invalid Request error with `id: null`, nothing run.
    raw.send(r#"[{"jsonrpc":"2.0","id":20,"method":"tools/list"},{"jsonrpc":"2.0","id":21,"method":"ping"}]"#);
    let batch = raw.recv();
    assert_eq!(batch["error"]["code"], -32600, "{batch:#}");
    assert_eq!(batch.get("id"), Some(&Value::Null), "{batch:#}");
    // JSON that is no request: an Invalid Request error, with its id.
    raw.send(r#"{"jsonrpc":"2.0","id":2,"params":7}"#);
    let invalid = raw.recv();
    assert_eq!(invalid["error"]["code"], -32600, "{invalid:#}");
    assert_eq!(invalid["id"], 2, "{invalid:#}");
    // A notification that is no message gets no answer: the next answer is the next request's.
    raw.send(r#"{"jsonrpc":"2.0","method":7}"#);
    let unknown = raw.request(3, "tools/frobnicate", json!({}));
    assert_eq!(unknown["error"]["code"], -32601, "{unknown:#}");
    let no_tool = raw.request(4, "tools/call", json!({"name": "rm_rf"}));
    assert_eq!(no_tool["error"]["code"], -32602, "{no_tool:#}");
    assert!(no_tool["error"]["message"]
        .as_str()
        .unwrap_or_default()
        .contains("the tools are"));
    let bad_args = raw.request(
        5,
        "tools/call",
        json!({"name": "apply", "arguments": {"reply": 42}}),
    );
    assert_eq!(bad_args["result"]["isError"], true, "{bad_args:#}");
    assert!(bad_args["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .contains("`reply` must be a string"));
    let not_json = raw.request(
        6,
        "tools/call",
        json!({"name": "edit", "arguments": {"actions": [{"action": "file_write"}]}}),
    );
    assert_eq!(not_json["result"]["isError"], true, "{not_json:#}");
    assert!(not_json["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .contains("Missing required parameter"));
    // A read tool runs its own action only, whatever it is sent.
    let sneaky = raw.request(
        8,
        "tools/call",
        json!({"name": "read", "arguments": {"path": "a.txt", "actions": [{"action": "file_write", "path": "pwned.txt", "content": "x"}]}}),
    );
    assert_eq!(sneaky["result"]["isError"], true, "{sneaky:#}");
    assert!(!repo.exists("pwned.txt"));
    // Still serving: a real edit goes through.
    let ok = raw.request(
        7,
        "tools/call",
        json!({"name": "edit", "arguments": {"path": "a.txt", "old_string": "world", "new_string": "raw"}}),
    );
    assert_eq!(ok["result"]["isError"], false, "{ok:#}");
    assert_eq!(repo.read("a.txt"), "hello raw\n");
    assert!(repo
        .git(&["log", "-1", "--format=%B"])
        .contains("Clada-Session: raw"));
    // Closing its input ends the server, with exit status 0.
    drop(raw.child.stdin.take());
    let status = raw.child.wait().expect("wait");
    assert_eq!(status.code(), Some(0));
    repo.assert_fsck();
}

/// Issue 51 §13: a request longer than the server reads (140 MB, the limit is 128 MiB) is
/// answered with an error naming the limit and carrying the request's id — here written
/// after the huge `params`, so it is read as the line streams past — and the server goes on.
#[test]
fn an_overlong_request_is_answered_with_its_id_and_the_limit() {
    let repo = TestRepo::with_files(&[("a.txt", "hello world\n")]);
    let mut raw = Raw::start(&repo);
    let init = raw.request(
        1,
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}),
    );
    assert_eq!(
        init["result"]["serverInfo"]["name"], "git-clada",
        "{init:#}"
    );
    raw.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    {
        let stdin = raw.child.stdin.as_mut().expect("stdin");
        stdin
            .write_all(br#"{"jsonrpc":"2.0","method":"tools/call","params":{"name":"apply","arguments":{"reply":""#)
            .expect("write");
        let chunk = vec![b'x'; 1 << 20];
        for _ in 0..140 {
            stdin.write_all(&chunk).expect("write");
        }
        stdin.write_all(b"\"}},\"id\":\"big-7\"}\n").expect("write");
        stdin.flush().expect("flush");
    }
    let answer = raw.recv();
    assert_eq!(answer["id"], "big-7", "{answer:#}");
    assert_eq!(answer["error"]["code"], -32600, "{answer:#}");
    let message = answer["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("134217728 bytes (128 MiB)"), "{message}");
    // The next request is served as usual.
    let ok = raw.request(
        2,
        "tools/call",
        json!({"name": "edit", "arguments": {"path": "a.txt", "old_string": "world", "new_string": "raw"}}),
    );
    assert_eq!(ok["result"]["isError"], false, "{ok:#}");
    assert_eq!(repo.read("a.txt"), "hello raw\n");
    drop(raw.child.stdin.take());
    assert_eq!(raw.child.wait().expect("wait").code(), Some(0));
}

/// Issue 51 §10 and §11: an MCP result whose exec block ran where no user namespace can be
/// made (`CLADA_TEST_NO_NAMESPACES`, honoured by debug builds) says what the sandbox went
/// without, and names the variables the block did not get; one where nothing ran says neither.
#[test]
fn an_mcp_result_says_the_sandbox_ran_without_namespaces_and_what_it_withheld() {
    let repo = TestRepo::with_files(&[("a.txt", "hello world\n")]);
    let mut raw = Raw::start_with(
        &repo,
        &["--exec", "allow"],
        &[("CLADA_TEST_NO_NAMESPACES", "1"), ("DB_PASS", "V-DBPASS")],
    );
    raw.request(
        1,
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}),
    );
    raw.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    let reply = block(
        "m01",
        &[("action", "exec"), ("lang", "bash"), ("code", "echo ran")],
    );
    let ran = raw.request(
        2,
        "tools/call",
        json!({"name": "apply", "arguments": {"reply": reply}}),
    );
    let text = ran["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    let structured = ran["result"]["structuredContent"]["warnings"].to_string();
    for said in [text, structured.as_str()] {
        assert!(
            said.contains("no user namespaces can be made here"),
            "{ran:#}"
        );
        assert!(
            said.contains("DB_PASS") && !said.contains("V-DBPASS"),
            "{ran:#}"
        );
    }
    let edit = raw.request(
        3,
        "tools/call",
        json!({"name": "edit", "arguments": {"path": "a.txt", "old_string": "world", "new_string": "raw"}}),
    );
    assert_eq!(edit["result"]["isError"], false, "{edit:#}");
    let all = edit.to_string();
    assert!(
        !all.contains("no user namespaces") && !all.contains("DB_PASS"),
        "{edit:#}"
    );
    drop(raw.child.stdin.take());
    assert_eq!(raw.child.wait().expect("wait").code(), Some(0));
}

/// Issue 51 §8: code whose worktree files cannot be read with certainty is offered yes and
/// no in the elicitation, never always, and the message says why; one that can be read is
/// offered always too.
#[test]
fn an_elicitation_offers_no_always_for_code_that_cannot_be_read_with_certainty() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let mut raw = Raw::start_with(&repo, &["--exec", "ask"], &[]);
    raw.request(
        1,
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {"elicitation": {}}, "clientInfo": {"name": "raw", "version": "1"}}),
    );
    raw.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    for (id, code, enumerated) in [
        (2, "eval 'echo ran > e.txt'", json!(["yes", "no"])),
        (3, "echo ran > y.txt", json!(["yes", "no", "always"])),
    ] {
        raw.send(
            &json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "edit", "arguments": {"actions": [{"action": "exec", "lang": "bash", "code": code}]}}})
                .to_string(),
        );
        let asked = raw.recv();
        assert_eq!(asked["method"], "elicitation/create", "{asked:#}");
        let schema = &asked["params"]["requestedSchema"]["properties"]["answer"];
        assert_eq!(schema["enum"], enumerated, "{code}: {asked:#}");
        let message = asked["params"]["message"].as_str().unwrap_or_default();
        assert_eq!(
            message.contains("cannot be approved for always") && message.contains("eval"),
            id == 2,
            "{message}"
        );
        raw.send(
            &json!({"jsonrpc": "2.0", "id": asked["id"], "result": {"action": "accept", "content": {"answer": "yes"}}})
                .to_string(),
        );
        let done = raw.recv();
        assert_eq!(done["id"], id, "{done:#}");
        assert_eq!(done["result"]["isError"], false, "{done:#}");
    }
    assert_eq!(repo.read("e.txt"), "ran\n");
    drop(raw.child.stdin.take());
    assert_eq!(raw.child.wait().expect("wait").code(), Some(0));
}

#[test]
fn the_server_refuses_to_start_outside_a_repository() {
    let dir = tempfile::tempdir().expect("tempdir");
    let repo = TestRepo::new();
    let out = repo
        .clada_cmd()
        .current_dir(dir.path())
        .args(["mcp"])
        .stdin(Stdio::null())
        .output()
        .expect("run");
    assert_eq!(exit_code(&out), 2, "{}", output_text(&out));
    assert!(
        output_text(&out).contains("--no-git"),
        "{}",
        output_text(&out)
    );
    let out = repo
        .clada_cmd()
        .args(["mcp", "--session", "has space"])
        .stdin(Stdio::null())
        .output()
        .expect("run");
    assert_eq!(exit_code(&out), 2, "{}", output_text(&out));
}

/// Every schema object under `v` (the schema itself, its properties, items, …) that has
/// `properties`: each property without a `description` is listed as `path.name`.
fn undescribed(v: &Value, path: &str, out: &mut Vec<String>) {
    if let Some(props) = v.get("properties").and_then(Value::as_object) {
        for (name, p) in props {
            if p.get("description").is_none() {
                out.push(format!("{path}.{name}"));
            }
            undescribed(p, &format!("{path}.{name}"), out);
        }
    }
    if let Some(items) = v.get("items") {
        undescribed(items, &format!("{path}[]"), out);
    }
}

#[test]
fn the_tool_list_is_small_and_every_argument_is_described() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let mut raw = Raw::start(&repo);
    raw.request(
        1,
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}),
    );
    raw.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    let listed = raw.request(2, "tools/list", json!({}));
    let tools = listed["result"]["tools"].as_array().expect("tools").clone();
    // Clients load the list into every conversation; the reference filesystem server's is
    // 14 KB.
    let size = serde_json::to_string(&listed["result"])
        .expect("json")
        .len();
    assert!(size < 20_000, "the tool list is {size} bytes");
    let mut missing = Vec::new();
    for t in &tools {
        undescribed(
            &t["inputSchema"],
            t["name"].as_str().unwrap_or("?"),
            &mut missing,
        );
    }
    assert_eq!(
        missing,
        Vec::<String>::new(),
        "properties without a description"
    );
    // No `anyOf` for `actions` (some clients flatten it into one object of every parameter).
    let edit = tools.iter().find(|t| t["name"] == "edit").expect("edit");
    assert!(
        !edit["inputSchema"].to_string().contains("anyOf"),
        "{}",
        edit["inputSchema"]
    );
    drop(raw.child.stdin.take());
    let _ = raw.child.wait();
}

/// The MCP Inspector's CLI (npm `@modelcontextprotocol/inspector`), which `scripts/test`
/// installs into target/ci-tools/inspector.
fn inspector_or_skip() -> Option<PathBuf> {
    let bin = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("target/ci-tools/inspector/node_modules/.bin/mcp-inspector");
    if bin.exists() {
        return Some(bin);
    }
    panic!(
        "the MCP Inspector is not in target/ci-tools/inspector (bash scripts/test installs it \
         from npm)"
    );
}

#[test]
#[cfg_attr(
    not(has_inspector),
    ignore = "needs the MCP Inspector (bash scripts/test installs it)"
)]
fn the_inspector_in_strict_mode_finds_no_portability_problem_in_the_tools() {
    let Some(inspector) = inspector_or_skip() else {
        return;
    };
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let out = repo
        .command(&inspector)
        .args(["--cli", "--method", "tools/list", "--strict"])
        .arg(env!("CARGO_BIN_EXE_git-clada"))
        .arg("mcp")
        .stdin(Stdio::null())
        .output()
        .expect("run the inspector");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
    let listed: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", output_text(&out)));
    assert_eq!(
        listed["tools"].as_array().map(Vec::len),
        Some(12),
        "{listed}"
    );
    // Only the server's own line on stderr: no warning, no error, no count of them.
    let problems: Vec<&str> = err
        .lines()
        .filter(|l| !l.starts_with("git-clada: serving MCP"))
        .filter(|l| !l.trim().is_empty())
        .collect();
    assert_eq!(problems, Vec::<&str>::new(), "{err}");
}

#[test]
#[cfg_attr(
    not(has_mcp_sdk),
    ignore = "needs the Python MCP SDK (bash scripts/test installs it)"
)]
fn editor_semantics_paging_and_the_undo_list_are_what_an_agent_expects() {
    let Some(python) = python_or_skip() else {
        return;
    };
    let long: String = (1..=5000).map(|i| format!("line {i}\n")).collect();
    let wide = format!("{}\n", "x".repeat(10_000));
    let repo = TestRepo::with_files(&[
        ("a.py", "one = 1\ntwo = 2\n"),
        ("long.txt", &long),
        ("wide.txt", &wide),
        ("empty.py", ""),
    ]);
    let steps = steps(&run_client(
        &python,
        &repo,
        &spec(
            &repo,
            server(&[]),
            json!([
                // One file's edits: all or nothing (the second does not match).
                {"do": "call", "tool": "edit", "args": {"path": "a.py", "edits": [
                    {"old_string": "one = 1", "new_string": "one = 11"},
                    {"old_string": "three = 3", "new_string": "three = 33"}]}},
                {"do": "git", "args": ["status", "--porcelain"]},
                // Unless the call says otherwise.
                {"do": "call", "tool": "edit", "args": {"path": "a.py", "atomic": false, "edits": [
                    {"old_string": "one = 1", "new_string": "one = 11"},
                    {"old_string": "three = 3", "new_string": "three = 33"}]}},
                // Nothing to change is refused; an empty old_string fills an empty file.
                {"do": "call", "tool": "edit", "args": {"path": "a.py", "old_string": "two = 2", "new_string": "two = 2"}},
                {"do": "call", "tool": "edit", "args": {"path": "empty.py", "old_string": "", "new_string": "print(1)\n"}},
                // An empty old_string on a file with content is still refused.
                {"do": "call", "tool": "edit", "args": {"path": "a.py", "old_string": "", "new_string": "x\n"}},
                // Paging.
                {"do": "call", "tool": "read", "args": {"path": "long.txt"}},
                {"do": "call", "tool": "read", "args": {"path": "long.txt", "offset": 2001, "limit": 3}},
                {"do": "call", "tool": "read", "args": {"path": "long.txt", "lines": "4999-"}},
                {"do": "call", "tool": "read", "args": {"path": "wide.txt"}},
                {"do": "call", "tool": "read", "args": {"path": "long.txt", "lines": "1-2", "offset": 3}},
                // The undo list, as advertised.
                {"do": "call", "tool": "undo", "args": {"list": true}},
            ]),
        ),
    ));
    let all_or_nothing = &steps[0];
    assert_eq!(all_or_nothing["isError"], true, "{all_or_nothing:#}");
    assert_eq!(steps[1]["stdout"], "", "the first edit was not kept either");
    let partial = &steps[2];
    assert_eq!(partial["isError"], true, "{partial:#}");
    assert_eq!(partial["structured"]["results"][0]["success"], true);
    assert_eq!(repo.read("a.py"), "one = 11\ntwo = 2\n");

    let same = &steps[3];
    assert_eq!(same["isError"], true, "{same:#}");
    assert!(text(same).contains("nothing to change"), "{}", text(same));
    let filled = &steps[4];
    assert_eq!(filled["isError"], false, "{filled:#}");
    assert_eq!(repo.read("empty.py"), "print(1)\n");
    let refused = &steps[5];
    assert_eq!(refused["structured"]["results"][0]["code"], "file_exists");

    // One page of at most 2,000 lines, and how to read on.
    let first = &steps[6];
    assert_eq!(first["isError"], false, "{first:#}");
    let content = first["structured"]["results"][0]["data"]["content"]
        .as_str()
        .unwrap_or_default();
    assert_eq!(content.lines().count(), 2000);
    assert!(
        content.ends_with("2000: line 2000"),
        "{}",
        &content[content.len() - 40..]
    );
    assert!(
        text(first).contains(r#"read on with {"path": "long.txt", "offset": 2001}"#),
        "{}",
        &text(first)[text(first).len().saturating_sub(600)..]
    );
    assert!(text(first).len() < 60_000, "{}", text(first).len());
    let next = first_content(&steps[7]);
    assert_eq!(next, "2001: line 2001\n2002: line 2002\n2003: line 2003");
    assert_eq!(first_content(&steps[8]), "4999: line 4999\n5000: line 5000");
    let wide = &steps[9];
    let line = first_content(wide);
    assert!(
        line.chars().count() < 2_100 && line.ends_with(" …"),
        "{}",
        line.len()
    );
    assert!(
        text(wide).contains("line 1 longer than 2000 characters was cut"),
        "{}",
        text(wide)
    );
    assert_eq!(steps[10]["isError"], true);
    assert!(
        text(&steps[10]).contains("either `lines` or `offset`/`limit`"),
        "{}",
        text(&steps[10])
    );

    let list = &steps[11];
    assert_eq!(list["isError"], false, "{list:#}");
    assert!(text(list).contains("AI: edit a.py"), "{}", text(list));
    repo.assert_fsck();
}

/// The content the first result of a read call returned.
fn first_content(step: &Value) -> String {
    step["structured"]["results"][0]["data"]["content"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[test]
#[cfg_attr(
    not(has_mcp_sdk),
    ignore = "needs the Python MCP SDK (bash scripts/test installs it)"
)]
fn one_servers_calls_queue_with_progress_and_a_cancelled_queued_call_never_runs() {
    let Some(python) = python_or_skip() else {
        return;
    };
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let exec = |code: &str| json!({"actions": [{"action": "exec", "lang": "bash", "code": code}]});
    let steps = steps(&run_client(
        &python,
        &repo,
        &spec(
            &repo,
            server(&["--exec", "allow"]),
            json!([{"do": "together", "calls": [
                {"tool": "edit", "args": exec("touch started.txt; sleep 4; echo done > slow.txt")},
                {"tool": "edit", "args": {"path": "a.txt", "old_string": "a", "new_string": "b"},
                 "progress": true, "when_file": "started.txt"},
                {"tool": "edit", "args": {"actions": [{"action": "file_write", "path": "never.txt", "content": "x"}]},
                 "when_file": "started.txt", "cancel_when_file": "started.txt"},
            ]}]),
        ),
    ));
    let calls = steps[0]["calls"].as_array().expect("calls").clone();
    assert_eq!(calls[0]["isError"], false, "{:#}", calls[0]);
    // The second waited its turn instead of failing on the lock its own server held.
    let queued = &calls[1];
    assert_eq!(queued["isError"], false, "{queued:#}");
    assert!(
        !text(queued).contains("another git-clada"),
        "{}",
        text(queued)
    );
    let messages: Vec<&str> = queued["progress"]
        .as_array()
        .expect("progress")
        .iter()
        .filter_map(|p| p["message"].as_str())
        .collect();
    assert!(
        messages
            .iter()
            .any(|m| m.starts_with("queued behind edit (request ")
                && m.contains("block task-1 (bash) running for")),
        "{messages:?}"
    );
    // The cancelled one never ran.
    assert_eq!(calls[2]["cancelled"], true, "{:#}", calls[2]);
    assert_eq!(calls[2]["finished"], false, "{:#}", calls[2]);
    assert!(!repo.exists("never.txt"));
    assert_eq!(repo.read("slow.txt"), "done\n");
    assert_eq!(repo.read("a.txt"), "b\n");
    assert_eq!(subjects(&repo).len(), 3, "{:?}", subjects(&repo));
    assert_eq!(repo.status(), "");
    repo.assert_fsck();
}

/// A Raw client past the handshake.
fn raw_session(repo: &TestRepo) -> Raw {
    let mut raw = Raw::start(repo);
    raw.request(
        1,
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}),
    );
    raw.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    raw
}

fn call_text(answer: &Value) -> &str {
    answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
}

#[test]
fn an_idempotency_key_makes_a_retry_return_the_first_report_without_applying_again() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let commits = || {
        repo.git(&["rev-list", "--count", "HEAD"])
            .trim()
            .to_string()
    };
    let append = |line: &str| json!({"actions": [{"action": "file_append", "path": "log.txt", "content": line}]});
    let keyed = |args: &Value, key: &str| {
        let mut args = args.clone();
        args["idempotency_key"] = json!(key);
        json!({"name": "edit", "arguments": args})
    };
    let mut raw = raw_session(&repo);
    let first = raw.request(2, "tools/call", keyed(&append("one\n"), "k-1"));
    assert_eq!(first["result"]["isError"], false, "{first:#}");
    let commit = first["result"]["structuredContent"]["gitCommit"].clone();
    assert!(commit.is_string(), "{first:#}");
    assert_eq!(repo.read("log.txt"), "one\n");
    assert_eq!(commits(), "2");
    // The retry (its keys in another order): the first report, marked, nothing applied.
    let retry = raw.request(
        3,
        "tools/call",
        json!({"name": "edit", "arguments": {"idempotency_key": "k-1", "actions": [{"content": "one\n", "path": "log.txt", "action": "file_append"}]}}),
    );
    assert_eq!(retry["result"]["isError"], false, "{retry:#}");
    assert_eq!(
        retry["result"]["structuredContent"]["replay"], true,
        "{retry:#}"
    );
    assert_eq!(retry["result"]["structuredContent"]["gitCommit"], commit);
    assert!(call_text(&retry).starts_with("replay: "), "{retry:#}");
    assert!(call_text(&retry).contains("=== CLADA RESULTS ==="));
    assert_eq!(repo.read("log.txt"), "one\n");
    assert_eq!(commits(), "2");
    // The same key with other arguments is refused; nothing changes.
    let other = raw.request(4, "tools/call", keyed(&append("two\n"), "k-1"));
    assert_eq!(other["result"]["isError"], true, "{other:#}");
    assert!(
        call_text(&other).contains("idempotency_key \"k-1\" was already used")
            && call_text(&other).contains("a new change needs a new key"),
        "{other:#}"
    );
    assert_eq!(repo.read("log.txt"), "one\n");
    // Without a key, or with a new one, the same call is a new intent and runs.
    let again = raw.request(5, "tools/call", keyed(&append("one\n"), "k-2"));
    assert_eq!(again["result"]["isError"], false, "{again:#}");
    assert!(again["result"]["structuredContent"].get("replay").is_none());
    assert_eq!(repo.read("log.txt"), "one\none\n");
    // `apply` too.
    let reply = write_block("i01", "b.txt", "bee\n");
    let applied = raw.request(
        6,
        "tools/call",
        json!({"name": "apply", "arguments": {"reply": reply, "idempotency_key": "k-apply"}}),
    );
    assert_eq!(applied["result"]["isError"], false, "{applied:#}");
    repo.write("b.txt", "the user's own b\n");
    let applied_again = raw.request(
        7,
        "tools/call",
        json!({"name": "apply", "arguments": {"reply": reply, "idempotency_key": "k-apply"}}),
    );
    assert_eq!(
        applied_again["result"]["structuredContent"]["replay"], true,
        "{applied_again:#}"
    );
    assert_eq!(repo.read("b.txt"), "the user's own b\n");
    // A key that is no string is refused.
    let bad = raw.request(
        8,
        "tools/call",
        json!({"name": "edit", "arguments": {"idempotency_key": 7, "path": "a.txt", "old_string": "a", "new_string": "b"}}),
    );
    assert_eq!(bad["result"]["isError"], true, "{bad:#}");
    assert_eq!(repo.read("a.txt"), "a\n");
    drop(raw.child.stdin.take());
    let _ = raw.child.wait();
    repo.write("b.txt", "bee\n");

    // The key is the repository's: another server process replays it too.
    let mut raw = raw_session(&repo);
    let later = raw.request(2, "tools/call", keyed(&append("one\n"), "k-1"));
    assert_eq!(
        later["result"]["structuredContent"]["replay"], true,
        "{later:#}"
    );
    assert_eq!(repo.read("log.txt"), "one\none\n");
    // After 24 hours it is forgotten: the call runs again.
    let store = repo.path().join(".git/clada/mcp-idempotency.json");
    let mut kept: Value =
        serde_json::from_slice(&std::fs::read(&store).expect("the store")).expect("json");
    let day_ago = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("clock")
        .as_secs()
        - 25 * 3600;
    for e in kept["entries"].as_array_mut().expect("entries") {
        e["at"] = json!(day_ago);
    }
    std::fs::write(&store, kept.to_string()).expect("write the store");
    let expired = raw.request(3, "tools/call", keyed(&append("one\n"), "k-1"));
    assert_eq!(expired["result"]["isError"], false, "{expired:#}");
    assert!(expired["result"]["structuredContent"]
        .get("replay")
        .is_none());
    assert_eq!(repo.read("log.txt"), "one\none\none\n");
    // Expired entries are pruned when the store is written.
    let kept: Value =
        serde_json::from_slice(&std::fs::read(&store).expect("the store")).expect("json");
    assert_eq!(kept["entries"].as_array().map(Vec::len), Some(1), "{kept}");
    drop(raw.child.stdin.take());
    let _ = raw.child.wait();
    assert_eq!(repo.status(), "");
    repo.assert_fsck();
}

#[test]
fn the_servers_memory_of_stat_data_and_objects_survives_the_users_git_between_calls() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n"), ("b.txt", "b\n")]);
    let edit = |old: &str, new: &str| json!({"name": "edit", "arguments": {"path": "a.txt", "old_string": old, "new_string": new}});
    let ok = |answer: &Value| {
        assert_eq!(answer["result"]["isError"], false, "{answer:#}");
    };
    // Older than two seconds, the repository's files let the server keep the repository it
    // opened (`repo::OpenCache`): its object store must see the user's gc as well.
    std::thread::sleep(std::time::Duration::from_millis(2200));
    let mut raw = raw_session(&repo);
    ok(&raw.request(2, "tools/call", edit("a\n", "b\n")));
    ok(&raw.request(3, "tools/call", edit("b\n", "c\n")));
    // The user drops the last AI commit and prunes its objects from disk: the server has
    // read and written them, and must not take them for present when it needs them again.
    repo.git(&["reset", "-q", "--hard", "HEAD~1"]);
    repo.git(&["reflog", "expire", "--expire=now", "--all"]);
    repo.git(&["gc", "-q", "--prune=now"]);
    repo.write("b.txt", "the user's work\n");
    // The same change again: the same blob and trees as the pruned ones.
    ok(&raw.request(4, "tools/call", edit("b\n", "c\n")));
    assert_eq!(repo.git(&["show", "HEAD:a.txt"]), "c\n");
    assert_eq!(repo.git(&["show", "HEAD:b.txt"]), "b\n");
    assert_eq!(repo.status().trim_end(), " M b.txt");
    repo.assert_fsck();
    let full = repo.git_output(&["fsck", "--full", "--strict"]);
    assert!(
        full.status.success(),
        "{}",
        String::from_utf8_lossy(&full.stderr)
    );
    // The user's edit of the file the next call edits is seen as the user's: the AI's change
    // next to it is not committed over it.
    let head = repo.head();
    repo.write("a.txt", "c\nmine\n");
    let last = raw.request(5, "tools/call", edit("c\n", "d\n"));
    ok(&last);
    assert!(
        call_text(&last).contains("overlaps your uncommitted change"),
        "{last:#}"
    );
    assert_eq!(repo.head(), head);
    assert_eq!(repo.read("a.txt"), "d\nmine\n");
    drop(raw);
}

/// The server keeps the repository it opened between calls (`repo::OpenCache`), so a change
/// of configuration between calls must reach the next call: here the commit-msg hook that
/// `core.hooksPath` names, set first in a global config that did not exist when the server
/// started, then removed again after the server had kept the repository once more.
#[test]
fn a_configuration_change_between_calls_reaches_the_next_call() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    repo.write(
        "myhooks/commit-msg",
        "#!/bin/sh\nprintf '\\nReviewed-by: hook\\n' >> \"$1\"\n",
    );
    repo.set_executable("myhooks/commit-msg");
    repo.git(&["add", "myhooks"]);
    repo.git(&["commit", "-q", "-m", "hooks"]);
    let edit = |old: &str, new: &str| json!({"name": "edit", "arguments": {"path": "a.txt", "old_string": old, "new_string": new}});
    let reviewed = || {
        repo.git(&["log", "-1", "--format=%B"])
            .contains("Reviewed-by: hook")
    };
    let ok = |answer: &Value| assert_eq!(answer["result"]["isError"], false, "{answer:#}");
    // Files changed in the last two seconds are never trusted to show the next change: wait
    // until the repository's are older, so the server keeps what it opens.
    let settle = || std::thread::sleep(std::time::Duration::from_millis(2200));
    settle();
    let mut raw = raw_session(&repo);
    ok(&raw.request(2, "tools/call", edit("a\n", "b\n")));
    ok(&raw.request(3, "tools/call", edit("b\n", "c\n")));
    assert!(!reviewed());
    repo.git(&["config", "--global", "core.hooksPath", "myhooks"]);
    ok(&raw.request(4, "tools/call", edit("c\n", "d\n")));
    assert!(reviewed(), "the new global core.hooksPath was not seen");
    settle();
    ok(&raw.request(5, "tools/call", edit("d\n", "e\n")));
    assert!(reviewed());
    repo.git(&["config", "--global", "--unset", "core.hooksPath"]);
    ok(&raw.request(6, "tools/call", edit("e\n", "f\n")));
    assert!(!reviewed(), "the removed core.hooksPath was still used");
    assert_eq!(repo.read("a.txt"), "f\n");
    repo.assert_fsck();
    drop(raw);
}

/// The server remembers the index it wrote (decoded from the bytes written) for its next
/// call; an index the user's git wrote since is a new file and is read, not the memory.
#[test]
fn the_users_staging_between_calls_reaches_the_next_call() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n"), ("b.txt", "b\n"), ("c.txt", "c\n")]);
    let edit = |old: &str, new: &str| json!({"name": "edit", "arguments": {"path": "a.txt", "old_string": old, "new_string": new}});
    let ok = |answer: &Value| assert_eq!(answer["result"]["isError"], false, "{answer:#}");
    let mut raw = raw_session(&repo);
    ok(&raw.request(2, "tools/call", edit("a\n", "b\n")));
    repo.write("b.txt", "staged\n");
    repo.git(&["add", "b.txt"]);
    repo.git(&["rm", "-q", "--cached", "c.txt"]);
    ok(&raw.request(3, "tools/call", edit("b\n", "c\n")));
    let changed = repo.git(&["diff-tree", "--no-commit-id", "--name-only", "-r", "HEAD"]);
    assert_eq!(changed.trim_end(), "a.txt");
    assert_eq!(
        repo.git(&["diff", "--cached", "--name-status"]),
        "M\tb.txt\nD\tc.txt\n"
    );
    assert_eq!(repo.status(), "M  b.txt\nD  c.txt\n?? c.txt\n");
    ok(&raw.request(4, "tools/call", edit("c\n", "d\n")));
    assert_eq!(
        repo.git(&["diff", "--cached", "--name-status"]),
        "M\tb.txt\nD\tc.txt\n"
    );
    assert_eq!(repo.git(&["show", "HEAD:a.txt"]), "d\n");
    repo.assert_fsck();
    drop(raw);
}
