//! Configuration, `git clada hooks install|uninstall`, `check --staged`, final newlines and the
//! exec policy, on real repositories through the real binary (issue 15).

use crate::common;

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use common::{block, exit_code, output_text, write_block, TestRepo};

fn repo() -> TestRepo {
    let mut r = TestRepo::with_files(&[("README.md", "hello\n")]);
    r.env.push(("PATH".into(), common::path_with_clada(&[])));
    r
}

const PASTED: &str =
    "fn main() {}\n#!SHAM [@three-char-SHA-256: k9x]\naction = \"file_write\"\n#!END_SHAM_k9x\n";

fn mode(p: &Path) -> u32 {
    fs::metadata(p).expect("stat").permissions().mode()
}

#[test]
fn install_twice_keeps_the_existing_hook_and_uninstall_restores_it_byte_identical() {
    let r = repo();
    let hook = r.path().join(".git/hooks/pre-commit");
    let original = "#!/bin/sh\n# my own hook\necho ran >> .git/mine.log\nexit 0\n";
    fs::write(&hook, original).expect("write hook");
    fs::set_permissions(&hook, fs::Permissions::from_mode(0o755)).expect("chmod");

    let out = r.clada(&["hooks", "install"]);
    assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
    let once = fs::read_to_string(&hook).expect("read");
    let out = r.clada(&["hooks", "install"]);
    assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
    assert!(output_text(&out).contains("already installed"));
    assert_eq!(fs::read_to_string(&hook).expect("read"), once, "idempotent");
    assert!(once.starts_with("#!/bin/sh\n# >>> git-clada pre-commit >>>"));
    assert!(once.ends_with(
        "# <<< git-clada pre-commit <<<\n# my own hook\necho ran >> .git/mine.log\nexit 0\n"
    ));

    // Both parts run: the user's hook still logs, and a clean commit passes.
    r.write("a.txt", "clean\n");
    r.git(&["add", "a.txt"]);
    r.git(&["commit", "-q", "-m", "clean"]);
    assert_eq!(r.read(".git/mine.log"), "ran\n");

    let out = r.clada(&["hooks", "uninstall"]);
    assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
    assert_eq!(fs::read(&hook).expect("read"), original.as_bytes());
    assert_eq!(mode(&hook) & 0o777, 0o755);
    let out = r.clada(&["hooks", "uninstall"]);
    assert!(output_text(&out).contains("not installed"));
    assert_eq!(fs::read(&hook).expect("read"), original.as_bytes());
}

#[test]
fn install_respects_core_hooks_path_and_uninstall_removes_the_file_it_created() {
    let r = repo();
    r.git(&["config", "core.hooksPath", "githooks"]);
    let out = r.clada(&["hooks", "install"]);
    assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
    let hook = r.path().join("githooks/pre-commit");
    assert!(hook.is_file());
    assert!(mode(&hook) & 0o111 != 0);
    assert!(!r.path().join(".git/hooks/pre-commit").exists());

    // The hook git runs refuses a pasted block and names file and line.
    r.write("src/main.rs", PASTED);
    r.git(&["add", "src/main.rs"]);
    let out = r.git_output(&["commit", "-q", "-m", "pasted"]);
    assert_ne!(exit_code(&out), 0, "commit should be refused");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("src/main.rs:2: leftover block marker `#!SHAM [@three-char-SHA-256: k9x]`"),
        "{err}"
    );
    assert!(
        err.contains("src/main.rs:4: leftover block marker `#!END_SHAM_k9x`"),
        "{err}"
    );
    assert_eq!(r.subject("HEAD"), "initial");

    // A clean version commits.
    r.write("src/main.rs", "fn main() {}\n");
    r.git(&["add", "src/main.rs"]);
    r.git(&["commit", "-q", "-m", "clean"]);
    assert_eq!(r.subject("HEAD"), "clean");

    let out = r.clada(&["hooks", "uninstall"]);
    assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
    assert!(!hook.exists());
}

