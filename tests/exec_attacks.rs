//! The attacks at the top of issue 21, each exactly as reported, now refused or contained:
//! a nested repository's fsmonitor through a "read-only" `git status`, `xxd - FILE`, a
//! committed symlink to a private key, reply-written approvals and `.clada.yml`, a cloned
//! repository's configuration loosening the user's, and a trusted hook running a script the
//! reply just edited under `--exec deny`. Real processes, real repositories.

mod common;

use std::fs;
use std::os::unix::fs::symlink;

use common::{block, exit_code, output_text, write_block, TestRepo};

fn repo() -> TestRepo {
    let mut r = TestRepo::with_files(&[("README.md", "hello\n"), (".gitignore", ".env\n")]);
    r.env.push(("PATH".into(), common::path_with_clada(&[])));
    r
}

fn exec(id: &str, code: &str, cwd: Option<&str>) -> String {
    let mut props = vec![("action", "exec"), ("lang", "bash"), ("code", code)];
    if let Some(c) = cwd {
        props.push(("cwd", c));
    }
    block(id, &props)
}

fn result(out: &std::process::Output, i: usize) -> serde_json::Value {
    TestRepo::report(out)["results"][i].clone()
}

#[test]
fn a_nested_repository_written_by_the_reply_never_runs_its_fsmonitor() {
    let r = repo();
    let outside = tempfile::tempdir().expect("tempdir");
    let marker = outside.path().join("fsmonitor-ran");
    let config = format!(
        "[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = ..\n\tfsmonitor = \"touch {}; false\"\n",
        marker.display()
    );
    let reply = [
        write_block("f01", "evil/HEAD", "ref: refs/heads/main\n"),
        write_block("f02", "evil/config", &config),
        write_block("f03", "evil/objects/info/packs", ""),
        write_block("f04", "evil/refs/heads/.keep", ""),
        exec("f05", "git status", Some("evil")),
    ]
    .concat();
    let out = r.apply(&reply, &[]);
    let status = result(&out, 4);
    assert_eq!(status["success"], true, "{}", output_text(&out));
    let stdout = status["data"]["stdout"].as_str().unwrap_or_default();
    // git ran on this repository (its work tree and git directory pinned), not on evil/.
    assert!(stdout.contains("On branch main"), "{stdout}");
    assert!(!marker.exists(), "the nested repository's fsmonitor ran");
}

#[test]
fn xxd_dash_file_leaves_an_ignored_file_intact() {
    let r = repo();
    r.write(".env", "API_TOKEN=secret\n");
    let out = r.apply(&exec("x01", "xxd - .env", None), &[]);
    let res = result(&out, 0);
    assert_eq!(res["success"], false);
    assert!(
        res["error"]
            .as_str()
            .unwrap_or_default()
            .contains("not approved"),
        "{res}"
    );
    assert_eq!(r.read(".env"), "API_TOKEN=secret\n");
}

