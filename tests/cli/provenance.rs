//! Authorship logs in `refs/notes/ai` (issue 42): every AI commit git-clada makes carries a
//! log of the Git AI Standard v3.0.0 for the lines it wrote, validated here by the strict
//! parser (`clada_engine::authorship::Log::parse`) and read back with `git notes --ref=ai`.

use crate::common;

use std::io::{BufRead, BufReader, Write};
use std::process::Stdio;

use clada_engine::authorship::Log;
use common::{exit_code, output_text, replace_block, write_block, TestRepo};
use serde_json::{json, Value};

/// The log on `rev`, read with git and validated; panics when there is none or it is invalid.
fn log_of(repo: &TestRepo, rev: &str) -> Log {
    let out = repo.git_output(&["notes", "--ref=ai", "show", rev]);
    assert!(
        out.status.success(),
        "no log on {rev}: {}",
        output_text(&out)
    );
    let text = String::from_utf8(out.stdout).expect("UTF-8 log");
    let log = Log::parse(&text).unwrap_or_else(|e| panic!("invalid log on {rev}: {e}\n{text}"));
    let sha = repo.git(&["rev-parse", rev]);
    assert_eq!(
        log.meta.base_commit_sha,
        sha.trim(),
        "base_commit_sha of {rev}"
    );
    log
}

fn has_log(repo: &TestRepo, rev: &str) -> bool {
    repo.git_output(&["notes", "--ref=ai", "show", rev])
        .status
        .success()
}

/// `path`'s lines in `log` by agent tool: `(tool, model, conversation id, ranges)`.
fn lines_of(log: &Log, path: &str) -> Vec<(String, String, String, String)> {
    let Some(file) = log.files.iter().find(|f| f.path == path) else {
        return Vec::new();
    };
    file.entries
        .iter()
        .map(|e| {
            let s = log.session_of(&e.key).expect("session");
            (
                s.agent_id.tool.clone(),
                s.agent_id.model.clone(),
                s.agent_id.id.clone(),
                e.lines.to_string(),
            )
        })
        .collect()
}

/// `s_` + the first 14 hex of SHA-256 of `text`, by `sha256sum`.
fn session_hash(text: &str) -> String {
    let mut child = std::process::Command::new("sha256sum")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("sha256sum");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(text.as_bytes())
        .expect("write");
    let out = child.wait_with_output().expect("sha256sum");
    format!("s_{}", &String::from_utf8_lossy(&out.stdout)[..14])
}

fn ok(out: &std::process::Output) {
    assert_eq!(exit_code(out), 0, "{}", output_text(out));
}

#[test]
fn an_apply_logs_the_lines_it_wrote_and_nothing_else() {
    let repo = TestRepo::with_files(&[("src/lib.rs", "a\nb\nc\nd\ne\n")]);
    let reply = format!(
        "{}{}",
        replace_block("a01", "src/lib.rs", "c\n", "C1\nC2\n"),
        write_block("a02", "docs/my notes.md", "one\ntwo\n")
    );
    ok(&repo.apply(&reply, &[]));
    let log = log_of(&repo, "HEAD");
    assert!(log.is_claded());
    let blob = repo.git(&[
        "log",
        "-1",
        "--format=%(trailers:key=Clada-Reply,valueonly)",
    ]);
    let id = blob.trim().to_string();
    assert_eq!(
        lines_of(&log, "src/lib.rs"),
        vec![(
            "git-clada".into(),
            "unknown".into(),
            id.clone(),
            "3-4".into()
        )]
    );
    assert_eq!(lines_of(&log, "docs/my notes.md")[0].3, "1-2");
    let key = &log.files[0].entries[0].key;
    assert!(
        key.starts_with(&session_hash(&format!("git-clada:{id}"))),
        "{key}"
    );
    let raw = repo.git(&["notes", "--ref=ai", "show", "HEAD"]);
    assert!(raw.starts_with("\"docs/my notes.md\"\n"), "{raw}");
    let session = log.session_of(key).expect("session");
    assert_eq!(
        session.human_author.as_deref(),
        Some("Test User <test@example.com>")
    );
    // No reply text in the log.
    assert!(!raw.contains("C1") && !raw.contains("one"), "{raw}");
    repo.assert_fsck();
}

