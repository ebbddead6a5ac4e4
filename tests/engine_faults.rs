//! Engine faults of issue 10 on real repositories: background processes of exec, many appends
//! to one file, and the leftovers of kills and undo/redo (temporary files, directories).

mod common;

use common::{block, TestRepo};

fn code(out: &std::process::Output) -> i32 {
    out.status.code().unwrap_or(-1)
}

fn text(out: &std::process::Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn exec(id: &str, code: &str) -> String {
    block(id, &[("action", "exec"), ("lang", "bash"), ("code", code)])
}

fn append(id: &str, path: &str, content: &str) -> String {
    block(
        id,
        &[
            ("action", "file_append"),
            ("path", path),
            ("content", content),
        ],
    )
}

#[test]
fn exec_background_processes_are_killed_when_the_script_exits() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    for script in [
        // Holding the output pipes.
        "echo hello; (sleep 3; touch late.txt) &",
        // Not holding them: without the kill it would change the worktree after the commit.
        "echo hello; (sleep 3; touch late.txt) >/dev/null 2>&1 &",
    ] {
        let out = repo.apply(&exec("ex1", script), &["--exec", "allow"]);
        assert_eq!(code(&out), 0, "{script}: {}", text(&out));
        let report = TestRepo::report(&out);
        let r = &report["results"][0];
        assert_eq!(r["data"]["stdout"], "hello\n", "{script}: {r}");
        assert_eq!(r["data"]["exit_code"], 0);
        let warnings = r["warnings"].to_string();
        assert!(warnings.contains("background"), "{script}: {warnings}");
        // Longer than the background job needed: it would have run by now.
        std::thread::sleep(std::time::Duration::from_secs(4));
        assert!(!repo.exists("late.txt"), "{script}: the background job ran");
        assert_eq!(repo.status(), "", "{script}");
    }
}

#[test]
fn exec_without_background_processes_has_no_warning() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let out = repo.apply(
        &exec("ex2", "echo out; echo err >&2; echo made > made.txt"),
        &["--exec", "allow"],
    );
    assert_eq!(code(&out), 0, "{}", text(&out));
    let r = &TestRepo::report(&out)["results"][0];
    assert_eq!(r["data"]["stdout"], "out\n");
    assert_eq!(r["data"]["stderr"], "err\n");
    assert!(r.get("warnings").is_none(), "{r}");
    assert_eq!(repo.read("made.txt"), "made\n");
}
