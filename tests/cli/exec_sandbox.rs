//! The OS sandbox with real processes (issue 21): an exec block (and a hook) confined at
//! `workspace` cannot write outside the worktree or into `.git`, cannot connect to a listening
//! loopback socket, cannot read a file in `$HOME`; at `off` it can; at `read-only` it cannot
//! even write the worktree; and where the sandbox is unavailable (simulated with
//! `sandbox.landlock: false`) exec blocks are refused, saying why, unless the user's own
//! `sandbox.level: off` runs them unconfined, with a warning — never silently. The containment
//! of a block and of a hook runs in every mode of `common::modes`.

use crate::common;

use std::fs;
use std::io::ErrorKind;
use std::net::TcpListener;

use common::modes::{self, Mode};
use common::{block, exit_code, output_text, TestRepo};

fn repo() -> TestRepo {
    let mut r = TestRepo::with_files(&[("README.md", "hello\n")]);
    r.env.push(("PATH".into(), common::path_with_clada(&[])));
    r
}

fn exec(id: &str, code: &str) -> String {
    block(id, &[("action", "exec"), ("lang", "bash"), ("code", code)])
}

/// What one exec block did, from the JSON report.
fn ran(out: &std::process::Output, i: usize) -> (String, String, Vec<String>) {
    let v = TestRepo::report(out);
    let r = &v["results"][i];
    let warnings = r["warnings"]
        .as_array()
        .map(|w| {
            w.iter()
                .map(|x| x.as_str().unwrap_or("").to_string())
                .collect()
        })
        .unwrap_or_default();
    (
        r["data"]["stdout"].as_str().unwrap_or_default().to_string(),
        r["data"]["stderr"].as_str().unwrap_or_default().to_string(),
        warnings,
    )
}

/// The attempts one block makes: write outside, write into .git, connect to `port`, read
/// `$HOME/secret.txt`, and write inside the worktree (in `sub/`: without namespaces nothing
/// can be created directly in the worktree root).
fn attempts(outside: &std::path::Path, port: u16) -> String {
    format!(
        "echo x > {o}/written && echo WROTE-OUTSIDE\n\
         echo x > .git/written && echo WROTE-GIT\n\
         echo x > .git/hooks/pre-commit && echo WROTE-HOOK\n\
         (exec 3<>/dev/tcp/127.0.0.1/{port}) && echo CONNECTED\n\
         cat \"$HOME/secret.txt\"\n\
         echo inside > sub/inside.txt && echo WROTE-INSIDE\n\
         true\n",
        o = outside.display()
    )
}

fn accepted(l: &TcpListener) -> bool {
    l.set_nonblocking(true).expect("nonblocking");
    match l.accept() {
        Ok(_) => true,
        Err(e) if e.kind() == ErrorKind::WouldBlock => false,
        Err(e) => panic!("accept: {e}"),
    }
}

fn workspace_attempts_as(m: &Mode) {
    let mut r = m.repo(&[("README.md", "hello\n"), ("sub/README", "sub\n")]);
    r.env.push(("PATH".into(), common::path_with_clada(&[])));
    let outside = tempfile::tempdir().expect("tempdir");
    fs::write(r.home.path().join("secret.txt"), "HOME-SECRET\n").expect("secret");
    m.own(&[outside.path(), r.home.path()]);
    let listener = TcpListener::bind("127.0.0.1:0").expect("listen");
    let port = listener.local_addr().expect("addr").port();
    let out = m.apply(
        &r,
        &exec("w01", &attempts(outside.path(), port)),
        &["--exec", "allow"],
    );
    let who = m.name();
    assert_eq!(exit_code(&out), 0, "{who}: {}", output_text(&out));
    let (stdout, stderr, _) = ran(&out, 0);
    assert_eq!(stdout, "WROTE-INSIDE\n", "{who}: {stderr}");
    assert!(!outside.path().join("written").exists(), "{who}");
    assert!(!r.exists(".git/written"), "{who}");
    assert!(!r.exists(".git/hooks/pre-commit"), "{who}");
    assert!(!accepted(&listener), "{who}: a sandboxed block connected");
    assert!(!stdout.contains("HOME-SECRET") && !stderr.contains("HOME-SECRET"));
    assert!(stderr.contains("Permission denied"), "{who}: {stderr}");
    // A read-only mount with namespaces; without, Landlock's refusal.
    let refused = match m.namespaces {
        true => ".git/written: Read-only file system",
        false => ".git/written: Permission denied",
    };
    assert!(stderr.contains(refused), "{who}: {stderr}");
    // Writing inside the worktree works, and is committed as exec's change.
    assert_eq!(r.read("sub/inside.txt"), "inside\n");
    assert_eq!(r.git(&["show", "HEAD:sub/inside.txt"]), "inside\n");
    r.assert_fsck();
}

