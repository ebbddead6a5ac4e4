//! `git clada apply --no-git` and `git clada check` through the real binary: exit codes,
//! formats, stdin, dry run, exec policy when not on a terminal.

use std::fs;
use std::path::Path;

use assert_cmd::Command;
use predicates::prelude::*;

fn block(id: &str, action: &str, params: &[(&str, &str)]) -> String {
    let mut s = format!("#!nesl [@three-char-SHA-256: {id}]\naction = \"{action}\"\n");
    for (k, v) in params {
        s.push_str(&format!(
            "{k} = {}\n",
            serde_json::to_string(v).expect("json")
        ));
    }
    s.push_str(&format!("#!end_{id}\n"));
    s
}

fn clada(dir: &Path) -> Command {
    let mut c = Command::cargo_bin("git-clada").expect("binary");
    c.current_dir(dir)
        .env("NO_COLOR", "1")
        .env_remove("GIT_WORK_TREE");
    c
}

#[test]
fn apply_no_git_success_is_exit_0_with_json_report() {
    let d = tempfile::tempdir().expect("temp");
    let reply = block(
        "w01",
        "file_write",
        &[("path", "src/a.txt"), ("content", "hi")],
    );
    fs::write(d.path().join("reply.md"), reply).expect("w");
    let out = clada(d.path())
        .args(["apply", "--no-git", "--format", "json", "reply.md"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v: serde_json::Value = serde_json::from_slice(&out).expect("json report");
    assert_eq!(v["success"], true);
    // A new file gets a final newline (files.final_newline, on by default).
    assert_eq!(v["results"][0]["data"]["bytesWritten"], 3);
    assert_eq!(
        v["results"][0]["warnings"][0],
        "added a final newline (files.final_newline)"
    );
    assert_eq!(
        fs::read_to_string(d.path().join("src/a.txt")).expect("r"),
        "hi\n"
    );
}

#[test]
fn apply_reads_stdin_and_a_failed_block_is_exit_1() {
    let d = tempfile::tempdir().expect("temp");
    let reply = [
        block("ok1", "file_write", &[("path", "a.txt"), ("content", "a")]),
        block(
            "bad",
            "file_replace_text",
            &[("path", "a.txt"), ("old_text", "zzz"), ("new_text", "b")],
        ),
    ]
    .concat();
    clada(d.path())
        .args(["apply", "--no-git", "--format", "llm", "-"])
        .write_stdin(reply)
        .assert()
        .code(1)
        .stdout(predicate::str::starts_with("=== CLADA RESULTS ===\nok1 ✅ file_write a.txt\n    warning: added a final newline (files.final_newline)\nbad ❌ file_replace_text a.txt - old_text not found in file\n"))
        .stdout(predicate::str::contains(
            "The 1 block marked ✅ is applied; do not send it again. Send corrected versions of the 1 block marked ❌ only.",
        ));
}

#[test]
fn apply_refused_only_is_exit_3_and_changes_nothing() {
    let d = tempfile::tempdir().expect("temp");
    let reply = block(
        "esc",
        "file_write",
        &[("path", "../x.txt"), ("content", "x")],
    );
    clada(d.path())
        .args(["apply", "--no-git", "--format", "human", "-"])
        .write_stdin(reply)
        .assert()
        .code(3)
        .stdout(predicate::str::contains(
            "esc ⏸ file_write ../x.txt - needs your approval: path_escape:",
        ))
        .stderr(predicate::str::contains(
            "refused for safety, nothing was changed",
        ));
    assert!(!d.path().parent().expect("parent").join("x.txt").exists());
}

#[test]
fn apply_allow_outside_permits_absolute_paths() {
    let d = tempfile::tempdir().expect("temp");
    let o = tempfile::tempdir().expect("temp");
    let target = o.path().join("out.txt");
    let reply = block(
        "out",
        "file_write",
        &[("path", &target.display().to_string()), ("content", "x")],
    );
    clada(d.path())
        .args(["apply", "--no-git", "--allow-outside", "-"])
        .write_stdin(reply)
        .assert()
        .success();
    assert_eq!(fs::read_to_string(target).expect("r"), "x\n");
}

#[test]
fn apply_dry_run_changes_nothing() {
    let d = tempfile::tempdir().expect("temp");
    fs::write(d.path().join("a.txt"), "old").expect("w");
    let reply = [
        block(
            "w01",
            "file_write",
            &[("path", "a.txt"), ("content", "new")],
        ),
        block("r01", "file_read", &[("path", "a.txt")]),
    ]
    .concat();
    clada(d.path())
        .args(["--dry-run", "apply", "--no-git", "--format", "llm", "-"])
        .write_stdin(reply)
        .assert()
        .success()
        .stdout(predicate::str::contains("=== START FILE: a.txt ===\nnew\n"))
        .stdout(predicate::str::contains("Dry run: nothing was changed."));
    assert_eq!(
        fs::read_to_string(d.path().join("a.txt")).expect("r"),
        "old"
    );
}

#[test]
fn exec_is_denied_when_not_interactive_unless_allowed() {
    let d = tempfile::tempdir().expect("temp");
    let reply = block(
        "ex1",
        "exec",
        &[("lang", "bash"), ("code", "echo ran > ran.txt")],
    );
    clada(d.path())
        .args(["apply", "--no-git", "--format", "human", "-"])
        .write_stdin(reply.clone())
        .assert()
        .code(1)
        .stdout(predicate::str::contains("--exec allow"));
    assert!(!d.path().join("ran.txt").exists());
    clada(d.path())
        .args(["apply", "--no-git", "--exec", "allow", "-"])
        .write_stdin(reply)
        .assert()
        .success();
    assert!(d.path().join("ran.txt").exists());
}

#[test]
fn apply_without_no_git_is_not_built_yet() {
    let d = tempfile::tempdir().expect("temp");
    clada(d.path())
        .args(["apply", "-"])
        .write_stdin("")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--no-git"));
}

#[test]
fn human_report_has_no_colour_with_no_color() {
    let d = tempfile::tempdir().expect("temp");
    let reply = block("w01", "file_write", &[("path", "a.txt"), ("content", "a")]);
    clada(d.path())
        .args(["apply", "--no-git", "--format", "human", "-"])
        .write_stdin(reply)
        .assert()
        .success()
        .stdout(predicate::str::contains("\x1b[").not())
        .stdout(predicate::str::starts_with("w01 ✅ file_write a.txt\n"));
}

#[test]
fn apply_with_dash_c_runs_in_that_directory() {
    let d = tempfile::tempdir().expect("temp");
    let sub = d.path().join("proj");
    fs::create_dir(&sub).expect("mkdir");
    let reply = block("w01", "file_write", &[("path", "a.txt"), ("content", "a")]);
    clada(d.path())
        .args(["-C", "proj", "apply", "--no-git", "-"])
        .write_stdin(reply)
        .assert()
        .success();
    assert!(sub.join("a.txt").exists());
}

#[test]
fn check_is_0_when_valid_and_1_on_any_error_without_side_effects() {
    let d = tempfile::tempdir().expect("temp");
    fs::write(
        d.path().join("good.md"),
        block("w01", "file_write", &[("path", "a.txt"), ("content", "a")]),
    )
    .expect("w");
    fs::write(
        d.path().join("bad.md"),
        [
            block("w02", "file_write", &[("path", "a.txt")]),
            block(
                "w03",
                "file_write",
                &[("path", ".git/config"), ("content", "x")],
            ),
        ]
        .concat(),
    )
    .expect("w");
    clada(d.path())
        .args(["check", "--no-git", "good.md"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "good.md: ok (1 blocks; every action would run: checked against the files as they are)",
        ));
    let out = clada(d.path())
        .args(["check", "--no-git", "--format", "json", "good.md", "bad.md"])
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let v: serde_json::Value = serde_json::from_slice(&out).expect("json");
    assert_eq!(
        v[1]["parseErrors"][0]["message"],
        "Missing required parameter: content"
    );
    assert_eq!(v[1]["refused"][0]["code"], "git_dir");
    assert!(!d.path().join("a.txt").exists(), "check never executes");
}

#[test]
fn check_resolves_against_the_worktree_root() {
    let d = tempfile::tempdir().expect("temp");
    fs::create_dir_all(d.path().join(".git")).expect("mkdir");
    fs::create_dir_all(d.path().join("sub")).expect("mkdir");
    // From a subdirectory, paths still start at the worktree root: `sub/x.txt` is inside it,
    // `../sub/x.txt` is outside it.
    clada(&d.path().join("sub"))
        .args(["check", "-"])
        .write_stdin(block(
            "w01",
            "file_write",
            &[("path", "../sub/x.txt"), ("content", "x")],
        ))
        .assert()
        .code(1)
        .stdout(predicate::str::contains("path_escape"));
    clada(&d.path().join("sub"))
        .args(["check", "-"])
        .write_stdin(block(
            "w01",
            "file_write",
            &[("path", "sub/x.txt"), ("content", "x")],
        ))
        .assert()
        .success();
}