#[test]
fn the_agent_model_and_conversation_come_from_flags_then_config() {
    let repo = TestRepo::with_files(&[("a.txt", "x\n")]);
    repo.user_config("provenance:\n  agent: cursor\n  model: cfg-model\n");
    ok(&repo.apply(&write_block("b01", "b.txt", "1\n"), &[]));
    let got = lines_of(&log_of(&repo, "HEAD"), "b.txt");
    assert_eq!(
        (got[0].0.as_str(), got[0].1.as_str()),
        ("cursor", "cfg-model")
    );

    ok(&repo.apply(
        &write_block("c01", "c.txt", "1\n2\n"),
        &[
            "--agent",
            "claude",
            "--model",
            "claude-opus-4",
            "--conversation",
            "conv-9",
        ],
    ));
    let log = log_of(&repo, "HEAD");
    let got = lines_of(&log, "c.txt");
    assert_eq!(
        got,
        vec![(
            "claude".into(),
            "claude-opus-4".into(),
            "conv-9".into(),
            "1-2".into()
        )]
    );
    let key = &log.files[0].entries[0].key;
    assert_eq!(&key[..16], session_hash("claude:conv-9"));
    // A trace id per AI commit.
    let first = log_of(&repo, "HEAD~1").files[0].entries[0].key.clone();
    assert_ne!(first.split("::").nth(1), key.split("::").nth(1));
    repo.assert_fsck();
}

#[test]
fn provenance_off_writes_no_log() {
    let repo = TestRepo::with_files(&[("a.txt", "x\n")]);
    repo.user_config("provenance: off\n");
    ok(&repo.apply(&write_block("d01", "d.txt", "1\n"), &[]));
    assert!(!has_log(&repo, "HEAD"));
    assert_eq!(repo.git(&["for-each-ref", "refs/notes/ai"]), "");
    repo.assert_fsck();
}

#[test]
fn an_mcp_edit_names_the_clients_agent() {
    let repo = TestRepo::with_files(&[("app.py", "def f():\n    return 1\n")]);
    let mut child = repo
        .clada_cmd()
        .args(["mcp", "--session", "s-42", "--model", "sonnet-x"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start the server");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut out = BufReader::new(child.stdout.take().expect("stdout"));
    let mut request = |id: u64, method: &str, params: Value| -> Value {
        let msg = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        writeln!(stdin, "{msg}").expect("write");

        stdin.flush().expect("flush");
        let mut line = String::new();
        out.read_line(&mut line).expect("read");
        let answer: Value = serde_json::from_str(&line).expect("JSON");
        if method == "initialize" {
            writeln!(
                stdin,
                r#"{{"jsonrpc":"2.0","method":"notifications/initialized"}}"#
            )
            .expect("write");
        }
        answer
    };
    request(
        1,
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "claude-code", "version": "2"}}),
    );
    let answer = request(
        2,
        "tools/call",
        json!({"name": "edit", "arguments": {"path": "app.py", "old_string": "    return 1", "new_string": "    return 2\n    # two"}}),
    );
    assert_ne!(answer["result"]["isError"], true, "{answer:#}");
    drop(stdin);
    let _ = child.wait();
    let log = log_of(&repo, "HEAD");
    assert_eq!(
        lines_of(&log, "app.py"),
        vec![(
            "claude".into(),
            "sonnet-x".into(),
            "s-42".into(),
            "2-3".into()
        )]
    );
    repo.assert_fsck();
}