#[test]
fn check_staged_names_file_and_line_and_check_allow_exempts() {
    let r = repo();
    r.write("docs/format.md", PASTED);
    r.write("src/lib.rs", PASTED);
    r.write("ok.txt", "nothing here\n");
    r.git(&["add", "-A"]);
    let out = r.clada(&["--format", "json", "check", "--staged"]);
    assert_eq!(exit_code(&out), 1, "{}", output_text(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(v["checked"], 3);
    let found: Vec<(String, u64)> = v["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| {
            (
                f["path"].as_str().unwrap_or("").to_string(),
                f["line"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    assert_eq!(
        found,
        [
            ("docs/format.md".to_string(), 2),
            ("docs/format.md".to_string(), 4),
            ("src/lib.rs".to_string(), 2),
            ("src/lib.rs".to_string(), 4)
        ]
    );

    // The worktree copy does not matter, only what is staged.
    r.write("src/lib.rs", "clean\n");
    r.write(".clada.yml", "check:\n  allow: [\"docs/**\"]\n");
    let out = r.clada(&["check", "--staged"]);
    assert_eq!(exit_code(&out), 1, "{}", output_text(&out));
    assert!(output_text(&out).contains("src/lib.rs:2:"));
    assert!(!output_text(&out).contains("docs/format.md"));
    r.git(&["add", "src/lib.rs"]);
    let out = r.clada(&["check", "--staged"]);
    assert_eq!(exit_code(&out), 0, "{}", output_text(&out));

    // With file names (as the pre-commit framework calls it): those files' staged versions.
    r.git(&["commit", "-q", "-m", "x"]);
    let out = r.clada(&["check", "--staged", "src/lib.rs", "ok.txt"]);
    assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
    let out = r.clada(&["check", "--staged", "docs/format.md"]);
    assert_eq!(
        exit_code(&out),
        0,
        "allowed by check.allow: {}",
        output_text(&out)
    );
    fs::remove_file(r.path().join(".clada.yml")).expect("rm");
    let out = r.clada(&["check", "--staged", "docs/format.md"]);
    assert_eq!(exit_code(&out), 1, "{}", output_text(&out));
}

#[test]
fn config_errors_name_file_line_and_column() {
    let r = repo();
    r.write(".clada.yml", "exec: ask\nfiles:\n  final_newlin: false\n");
    for args in [&["config"][..], &["apply", "-"][..]] {
        let out = r.clada(args);
        assert_eq!(exit_code(&out), 2, "{args:?}: {}", output_text(&out));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(
                ".clada.yml:3:3: files: unknown field `final_newlin`, expected `final_newline`"
            ),
            "{err}"
        );
    }
    r.write(".clada.yml", "timeout: soon\n");
    let out = r.clada(&["config"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(".clada.yml:1:10: "), "{err}");
    assert!(err.contains("duration"), "{err}");
    r.write(".clada.yml", "hooks:\n  after: [cargo fmt\n");
    let out = r.clada(&["config"]);
    assert_eq!(exit_code(&out), 2);
    assert!(
        String::from_utf8_lossy(&out.stderr).contains(".clada.yml:"),
        "{}",
        output_text(&out)
    );
}

#[test]
fn config_lists_effective_values_and_their_sources() {
    let r = repo();
    r.write(".clada.yml", "timeout: 5\ncolor: never\nexec: allow\n");
    r.user_config("timeout: 60\ncolor: always\nexec: deny\n");
    let user = r.home.path().join(".config/clada/config.yml");
    r.git(&["config", "clada.coauthor", "Pair <pair@example.com>"]);
    let out = r.clada(&["--format", "json", "config"]);
    assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let get = |k: &str| {
        v["settings"]
            .as_array()
            .expect("settings")
            .iter()
            .find(|e| e["key"] == k)
            .cloned()
            .unwrap_or_else(|| panic!("no {k}"))
    };
    let repo_file = r.path().join(".clada.yml").display().to_string();
    assert_eq!(get("timeout")["value"], "5s");
    assert!(get("timeout")["source"]
        .as_str()
        .unwrap_or("")
        .ends_with(".clada.yml"));
    assert_eq!(get("color")["value"], "always");
    assert_eq!(get("color")["source"], user.display().to_string());
    assert_eq!(get("exec")["value"], "deny");
    assert_eq!(get("commit.coauthor")["value"], "Pair <pair@example.com>");
    assert_eq!(
        get("commit.coauthor")["source"],
        "git config clada.coauthor"
    );
    assert_eq!(get("files.final_newline")["source"], "default");
    assert_eq!(get("clipboard.copy")["value"], false);
    assert_eq!(get("commit.author")["value"], serde_json::Value::Null);
    let human = r.clada(&["--format", "human", "config"]);
    let text = String::from_utf8_lossy(&human.stdout);
    assert!(text.contains("timeout"), "{text}");
    assert!(
        text.contains(&format!("5s  ({repo_file})")) || text.contains("5s  ("),
        "{text}"
    );
}

#[test]
fn new_files_get_a_final_newline_unless_editorconfig_or_config_says_no() {
    let r = repo();
    r.write(
        ".editorconfig",
        "root = true\n[*.raw]\ninsert_final_newline = false\n[*.bat]\nend_of_line = crlf\n",
    );
    r.git(&["add", ".editorconfig"]);
    r.git(&["commit", "-q", "-m", "ec"]);
    let reply = [
        write_block("aa1", "new.txt", "one\ntwo"),
        write_block("aa2", "keep.raw", "exact"),
        write_block("aa3", "run.bat", "@echo off\necho hi"),
        write_block("aa4", "done.txt", "already\n"),
    ]
    .concat();
    let out = r.apply(&reply, &[]);
    assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
    let v = TestRepo::report(&out);
    assert_eq!(r.git(&["show", "HEAD:new.txt"]), "one\ntwo\n");
    assert_eq!(r.read("keep.raw"), "exact");
    assert_eq!(r.read("run.bat"), "@echo off\r\necho hi\r\n");
    assert_eq!(r.read("done.txt"), "already\n");
    assert_eq!(
        v["results"][0]["warnings"][0],
        "added a final newline (files.final_newline)"
    );
    assert!(
        v["results"][1].get("warnings").is_none(),
        "{}",
        v["results"][1]
    );
    assert!(v["results"][3].get("warnings").is_none());

    r.write(".clada.yml", "files:\n  final_newline: false\n");
    let out = r.apply(&write_block("bb1", "plain.txt", "no newline"), &[]);
    assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
    assert_eq!(r.read("plain.txt"), "no newline");
    r.assert_fsck();
}

fn exec_block(id: &str, code: &str) -> String {
    block(id, &[("action", "exec"), ("lang", "bash"), ("code", code)])
}

#[test]
fn approved_and_read_only_commands_run_without_a_terminal_and_others_are_refused() {
    let r = repo();
    // The user's approvals live in the git directory (issue 21), out of every reply's reach.
    fs::create_dir_all(r.path().join(".git/clada")).expect("mkdir");
    r.write(
        ".git/clada/allowed-commands.json",
        "{\"commands\": [\"echo approved > out.txt\"], \"added\": {}}\n",
    );
    let reply = [
        exec_block("ex1", "echo approved > out.txt"),
        exec_block("ex2", "echo not-approved > no.txt"),
        exec_block("ex3", "cat README.md"),
        exec_block("ex4", "cat README.md > copy.txt"),
    ]
    .concat();
    let out = r.apply(&reply, &[]);
    assert_eq!(exit_code(&out), 1, "{}", output_text(&out));
    let v = TestRepo::report(&out);
    let res = &v["results"];
    assert_eq!(res[0]["success"], true, "{}", res[0]);
    assert_eq!(r.read("out.txt"), "approved\n");
    assert_eq!(res[1]["success"], false);
    assert!(res[1]["error"]
        .as_str()
        .unwrap_or("")
        .contains("not approved and there is no terminal to ask"));
    assert!(!r.exists("no.txt"));
    // read-only: run directly, no shell
    assert_eq!(res[2]["success"], true, "{}", res[2]);
    assert_eq!(res[2]["data"]["stdout"], "hello\n");
    // a redirection is not read-only
    assert_eq!(res[3]["success"], false);
    assert!(!r.exists("copy.txt"));

    // an explicit deny refuses even read-only commands
    let out = r.apply(&exec_block("ex5", "ls"), &["--exec", "deny"]);
    let v = TestRepo::report(&out);
    assert_eq!(v["results"][0]["success"], false);
}

#[test]
fn timeout_max_output_and_total_timeout_options() {
    let r = repo();
    let reply = [
        exec_block("to1", "head -c 5000 /dev/zero | tr '\\0' x"),
        exec_block("to2", "sleep 5"),
        exec_block("to3", "echo late"),
    ]
    .concat();
    let out = r.apply(
        &reply,
        &["--exec", "allow", "--max-output", "100", "--timeout", "1s"],
    );
    let v = TestRepo::report(&out);
    let res = &v["results"];
    let stdout = res[0]["data"]["stdout"].as_str().unwrap_or("");
    assert!(stdout.ends_with("[output truncated]"), "{stdout}");
    assert_eq!(stdout.len(), 100 + "\n[output truncated]".len());
    assert_eq!(res[1]["error"], "exec: Process timeout after 1s (TIMEOUT)");
    assert_eq!(res[2]["success"], true);
    // --total-timeout: the sleep uses the whole budget, so the next block does not run.
    let out = r.apply(
        &[
            exec_block("tt1", "sleep 5"),
            exec_block("tt2", "echo late > late.txt"),
        ]
        .concat(),
        &[
            "--exec",
            "allow",
            "--timeout",
            "30",
            "--total-timeout",
            "1s",
        ],
    );
    let v = TestRepo::report(&out);
    let res = &v["results"];
    let first = res[0]["error"].as_str().unwrap_or("");
    assert!(first.starts_with("exec: Process timeout after "), "{first}");
    assert_eq!(
        res[1]["error"],
        "exec: not run: the total time for exec blocks (--total-timeout 1s) is used up"
    );
    assert!(!r.exists("late.txt"));
    // the same limits from the configuration
    r.write(".clada.yml", "max_output: 10\n");
    let out = r.apply(
        &exec_block("to4", "echo 0123456789abcdef"),
        &["--exec", "allow"],
    );
    let v = TestRepo::report(&out);
    assert!(v["results"][0]["data"]["stdout"]
        .as_str()
        .unwrap_or("")
        .starts_with("0123456789\n[output truncated]"));
}

/// Runs `git-clada apply` on a pseudo-terminal (util-linux `script`), answering the exec
/// prompt with `answer`.
fn apply_on_terminal(r: &TestRepo, reply_file: &str, answer: &str) -> std::process::Output {
    let cmd = format!(
        "{} --format json apply {reply_file}",
        env!("CARGO_BIN_EXE_git-clada")
    );
    let mut c = std::process::Command::new("script");
    c.args(["-qec", &cmd, "/dev/null"]);
    for (k, v) in &r.env {
        c.env(k, v);
    }
    c.current_dir(r.path())
        .env("HOME", r.home.path())
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", r.home.path().join(".gitconfig"))
        .env_remove("XDG_CONFIG_HOME");
    common::spawn_fed(c, answer)
        .wait_with_output()
        .expect("script")
}

#[test]
#[cfg_attr(not(has_script), ignore = "needs util-linux `script`")]
fn always_approval_is_stored_and_runs_non_interactively_next_time() {
    if std::process::Command::new("script")
        .arg("--version")
        .output()
        .is_err()
    {
        panic!("`script` (util-linux) is not installed, so no terminal can be simulated");
    }
    let r = repo();
    fs::write(
        r.path().join("reply.md"),
        exec_block("al1", "echo run >> log.txt"),
    )
    .expect("reply");
    fs::write(r.path().join(".git/info/exclude"), "reply.md\nlog.txt\n").expect("exclude");
    let out = apply_on_terminal(&r, "reply.md", "a\n");
    let text = output_text(&out);
    assert!(text.contains("Run it?"), "{text}");
    assert_eq!(r.read("log.txt"), "run\n", "{text}");
    let stored: serde_json::Value =
        serde_json::from_str(&r.read(".git/clada/allowed-commands.json")).expect("approvals json");
    assert_eq!(
        stored["commands"],
        serde_json::json!(["echo run >> log.txt"])
    );
    // The approval file is not part of the AI commit.
    let tree = r.git(&["ls-tree", "-r", "--name-only", "HEAD"]);
    assert!(!tree.contains("allowed-commands.json"), "{tree}");

    // Next time, without a terminal, it runs without asking.
    let out = r.apply(&exec_block("al2", "echo run >> log.txt"), &[]);
    assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
    assert_eq!(r.read("log.txt"), "run\nrun\n");
}

fn step<'a>(v: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    v["steps"]
        .as_array()
        .and_then(|s| s.iter().find(|s| s["name"] == name))
        .unwrap_or_else(|| panic!("no step {name}: {}", v["steps"]))
}

/// Writes `.clada.yml` and trusts it, so the commands it sets run.
fn write_trusted(r: &TestRepo, text: &str) {
    r.write(".clada.yml", text);
    let out = r.clada(&["config", "--trust"]);
    assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
}

#[test]
fn repository_hooks_run_only_when_that_version_of_the_file_is_trusted() {
    let r = repo();
    r.write(".clada.yml", "hooks:\n  before:\n    - touch ran-before\n");
    let out = r.apply(&write_block("ut1", "a.txt", "a"), &[]);
    assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
    assert!(!r.exists("ran-before"), "an untrusted hook ran");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(".clada.yml sets hooks.before, but this version of it is not trusted")
            && err.contains("git clada config --trust"),
        "{err}"
    );
    let shown = r.clada(&["config"]);
    assert!(
        String::from_utf8_lossy(&shown.stdout).contains("not trusted"),
        "{}",
        output_text(&shown)
    );

    let out = r.clada(&["config", "--trust"]);
    assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
    let out = r.apply(&write_block("ut2", "b.txt", "b"), &[]);
    assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
    assert!(r.exists("ran-before"), "a trusted hook did not run");
    fs::remove_file(r.path().join("ran-before")).expect("rm");

    // Any change to the file needs trusting again.
    r.write(
        ".clada.yml",
        "hooks:\n  before:\n    - touch ran-before # changed\n",
    );
    let out = r.apply(&write_block("ut3", "c.txt", "c"), &[]);
    assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
    assert!(!r.exists("ran-before"), "a changed file's hook ran");
    // The trusted copy lives in the git directory: never committed, never cloned.
    assert!(r.path().join(".git/clada/trusted-config.yml").exists());
    assert!(!r
        .git(&["status", "--porcelain", "--ignored"])
        .contains("trusted"));
}

#[test]
fn an_after_formatter_change_is_in_the_ai_commit_and_undo_takes_it_back() {
    let r = repo();
    write_trusted(
        &r,
        "hooks:\n  after:\n    - tr a-z A-Z < note.txt > note.tmp && mv note.tmp note.txt\n",
    );
    let out = r.apply(&write_block("fm1", "note.txt", "hello"), &[]);
    assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
    let v = TestRepo::report(&out);
    assert_eq!(
        step(
            &v,
            "hooks.after: tr a-z A-Z < note.txt > note.tmp && mv note.tmp note.txt"
        )["success"],
        true
    );
    assert_eq!(r.git(&["show", "HEAD:note.txt"]), "HELLO\n");
    assert!(r.subject("HEAD").starts_with("AI: "));
    assert_eq!(r.status(), "?? .clada.yml\n");
    let out = r.clada(&["undo"]);
    assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
    assert!(!r.exists("note.txt"));
    assert_eq!(r.subject("HEAD"), "initial");
    r.assert_fsck();
}

#[test]
fn an_after_test_failure_is_a_failed_step_and_rolls_back_only_when_configured() {
    let r = repo();
    write_trusted(
        &r,
        "hooks:\n  after:\n    - run: \"echo 'test_add failed: expected 3, got 4' >&2; exit 1\"\n      timeout: 10s\n    - echo never\n",
    );
    let out = r.apply(
        &write_block("tf1", "add.py", "def add(a, b): return a + b + 1"),
        &["--format", "llm"],
    );
    assert_eq!(exit_code(&out), 1, "{}", output_text(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("step ❌ hooks.after: echo 'test_add failed: expected 3, got 4' >&2; exit 1"),
        "{text}"
    );
    assert!(text.contains("exited with code 1"), "{text}");
    assert!(
        text.contains("test_add failed: expected 3, got 4"),
        "{text}"
    );
    assert!(
        !text.contains("echo never"),
        "stops at the first failure: {text}"
    );
    // No roll-back by default: the AI commit stands.
    assert!(
        r.subject("HEAD").starts_with("AI: "),
        "{}",
        r.subject("HEAD")
    );
    assert!(r
        .git(&["ls-tree", "--name-only", "HEAD"])
        .contains("add.py"));

    write_trusted(
        &r,
        "hooks:\n  rollback_on_failure: true\n  after:\n    - exit 1\n",
    );
    let head = r.head();
    let out = r.apply(&write_block("tf2", "sub.py", "x = 1"), &[]);
    assert_eq!(exit_code(&out), 1, "{}", output_text(&out));
    let v = TestRepo::report(&out);
    assert_eq!(v["rolledBack"], true, "{v}");
    assert_eq!(step(&v, "hooks.after: exit 1")["success"], false);
    assert!(!r.exists("sub.py"));
    assert_eq!(r.head(), head);
}

#[test]
fn a_failed_before_command_applies_nothing() {
    let r = repo();
    write_trusted(&r, "hooks:\n  before:\n    - echo not ready >&2; exit 4\n");
    let head = r.head();
    let out = r.apply(&write_block("bf1", "x.txt", "x"), &[]);
    assert_eq!(exit_code(&out), 1, "{}", output_text(&out));
    let v = TestRepo::report(&out);
    let s = step(&v, "hooks.before: echo not ready >&2; exit 4");
    assert_eq!(s["success"], false);
    assert_eq!(s["output"], "exited with code 4\nnot ready\n");
    assert!(!r.exists("x.txt"));
    assert_eq!(r.head(), head);
}

#[test]
fn paths_deny_refuses_matching_paths_before_anything_runs() {
    let r = repo();
    r.write(".env", "TOKEN=1\n");
    r.write(".clada.yml", "paths:\n  deny: [\".env\", \"secrets\"]\n");
    let reply = [
        write_block("pd1", "secrets/key.txt", "k"),
        block("pd2", &[("action", "file_read"), ("path", ".env")]),
        write_block("pd3", "ok.txt", "fine"),
    ]
    .concat();
    let out = r.apply(&reply, &[]);
    assert_eq!(exit_code(&out), 1, "{}", output_text(&out));
    let v = TestRepo::report(&out);
    for i in [0, 1] {
        let e = v["results"][i]["error"].as_str().unwrap_or("");
        assert!(e.starts_with("path_denied"), "{e}");
    }
    assert!(!r.exists("secrets/key.txt"));
    assert_eq!(v["results"][2]["success"], true);
    r.write(".clada.yml", "paths:\n  deny: [\"a[\"]\n");
    let out = r.clada(&["config"]);
    assert_eq!(exit_code(&out), 2);
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("paths.deny: 'a[' is not a valid glob"),
        "{}",
        output_text(&out)
    );
}

#[test]
fn a_symlinked_hook_is_refused_and_left_alone() {
    let r = repo();
    r.write("shared-hook", "#!/bin/sh\nexit 0\n");
    let hook = r.path().join(".git/hooks/pre-commit");
    std::os::unix::fs::symlink(r.path().join("shared-hook"), &hook).expect("symlink");
    let out = r.clada(&["hooks", "install"]);
    assert_eq!(exit_code(&out), 3, "{}", output_text(&out));
    assert!(
        output_text(&out).contains("is a symlink"),
        "{}",
        output_text(&out)
    );
    assert!(fs::symlink_metadata(&hook)
        .expect("stat")
        .file_type()
        .is_symlink());
    assert_eq!(r.read("shared-hook"), "#!/bin/sh\nexit 0\n");
}

/// Issue 38 §3: `pre-commit install` (the pre-commit framework) moves an existing hook to
/// `pre-commit.legacy` and runs it from its own; git-clada's block is found there, by
/// install (not added twice) and by uninstall (which said "not installed" while the check
/// still ran through the framework's hook).
#[test]
fn hooks_install_and_uninstall_find_the_block_the_pre_commit_framework_moved_to_legacy() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let out = repo.clada(&["hooks", "install"]);
    assert_eq!(exit_code(&out), 0, "{}", common::output_text(&out));
    let hooks = repo.path().join(".git/hooks");
    // What `pre-commit install` does: move the hook aside, install its own runner.
    std::fs::rename(hooks.join("pre-commit"), hooks.join("pre-commit.legacy")).unwrap();
    repo.write(
        ".git/hooks/pre-commit",
        "#!/bin/sh\n# File generated by pre-commit: https://pre-commit.com\n\"$(dirname \"$0\")/pre-commit.legacy\" \"$@\" || exit $?\n",
    );
    repo.set_executable(".git/hooks/pre-commit");
    let framework = std::fs::read_to_string(hooks.join("pre-commit")).unwrap();

    let out = repo.clada(&["hooks", "install"]);
    let text = common::output_text(&out);
    assert!(
        text.contains("already installed") && text.contains("pre-commit.legacy"),
        "{text}"
    );
    assert_eq!(
        std::fs::read_to_string(hooks.join("pre-commit")).unwrap(),
        framework
    );

    let out = repo.clada(&["hooks", "uninstall"]);
    let text = common::output_text(&out);
    assert_eq!(exit_code(&out), 0, "{text}");
    assert!(!text.contains("not installed"), "{text}");
    assert!(text.contains("pre-commit.legacy"), "{text}");
    assert!(
        !hooks.join("pre-commit.legacy").exists(),
        "the hook git-clada created is gone"
    );
    assert_eq!(
        std::fs::read_to_string(hooks.join("pre-commit")).unwrap(),
        framework,
        "the framework's own hook is untouched"
    );
}

fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A repository with `scripts/check.sh` committed and `approvals` as the user's store.
fn script_repo(approvals: &str) -> TestRepo {
    let r = TestRepo::with_files(&[
        ("README.md", "hello\n"),
        ("scripts/check.sh", "echo checked >> log.txt\n"),
    ]);
    fs::create_dir_all(r.path().join(".git/clada")).expect("mkdir");
    r.write(".git/clada/allowed-commands.json", approvals);
    fs::write(r.path().join(".git/info/exclude"), "log.txt\n").expect("exclude");
    r
}

fn result_text(out: &std::process::Output, i: usize) -> String {
    TestRepo::report(out)["results"][i].to_string()
}

#[test]
fn an_approval_of_a_worktree_script_is_bound_to_its_content() {
    let hash = sha256_hex(b"echo checked >> log.txt\n");
    let store = format!(
        "{{\"commands\": [\"bash scripts/check.sh\"], \"added\": {{}}, \
         \"bound\": {{\"bash scripts/check.sh\": {{\"scripts/check.sh\": \"{hash}\"}}}}}}\n"
    );
    let r = script_repo(&store);
    // Unchanged: runs without asking.
    let out = r.apply(&exec_block("sc1", "bash scripts/check.sh"), &[]);
    assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
    assert_eq!(r.read("log.txt"), "checked\n");
    // A reply rewrites the script, then runs the approved command: it asks (refused here, no
    // terminal), naming the file.
    let reply = [
        write_block("sc2", "scripts/check.sh", "echo PWNED >> log.txt"),
        exec_block("sc3", "bash scripts/check.sh"),
    ]
    .concat();
    let out = r.apply(&reply, &[]);
    let text = result_text(&out, 1);
    assert!(
        text.contains("not approved") && text.contains("scripts/check.sh changed since"),
        "{text}"
    );
    assert_eq!(r.read("log.txt"), "checked\n");
    // Commands that name no worktree file stay bound to their text only.
    let store = "{\"commands\": [\"echo plain >> log.txt\"], \"added\": {}}\n";
    r.write(".git/clada/allowed-commands.json", store);
    let out = r.apply(&exec_block("sc4", "echo plain >> log.txt"), &[]);
    assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
    assert_eq!(r.read("log.txt"), "checked\nplain\n");
}

#[test]
fn an_approval_stored_before_binding_asks_once_more_with_a_notice() {
    let r = script_repo(
        "{\"commands\": [\"bash scripts/check.sh\", \"./scripts/check.sh\"], \"added\": {}}\n",
    );
    for (id, code) in [
        ("ol1", "bash scripts/check.sh"),
        ("ol2", "./scripts/check.sh"),
    ] {
        let out = r.apply(&exec_block(id, code), &[]);
        let text = result_text(&out, 0);
        assert!(
            text.contains("before approvals were bound") && text.contains("scripts/check.sh"),
            "{text}"
        );
    }
    assert!(!r.exists("log.txt"));
}

#[test]
fn always_binds_the_approval_to_the_scripts_content() {
    if std::process::Command::new("script")
        .arg("--version")
        .output()
        .is_err()
    {
        assert!(
            std::env::var_os("CLADA_REQUIRE_TOOLS").is_none(),
            "`script` (util-linux) is required for this test"
        );
        eprintln!("SKIPPED: `script` (util-linux) is not installed");
        return;
    }
    let mut r = script_repo("{\"commands\": [], \"added\": {}}\n");
    r.env.push(("PATH".into(), common::path_with_clada(&[])));
    fs::write(
        r.path().join("reply.md"),
        exec_block("al3", "bash scripts/check.sh"),
    )
    .expect("reply");
    fs::write(r.path().join(".git/info/exclude"), "reply.md\nlog.txt\n").expect("exclude");
    let out = apply_on_terminal(&r, "reply.md", "a\n");
    assert_eq!(r.read("log.txt"), "checked\n", "{}", output_text(&out));
    let stored: serde_json::Value =
        serde_json::from_str(&r.read(".git/clada/allowed-commands.json")).expect("json");
    assert_eq!(
        stored["bound"]["bash scripts/check.sh"]["scripts/check.sh"],
        sha256_hex(b"echo checked >> log.txt\n"),
        "{stored}"
    );
    // Runs without asking next time; once the file changed, no longer.
    let out = r.apply(&exec_block("al4", "bash scripts/check.sh"), &[]);
    assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
    r.write("scripts/check.sh", "echo other >> log.txt\n");
    let out = r.apply(&exec_block("al5", "bash scripts/check.sh"), &[]);
    assert!(
        result_text(&out, 0).contains("changed since"),
        "{}",
        output_text(&out)
    );
    assert_eq!(r.read("log.txt"), "checked\nchecked\n");
    // At the terminal, the prompt shows the change since the approval, from the copy kept
    // when "always" was answered.
    let kept = r.path().join(".git/clada/approved-scripts");
    assert!(
        kept.join(sha256_hex(b"echo checked >> log.txt\n"))
            .is_file(),
        "the approved content is kept"
    );
    let out = apply_on_terminal(&r, "reply.md", "n\n");
    let text = output_text(&out);
    assert!(
        text.contains("scripts/check.sh changed since your approval")
            && text.contains("-echo checked >> log.txt")
            && text.contains("+echo other >> log.txt"),
        "{text}"
    );
    assert_eq!(r.read("log.txt"), "checked\nchecked\n");
}

/// Issue 51 §8: the forms that escaped the content binding. Each was approved ("always") by
/// an older git-clada, which bound it to nothing; a reply rewrites the script it runs and
/// runs it: it asks once more, naming the script, instead of running the reply's code.
#[test]
fn approvals_through_wrappers_c_strings_a_shells_input_and_cd_are_bound_to_the_script() {
    let forms = [
        "timeout 60 ./scripts/check.sh",
        "nice ./scripts/check.sh",
        "time ./scripts/check.sh",
        "nohup ./scripts/check.sh",
        "env -i ./scripts/check.sh",
        "bash -c ./scripts/check.sh",
        "bash <scripts/check.sh",
        "cat scripts/check.sh | bash",
        "cd scripts && ./check.sh",
    ];
    let commands: Vec<String> = forms.iter().map(|f| format!("{f:?}")).collect();
    let r = script_repo(&format!(
        "{{\"commands\": [{}], \"added\": {{}}}}\n",
        commands.join(", ")
    ));
    r.set_executable("scripts/check.sh");
    let mut reply = write_block("wr0", "scripts/check.sh", "echo PWNED >> log.txt\n");
    for (i, f) in forms.iter().enumerate() {
        reply.push_str(&exec_block(&format!("wr{}", i + 1), f));
    }
    let out = r.apply(&reply, &[]);
    for (i, f) in forms.iter().enumerate() {
        let text = result_text(&out, i + 1);
        assert!(
            text.contains("not approved")
                && text.contains("scripts/check.sh")
                && text.contains("asks once more"),
            "{f}: {text}"
        );
    }
    assert!(!r.exists("log.txt") && !r.exists("scripts/log.txt"));
}

/// An approval bound (by "always" now) through a wrapper runs without asking while the script
/// is unchanged, and asks once a reply changed it.
#[test]
fn a_wrapped_approval_runs_while_its_script_is_unchanged() {
    let hash = sha256_hex(b"echo checked >> log.txt\n");
    let cmd = "timeout 60 bash -c 'cd scripts && nice ./check.sh'";
    let store = format!(
        "{{\"commands\": [{cmd:?}], \"added\": {{}}, \"bound\": {{{cmd:?}: {{\"scripts/check.sh\": \"{hash}\"}}}}}}\n"
    );
    let r = script_repo(&store);
    r.set_executable("scripts/check.sh");
    let out = r.apply(&exec_block("wb1", cmd), &[]);
    assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
    assert_eq!(r.read("scripts/log.txt"), "checked\n");
    let reply = [
        write_block("wb2", "scripts/check.sh", "echo PWNED >> log.txt\n"),
        exec_block("wb3", cmd),
    ]
    .concat();
    let out = r.apply(&reply, &[]);
    let text = result_text(&out, 1);
    assert!(text.contains("scripts/check.sh changed since"), "{text}");
    assert_eq!(r.read("scripts/log.txt"), "checked\n");
}

/// What cannot be read with certainty is never approved for "always": a stored approval of
/// such a form asks, saying why, and at the terminal no "always" is offered or remembered.
#[test]
fn a_command_that_cannot_be_read_with_certainty_gets_no_always() {
    let cmd = "eval ./scripts/check.sh";
    let r = script_repo(&format!("{{\"commands\": [{cmd:?}], \"added\": {{}}}}\n"));
    r.set_executable("scripts/check.sh");
    let out = r.apply(&exec_block("na1", cmd), &[]);
    let text = result_text(&out, 0);
    assert!(
        text.contains("not approved")
            && text.contains("cannot tell with certainty")
            && text.contains("eval")
            && !text.contains("interactively with \\\"always\\\""),
        "{text}"
    );
    assert!(!r.exists("log.txt"));
    if std::process::Command::new("script")
        .arg("--version")
        .output()
        .is_err()
    {
        assert!(
            std::env::var_os("CLADA_REQUIRE_TOOLS").is_none(),
            "`script` (util-linux) is required for this test"
        );
        eprintln!("SKIPPED: `script` (util-linux) is not installed");
        return;
    }
    let mut r = r;
    r.env.push(("PATH".into(), common::path_with_clada(&[])));
    fs::write(r.path().join("reply.md"), exec_block("na2", cmd)).expect("reply");
    fs::write(r.path().join(".git/info/exclude"), "reply.md\nlog.txt\n").expect("exclude");
    let before = r.read(".git/clada/allowed-commands.json");
    // "a" is no answer here: nothing runs, nothing is remembered.
    let out = apply_on_terminal(&r, "reply.md", "a\n");
    let text = output_text(&out);
    assert!(
        text.contains("(no always: see above)") && !text.contains("[a]lways"),
        "{text}"
    );
    assert!(!r.exists("log.txt"), "{text}");
    // Yes runs it once.
    let out = apply_on_terminal(&r, "reply.md", "y\n");
    assert_eq!(r.read("log.txt"), "checked\n", "{}", output_text(&out));
    assert_eq!(r.read(".git/clada/allowed-commands.json"), before);
}

/// The shape of every write is looked up before the reply's first block runs: a reply that
/// writes an `.editorconfig` and then a file shapes that file by the `.editorconfig` the
/// repository had, in a run and in a dry run alike (the new one applies from the next apply).
#[test]
fn a_replys_own_editorconfig_shapes_its_writes_from_the_next_apply() {
    let r = repo();
    let reply = [
        write_block(
            "ec1",
            ".editorconfig",
            "root = true\n[*.raw]\ninsert_final_newline = false\n",
        ),
        write_block("ec2", "first.raw", "exact"),
    ]
    .concat();
    let dry = r.apply(&reply, &["--dry-run"]);
    assert_eq!(exit_code(&dry), 0, "{}", output_text(&dry));
    let dry_report = TestRepo::report(&dry);
    let out = r.apply(&reply, &[]);
    assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
    let v = TestRepo::report(&out);
    assert_eq!(r.read("first.raw"), "exact\n");
    assert_eq!(
        v["results"][1]["warnings"][0],
        "added a final newline (files.final_newline)"
    );
    assert_eq!(
        dry_report["results"][1]["warnings"],
        v["results"][1]["warnings"]
    );
    let out = r.apply(&write_block("ec3", "second.raw", "exact"), &[]);
    assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
    assert_eq!(r.read("second.raw"), "exact");
    r.assert_fsck();
}
