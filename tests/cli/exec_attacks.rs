//! The attacks at the top of issue 21, each exactly as reported, now refused or contained:
//! a nested repository's fsmonitor through a "read-only" `git status`, `xxd - FILE`, a
//! committed symlink to a private key, reply-written approvals and `.clada.yml`, a cloned
//! repository's configuration loosening the user's, and a trusted hook running a script the
//! reply just edited under `--exec deny`. And those of issue 51 on what a sandboxed child
//! keeps (inherited descriptors, git-clada's own environment, file capabilities), in every
//! mode. Real processes, real repositories.

use crate::common;

use std::fs;
use std::os::fd::AsRawFd;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{symlink, MetadataExt};
use std::os::unix::process::CommandExt;

use common::modes::{self, Mode};
use common::{block, exit_code, output_text, spawn_fed, write_block, TestRepo};

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

// Issue 51 ("One hop further"), items 4, 5 and 12: what the sandboxed child keeps. Each runs
// in every mode of `common::modes` where it applies (root and an unprivileged user, with
// namespaces and under a seccomp filter that refuses them).

/// A repository for `m` with an existing folder `bin/` (without namespaces nothing can be
/// created directly in the worktree root) and git-clada's folder on `PATH`.
fn mode_repo(m: &Mode) -> TestRepo {
    let mut r = m.repo(&[("README.md", "hello\n"), ("bin/README", "tools\n")]);
    r.env.push(("PATH".into(), common::path_with_clada(&[])));
    r
}

/// The hook steps of an apply, as JSON text.
fn steps(out: &std::process::Output) -> String {
    TestRepo::report(out)["steps"].to_string()
}

/// A file of secret text, open for reading (to be inherited).
fn secret_file(text: &str) -> (tempfile::TempDir, fs::File) {
    let dir = tempfile::tempdir().expect("tempdir");
    let p = dir.path().join("secret");
    fs::write(&p, text).expect("secret");
    (dir, fs::File::open(&p).expect("open secret"))
}

/// `git clada apply r.md 5<secret` (and 200<secret): a block and a hook read what they
/// inherited.
#[test]
fn inherited_descriptors_reach_neither_a_block_nor_a_hook() {
    modes::each(|m| {
        let r = mode_repo(m);
        r.user_config("hooks:\n  after:\n    - \"cat <&5; cat <&200; echo hook-end; exit 1\"\n");
        m.own_repo(&r);
        let (_dir, secret) = secret_file("FD-SECRET\n");
        let fd = secret.as_raw_fd();
        let mut cmd = m.clada_cmd(&r);
        cmd.args(["--format", "json", "apply", "--exec", "allow", "-"]);
        // SAFETY: dup2 only, in the child before exec.
        unsafe {
            cmd.pre_exec(move || {
                for to in [5, 200] {
                    if libc::dup2(fd, to) < 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                }
                Ok(())
            });
        }
        let reply = [
            exec("d01", "cat <&5; cat <&200; echo block-end", None),
            write_block("d02", "bin/a.txt", "a\n"),
        ]
        .concat();
        let out = spawn_fed(cmd, &reply).wait_with_output().expect("apply");
        let v = TestRepo::report(&out);
        let block = v["results"][0]["data"].to_string();
        assert!(block.contains("block-end"), "{}: {v}", m.name());
        assert!(steps(&out).contains("hook-end"), "{}: {v}", m.name());
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(!text.contains("FD-SECRET"), "{}: {text}", m.name());
    });
}

/// What a block or hook tries to read git-clada's environment by: every readable
/// `/proc/<pid>/environ`, and git-clada's own found by walking up from itself.
const READ_ENVIRONS: &str = "cat /proc/[0-9]*/environ 2>/dev/null | tr '\\0' '\\n' | grep ENVIRON-SECRET\n\
     p=$$; while [ \"${p:-0}\" -gt 1 ]; do tr '\\0' '\\n' < /proc/$p/environ 2>/dev/null | grep ENVIRON-SECRET; \
     p=$(awk '{print $4}' /proc/$p/stat 2>/dev/null); done\n";

/// Root without user namespaces (root in Docker): a block or a hook read git-clada's own
/// `/proc/<pid>/environ`, every secret the environment filter kept from it.
#[test]
fn neither_a_block_nor_a_hook_reads_git_cladas_environment() {
    modes::each(|m| {
        let r = mode_repo(m);
        r.user_config(&format!(
            "hooks:\n  after:\n    - |\n{}\n      echo hook-end; exit 1\n",
            READ_ENVIRONS
                .lines()
                .map(|l| format!("      {l}"))
                .collect::<Vec<_>>()
                .join("\n")
        ));
        m.own_repo(&r);
        let mut cmd = m.clada_cmd(&r);
        cmd.env("GITHUB_TOKEN", "ghp-ENVIRON-SECRET-v4lu3")
            .args(["--format", "json", "apply", "--exec", "allow", "-"]);
        let reply = [
            exec("e01", &format!("{READ_ENVIRONS}echo block-end"), None),
            write_block("e02", "bin/a.txt", "a\n"),
        ]
        .concat();
        let out = spawn_fed(cmd, &reply).wait_with_output().expect("apply");
        let v = TestRepo::report(&out);
        assert!(
            v["results"][0]["data"].to_string().contains("block-end"),
            "{}: {v}",
            m.name()
        );
        assert!(steps(&out).contains("hook-end"), "{}: {v}", m.name());
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(!text.contains("v4lu3"), "{}: {text}", m.name());
    });
}

