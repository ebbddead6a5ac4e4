//! Configuration cannot crash or hang git-clada (issue 36 §3): every number is range-checked
//! with an error naming file:line:col (exit 2), and the configuration files in the worktree
//! (`.clada.yml`, `.editorconfig`, `.gitattributes`, the old approval file) are read only as
//! regular files of a bounded size — a link to `/dev/zero` or a FIFO there is an error or is
//! skipped, never a read without end. The user's own file may still be a link, and a reply may
//! still come from a pipe or a FIFO.
//!
//! Each command runs with its address space limited and is killed if it has not finished
//! after a minute, so a build that reads without end or blocks fails here instead of taking
//! the machine's memory or the test run with it.

use crate::common;

use std::os::unix::fs::symlink;
use std::os::unix::process::CommandExt;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use common::{exit_code, output_text, write_block, TestRepo};
use proptest::prelude::*;

#[path = "../../crates/clada-engine/fuzz/fuzz_targets/config_check.rs"]
mod config_check;

/// Runs `cmd` with a 2 GiB address space, killing it after a minute: the outcome, or `None`
/// when it was still running (a hang).
fn bounded(mut cmd: Command, stdin: Option<&str>) -> Option<Output> {
    use std::io::Write;
    // SAFETY: setrlimit is async-signal-safe; nothing else runs between fork and exec.
    unsafe {
        cmd.pre_exec(|| {
            let lim = libc::rlimit {
                rlim_cur: 2 << 30,
                rlim_max: 2 << 30,
            };
            if libc::setrlimit(libc::RLIMIT_AS, &lim) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    cmd.stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = cmd.spawn().expect("spawn git-clada");
    let mut input = child.stdin.take().expect("stdin");
    if let Some(text) = stdin {
        input.write_all(text.as_bytes()).expect("write stdin");
    }
    drop(input);
    let start = Instant::now();
    while child.try_wait().expect("wait").is_none() {
        if start.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Some(child.wait_with_output().expect("output"))
}

/// `git clada <args>` in `repo`, bounded; panics on a hang.
#[track_caller]
fn clada(repo: &TestRepo, args: &[&str], stdin: Option<&str>) -> Output {
    let mut cmd = repo.clada_cmd();
    cmd.args(args);
    bounded(cmd, stdin).unwrap_or_else(|| panic!("git clada {args:?} hung"))
}

fn apply(repo: &TestRepo, reply: &str) -> Output {
    clada(repo, &["--format", "json", "apply", "-"], Some(reply))
}

/// `out` is exit 2 with an error naming `file:line:col` and `what`, and nothing on stdout.
#[track_caller]
fn config_error(out: &Output, at: &str, what: &str) {
    let text = output_text(out);
    assert_eq!(exit_code(out), 2, "{text}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(at), "want {at} in: {err}");
    assert!(err.contains(what), "want {what} in: {err}");
    assert!(!err.contains("panicked"), "{err}");
}

/// A repository with one commit, and `.clada.yml` holding `yaml` written afterwards.
fn repo_with_config(yaml: &str) -> TestRepo {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    repo.write(".clada.yml", yaml);
    repo
}

#[test]
fn durations_past_a_day_are_errors_with_their_position() {
    for (yaml, at) in [
        ("timeout: 1e300\n", ".clada.yml:1:10"),
        (
            "exec: ask\ntimeout: \"99999999999999999999999h\"\n",
            ".clada.yml:2:10",
        ),
        ("total_timeout: 15000000000000000000\n", ".clada.yml:1:16"),
        ("timeout: 86401\n", ".clada.yml:1:10"),
        (
            "hooks:\n  after:\n    - run: make\n      timeout: 1e300\n",
            ".clada.yml:4:16",
        ),
        ("max_output: 99999999999999999999\n", ".clada.yml:1:13"),
        ("max_output: 2GiB\n", ".clada.yml:1:13"),
    ] {
        let repo = repo_with_config(yaml);
        let before = repo.state();
        config_error(&clada(&repo, &["config"], None), at, "at most");
        let out = apply(&repo, &write_block("abc", "b.txt", "b"));
        config_error(&out, at, "at most");
        let fatal = TestRepo::report(&out)["fatalError"].to_string();
        assert!(fatal.contains(at), "{yaml}: {fatal}");
        assert_eq!(repo.state(), before, "{yaml}");
    }
    // A day is still a duration.
    let repo = repo_with_config("timeout: 24h\ntotal_timeout: 86400\n");
    let out = clada(&repo, &["config"], None);
    assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
}

#[test]
fn a_total_timeout_too_large_for_the_clock_is_refused_before_exec_runs() {
    // Accepted as "stricter" than no limit, it made `Instant + Duration` panic when the
    // exec runner started, which every apply does.
    let repo = repo_with_config("total_timeout: 15000000000000000000\n");
    let reply = common::block(
        "ex1",
        &[("action", "exec"), ("lang", "bash"), ("code", "true")],
    );
    let out = clada(
        &repo,
        &["--format", "json", "apply", "--exec", "deny", "-"],
        Some(&reply),
    );
    config_error(&out, ".clada.yml:1:16", "total_timeout");
    repo.assert_fsck();
}

#[test]
fn the_users_file_is_range_checked_too_and_may_be_a_link() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let dotfiles = repo.home.path().join("dotfiles");
    std::fs::create_dir_all(&dotfiles).expect("mkdir");
    std::fs::write(dotfiles.join("clada.yml"), "timeout: 1e300\n").expect("write");
    let conf = repo.home.path().join(".config/clada");
    std::fs::create_dir_all(&conf).expect("mkdir");
    symlink(dotfiles.join("clada.yml"), conf.join("config.yml")).expect("symlink");
    config_error(
        &clada(&repo, &["config"], None),
        "config.yml:1:10",
        "at most a day",
    );
    // Fixed in the dotfiles repository, the link is read as before.
    std::fs::write(dotfiles.join("clada.yml"), "timeout: 5m\n").expect("write");
    let out = clada(&repo, &["--format", "json", "config"], None);
    assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("\"300s\""),
        "{}",
        output_text(&out)
    );
}

#[test]
fn a_clada_yml_linked_to_dev_zero_is_an_error_not_a_read_without_end() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    symlink("/dev/zero", repo.path().join(".clada.yml")).expect("symlink");
    let before = repo.state();
    config_error(
        &clada(&repo, &["config"], None),
        ".clada.yml",
        "symbolic link",
    );
    config_error(
        &apply(&repo, &write_block("abc", "b.txt", "b")),
        ".clada.yml",
        "symbolic link",
    );
    config_error(
        &clada(&repo, &["config", "--trust"], None),
        ".clada.yml",
        "symbolic link",
    );
    assert_eq!(repo.state(), before);
    assert!(!repo.path().join(".git/clada/trusted-config.yml").exists());
    repo.assert_fsck();
}

#[test]
fn a_fifo_named_clada_yml_is_an_error_not_a_hang() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    mkfifo(&repo.path().join(".clada.yml"));
    config_error(
        &clada(&repo, &["config"], None),
        ".clada.yml",
        "named pipe (FIFO)",
    );
    config_error(
        &apply(&repo, &write_block("abc", "b.txt", "b")),
        ".clada.yml",
        "named pipe (FIFO)",
    );
    assert!(!repo.exists("b.txt"));
    repo.assert_fsck();
}

#[test]
fn an_oversized_clada_yml_is_an_error() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let mut yaml = String::from("exec: ask\n");
    while yaml.len() <= 1024 * 1024 {
        yaml.push_str("# padding padding padding padding padding padding padding\n");
    }
    repo.write(".clada.yml", &yaml);
    config_error(
        &clada(&repo, &["config"], None),
        ".clada.yml",
        "larger than",
    );
}

