//! A day's use under the real agents (issue 50, "Real parts"): each scenario played by each
//! CLI with the tool it has, git-clada's hooks installed and trusted as `agent-hook install`
//! leaves them, and checked with git. To keep the suite short, one turn holds the rules
//! that do not exclude each other (a failing shell call, an ignored file, the user's
//! untracked file, a human edit next to the agent's); a turn the repository's pre-commit
//! hook refuses is a turn of its own, so are tool calls left uncommitted (`agent.commit:
//! none`), and two sessions at once run the three CLIs together. Undo and redo are checked
//! on what each turn leaves: a turn's undo refused where the user's edit touches the
//! agent's lines, a pending turn and the commit `git clada commit` makes of it taken back
//! and put back whole, uncommitted tool calls one by one. (The ordinary turn's undo and redo
//! are in `real_agents.rs`.) The agent's own `git add`, `git mv` and branch switch are one
//! turn, and a session started in a folder holding two repositories another.
//!
//! What git-clada's hooks print on stderr is read where each CLI shows it: Claude Code in
//! its debug log (`--debug-file`), Gemini CLI on its own stderr ("Hook system message");
//! Codex's `exec` shows a hook's output nowhere, so for Codex only the repository is checked.

use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use serde_json::{json, Value};

use super::common::{self, TestRepo};
use super::model_server::{Action, ModelServer, Step};
use super::{
    context, finish, install, run, start, Agent, Run, CLAUDE, CODEX_AGENT, FAILING, GEMINI, SED,
};

/// `line 1` … `line N`, one a line.
fn numbered(n: usize) -> String {
    (1..=n).map(|i| format!("line {i}\n")).collect()
}

/// `text` with its line `old` replaced by `new` (each once, exactly).
fn with_line(text: &str, old: &str, new: &str) -> String {
    let from = format!("\n{old}\n");
    assert_eq!(text.matches(&from).count(), 1, "{old:?} once in the text");
    text.replacen(&from, &format!("\n{new}\n"), 1)
}

/// The Claude Code debug log a run writes (`--debug-file`), under the test's HOME.
fn claude_debug_log(repo: &TestRepo) -> std::path::PathBuf {
    repo.home.path().join("claude-debug.log")
}

/// The agent's headless command for this turn: Claude Code also writes its debug log, where
/// it shows what the hooks print.
fn command(agent: &Agent, repo: &TestRepo, server: &ModelServer) -> std::process::Command {
    let mut cmd = (agent.command)(repo, server);
    if agent.name == CLAUDE.name {
        cmd.arg("--debug-file").arg(claude_debug_log(repo));
    }
    cmd
}

/// What git-clada's hooks printed on stderr, as the CLI shows it; `None` for Codex, whose
/// `exec` does not show it.
fn hook_output(agent: &Agent, repo: &TestRepo, run: &Run) -> Option<String> {
    match agent.name {
        "claude-code" => Some(std::fs::read_to_string(claude_debug_log(repo)).unwrap_or_default()),
        "gemini" => Some(run.stderr.clone()),
        _ => None,
    }
}

/// The agent's checkpoints left in `refs/clada/agent/main` (its `state.json`).
fn agent_state(repo: &TestRepo) -> Value {
    let out = repo.git_output(&["show", "refs/clada/agent/main:state.json"]);
    if !out.status.success() {
        return Value::Null;
    }
    serde_json::from_slice(&out.stdout).expect("state.json is JSON")
}

/// The `(path, lines)` of every checkpoint marked `left_out` in the agent's state.
fn left_out(state: &Value) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for cp in state["checkpoints"].as_array().into_iter().flatten() {
        if cp["left_out"] != true {
            continue;
        }
        for ch in cp["changes"].as_array().into_iter().flatten() {
            out.push((
                ch["path"].as_str().unwrap_or_default().to_string(),
                ch["lines"].as_str().unwrap_or_default().to_string(),
            ));
        }
    }
    out.sort();
    out
}

/// The files a commit changed, one a line.
fn changed(repo: &TestRepo, rev: &str) -> String {
    repo.git(&["diff-tree", "--no-commit-id", "--name-only", "-r", rev])
}

/// The lines each file of `rev`'s authorship log attests, as `(path, ranges)`.
fn attested(repo: &TestRepo, rev: &str) -> Vec<(String, String)> {
    common::agent_fixtures::attested(&repo.git(&["notes", "--ref", "ai", "show", rev]))
}