#[test]
fn workspace_cannot_write_outside_or_into_git_connect_or_read_home() {
    modes::each(workspace_attempts_as);
}

#[test]
fn off_can_do_all_of_it() {
    let r = repo();
    r.user_config("sandbox:\n  level: off\n");
    r.write("sub/README", "sub\n");
    let outside = tempfile::tempdir().expect("tempdir");
    fs::write(r.home.path().join("secret.txt"), "HOME-SECRET\n").expect("secret");
    let listener = TcpListener::bind("127.0.0.1:0").expect("listen");
    let port = listener.local_addr().expect("addr").port();
    let out = r.apply(
        &exec("o01", &attempts(outside.path(), port)),
        &["--exec", "allow"],
    );
    let (stdout, stderr, _) = ran(&out, 0);
    assert_eq!(
        stdout, "WROTE-OUTSIDE\nWROTE-GIT\nWROTE-HOOK\nCONNECTED\nHOME-SECRET\nWROTE-INSIDE\n",
        "{stderr}"
    );
    assert!(outside.path().join("written").exists());
    assert!(r.exists(".git/written"));
    assert!(accepted(&listener), "the unsandboxed block did not connect");
}

#[test]
fn read_only_level_keeps_the_worktree_too() {
    let r = repo();
    r.user_config("sandbox:\n  level: read-only\n");
    let out = r.apply(
        &exec("r01", "cat README.md; echo x > new.txt || echo REFUSED; ls \"$TMPDIR\" >/dev/null && echo TMP-OK"),
        &["--exec", "allow"],
    );
    let (stdout, stderr, _) = ran(&out, 0);
    assert_eq!(stdout, "hello\nREFUSED\nTMP-OK\n", "{stderr}");
    assert!(!r.exists("new.txt"));
}

#[test]
fn network_can_be_allowed_by_the_user() {
    let r = repo();
    r.user_config("sandbox:\n  network: true\n");
    let listener = TcpListener::bind("127.0.0.1:0").expect("listen");
    let port = listener.local_addr().expect("addr").port();
    let code = format!("(exec 3<>/dev/tcp/127.0.0.1/{port}) && echo CONNECTED; echo x > .git/x");
    let out = r.apply(&exec("n01", &code), &["--exec", "allow"]);
    let (stdout, _, _) = ran(&out, 0);
    assert_eq!(stdout, "CONNECTED\n");
    assert!(accepted(&listener));
    assert!(!r.exists(".git/x"), "network does not open .git");
}

fn hooks_as(m: &Mode) {
    let mut r = m.repo(&[("README.md", "hello\n")]);
    r.env.push(("PATH".into(), common::path_with_clada(&[])));
    let outside = tempfile::tempdir().expect("tempdir");
    m.own(&[outside.path()]);
    let hook = format!(
        "echo x > {}/hooked; echo x > .git/hooked; echo fmt >> a.txt",
        outside.path().display()
    );
    r.user_config(&format!("hooks:\n  after:\n    - {hook:?}\n"));
    m.own_repo(&r);
    let out = m.apply(&r, &common::write_block("h01", "a.txt", "a\n"), &[]);
    assert_eq!(exit_code(&out), 0, "{}: {}", m.name(), output_text(&out));
    assert!(!outside.path().join("hooked").exists(), "{}", m.name());
    assert!(!r.exists(".git/hooked"), "{}", m.name());
    // Inside the worktree, the formatter's change to the reply's file is in the AI commit.
    assert_eq!(r.git(&["show", "HEAD:a.txt"]), "a\nfmt\n", "{}", m.name());
}

