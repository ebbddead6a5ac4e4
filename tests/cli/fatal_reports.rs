//! `fatalError` reports (issue 14, seed 000's ExecutionResult): an apply that fails as a whole
//! still prints one report on stdout in the json and llm formats, with the exit status the
//! error always had, and changes nothing.
//!
//! Each case is a directory `test-data/fatal/<case>/` with the exact expected reports
//! `expected.json` and `expected.llm` (the temp directory written as `{ROOT}`) and
//! `expected.exit`; the situation itself is set up by the case's name below, on a real git
//! repository (or none). `CLADA_BLESS=1` rewrites the expected files from the actual output
//! (review the diff before committing it).

use crate::common;

use std::fs;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::{exit_code, write_block, TestRepo};

fn cases() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("test-data/fatal")
}

/// The reply every case tries to apply.
fn reply() -> String {
    write_block("f01", "new.txt", "hello\n")
}

/// Sets up the situation of `case` in `repo` and returns the `apply` arguments (the reply is
/// fed on stdin unless they name a file), plus a guard that keeps it in place while apply runs.
fn situation(case: &str, repo: &TestRepo) -> (Vec<String>, Option<fs::File>) {
    match case {
        "not-a-repository" => {
            fs::remove_dir_all(repo.path().join(".git")).expect("remove .git");
            (vec![], None)
        }
        "lock-held" => {
            let f = fs::OpenOptions::new()
                .create(true)
                .truncate(false)
                .write(true)
                .open(repo.path().join(".git/clada.lock"))
                .expect("lock file");
            // SAFETY: flock on a descriptor we own.
            let rc = unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
            assert_eq!(rc, 0, "take the clada lock");
            (vec![], Some(f))
        }
        "busy-index" => {
            repo.write(".git/index.lock", "");
            (vec![], None)
        }
        "unreadable-reply" => (vec!["missing-reply.md".to_string()], None),
        "refused-merge-in-progress" => {
            let head = repo.head();
            repo.write(".git/MERGE_HEAD", &format!("{head}\n"));
            (vec![], None)
        }
        other => panic!("no set-up for case {other}"),
    }
}

fn run(case: &str, format: &str) -> (String, i32, String) {
    let repo = TestRepo::with_files(&[("README.md", "readme\n")]);
    let before = common::files_of(repo.path());
    let (args, _guard) = situation(case, &repo);
    let mut cmd: Command = repo.clada_cmd();
    cmd.env("GIT_CLADA_LOCK_WAIT_MS", "100")
        .args(["--format", format, "apply"])
        .args(&args);
    let out = if args.is_empty() {
        cmd.arg("-");
        common::spawn_fed(cmd, &reply())
            .wait_with_output()
            .expect("wait git-clada")
    } else {
        cmd.output().expect("run git-clada")
    };
    let root = fs::canonicalize(repo.path()).expect("canonical root");
    let stdout = String::from_utf8_lossy(&out.stdout)
        .replace(&root.display().to_string(), "{ROOT}")
        .replace(&repo.path().display().to_string(), "{ROOT}");
    let stderr = String::from_utf8_lossy(&out.stderr)
        .replace(&root.display().to_string(), "{ROOT}")
        .replace(&repo.path().display().to_string(), "{ROOT}");
    // Nothing changed: no new file, and the worktree as it was (set-up files aside).
    assert!(!repo.path().join("new.txt").exists(), "{case}: new.txt");
    let after = common::files_of(repo.path());
    for (path, content) in &before {
        if !path.starts_with(".git") {
            assert_eq!(after.get(path), Some(content), "{case}: {path} changed");
        }
    }
    (stdout, exit_code(&out), stderr)
}

#[test]
fn every_fatal_path_prints_a_fatal_report_in_json_and_llm() {
    let bless = std::env::var_os("CLADA_BLESS").is_some();
    let mut names: Vec<String> = fs::read_dir(cases())
        .expect("test-data/fatal")
        .flatten()
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names.len(), 5, "{names:?}");
    let mut failures = Vec::new();
    for name in &names {
        let dir = cases().join(name);
        let mut codes = Vec::new();
        for format in ["json", "llm"] {
            let (stdout, code, stderr) = run(name, format);
            codes.push(code);
            // The error is still on stderr, as before.
            let message = stderr
                .trim_end()
                .strip_prefix("git-clada: ")
                .unwrap_or(&stderr);
            if format == "json" {
                let v: serde_json::Value = serde_json::from_str(&stdout)
                    .unwrap_or_else(|e| panic!("{name}: not JSON ({e}): {stdout}"));
                assert_eq!(v["success"], false, "{name}");
                assert_eq!(v["fatalError"], message, "{name}: fatalError is the error");
            } else {
                assert!(
                    stdout.contains(&format!("FATAL: {message}\n")),
                    "{name}: {stdout}"
                );
            }
            let file = dir.join(format!("expected.{format}"));
            let want = fs::read_to_string(&file).unwrap_or_default();
            if stdout != want {
                if bless {
                    fs::write(&file, &stdout).expect("bless");
                }
                failures.push(format!(
                    "{name} ({format}):\nexpected:\n{want}\nactual:\n{stdout}"
                ));
            }
        }
        assert_eq!(
            codes[0], codes[1],
            "{name}: same exit status in both formats"
        );
        let file = dir.join("expected.exit");
        let want = fs::read_to_string(&file).unwrap_or_default();
        if want.trim() != codes[0].to_string() {
            if bless {
                fs::write(&file, format!("{}\n", codes[0])).expect("bless");
            }
            failures.push(format!("{name}: exit {} != {}", codes[0], want.trim()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn human_format_keeps_stdout_empty_and_a_report_is_never_printed_twice() {
    let repo = TestRepo::with_files(&[("README.md", "readme\n")]);
    let (_, _guard) = situation("refused-merge-in-progress", &repo);
    let mut cmd = repo.clada_cmd();
    cmd.args(["--format", "human", "apply", "-"]);
    let out = common::spawn_fed(cmd, &reply())
        .wait_with_output()
        .expect("run");
    assert_eq!(exit_code(&out), 3);
    assert!(
        out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    // A sandbox refusal is reported (exit 3) by the normal report: exactly one JSON object.
    let repo = TestRepo::with_files(&[("README.md", "readme\n")]);
    let out = repo.apply(&write_block("r01", "../outside.txt", "x"), &[]);
    assert_eq!(exit_code(&out), 3);
    let v = TestRepo::report(&out);
    assert!(v.get("fatalError").is_none(), "{v}");
    assert_eq!(v["results"][0]["refused"], true, "{v}");
}
