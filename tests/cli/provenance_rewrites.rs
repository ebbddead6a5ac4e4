//! AI line attribution through the user's own rewrites (issue 42 §2): with the hooks of
//! `git clada hooks install`, `git commit --amend`, `git rebase` (onto a moved base, `-i` with
//! a fixup) and `git cherry-pick` keep every line that is still the AI's attributed to it and
//! no other line, every note in `refs/notes/ai` is a valid log of its own commit, and a note
//! git's `notes.rewriteRef` copied or concatenated never attributes a line wrongly.
//!
//! The files' lines say who wrote them: a line the AI wrote starts with `ai-`, every other
//! line does not, so the right origin of every line is known from its text.

use crate::common;

use clada_engine::authorship::Log;
use common::{exit_code, output_text, replace_block, write_block, TestRepo};
use serde_json::Value;

fn ok(out: &std::process::Output) {
    assert_eq!(exit_code(out), 0, "{}", output_text(out));
}

/// A repository whose git finds git-clada on PATH (as the installed hooks need).
fn repo(files: &[(&str, &str)]) -> TestRepo {
    let mut r = TestRepo::with_files(files);
    r.env.push(("PATH".into(), common::path_with_clada(&[])));
    r
}

/// Every note of `refs/notes/ai` is one valid log (the strict parser) of the commit it is on.
fn assert_every_note_valid(repo: &TestRepo) {
    let list = repo.git(&["notes", "--ref=ai", "list"]);
    for line in list.lines() {
        let commit = line.split_whitespace().nth(1).expect("annotated object");
        let text = repo.git(&["notes", "--ref=ai", "show", commit]);
        let log = Log::parse(&text).unwrap_or_else(|e| panic!("note on {commit}: {e}\n{text}"));
        assert_eq!(log.meta.base_commit_sha, commit, "{text}");
    }
}

