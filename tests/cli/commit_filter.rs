//! What enters an AI commit (issue 50 items 4, 6, 7; issue 51 item 6): one filter,
//! `record::admit`, for the agent's turn commit, the apply and what a contained hook
//! re-staged. Claude Code's hook payloads (tests/fixtures/agent-hooks/) piped to the real
//! binary around real edits, and a real pre-commit hook running `git add -A`, each checked
//! with git: an ignored file the agent wrote, the user's untracked file it edited, the
//! agent's hunk next to the user's edit, and the user's files a hook staged stay out of the
//! AI commit, and the report or stderr says so.

use crate::common;

use std::process::Output;

use common::{exit_code, output_text, replace_block, spawn_fed, TestRepo};

fn payload(repo: &TestRepo, name: &str, vars: &[(&str, &str)]) -> String {
    common::agent_fixtures::payload(repo, "claude-code", name, vars)
}

fn hook_ok(repo: &TestRepo, input: &str) -> Output {
    let mut cmd = repo.clada_cmd();
    cmd.args(["agent-hook", "claude-code"]);
    let out = spawn_fed(cmd, input).wait_with_output().expect("run hook");
    assert_eq!(exit_code(&out), 0, "hook failed: {}", output_text(&out));
    out
}

/// One Write tool call: PreToolUse, the write, PostToolUse.
fn agent_write(repo: &TestRepo, id: &str, file: &str, content: &str) {
    let vars = [("FILE", file), ("ID", id), ("CONTENT", content)];
    hook_ok(repo, &payload(repo, "pre-write", &vars));
    repo.write(file, content);
    hook_ok(repo, &payload(repo, "post-write", &vars));
}

/// The end of the turn; its stderr.
fn stop(repo: &TestRepo) -> String {
    let out = hook_ok(repo, &payload(repo, "stop", &[]));
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn changed(repo: &TestRepo, rev: &str) -> String {
    repo.git(&["diff-tree", "--no-commit-id", "--name-only", "-r", rev])
        .trim_end()
        .to_string()
}

/// The lines of `path` that the authorship log on `rev` attributes (`1,5-7`).
fn logged_lines(repo: &TestRepo, rev: &str, path: &str) -> String {
    let log = repo.git(&["notes", "--ref", "ai", "show", rev]);
    let mut lines = log.lines();
    let mut out = Vec::new();
    while let Some(l) = lines.next() {
        if l == path {
            for entry in lines.by_ref() {
                let Some(rest) = entry.strip_prefix("  ") else {
                    break;
                };
                out.push(rest.rsplit(' ').next().unwrap_or_default().to_string());
            }
            break;
        }
    }
    out.join(",")
}

/// `git clada undo` until the turn is taken back (one undo, or two where the turn's
/// commit and its changes are undone one after the other), at most two.
fn undo_turn(repo: &TestRepo, initial: &str, done: impl Fn() -> bool) {
    for _ in 0..2 {
        if repo.head() == initial && done() {
            return;
        }
        let out = repo.clada(&["undo"]);
        assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
    }
    assert_eq!(repo.head(), initial);
    assert!(done(), "the turn is not taken back: {}", repo.status());
}

/// Git hooks that call git-clada (its `post-commit` writes the log of the user's commit).
fn with_clada_hooks(repo: &mut TestRepo) {
    repo.env.push(("PATH".into(), common::path_with_clada(&[])));
    let out = repo.clada(&["hooks", "install"]);
    assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
}

/// 50.4: an ignored file the agent writes is not committed, Stop says so, a tracked file
/// under an ignore pattern is committed as git does, and undo takes the ignored file back.
#[test]
fn an_ignored_file_the_agent_writes_stays_out_of_the_turn_commit_and_undo_takes_it_back() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n"), (".gitignore", ".env\n.venv/\nlocal/\n")]);
    // .venv/pyvenv.cfg is the user's ignored file; local/tracked.cfg is tracked although
    // ignored (added with -f).
    repo.write(".venv/pyvenv.cfg", "home = /usr/bin\n");
    repo.write("local/tracked.cfg", "x = 1\n");
    repo.git(&["add", "-f", "local/tracked.cfg"]);
    repo.git(&["commit", "-qm", "setup"]);
    let initial = repo.head();
    assert_eq!(repo.status(), "");
    agent_write(&repo, "toolu_1", ".env", "API_KEY=sk-secret\n");
    agent_write(&repo, "toolu_2", ".venv/pyvenv.cfg", "home = /opt/py\n");
    agent_write(&repo, "toolu_3", "local/tracked.cfg", "x = 2\n");
    agent_write(&repo, "toolu_4", "a.txt", "a by agent\n");
    let err = stop(&repo);
    assert_eq!(changed(&repo, "HEAD"), "a.txt\nlocal/tracked.cfg", "{err}");
    let tree = repo.git(&["ls-tree", "-r", "--name-only", "HEAD"]);
    assert!(!tree.contains(".env") && !tree.contains("pyvenv"), "{tree}");
    for path in [".env", ".venv/pyvenv.cfg"] {
        assert!(
            err.contains("ignored by git") && err.contains(path),
            "stderr names {path}: {err}"
        );
    }
    assert!(err.contains("not committed"), "{err}");
    assert!(!err.contains("local/tracked.cfg (ignored"), "{err}");
    assert_eq!(repo.read(".env"), "API_KEY=sk-secret\n");
    assert_eq!(repo.status(), "");
    // The agent's own notes never name the key.
    let log = repo.git(&["notes", "--ref", "ai", "show", "HEAD"]);
    assert!(!log.contains(".env"), "{log}");
    undo_turn(&repo, &initial, || {
        !repo.exists(".env")
            && repo.read(".venv/pyvenv.cfg") == "home = /usr/bin\n"
            && repo.read("a.txt") == "a\n"
    });
    assert_eq!(repo.read("local/tracked.cfg"), "x = 1\n");
    repo.assert_fsck();
}

