//! What the report says is what happened (issue 40 §1): an untracked file the reply replaced
//! is named with how to get it back, a failed exec block's committed changes are said in the
//! closing line, the snapshot fallback does not claim a change left the worktree while it is
//! still there, apply while stepped back says how to step forward, a sandbox denial only the
//! user can lift is ⏸ with the exact `sandbox.read` line (and only then), a reply cut off inside
//! a heredoc is called cut off, `git clada commit` gets a closing line about its commit, a
//! moved file is listed under both paths, and the help and completions say what the tool
//! reads and offer no internal command.

use crate::common;

use common::{block, exit_code, output_text, write_block, TestRepo};
use serde_json::Value;

fn llm(repo: &TestRepo, reply: &str, extra: &[&str]) -> (i32, String) {
    let mut cmd = repo.clada_cmd();
    cmd.args(["--format", "llm", "apply"]).args(extra).arg("-");
    let out = common::spawn_fed(cmd, reply)
        .wait_with_output()
        .expect("wait");
    (
        exit_code(&out),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

fn warnings(report: &Value) -> String {
    report["warnings"].to_string()
}

/// The last line of an llm report: what the model is told.
fn closing(text: &str) -> &str {
    text.trim_end().lines().last().unwrap_or_default()
}

#[test]
fn an_untracked_file_the_reply_replaced_is_named_and_undo_restores_it() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    repo.write("notes.txt", "my own notes\n");
    repo.write("scratch.txt", "scratch\n");
    let reply = format!(
        "{}{}",
        write_block("u1x", "notes.txt", "the AI's notes"),
        block("u2x", &[("action", "file_delete"), ("path", "scratch.txt")])
    );
    let report = TestRepo::report(&repo.apply(&reply, &[]));
    assert_eq!(report["success"], true, "{report}");
    let w = warnings(&report);
    assert!(
        w.contains("notes.txt was your untracked file (git had no copy of it): the reply replaced it; `git clada undo` restores your version"),
        "{report}"
    );
    assert!(
        w.contains("scratch.txt was your untracked file (git had no copy of it): the reply removed it; `git clada undo` restores it"),
        "{report}"
    );
    // A tracked file the reply replaces is no such news.
    let report = TestRepo::report(&repo.apply(&write_block("u3x", "a.txt", "b"), &[]));
    assert!(!warnings(&report).contains("untracked"), "{report}");
    // What the warning promises holds.
    for _ in 0..2 {
        let out = repo.clada(&["undo"]);
        assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
    }
    assert_eq!(repo.read("notes.txt"), "my own notes\n");
    assert_eq!(repo.read("scratch.txt"), "scratch\n");
    assert_eq!(repo.status(), "?? notes.txt\n?? scratch.txt\n");
    repo.assert_fsck();
}

#[test]
fn a_failed_exec_blocks_committed_changes_are_said_in_the_closing_line() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let reply = block(
        "e1x",
        &[
            ("action", "exec"),
            ("lang", "bash"),
            ("code", "echo made > made.txt; exit 3"),
        ],
    );
    let (code, text) = llm(&repo, &reply, &["--exec", "allow"]);
    assert_eq!(code, 1, "{text}");
    let head = repo.head();
    assert!(repo.git(&["ls-files"]).contains("made.txt"), "committed");
    let last = closing(&text);
    assert!(!last.contains("No block was applied"), "{text}");
    assert_eq!(
        last,
        format!(
            "No block succeeded, but what exec block e1x changed before it failed is committed ({}; `git clada undo` takes it back). Send corrected versions of the 1 block marked ❌; they will run on top of that.",
            &head[..12]
        )
    );
    // The human summary says the same.
    let out = repo.clada(&["undo"]);
    assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
    let out = common::spawn_fed(
        {
            let mut c = repo.clada_cmd();
            c.args(["--format", "human", "apply", "--exec", "allow", "-"]);
            c
        },
        &reply,
    )
    .wait_with_output()
    .expect("wait");
    let human = String::from_utf8_lossy(&out.stdout);
    assert!(
        human.contains("(what exec block e1x changed before it failed)"),
        "{human}"
    );
}