#[test]
fn squash_writes_the_squashed_commits_log_with_the_last_session_winning() {
    let repo = TestRepo::with_files(&[("f.txt", "a\nb\nc\nd\n")]);
    ok(&repo.apply(
        &replace_block("e01", "f.txt", "b\n", "B1\nB2\n"),
        &["--agent", "claude", "--conversation", "one"],
    ));
    // a B1 B2 c d: the second session rewrites B2 and adds a last line.
    ok(&repo.apply(
        &replace_block("e02", "f.txt", "B2\nc\nd\n", "X\nc\nd\ne\n"),
        &["--agent", "codex", "--conversation", "two"],
    ));
    let second = log_of(&repo, "HEAD");
    assert_eq!(lines_of(&second, "f.txt")[0].3, "3,6");
    let out = repo.clada(&["squash", "--mode", "auto_ai"]);
    ok(&out);
    assert_eq!(repo.git(&["rev-list", "--count", "HEAD"]).trim(), "2");
    let log = log_of(&repo, "HEAD");
    let mut got = lines_of(&log, "f.txt");
    got.sort();
    assert_eq!(
        got,
        vec![
            ("claude".into(), "unknown".into(), "one".into(), "2".into()),
            ("codex".into(), "unknown".into(), "two".into(), "3,6".into()),
        ]
    );
    assert_eq!(log.meta.sessions.len(), 2);
    // Undo brings the two commits back, each with its own log.
    ok(&repo.clada(&["undo"]));
    assert_eq!(lines_of(&log_of(&repo, "HEAD"), "f.txt")[0].3, "3,6");
    assert_eq!(lines_of(&log_of(&repo, "HEAD~1"), "f.txt")[0].3, "2-3");
    repo.assert_fsck();
}

#[test]
fn undo_redo_and_steps_keep_each_commits_log() {
    let repo = TestRepo::with_files(&[("f.txt", "a\n")]);
    ok(&repo.apply(
        &write_block("g01", "g.txt", "1\n2\n"),
        &["--agent", "gemini"],
    ));
    ok(&repo.apply(&write_block("g02", "h.txt", "1\n"), &["--agent", "gemini"]));
    let top = repo.head();
    ok(&repo.clada(&["undo"]));
    ok(&repo.clada(&["redo"]));
    assert_eq!(lines_of(&log_of(&repo, "HEAD"), "h.txt")[0].0, "gemini");
    assert_eq!(lines_of(&log_of(&repo, "HEAD~1"), "g.txt")[0].3, "1-2");
    ok(&repo.clada(&["step-back"]));
    assert_eq!(lines_of(&log_of(&repo, "HEAD"), "g.txt")[0].3, "1-2");
    ok(&repo.clada(&["step-forward", "--all"]));
    assert_eq!(repo.head(), top);
    assert_eq!(lines_of(&log_of(&repo, "HEAD"), "h.txt")[0].3, "1");
    repo.assert_fsck();
}