fn pairs(p: &[(&str, &str)]) -> Vec<(String, String)> {
    p.iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

/// `git clada undo` or `redo`, which must succeed.
fn clada_ok(repo: &TestRepo, args: &[&str]) {
    let out = repo.clada(args);
    common::assert_ok(&out, &format!("git clada {}", args.join(" ")));
}

/// The kinds `git clada undo --list` names, newest first.
fn undo_kinds(repo: &TestRepo) -> Vec<String> {
    let out = repo.clada(&["--format", "json", "undo", "--list"]);
    common::assert_ok(&out, "undo --list");
    let list: Value = serde_json::from_slice(&out.stdout).expect("undo --list is JSON");
    list["undo"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|op| op["kind"].as_str().unwrap_or_default().to_string())
        .collect()
}

/// `git clada agent-hook status --format json`'s entry for `agent` (the user's scope).
fn status_of(repo: &TestRepo, agent: &str) -> Value {
    let out = repo
        .clada_cmd()
        .env_remove("GEMINI_CLI_HOME")
        .args(["--format", "json", "agent-hook", "status"])
        .output()
        .expect("run git-clada");
    common::assert_ok(&out, "agent-hook status");
    let report: Value = serde_json::from_slice(&out.stdout).expect("status is JSON");
    report["agents"]
        .as_array()
        .and_then(|a| {
            a.iter()
                .find(|e| e["agent"] == agent && e["scope"] == "user")
                .cloned()
        })
        .unwrap_or_else(|| panic!("no {agent} in {report}"))
}

/// Gemini CLI with folder trust on, as it is by default (the key removed from the user's
/// settings), and the repository trusted the way Gemini CLI records it when the user says
/// so (`~/.gemini/trustedFolders.json`). `status` says not trusted before, trusted after.
fn trust_gemini_folder(repo: &TestRepo) {
    let settings = repo.home.path().join(".gemini/settings.json");
    let mut s: Value =
        serde_json::from_str(&std::fs::read_to_string(&settings).expect("Gemini CLI settings"))
            .expect("JSON");
    s["security"]
        .as_object_mut()
        .expect("security")
        .remove("folderTrust");
    std::fs::write(&settings, s.to_string()).expect("write settings");
    let before = status_of(repo, "gemini");
    assert_eq!(before["trust"]["state"], "not-trusted", "{before}");
    let root = std::fs::canonicalize(repo.path()).expect("canonical path");
    std::fs::write(
        repo.home.path().join(".gemini/trustedFolders.json"),
        json!({ root.display().to_string(): "TRUST_FOLDER" }).to_string(),
    )
    .expect("write trustedFolders.json");
    let after = status_of(repo, "gemini");
    assert_eq!(after["trust"]["state"], "trusted", "{after}");
}

/// The user's configuration, git-clada's hooks for `agent` and git's own (`git clada
/// hooks install`, which `agent-hook install` tells the user to run), as a user sets up.
fn set_up(agent: &Agent, repo: &mut TestRepo, server: &ModelServer) {
    (agent.configure)(repo, server);
    install(repo, agent.name);
    repo.env.push(("PATH".into(), common::path_with_clada(&[])));
    let out = repo.clada(&["hooks", "install"]);
    common::assert_ok(&out, "hooks install");
}

// ---------------------------------------------------------------------------------------
// One turn of the rules that do not exclude each other (issue 50 items 2, 4, 6, 7).

const BIG: usize = 300;

/// The ignored file the agent writes: `.env`, but for Gemini CLI, whose file tools refuse
/// any path with a `.env` segment (0.61.0), a virtual environment's file.
fn ignored_file(agent: &Agent) -> &'static str {
    match agent.name {
        "gemini" => ".venv/pyvenv.cfg",
        _ => ".env",
    }
}

