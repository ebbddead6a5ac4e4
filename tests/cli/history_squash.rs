//! `git clada squash` on real repositories, checked with the real git CLI: every mode, runs
//! and human commits, gathering across human commits, trailers, notes, authorship, dry run,
//! undo and redo.

use crate::common;

use common::{block, TestRepo};

fn code(out: &std::process::Output) -> i32 {
    out.status.code().unwrap_or(-1)
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn stdout(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Applies one `file_write` block and returns the AI commit.
fn ai_write(repo: &TestRepo, id: &str, path: &str, content: &str) -> String {
    ai_write_with(repo, id, path, content, &[])
}

fn ai_write_with(repo: &TestRepo, id: &str, path: &str, content: &str, args: &[&str]) -> String {
    let reply = block(
        id,
        &[
            ("action", "file_write"),
            ("path", path),
            ("content", content),
        ],
    );
    let out = repo.apply(&reply, args);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    TestRepo::report(&out)["gitCommit"]
        .as_str()
        .expect("an AI commit")
        .to_string()
}

/// A human commit writing `path`.
fn human(repo: &TestRepo, path: &str, content: &str, msg: &str) -> String {
    repo.write(path, content);
    repo.git(&["add", path]);
    repo.git(&["commit", "-q", "-m", msg]);
    repo.head()
}

fn squash(repo: &TestRepo, args: &[&str]) -> std::process::Output {
    let mut all = vec!["--format", "json", "squash"];
    all.extend_from_slice(args);
    repo.clada(&all)
}

fn json(out: &std::process::Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}):\n{}\n{}", stdout(out), stderr(out)))
}

fn log(repo: &TestRepo) -> String {
    repo.git(&["log", "--format=%s", "main"])
}

fn tree(repo: &TestRepo, rev: &str) -> String {
    repo.git(&["rev-parse", &format!("{rev}^{{tree}}")])
        .trim()
        .to_string()
}

/// Unix seconds now, for commits made "N hours ago".
fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}

fn at(repo: &mut TestRepo, seconds: i64) {
    let date = format!("{seconds} +0000");
    repo.env = vec![
        ("GIT_AUTHOR_DATE".into(), date.clone()),
        ("GIT_COMMITTER_DATE".into(), date),
    ];
}