#[test]
fn the_snapshot_fallback_does_not_say_a_change_left_the_worktree_while_it_is_there() {
    let repo = TestRepo::with_files(&[("a.txt", "l1\nl2\nl3\nl4\n")]);
    // The user's change and the AI's touch neighbouring lines: they cannot be kept apart, so
    // the AI's change stays uncommitted in the worktree (⏸, DESIGN §6.3); the user's is still
    // there.
    repo.write("a.txt", "l1\nUSER\nl3\nl4\n");
    let report = TestRepo::report(&repo.apply(
        &block(
            "s1x",
            &[
                ("action", "file_replace_text"),
                ("path", "a.txt"),
                ("old_text", "l3"),
                ("new_text", "AI"),
            ],
        ),
        &[],
    ));
    assert_eq!(report["success"], true, "{report}");
    assert_eq!(repo.read("a.txt"), "l1\nUSER\nAI\nl4\n");
    let w = warnings(&report);
    assert!(w.contains("⏸ not committed"), "{report}");
    assert!(!w.contains("no longer in the worktree"), "{report}");

    // A whole-file write over the user's change does take it out: that is still said.
    let repo = TestRepo::with_files(&[("b.txt", "b1\nb2\n")]);
    repo.write("b.txt", "b1\nMINE\n");
    let report = TestRepo::report(&repo.apply(&write_block("s2x", "b.txt", "new"), &[]));
    assert_eq!(repo.read("b.txt"), "new\n");
    assert!(
        warnings(&report).contains("your uncommitted change to b.txt is no longer in the worktree"),
        "{report}"
    );
}

#[test]
fn apply_while_stepped_back_says_to_step_forward() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    for (id, path) in [("t1x", "b.txt"), ("t2x", "c.txt")] {
        let out = repo.apply(&write_block(id, path, "x"), &[]);
        assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
    }
    let out = repo.clada(&["step-back"]);
    assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
    let out = repo.apply(&write_block("t3x", "d.txt", "x"), &[]);
    assert_eq!(exit_code(&out), 3, "{}", output_text(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("git clada step-forward --all"), "{err}");
    assert!(!err.contains("switch -c"), "{err}");
    assert!(!repo.exists("d.txt"));
}

/// A toolchain in the home folder, outside what the sandbox grants: `~/.tool/bin/mytool`.
fn with_toolchain() -> TestRepo {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let bin = repo.home.path().join(".tool/bin");
    std::fs::create_dir_all(&bin).expect("mkdir");
    let tool = bin.join("mytool");
    std::fs::write(&tool, "#!/bin/sh\necho tool ran\n").expect("write");
    let mut perm = std::fs::metadata(&tool).expect("stat").permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perm, 0o755);
    std::fs::set_permissions(&tool, perm).expect("chmod");
    repo
}

fn exec_block(id: &str, code: &str) -> String {
    block(id, &[("action", "exec"), ("lang", "bash"), ("code", code)])
}

#[test]
fn a_sandbox_denial_of_the_users_toolchain_waits_for_the_user_with_the_line_that_allows_it() {
    let repo = with_toolchain();
    let tool = repo.home.path().join(".tool/bin/mytool");
    let out = repo.apply(
        &exec_block("d1x", &tool.display().to_string()),
        &["--exec", "allow"],
    );
    let report = TestRepo::report(&out);
    let r = &report["results"][0];
    assert_eq!(r["code"], "sandbox_denied", "{report}");
    let how = r["needsUser"]["how"].as_str().unwrap_or_default();
    assert!(
        how.contains(r#"`sandbox: {read: ["~/.tool"]}`"#),
        "{report}"
    );
    let (_, text) = llm(
        &repo,
        &exec_block("d2x", &tool.display().to_string()),
        &["--exec", "allow"],
    );
    assert!(text.contains("d2x ⏸ exec bash"), "{text}");
    assert!(closing(&text).contains("do not send it again"), "{text}");

    // The line works: with it in the user's config, the same block runs.
    repo.user_config("sandbox:\n  read: [\"~/.tool\"]\n");
    let out = repo.apply(
        &exec_block("d3x", &tool.display().to_string()),
        &["--exec", "allow"],
    );
    let report = TestRepo::report(&out);
    assert_eq!(report["success"], true, "{report}");
}

#[test]
fn printing_permission_denied_does_not_turn_a_real_failure_into_a_wait_for_the_user() {
    let repo = with_toolchain();
    let home = repo.home.path().display().to_string();
    let root = repo.path().display().to_string();
    // A path the sandbox grants, a path that does not exist, a credential folder: the model's
    // failure, as before.
    std::fs::create_dir_all(repo.home.path().join(".ssh")).expect("mkdir");
    std::fs::write(repo.home.path().join(".ssh/id_ed25519"), "key").expect("write");
    for fake in [
        format!("{root}/a.txt: Permission denied"),
        "/etc/passwd: Permission denied".to_string(),
        format!("{home}/.tool/not-there: Permission denied"),
        format!("cat: {home}/.ssh/id_ed25519: Permission denied"),
    ] {
        let code = format!("echo '{fake}' >&2; exit 1");
        let report = TestRepo::report(&repo.apply(&exec_block("f1x", &code), &["--exec", "allow"]));
        let r = &report["results"][0];
        assert_eq!(r["code"], "exec_failed", "{fake}: {report}");
        assert!(r.get("needsUser").is_none(), "{fake}: {report}");
    }
}

#[test]
fn a_reply_cut_off_inside_a_heredoc_is_called_cut_off() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let reply = "#!nesl [@three-char-SHA-256: c1x]\naction = \"file_write\"\npath = \"a.py\"\ncontent = <<'EOT_c1x'\ndef f():\n    return 1\n";
    let (code, text) = llm(&repo, reply, &[]);
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("the reply was cut off"), "{text}");
    assert!(!text.contains("fix the terminator"), "{text}");
    // A misspelled terminator with the reply going on is still that.
    let reply = "#!nesl [@three-char-SHA-256: c2x]\naction = \"file_write\"\npath = \"a.py\"\ncontent = <<'EOT_c2x'\nx = 1\nEOT_c2\n#!end_c2x\n";
    let (_, text) = llm(&repo, reply, &[]);
    assert!(
        text.contains("looks like a misspelled terminator"),
        "{text}"
    );
    assert!(!text.contains("cut off"), "{text}");
}