#[test]
fn editorconfig_links_and_fifos_in_the_worktree_are_skipped() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n"), ("d/keep.txt", "k\n")]);
    symlink("/dev/zero", repo.path().join(".editorconfig")).expect("symlink");
    mkfifo(&repo.path().join("d/.editorconfig"));
    let out = apply(&repo, &write_block("abc", "d/new.txt", "new"));
    assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
    // Skipped, so `files.final_newline` (the default) decides.
    assert_eq!(repo.read("d/new.txt"), "new\n");
    assert_eq!(repo.git(&["show", "HEAD:d/new.txt"]), "new\n");
    repo.assert_fsck();
}

#[test]
fn a_fifo_gitattributes_is_an_error_not_a_hang() {
    let repo = TestRepo::with_files(&[(".gitattributes", "*.txt text\n"), ("d/a.txt", "a\n")]);
    mkfifo(&repo.path().join("d/.gitattributes"));
    let out = apply(&repo, &write_block("abc", "d/b.txt", "b"));
    let text = output_text(&out);
    assert_ne!(exit_code(&out), 0, "{text}");
    assert!(text.contains("d/.gitattributes"), "{text}");
    assert!(text.contains("named pipe (FIFO)"), "{text}");
    assert!(!text.contains("panicked"), "{text}");
    assert_eq!(repo.git(&["rev-list", "--count", "HEAD"]).trim(), "1");
    repo.assert_fsck();
}

