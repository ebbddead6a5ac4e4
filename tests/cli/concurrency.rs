//! Applies racing a person who commits at the same time (`git add` + `git commit` in a
//! loop). Whatever interleaving happens, every commit the person made is still on the
//! branch afterwards, and no apply leaves an interrupted transaction behind: an apply that
//! loses the race fails cleanly with nothing changed (or succeeds on top of the commit).

use crate::common;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use common::{block, TestRepo};

#[test]
fn applies_racing_human_commits_drop_no_commit_and_leave_nothing_interrupted() {
    let repo = Arc::new(TestRepo::with_files(&[("README.md", "hello\n")]));
    let stop = Arc::new(AtomicBool::new(false));

    let human = {
        let repo = Arc::clone(&repo);
        let stop = Arc::clone(&stop);
        std::thread::spawn(move || {
            let mut commits = Vec::new();
            let mut i = 0;
            while !stop.load(Ordering::SeqCst) && i < 200 {
                i += 1;
                let name = format!("human/h{i}.txt");
                repo.write(&name, &format!("human {i}\n"));
                if !repo.git_output(&["add", &name]).status.success() {
                    continue;
                }
                let out =
                    repo.git_output(&["commit", "-q", "-m", &format!("human {i}"), "--", &name]);
                if out.status.success() {
                    // The commit that holds this file, wherever HEAD moved since.
                    let log = repo.git_output(&[
                        "log",
                        "--format=%H",
                        "--grep",
                        &format!("^human {i}$"),
                        "--all",
                    ]);
                    let id = String::from_utf8_lossy(&log.stdout)
                        .lines()
                        .next()
                        .map(str::to_string);
                    if let Some(id) = id {
                        commits.push((i, id));
                    }
                }
            }
            commits
        })
    };

    let mut applied = 0;
    let mut failed = Vec::new();
    for n in 0..40 {
        let reply = block(
            "c01",
            &[
                ("action", "file_write"),
                ("path", &format!("ai/a{n}.txt")),
                ("content", &format!("ai {n}\n")),
            ],
        );
        let out = repo.apply(&reply, &[]);
        match out.status.code() {
            Some(0) => applied += 1,
            Some(_) => failed.push(String::from_utf8_lossy(&out.stderr).into_owned()),
            None => panic!("apply {n} crashed"),
        }
        // Whatever happened, nothing is left half done.
        let status = repo.clada(&["--format", "json", "status"]);
        let report: serde_json::Value =
            serde_json::from_slice(&status.stdout).expect("status json");
        assert!(
            report["interrupted"].is_null(),
            "apply {n} left an interrupted state: {report}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    stop.store(true, Ordering::SeqCst);
    let commits = human.join().expect("human thread");

    assert!(!commits.is_empty(), "the person made commits");
    for (i, id) in &commits {
        let out = repo.git_output(&["merge-base", "--is-ancestor", id, "main"]);
        assert!(
            out.status.success(),
            "human commit {i} ({id}) is no longer on main; applied {applied}, failures:\n{}",
            failed.join("\n")
        );
        assert!(repo.exists(&format!("human/h{i}.txt")), "human file {i}");
    }
    repo.assert_fsck();
    eprintln!(
        "{} human commits, {applied} applies committed, {} refused or failed cleanly",
        commits.len(),
        failed.len()
    );
}