/// 50.6: the user's untracked file the agent edited stays out of the turn commit (the
/// user's private lines never enter a commit), Stop says so, and the agent's lines are
/// credited when the user commits the file.
#[test]
fn the_users_untracked_file_the_agent_edited_stays_out_and_its_lines_are_credited_later() {
    let mut repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    with_clada_hooks(&mut repo);
    repo.write("notes.txt", "my private line\nanother of mine\n");
    agent_write(
        &repo,
        "toolu_1",
        "notes.txt",
        "my private line\nanother of mine\nby the agent\n",
    );
    agent_write(&repo, "toolu_2", "a.txt", "a by agent\n");
    agent_write(&repo, "toolu_3", "new.txt", "created by the agent\n");
    let err = stop(&repo);
    assert_eq!(changed(&repo, "HEAD"), "a.txt\nnew.txt", "{err}");
    assert!(
        err.contains("notes.txt") && err.contains("untracked") && err.contains("not committed"),
        "{err}"
    );
    assert_eq!(repo.status(), "?? notes.txt\n");
    assert_eq!(
        repo.read("notes.txt"),
        "my private line\nanother of mine\nby the agent\n"
    );
    // The agent's line stays recorded until someone commits it; it is part of the turn, not
    // an uncommitted call that `undo --list` offers.
    assert_ne!(repo.git(&["for-each-ref", "refs/clada/agent/"]), "");
    let list = repo.clada(&["undo", "--list"]);
    let list = String::from_utf8_lossy(&list.stdout).to_string();
    assert!(!list.contains("left out"), "{list}");
    // The user commits the file: the agent's line is credited to it, the user's are theirs.
    repo.git(&["add", "notes.txt"]);
    repo.git(&["commit", "-qm", "my notes"]);
    assert_eq!(logged_lines(&repo, "HEAD", "notes.txt"), "3");
    let log = repo.git(&["notes", "--ref", "ai", "show", "HEAD"]);
    assert!(log.contains("\"tool\": \"claude\""), "{log}");
    assert_eq!(repo.git(&["for-each-ref", "refs/clada/agent/"]), "");
    repo.assert_fsck();
}

/// 50.6 with undo: the turn's record holds the user's untracked file, so undo of the turn
/// puts the user's version back; the agent's lines kept for it go with it, and the next
/// turn says nothing more of the file.
#[test]
fn undo_of_the_turn_puts_the_users_untracked_file_back_and_the_next_turn_is_silent_on_it() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let initial = repo.head();
    repo.write("notes.txt", "mine\n");
    agent_write(&repo, "toolu_1", "notes.txt", "mine\nby the agent\n");
    agent_write(&repo, "toolu_2", "a.txt", "a by agent\n");
    let err = stop(&repo);
    assert_eq!(changed(&repo, "HEAD"), "a.txt", "{err}");
    undo_turn(&repo, &initial, || {
        repo.read("notes.txt") == "mine\n" && repo.read("a.txt") == "a\n"
    });
    assert_eq!(repo.status(), "?? notes.txt\n");
    agent_write(&repo, "toolu_3", "b.txt", "b\n");
    let err = stop(&repo);
    assert!(!err.contains("notes.txt"), "{err}");
    assert_eq!(changed(&repo, "HEAD"), "b.txt");
    assert_eq!(repo.git(&["for-each-ref", "refs/clada/agent/"]), "");
    repo.assert_fsck();
}

