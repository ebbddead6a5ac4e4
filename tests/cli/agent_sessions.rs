//! Where an agent session's edits are recorded, and when edits no hook reported are named
//! (issue 50 items 8 and 12): the payloads recorded from Claude Code 2.1.332 and Codex 0.171.0
//! (tests/fixtures/agent-hooks/<agent>/recorded/, the file, command or patch set to each
//! test's) piped to the real binary in real repositories, checked with git. A session started in a
//! folder holding several repositories records each path in its own repository and commits
//! each one's turn there; an edit no hook reported is named at the session's next hook, not
//! only at the end of the turn.

use crate::common;

use std::process::Output;

use common::agent_fixtures::recorded;
use common::{exit_code, output_text, spawn_fed, TestRepo};

/// Runs `git clada agent-hook AGENT` with `input`; it must not fail. Its stderr.
fn hook(repo: &TestRepo, agent: &str, input: &str) -> String {
    let mut cmd = repo.clada_cmd();
    cmd.args(["agent-hook", agent]);
    let out: Output = spawn_fed(cmd, input).wait_with_output().expect("run hook");
    assert_eq!(exit_code(&out), 0, "hook failed: {}", output_text(&out));
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A folder that is no repository, holding the repositories `names`, each with one commit
/// of `a.txt` and `u.txt`. The payloads run in it (their `cwd`).
fn parent_of(names: &[&str]) -> TestRepo {
    let parent = TestRepo::new();
    std::fs::remove_dir_all(parent.path().join(".git")).expect("remove .git");
    for r in names {
        parent.git(&["init", "-q", "-b", "main", r]);
        parent.write(&format!("{r}/a.txt"), "a\n");
        parent.write(&format!("{r}/u.txt"), "u\n");
        parent.git(&["-C", r, "add", "-A"]);
        parent.git(&["-C", r, "commit", "-qm", "initial"]);
    }
    parent
}

/// One Write tool call of Claude Code (its recorded payloads) on `file` by absolute path,
/// run in `cwd` (the payload's `{ROOT}` when `None`); both hooks' stderr.
fn write(repo: &TestRepo, id: &str, file: &str, content: &str, cwd: Option<&str>) -> String {
    let path = repo.path().join(file).display().to_string();
    let mut set = vec![
        ("tool_input.file_path", path.as_str()),
        ("tool_input.content", content),
    ];
    set.extend(cwd.map(|c| ("cwd", c)));
    let pre = recorded(repo, "claude-code", "PreToolUse.write", id, &set);
    let said = hook(repo, "claude-code", &pre);
    repo.write(file, content);
    let post = recorded(repo, "claude-code", "PostToolUse.write", id, &set);
    said + &hook(repo, "claude-code", &post)
}

/// One shell call of `agent` (its recorded payloads) running `command` with `sh` in the
/// payload's folder; both hooks' stderr.
fn shell(repo: &TestRepo, agent: &str, id: &str, command: &str) -> String {
    let set = [("tool_input.command", command)];
    let said = hook(
        repo,
        agent,
        &recorded(repo, agent, "PreToolUse.bash", id, &set),
    );
    let sh = repo
        .command("sh")
        .args(["-c", command])
        .output()
        .expect("sh");
    assert!(sh.status.success(), "{command}: {}", output_text(&sh));
    said + &hook(
        repo,
        agent,
        &recorded(repo, agent, "PostToolUse.bash", id, &set),
    )
}

/// The end of the turn (the recorded `Stop`), run in `cwd` (else the payload's `{ROOT}`).
fn stop(repo: &TestRepo, agent: &str, cwd: Option<&str>) -> String {
    let set: Vec<(&str, &str)> = cwd.map(|c| ("cwd", c)).into_iter().collect();
    hook(repo, agent, &recorded(repo, agent, "Stop", "", &set))
}

fn git_in(parent: &TestRepo, repo: &str, args: &[&str]) -> String {
    let mut all = vec!["-C", repo];
    all.extend_from_slice(args);
    parent.git(&all)
}

fn changed(parent: &TestRepo, repo: &str, rev: &str) -> String {
    git_in(
        parent,
        repo,
        &["diff-tree", "--no-commit-id", "--name-only", "-r", rev],
    )
    .trim_end()
    .to_string()
}

/// 50.8: a session in a folder holding three repositories edits two of them by absolute
/// path and through a shell call in the folder: each repository's edits are recorded there,
/// the shell call says what it compares, and the end of the turn commits each one's turn in
/// it; the third is not touched, the user's edit stays theirs.
#[test]
fn a_session_in_a_parent_folder_records_and_commits_each_repositorys_turn_in_it() {
    let parent = parent_of(&["r1", "r2", "r3"]);
    parent.write("r1/u.txt", "u\nmine\n");
    write(&parent, "toolu_1", "r1/a.txt", "a\nby agent in r1\n", None);
    write(&parent, "toolu_2", "r2/b.txt", "new in r2\n", None);
    let said = shell(
        &parent,
        "claude-code",
        "toolu_3",
        "printf 'more\\n' >> r2/a.txt",
    );
    assert!(said.contains("in no git repository"), "{said}");
    for r in ["r1", "r2"] {
        assert!(
            said.contains(&parent.path().join(r).display().to_string()),
            "{said}"
        );
    }
    let err = stop(&parent, "claude-code", None);
    assert!(
        err.contains("r1") && err.contains("r2") && err.contains("AI commit"),
        "{err}"
    );
    assert_eq!(changed(&parent, "r1", "HEAD"), "a.txt", "{err}");
    assert_eq!(changed(&parent, "r2", "HEAD"), "a.txt\nb.txt", "{err}");
    assert_eq!(git_in(&parent, "r2", &["show", "HEAD:a.txt"]), "a\nmore\n");
    for r in ["r1", "r2"] {
        let log = git_in(&parent, r, &["notes", "--ref", "ai", "show", "HEAD"]);
        assert!(log.contains("\"tool\": \"claude\""), "{r}: {log}");
        assert!(!log.contains("u.txt"), "{r}: {log}");
    }
    assert_eq!(
        git_in(&parent, "r1", &["status", "--porcelain"]),
        " M u.txt\n"
    );
    assert_eq!(git_in(&parent, "r2", &["status", "--porcelain"]), "");
    assert_eq!(
        git_in(&parent, "r3", &["rev-list", "--count", "HEAD"]).trim(),
        "1"
    );
    assert_eq!(git_in(&parent, "r3", &["for-each-ref", "refs/clada/"]), "");
    for r in ["r1", "r2", "r3"] {
        git_in(&parent, r, &["fsck", "--strict"]);
    }
}

/// 50.8: a session in one repository that edits a sibling repository's file by absolute
/// path: the sibling's edit is recorded there, and the end of the turn, run in the first
/// repository, commits the sibling's turn in the sibling.
#[test]
fn a_session_reaching_into_a_sibling_repository_commits_its_turn_there_too() {
    let parent = parent_of(&["r1", "r2"]);
    let r1 = parent.path().join("r1").display().to_string();
    let r2 = parent.path().join("r2").display().to_string();
    write(
        &parent,
        "toolu_1",
        "r2/a.txt",
        "a\nby agent from r1\n",
        Some(&r1),
    );
    write(
        &parent,
        "toolu_2",
        "r1/a.txt",
        "a\nby agent in r1\n",
        Some(&r1),
    );
    let err = stop(&parent, "claude-code", Some(&r1));
    assert_eq!(changed(&parent, "r1", "HEAD"), "a.txt", "{err}");
    assert_eq!(changed(&parent, "r2", "HEAD"), "a.txt", "{err}");
    assert_eq!(
        git_in(&parent, "r2", &["show", "HEAD:a.txt"]),
        "a\nby agent from r1\n"
    );
    assert!(err.contains(&r2), "{err}");
    for r in ["r1", "r2"] {
        assert_eq!(git_in(&parent, r, &["status", "--porcelain"]), "", "{r}");
    }
}

/// 50.12: Codex edits with apply_patch calls that fire no hook. The session's next hook
/// names what changed since its last one: an apply_patch's before hook the agent's own file
/// it had edited, a shell call's before hook every other path (from the status it takes
/// anyway); the end of the turn does not name them again, and none is committed.
#[test]
fn edits_no_hook_reported_are_named_at_the_next_hook() {
    let lines = "1\n2\n3\n4\n5\n6\n7\n";
    let repo = TestRepo::with_files(&[("a.txt", lines), ("b.txt", "b\n")]);
    let patch = |body: &str| {
        format!("*** Begin Patch\n*** Update File: a.txt\n@@\n{body}\n*** End Patch\n")
    };
    let applied = |id: &str, patch: &str, content: &str| -> String {
        let set = [("tool_input.command", patch)];
        let pre = recorded(&repo, "codex", "PreToolUse.apply-patch-update", id, &set);
        let said = hook(&repo, "codex", &pre);
        repo.write("a.txt", content);
        let post = recorded(&repo, "codex", "PostToolUse.apply-patch-update", id, &set);
        said + &hook(&repo, "codex", &post)
    };
    let first = lines.replace("1\n", "1 codex\n");
    applied("call_1", &patch("-1\n+1 codex"), &first);
    // apply_patch calls that fired no hook.
    let unreported = first.replace("7\n", "7 unreported\n");
    repo.write("a.txt", &unreported);
    repo.write("b.txt", "b by codex, unreported\n");
    repo.write("n.txt", "new, unreported\n");
    let said = applied(
        "call_2",
        &patch("-3\n+3 codex"),
        &unreported.replace("3\n", "3 codex\n"),
    );
    assert!(
        said.contains("no hook reporting it") && said.contains("a.txt"),
        "{said}"
    );
    assert!(!said.contains("b.txt") && !said.contains("n.txt"), "{said}");
    let said = shell(&repo, "codex", "call_3", "true");
    assert!(said.contains("no hook reporting it"), "{said}");
    assert!(
        said.contains("b.txt, n.txt") && !said.contains("a.txt"),
        "{said}"
    );
    let err = stop(&repo, "codex", None);
    assert!(!err.contains("no hook reporting it"), "{err}");
    assert_eq!(
        repo.git(&["diff-tree", "--no-commit-id", "--name-only", "-r", "HEAD"]),
        "a.txt\n"
    );
    // The agent's two reported changes are committed; the unreported one is not.
    assert_eq!(
        repo.git(&["show", "HEAD:a.txt"]),
        "1 codex\n2\n3 codex\n4\n5\n6\n7\n"
    );
    assert_eq!(repo.status(), " M a.txt\n M b.txt\n?? n.txt\n");
    assert_eq!(
        repo.git(&["diff", "-U0", "a.txt"])
            .lines()
            .filter(|l| l.starts_with('+') && !l.starts_with("+++"))
            .collect::<Vec<_>>(),
        ["+7 unreported"]
    );
    repo.assert_fsck();
}