#[test]
fn backfill_writes_the_logs_older_ai_commits_lack_and_leaves_other_logs_alone() {
    let repo = TestRepo::with_files(&[("f.txt", "a\n")]);
    // Commits made as before this version: no logs.
    repo.user_config("provenance: off\n");
    ok(&repo.apply(&write_block("k01", "k.txt", "1\n2\n3\n"), &[]));
    ok(&repo.apply(&replace_block("k02", "f.txt", "a\n", "a\nb\n"), &[]));
    repo.write("human.txt", "mine\n");
    repo.git(&["add", "human.txt"]);
    repo.git(&["commit", "-qm", "human"]);
    ok(&repo.apply(&write_block("k03", "m.txt", "x\n"), &[]));
    // Another tool's log on the third AI commit stays as it is.
    let foreign = "m.txt\n  s_0123456789abcd::t_0123456789abcd 1\n---\n{\"schema_version\":\"authorship/3.0.0\",\"base_commit_sha\":\"00\",\"prompts\":{},\"sessions\":{\"s_0123456789abcd\":{\"agent_id\":{\"tool\":\"cursor\",\"id\":\"c\",\"model\":\"m\"}}}}\n";
    repo.git(&["notes", "--ref=ai", "add", "-m", foreign.trim_end(), "HEAD"]);
    assert!(!has_log(&repo, "HEAD~2") && !has_log(&repo, "HEAD~3"));

    let out = repo.clada(&["--format", "json", "provenance", "backfill"]);
    ok(&out);
    let report: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(
        report["written"].as_array().map(Vec::len),
        Some(2),
        "{report:#}"
    );
    assert_eq!(report["hadLog"], 1, "{report:#}");
    let first = log_of(&repo, "HEAD~3");
    let blob = repo.git(&[
        "log",
        "-1",
        "--format=%(trailers:key=Clada-Reply,valueonly)",
        "HEAD~3",
    ]);
    assert_eq!(
        lines_of(&first, "k.txt"),
        vec![(
            "git-clada".into(),
            "unknown".into(),
            blob.trim().to_string(),
            "1-3".into()
        )]
    );
    assert_eq!(lines_of(&log_of(&repo, "HEAD~2"), "f.txt")[0].3, "2");
    assert!(!has_log(&repo, "HEAD~1"), "the human commit got a log");
    let kept = repo.git(&["notes", "--ref=ai", "show", "HEAD"]);
    assert!(kept.contains("\"tool\":\"cursor\""), "{kept}");
    // Run again: nothing left to write.
    let again = repo.clada(&["--format", "json", "provenance", "backfill"]);
    let report: Value = serde_json::from_slice(&again.stdout).expect("JSON");
    assert_eq!(
        report["written"].as_array().map(Vec::len),
        Some(0),
        "{report:#}"
    );
    repo.assert_fsck();
}

#[test]
fn blame_gives_every_line_its_origin() {
    let repo = TestRepo::with_files(&[("app.py", "one\ntwo\nthree\n")]);
    ok(&repo.apply(
        &replace_block("n01", "app.py", "two\n", "two\nai-1\nai-2\n"),
        &[
            "--agent",
            "claude",
            "--model",
            "opus",
            "--conversation",
            "c7",
        ],
    ));
    let ai_commit = repo.head();
    let reply = repo.git(&[
        "log",
        "-1",
        "--format=%(trailers:key=Clada-Reply,valueonly)",
    ]);
    // A human changes one of the AI's lines and adds one.
    repo.write("app.py", "one\ntwo\nai-1\nmine\nthree\nmore\n");
    repo.git(&["commit", "-qam", "human edit"]);
    let human_commit = repo.head();

    let out = repo.clada(&["--format", "json", "blame", "app.py"]);
    ok(&out);
    let report: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(report["path"], "app.py");
    assert_eq!(report["rev"], human_commit.trim());
    let lines = report["lines"].as_array().expect("lines");
    let origins: Vec<(&str, &str)> = lines
        .iter()
        .map(|l| {
            (
                l["origin"].as_str().unwrap_or(""),
                l["commit"].as_str().unwrap_or(""),
            )
        })
        .collect();
    let (ai, human) = (ai_commit.trim(), human_commit.trim());
    assert_eq!(origins.len(), 6);
    assert_eq!(origins[2], ("ai", ai));
    assert_eq!(origins[3], ("unknown", human));
    assert_eq!(origins[5], ("unknown", human));
    assert_eq!(origins[0].0, "unknown");
    assert_eq!(lines[2]["agent"], "claude");
    assert_eq!(lines[2]["model"], "opus");
    assert_eq!(lines[2]["reply"], reply.trim());
    assert_eq!(lines[2]["line"], 3);
    let session = session_hash("claude:c7");
    assert_eq!(lines[2]["session"], session.as_str());

    let out = repo.clada(&["blame", "app.py", "HEAD", "-L", "2,3"]);
    ok(&out);
    let text = String::from_utf8_lossy(&out.stdout);
    let rows: Vec<&str> = text.lines().collect();
    assert_eq!(rows.len(), 2, "{text}");
    assert!(
        rows[1].contains("claude/opus") && rows[1].ends_with(") ai-1"),
        "{text}"
    );
    // At the AI commit itself every line it wrote is the AI's.
    let out = repo.clada(&["--format", "json", "blame", "app.py", ai]);
    let report: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let ai_lines: Vec<u64> = report["lines"]
        .as_array()
        .expect("lines")
        .iter()
        .filter(|l| l["origin"] == "ai")
        .filter_map(|l| l["line"].as_u64())
        .collect();
    assert_eq!(ai_lines, vec![3, 4]);
}

