//! `apply --paste` and `--copy` through a file standing in for the clipboard
//! (`GIT_CLADA_CLIPBOARD=file:PATH`); the backends themselves are unit-tested in
//! `src/clipboard.rs` (in-memory clipboard, exact OSC 52 bytes).

use crate::common;

use common::{assert_ok, spawn_fed, TestRepo};

const REPLY: &str = "#!nesl [@three-char-SHA-256: cp1]\naction = \"file_write\"\npath = \"hello.txt\"\ncontent = \"hi\"\n#!end_cp1\n";

fn clip_env(dir: &std::path::Path) -> (std::path::PathBuf, String) {
    let clip = dir.join("clipboard.txt");
    let env = format!("file:{}", clip.display());
    (clip, env)
}

#[test]
fn paste_applies_the_reply_on_the_clipboard() {
    let repo = TestRepo::with_files(&[("README.md", "x\n")]);
    let d = tempfile::tempdir().unwrap();
    let (clip, env) = clip_env(d.path());
    std::fs::write(&clip, REPLY).unwrap();
    let out = repo
        .clada_cmd()
        .env("GIT_CLADA_CLIPBOARD", &env)
        .args(["--format", "llm", "apply", "--paste"])
        .output()
        .unwrap();
    assert_ok(&out, "apply --paste");
    assert_eq!(
        repo.read("hello.txt"),
        "hi\n",
        "a final newline is added (files.final_newline)"
    );
    assert_eq!(repo.subject("HEAD"), "AI: create hello.txt");
    // The stored reply says where it came from.
    let body = repo.git(&["log", "-1", "--format=%B"]);
    assert!(body.contains("from clipboard"), "{body}");
}

#[test]
fn paste_with_an_empty_clipboard_is_a_clear_error() {
    let repo = TestRepo::with_files(&[("README.md", "x\n")]);
    let d = tempfile::tempdir().unwrap();
    let (clip, env) = clip_env(d.path());
    std::fs::write(&clip, "  \n").unwrap();
    let out = repo
        .clada_cmd()
        .env("GIT_CLADA_CLIPBOARD", &env)
        .args(["apply", "--paste"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--paste: the clipboard is empty")
            && err.contains("copy the model's reply first"),
        "{err}"
    );
    assert_eq!(repo.git(&["rev-list", "--count", "HEAD"]).trim(), "1");

    let out = repo
        .clada_cmd()
        .env("GIT_CLADA_CLIPBOARD", "none")
        .args(["apply", "--paste"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no clipboard available"));
}

#[test]
fn copy_puts_the_llm_report_on_the_clipboard_and_never_fails_the_apply() {
    let repo = TestRepo::with_files(&[("README.md", "x\n")]);
    let d = tempfile::tempdir().unwrap();
    let (clip, env) = clip_env(d.path());
    let mut cmd = repo.clada_cmd();
    cmd.env("GIT_CLADA_CLIPBOARD", &env)
        .args(["--format", "json", "apply", "--copy", "-"]);
    let out = spawn_fed(cmd, REPLY).wait_with_output().unwrap();
    assert_ok(&out, "apply --copy");
    let copied = std::fs::read_to_string(&clip).unwrap();
    assert!(
        copied.starts_with("=== CLADA RESULTS ===\ncp1 ✅ file_write hello.txt\n"),
        "{copied}"
    );
    // stdout keeps the requested format.
    assert!(TestRepo::report(&out)["success"].as_bool().unwrap());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("📋 Copied to clipboard (file "), "{err}");

    // No clipboard at all: the apply still succeeds, and says why nothing was copied.
    let repo = TestRepo::with_files(&[("README.md", "x\n")]);
    let mut cmd = repo.clada_cmd();
    cmd.env("GIT_CLADA_CLIPBOARD", "none")
        .args(["--format", "llm", "apply", "--copy", "-"]);
    let out = spawn_fed(cmd, REPLY).wait_with_output().unwrap();
    assert_ok(&out, "apply --copy without a clipboard");
    assert_eq!(
        repo.read("hello.txt"),
        "hi\n",
        "a final newline is added (files.final_newline)"
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("❌ Clipboard copy failed: no clipboard available"),
        "{err}"
    );
}

#[test]
fn copy_of_an_apply_that_stopped_copies_its_report_or_says_why_not() {
    // Refused (uncommitted work with --no-snapshot): the FATAL report is what there is to
    // paste back, so it is copied, and the copy is reported as for any other report.
    let repo = TestRepo::with_files(&[("README.md", "x\n")]);
    repo.write("README.md", "mine\n");
    let d = tempfile::tempdir().unwrap();
    let (clip, env) = clip_env(d.path());
    let mut cmd = repo.clada_cmd();
    cmd.env("GIT_CLADA_CLIPBOARD", &env).args([
        "--format",
        "llm",
        "apply",
        "--copy",
        "--no-snapshot",
        "-",
    ]);
    let out = spawn_fed(cmd, REPLY).wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(3));
    let copied = std::fs::read_to_string(&clip).unwrap();
    assert!(
        copied.starts_with("=== CLADA RESULTS ===\nFATAL: ")
            && copied.contains("uncommitted changes in README.md"),
        "{copied}"
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("📋 Copied to clipboard (file "), "{err}");
    // Without a terminal or a display: said, not silent.
    let mut cmd = repo.clada_cmd();
    cmd.env("GIT_CLADA_CLIPBOARD", "none").args([
        "--format",
        "llm",
        "apply",
        "--copy",
        "--no-snapshot",
        "-",
    ]);
    let out = spawn_fed(cmd, REPLY).wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(3));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("❌ Clipboard copy failed: no clipboard available"),
        "{err}"
    );
}

#[test]
fn paste_and_a_file_are_exclusive() {
    let repo = TestRepo::with_files(&[("README.md", "x\n")]);
    let out = repo.clada(&["apply", "--paste", "reply.md"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn config_clipboard_copy_copies_without_the_flag() {
    let repo = TestRepo::with_files(&[("README.md", "x\n")]);
    repo.write(".clada.yml", "clipboard:\n  copy: true\n");
    let d = tempfile::tempdir().unwrap();
    let (clip, env) = clip_env(d.path());
    let mut cmd = repo.clada_cmd();
    cmd.env("GIT_CLADA_CLIPBOARD", &env)
        .args(["--format", "json", "apply", "-"]);
    let out = spawn_fed(cmd, REPLY).wait_with_output().unwrap();
    assert_ok(&out, "apply with clipboard.copy");
    let copied = std::fs::read_to_string(&clip).unwrap();
    assert!(copied.starts_with("=== CLADA RESULTS ===\n"), "{copied}");
}