/// `git clada blame PATH REV --format json`, as (text, origin, agent) per line.
fn blame(repo: &TestRepo, path: &str, rev: &str) -> Vec<(String, String, String)> {
    let out = repo.clada(&["--format", "json", "blame", path, rev]);
    ok(&out);
    let report: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let text = repo.git(&["show", &format!("{rev}:{path}")]);
    let lines = report["lines"].as_array().expect("lines");
    assert_eq!(lines.len(), text.lines().count(), "{report}");
    text.lines()
        .zip(lines)
        .map(|(t, l)| {
            (
                t.to_string(),
                l["origin"].as_str().unwrap_or("").to_string(),
                l["agent"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

/// Every line of `path` at `rev` has the origin its text says: `ai` (by `agent`) exactly for
/// the `ai-` lines. Also every note is valid and the repository is sound.
fn assert_origins(repo: &TestRepo, path: &str, rev: &str, agent: &str, when: &str) {
    for (text, origin, who) in blame(repo, path, rev) {
        if text.starts_with("ai-") {
            assert_eq!(
                (origin.as_str(), who.as_str()),
                ("ai", agent),
                "{when}: `{text}` is the AI's"
            );
        } else {
            assert_ne!(origin, "ai", "{when}: `{text}` is not the AI's");
        }
    }
    assert_every_note_valid(repo);
    repo.assert_fsck();
}

fn apply_ai(repo: &TestRepo, reply: &str) {
    ok(&repo.apply(reply, &["--agent", "claude", "--model", "opus"]));
}

#[test]
fn amend_rebase_fixup_and_cherry_pick_keep_every_lines_origin() {
    let r = repo(&[("app.py", "one\ntwo\nthree\n")]);
    ok(&r.clada(&["hooks", "install"]));
    r.git(&["checkout", "-qb", "feature"]);
    apply_ai(
        &r,
        &replace_block("a01", "app.py", "two\n", "two\nai-1\nai-2\nai-3\n"),
    );
    assert_origins(&r, "app.py", "HEAD", "claude", "after the apply");

    // commit --amend with a human edit of one AI line and a line of the human's own.
    r.write(
        "app.py",
        "one\ntwo\nai-1\nhuman-2\nai-3\nthree\nhuman-end\n",
    );
    r.git(&["commit", "-qa", "--amend", "--no-edit"]);
    assert_origins(&r, "app.py", "HEAD", "claude", "after the amend");

    // A second AI commit, folded into the first by rebase -i with a fixup.
    apply_ai(
        &r,
        &replace_block("b01", "app.py", "three\n", "three\nai-4\n"),
    );
    r.write("notes.txt", "human\n");
    r.git(&["add", "notes.txt"]);
    r.git(&["commit", "-qm", "human"]);
    let mut rebase = r.git_cmd();
    rebase
        .env("GIT_SEQUENCE_EDITOR", "sed -i '2s/^pick/fixup/'")
        .args(["rebase", "-qi", "HEAD~3"]);
    let out = rebase.output().expect("rebase -i");
    ok(&out);
    assert_eq!(r.git(&["rev-list", "--count", "main..HEAD"]).trim(), "2");
    assert_origins(&r, "app.py", "HEAD", "claude", "after the fixup");
    assert_origins(&r, "app.py", "HEAD~1", "claude", "after the fixup");

    // The base moves (a human line above the AI's), and the branch is rebased onto it.
    r.git(&["checkout", "-q", "main"]);
    r.write("app.py", "base-top\none\ntwo\nthree\n");
    r.git(&["commit", "-qam", "main moves"]);
    r.git(&["checkout", "-q", "feature"]);
    ok(&r.git_output(&["rebase", "-q", "main"]));
    assert_origins(&r, "app.py", "HEAD", "claude", "after the rebase");
    let ai_lines = blame(&r, "app.py", "HEAD")
        .iter()
        .filter(|l| l.1 == "ai")
        .count();
    assert_eq!(ai_lines, 3, "ai-1, ai-3, ai-4");

    // cherry-pick the AI commit onto another branch.
    r.git(&["checkout", "-qb", "other", "main"]);
    r.write("top.txt", "x\n");
    r.git(&["add", "top.txt"]);
    r.git(&["commit", "-qm", "other"]);
    ok(&r.git_output(&["cherry-pick", "feature~1"]));
    assert_origins(&r, "app.py", "HEAD", "claude", "after the cherry-pick");
    let picked = blame(&r, "app.py", "HEAD");
    assert_eq!(picked.iter().filter(|l| l.1 == "ai").count(), 3);
}

/// git's `notes.rewriteRef` (the user's own setting, left as it is) copies the old log onto
/// the new commit, and on a fixup concatenates two logs into one note: without the hook such
/// a note attributes no line (a gap, never a wrong line); with it, the hook replaces the
/// concatenation with the one carried log.
#[test]
fn notes_copied_by_rewrite_ref_are_replaced_or_never_misread() {
    let r = repo(&[("app.py", "one\ntwo\n"), ("two.py", "start\n")]);
    r.git(&["config", "notes.rewriteRef", "refs/notes/ai"]);
    let fixup = |r: &TestRepo| {
        let mut rebase = r.git_cmd();
        rebase
            .env("GIT_SEQUENCE_EDITOR", "sed -i '2s/^pick/fixup/'")
            .args(["rebase", "-qi", "HEAD~2"]);
        ok(&rebase.output().expect("rebase -i"));
    };

    // No hook: git concatenates the two logs on the fixup, and copies on the amend.
    apply_ai(
        &r,
        &replace_block("c01", "app.py", "two\n", "two\nai-1\nai-2\n"),
    );
    apply_ai(&r, &replace_block("c02", "app.py", "one\n", "ai-0\n"));
    fixup(&r);
    let text = r.git(&["notes", "--ref=ai", "show", "HEAD"]);
    assert_eq!(
        text.matches("\n---\n").count(),
        2,
        "two logs, concatenated: {text}"
    );
    r.write("app.py", "ai-0\ntwo\nhuman-1\nai-2\n");
    r.git(&["commit", "-qa", "--amend", "--no-edit"]);
    let copied = r.git(&["notes", "--ref=ai", "show", "HEAD"]);
    assert!(copied.contains("\n---\n"), "git copied the logs: {copied}");
    for (text, origin, _) in blame(&r, "app.py", "HEAD") {
        assert_ne!(origin, "ai", "`{text}`: a copy is not this commit's log");
    }

    // With the hook, the fixup's concatenated copy becomes one valid log.
    ok(&r.clada(&["hooks", "install"]));
    apply_ai(
        &r,
        &replace_block("c03", "two.py", "start\n", "start\nai-3\nai-4\n"),
    );
    apply_ai(
        &r,
        &replace_block("c04", "two.py", "ai-4\n", "ai-4\nai-5\n"),
    );
    fixup(&r);
    let text = r.git(&["notes", "--ref=ai", "show", "HEAD"]);
    assert!(Log::parse(&text).is_ok(), "{text}");
    assert_eq!(
        r.git(&["config", "notes.rewriteRef"]).trim(),
        "refs/notes/ai"
    );
    assert_origins_reachable(&r, "two.py");
    for (text, origin, _) in blame(&r, "app.py", "HEAD") {
        assert_ne!(origin, "ai", "`{text}`");
    }
}

/// Without the hook, the one log git's `notes.rewriteRef` copies onto an amended commit
/// names the old commit's lines: a line the human changed there is not read as the AI's.
#[test]
fn a_log_copied_onto_an_amended_commit_attributes_no_changed_line() {
    let r = repo(&[("app.py", "one\ntwo\n")]);
    r.git(&["config", "notes.rewriteRef", "refs/notes/ai"]);
    apply_ai(
        &r,
        &replace_block("f01", "app.py", "two\n", "two\nai-1\nai-2\n"),
    );
    r.write("app.py", "one\ntwo\nhuman-1\nai-2\n");
    r.git(&["commit", "-qa", "--amend", "--no-edit"]);
    let copied = r.git(&["notes", "--ref=ai", "show", "HEAD"]);
    assert!(
        copied.contains(" 3-4\n"),
        "git copied the old log: {copied}"
    );
    let lines = blame(&r, "app.py", "HEAD");
    assert_eq!(lines[2].0, "human-1");
    assert_ne!(lines[2].1, "ai", "the human's line: {lines:?}");
    // With the hook an amend gets its own log: ai-0 is the AI's, no human line is (ai-2's
    // attribution went with the amend made without the hook: a gap, not a wrong line).
    ok(&r.clada(&["hooks", "install"]));
    apply_ai(&r, &replace_block("f02", "app.py", "one\n", "ai-0\n"));
    r.write("app.py", "ai-0\ntwo\nhuman-1\nai-2\nhuman-3\n");
    r.git(&["commit", "-qa", "--amend", "--no-edit"]);
    let lines = blame(&r, "app.py", "HEAD");
    assert_eq!(lines[0].1, "ai", "{lines:?}");
    assert!(lines[1..].iter().all(|l| l.1 != "ai"), "{lines:?}");
    r.assert_fsck();
}

/// [`assert_origins`] where the commits rewritten before the hook was installed keep what
/// git's copy made of their notes: only HEAD's note is checked.
fn assert_origins_reachable(repo: &TestRepo, path: &str) {
    for (text, origin, _) in blame(repo, path, "HEAD") {
        assert_eq!(
            origin == "ai",
            text.starts_with("ai-"),
            "`{text}`: {origin}"
        );
    }
    let head = repo.head();
    let text = repo.git(&["notes", "--ref=ai", "show", "HEAD"]);
    let log = Log::parse(&text).unwrap_or_else(|e| panic!("note on HEAD: {e}\n{text}"));
    assert_eq!(log.meta.base_commit_sha, head);
    repo.assert_fsck();
}

/// The user's own post-rewrite hook keeps running with git's input; uninstall gives it back
/// byte for byte.
#[test]
fn an_existing_post_rewrite_hook_still_gets_gits_lines() {
    let r = repo(&[("a.txt", "a\n")]);
    let hook = r.path().join(".git/hooks/post-rewrite");
    let original =
        "#!/bin/sh\nwhile read old new rest; do echo \"$1 $old $new\" >> .git/mine.log; done\n";
    std::fs::write(&hook, original).expect("write hook");
    r.set_executable(".git/hooks/post-rewrite");
    ok(&r.clada(&["hooks", "install"]));
    apply_ai(&r, &write_block("d01", "b.txt", "ai-1\nai-2\n"));
    let old = r.head();
    r.write("b.txt", "ai-1\nhuman\n");
    r.git(&["commit", "-qa", "--amend", "--no-edit"]);
    let new = r.head();
    assert_eq!(r.read(".git/mine.log"), format!("amend {old} {new}\n"));
    assert_origins(&r, "b.txt", "HEAD", "claude", "after the amend");
    ok(&r.clada(&["hooks", "uninstall"]));
    assert_eq!(std::fs::read(&hook).expect("read"), original.as_bytes());
    assert!(!r.path().join(".git/hooks/post-commit").exists());
}

/// Under husky 9 (core.hooksPath `.husky/_`, whose scripts run `.husky/<name>`), the hook
/// is `.husky/post-rewrite`.
#[test]
fn under_husky_the_hook_is_husky_s_own_file() {
    let r = repo(&[("a.txt", "a\n")]);
    // husky 9's runner and shims, as `husky` writes them.
    r.write(
        ".husky/_/h",
        "#!/usr/bin/env sh\nn=$(basename \"$0\")\ns=$(dirname \"$(dirname \"$0\")\")/$n\n[ ! -f \"$s\" ] && exit 0\nsh -e \"$s\" \"$@\"\nc=$?\n[ $c != 0 ] && echo \"husky - $n script failed (code $c)\"\nexit $c\n",
    );
    for name in ["pre-commit", "post-commit", "post-rewrite"] {
        let shim = format!(".husky/_/{name}");
        r.write(&shim, "#!/usr/bin/env sh\n. \"$(dirname \"$0\")/h\"\n");
        r.set_executable(&shim);
    }
    r.git(&["config", "core.hooksPath", ".husky/_"]);
    ok(&r.clada(&["hooks", "install"]));
    assert!(r
        .read(".husky/post-rewrite")
        .contains("git-clada provenance rewritten"));
    assert!(r
        .read(".husky/post-commit")
        .contains("git-clada provenance post-commit"));
    apply_ai(&r, &write_block("e01", "b.txt", "ai-1\nai-2\n"));
    r.write("b.txt", "human\nai-2\n");
    r.git(&["commit", "-qa", "--amend", "--no-edit"]);
    assert_origins(&r, "b.txt", "HEAD", "claude", "after the amend under husky");
    assert_eq!(
        blame(&r, "b.txt", "HEAD")[1].1,
        "ai",
        "the hook ran through husky"
    );
    ok(&r.clada(&["hooks", "uninstall"]));
    assert!(!r.path().join(".husky/post-rewrite").exists());
}

/// A cherry-pick whose conflict the user resolved (`--continue`: git no longer names the
/// picked commit) is found by its patch; `git merge --squash` by the commits its message
/// lists; a commit after `git reset --soft` by the chain it replaced.
#[test]
fn a_resolved_cherry_pick_a_squash_merge_and_a_soft_reset_keep_the_ais_lines() {
    let r = repo(&[("app.py", "one\ntwo\nthree\n")]);
    ok(&r.clada(&["hooks", "install"]));
    r.git(&["checkout", "-qb", "feature"]);
    apply_ai(&r, &replace_block("g01", "app.py", "two\n", "ai-1\n"));
    apply_ai(&r, &write_block("g02", "b.py", "ai-2\nai-3\n"));

    // The picked change conflicts with a human's change of the line above it.
    r.git(&["checkout", "-qb", "other", "main"]);
    r.write("app.py", "uno\ntwo\nthree\n");
    r.git(&["commit", "-qam", "human"]);
    let out = r.git_output(&["cherry-pick", "feature~1"]);
    assert_ne!(exit_code(&out), 0, "a conflict: {}", output_text(&out));
    r.write("app.py", "uno\nai-1\nthree\n");
    r.git(&["add", "app.py"]);
    let mut cont = r.git_cmd();
    cont.env("GIT_EDITOR", "true")
        .args(["cherry-pick", "--continue"]);
    ok(&cont.output().expect("cherry-pick --continue"));
    assert_origins(
        &r,
        "app.py",
        "HEAD",
        "claude",
        "after the resolved cherry-pick",
    );
    assert_eq!(blame(&r, "app.py", "HEAD")[1].1, "ai");

    // merge --squash of the feature branch, committed with git's message.
    r.git(&["checkout", "-qb", "squashed", "main"]);
    r.git(&["merge", "-q", "--squash", "feature"]);
    let mut commit = r.git_cmd();
    commit.env("GIT_EDITOR", "true").args(["commit", "-q"]);
    ok(&commit.output().expect("commit"));
    assert_origins(&r, "app.py", "HEAD", "claude", "after merge --squash");
    assert_origins(&r, "b.py", "HEAD", "claude", "after merge --squash");
    assert_eq!(blame(&r, "b.py", "HEAD")[0].1, "ai");

    // reset --soft over both AI commits, one human change, one commit.
    r.git(&["checkout", "-q", "feature"]);
    r.git(&["reset", "-q", "--soft", "main"]);
    r.write("b.py", "ai-2\nhuman-3\n");
    r.git(&["add", "b.py"]);
    r.git(&["commit", "-qm", "all in one"]);
    assert_origins(&r, "app.py", "HEAD", "claude", "after reset --soft");
    assert_origins(&r, "b.py", "HEAD", "claude", "after reset --soft");
    assert_eq!(blame(&r, "app.py", "HEAD")[1].1, "ai");

    // An edited squash message is no evidence: nothing is attributed, nothing wrongly.
    r.git(&["checkout", "-qb", "edited", "main"]);
    r.git(&["merge", "-q", "--squash", "feature"]);
    r.git(&["commit", "-qm", "my own words"]);
    for (text, origin, _) in blame(&r, "b.py", "HEAD") {
        assert_ne!(origin, "ai", "`{text}`");
    }
}

/// Two AI commits of different sessions with the same patch: a resolved cherry-pick of one
/// cannot tell which it was, and attributes nothing.
#[test]
fn an_ambiguous_patch_attributes_nothing() {
    let r = repo(&[("app.py", "one\ntwo\nthree\n")]);
    ok(&r.clada(&["hooks", "install"]));
    for (branch, conversation, id) in [("f1", "first", "h01"), ("f2", "second", "h02")] {
        r.git(&["checkout", "-qb", branch, "main"]);
        ok(&r.apply(
            &replace_block(id, "app.py", "two\n", "ai-1\n"),
            &["--agent", "claude", "--conversation", conversation],
        ));
    }
    r.git(&["checkout", "-qb", "other", "main"]);
    r.write("app.py", "uno\ntwo\nthree\n");
    r.git(&["commit", "-qam", "human"]);
    assert_ne!(exit_code(&r.git_output(&["cherry-pick", "f1"])), 0);
    r.write("app.py", "uno\nai-1\nthree\n");
    r.git(&["add", "app.py"]);
    let mut cont = r.git_cmd();
    cont.env("GIT_EDITOR", "true")
        .args(["cherry-pick", "--continue"]);
    ok(&cont.output().expect("cherry-pick --continue"));
    assert!(
        !r.git_output(&["notes", "--ref=ai", "show", "HEAD"])
            .status
            .success(),
        "no log"
    );
    assert_ne!(r.git(&["rev-parse", "f1"]), r.git(&["rev-parse", "f2"]));
    assert!(blame(&r, "app.py", "HEAD").iter().all(|l| l.1 != "ai"));
}

/// The origins `git clada blame` gives the lines of `path` at `rev`, `ai` or not, in order.
fn ai_or_not(repo: &TestRepo, path: &str, rev: &str) -> Vec<bool> {
    blame(repo, path, rev).iter().map(|l| l.1 == "ai").collect()
}

/// The line ranges `rev`'s log attests in `path`, by agent tool, sorted.
fn attested(repo: &TestRepo, rev: &str, path: &str) -> Vec<(String, String)> {
    let text = repo.git(&["notes", "--ref=ai", "show", rev]);
    let log = Log::parse(&text).unwrap_or_else(|e| panic!("note on {rev}: {e}\n{text}"));
    let mut out: Vec<(String, String)> = log
        .files
        .iter()
        .filter(|f| f.path == path)
        .flat_map(|f| f.entries.iter())
        .map(|e| {
            let tool = log.session_of(&e.key).map(|s| s.agent_id.tool.clone());
            (tool.unwrap_or_default(), e.lines.to_string())
        })
        .collect();
    out.sort();
    out
}

/// Issue 52 item 3: an AI commit adds a blank line below an old one (its log: line 3), a
/// second writes `X` above both. The squashed commit's diff calls `X` and the first blank
/// line new: both are the AI's, and its log credits exactly them (re-diffing first against
/// last credited the user with that blank line and left the AI's one unknown).
#[test]
fn a_squash_keeps_an_ai_blank_line_beside_an_old_one_the_ais() {
    let r = repo(&[("f.txt", "a\n\nb\n")]);
    ok(&r.apply(
        &write_block("k01", "f.txt", "a\n\n\nb\n"),
        &["--agent", "claude"],
    ));
    assert_eq!(
        attested(&r, "HEAD", "f.txt"),
        [("claude".into(), "3".into())]
    );
    ok(&r.apply(
        &write_block("k02", "f.txt", "a\nX\n\n\nb\n"),
        &["--agent", "codex"],
    ));
    assert_eq!(r.git(&["show", "HEAD:f.txt"]), "a\nX\n\n\nb\n");
    ok(&r.clada(&["squash", "--mode", "auto_ai"]));
    assert_eq!(r.git(&["rev-list", "--count", "HEAD"]).trim(), "2");
    assert_eq!(
        attested(&r, "HEAD", "f.txt"),
        [("claude".into(), "3".into()), ("codex".into(), "2".into())]
    );
    assert_eq!(
        ai_or_not(&r, "f.txt", "HEAD"),
        [false, true, true, false, false]
    );
    assert_every_note_valid(&r);
}

/// The same through the user's own rewrites with the hooks installed: an amend that adds a
/// human line above the AI's blank line, and a `rebase -i` fixup of the second AI commit
/// into the first.
#[test]
fn an_amend_and_a_fixup_keep_an_ai_blank_line_beside_an_old_one_the_ais() {
    let r = repo(&[("f.txt", "a\n\nb\n"), ("g.txt", "c\n\nd\n")]);
    ok(&r.clada(&["hooks", "install"]));
    r.git(&["checkout", "-qb", "feature"]);
    apply_ai(&r, &write_block("m01", "f.txt", "a\n\n\nb\n"));
    r.write("f.txt", "a\nX\n\n\nb\n");
    r.git(&["commit", "-qa", "--amend", "--no-edit"]);
    assert_eq!(
        attested(&r, "HEAD", "f.txt"),
        [("claude".into(), "3".into())]
    );
    assert_eq!(
        ai_or_not(&r, "f.txt", "HEAD"),
        [false, false, true, false, false]
    );

    apply_ai(&r, &write_block("m02", "g.txt", "c\n\n\nd\n"));
    apply_ai(&r, &write_block("m03", "g.txt", "c\nY\n\n\nd\n"));
    let mut rebase = r.git_cmd();
    rebase
        .env("GIT_SEQUENCE_EDITOR", "sed -i '2s/^pick/fixup/'")
        .args(["rebase", "-qi", "HEAD~2"]);
    ok(&rebase.output().expect("rebase -i"));
    assert_eq!(r.git(&["rev-list", "--count", "main..HEAD"]).trim(), "2");
    assert_eq!(
        attested(&r, "HEAD", "g.txt"),
        [("claude".into(), "2".into()), ("claude".into(), "3".into())]
    );
    assert_eq!(
        ai_or_not(&r, "g.txt", "HEAD"),
        [false, true, true, false, false]
    );
    assert_every_note_valid(&r);
    r.assert_fsck();
}