#[test]
fn stats_count_the_lines_still_present_by_origin() {
    let repo = TestRepo::with_files(&[("s.txt", "a\nb\n")]);
    ok(&repo.apply(
        &write_block("p01", "t.txt", "1\n2\n3\n4\n"),
        &["--agent", "claude"],
    ));
    repo.write("t.txt", "1\n2\nH\n4\n");
    repo.git(&["commit", "-qam", "human fix"]);
    let out = repo.clada(&["--format", "json", "stats"]);
    ok(&out);
    let report: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(
        report["total"],
        json!({"ai": 3, "human": 0, "unknown": 3}),
        "{report:#}"
    );
    // Per commit: the files a log names (s.txt, which none names, is in the total only).
    let commits = report["commits"].as_array().expect("commits");
    assert_eq!(commits.len(), 2, "{report:#}");
    assert_eq!(commits[1]["ai"], 3, "{report:#}");
    assert_eq!(commits[0]["unknown"], 1, "{report:#}");
    let out = repo.clada(&["stats", "HEAD~1..HEAD"]);
    ok(&out);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("total") && text.contains("you ") && text.contains(" ai "),
        "{text}"
    );
    // The commit, the total at the tip, the lines the range added; no agent wrote in it.
    assert_eq!(text.lines().count(), 3, "{text}");
    assert!(
        text.lines().nth(2).is_some_and(|l| l.starts_with("added ")),
        "{text}"
    );
}

fn install_pre_commit(repo: &TestRepo, script: &str) {
    let hook = repo.path().join(".git/hooks/pre-commit");
    std::fs::create_dir_all(hook.parent().expect("hooks dir")).expect("mkdir");
    std::fs::write(&hook, format!("#!/bin/sh\n{script}")).expect("write hook");
    repo.set_executable(".git/hooks/pre-commit");
}

/// A fixer as the pre-commit framework runs them: `TODO` it fixes (and fails, so the commit
/// is retried), `BAD` it cannot fix.
const FIXER: &str = "rc=0\nfor f in $(git diff --cached --name-only); do\n  if grep -q TODO \"$f\"; then sed -i 's/TODO/DONE/' \"$f\"; rc=1; fi\n  if grep -q BAD \"$f\"; then echo \"$f is BAD\"; rc=1; fi\ndone\nexit $rc\n";

#[test]
fn a_fixer_hooks_changes_are_the_ais_and_the_users_own_fixes_are_not() {
    let repo = TestRepo::with_files(&[("a.py", "a\nb\nc\n")]);
    install_pre_commit(&repo, FIXER);
    ok(&repo.apply(
        &replace_block("q01", "a.py", "b\n", "x  # TODO\n"),
        &["--agent", "codex"],
    ));
    assert_eq!(repo.git(&["show", "HEAD:a.py"]), "a\nx  # DONE\nc\n");
    assert_eq!(lines_of(&log_of(&repo, "HEAD"), "a.py")[0].3, "2");

    // A hook that fails leaves the AI's change pending; the user fixes one of its lines and
    // `git clada commit` commits it: that line is the user's.
    let out = repo.apply(
        &replace_block("q02", "a.py", "c\n", "ai-1\nBAD\nai-3\n"),
        &["--agent", "codex"],
    );
    assert_eq!(exit_code(&out), 1, "{}", output_text(&out));
    repo.write("a.py", "a\nx  # DONE\nai-1\nfixed by me\nai-3\n");
    let out = repo.clada(&["--format", "json", "commit"]);
    ok(&out);
    let log = log_of(&repo, "HEAD");
    let got = lines_of(&log, "a.py");
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(got[0].3, "3,5", "{got:?}");
    repo.assert_fsck();
}