#[test]
fn hooks_run_in_the_sandbox() {
    modes::each(hooks_as);
}

#[test]
fn exec_deny_skips_hooks_with_a_warning() {
    let r = repo();
    r.user_config("hooks:\n  before:\n    - touch before-ran\n  after:\n    - ./check.sh\n");
    r.write("check.sh", "#!/bin/sh\ntouch after-ran\n");
    r.set_executable("check.sh");
    let out = r.apply(
        &common::write_block("d01", "check.sh", "#!/bin/sh\ntouch pwned\n"),
        &["--exec", "deny"],
    );
    assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
    assert!(!r.exists("before-ran") && !r.exists("after-ran") && !r.exists("pwned"));
    let v = TestRepo::report(&out);
    let warnings = v["warnings"].to_string();
    assert!(
        warnings.contains("hooks.before and hooks.after did not run: the exec policy is deny"),
        "{warnings}"
    );
}

#[test]
fn without_the_os_sandbox_exec_blocks_are_refused_unless_your_own_level_is_off() {
    let r = repo();
    r.user_config("sandbox:\n  landlock: false\n");
    // Refused before anything asks, read-only command or not, allowed or not, saying why.
    for (id, code, flags) in [
        ("l01", "cat README.md", vec![]),
        ("l02", "echo x > .git/x; echo ran", vec!["--exec", "allow"]),
    ] {
        let out = r.apply(&exec(id, code), &flags);
        let v = TestRepo::report(&out);
        let res = &v["results"][0];
        assert_eq!(res["success"], false, "{res}");
        let err = res["error"].as_str().unwrap_or_default();
        assert!(
            err.contains(
                "exec: not run: the OS sandbox is unavailable (sandbox.landlock is false in"
            ) && err.contains("git-clada runs exec blocks only inside it"),
            "{err}"
        );
        assert!(
            output_text(&out).contains("sandbox.level: off"),
            "{}",
            output_text(&out)
        );
    }
    assert!(!r.exists(".git/x"));
    // `git clada config` says so too.
    let shown = r.clada(&["config"]);
    let text = String::from_utf8_lossy(&shown.stdout);
    assert!(
        text.contains("OS sandbox for exec and hooks: unavailable (sandbox.landlock is false")
            && text.contains("exec blocks are refused"),
        "{text}"
    );
    // The user's own `sandbox.level: off` runs what is allowed, unconfined, and says so.
    r.user_config("sandbox:\n  landlock: false\n  level: off\n");
    let out = r.apply(&exec("l03", "echo ran"), &["--exec", "allow"]);
    let (stdout, _, warnings) = ran(&out, 0);
    assert_eq!(stdout, "ran\n");
    assert!(
        warnings.iter().any(|w| w.starts_with(
            "ran without the OS sandbox, which is unavailable (sandbox.landlock is false"
        )),
        "{warnings:?}"
    );
    // A repository cannot switch the sandbox off.
    fs::remove_file(r.home.path().join(".config/clada/config.yml")).expect("rm");
    r.write(
        ".clada.yml",
        "sandbox:\n  landlock: false\n  level: off\n  network: true\n",
    );
    let out = r.apply(&exec("l04", "cat README.md"), &[]);
    let (stdout, _, _) = ran(&out, 0);
    assert_eq!(stdout, "hello\n", "{}", output_text(&out));
    assert!(String::from_utf8_lossy(&out.stderr).contains("sandbox.landlock: false"));
}