/// The agent edits `big.txt` at line 5 and line 250, writes the ignored `.env`, adds a line
/// to the user's untracked `notes.txt`, and runs a shell command that edits `util.txt`,
/// then fails. While the model answers, the human edits line 6 of `big.txt`, next to the
/// agent's line 5.
fn edges_turn(agent: &Agent) {
    let mut repo = TestRepo::with_files(&[
        ("big.txt", &numbered(BIG)),
        ("util.txt", "alpha\nbeta\n"),
        (".gitignore", ".env\n.venv/\n"),
    ]);
    let ignored = ignored_file(agent);
    let initial = repo.head();
    repo.write("notes.txt", "my private line\n");
    let root = repo.path().to_path_buf();
    let mut script = (agent.edit)(
        &root,
        "big.txt",
        &[
            ("line 5", "line 5 by the agent"),
            ("line 250", "line 250 by the agent"),
        ],
    );
    script.push((agent.create)(&root, ignored, "API_KEY=sk-scripted\n"));
    script.extend((agent.edit)(
        &root,
        "notes.txt",
        &[("my private line", "my private line\nby the agent")],
    ));
    script.push((agent.shell)(FAILING));
    // An edit that fails: its text is not in the file.
    script.extend((agent.edit)(
        &root,
        "util.txt",
        &[("no such line", "never written")],
    ));
    let calls = script.len();
    script.push(Step::answer("Done."));
    let big = root.join("big.txt");
    let human: Action = Box::new(move || {
        let text = std::fs::read_to_string(&big).expect("read big.txt");
        std::fs::write(&big, with_line(&text, "line 6", "line 6 by the user"))
            .expect("write big.txt");
    });
    let server = ModelServer::start_with(agent.api, agent.model, script, vec![(calls, human)]);
    set_up(agent, &mut repo, &server);
    if agent.name == GEMINI.name {
        trust_gemini_folder(&repo);
    }
    let run = run(command(agent, &repo, &server), agent.name, &server);
    let ctx = context(&run, &server);
    assert_eq!(run.code, Some(0), "{} failed\n{ctx}", agent.name);
    assert_eq!(server.tool_results().len(), calls, "{ctx}");
    assert_eq!(server.outside(), Vec::<String>::new(), "{ctx}");
    // `status` heard the turn end.
    let end = if agent.name == GEMINI.name {
        "AfterAgent"
    } else {
        "Stop"
    };
    let heard = status_of(&repo, agent.name);
    assert_eq!(heard["last_heard"]["event"], end, "{heard}\n{ctx}");

    // One AI commit: the far hunk of big.txt and the failing call's edit.
    assert_eq!(repo.git(&["rev-parse", "HEAD~1"]).trim(), initial, "{ctx}");
    assert!(repo.subject("HEAD").starts_with("AI:"), "{ctx}");
    assert_eq!(changed(&repo, "HEAD"), "big.txt\nutil.txt\n", "{ctx}");
    let original = numbered(BIG);
    let far = with_line(&original, "line 250", "line 250 by the agent");
    assert_eq!(repo.git(&["show", "HEAD:big.txt"]), far, "{ctx}");
    assert_eq!(
        repo.git(&["show", "HEAD:util.txt"]),
        "alpha (sed)\nbeta\n",
        "the failing shell call's edit is in the turn commit\n{ctx}"
    );
    assert_eq!(
        attested(&repo, "HEAD"),
        pairs(&[("big.txt", "250"), ("util.txt", "1")]),
        "{ctx}"
    );

    // The ignored file stays written, uncommitted; the untracked one and the hunk next to the
    // human's edit stay in the worktree, the agent's lines recorded.
    assert_eq!(repo.read(ignored), "API_KEY=sk-scripted\n");
    assert_eq!(
        repo.git(&["ls-tree", "-r", "--name-only", "HEAD"]),
        ".gitignore\nbig.txt\nutil.txt\n",
        "{ctx}"
    );
    assert_eq!(repo.status(), " M big.txt\n?? notes.txt\n", "{ctx}");
    assert_eq!(repo.read("notes.txt"), "my private line\nby the agent\n");
    let now = with_line(
        &with_line(&far, "line 5", "line 5 by the agent"),
        "line 6",
        "line 6 by the user",
    );
    assert_eq!(repo.read("big.txt"), now);
    let state = agent_state(&repo);
    assert_eq!(
        left_out(&state),
        pairs(&[("big.txt", "5"), ("notes.txt", "2")]),
        "{state:#}"
    );
    assert_eq!(
        state["open"],
        json!([]),
        "no tool call's before-state is left open after the turn\n{state:#}"
    );
    if let Some(shown) = hook_output(agent, &repo, &run) {
        for said in [
            ignored,
            "ignored by git",
            "notes.txt",
            "untracked",
            "big.txt line 5",
            "touches your edit",
        ] {
            assert!(
                shown.contains(said),
                "the hook's stderr names {said:?}:\n{shown}"
            );
        }
    }

    // One undo of the turn would lose the user's line 6 or the agent's line 5 next to it:
    // it refuses, naming the file and the lines, and changes nothing.
    let before = repo.state();
    let out = repo.clada(&["undo"]);
    let said = common::output_text(&out);
    assert_eq!(common::exit_code(&out), 3, "{said}");
    assert!(said.contains("big.txt lines 5-6"), "{said}");
    common::assert_same_user_state(&repo.state(), &before, "a refused undo");

    // The user commits their files: the agent's lines left out are credited then, the user's
    // are not.
    repo.git(&["add", "big.txt", "notes.txt"]);
    repo.git(&["commit", "-qm", "my edits"]);
    assert_eq!(
        attested(&repo, "HEAD"),
        pairs(&[("big.txt", "5"), ("notes.txt", "2")]),
    );
    assert_eq!(repo.git(&["for-each-ref", "refs/clada/agent/"]), "");
    repo.assert_fsck();
}

#[test]
#[cfg_attr(not(has_agents), ignore = "needs the agent CLIs (scripts/test)")]
fn claude_code_turn_commits_a_failed_call_and_leaves_out_ignored_untracked_and_touching() {
    edges_turn(&CLAUDE);
}

#[test]
#[cfg_attr(not(has_agents), ignore = "needs the agent CLIs (scripts/test)")]
fn codex_turn_commits_a_failed_call_and_leaves_out_ignored_untracked_and_touching() {
    edges_turn(&CODEX_AGENT);
}

/// With Gemini CLI's folder trust on, the repository trusted as the user would.
#[test]
#[cfg_attr(not(has_agents), ignore = "needs the agent CLIs (scripts/test)")]
fn gemini_cli_turn_commits_a_failed_call_and_leaves_out_ignored_untracked_and_touching() {
    edges_turn(&GEMINI);
}

// ---------------------------------------------------------------------------------------
// A turn the repository's pre-commit hook refuses (issue 50 item 10).

