//! `git-clada parse` end to end: output shape, exit codes (0 clean, 1 errors, 2 unreadable or
//! invalid input) and the messages for unreadable input.

use assert_cmd::Command;
use assert_fs::prelude::*;
use predicates::prelude::*;

fn clada() -> Command {
    let mut cmd = Command::cargo_bin("git-clada").unwrap();
    cmd.env("NO_COLOR", "1");
    cmd
}

const CLEAN: &str = "Some prose.\n#!SHAM [@three-char-SHA-256: abc]\naction = \"file_write\"\ncontent = <<'EOT_SHAM_abc'\nhello\nEOT_SHAM_abc\n#!END_SHAM_abc\n";

#[test]
fn clean_reply_exits_0_with_reference_json() {
    let dir = assert_fs::TempDir::new().unwrap();
    let file = dir.child("reply.md");
    file.write_str(CLEAN).unwrap();
    let out = clada().arg("parse").arg(file.path()).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        json,
        serde_json::json!({
            "blocks": [{
                "id": "abc",
                "properties": {"action": "file_write", "content": "hello"},
                "startLine": 2,
                "endLine": 7
            }],
            "errors": []
        })
    );
}

#[test]
fn reply_with_errors_exits_1() {
    let out = clada()
        .args(["parse", "-"])
        .write_stdin("#!nesl [@x: abc]\nk = unquoted\n#!end_abc\n")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["errors"][0]["code"], "INVALID_VALUE");
    assert_eq!(json["errors"][0]["column"], 5);
}

#[test]
fn dialect_flag_restricts_spellings() {
    clada()
        .args(["parse", "--dialect", "nesl"])
        .write_stdin(CLEAN)
        .assert()
        .code(0)
        .stdout(predicate::str::contains("\"blocks\": []"));
    clada()
        .args(["parse", "--dialect", "nesl-upper"])
        .write_stdin("#!NESL [@three-char-SHA-256: k9]\n#!END_NESL_k9")
        .assert()
        .code(0)
        .stdout(predicate::str::contains("\"id\": \"k9\""));
}

#[test]
fn human_format_shows_position_and_marker() {
    clada()
        .args(["--format", "human", "parse"])
        .write_stdin("#!SHAM [@three-char-SHA-256: abc]\nkey = oops\n#!END_SHAM_abc\n")
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "error 2:7 INVALID_VALUE: Value must be a quoted string or heredoc\n  2 | key = oops\n    |       ^^^^\n",
        ));
}

#[test]
fn invalid_utf8_exits_2_naming_the_byte_offset() {
    let dir = assert_fs::TempDir::new().unwrap();
    let file = dir.child("bad.md");
    file.write_binary(b"#!SHAM [@three-char-SHA-256: abc]\nk = \"\xff\"\n")
        .unwrap();
    clada()
        .arg("parse")
        .arg(file.path())
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains("byte offset 39"))
        .stderr(predicate::str::contains("0xFF"))
        .stderr(predicate::str::contains("line 2"));
}

#[test]
fn missing_file_exits_2_naming_the_path() {
    let dir = assert_fs::TempDir::new().unwrap();
    let missing = dir.child("no-such-reply.md");
    clada()
        .arg("parse")
        .arg(missing.path())
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no-such-reply.md"));
}
