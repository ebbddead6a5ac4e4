//! The held-out check of the reports: a corpus of realistic failed replies under
//! `test-data/report/<case>/`, each applied to a real git repository in all three formats and
//! compared with the exact expected report.
//!
//! A case directory holds:
//! - `files/`: the repository's files, committed as `initial` (a `dot-gitignore` is written as
//!   `.gitignore`);
//! - `hooks/` (optional): git hooks, installed executable into `.git/hooks/`;
//! - `reply.md`: the reply, fed on standard input;
//! - `args` (optional): extra `apply` arguments, one per line;
//! - `expected.human`, `expected.llm`, `expected.json`: the exact reports, with the AI commit's
//!   id written as `<commit>` (its full id, 12- and 7-character forms);
//! - `expected.exit`: the exit status.
//!
//! `CLADA_BLESS=1 cargo test --test report_corpus` rewrites the expected files from the actual
//! output (review the diff before committing it).

use crate::common;

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use common::TestRepo;

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("test-data/report")
}

fn copy_tree(from: &Path, to: &Path) {
    for entry in fs::read_dir(from).expect("read case dir") {
        let entry = entry.expect("entry");
        let name = entry.file_name().to_string_lossy().into_owned();
        let name = match name.strip_prefix("dot-") {
            Some(rest) => format!(".{rest}"),
            None => name,
        };
        let src = entry.path();
        let dst = to.join(&name);
        if src.is_dir() {
            fs::create_dir_all(&dst).expect("mkdir");
            copy_tree(&src, &dst);
        } else {
            fs::copy(&src, &dst).expect("copy");
        }
    }
}

/// A repository holding the case's files and hooks.
fn repo_for(case: &Path) -> TestRepo {
    let repo = TestRepo::new();
    copy_tree(&case.join("files"), repo.path());
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "initial"]);
    let hooks = case.join("hooks");
    if hooks.is_dir() {
        let dir = repo.path().join(".git/hooks");
        for entry in fs::read_dir(&hooks).expect("hooks") {
            let entry = entry.expect("entry");
            let dst = dir.join(entry.file_name());
            fs::copy(entry.path(), &dst).expect("copy hook");
            fs::set_permissions(&dst, fs::Permissions::from_mode(0o755)).expect("chmod");
        }
    }
    repo
}

/// Replaces the new HEAD's id (full, 12 and 7 characters) by `<commit>`.
fn mask(text: &str, before: &str, after: &str) -> String {
    if before == after {
        return text.to_string();
    }
    text.replace(after, "<commit>")
        .replace(&after[..12], "<commit>")
        .replace(&after[..7], "<commit>")
}

struct Run {
    report: String,
    exit: i32,
}

fn run(case: &Path, format: &str) -> Run {
    let repo = repo_for(case);
    let reply = fs::read_to_string(case.join("reply.md")).expect("reply.md");
    let args: Vec<String> = fs::read_to_string(case.join("args"))
        .map(|s| s.lines().map(str::to_string).collect())
        .unwrap_or_default();
    let before = repo.head();
    let mut cmd = repo.clada_cmd();
    cmd.args(["--format", format, "apply"]).args(&args).arg("-");
    let out = common::spawn_fed(cmd, &reply)
        .wait_with_output()
        .expect("wait git-clada");
    let after = repo.head();
    repo.assert_fsck();
    Run {
        report: mask(&String::from_utf8_lossy(&out.stdout), &before, &after),
        exit: out.status.code().unwrap_or(-1),
    }
}

fn cases() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = fs::read_dir(corpus())
        .expect("test-data/report")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.is_dir())
        .collect();
    v.sort();
    v
}

#[test]
fn every_case_reports_exactly_as_expected_in_all_three_formats() {
    let bless = std::env::var_os("CLADA_BLESS").is_some();
    let cases = cases();
    assert!(cases.len() >= 10, "the corpus has {} cases", cases.len());
    let mut failures = Vec::new();
    for case in &cases {
        let name = case.file_name().unwrap_or_default().to_string_lossy();
        let mut exits = Vec::new();
        for format in ["human", "llm", "json"] {
            let got = run(case, format);
            exits.push(got.exit);
            let file = case.join(format!("expected.{format}"));
            if bless {
                fs::write(&file, &got.report).expect("bless");
                continue;
            }
            let want = fs::read_to_string(&file).unwrap_or_default();
            if got.report != want {
                failures.push(format!(
                    "{name} ({format}):\n--- expected\n{want}\n--- actual\n{}",
                    got.report
                ));
            }
        }
        assert!(
            exits.windows(2).all(|w| w[0] == w[1]),
            "{name}: the exit status depends on the format: {exits:?}"
        );
        let file = case.join("expected.exit");
        if bless {
            fs::write(&file, format!("{}\n", exits[0])).expect("bless");
            continue;
        }
        let want = fs::read_to_string(&file).unwrap_or_default();
        if want.trim() != exits[0].to_string() {
            failures.push(format!(
                "{name}: exit status {} (expected {})",
                exits[0],
                want.trim()
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} mismatch(es):\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

#[test]
fn the_json_report_parses_and_agrees_with_the_exit_status() {
    for case in cases() {
        let text = fs::read_to_string(case.join("expected.json")).expect("expected.json");
        let v: serde_json::Value =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", case.display()));
        let exit: i32 = fs::read_to_string(case.join("expected.exit"))
            .expect("expected.exit")
            .trim()
            .parse()
            .expect("a number");
        assert_eq!(
            v["success"] == serde_json::json!(true),
            exit == 0,
            "{}",
            case.display()
        );
    }
}