/// The hook refuses the turn's commit: nothing is committed, the agent's changes stay in
/// the worktree as pending AI changes beside the user's edit, and once the user fixes what
/// the hook reports, `git clada commit` commits the agent's changes alone.
fn refused_turn(agent: &Agent) {
    let mut repo = TestRepo::with_files(&[("app.txt", "one\ntwo\nthree\n"), ("user.txt", "u\n")]);
    let initial = repo.head();
    let root = repo.path().to_path_buf();
    let mut script = (agent.edit)(&root, "app.txt", &[("two", "two by the agent")]);
    script.push((agent.create)(&root, "new.txt", "created by the agent\n"));
    let calls = script.len();
    script.push(Step::answer("Done."));
    let server = ModelServer::start(agent.api, agent.model, script);
    set_up(agent, &mut repo, &server);
    repo.write(
        ".git/hooks/pre-commit",
        "#!/bin/sh\necho 'lint: app.txt line 2 is not allowed' >&2\nexit 1\n",
    );
    repo.set_executable(".git/hooks/pre-commit");
    repo.write("user.txt", "u\nmine\n");
    let run = run(command(agent, &repo, &server), agent.name, &server);
    let ctx = context(&run, &server);
    assert_eq!(run.code, Some(0), "{} failed\n{ctx}", agent.name);
    assert_eq!(server.tool_results().len(), calls, "{ctx}");

    assert_eq!(repo.head(), initial, "nothing committed\n{ctx}");
    assert_eq!(
        repo.status(),
        " M app.txt\n M user.txt\n?? new.txt\n",
        "{ctx}"
    );
    assert_eq!(repo.read("app.txt"), "one\ntwo by the agent\nthree\n");
    assert_eq!(repo.read("new.txt"), "created by the agent\n");
    if let Some(shown) = hook_output(agent, &repo, &run) {
        for said in [
            "pre-commit",
            "lint: app.txt line 2 is not allowed",
            "git clada commit",
        ] {
            assert!(
                shown.contains(said),
                "the hook's stderr says {said:?}:\n{shown}"
            );
        }
    }

    // The pending turn is one operation: undo takes it back, the user's edit kept; redo puts
    // it back.
    let pending = repo.state();
    assert_eq!(
        undo_kinds(&repo).first().map(String::as_str),
        Some("uncommitted-turn")
    );
    clada_ok(&repo, &["undo"]);
    assert_eq!(repo.head(), initial);
    assert_eq!(repo.status(), " M user.txt\n");
    assert_eq!(repo.read("app.txt"), "one\ntwo\nthree\n");
    clada_ok(&repo, &["redo"]);
    common::assert_same_user_state(&repo.state(), &pending, "redo of the pending turn");

    // Fixed: the agent's changes are committed alone, attributed to the agent.
    repo.write(".git/hooks/pre-commit", "#!/bin/sh\nexit 0\n");
    let out = repo.clada(&["commit"]);
    common::assert_ok(&out, "git clada commit");
    assert_eq!(repo.git(&["rev-parse", "HEAD~1"]).trim(), initial);
    assert_eq!(changed(&repo, "HEAD"), "app.txt\nnew.txt\n");
    assert_eq!(
        repo.git(&["show", "HEAD:app.txt"]),
        "one\ntwo by the agent\nthree\n"
    );
    assert_eq!(repo.status(), " M user.txt\n");
    assert_eq!(
        attested(&repo, "HEAD"),
        pairs(&[("app.txt", "2"), ("new.txt", "1")])
    );
    let log = repo.git(&["notes", "--ref", "ai", "show", "HEAD"]);
    assert!(
        log.contains(&format!("\"tool\": \"{}\"", agent.tool)),
        "{log}"
    );
    assert_eq!(repo.git(&["for-each-ref", "refs/clada/agent/"]), "");

    // That commit is one operation too: one undo takes it back whole, redo puts it back.
    let (commit, committed) = (repo.head(), repo.state());
    assert_eq!(undo_kinds(&repo).first().map(String::as_str), Some("turn"));
    clada_ok(&repo, &["undo"]);
    assert_eq!(repo.head(), initial);
    assert_eq!(repo.status(), " M user.txt\n");
    assert_eq!(repo.read("app.txt"), "one\ntwo\nthree\n");
    assert!(!repo.exists("new.txt"));
    clada_ok(&repo, &["redo"]);
    assert_eq!(repo.head(), commit);
    common::assert_same_user_state(&repo.state(), &committed, "redo of the commit");
    repo.assert_fsck();
}

#[test]
#[cfg_attr(not(has_agents), ignore = "needs the agent CLIs (scripts/test)")]
fn claude_code_turn_the_pre_commit_hook_refuses_stays_pending_until_git_clada_commit() {
    refused_turn(&CLAUDE);
}

#[test]
#[cfg_attr(not(has_agents), ignore = "needs the agent CLIs (scripts/test)")]
fn codex_turn_the_pre_commit_hook_refuses_stays_pending_until_git_clada_commit() {
    refused_turn(&CODEX_AGENT);
}

#[test]
#[cfg_attr(not(has_agents), ignore = "needs the agent CLIs (scripts/test)")]
fn gemini_cli_turn_the_pre_commit_hook_refuses_stays_pending_until_git_clada_commit() {
    refused_turn(&GEMINI);
}

// ---------------------------------------------------------------------------------------
// Sessions at once.

/// How far each session has got: the newest step each agent's server was asked for, and
/// the waits that ran out (the sessions did not overlap as the test meant them to).
#[derive(Default)]
struct Progress {
    reached: Mutex<Vec<(&'static str, usize)>>,
    changed: Condvar,
    late: Mutex<Vec<String>>,
}

/// How long a session waits for another before going on (the test then fails, showing
/// each CLI's output).
const WAIT: Duration = Duration::from_secs(60);

impl Progress {
    fn reach(&self, who: &'static str, step: usize) {
        let mut r = self.reached.lock().expect("progress");
        r.retain(|(w, _)| *w != who);
        r.push((who, step));
        self.changed.notify_all();
    }

