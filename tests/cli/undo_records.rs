//! Undo and squash take back only what git-clada made (issue 36 §2): a commit is git-clada's
//! when its records hold it (the apply record, the squash record), never because it carries
//! git-clada's trailers — `git commit --amend` and `git commit -C <AI commit>` copy those into
//! commits that hold the user's own work. Checked on real repositories with the real git CLI.

use crate::common;

use common::{exit_code, output_text, write_block, TestRepo};

/// Applies one `file_write` and returns the AI commit.
fn ai_write(repo: &TestRepo, id: &str, path: &str, content: &str) -> String {
    let out = repo.apply(&write_block(id, path, content), &[]);
    assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
    TestRepo::report(&out)["gitCommit"]
        .as_str()
        .expect("an AI commit")
        .to_string()
}

fn short(id: &str) -> &str {
    &id[..7]
}

#[test]
fn an_amended_ai_commit_is_refused_with_how_to_take_back_the_ai_part() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let ai = ai_write(&repo, "am1", "ai.txt", "from the model");
    // The user amends it: a line in a file of theirs and a new file.
    repo.write("a.txt", "a\nmine\n");
    repo.write("mine.txt", "my new file\n");
    repo.git(&["add", "a.txt", "mine.txt"]);
    repo.git(&["commit", "-q", "--amend", "--no-edit"]);
    let amended = repo.head();
    assert_ne!(amended, ai);
    let before = repo.state();

    let out = repo.clada(&["undo"]);
    let text = output_text(&out);
    assert_eq!(exit_code(&out), 3, "{text}");
    assert!(text.contains("amended"), "{text}");
    assert!(
        text.contains(&format!("git revert --no-edit {}", short(&ai))),
        "{text}"
    );
    assert_eq!(repo.state(), before, "nothing changed");
    assert_eq!(repo.read("mine.txt"), "my new file\n");
    let out = repo.clada(&["--dry-run", "undo"]);
    assert_eq!(exit_code(&out), 3, "{}", output_text(&out));

    // The way the refusal names takes back the AI's part and keeps the user's.
    repo.git(&["revert", "--no-edit", short(&ai)]);
    assert!(!repo.exists("ai.txt"));
    assert_eq!(repo.read("mine.txt"), "my new file\n");
    assert_eq!(repo.read("a.txt"), "a\nmine\n");
    repo.assert_fsck();
}

#[test]
fn a_commit_made_with_commit_c_of_an_ai_commit_is_not_undone() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let ai = ai_write(&repo, "cc1", "ai.txt", "from the model");
    // The user's own commit, reusing the AI commit's message (trailers included).
    repo.write("mine.txt", "my work\n");
    repo.git(&["add", "mine.txt"]);
    repo.git(&["commit", "-q", "-C", &ai]);
    assert!(repo
        .git(&["log", "-1", "--format=%B"])
        .contains("Clada-Version:"));
    let before = repo.state();

    let out = repo.clada(&["undo"]);
    let text = output_text(&out);
    assert_eq!(exit_code(&out), 3, "{text}");
    assert!(text.contains("no record of git-clada holds it"), "{text}");
    assert_eq!(repo.state(), before, "nothing changed");
    assert_eq!(repo.read("mine.txt"), "my work\n");
    let list = repo.clada(&["--format", "json", "undo", "--list"]);
    assert_eq!(exit_code(&list), 0, "{}", output_text(&list));
    let list: serde_json::Value = serde_json::from_slice(&list.stdout).expect("json");
    assert_eq!(list["undo"].as_array().map(Vec::len), Some(0), "{list}");
    repo.assert_fsck();
}

#[test]
fn a_commit_c_copy_after_an_undo_is_not_undone_either() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let ai = ai_write(&repo, "cc2", "ai.txt", "from the model");
    let out = repo.clada(&["undo"]);
    assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
    repo.write("mine.txt", "my work\n");
    repo.git(&["add", "mine.txt"]);
    repo.git(&["commit", "-q", "-C", &ai]);
    let before = repo.state();
    let out = repo.clada(&["undo"]);
    assert_eq!(exit_code(&out), 3, "{}", output_text(&out));
    assert_eq!(repo.state(), before);
}

/// initial, AI1, the user's `commit -C AI1`, AI2, the user's `commit -C AI2` (the tip).
fn ai_commits_and_copies() -> TestRepo {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    for (i, file) in [(1, "mine1.txt"), (2, "mine2.txt")] {
        let ai = ai_write(&repo, &format!("sq{i}"), &format!("ai{i}.txt"), "ai");
        repo.write(file, "my work\n");
        repo.git(&["add", file]);
        repo.git(&["commit", "-q", "-C", &ai]);
    }
    repo
}

/// The commits on main that a squash made and that hold the user's files.
fn squashed_user_work(repo: &TestRepo) -> Vec<String> {
    let mut out = Vec::new();
    for id in repo.git(&["rev-list", "main"]).lines() {
        if !repo
            .git(&["log", "-1", "--format=%B", id])
            .contains("Clada-Squashed:")
        {
            continue;
        }
        let files = repo.git(&[
            "diff-tree",
            "-r",
            "--root",
            "--name-only",
            "--no-commit-id",
            id,
        ]);
        if files.lines().any(|f| f.starts_with("mine")) {
            out.push(format!("{id}: {files}"));
        }
    }
    out
}

