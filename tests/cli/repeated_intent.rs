//! Issue 38 §2: a repeated intent is applied. A reply is skipped as already applied only when
//! the same reply was the last thing applied and the files it changed are as it left them
//! (then its exec blocks do not run again either); the same block in a later reply is a new
//! intent. MCP calls and `--dialect tool-call` are never skipped. A block repeated inside one
//! reply (same id and text) is applied once. Skipped blocks are ⏭, `skipped: true` with
//! `success: true`, exit 0, and the llm closing line says nothing needs resending.

use crate::common;

use common::{block, exit_code as code, output_text, replace_block as replace, TestRepo};

fn append(id: &str, path: &str, text: &str) -> String {
    block(
        id,
        &[("action", "file_append"), ("path", path), ("content", text)],
    )
}

fn delete(id: &str, path: &str) -> String {
    block(id, &[("action", "file_delete"), ("path", path)])
}

fn create(id: &str, path: &str, text: &str) -> String {
    block(
        id,
        &[("action", "file_write"), ("path", path), ("content", text)],
    )
}

#[track_caller]
fn applied(repo: &TestRepo, reply: &str) -> serde_json::Value {
    let out = repo.apply(reply, &[]);
    assert_eq!(code(&out), 0, "{}", output_text(&out));
    TestRepo::report(&out)
}

#[test]
fn a_reply_pasted_again_at_once_is_skipped_exec_included_and_says_so() {
    let repo = TestRepo::with_files(&[("log.txt", "start\n")]);
    let reply = format!(
        "{}{}",
        append("a01", "log.txt", "line\n"),
        block(
            "x01",
            &[
                ("action", "exec"),
                ("lang", "bash"),
                ("code", "echo ran >> ran.txt"),
            ]
        )
    );
    let exec_ok = ["--exec", "allow"];
    assert_eq!(code(&repo.apply(&reply, &exec_ok)), 0);
    let head = repo.head();
    let out = repo.apply(&reply, &exec_ok);
    assert_eq!(code(&out), 0, "{}", output_text(&out));
    let report = TestRepo::report(&out);
    for r in report["results"].as_array().expect("results") {
        assert_eq!(r["skipped"], true, "{r}");
        assert_eq!(r["success"], true, "{r}");
    }
    assert_eq!(report["success"], true);
    assert_eq!(repo.head(), head, "nothing committed");
    assert_eq!(repo.read("log.txt"), "start\nline\n", "appended once");
    assert_eq!(repo.read("ran.txt"), "ran\n", "the exec block ran once");
    // The llm and human reports say so.
    let llm = repo.apply(&reply, &["--exec", "allow", "--format", "llm"]);
    let text = output_text(&llm);
    assert!(text.contains("⏭"), "{text}");
    assert!(text.contains("nothing needs resending"), "{text}");
    let human = output_text(&repo.apply(&reply, &["--exec", "allow", "--format", "human"]));
    assert!(human.contains("⏭"), "{human}");
    // Once its file changed, the same reply is a new intent: it runs.
    repo.write("log.txt", "start\nline\nuser\n");
    assert_eq!(code(&repo.apply(&reply, &exec_ok)), 0);
    assert_eq!(repo.read("log.txt"), "start\nline\nuser\nline\n");
    assert_eq!(repo.read("ran.txt"), "ran\nran\n");
}

#[test]
fn a_value_set_changed_and_set_again_ends_as_set_and_a_file_created_deleted_created_exists() {
    let repo = TestRepo::with_files(&[("settings.py", "DEBUG = False\n")]);
    let on = replace("d01", "settings.py", "DEBUG = False", "DEBUG = True");
    let off = replace("d02", "settings.py", "DEBUG = True", "DEBUG = False");
    applied(&repo, &on);
    applied(&repo, &off);
    let report = applied(&repo, &on);
    assert_eq!(report["results"][0]["skipped"], serde_json::Value::Null);
    assert_eq!(repo.read("settings.py"), "DEBUG = True\n");

    applied(&repo, &create("c01", "new.txt", "new"));
    applied(&repo, &delete("c02", "new.txt"));
    applied(&repo, &create("c01", "new.txt", "new"));
    assert!(repo.exists("new.txt"), "created again");
    repo.assert_fsck();
}

#[test]
fn a_block_repeated_in_one_reply_is_applied_once_and_two_ids_with_one_text_both_apply() {
    let repo = TestRepo::with_files(&[("log.txt", "start\n")]);
    let same = append("a01", "log.txt", "line\n");
    let report = applied(&repo, &format!("{same}{same}"));
    assert_eq!(repo.read("log.txt"), "start\nline\n");
    let second = &report["results"][1];
    assert_eq!(second["skipped"], true, "{report}");
    assert!(second["duplicateOf"].is_number(), "{report}");
    applied(
        &repo,
        &format!(
            "{}{}",
            append("b01", "log.txt", "x\n"),
            append("b02", "log.txt", "x\n")
        ),
    );
    assert_eq!(repo.read("log.txt"), "start\nline\nx\nx\n");
}

#[test]
fn tool_call_replies_are_never_skipped() {
    let repo = TestRepo::with_files(&[("log.txt", "start\n")]);
    let call = r#"[{"action": "file_append", "path": "log.txt", "content": "line\n"}]"#;
    for _ in 0..3 {
        let out = repo.apply(call, &["--dialect", "tool-call"]);
        assert_eq!(code(&out), 0, "{}", output_text(&out));
    }
    assert_eq!(repo.read("log.txt"), "start\nline\nline\nline\n");
}

/// Over MCP every call is a new intent: three identical appends add three lines, and a value
/// set, changed and set again ends as set. Each call waits for the answer to the one before,
/// as a client does.
#[test]
fn mcp_calls_are_never_skipped() {
    use std::io::{BufRead, Write};
    let repo = TestRepo::with_files(&[("log.txt", "start\n"), ("s.py", "DEBUG = False\n")]);
    let mut child = repo
        .clada_cmd()
        .args(["mcp", "--session", "repeat"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("start the server");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut out = std::io::BufReader::new(child.stdout.take().expect("stdout"));
    let mut send = |msg: serde_json::Value, wait: bool| -> serde_json::Value {
        writeln!(stdin, "{msg}").expect("write");
        stdin.flush().expect("flush");
        if !wait {
            return serde_json::Value::Null;
        }
        let mut line = String::new();
        out.read_line(&mut line).expect("read");
        serde_json::from_str(&line).expect("json")
    };
    send(
        serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "repeated-intent", "version": "1"}}}),
        true,
    );
    send(
        serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        false,
    );
    let mut id = 10;
    let mut call = |name: &str, args: serde_json::Value| {
        id += 1;
        let answer = send(
            serde_json::json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                "params": {"name": name, "arguments": args}}),
            true,
        );
        assert_eq!(answer["result"]["isError"], false, "{answer}");
    };
    for (old, new) in [("False", "True"), ("True", "False"), ("False", "True")] {
        call(
            "edit",
            serde_json::json!({"path": "s.py", "old_string": format!("DEBUG = {old}"),
                "new_string": format!("DEBUG = {new}")}),
        );
    }
    for _ in 0..3 {
        call(
            "apply",
            serde_json::json!({"reply": append("a01", "log.txt", "line\n")}),
        );
    }
    drop(stdin);
    let _ = child.wait();
    assert_eq!(repo.read("s.py"), "DEBUG = True\n");
    assert_eq!(repo.read("log.txt"), "start\nline\nline\nline\n");
}
