//! The agent's own git commands in its shell tool (issue 50 item 5): the Bash payloads
//! recorded from Claude Code 2.1.332 and Codex 0.171.0 (tests/fixtures/agent-hooks/<agent>/
//! recorded/, the command set to the one each test runs) piped to the real binary around
//! real git commands in real repositories, checked with git. A shell call's before and after
//! include the index, HEAD and the stash: the agent's `git add` of its edit and its `git mv`
//! enter the turn's commit, the user's content an agent's `git add -A` staged stays staged
//! and the user's, a branch switch commits the turn so far on the old branch and records the
//! rest on the new one, and the agent's edits it stashes stay its own.

use crate::common;

use std::process::Output;

use common::agent_fixtures::{attested, recorded};
use common::{exit_code, output_text, spawn_fed, TestRepo};

fn hook(repo: &TestRepo, agent: &str, input: &str) -> Output {
    let mut cmd = repo.clada_cmd();
    cmd.args(["agent-hook", agent]);
    let out = spawn_fed(cmd, input).wait_with_output().expect("run hook");
    assert_eq!(exit_code(&out), 0, "hook failed: {}", output_text(&out));
    out
}

/// One shell call of `agent` running `command`: its recorded before hook, the command run by
/// `sh` in the repository, its recorded after hook; the after hook's stderr.
fn shell(repo: &TestRepo, agent: &str, id: &str, command: &str) -> String {
    let set = [("tool_input.command", command)];
    hook(
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
    let out = hook(
        repo,
        agent,
        &recorded(repo, agent, "PostToolUse.bash", id, &set),
    );
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// One Write tool call of Claude Code (its recorded payloads, on `file`).
fn write(repo: &TestRepo, id: &str, file: &str, content: &str) {
    let path = repo.path().join(file).display().to_string();
    let set = [
        ("tool_input.file_path", path.as_str()),
        ("tool_input.content", content),
    ];
    hook(
        repo,
        "claude-code",
        &recorded(repo, "claude-code", "PreToolUse.write", id, &set),
    );
    repo.write(file, content);
    hook(
        repo,
        "claude-code",
        &recorded(repo, "claude-code", "PostToolUse.write", id, &set),
    );
}

/// The end of the turn (the recorded `Stop`); its stderr.
fn stop(repo: &TestRepo, agent: &str) -> String {
    let out = hook(repo, agent, &recorded(repo, agent, "Stop", "", &[]));
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn changed(repo: &TestRepo, rev: &str) -> String {
    repo.git(&["diff-tree", "--no-commit-id", "--name-only", "-r", rev])
        .trim_end()
        .to_string()
}

fn note(repo: &TestRepo, rev: &str) -> String {
    repo.git(&["notes", "--ref", "ai", "show", rev])
}

/// Each file's attested line ranges in the log on `rev`.
fn lines(repo: &TestRepo, rev: &str) -> Vec<(String, String)> {
    attested(&note(repo, rev))
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

/// The agent stages its edit with `git add -A`, which also stages the user's uncommitted
/// edit: the turn's commit holds the agent's edit alone (attributed), the user's edit stays
/// staged as it was, and nothing of it is claimed.
#[test]
fn the_agents_git_add_enters_its_turn_and_the_users_edit_it_staged_stays_staged() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n"), ("u.txt", "u\n")]);
    let initial = repo.head();
    repo.write("u.txt", "u\nmine\n");
    shell(
        &repo,
        "claude-code",
        "toolu_add",
        "printf 'a\\nby agent\\n' > a.txt && git add -A",
    );
    let err = stop(&repo, "claude-code");
    assert_eq!(
        repo.git(&["rev-parse", "HEAD~1"]).trim_end(),
        initial,
        "{err}"
    );
    assert_eq!(changed(&repo, "HEAD"), "a.txt", "{err}");
    assert_eq!(repo.git(&["show", "HEAD:a.txt"]), "a\nby agent\n");
    assert_eq!(lines(&repo, "HEAD"), pairs(&[("a.txt", "2")]));
    // The user's edit: staged as the agent's `git add -A` left it, not committed.
    assert_eq!(repo.status(), "M  u.txt\n");
    assert_eq!(repo.git(&["show", ":u.txt"]), "u\nmine\n");
    assert_eq!(repo.git(&["for-each-ref", "refs/clada/agent/"]), "");
    repo.assert_fsck();
}

/// Codex's shell call staging a file it created, then a second one changing it again: the turn's commit holds the file as the agent left it, the index
/// clean.
#[test]
fn codex_stages_a_new_file_then_changes_it_and_the_turn_commits_its_last_version() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let cmd = "printf 'one\\n' > new.txt && git add new.txt";
    shell(&repo, "codex", "call_1", cmd);
    shell(&repo, "codex", "call_2", "printf 'two\\n' >> new.txt");
    let err = stop(&repo, "codex");
    assert_eq!(changed(&repo, "HEAD"), "new.txt", "{err}");
    assert_eq!(repo.git(&["show", "HEAD:new.txt"]), "one\ntwo\n");
    assert_eq!(repo.status(), "", "{err}");
    let log = note(&repo, "HEAD");
    assert!(log.contains("\"tool\": \"codex\""), "{log}");
    assert!(log.contains("\"model\": \"gpt-5.5\""), "{log}");
    assert_eq!(lines(&repo, "HEAD"), pairs(&[("new.txt", "1-2")]));
    repo.assert_fsck();
}

/// `git mv a b && sed -i … b`: a move of the agent's. The turn's commit holds the rename,
/// and only the line sed changed is the agent's.
#[test]
fn the_agents_git_mv_and_edit_is_a_rename_in_its_turn_with_only_its_line_attributed() {
    let body = "alpha\nbeta\ngamma\ndelta\nepsilon\nzeta\neta\ntheta\n";
    let repo = TestRepo::with_files(&[("b.txt", body), ("u.txt", "u\n")]);
    repo.write("u.txt", "u\nmine\n");
    let cmd = "git mv b.txt c.txt && sed -i 's/^beta$/beta (agent)/' c.txt";
    shell(&repo, "claude-code", "toolu_mv", cmd);
    let err = stop(&repo, "claude-code");
    assert!(!err.contains("changed type"), "{err}");
    assert!(err.contains("AI commit"), "{err}");
    let renamed = repo.git(&["show", "-M", "--name-status", "--format=", "HEAD"]);
    assert!(
        renamed.starts_with('R') && renamed.trim_end().ends_with("b.txt\tc.txt"),
        "{renamed}"
    );
    assert_eq!(
        repo.git(&["show", "HEAD:c.txt"]),
        body.replace("beta\n", "beta (agent)\n")
    );
    assert_eq!(lines(&repo, "HEAD"), pairs(&[("c.txt", "2")]));
    assert_eq!(repo.status(), " M u.txt\n");
    repo.assert_fsck();
}

/// `git checkout -b fix` in the middle of a turn: the turn so far is committed on `main`,
/// the switching call's edit and the rest of the turn on `fix`, and stderr names both.
#[test]
fn a_branch_switch_commits_the_turn_so_far_on_the_old_branch_and_records_on_the_new() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n"), ("b.txt", "b\n"), ("u.txt", "u\n")]);
    let initial = repo.head();
    repo.write("u.txt", "u\nmine\n");
    shell(
        &repo,
        "claude-code",
        "toolu_1",
        "printf 'a\\nby agent\\n' > a.txt",
    );
    let said = shell(
        &repo,
        "claude-code",
        "toolu_2",
        "git checkout -q -b fix && printf 'b\\nby agent\\n' > b.txt",
    );
    assert!(!said.contains("did not run"), "{said}");
    assert!(
        said.contains("branch main") && said.contains("branch fix") && said.contains("AI commit"),
        "{said}"
    );
    write(&repo, "toolu_3", "c.txt", "new on fix\n");
    let err = stop(&repo, "claude-code");
    // main: the turn until the switch.
    assert_eq!(repo.git(&["rev-parse", "main~1"]).trim_end(), initial);
    assert_eq!(changed(&repo, "main"), "a.txt");
    assert_eq!(lines(&repo, "main"), pairs(&[("a.txt", "2")]));
    assert!(note(&repo, "main").contains("\"tool\": \"claude\""));
    // fix: the rest of the turn.
    assert_eq!(
        repo.git(&["rev-parse", "HEAD~1"]).trim_end(),
        initial,
        "{err}"
    );
    assert_eq!(changed(&repo, "HEAD"), "b.txt\nc.txt", "{err}");
    assert_eq!(
        repo.git(&["symbolic-ref", "--short", "HEAD"]).trim_end(),
        "fix"
    );
    // The user's edit is nobody's commit; the agent's edit of a.txt, committed on main,
    // came along with the checkout, uncommitted on fix.
    assert_eq!(repo.status(), " M a.txt\n M u.txt\n");
    assert_eq!(repo.git(&["for-each-ref", "refs/clada/agent/"]), "");
    repo.assert_fsck();
}

/// `git mv b.txt c.txt && sed -i …`, then `git checkout -b fix` (seen under the real Claude
/// Code, Codex and Gemini CLI, tests/cli/real_agents.rs): the commit of the turn so far on
/// `main` holds the rename, b.txt gone, though fix's index, which the checkout left, does
/// not hold b.txt; b.txt is not called the user's untracked file.
#[test]
fn a_branch_switch_after_the_agents_git_mv_commits_the_rename_on_the_old_branch() {
    let body = "alpha\nbeta\ngamma\ndelta\n";
    let repo = TestRepo::with_files(&[("b.txt", body), ("u.txt", "u\n")]);
    let initial = repo.head();
    let mv = "git mv b.txt c.txt && sed -i 's/^gamma$/gamma (agent)/' c.txt";
    let mut said = shell(&repo, "claude-code", "toolu_1", mv);
    said += &shell(&repo, "claude-code", "toolu_2", "git checkout -q -b fix");
    assert!(!said.contains("untracked"), "{said}");
    let err = stop(&repo, "claude-code");
    assert_eq!(repo.git(&["rev-parse", "main~1"]).trim_end(), initial);
    let renamed = repo.git(&["show", "-M", "--name-status", "--format=", "main"]);
    assert!(
        renamed.starts_with('R') && renamed.trim_end().ends_with("b.txt\tc.txt"),
        "{renamed}{said}{err}"
    );
    assert_eq!(
        repo.git(&["show", "main:c.txt"]),
        body.replace("gamma\n", "gamma (agent)\n")
    );
    assert_eq!(lines(&repo, "main"), pairs(&[("c.txt", "3")]));
    // fix has nothing of its own; the rename came along with the checkout, uncommitted.
    assert_eq!(repo.git(&["rev-parse", "fix"]).trim_end(), initial, "{err}");
    assert_eq!(repo.status(), "RM b.txt -> c.txt\n");
    assert_eq!(repo.git(&["for-each-ref", "refs/clada/agent/"]), "");
    repo.assert_fsck();
}

/// The agent stashes its edit (with the user's) and ends its turn: nothing is committed,
/// the user's edit is not claimed; the agent's stashed edit stays its own, and when the user
/// pops the stash and commits, the commit's log credits the agent's line only.
#[test]
fn the_agents_stashed_edit_stays_its_own_until_the_user_pops_and_commits_it() {
    let mut repo = TestRepo::with_files(&[("a.txt", "a\n"), ("u.txt", "u\n")]);
    repo.env.push(("PATH".into(), common::path_with_clada(&[])));
    let out = repo.clada(&["hooks", "install"]);
    assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
    let initial = repo.head();
    repo.write("u.txt", "u\nmine\n");
    shell(
        &repo,
        "claude-code",
        "toolu_1",
        "printf 'a\\nby agent\\n' > a.txt",
    );
    shell(&repo, "claude-code", "toolu_2", "git stash -q");
    let err = stop(&repo, "claude-code");
    assert_eq!(repo.head(), initial, "{err}");
    assert_eq!(repo.status(), "");
    repo.git(&["stash", "pop", "-q"]);
    repo.git(&["commit", "-qam", "mine"]);
    assert_eq!(lines(&repo, "HEAD"), pairs(&[("a.txt", "2")]));
    assert!(note(&repo, "HEAD").contains("\"tool\": \"claude\""));
    assert_eq!(repo.git(&["for-each-ref", "refs/clada/agent/"]), "");
    repo.assert_fsck();
}

/// The agent stashes its edit together with the user's and ends its turn; in its next turn
/// it pops the stash: the agent's edit is committed as its own then, the user's edit that
/// went through the stash with it comes back the user's, uncommitted and unclaimed.
#[test]
fn a_stash_popped_in_the_next_turn_gives_the_agent_its_edit_and_the_user_theirs() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n"), ("u.txt", "u\n")]);
    let initial = repo.head();
    repo.write("u.txt", "u\nmine\n");
    shell(
        &repo,
        "claude-code",
        "toolu_1",
        "printf 'a\\nby agent\\n' > a.txt",
    );
    shell(&repo, "claude-code", "toolu_2", "git stash -q");
    let err = stop(&repo, "claude-code");
    assert_eq!(repo.head(), initial, "{err}");
    assert_eq!(repo.status(), "");
    shell(&repo, "claude-code", "toolu_3", "git stash pop -q");
    let err = stop(&repo, "claude-code");
    assert_eq!(
        repo.git(&["rev-parse", "HEAD~1"]).trim_end(),
        initial,
        "{err}"
    );
    assert_eq!(changed(&repo, "HEAD"), "a.txt", "{err}");
    assert_eq!(lines(&repo, "HEAD"), pairs(&[("a.txt", "2")]));
    assert_eq!(repo.status(), " M u.txt\n");
    assert_eq!(repo.read("u.txt"), "u\nmine\n");
    assert_eq!(repo.git(&["for-each-ref", "refs/clada/agent/"]), "");
    repo.assert_fsck();
}