/// 50.7: the user's edit next to one of the agent's hunks keeps that hunk out of the turn
/// commit, named with its lines; the agent's hunk far away is committed, and the log lists
/// exactly the committed lines. The hunk left out is credited when the user commits it.
#[test]
fn a_users_edit_next_to_the_agents_hunk_leaves_out_only_that_hunk() {
    let mut repo = TestRepo::new();
    with_clada_hooks(&mut repo);
    let original: Vec<String> = (1..=300).map(|i| format!("line {i}\n")).collect();
    repo.write("a.txt", &original.concat());
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-qm", "initial"]);
    let mut agent = original.clone();
    agent[4] = "line 5 by the agent\n".into();
    agent[249] = "line 250 by the agent\n".into();
    agent_write(&repo, "toolu_1", "a.txt", &agent.concat());
    // The user edits line 6, next to the agent's line 5, after the agent's call.
    let mut now = agent.clone();
    now[5] = "line 6 by the user\n".into();
    repo.write("a.txt", &now.concat());
    let err = stop(&repo);
    let mut committed = original.clone();
    committed[249] = "line 250 by the agent\n".into();
    assert_eq!(
        repo.git(&["show", "HEAD:a.txt"]),
        committed.concat(),
        "{err}"
    );
    assert_eq!(repo.read("a.txt"), now.concat());
    assert_eq!(logged_lines(&repo, "HEAD", "a.txt"), "250");
    assert!(
        err.contains("a.txt line 5") && err.contains("touches your edit"),
        "{err}"
    );
    // The user commits the file: the agent's line 5 is credited, the user's line 6 is not.
    repo.git(&["commit", "-qam", "mine"]);
    assert_eq!(logged_lines(&repo, "HEAD", "a.txt"), "5");
    assert_eq!(repo.git(&["for-each-ref", "refs/clada/agent/"]), "");
    repo.assert_fsck();
}

/// 51.6: a contained pre-commit hook's `git add -A` does not put the user's uncommitted and
/// untracked files into the AI commit: only the paths the apply changed are taken from the
/// hook's index, the others are named; a hook file among them stops the commit (⏸).
#[test]
fn a_hooks_git_add_takes_only_the_applys_paths_and_a_hook_file_pauses_the_commit() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n"), ("u.txt", "u\n")]);
    repo.write(".git/hooks/pre-commit", "#!/bin/sh\ngit add -A\n");
    repo.set_executable(".git/hooks/pre-commit");
    repo.write("u.txt", "u\nmy uncommitted line\n");
    repo.write("notes.txt", "my untracked notes\n");
    let out = repo.apply(&replace_block("h01", "a.txt", "a", "a by the AI"), &[]);
    assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
    assert_eq!(changed(&repo, "HEAD"), "a.txt");
    assert_eq!(repo.status(), " M u.txt\n?? notes.txt\n");
    let v = TestRepo::report(&out);
    let warnings = v["warnings"].to_string();
    assert!(
        warnings.contains("u.txt")
            && warnings.contains("notes.txt")
            && warnings.contains("left out"),
        "{v}"
    );

    // An untracked hook file the hook stages: the commit waits for the user.
    repo.write(".husky/pre-push", "#!/bin/sh\necho planted\n");
    let head = repo.head();
    let out = repo.apply(
        &replace_block("h02", "a.txt", "a by the AI", "a again"),
        &[],
    );
    assert_eq!(exit_code(&out), 1, "{}", output_text(&out));
    assert_eq!(repo.head(), head);
    let v = TestRepo::report(&out);
    let paused = v["steps"]
        .as_array()
        .and_then(|s| s.iter().find(|x| !x["needsUser"].is_null()))
        .unwrap_or_else(|| panic!("no ⏸ step: {v}"));
    assert!(paused.to_string().contains(".husky/pre-push"), "{v}");
    let staged = repo.git(&["diff", "--cached", "--name-only"]);
    assert_eq!(staged, "", "nothing the hook staged stays staged");
    assert_eq!(repo.read("a.txt"), "a again\n");
    repo.assert_fsck();
}