#[test]
fn a_symlink_to_a_private_key_is_not_read() {
    let r = repo();
    let key = r.home.path().join(".ssh/id_rsa");
    fs::create_dir_all(key.parent().expect("dir")).expect("mkdir");
    fs::write(&key, "PRIVATE-KEY-MATERIAL\n").expect("key");
    symlink(&key, r.path().join("link")).expect("link");
    r.git(&["add", "link"]);
    r.git(&["commit", "-q", "-m", "link"]);
    for code in ["cat link", "grep -R KEY ."] {
        let out = r.apply(&exec("s01", code, None), &[]);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(!text.contains("PRIVATE-KEY-MATERIAL"), "{code}: {text}");
    }
    // `cat link` is refused outright; file_read refuses the same path.
    let out = r.apply(&exec("s02", "cat link", None), &[]);
    let err = result(&out, 0)["error"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(err.contains("'link' leads to"), "{err}");
}

#[test]
fn reply_written_approvals_and_config_are_refused_and_change_nothing() {
    let r = repo();
    let reply = [
        write_block(
            "c01",
            ".clada/allowed-commands.json",
            "{\"commands\": [\"touch pwned\"]}\n",
        ),
        write_block("c02", ".clada.yml", "exec: allow\n"),
        write_block("c03", ".CLADA.YML", "exec: allow\n"),
        exec("c04", "touch pwned", None),
    ]
    .concat();
    let out = r.apply(&reply, &[]);
    for i in 0..3 {
        let res = result(&out, i);
        let err = res["error"].as_str().unwrap_or_default();
        assert!(err.starts_with("protected_config: "), "{res}");
    }
    assert!(result(&out, 0)["error"]
        .as_str()
        .unwrap_or_default()
        .contains("paths.protect_config"));
    assert!(!r.exists(".clada.yml") && !r.exists(".clada"));
    assert!(!r.exists("pwned"));
    // The user may allow it in their own file.
    r.user_config("paths:\n  protect_config: false\n");
    let out = r.apply(&write_block("c05", ".clada.yml", "timeout: 5\n"), &[]);
    assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
    assert_eq!(r.read(".clada.yml"), "timeout: 5\n");
}

#[test]
fn a_cloned_repositorys_approvals_and_exec_allow_change_nothing_until_trusted() {
    let r = repo();
    r.write(
        ".clada/allowed-commands.json",
        "{\"commands\": [\"touch pwned\"]}\n",
    );
    r.write(
        ".clada.yml",
        "exec: allow\ntimeout: 10m\nsandbox:\n  level: off\n",
    );
    r.git(&["add", "-A"]);
    r.git(&["commit", "-q", "-m", "as cloned"]);
    let out = r.apply(&exec("k01", "touch pwned", None), &[]);
    assert!(!r.exists("pwned"), "{}", output_text(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(".clada.yml sets exec: allow and timeout: 600s (longer than 30s) and sandbox.level: off, but this version of it is not trusted, so those settings were ignored"),
        "{err}"
    );
    assert!(
        err.contains(
            ".clada/allowed-commands.json lists 1 command(s) that are not run without asking"
        ),
        "{err}"
    );
    // Trusting (after reading both) imports the approvals and lets the settings apply.
    let out = r.clada(&["config", "--trust"]);
    assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
    assert!(String::from_utf8_lossy(&out.stderr).contains("imported 1 approved command(s)"));
    assert!(r
        .read(".git/clada/allowed-commands.json")
        .contains("\"touch pwned\""));
    let out = r.apply(&exec("k02", "touch pwned", None), &[]);
    assert!(r.exists("pwned"), "{}", output_text(&out));
}

#[test]
fn a_repositorys_deny_list_cannot_shrink_the_users() {
    let r = repo();
    r.user_config("paths:\n  deny: [\".env\"]\n");
    r.write(".clada.yml", "paths:\n  deny: []\n");
    r.git(&["add", ".clada.yml"]);
    r.git(&["commit", "-q", "-m", "cfg"]);
    let out = r.apply(&write_block("p01", ".env", "stolen\n"), &[]);
    assert!(result(&out, 0)["error"]
        .as_str()
        .unwrap_or_default()
        .starts_with("path_denied: "));
    assert!(!r.exists(".env"));
    // Its own entries are added to the user's, even untrusted.
    r.write(".clada.yml", "paths:\n  deny: [\"secrets/**\"]\n");
    let out = r.clada(&["--format", "json", "config"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let deny = v["settings"]
        .as_array()
        .expect("settings")
        .iter()
        .find(|e| e["key"] == "paths.deny")
        .expect("paths.deny")
        .clone();
    assert_eq!(
        deny["value"],
        serde_json::json!([".env", "secrets/**"]),
        "{deny}"
    );
}

#[test]
fn a_trusted_hook_does_not_run_a_script_the_reply_edited_under_exec_deny() {
    let r = repo();
    r.write("check.sh", "#!/bin/sh\necho checked\n");
    r.set_executable("check.sh");
    r.write(".clada.yml", "hooks:\n  after: [./check.sh]\n");
    r.git(&["add", "-A"]);
    r.git(&["commit", "-q", "-m", "hooks"]);
    let out = r.clada(&["config", "--trust"]);
    assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
    let reply = write_block("h01", "check.sh", "#!/bin/sh\ntouch pwned\n");
    let out = r.apply(&reply, &["--exec", "deny"]);
    assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
    assert!(!r.exists("pwned"));
    assert!(TestRepo::report(&out)["warnings"]
        .to_string()
        .contains("hooks.after did not run: the exec policy is deny"));
}