#[test]
fn auto_ai_squashes_the_run_at_the_tip_and_touches_no_file() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n"), ("keep.txt", "k\n")]);
    let base = repo.head();
    let first = ai_write(&repo, "aa1", "a.txt", "one\n");
    ai_write(&repo, "aa2", "b.txt", "two\n");
    ai_write(&repo, "aa3", "a.txt", "three\n");
    // Uncommitted work of every kind stays exactly as it is.
    repo.write("keep.txt", "staged\n");
    repo.git(&["add", "keep.txt"]);
    repo.write("keep.txt", "unstaged\n");
    repo.write("untracked.txt", "u\n");
    let before = repo.state();
    let tip = repo.head();
    let tip_tree = tree(&repo, "HEAD");

    let out = squash(&repo, &["--mode", "auto_ai"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let report = json(&out);
    assert_eq!(report["groups"][0]["squashed"].as_array().unwrap().len(), 3);
    let new = repo.head();
    assert_eq!(report["to"], new.as_str());
    assert_eq!(repo.git(&["rev-parse", "HEAD~1"]).trim(), base);
    assert_eq!(tree(&repo, "HEAD"), tip_tree, "the final tree is identical");
    assert_eq!(log(&repo), "AI: edit a.txt; create b.txt\ninitial\n");
    // Worktree, index and status untouched.
    let after = repo.state();
    assert_eq!(after.files, before.files);
    assert_eq!(after.index, before.index);
    assert_eq!(after.status, before.status);
    assert_eq!(after.head, format!("refs/heads/main {new}"));
    // Recognised as git-clada's, with merged trailers.
    let trailers = repo.git(&["log", "-1", "--format=%(trailers:only,unfold)"]);
    assert!(trailers.contains("Clada-Version: 0.1.0"), "{trailers}");
    assert!(
        trailers.contains(&format!("Clada-Squashed: {tip}")),
        "{trailers}"
    );
    assert!(trailers.contains("Clada-Blocks: aa1 aa2 aa3"), "{trailers}");
    assert_eq!(trailers.matches("Clada-Reply: ").count(), 3, "{trailers}");
    // Author of the oldest squashed commit, committer now.
    assert_eq!(
        repo.git(&["log", "-1", "--format=%an <%ae> %ad", &new]),
        repo.git(&["log", "-1", "--format=%an <%ae> %ad", &first])
    );
    // Undo records.
    assert_eq!(
        repo.git(&["rev-parse", &format!("refs/clada/squash/{new}")])
            .trim(),
        tip
    );
    assert_eq!(repo.git(&["rev-parse", "ORIG_HEAD"]).trim(), tip);
    let reflog = repo.git(&["reflog", "-1", "--format=%gs", "main"]);
    assert!(
        reflog.starts_with("clada: squash --mode auto_ai: 3 commits into 1"),
        "{reflog}"
    );
    assert_eq!(
        repo.git(&["reflog", "-1", "--format=%gs", "HEAD"]),
        reflog,
        "HEAD's reflog too"
    );
    repo.assert_fsck();
}

#[test]
fn notes_of_the_squashed_commits_are_merged_into_one() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let c1 = ai_write(&repo, "nn1", "a.txt", "one\n");
    let c2 = ai_write(&repo, "nn2", "b.txt", "two\n");
    let out = squash(&repo, &["--mode", "auto_ai"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let note: serde_json::Value =
        serde_json::from_str(&repo.git(&["notes", "--ref=clada", "show", "HEAD"])).unwrap();
    let entries = note["squashed"].as_array().unwrap();
    assert_eq!(entries.len(), 2);
    assert_eq!(entries[0]["commit"], c1.as_str());
    assert_eq!(entries[1]["commit"], c2.as_str());
    assert_eq!(entries[0]["kind"], "apply");
    // The reports and replies stay the notes of the squashed commits; the merged note names
    // them (and does not copy them), and `show` reads them from there.
    assert!(entries[0].get("report").is_none(), "{note}");
    let own: serde_json::Value =
        serde_json::from_str(&repo.git(&["notes", "--ref=clada", "show", &c1])).unwrap();
    assert_eq!(own["results"][0]["blockId"], "nn1");
    let replies = repo.git(&["notes", "--ref=clada-reply", "show", "HEAD"]);
    assert!(
        replies.contains(&format!("git notes --ref=clada-reply show {c1}"))
            && replies.contains(&format!("git notes --ref=clada-reply show {c2}")),
        "{replies}"
    );
    let shown = repo.clada(&["--format", "json", "show", "HEAD"]);
    let shown = json(&shown);
    assert_eq!(
        shown["replies"][0]["report"]["results"][0]["blockId"],
        "nn1"
    );
    assert!(shown["replies"][1]["reply"]
        .as_str()
        .unwrap()
        .contains("#!end_nn2"));

    // Squashing a squash flattens the notes.
    let c3 = ai_write(&repo, "nn3", "c.txt", "three\n");
    let out = squash(&repo, &["--mode", "auto_ai"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let note: serde_json::Value =
        serde_json::from_str(&repo.git(&["notes", "--ref=clada", "show", "HEAD"])).unwrap();
    let ids: Vec<&str> = note["squashed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["commit"].as_str().unwrap())
        .collect();
    assert_eq!(ids, [c1.as_str(), c2.as_str(), c3.as_str()]);
    let shown = json(&repo.clada(&["--format", "json", "show", "HEAD"]));
    let blocks: Vec<&str> = shown["replies"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["report"]["results"][0]["blockId"].as_str().unwrap())
        .collect();
    assert_eq!(blocks, ["nn1", "nn2", "nn3"]);
    let replies = repo.git(&["notes", "--ref=clada-reply", "show", "HEAD"]);
    assert_eq!(
        replies.matches("git notes --ref=clada-reply show").count(),
        3,
        "{replies}"
    );
    let trailers = repo.git(&["log", "-1", "--format=%(trailers:only,unfold)"]);
    assert!(trailers.contains("Clada-Blocks: nn1 nn2 nn3"), "{trailers}");
    assert_eq!(log(&repo).lines().count(), 2);
    repo.assert_fsck();
}

#[test]
fn squash_notes_holding_the_reports_inline_still_show_and_flatten() {
    // Squashes made before the notes referred to the squashed commits' own notes copied the
    // reply and the report into each entry; those notes are still read as they are.
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let c1 = ai_write(&repo, "in1", "a.txt", "one\n");
    ai_write(&repo, "in2", "b.txt", "two\n");
    assert_eq!(code(&squash(&repo, &["--mode", "auto_ai"])), 0);
    let inline = serde_json::json!({"squashed": [{
        "commit": c1, "subject": "AI: old", "kind": "apply",
        "reply": "the old reply", "report": {"results": [{"blockId": "old1"}]},
    }]});
    repo.git(&[
        "notes",
        "--ref=clada",
        "add",
        "-f",
        "-m",
        &inline.to_string(),
        "HEAD",
    ]);
    let shown = json(&repo.clada(&["--format", "json", "show", "HEAD"]));
    assert_eq!(shown["replies"][0]["reply"], "the old reply");
    assert_eq!(
        shown["replies"][0]["report"]["results"][0]["blockId"],
        "old1"
    );

    let c3 = ai_write(&repo, "in3", "c.txt", "three\n");
    assert_eq!(code(&squash(&repo, &["--mode", "auto_ai"])), 0);
    let shown = json(&repo.clada(&["--format", "json", "show", "HEAD"]));
    let replies = shown["replies"].as_array().unwrap();
    assert_eq!(replies.len(), 2, "{shown}");
    assert_eq!(replies[0]["reply"], "the old reply");
    assert_eq!(replies[1]["commit"], c3.as_str());
    assert_eq!(replies[1]["report"]["results"][0]["blockId"], "in3");
    repo.assert_fsck();
}

/// A snapshot commit (`--wip commit`) holds the user's work, never the AI's: no squash mode
/// folds it into an AI commit (issue 38 §1). Runs stop at it; a gathering squash replays it.
#[test]
fn no_squash_mode_folds_a_snapshot_of_user_work_into_an_ai_commit() {
    let modes: [&[&str]; 6] = [
        &["--mode", "auto_ai"],
        &["--mode", "ai_messages"],
        &["--mode", "days", "--days", "100000"],
        &["--mode", "msg_contains", "--msg-target", "Clada-Version"],
        &["--mode", "ai_messages", "--no-contiguous-only"],
        &["--mode", "days", "--days", "100000", "--no-contiguous-only"],
    ];
    for mode in modes {
        let repo = TestRepo::with_files(&[("a.txt", "a\n"), ("mine.txt", "m\n")]);
        ai_write(&repo, "sn1", "a.txt", "one\n");
        repo.write("mine.txt", "my own change\n");
        ai_write_with(&repo, "sn2", "b.txt", "two\n", &["--wip", "commit"]);
        assert_eq!(repo.subject("HEAD~1"), "clada: snapshot before AI edit");
        ai_write(&repo, "sn3", "b.txt", "three\n");
        let tree = repo.git(&["rev-parse", "HEAD^{tree}"]);
        let out = squash(&repo, mode);
        assert_eq!(code(&out), 0, "{mode:?}: {}", stderr(&out));
        let report = json(&out);
        for g in report["groups"].as_array().expect("groups") {
            assert_eq!(
                g["snapshots"],
                serde_json::json!([]),
                "{mode:?}: {report:#}"
            );
            for c in g["squashed"].as_array().expect("squashed") {
                assert_ne!(c["kind"], "snapshot", "{mode:?}: {report:#}");
            }
        }
        assert_eq!(repo.git(&["rev-parse", "HEAD^{tree}"]), tree, "{mode:?}");
        // The snapshot commit is still on the branch, and no AI commit holds the user's file.
        let history = repo.git(&["log", "--format=%H %s"]);
        assert!(
            history.contains(" clada: snapshot before AI edit"),
            "{mode:?}: {history}"
        );
        for line in history.lines() {
            let (id, subject) = line.split_once(' ').expect("id and subject");
            let files = repo.git(&["show", "--format=", "--name-only", id]);
            if subject.starts_with("AI:") {
                assert!(!files.contains("mine.txt"), "{mode:?}: {subject}: {files}");
            }
            if subject.starts_with("clada: snapshot") {
                assert_eq!(files, "mine.txt\n", "{mode:?}");
            }
        }
        assert_eq!(repo.read("mine.txt"), "my own change\n");
        assert_eq!(repo.status(), "");
        repo.assert_fsck();
    }
    // auto_ai's run ends at the snapshot: the two AI commits above it become one.
    let repo = TestRepo::with_files(&[("a.txt", "a\n"), ("mine.txt", "m\n")]);
    ai_write(&repo, "sn1", "a.txt", "one\n");
    repo.write("mine.txt", "my own change\n");
    ai_write_with(&repo, "sn2", "b.txt", "two\n", &["--wip", "commit"]);
    ai_write(&repo, "sn3", "b.txt", "three\n");
    let out = squash(&repo, &["--mode", "auto_ai"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(
        log(&repo),
        "AI: create b.txt; edit b.txt\nclada: snapshot before AI edit\nAI: edit a.txt\ninitial\n"
    );
    // With one AI commit above the snapshot, there is nothing to squash, and the refusal
    // says why.
    let out = squash(&repo, &["--mode", "auto_ai"]);
    assert_eq!(code(&out), 3, "{}", stdout(&out));
    assert!(
        stderr(&out).contains("above the snapshot commit"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn ai_messages_squashes_each_run_and_copies_the_human_commits_unchanged() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    ai_write(&repo, "r11", "a.txt", "1\n");
    ai_write(&repo, "r12", "a.txt", "2\n");
    let h = human(&repo, "h.txt", "human\n", "human work");
    let lone = ai_write(&repo, "r21", "b.txt", "lone\n");
    let h2 = human(&repo, "h2.txt", "human 2\n", "more human work");
    ai_write(&repo, "r31", "c.txt", "3\n");
    ai_write(&repo, "r32", "c.txt", "4\n");
    let tip_tree = tree(&repo, "HEAD");
    let human_before = repo.git(&["show", "-s", "--format=%T %an %ae %ad %cn %ce %cd %B", &h]);
    let human2_before = repo.git(&["show", "-s", "--format=%T %an %ae %ad %cn %ce %cd %B", &h2]);

    let out = squash(&repo, &["--mode", "ai_messages"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let report = json(&out);
    assert_eq!(report["groups"].as_array().unwrap().len(), 2);
    assert_eq!(report["leftAlone"][0]["commit"], lone.as_str());
    assert_eq!(
        log(&repo),
        "AI: create c.txt; edit c.txt\nmore human work\nAI: create b.txt\nhuman work\nAI: edit a.txt\ninitial\n"
    );
    assert_eq!(tree(&repo, "HEAD"), tip_tree);
    // The human commits keep tree, authorship, dates and message; only parents change.
    assert_eq!(
        repo.git(&[
            "show",
            "-s",
            "--format=%T %an %ae %ad %cn %ce %cd %B",
            "HEAD~3"
        ]),
        human_before
    );
    assert_eq!(
        repo.git(&[
            "show",
            "-s",
            "--format=%T %an %ae %ad %cn %ce %cd %B",
            "HEAD~1"
        ]),
        human2_before
    );
    // The copied lone AI commit keeps its notes.
    let note = repo.git(&["notes", "--ref=clada", "show", "HEAD~2"]);
    assert!(note.contains("\"blockId\": \"r21\""), "{note}");
    assert_eq!(repo.status(), "");
    repo.assert_fsck();
}

#[test]
fn no_contiguous_only_gathers_across_human_commits_that_touch_other_paths() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n"), ("h.txt", "h\n")]);
    let base = repo.head();
    ai_write(&repo, "g11", "a.txt", "1\n");
    let h = human(&repo, "h.txt", "human\n", "human work");
    ai_write(&repo, "g21", "a.txt", "2\n");
    ai_write(&repo, "g22", "b.txt", "b\n");
    let tip_tree = tree(&repo, "HEAD");
    let human_change = repo.git(&["diff-tree", "-p", &h]);

    // In place, only the run at the top can be squashed.
    let out = squash(&repo, &["--dry-run", "--mode", "ai_messages"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(json(&out)["groups"].as_array().unwrap().len(), 1);

    let out = squash(&repo, &["--mode", "ai_messages", "--no-contiguous-only"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(
        log(&repo),
        "human work\nAI: edit a.txt; create b.txt\ninitial\n"
    );
    assert_eq!(repo.git(&["rev-parse", "HEAD~2"]).trim(), base);
    assert_eq!(tree(&repo, "HEAD"), tip_tree);
    // The squashed commit holds every AI change; the human commit exactly its own.
    assert_eq!(
        repo.git(&[
            "diff-tree",
            "--no-commit-id",
            "--name-status",
            "-r",
            "HEAD~1"
        ]),
        "M\ta.txt\nA\tb.txt\n"
    );
    assert_eq!(repo.git(&["show", "HEAD~1:a.txt"]), "2\n");
    let replayed = repo.git(&["diff-tree", "-p", "HEAD"]);
    assert_eq!(
        replayed.lines().skip(1).collect::<Vec<_>>(),
        human_change.lines().skip(1).collect::<Vec<_>>()
    );
    assert_eq!(repo.status(), "");
    repo.assert_fsck();
}

#[test]
fn no_contiguous_only_refuses_when_a_human_commit_touches_the_same_path() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    ai_write(&repo, "c11", "a.txt", "1\n");
    let h = human(&repo, "a.txt", "human\n", "human edit of a");
    ai_write(&repo, "c21", "a.txt", "2\n");
    let before = repo.state();
    let objects = common::files_of(&repo.path().join(".git/objects"));
    let out = squash(&repo, &["--mode", "ai_messages", "--no-contiguous-only"]);
    assert_eq!(code(&out), 3, "{}", stderr(&out));
    assert_eq!(
        common::files_of(&repo.path().join(".git/objects")),
        objects,
        "not even an unreachable object is left behind"
    );
    let err = stderr(&out);
    assert!(err.contains("conflict resolution"), "{err}");
    assert!(
        err.contains(&format!("{} \"human edit of a\" changes a.txt", &h[..7])),
        "{err}"
    );
    assert_eq!(repo.state(), before);
}

#[test]
fn hours_and_days_select_recent_ai_commits_only() {
    let mut repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let now = now();
    at(&mut repo, now - 3 * 86_400);
    ai_write(&repo, "old1", "a.txt", "old1\n");
    ai_write(&repo, "old2", "a.txt", "old2\n");
    at(&mut repo, now - 2 * 3600);
    human(&repo, "h.txt", "h\n", "human in between");
    ai_write(&repo, "new1", "b.txt", "new1\n");
    ai_write(&repo, "new2", "b.txt", "new2\n");
    repo.env.clear();

    let out = squash(&repo, &["--dry-run", "--mode", "hours", "--hours", "3"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let report = json(&out);
    assert_eq!(report["groups"].as_array().unwrap().len(), 1);
    assert_eq!(report["groups"][0]["squashed"].as_array().unwrap().len(), 2);
    assert_eq!(report["dryRun"], true);

    let out = squash(&repo, &["--mode", "hours", "--hours", "1"]);
    assert_eq!(code(&out), 3, "nothing that recent: {}", stderr(&out));
    assert!(stderr(&out).contains("no commit on this branch matches --mode hours --hours 1"));

    let out = squash(&repo, &["--mode", "days", "--days", "4"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(
        log(&repo),
        "AI: create b.txt; edit b.txt\nhuman in between\nAI: edit a.txt\ninitial\n"
    );
    repo.assert_fsck();
}

#[test]
fn msg_contains_and_message_option() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    ai_write_with(&repo, "mc1", "x.txt", "1\n", &["-m", "AI: wip: parser"]);
    ai_write_with(
        &repo,
        "mc2",
        "x.txt",
        "2\n",
        &["-m", "AI: wip: parser again"],
    );
    human(&repo, "y.txt", "3\n", "unrelated");
    // A commit of the user's that the text matches is never squashed.
    human(&repo, "z.txt", "4\n", "wip: mine");
    human(&repo, "z.txt", "5\n", "wip: mine again");
    let tip_tree = tree(&repo, "HEAD");
    let out = squash(
        &repo,
        &[
            "--mode",
            "msg_contains",
            "--msg-target",
            "wip:",
            "--message",
            "Parser rewrite",
        ],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(
        log(&repo),
        "wip: mine again\nwip: mine\nunrelated\nParser rewrite\ninitial\n"
    );
    assert_eq!(tree(&repo, "HEAD"), tip_tree);
    assert!(repo
        .git(&["log", "-1", "--format=%B", "HEAD~3"])
        .contains("Clada-Squashed: "));
}

#[test]
fn undo_takes_a_squash_back_and_redo_squashes_again() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    ai_write(&repo, "u1", "a.txt", "1\n");
    ai_write(&repo, "u2", "a.txt", "2\n");
    repo.write("dirty-untracked.txt", "x\n");
    let before = repo.state();
    let out = squash(&repo, &["--mode", "auto_ai"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let squashed = repo.state();

    let out = repo.clada(&["--format", "json", "undo"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(json(&out)["kind"], "squash");
    let undone = repo.state();
    assert_eq!(undone.head, before.head);
    assert_eq!(undone.files, before.files);
    assert_eq!(undone.index, before.index);
    assert_eq!(undone.status, before.status);

    let out = repo.clada(&["--format", "json", "redo"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let redone = repo.state();
    assert_eq!(redone.head, squashed.head);
    assert_eq!(redone.files, squashed.files);
    assert_eq!(redone.index, squashed.index);
    repo.assert_fsck();
}

/// What was staged before a squash stays staged through its undo and redo (a squash keeps
/// every tree, so neither touches the index); only a change staged after the squash is in the
/// way of its undo (issue 38 §3).
#[test]
fn undo_of_a_squash_keeps_what_was_staged_before_it_and_refuses_what_was_staged_after() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n"), ("b.txt", "b\n")]);
    ai_write(&repo, "s1", "a.txt", "1\n");
    ai_write(&repo, "s2", "a.txt", "2\n");
    repo.write("b.txt", "b staged\n");
    repo.git(&["add", "b.txt"]);
    repo.write("b.txt", "b staged\nand unstaged\n");
    let before = repo.state();
    let out = squash(&repo, &["--mode", "auto_ai"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let squashed = repo.state();
    assert_eq!(squashed.index, before.index);

    let out = repo.clada(&["--format", "json", "undo"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(json(&out)["kind"], "squash");
    let undone = repo.state();
    assert_eq!(undone.head, before.head);
    assert_eq!(undone.index, before.index);
    assert_eq!(undone.files, before.files);
    assert_eq!(repo.git(&["diff", "--cached", "--name-only"]), "b.txt\n");
    assert_eq!(repo.git(&["show", ":b.txt"]), "b staged\n");

    let out = repo.clada(&["--format", "json", "redo"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let redone = repo.state();
    assert_eq!(redone.head, squashed.head);
    assert_eq!(redone.index, before.index);
    assert_eq!(redone.files, before.files);

    // A change staged after the squash: the undo is refused and changes nothing.
    repo.write("c.txt", "c\n");
    repo.git(&["add", "c.txt"]);
    let staged_after = repo.state();
    let out = repo.clada(&["undo"]);
    assert_eq!(code(&out), 3, "{}", stdout(&out));
    assert!(
        stderr(&out).contains("the index has changed since the squash (staged: c.txt"),
        "{}",
        stderr(&out)
    );
    assert_eq!(repo.state(), staged_after);
    // Unstaged again, the undo goes through.
    repo.git(&["rm", "-q", "--cached", "c.txt"]);
    let out = repo.clada(&["undo"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(repo.state().index, before.index);
    repo.assert_fsck();
}

#[test]
fn dry_run_changes_nothing_not_even_objects() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    ai_write(&repo, "d1", "a.txt", "1\n");
    ai_write(&repo, "d2", "a.txt", "2\n");
    let before = repo.state();
    let git_before = common::files_of(&repo.path().join(".git"));
    let out = repo.clada(&[
        "--dry-run",
        "--format",
        "human",
        "squash",
        "--mode",
        "auto_ai",
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("Would squash 2 commits into"), "{text}");
    assert!(text.contains("main would move from"), "{text}");
    assert_eq!(repo.state(), before);
    assert_eq!(common::files_of(&repo.path().join(".git")), git_before);
}

/// The window reaches the root commit. (A root commit is never squashed itself: no apply
/// makes one, and squash takes only the commits git-clada's records hold.)
#[test]
fn a_run_just_above_the_root_commit_can_be_squashed() {
    let repo = TestRepo::new();
    repo.git(&["commit", "-q", "--allow-empty", "-m", "AI: a human root"]);
    ai_write(&repo, "rt1", "a.txt", "a\n");
    ai_write(&repo, "rt2", "a.txt", "b\n");
    let out = squash(&repo, &["--mode", "ai_messages"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(
        log(&repo),
        "AI: create a.txt; edit a.txt\nAI: a human root\n"
    );
    assert_eq!(repo.git(&["rev-list", "--count", "HEAD"]).trim(), "2");
    repo.assert_fsck();
}

#[test]
fn usage_errors_exit_2() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    for args in [
        vec!["squash", "--mode", "hours"],
        vec!["squash", "--mode", "days"],
        vec!["squash", "--mode", "msg_contains"],
        vec!["squash", "--mode", "auto_ai", "--hours", "2"],
    ] {
        let out = repo.clada(&args);
        assert_eq!(code(&out), 2, "{args:?}: {}", stderr(&out));
    }
}

/// The merged notes, the squash record and the branch move together or not at all: with the
/// branch locked by another git command, the squash fails and leaves every ref where it was
/// (the notes are not merged onto a commit the branch never got).
#[test]
fn a_squash_that_cannot_move_the_branch_moves_nothing() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    ai_write(&repo, "bb1", "a.txt", "one\n");
    ai_write(&repo, "bb2", "b.txt", "two\n");
    let refs_before = repo.git(&["for-each-ref", "--format=%(refname) %(objectname)"]);
    let state_before = repo.state();
    // Another git holds the branch's lock (it is not git-clada's to remove).
    repo.write(".git/refs/heads/main.lock", "");
    let out = squash(&repo, &["--mode", "auto_ai"]);
    assert_ne!(code(&out), 0, "{}", stdout(&out));
    assert!(stderr(&out).contains("main"), "{}", stderr(&out));
    assert_eq!(
        repo.git(&["for-each-ref", "--format=%(refname) %(objectname)"]),
        refs_before,
        "no ref moved: not the notes, not the squash record"
    );
    assert!(repo.path().join(".git/refs/heads/main.lock").exists());
    std::fs::remove_file(repo.path().join(".git/refs/heads/main.lock")).unwrap();
    let after = repo.state();
    assert_eq!(after.files, state_before.files);
    assert_eq!(after.head, state_before.head);
    // Once the lock is gone, the same squash goes through.
    let out = squash(&repo, &["--mode", "auto_ai"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    repo.assert_fsck();
}

#[test]
fn a_damaged_commit_cache_changes_no_squash() {
    // The AI commits' bytes are kept in `.git/clada/commits` so a squash reads one file
    // instead of one object per commit. Whatever that file holds, the squash is the one the
    // objects make: bytes that do not hash to their commit's id are never used.
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    for i in 1..=4 {
        ai_write(&repo, &format!("k{i}"), "a.txt", &format!("{i}\n"));
    }
    let tip = repo.head();
    let cache = repo.path().join(".git/clada/commits");
    let kept = std::fs::read(&cache).expect("the applies kept their commits");
    assert_eq!(
        String::from_utf8_lossy(&kept).matches("AI: ").count(),
        4,
        "one record per AI commit"
    );

    let squash_from_tip = |label: &str| -> (String, String) {
        repo.git(&["update-ref", "refs/heads/main", &tip]);
        let out = squash(&repo, &["--mode", "auto_ai"]);
        assert_eq!(code(&out), 0, "{label}: {}", stderr(&out));
        let head = repo.head();
        let message = repo.git(&["log", "-1", "--format=%B", &head]);
        (head, message)
    };
    let (expected, message) = squash_from_tip("with the cache as written");
    assert!(message.contains("Clada-Blocks: k1 k2 k3 k4"), "{message}");
    assert_ne!(expected, tip);

    // Every subject changed in place (the lengths still parse), one record cut short, a
    // foreign header, no file: the same squashed commit each time.
    let tampered = common::replace_bytes(&kept, b"AI: ", b"XX: ");
    let cases: [(&str, Option<Vec<u8>>); 4] = [
        ("tampered subjects", Some(tampered)),
        ("cut short", Some(kept[..kept.len() - 9].to_vec())),
        (
            "foreign header",
            Some([b"not-ours".as_slice(), &kept[8..]].concat()),
        ),
        ("no cache", None),
    ];
    for (label, bytes) in cases {
        match bytes {
            Some(b) => std::fs::write(&cache, b).unwrap(),
            None => std::fs::remove_file(&cache).unwrap(),
        }
        assert_eq!(
            squash_from_tip(label),
            (expected.clone(), message.clone()),
            "{label}"
        );
    }
    repo.assert_fsck();
}
