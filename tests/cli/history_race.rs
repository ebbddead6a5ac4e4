//! undo, redo, step-back and the finishing of an interrupted undo racing a person's `git commit`
//! that waits in its editor (holding git's `index.lock`). Whatever the interleaving, the
//! person's commit is on the branch afterwards: git-clada either finishes before the commit
//! starts, or sees the branch moved once it holds the lock and refuses (or, finishing an
//! interrupted undo, restores the files and leaves the branch where the commit put it).
//!
//! Each race starts `git commit -a` with `GIT_EDITOR` pointing at a script that waits for a
//! file, starts git-clada, and releases the editor after a delay that varies from race to race
//! (so git-clada is planning, waiting for the lock, or already done when the commit lands).
//! `CLADA_RACES` sets the number of races per operation (default 12; 200 and more for a
//! thorough run).

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Child, Output, Stdio};
use std::time::{Duration, Instant};

use common::{block, TestRepo};

fn races() -> usize {
    std::env::var("CLADA_RACES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(12)
}

/// The editor script: says it started, waits until released, writes the message.
fn editor(dir: &Path) -> PathBuf {
    let script = dir.join("editor.sh");
    std::fs::write(
        &script,
        "#!/bin/sh\ntouch \"$RACE_DIR/started\"\nwhile [ ! -e \"$RACE_DIR/release\" ]; do sleep 0.005; done\necho \"$RACE_MESSAGE\" > \"$1\"\n",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    script
}

/// Starts `git commit -a` held in its editor; returns once the editor runs (index.lock held).
fn start_commit(repo: &TestRepo, dir: &Path, message: &str) -> Child {
    let _ = std::fs::remove_file(dir.join("started"));
    let _ = std::fs::remove_file(dir.join("release"));
    let mut cmd = repo.git_cmd();
    cmd.args(["commit", "-a", "-q"])
        .env("GIT_EDITOR", editor(dir))
        .env("RACE_DIR", dir)
        .env("RACE_MESSAGE", message)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let child = cmd.spawn().unwrap();
    let start = Instant::now();
    while !dir.join("started").exists() {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "the editor did not start"
        );
        std::thread::sleep(Duration::from_millis(2));
    }
    child
}

/// What one race ended with.
#[derive(Default, Debug)]
struct Tally {
    /// The person's commit landed.
    landed: usize,
    /// git-clada succeeded.
    clada_ok: usize,
    /// git-clada refused or failed.
    clada_refused: usize,
}

/// Runs `clada_args` against a commit held in its editor, releasing it after `delay`;
/// asserts the commit (if it landed) is on `main`, and that the repository is sound.
fn race(repo: &TestRepo, dir: &Path, n: usize, clada_args: &[&str], tally: &mut Tally) {
    let message = format!("human commit {n}");
    repo.write("human.txt", &format!("human edit {n}\n"));
    let commit = start_commit(repo, dir, &message);
    let mut cmd = repo.clada_cmd();
    cmd.args(clada_args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let clada = cmd.spawn().unwrap();
    // 30 to ~390 ms: git-clada planning or waiting for git's lock (it waits up to 2 s).
    std::thread::sleep(Duration::from_millis((((n * 37) % 13 + 1) * 30) as u64));
    std::fs::write(dir.join("release"), "").unwrap();
    let commit_out: Output = commit.wait_with_output().unwrap();
    let clada_out: Output = clada.wait_with_output().unwrap();
    let what = format!(
        "race {n} ({clada_args:?}): git commit: {}{}\ngit-clada: {}{}",
        String::from_utf8_lossy(&commit_out.stdout),
        String::from_utf8_lossy(&commit_out.stderr),
        String::from_utf8_lossy(&clada_out.stdout),
        String::from_utf8_lossy(&clada_out.stderr)
    );
    if clada_out.status.success() {
        tally.clada_ok += 1;
    } else {
        tally.clada_refused += 1;
    }
    if commit_out.status.success() {
        tally.landed += 1;
        let id = repo.git(&[
            "log",
            "--all",
            "--reflog",
            "--format=%H",
            "--grep",
            &format!("^{message}$"),
        ]);
        let id = id
            .lines()
            .next()
            .unwrap_or_else(|| panic!("{what}: commit not found"));
        let on_branch = repo
            .git_output(&["merge-base", "--is-ancestor", id, "refs/heads/main"])
            .status
            .success();
        assert!(on_branch, "{what}\nthe commit {id} was dropped from main");
        // A step-back that went ahead must have started from the commit (it stepped back
        // over it), never recorded a tip the branch has moved past: step-forward would then
        // be stuck, and its advice (`git branch -f main <tip>`) would drop the commit.
        let step_tip = repo.git_output(&["rev-parse", "-q", "--verify", "refs/clada/step/tip"]);
        if step_tip.status.success() {
            assert_eq!(
                String::from_utf8_lossy(&step_tip.stdout).trim(),
                repo.git(&["rev-parse", "refs/heads/main"]).trim(),
                "{what}\nstep-back recorded a tip the branch moved past"
            );
        }
    }
    assert!(
        !repo.exists(".git/clada/restore.json"),
        "{what}\nan interrupted restore was left behind"
    );
    repo.assert_fsck();
}

/// A repository whose last commit is an AI commit changing `a.txt` (`human.txt` is tracked).
fn with_ai_commit() -> TestRepo {
    let repo = TestRepo::with_files(&[("a.txt", "a\n"), ("human.txt", "human\n")]);
    let reply = block(
        "ai1",
        &[
            ("action", "file_write"),
            ("path", "a.txt"),
            ("content", "AI\n"),
        ],
    );
    let out = repo.apply(&reply, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", common::output_text(&out));
    repo
}

fn run_races(name: &str, setup: impl Fn() -> TestRepo, args: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    let mut tally = Tally::default();
    for n in 0..races() {
        let repo = setup();
        race(&repo, dir.path(), n, args, &mut tally);
    }
    eprintln!("{name}: {} races: {tally:?}", races());
    assert!(tally.landed > 0, "{name}: no commit landed: {tally:?}");
}

#[test]
fn undo_racing_a_commit_in_its_editor_drops_no_commit() {
    run_races("undo", with_ai_commit, &["undo"]);
}

#[test]
fn redo_racing_a_commit_in_its_editor_drops_no_commit() {
    let setup = || {
        let repo = with_ai_commit();
        let out = repo.clada(&["undo"]);
        assert_eq!(out.status.code(), Some(0), "{}", common::output_text(&out));
        repo
    };
    run_races("redo", setup, &["redo"]);
}

#[test]
fn step_back_racing_a_commit_in_its_editor_drops_no_commit() {
    run_races("step-back", with_ai_commit, &["step-back"]);
}

#[test]
fn finishing_an_interrupted_undo_racing_a_commit_in_its_editor_drops_no_commit() {
    let setup = || {
        let repo = with_ai_commit();
        let mut cmd = repo.clada_cmd();
        cmd.env("GIT_CLADA_FAILPOINT", "restore:after-journal")
            .arg("undo");
        let out = cmd.output().unwrap();
        assert!(!out.status.success(), "the undo was to be interrupted");
        // A killed git-clada may leave git's lock behind; the person removes it, as git says.
        let _ = std::fs::remove_file(repo.path().join(".git/index.lock"));
        repo
    };
    run_races("finish undo", setup, &["undo"]);
}