#[test]
fn git_clada_commit_gets_a_closing_line_about_its_commit() {
    let repo = TestRepo::with_files(&[("a.py", "x = 1\n")]);
    let hook = repo.path().join(".git/hooks/pre-commit");
    std::fs::create_dir_all(hook.parent().expect("dir")).expect("mkdir");
    std::fs::write(&hook, "#!/bin/sh\n! git diff --cached | grep -q BAD\n").expect("write");
    repo.set_executable(".git/hooks/pre-commit");
    let out = repo.apply(
        &block(
            "g1x",
            &[
                ("action", "file_replace_text"),
                ("path", "a.py"),
                ("old_text", "x = 1"),
                ("new_text", "x = BAD"),
            ],
        ),
        &[],
    );
    assert_eq!(exit_code(&out), 1, "{}", output_text(&out));
    repo.write("a.py", "x = 2\n");
    let out = repo.clada(&["--format", "llm", "commit"]);
    assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    let head = repo.head();
    assert_eq!(
        closing(&text),
        format!(
            "The AI changes an earlier apply left uncommitted are now committed ({}); there were no blocks to apply, so nothing needs sending.",
            &head[..12]
        ),
        "{text}"
    );
}

#[test]
fn a_moved_file_is_listed_under_both_paths() {
    let repo = TestRepo::with_files(&[("old.py", "x = 1\n"), ("a.txt", "a\n")]);
    let patch = "*** Begin Patch\n*** Update File: old.py\n*** Move to: new.py\n@@\n-x = 1\n+x = 2\n*** End Patch\n";
    let (code, text) = llm(&repo, patch, &[]);
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("✅ file_patch old.py -> new.py"), "{text}");
    assert_eq!(repo.subject("HEAD"), "AI: move old.py to new.py");
    // A git rename in a unified diff.
    let diff =
        "diff --git a/a.txt b/b.txt\nsimilarity index 100%\nrename from a.txt\nrename to b.txt\n";
    let (code, text) = llm(&repo, diff, &[]);
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("✅ file_patch a.txt -> b.txt"), "{text}");
    assert_eq!(repo.subject("HEAD"), "AI: move a.txt to b.txt");
    let out = repo.clada(&["--format", "human", "log"]);
    assert!(
        output_text(&out).contains("move a.txt to b.txt"),
        "{}",
        output_text(&out)
    );
}

#[test]
fn the_help_names_every_format_and_completion_offers_no_internal_command() {
    let repo = TestRepo::new();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let man = std::fs::read_to_string(root.join("man/man1/git-clada.1")).expect("man page");
    let description = man
        .split(".SH DESCRIPTION")
        .nth(1)
        .and_then(|d| d.split(".SH OPTIONS").next())
        .expect("DESCRIPTION");
    for format in ["aider", "apply_patch", "unified diffs"] {
        assert!(description.contains(format), "{format}: {description}");
    }
    let help = repo.clada(&["apply", "--help"]);
    let help = String::from_utf8_lossy(&help.stdout);
    let dialect = help
        .split("--dialect")
        .nth(1)
        .and_then(|d| d.split("\n      --").next())
        .expect("--dialect help");
    for format in ["aider", "apply_patch", "unified diff"] {
        assert!(dialect.contains(format), "{format}: {dialect}");
    }
    let bash = std::fs::read_to_string(root.join("completions/git-clada.bash")).expect("bash");
    let offered = bash
        .lines()
        .find(|l| l.trim_start().starts_with("opts=") && l.contains(" apply "))
        .expect("the subcommand list");
    assert!(offered.contains(" demo "), "{offered}");
    assert!(!offered.contains("generate"), "{offered}");
    // Every shell's file lists a subcommand with its about line.
    for file in [
        "_git-clada",
        "git-clada.fish",
        "git-clada.elv",
        "_git-clada.ps1",
    ] {
        let text = std::fs::read_to_string(root.join("completions").join(file)).expect(file);
        assert!(text.contains("Print the raw block parse result"), "{file}");
        assert!(
            !text.contains("Regenerate the man pages"),
            "{file} offers generate"
        );
    }
}
