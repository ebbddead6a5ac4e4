//! `git clada watch` with a real watcher process on real repositories: each new complete
//! block is applied once, a half-written block waits, a restart applies nothing twice, one
//! watcher per repository, a busy repository is retried, Ctrl-C stops cleanly.
//!
//! Blocks here use `file_append`, so applying one twice would show in the file.

use crate::common;

use std::fs::File;
use std::io::Write;
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use common::{assert_ok, TestRepo};

/// A block appending `text` (one line) to `path`.
fn append_block(id: &str, path: &str, text: &str) -> String {
    format!(
        "```sh nesl\n#!nesl [@three-char-SHA-256: {id}]\naction = \"file_append\"\npath = \"{path}\"\ncontent = <<'EOT_{id}'\n{text}\n\nEOT_{id}\n#!end_{id}\n```\n"
    )
}

/// Waits (up to a generous deadline) until `cond` holds; panics with `what` otherwise.
#[track_caller]
fn wait_until(what: &str, mut cond: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while !cond() {
        assert!(Instant::now() < deadline, "timed out waiting until {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A running `git clada watch`, its stdout and stderr going to files.
struct Watch {
    child: Option<Child>,
    stdout: PathBuf,
    stderr: PathBuf,
    _logs: tempfile::TempDir,
}

impl Watch {
    fn start(repo: &TestRepo, file: &Path, extra: &[&str], env: &[(&str, &str)]) -> Watch {
        let logs = tempfile::tempdir().unwrap();
        let stdout = logs.path().join("stdout");
        let stderr = logs.path().join("stderr");
        let mut cmd = repo.clada_cmd();
        cmd.envs(env.iter().copied())
            .args(["--format", "llm", "watch", "--debounce", "100"])
            .args(extra)
            .arg(file)
            .stdin(Stdio::null())
            .stdout(File::create(&stdout).unwrap())
            .stderr(File::create(&stderr).unwrap());
        let w = Watch {
            child: Some(cmd.spawn().expect("start git-clada watch")),
            stdout,
            stderr,
            _logs: logs,
        };
        w.wait_stderr("watching", 1);
        w
    }

    fn stderr(&self) -> String {
        std::fs::read_to_string(&self.stderr).unwrap_or_default()
    }

    fn stdout(&self) -> String {
        std::fs::read_to_string(&self.stdout).unwrap_or_default()
    }

    /// Waits until stderr holds `needle` at least `n` times.
    #[track_caller]
    fn wait_stderr(&self, needle: &str, n: usize) {
        wait_until(&format!("stderr has {n}× {needle:?}"), || {
            self.stderr().matches(needle).count() >= n
        });
    }

    /// Ctrl-C; returns the exit code and stderr.
    fn interrupt(mut self) -> (Option<i32>, String) {
        let mut child = self.child.take().unwrap();
        // SAFETY: sending a signal to our own child process.
        unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
        let status = child.wait().unwrap();
        (status.code(), self.stderr())
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

fn append(file: &Path, text: &str) {
    let mut f = std::fs::OpenOptions::new().append(true).open(file).unwrap();
    f.write_all(text.as_bytes()).unwrap();
}

/// The number of commits on HEAD after the initial one.
fn ai_commits(repo: &TestRepo) -> usize {
    repo.git(&["rev-list", "--count", "HEAD"])
        .trim()
        .parse::<usize>()
        .unwrap()
        - 1
}

/// A repository and a chat file outside it.
fn setup() -> (TestRepo, tempfile::TempDir, PathBuf) {
    let repo = TestRepo::with_files(&[("README.md", "# Demo\n")]);
    let chat_dir = tempfile::tempdir().unwrap();
    let chat = chat_dir.path().join("chat.md");
    std::fs::write(&chat, "# Chat with the model\n").unwrap();
    (repo, chat_dir, chat)
}

#[test]
fn replies_appended_to_the_watched_file_apply_each_new_block_once() {
    let (repo, _d, chat) = setup();
    let w = Watch::start(&repo, &chat, &[], &[]);

    append(
        &chat,
        &format!(
            "Model: here you go.\n{}{}",
            append_block("aa1", "log.txt", "one"),
            append_block("aa2", "notes.txt", "first note")
        ),
    );
    w.wait_stderr("commit ", 1);
    assert_eq!(ai_commits(&repo), 1);
    assert_eq!(repo.read("log.txt"), "one\n");
    assert_eq!(repo.read("notes.txt"), "first note\n");
    assert!(
        w.stdout().contains(
            "=== CLADA RESULTS ===\naa1 ✅ file_append log.txt\naa2 ✅ file_append notes.txt\n"
        ),
        "{}",
        w.stdout()
    );

    // The user writes prose, then the model's second reply repeats aa1 and adds aa3.
    append(&chat, "\nUser: thanks, now the changelog.\n");
    append(
        &chat,
        &format!(
            "Model: again the log line, and the changelog.\n{}{}",
            append_block("aa1", "log.txt", "one"),
            append_block("aa3", "CHANGELOG.md", "- watched")
        ),
    );
    w.wait_stderr("commit ", 2);
    assert_eq!(ai_commits(&repo), 2);
    assert_eq!(repo.read("log.txt"), "one\n", "aa1 was applied once");
    assert_eq!(repo.read("CHANGELOG.md"), "- watched\n");
    let body = repo.git(&["log", "-1", "--format=%B"]);
    assert!(
        body.contains("Clada-Blocks: aa3\n"),
        "only the new block: {body}"
    );
    assert_eq!(repo.status(), "");
    repo.assert_fsck();

    let (code, stderr) = w.interrupt();
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stderr.contains("stopped"), "{stderr}");
    assert!(stderr.contains("applying 1 new block(s): aa3"), "{stderr}");
}

#[test]
fn a_block_pasted_again_is_said_to_be_skipped() {
    let (repo, _d, chat) = setup();
    let w = Watch::start(&repo, &chat, &[], &[]);
    append(&chat, &append_block("rp1", "log.txt", "one"));
    w.wait_stderr("commit ", 1);
    // The user pastes the same reply again, with a new block after it.
    append(&chat, "\nUser: pasting that again\n");
    append(
        &chat,
        &format!(
            "{}{}",
            append_block("rp1", "log.txt", "one"),
            append_block("rp2", "log.txt", "two")
        ),
    );
    w.wait_stderr("commit ", 2);
    let text = std::fs::read_to_string(&chat).unwrap();
    let line = text
        .lines()
        .enumerate()
        .filter(|(_, l)| l.starts_with("#!nesl [@three-char-SHA-256: rp1]"))
        .nth(1)
        .map(|(i, _)| i + 1)
        .unwrap();
    w.wait_stderr(
        &format!("block rp1 (line {line}) repeats a block that is applied; skipped, not run again"),
        1,
    );
    assert_eq!(repo.read("log.txt"), "one\ntwo\n", "rp1 ran once");
    // Said once, not on every later look at the file.
    append(&chat, "\nmore prose\n");
    append(&chat, &append_block("rp3", "log.txt", "three"));
    w.wait_stderr("commit ", 3);
    let (code, stderr) = w.interrupt();
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(stderr.matches("repeats a block").count(), 1, "{stderr}");
}

#[test]
fn a_block_written_in_two_halves_applies_once_after_the_second_half() {
    let (repo, _d, chat) = setup();
    let w = Watch::start(&repo, &chat, &[], &[]);
    let block = append_block("hh1", "half.txt", "whole");
    let cut = block.find("content").unwrap();
    append(&chat, &block[..cut]);
    w.wait_stderr("has no end marker yet; waiting", 1);
    assert_eq!(ai_commits(&repo), 0, "nothing applied from half a block");
    assert!(!repo.exists("half.txt"));

    append(&chat, &block[cut..]);
    w.wait_stderr("commit ", 1);
    assert_eq!(repo.read("half.txt"), "whole\n");
    assert_eq!(ai_commits(&repo), 1);
    let (code, _) = w.interrupt();
    assert_eq!(code, Some(0));
}

#[test]
fn a_restarted_watcher_applies_nothing_twice() {
    let (repo, _d, chat) = setup();
    let w = Watch::start(&repo, &chat, &[], &[]);
    append(&chat, &append_block("rs1", "log.txt", "one"));
    w.wait_stderr("commit ", 1);
    let (code, _) = w.interrupt();
    assert_eq!(code, Some(0));

    // Run once over the same file: nothing new.
    let out = repo.clada(&["--format", "llm", "watch", "--once", chat.to_str().unwrap()]);
    assert_ok(&out, "watch --once after a restart");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "", "nothing applied");
    assert_eq!(ai_commits(&repo), 1);

    // A new watcher applies only the new block.
    let w = Watch::start(&repo, &chat, &[], &[]);
    append(&chat, &append_block("rs2", "log.txt", "two"));
    w.wait_stderr("commit ", 1);
    assert_eq!(repo.read("log.txt"), "one\ntwo\n");
    assert_eq!(ai_commits(&repo), 2);
    // The applied set is in git, on its own ref, off the branch.
    let refs = repo.git(&["for-each-ref", "--format=%(refname)", "refs/clada/watch/"]);
    assert_eq!(refs.lines().count(), 1, "{refs}");
    let (code, _) = w.interrupt();
    assert_eq!(code, Some(0));
}

#[test]
fn a_second_watcher_in_the_same_repository_is_refused() {
    let (repo, d, chat) = setup();
    let w = Watch::start(&repo, &chat, &[], &[]);
    let other = d.path().join("other.md");
    std::fs::write(&other, "").unwrap();
    let out = repo.clada(&["watch", other.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(3), "refused");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("another `git clada watch` is already running"),
        "{err}"
    );
    assert!(
        err.contains(chat.file_name().unwrap().to_str().unwrap()),
        "names the file: {err}"
    );
    let (code, _) = w.interrupt();
    assert_eq!(code, Some(0));
    // Once it stopped, a watcher may start.
    let out = repo.clada(&["watch", "--once", other.to_str().unwrap()]);
    assert_ok(&out, "watch after the first stopped");
}

#[test]
fn a_busy_repository_is_reported_and_retried() {
    let (repo, _d, chat) = setup();
    let w = Watch::start(&repo, &chat, &[], &[("GIT_CLADA_LOCK_WAIT_MS", "100")]);
    // Another git-clada holds the lock.
    let lock = File::options()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(repo.path().join(".git/clada.lock"))
        .unwrap();
    // SAFETY: flock on a file descriptor we own.
    assert_eq!(unsafe { libc::flock(lock.as_raw_fd(), libc::LOCK_EX) }, 0);
    append(&chat, &append_block("bz1", "log.txt", "one"));
    w.wait_stderr("not applied, nothing changed", 1);
    assert!(
        w.stderr().contains("another git-clada is running"),
        "{}",
        w.stderr()
    );
    assert_eq!(ai_commits(&repo), 0);
    assert!(!repo.exists("log.txt"), "nothing half-done");

    drop(lock);
    w.wait_stderr("commit ", 1);
    assert_eq!(repo.read("log.txt"), "one\n");
    assert_eq!(ai_commits(&repo), 1);
    repo.assert_fsck();
    let (code, _) = w.interrupt();
    assert_eq!(code, Some(0));
}

#[test]
fn output_copy_and_prepend_deliver_the_report() {
    let (repo, d, chat) = setup();
    let clip = d.path().join("clipboard.txt");
    let out_file = d.path().join("last-report.txt");
    let clip_env = format!("file:{}", clip.display());
    let w = Watch::start(
        &repo,
        &chat,
        &[
            "--copy",
            "--prepend",
            "--output",
            out_file.to_str().unwrap(),
        ],
        &[("GIT_CLADA_CLIPBOARD", clip_env.as_str())],
    );
    append(&chat, &append_block("op1", "log.txt", "one"));
    w.wait_stderr("Copied to clipboard", 1);
    let report = std::fs::read_to_string(&out_file).unwrap();
    assert!(
        report.starts_with("=== CLADA RESULTS ===\nop1 ✅ file_append log.txt\n"),
        "{report}"
    );
    assert_eq!(std::fs::read_to_string(&clip).unwrap(), report);
    let text = std::fs::read_to_string(&chat).unwrap();
    assert!(
        text.starts_with(
            "📋 Copied to clipboard\n\n=== CLADA RESULTS ===\nop1 ✅ file_append log.txt\n"
        ),
        "{text}"
    );
    assert!(text.ends_with(&append_block("op1", "log.txt", "one")));
    // The prepended summary is not a change to apply.
    append(&chat, "more prose\n");
    append(&chat, &append_block("op2", "log.txt", "two"));
    w.wait_stderr("Copied to clipboard", 2);
    assert_eq!(repo.read("log.txt"), "one\ntwo\n");
    assert_eq!(ai_commits(&repo), 2);
    let (code, _) = w.interrupt();
    assert_eq!(code, Some(0));
}

#[test]
fn watching_a_missing_file_is_a_clear_error() {
    let repo = TestRepo::with_files(&[("README.md", "x\n")]);
    let out = repo.clada(&["watch", "no-such-chat.md"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no such file") && err.contains("no-such-chat.md"),
        "{err}"
    );
}

#[test]
fn polling_alone_sees_changes_when_notifications_are_off() {
    let (repo, _d, chat) = setup();
    let w = Watch::start(&repo, &chat, &["--poll"], &[]);
    assert!(w.stderr().contains("(polling)"), "{}", w.stderr());
    append(&chat, &append_block("pl1", "log.txt", "polled"));
    w.wait_stderr("commit ", 1);
    assert_eq!(repo.read("log.txt"), "polled\n");
    // An editor's save replaces the file (a new inode): still seen.
    let text = std::fs::read_to_string(&chat).unwrap() + &append_block("pl2", "log.txt", "saved");
    let tmp = chat.with_extension("swp");
    std::fs::write(&tmp, text).unwrap();
    std::fs::rename(&tmp, &chat).unwrap();
    w.wait_stderr("commit ", 2);
    assert_eq!(repo.read("log.txt"), "polled\nsaved\n");
    let (code, _) = w.interrupt();
    assert_eq!(code, Some(0));
}

#[test]
fn an_editor_save_by_rename_is_seen() {
    let (repo, _d, chat) = setup();
    let w = Watch::start(&repo, &chat, &[], &[]);
    assert!(
        w.stderr().contains("(file notifications)"),
        "{}",
        w.stderr()
    );
    let text = std::fs::read_to_string(&chat).unwrap() + &append_block("rn1", "log.txt", "renamed");
    let tmp = chat.with_extension("swp");
    std::fs::write(&tmp, text).unwrap();
    std::fs::rename(&tmp, &chat).unwrap();
    w.wait_stderr("commit ", 1);
    assert_eq!(repo.read("log.txt"), "renamed\n");
    let (code, _) = w.interrupt();
    assert_eq!(code, Some(0));
}

#[test]
fn skip_existing_marks_what_the_file_holds_as_applied_and_once_applies_only_the_rest() {
    let (repo, _d, chat) = setup();
    append(&chat, &append_block("se1", "log.txt", "old"));
    let run = |extra: &[&str]| {
        let mut args = vec!["--format", "llm", "watch", "--once"];
        args.extend_from_slice(extra);
        args.push(chat.to_str().unwrap());
        repo.clada(&args)
    };
    let out = run(&["--skip-existing"]);
    assert_ok(&out, "watch --once --skip-existing");
    assert!(String::from_utf8_lossy(&out.stderr).contains("marked 1 block(s)"));
    assert!(
        !repo.exists("log.txt"),
        "the existing block was not applied"
    );
    append(&chat, &append_block("se2", "log.txt", "new"));
    let out = run(&[]);
    assert_ok(&out, "watch --once");
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("=== CLADA RESULTS ===\nse2 ✅"));
    assert_eq!(repo.read("log.txt"), "new\n");
    assert_eq!(ai_commits(&repo), 1);
}

#[test]
fn watched_replies_get_an_authorship_log_naming_the_agent() {
    let (repo, _d, chat) = setup();
    let w = Watch::start(
        &repo,
        &chat,
        &["--agent", "gemini", "--model", "gemini-2.5-pro"],
        &[],
    );
    append(&chat, &append_block("ab1", "log.txt", "one\ntwo"));
    w.wait_stderr("commit ", 1);
    let text = repo.git(&["notes", "--ref=ai", "show", "HEAD"]);
    let log = clada_engine::authorship::Log::parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(log.files.len(), 1, "{text}");
    assert_eq!(log.files[0].path, "log.txt");
    assert_eq!(log.files[0].entries[0].lines.to_string(), "1-2");
    let session = log
        .session_of(&log.files[0].entries[0].key)
        .expect("session");
    assert_eq!(session.agent_id.tool, "gemini");
    assert_eq!(session.agent_id.model, "gemini-2.5-pro");
    repo.assert_fsck();
    let (code, stderr) = w.interrupt();
    assert_eq!(code, Some(0), "{stderr}");
}