#[test]
fn a_fifo_as_the_old_approval_file_is_an_error_not_a_hang() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    std::fs::create_dir_all(repo.path().join(".clada")).expect("mkdir");
    mkfifo(&repo.path().join(".clada/allowed-commands.json"));
    let out = clada(&repo, &["config", "--trust"], None);
    let text = output_text(&out);
    assert_eq!(exit_code(&out), 2, "{text}");
    assert!(text.contains("named pipe (FIFO)"), "{text}");
}

#[test]
fn a_reply_may_still_come_from_a_fifo_or_a_pipe() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let fifo = repo.home.path().join("reply.fifo");
    mkfifo(&fifo);
    let reply = write_block("abc", "b.txt", "from a fifo");
    let writer = {
        let fifo = fifo.clone();
        let reply = reply.clone();
        std::thread::spawn(move || std::fs::write(fifo, reply))
    };
    let out = clada(
        &repo,
        &["--format", "json", "apply", fifo.to_str().expect("utf-8")],
        None,
    );
    writer.join().expect("writer").expect("write the fifo");
    assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
    assert_eq!(repo.read("b.txt"), "from a fifo\n");
    let out = apply(&repo, &write_block("def", "c.txt", "from a pipe"));
    assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
    assert_eq!(repo.read("c.txt"), "from a pipe\n");
    repo.assert_fsck();
}

fn mkfifo(path: &std::path::Path) {
    let status = Command::new("mkfifo").arg(path).status().expect("mkfifo");
    assert!(status.success(), "mkfifo {}", path.display());
}

#[test]
fn the_fuzz_checks_hold_on_the_seeds() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("crates/clada-engine/fuzz/seeds-formats/config");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).expect("the config seeds") {
        config_check::run(&std::fs::read(entry.expect("entry").path()).expect("read seed"));
        n += 1;
    }
    assert!(n >= 4, "{n} seeds in {}", dir.display());
}

/// A number as YAML may spell it, in range or far out of it.
fn yaml_number() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<u64>().prop_map(|n| n.to_string()),
        any::<i64>().prop_map(|n| n.to_string()),
        any::<f64>().prop_map(|n| format!("{n:e}")),
        any::<f64>().prop_map(|n| format!("{n}")),
        any::<u128>().prop_map(|n| n.to_string()),
        (
            any::<u64>(),
            prop_oneof![
                Just("ms"),
                Just("s"),
                Just("m"),
                Just("h"),
                Just("k"),
                Just("MiB"),
                Just("GiB"),
                Just("")
            ]
        )
            .prop_map(|(n, u)| format!("\"{n}{u}\"")),
        (
            any::<f64>(),
            prop_oneof![Just("ms"), Just("h"), Just("min")]
        )
            .prop_map(|(n, u)| format!("\"{n}{u}\"")),
        prop_oneof![
            Just(".inf"),
            Just("-.inf"),
            Just(".nan"),
            Just("0"),
            Just("-0"),
            Just("1e-12"),
            Just("\"9e99h\"")
        ]
        .prop_map(String::from),
    ]
}

proptest! {
    #[test]
    fn the_fuzz_checks_hold_on_generated_numbers(
        key in prop_oneof![
            Just("timeout: "),
            Just("total_timeout: "),
            Just("max_output: "),
            Just("hooks:\n  before:\n    - run: make\n      timeout: "),
        ],
        value in yaml_number(),
    ) {
        let text = format!("{key}{value}\n");
        config_check::run(text.as_bytes());
        config_check::run(value.trim_matches('"').as_bytes());
    }
}