/// Whether `p` has file capabilities (`security.capability`).
fn has_capabilities(p: &std::path::Path) -> bool {
    let c = std::ffi::CString::new(p.as_os_str().as_bytes()).expect("path");
    // SAFETY: a size query on a C string that outlives the call.
    unsafe {
        libc::lgetxattr(
            c.as_ptr(),
            c"security.capability".as_ptr(),
            std::ptr::null_mut(),
            0,
        ) >= 0
    }
}

const SETCAP: &str = "cp /usr/bin/perl bin/tool && setcap cap_setuid+ep bin/tool && echo CAPPED";

/// `cp perl bin/tool; setcap cap_setuid+ep bin/tool` in an approved block or a hook made any
/// local user root: the confined program has no `CAP_SETFCAP`.
#[test]
#[cfg_attr(not(has_setcap), ignore = "needs libcap's `setcap`")]
fn a_block_or_a_hook_cannot_give_a_file_capabilities() {
    modes::each(|m| {
        let r = mode_repo(m);
        let hook = SETCAP.replace("bin/tool", "bin/hooked");
        r.user_config(&format!("hooks:\n  after:\n    - \"{hook}\"\n"));
        m.own_repo(&r);
        let reply = [
            exec("c01", SETCAP, None),
            write_block("c02", "bin/hooked", "replaced by the hook\n"),
        ]
        .concat();
        let out = m.apply(&r, &reply, &["--exec", "allow"]);
        let v = TestRepo::report(&out);
        assert!(r.exists("bin/tool"), "{}: {v}", m.name());
        assert!(
            !has_capabilities(&r.path().join("bin/tool")),
            "{}",
            m.name()
        );
        assert!(
            !has_capabilities(&r.path().join("bin/hooked")),
            "{}",
            m.name()
        );
        assert_ne!(
            v["results"][0]["data"]["stdout"],
            "CAPPED\n",
            "{}: {v}",
            m.name()
        );
        let hook = &v["steps"][0];
        assert!(
            hook["name"]
                .as_str()
                .is_some_and(|n| n.starts_with("hooks.after"))
                && !hook["output"].to_string().contains("CAPPED"),
            "{}: {v}",
            m.name()
        );
        // Refused, not set and cleared afterwards.
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            !text.contains("security.capability"),
            "{}: {text}",
            m.name()
        );
    });
}

/// Where nothing refuses them (`sandbox.level: off`, `hooks.sandbox: off`, the user's own
/// choice), file capabilities a block or a hook set are removed after the step and named.
#[test]
#[cfg_attr(not(has_setcap), ignore = "needs libcap's `setcap`")]
fn file_capabilities_left_without_the_sandbox_are_removed_and_named() {
    modes::each_where(
        |m| m.root() && m.namespaces,
        |m| {
            let r = mode_repo(m);
            let hook = SETCAP.replace("bin/tool", "bin/hooked");
            r.user_config(&format!(
                "sandbox:\n  level: off\nhooks:\n  sandbox: off\n  after:\n    - \"{hook}\"\n"
            ));
            let reply = [
                exec("c03", SETCAP, None),
                write_block("c04", "bin/hooked", "replaced by the hook\n"),
            ]
            .concat();
            let out = m.apply(&r, &reply, &["--exec", "allow"]);
            let v = TestRepo::report(&out);
            assert_eq!(v["results"][0]["data"]["stdout"], "CAPPED\n", "{v}");
            let w = v["results"][0]["warnings"].to_string();
            assert!(
                w.contains("security.capability") && w.contains("bin/tool"),
                "{w}"
            );
            let w = v["warnings"].to_string();
            assert!(
                w.contains("the hook `cp /usr/bin/perl bin/hooked")
                    && w.contains("which were removed: bin/hooked"),
                "{v}"
            );
            for f in ["bin/tool", "bin/hooked"] {
                assert!(!has_capabilities(&r.path().join(f)), "{f}");
            }
        },
    );
}

/// Root's `tar -xf` in an approved block keeps the archive's owners: the block keeps the
/// capabilities that need, not a user namespace mapping root alone.
#[test]
fn tar_as_root_keeps_the_owners_of_what_it_extracts() {
    modes::each_where(Mode::root, |m| {
        let r = mode_repo(m);
        let src = tempfile::tempdir().expect("tempdir");
        fs::create_dir_all(src.path().join("d")).expect("mkdir");
        fs::write(src.path().join("d/f"), "x\n").expect("file");
        let out = std::process::Command::new("tar")
            .args(["--owner=1234", "--group=1235", "-cf"])
            .arg(r.path().join("bin/a.tar"))
            .arg("-C")
            .arg(src.path())
            .arg("d")
            .output()
            .expect("tar");
        assert!(out.status.success(), "{}", output_text(&out));
        let out = m.apply(
            &r,
            &exec("t01", "tar -xf a.tar && echo EXTRACTED", Some("bin")),
            &["--exec", "allow"],
        );
        let v = TestRepo::report(&out);
        assert_eq!(
            v["results"][0]["data"]["stdout"],
            "EXTRACTED\n",
            "{}: {v}",
            m.name()
        );
        let md = fs::metadata(r.path().join("bin/d/f")).expect("extracted");
        assert_eq!((md.uid(), md.gid()), (1234, 1235), "{}", m.name());
    });
}