#[test]
fn no_squash_mode_takes_a_copied_commit_for_an_ai_commit() {
    let modes: [&[&str]; 7] = [
        &["--mode", "auto_ai"],
        &["--mode", "ai_messages"],
        &["--mode", "hours", "--hours", "1000000"],
        &["--mode", "days", "--days", "100000"],
        &["--mode", "msg_contains", "--msg-target", "Clada-Version"],
        &["--mode", "ai_messages", "--no-contiguous-only"],
        &[
            "--mode",
            "msg_contains",
            "--msg-target",
            "AI:",
            "--no-contiguous-only",
        ],
    ];
    for args in modes {
        let repo = ai_commits_and_copies();
        let tree = repo.git(&["rev-parse", "HEAD^{tree}"]);
        let mut all = vec!["--format", "json", "squash"];
        all.extend_from_slice(args);
        let out = repo.clada(&all);
        assert!(
            [0, 3].contains(&exit_code(&out)),
            "{args:?}: {}",
            output_text(&out)
        );
        assert_eq!(
            squashed_user_work(&repo),
            Vec::<String>::new(),
            "{args:?}: {}",
            output_text(&out)
        );
        assert_eq!(repo.git(&["rev-parse", "HEAD^{tree}"]), tree, "{args:?}");
        // The user's commits are still there, each on its own.
        for f in ["mine1.txt", "mine2.txt"] {
            let log = repo.git(&["log", "--format=%H", "main", "--", f]);
            assert_eq!(log.lines().count(), 1, "{args:?} {f}");
        }
        repo.assert_fsck();
    }
    // Gathered across the copies, the two recorded AI commits become one.
    let repo = ai_commits_and_copies();
    let out = repo.clada(&[
        "--format",
        "json",
        "squash",
        "--mode",
        "ai_messages",
        "--no-contiguous-only",
    ]);
    assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(
        report["groups"][0]["squashed"].as_array().map(Vec::len),
        Some(2)
    );
}

#[test]
fn ai_commits_recorded_by_earlier_versions_are_still_undone() {
    // Earlier versions kept each record under its own ref, refs/clada/apply/<commit>.
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let before = repo.state();
    let ai = ai_write(&repo, "ev1", "a.txt", "changed");
    let record = repo
        .git(&[
            "rev-parse",
            &format!("refs/clada/records:{}/{}", &ai[..2], &ai[2..]),
        ])
        .trim()
        .to_string();
    repo.git(&["update-ref", &format!("refs/clada/apply/{ai}"), &record]);
    repo.git(&["update-ref", "-d", "refs/clada/records"]);
    let out = repo.clada(&["undo"]);
    assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
    common::assert_same_user_state(&repo.state(), &before, "undo of an earlier version's apply");
    repo.assert_fsck();
}

#[test]
fn the_ai_commits_a_squash_rewrote_stay_git_cladas() {
    // x1, x2 (AI), a commit of the user's, y1, y2 (AI): squashing x1+x2 rewrites the three
    // commits above, and the copies of y1 and y2 are still AI commits a later squash folds —
    // the user's commit (which copies nothing) still is not.
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    ai_write(&repo, "x01", "x1.txt", "x");
    ai_write(&repo, "x02", "x2.txt", "x");
    repo.write("mine.txt", "my work\n");
    repo.git(&["add", "mine.txt"]);
    repo.git(&["commit", "-q", "-m", "my work"]);
    ai_write(&repo, "y01", "y1.txt", "y");
    ai_write(&repo, "y02", "y2.txt", "y");
    let tree = repo.git(&["rev-parse", "HEAD^{tree}"]);
    let first = repo.clada(&[
        "--format",
        "json",
        "squash",
        "--mode",
        "msg_contains",
        "--msg-target",
        "create x",
    ]);
    assert_eq!(exit_code(&first), 0, "{}", output_text(&first));
    let second = repo.clada(&["--format", "json", "squash", "--mode", "auto_ai"]);
    assert_eq!(exit_code(&second), 0, "{}", output_text(&second));
    let report: serde_json::Value = serde_json::from_slice(&second.stdout).expect("json");
    assert_eq!(
        report["groups"][0]["squashed"].as_array().map(Vec::len),
        Some(2),
        "{report:#}"
    );
    assert_eq!(repo.git(&["rev-parse", "HEAD^{tree}"]), tree);
    let subjects = repo.git(&["log", "--format=%s", "main"]);
    assert_eq!(subjects.lines().count(), 4, "{subjects}");
    assert!(subjects.lines().any(|s| s == "my work"), "{subjects}");
    // Each squash is undone in turn, back to the five commits.
    for _ in 0..2 {
        let out = repo.clada(&["--format", "json", "undo"]);
        assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
    }
    assert_eq!(repo.git(&["rev-list", "--count", "main"]).trim(), "6");
    repo.assert_fsck();
}