#[test]
fn config_reports_the_sandbox() {
    let r = repo();
    let out = r.clada(&["--format", "json", "config"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert!(
        v["osSandbox"]
            .as_str()
            .unwrap_or_default()
            .starts_with("Landlock ABI "),
        "{v}"
    );
    let keys: Vec<&str> = v["settings"]
        .as_array()
        .expect("settings")
        .iter()
        .filter_map(|e| e["key"].as_str())
        .collect();
    for k in [
        "sandbox.level",
        "sandbox.network",
        "sandbox.read",
        "sandbox.write",
        "sandbox.landlock",
        "paths.protect_config",
    ] {
        assert!(keys.contains(&k), "{k} missing from {keys:?}");
    }
}

#[test]
fn git_runs_in_an_approved_block_with_the_users_git_config_readable() {
    let r = repo();
    fs::write(
        r.home.path().join(".gitconfig"),
        "[alias]\n\tst = status --short\n",
    )
    .expect("gitconfig");
    fs::write(
        r.home.path().join(".git-credentials"),
        "https://u:TOKEN@host\n",
    )
    .expect("creds");
    let out = r.apply(
        &exec("g01", "git st; cat ~/.git-credentials || echo CLOSED"),
        &["--exec", "allow"],
    );
    let (stdout, stderr, _) = ran(&out, 0);
    assert_eq!(stdout, "CLOSED\n", "{stderr}");
    assert!(
        !stderr.contains("TOKEN") && !stderr.contains("fatal"),
        "{stderr}"
    );
    assert!(stderr.contains("Permission denied"), "{stderr}");
}

/// Issue 51 §14: a repository whose git directory lies in the worktree under another name
/// (`git init --separate-git-dir=.gitdata`, the dotfiles `GIT_DIR` layout), not excluded by
/// any ignore rule: an exec block runs and its change is committed; the walk for the user's
/// untracked work, before and after the block, never enters the git directory.
#[test]
fn exec_runs_where_the_git_directory_lies_in_the_worktree_under_another_name() {
    for layout in ["separate", "dotfiles"] {
        let r = repo();
        let env: Vec<(&str, String)> = match layout {
            "separate" => {
                r.git(&["init", "-q", "--separate-git-dir=.gitdata"]);
                Vec::new()
            }
            _ => {
                fs::rename(r.path().join(".git"), r.path().join(".dotfiles")).expect("rename");
                vec![
                    ("GIT_DIR", r.path().join(".dotfiles").display().to_string()),
                    ("GIT_WORK_TREE", r.path().display().to_string()),
                ]
            }
        };
        let gd = if layout == "separate" {
            ".gitdata"
        } else {
            ".dotfiles"
        };
        r.write("notes.txt", "mine\n");
        let mut cmd = r.clada_cmd();
        cmd.envs(env.iter().map(|(k, v)| (k, v)))
            .args(["--format", "json", "apply", "--exec", "allow", "-"]);
        let out = common::spawn_fed(cmd, &exec("d01", "echo made > made.txt"))
            .wait_with_output()
            .expect("apply");
        assert_eq!(exit_code(&out), 0, "{layout}: {}", output_text(&out));
        let v = TestRepo::report(&out);
        assert!(v.get("fatalError").is_none(), "{layout}: {v}");
        let git = |args: &[&str]| {
            let mut c = r.git_cmd();
            c.envs(env.iter().map(|(k, v)| (k, v))).args(args);
            let o = c.output().expect("git");
            assert!(
                o.status.success(),
                "{layout} git {args:?}: {}",
                output_text(&o)
            );
            String::from_utf8_lossy(&o.stdout).into_owned()
        };
        assert_eq!(git(&["show", "HEAD:made.txt"]), "made\n", "{layout}");
        // The user's untracked file stays untracked; nothing of the git directory was taken.
        let tree = git(&["ls-tree", "-r", "--name-only", "HEAD"]);
        assert!(
            !tree.contains(gd) && !tree.contains("notes.txt"),
            "{layout}: {tree}"
        );
        assert_eq!(r.read("notes.txt"), "mine\n");
        git(&["fsck", "--strict"]);
    }
}