    /// Waits until `who` has been asked for `step` (at most `WAIT`).
    fn wait(&self, who: &'static str, step: usize) {
        let r = self.reached.lock().expect("progress");
        let _ = self
            .changed
            .wait_timeout_while(r, WAIT, |r| !r.iter().any(|(w, s)| *w == who && *s >= step))
            .expect("progress");
    }
}

/// One session of `sessions_at_once`: its agent, the line of `shared.txt` it changes, and
/// the file it creates.
struct Session {
    agent: &'static Agent,
    line: usize,
    file: &'static str,
}

const SESSIONS: [Session; 3] = [
    Session {
        agent: &CLAUDE,
        line: 2,
        file: "claude.txt",
    },
    Session {
        agent: &CODEX_AGENT,
        line: 10,
        file: "codex.txt",
    },
    Session {
        agent: &GEMINI,
        line: 18,
        file: "gemini.txt",
    },
];

/// Claude Code, Codex and Gemini CLI in one repository at the same time, each a turn that
/// changes its own line of `shared.txt` and creates a file. The edits of `shared.txt` take
/// turns (each CLI reads the file before it edits, and Claude Code refuses to edit a file
/// changed since it read it); then the three turns end together, their ends racing for the
/// repository. Three AI commits, each exactly its agent's lines.
#[test]
#[cfg_attr(not(has_agents), ignore = "needs the agent CLIs (scripts/test)")]
fn three_agents_at_once_make_three_ai_commits_each_of_its_own_lines() {
    let mut repo = TestRepo::with_files(&[("shared.txt", &numbered(20))]);
    let initial = repo.head();
    let root = repo.path().to_path_buf();
    // Each session's script, the step asked for once its edit of shared.txt is done, and
    // its answer's step.
    let scripts: Vec<(Vec<Step>, usize, usize)> = SESSIONS
        .iter()
        .map(|s| {
            let old = format!("line {}", s.line);
            let new = format!("line {} by {}", s.line, s.agent.name);
            let mut script = (s.agent.edit)(&root, "shared.txt", &[(&old, &new)]);
            let edited = script.len();
            script.push((s.agent.create)(
                &root,
                s.file,
                &format!("by {}\n", s.agent.name),
            ));
            let answer = script.len();
            script.push(Step::answer("Done."));
            (script, edited, answer)
        })
        .collect();
    let answers: Vec<(&'static str, usize)> = SESSIONS
        .iter()
        .zip(&scripts)
        .map(|(s, (_, _, answer))| (s.agent.name, *answer))
        .collect();
    let progress = Arc::new(Progress::default());
    let mut servers = Vec::new();
    for (n, (s, (script, _, answer))) in SESSIONS.iter().zip(&scripts).enumerate() {
        // The session before this one has edited shared.txt before this one starts to.
        let after = n
            .checked_sub(1)
            .map(|prev| (SESSIONS[prev].agent.name, scripts[prev].1));
        let mut actions: Vec<(usize, Action)> = Vec::new();
        for step in 0..=*answer {
            let (p, who, answers, answer) = (
                Arc::clone(&progress),
                s.agent.name,
                answers.clone(),
                *answer,
            );
            actions.push((
                step,
                Box::new(move || {
                    p.reach(who, step);
                    if let (0, Some((prev, at))) = (step, after) {
                        p.wait(prev, at);
                    }
                    // The turns end together: each answer waits for the others' turn.
                    if step == answer {
                        for (other, last) in answers {
                            p.wait(other, last);
                        }
                    }
                }),
            ));
        }
        let server = ModelServer::start_with(s.agent.api, s.agent.model, script.clone(), actions);
        set_up(s.agent, &mut repo, &server);
        servers.push(server);
    }
    let running: Vec<_> = SESSIONS
        .iter()
        .zip(&servers)
        .map(|(s, server)| start(command(s.agent, &repo, server), s.agent.name))
        .collect();
    let runs: Vec<Run> = running
        .into_iter()
        .zip(SESSIONS.iter().zip(&servers))
        .map(|(r, (s, server))| finish(r, s.agent.name, server))
        .collect();
    let ctx: String = SESSIONS
        .iter()
        .zip(runs.iter().zip(&servers))
        .map(|(s, (run, server))| format!("=== {}\n{}\n", s.agent.name, context(run, server)))
        .collect();
    for run in &runs {
        assert_eq!(run.code, Some(0), "{ctx}");
    }
    let late = progress.late.lock().expect("progress").clone();
    assert_eq!(late, Vec::<String>::new(), "the sessions overlapped\n{ctx}");

    let commits = repo.git(&["rev-list", "--reverse", &format!("{initial}..HEAD")]);
    let commits: Vec<&str> = commits.lines().collect();
    assert_eq!(
        commits.len(),
        SESSIONS.len(),
        "one AI commit per session\n{ctx}"
    );
    let mut seen = Vec::new();
    for c in commits {
        assert!(repo.subject(c).starts_with("AI:"), "{ctx}");
        let log = repo.git(&["notes", "--ref", "ai", "show", c]);
        let s = SESSIONS
            .iter()
            .find(|s| log.contains(&format!("\"tool\": \"{}\"", s.agent.tool)))
            .unwrap_or_else(|| panic!("a commit of no session's agent: {log}\n{ctx}"));
        seen.push(s.agent.name);
        assert_eq!(
            changed(&repo, c),
            format!("{}\nshared.txt\n", s.file),
            "{} committed its own files\n{ctx}",
            s.agent.name
        );
        // Exactly its line of shared.txt, on whatever the commits before it hold.
        let parent = repo.git(&["show", &format!("{c}~1:shared.txt")]);
        let line = format!("line {}", s.line);
        assert_eq!(
            repo.git(&["show", &format!("{c}:shared.txt")]),
            with_line(&parent, &line, &format!("{line} by {}", s.agent.name)),
            "{ctx}"
        );
        let lines = s.line.to_string();
        assert_eq!(
            attested(&repo, c),
            pairs(&[(s.file, "1"), ("shared.txt", &lines)]),
            "{log}\n{ctx}"
        );
        assert!(
            log.contains(&format!("\"model\": \"{}\"", s.agent.model)),
            "{log}"
        );
    }
    seen.sort();
    assert_eq!(seen, ["claude-code", "codex", "gemini"], "{ctx}");
    assert_eq!(repo.status(), "", "{ctx}");
    assert_eq!(
        repo.git(&["for-each-ref", "refs/clada/agent/"]),
        "",
        "{ctx}"
    );
    repo.assert_fsck();
}

// ---------------------------------------------------------------------------------------
// Tool calls nobody committed (`agent.commit: none`).

/// With `agent.commit: none` the turn ends with its tool calls uncommitted: `undo` takes
/// them back one by one, newest first (the user's edit kept), `redo` puts them back in
/// order, and the user's own commit of everything credits the agent's lines.
fn uncommitted_calls(agent: &Agent) {
    let mut repo = TestRepo::with_files(&[
        ("app.txt", "one\ntwo\nthree\n"),
        ("util.txt", "alpha\nbeta\n"),
        ("notes.txt", "notes\n"),
    ]);
    let initial = repo.head();
    let root = repo.path().to_path_buf();
    let mut script = (agent.edit)(&root, "app.txt", &[("two", "two by the agent")]);
    script.push((agent.create)(&root, "new.txt", "created by the agent\n"));
    script.push((agent.shell)(SED));
    let calls = script.len();
    script.push(Step::answer("Done."));
    let server = ModelServer::start(agent.api, agent.model, script);
    set_up(agent, &mut repo, &server);
    repo.user_config("agent:\n  commit: none\n");
    repo.write("notes.txt", "notes\nmine\n");
    let run = run(command(agent, &repo, &server), agent.name, &server);
    let ctx = context(&run, &server);
    assert_eq!(run.code, Some(0), "{} failed\n{ctx}", agent.name);
    assert_eq!(server.tool_results().len(), calls, "{ctx}");

    assert_eq!(repo.head(), initial, "nothing committed\n{ctx}");
    let turn = repo.state();
    assert_eq!(
        turn.status, " M app.txt\n M notes.txt\n M util.txt\n?? new.txt\n",
        "{ctx}"
    );
    assert_eq!(
        undo_kinds(&repo)[..3],
        ["agent-call", "agent-call", "agent-call"],
        "{ctx}"
    );
    // The shell call's sed, then the created file.
    clada_ok(&repo, &["undo"]);
    assert_eq!(repo.read("util.txt"), "alpha\nbeta\n");
    assert!(repo.exists("new.txt"));
    clada_ok(&repo, &["undo"]);
    assert!(!repo.exists("new.txt"));
    assert_eq!(repo.status(), " M app.txt\n M notes.txt\n");
    assert_eq!(repo.read("notes.txt"), "notes\nmine\n");
    clada_ok(&repo, &["redo"]);
    assert_eq!(repo.read("new.txt"), "created by the agent\n");
    clada_ok(&repo, &["redo"]);
    common::assert_same_user_state(&repo.state(), &turn, "redo of both calls");

    // The user commits everything: the agent's lines are credited to it, the user's are not.
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-qm", "mine and the agent's"]);
    assert_eq!(
        attested(&repo, "HEAD"),
        pairs(&[("app.txt", "2"), ("new.txt", "1"), ("util.txt", "2")]),
        "{ctx}"
    );
    assert_eq!(repo.git(&["for-each-ref", "refs/clada/agent/"]), "");
    repo.assert_fsck();
}

#[test]
#[cfg_attr(not(has_agents), ignore = "needs the agent CLIs (scripts/test)")]
fn claude_code_calls_left_uncommitted_are_undone_and_redone_one_by_one() {
    uncommitted_calls(&CLAUDE);
}

#[test]
#[cfg_attr(not(has_agents), ignore = "needs the agent CLIs (scripts/test)")]
fn codex_calls_left_uncommitted_are_undone_and_redone_one_by_one() {
    uncommitted_calls(&CODEX_AGENT);
}

#[test]
#[cfg_attr(not(has_agents), ignore = "needs the agent CLIs (scripts/test)")]
fn gemini_cli_calls_left_uncommitted_are_undone_and_redone_one_by_one() {
    uncommitted_calls(&GEMINI);
}

// ---------------------------------------------------------------------------------------
// The agent's own git commands (issue 50 item 5).

const GREEK: &str = "alpha\nbeta\ngamma\ndelta\n";

/// `git diff-tree --name-status -M` of `rev`, a rename's similarity left out.
fn name_status(repo: &TestRepo, rev: &str) -> String {
    let out = repo.git(&[
        "diff-tree",
        "-r",
        "-M",
        "--name-status",
        "--no-commit-id",
        rev,
    ]);
    out.lines()
        .map(|l| match l.split_once('\t') {
            Some((s, rest)) if s.starts_with('R') => format!("R\t{rest}\n"),
            _ => format!("{l}\n"),
        })
        .collect()
}

/// In its shell tool the agent edits `a.txt` and stages everything with `git add -A` (the
/// user's uncommitted edit of `u.txt` with it), renames `b.txt` with `git mv` and edits it,
/// and switches to a new branch `fix`; then it creates a file there. The turn so far is one
/// AI commit on `main` — the rename and the agent's lines only — and the rest one on `fix`
/// (made where `main` was when the agent switched). The user's edit stays staged as the
/// agent's `git add -A` left it, committed nowhere. Codex runs with `--sandbox
/// danger-full-access`: its `workspace-write` keeps `.git` read-only, so no git command
/// that writes runs there.
fn git_commands_turn(agent: &Agent) {
    let mut repo = TestRepo::with_files(&[("a.txt", "a\n"), ("b.txt", GREEK), ("u.txt", "u\n")]);
    let initial = repo.head();
    let root = repo.path().to_path_buf();
    let mut script = vec![
        (agent.shell)("printf 'a\\nby the agent\\n' > a.txt && git add -A"),
        (agent.shell)("git mv b.txt c.txt && sed -i 's/^gamma$/gamma (agent)/' c.txt"),
        (agent.shell)("git checkout -q -b fix"),
    ];
    script.push((agent.create)(&root, "new.txt", "on fix\n"));
    let calls = script.len();
    script.push(Step::answer("Done."));
    let server = ModelServer::start(agent.api, agent.model, script);
    set_up(agent, &mut repo, &server);
    repo.write("u.txt", "u\nmine\n");
    let cmd = match agent.name {
        "codex" => super::codex_command(&repo, &server, "danger-full-access"),
        _ => command(agent, &repo, &server),
    };
    let run = run(cmd, agent.name, &server);
    let ctx = context(&run, &server);
    assert_eq!(run.code, Some(0), "{} failed\n{ctx}", agent.name);
    assert_eq!(server.tool_results().len(), calls, "{ctx}");

    // On main: the turn up to the switch.
    assert_eq!(repo.git(&["rev-parse", "main~1"]).trim(), initial, "{ctx}");
    assert!(repo.subject("main").starts_with("AI:"), "{ctx}");
    assert_eq!(
        name_status(&repo, "main"),
        "M\ta.txt\nR\tb.txt\tc.txt\n",
        "{ctx}"
    );
    assert_eq!(repo.git(&["show", "main:a.txt"]), "a\nby the agent\n");
    assert_eq!(
        repo.git(&["show", "main:c.txt"]),
        "alpha\nbeta\ngamma (agent)\ndelta\n"
    );
    assert_eq!(
        attested(&repo, "main"),
        pairs(&[("a.txt", "2"), ("c.txt", "3")]),
        "{ctx}"
    );
    // On fix: the rest of the turn.
    assert_eq!(repo.git(&["symbolic-ref", "--short", "HEAD"]), "fix\n");
    assert_eq!(repo.git(&["rev-parse", "fix~1"]).trim(), initial, "{ctx}");
    assert_eq!(changed(&repo, "fix"), "new.txt\n", "{ctx}");
    assert_eq!(attested(&repo, "fix"), pairs(&[("new.txt", "1")]), "{ctx}");
    // The worktree and the index as the switch left them to fix: the agent's changes
    // (committed on main) and the user's edit, staged by the agent, committed nowhere.
    assert_eq!(
        repo.status(),
        "M  a.txt\nRM b.txt -> c.txt\nM  u.txt\n",
        "{ctx}"
    );
    assert_eq!(repo.git(&["show", ":u.txt"]), "u\nmine\n");
    if let Some(shown) = hook_output(agent, &repo, &run) {
        let said = "the agent switched from branch main to branch fix";
        assert!(shown.contains(said), "the switch is named:\n{shown}");
        assert!(!shown.contains("untracked"), "{shown}");
    }
    assert_eq!(
        repo.git(&["for-each-ref", "refs/clada/agent/"]),
        "",
        "{ctx}"
    );
    repo.assert_fsck();
}

#[test]
#[cfg_attr(not(has_agents), ignore = "needs the agent CLIs (scripts/test)")]
fn claude_code_git_add_git_mv_and_a_branch_switch_in_its_shell() {
    git_commands_turn(&CLAUDE);
}

#[test]
#[cfg_attr(not(has_agents), ignore = "needs the agent CLIs (scripts/test)")]
fn codex_git_add_git_mv_and_a_branch_switch_in_its_shell() {
    git_commands_turn(&CODEX_AGENT);
}

#[test]
#[cfg_attr(not(has_agents), ignore = "needs the agent CLIs (scripts/test)")]
fn gemini_cli_git_add_git_mv_and_a_branch_switch_in_its_shell() {
    git_commands_turn(&GEMINI);
}

// ---------------------------------------------------------------------------------------
// A session in a folder holding two repositories (issue 50 item 8).

/// `git -C <repository> ARGS` in the parent folder.
fn git_in(parent: &TestRepo, repo: &str, args: &[&str]) -> String {
    let mut all = vec!["-C", repo];
    all.extend_from_slice(args);
    parent.git(&all)
}

/// The CLI started in a folder that is no repository, holding `r1` and `r2`: it edits
/// `r1/a.txt` and creates `r2/b.txt` with its file tools, by path, and appends to
/// `r2/a.txt` through its shell in the folder. Each repository gets its own AI commit of
/// its own files; the user's edit in `r1` stays theirs.
fn parent_folder_turn(agent: &Agent) {
    let parent = TestRepo::new();
    std::fs::remove_dir_all(parent.path().join(".git")).expect("remove .git");
    for r in ["r1", "r2"] {
        parent.git(&["init", "-q", "-b", "main", r]);
        parent.write(&format!("{r}/a.txt"), "a\n");
        parent.write(&format!("{r}/u.txt"), "u\n");
        git_in(&parent, r, &["add", "-A"]);
        git_in(&parent, r, &["commit", "-qm", "initial"]);
    }
    let initial: Vec<String> = ["r1", "r2"]
        .iter()
        .map(|r| git_in(&parent, r, &["rev-parse", "HEAD"]))
        .collect();
    let root = parent.path().to_path_buf();
    let mut script = (agent.edit)(&root, "r1/a.txt", &[("a", "a by the agent")]);
    script.push((agent.create)(&root, "r2/b.txt", "new in r2\n"));
    script.push((agent.shell)("printf 'more\\n' >> r2/a.txt"));
    let calls = script.len();
    script.push(Step::answer("Done."));
    let server = ModelServer::start(agent.api, agent.model, script);
    (agent.configure)(&parent, &server);
    install(&parent, agent.name);
    parent.write("r1/u.txt", "u\nmine\n");
    let mut cmd = command(agent, &parent, &server);
    if agent.name == CODEX_AGENT.name {
        // `codex exec` refuses a folder that is no repository without it.
        cmd.arg("--skip-git-repo-check");
    }
    let run = run(cmd, agent.name, &server);
    let ctx = context(&run, &server);
    assert_eq!(run.code, Some(0), "{} failed\n{ctx}", agent.name);
    assert_eq!(server.tool_results().len(), calls, "{ctx}");

    for (r, (files, initial)) in ["r1", "r2"]
        .iter()
        .zip([("a.txt\n", &initial[0]), ("a.txt\nb.txt\n", &initial[1])])
    {
        assert_eq!(
            git_in(&parent, r, &["rev-parse", "HEAD~1"]),
            *initial,
            "{r}\n{ctx}"
        );
        assert_eq!(
            git_in(
                &parent,
                r,
                &["diff-tree", "--no-commit-id", "--name-only", "-r", "HEAD"]
            ),
            files,
            "{r}\n{ctx}"
        );
        let log = git_in(&parent, r, &["notes", "--ref", "ai", "show", "HEAD"]);
        assert!(
            log.contains(&format!("\"tool\": \"{}\"", agent.tool)),
            "{r}: {log}"
        );
    }
    if let Some(shown) = hook_output(agent, &parent, &run) {
        // The shell call in the folder says what it compares; each repository's commit.
        assert!(shown.contains("in no git repository"), "{shown}");
        for r in ["r1", "r2"] {
            let path = parent.path().join(r).display().to_string();
            assert!(shown.contains(&path), "{r} named:\n{shown}");
        }
    }
    assert_eq!(
        git_in(&parent, "r1", &["show", "HEAD:a.txt"]),
        "a by the agent\n"
    );
    assert_eq!(git_in(&parent, "r2", &["show", "HEAD:a.txt"]), "a\nmore\n");
    assert_eq!(
        git_in(&parent, "r1", &["status", "--porcelain"]),
        " M u.txt\n"
    );
    assert_eq!(git_in(&parent, "r2", &["status", "--porcelain"]), "");
    for r in ["r1", "r2"] {
        assert_eq!(
            git_in(&parent, r, &["for-each-ref", "refs/clada/agent/"]),
            ""
        );
        let fsck = parent.git_output(&["-C", r, "fsck", "--strict", "--no-progress"]);
        let err = String::from_utf8_lossy(&fsck.stderr);
        assert!(
            fsck.status.success() && !err.contains("error"),
            "{r}: {err}"
        );
    }
}

#[test]
#[cfg_attr(not(has_agents), ignore = "needs the agent CLIs (scripts/test)")]
fn claude_code_session_in_a_parent_folder_commits_in_each_repository() {
    parent_folder_turn(&CLAUDE);
}

#[test]
#[cfg_attr(not(has_agents), ignore = "needs the agent CLIs (scripts/test)")]
fn codex_session_in_a_parent_folder_commits_in_each_repository() {
    parent_folder_turn(&CODEX_AGENT);
}

#[test]
#[cfg_attr(not(has_agents), ignore = "needs the agent CLIs (scripts/test)")]
fn gemini_cli_session_in_a_parent_folder_commits_in_each_repository() {
    parent_folder_turn(&GEMINI);
}
