//! `git clada agent-hook`: the command an agent's hooks run around its tool calls, and
//! `agent-hook install|uninstall`, which write it into the agent's settings (the model is
//! `docs/agents.md`; the work is `crate::agent`'s).

use std::io::Read;
use std::path::PathBuf;

use anyhow::Context;

use crate::agent::{self, AgentKind, Handled};
use crate::cli::{engine_options_for, ExecFlags, Global};
use crate::loops::options::{config_author, configured};
use clada_base::error::Outcome;

/// Record an agent's own edits: checkpoints per tool call, one AI commit per turn.
///
/// Run by the hooks of an agent (Claude Code, Cursor, Gemini CLI, Codex) with the hook's JSON payload on standard input. Before a tool call it records the
/// state of what the tool may touch (the file of an edit tool; for a shell tool every dirty
/// or untracked file); after it, exactly what the tool changed; at the end of the agent's
/// turn the turn's changes become one AI commit with its authorship log (refs/notes/ai),
/// your own uncommitted work left uncommitted. It never blocks the agent: errors are one
/// line on stderr and exit status 1, which the agents treat as a non-blocking error.
/// `install` writes the hooks into the agent's settings; see docs/agents.md.
#[derive(Debug, clap::Args)]
#[command(
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true,
    after_help = "Examples:\n  git clada agent-hook install claude-code\n  git clada agent-hook install claude-code --shared\n  git clada agent-hook install codex\n  echo '{\"hook_event_name\":\"Stop\",\"session_id\":\"s\"}' | git clada agent-hook claude-code"
)]
pub struct Args {
    #[command(subcommand)]
    pub action: Option<Action>,

    /// The agent whose hook payload is on standard input.
    #[arg(value_enum, required = true)]
    pub agent: Option<AgentArg>,

    /// The hook event, when the payload lacks `hook_event_name` (e.g. PreToolUse, Stop).
    pub event: Option<String>,
}

#[derive(Debug, clap::Subcommand)]
pub enum Action {
    /// Add git-clada's hooks to the agent's settings (again: no change; your other hooks stay).
    Install(Scope),
    /// Remove git-clada's hooks from the agent's settings, and only those.
    Uninstall(Scope),
    /// For each agent whose settings hold git-clada's hooks: whether every event is
    /// registered, whether the agent trusts the hooks, when git-clada last heard from it in
    /// this repository, and whether git's attribution hooks are installed.
    Status,
}

/// Which settings file.
#[derive(Debug, clap::Args)]
pub struct Scope {
    /// The agent.
    #[arg(value_enum)]
    pub agent: AgentArg,

    /// Your own settings for every project (the default): ~/.claude/settings.json,
    /// ~/.cursor/hooks.json, ~/.gemini/settings.json, ~/.codex/hooks.json.
    #[arg(long, group = "scope")]
    pub user: bool,

    /// Your own settings for this repository only (.claude/settings.local.json; Claude Code
    /// only).
    #[arg(long, group = "scope")]
    pub project_local: bool,

    /// The repository's committed settings (.claude/settings.json, .cursor/hooks.json,
    /// .gemini/settings.json, .codex/hooks.json), guarded so teammates without git-clada are
    /// not broken.
    #[arg(long, group = "scope")]
    pub shared: bool,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum AgentArg {
    ClaudeCode,
    Cursor,
    Gemini,
    Codex,
}

impl From<AgentArg> for AgentKind {
    fn from(a: AgentArg) -> AgentKind {
        match a {
            AgentArg::ClaudeCode => AgentKind::ClaudeCode,
            AgentArg::Cursor => AgentKind::Cursor,
            AgentArg::Gemini => AgentKind::Gemini,
            AgentArg::Codex => AgentKind::Codex,
        }
    }
}

pub fn run(args: Args, global: Global) -> anyhow::Result<Outcome> {
    match (args.action, args.agent) {
        (Some(Action::Install(scope)), _) => settings(scope, true),
        (Some(Action::Uninstall(scope)), _) => settings(scope, false),
        (Some(Action::Status), _) => status(&global),
        (None, Some(agent)) => Ok(hook(agent.into(), args.event.as_deref(), global)),
        (None, None) => anyhow::bail!("name the agent: git clada agent-hook claude-code"),
    }
}

/// One hook call. Every failure is reported here, on stderr, with exit status 1: a hook must
/// never block the agent (exit 2 would).
fn hook(agent: AgentKind, event: Option<&str>, global: Global) -> Outcome {
    let mut notes = Vec::new();
    let result = run_hook(agent, event, global, &mut notes);
    for n in &notes {
        eprintln!("git-clada: {}", clada_base::term::Shown::Escaped.content(n));
    }
    match result {
        Ok(handled) => {
            if let Some(note) = note(&handled) {
                eprintln!(
                    "git-clada: {}",
                    clada_base::term::Shown::Escaped.content(&note)
                );
            }
            match handled.incomplete() {
                true => Outcome::Partial,
                false => Outcome::Success,
            }
        }
        Err(e) => {
            let msg = format!("{e:#}");
            eprintln!(
                "git-clada: agent-hook {}: {}",
                agent::payload::agent_name(agent),
                clada_base::term::Shown::Escaped.content(&msg)
            );
            Outcome::Partial
        }
    }
}

fn run_hook(
    agent: AgentKind,
    event: Option<&str>,
    global: Global,
    notes: &mut Vec<String>,
) -> anyhow::Result<Handled> {
    let mut input = Vec::new();
    std::io::stdin()
        .read_to_end(&mut input)
        .context("cannot read the hook payload from standard input")?;
    // A read-only tool's call (most calls) returns here: no configuration, no repository.
    if agent::payload::parse(agent, event, &input)?.inert() {
        return Ok(Handled::Nothing);
    }
    let cwd = std::env::current_dir().context("cannot determine the current directory")?;
    // The configuration of each repository the call is recorded in.
    let options = |dir: &std::path::Path| {
        let read = || -> anyhow::Result<_> {
            let (cfg, root) = clada_engine::config::load_with_root(dir)?;
            let root = root.unwrap_or_else(|| dir.to_path_buf());
            let (engine, _) = engine_options_for(&ExecFlags::default(), &global, &cfg, &root)?;
            let opts = clada_engine::record::apply::ApplyOptions {
                author: config_author(&cfg)?,
                ..configured(&cfg, engine)
            };
            Ok((opts, cfg.agent_commit.value))
        };
        read().map_err(|e| format!("{e:#}"))
    };
    Ok(agent::handle(agent, event, &input, &cwd, &options, notes)?)
}

/// What the agent's user is told on stderr (Claude Code shows it in its debug log).
fn note(handled: &Handled) -> Option<String> {
    use agent::calls::AfterOutcome;
    match handled {
        Handled::Repos(all) => {
            let said: Vec<String> = all
                .iter()
                .filter_map(|(repo, h)| {
                    let what = match h {
                        Ok(h) => note(h)?,
                        Err(e) => format!("not recorded: {e}"),
                    };
                    Some(format!("in {}: {what}", repo.display()))
                })
                .collect();
            (!said.is_empty()).then(|| said.join("; "))
        }
        Handled::After(AfterOutcome::NoBefore) => Some(
            "no before-state was recorded for this tool call (its PreToolUse hook did not run), so its changes are not attributed to the agent".into(),
        ),
        Handled::BeforeSetAside | Handled::After(AfterOutcome::SetAside) => Some(
            "another agent hook held git-clada's agent lock past this hook's budget, so this tool call's record was set aside (.git/clada/agent-pending/) for the next hook to fold in".into(),
        ),
        Handled::After(AfterOutcome::NotRebuilt(why)) => Some(format!(
            "the edit afterFileEdit reports is not attributed to the agent ({why}); it stays in the worktree as yours"
        )),
        Handled::Turn(agent::turn::TurnOutcome::Ran(o)) => Some(match o.commit {
            Some(c) => format!("the agent's turn is the AI commit {}", clada_git::Repo::short(c)),
            None => agent::turn::not_committed(o, "turn"),
        }),
        Handled::Edit(_, agent::turn::TurnOutcome::Ran(o)) => Some(match o.commit {
            Some(c) => format!("the agent's edit is the AI commit {}", clada_git::Repo::short(c)),
            None => agent::turn::not_committed(o, "edit"),
        }),
        _ => None,
    }
}

/// `install` / `uninstall`.
fn settings(scope: Scope, install: bool) -> anyhow::Result<Outcome> {
    let agent: AgentKind = scope.agent.into();
    let which = match (scope.project_local, scope.shared) {
        (true, _) => agent::settings::Scope::ProjectLocal,
        (_, true) => agent::settings::Scope::Shared,
        _ => agent::settings::Scope::User,
    };
    let home = home();
    let cwd = std::env::current_dir().context("cannot determine the current directory")?;
    let repo = match which {
        // Your own settings need no repository; one is used when there is (git's hooks).
        agent::settings::Scope::User => clada_git::Repo::discover(&cwd).ok(),
        _ => Some(clada_git::Repo::discover(&cwd)?),
    };
    if install {
        let path = agent::setup::settings_file(agent, which, home.as_deref(), repo.as_ref())?;
        git_ai_notice(&path);
    }
    let done = match install {
        true => agent::setup::install(agent, which, home.as_deref(), repo.as_ref())?,
        false => agent::setup::uninstall(agent, which, home.as_deref(), repo.as_ref())?,
    };
    let shown = |s: &str| clada_base::term::Shown::Escaped.content(s).to_string();
    for line in &done.out {
        sayln!("{}", shown(line));
    }
    for note in &done.notes {
        eprintln!("git-clada: {}", shown(note));
    }
    Ok(Outcome::Success)
}

/// `status`.
fn status(global: &Global) -> anyhow::Result<Outcome> {
    let cwd = std::env::current_dir().context("cannot determine the current directory")?;
    let repo = clada_git::Repo::discover(&cwd).ok();
    let report = agent::status::report(home().as_deref(), repo.as_ref());
    match global.format_or_default() {
        crate::cli::Format::Json => crate::cli::print_json(&report)?,
        _ => {
            let shown = global.shown();
            for line in report.lines() {
                sayln!("{}", shown.content(&line));
            }
        }
    }
    Ok(Outcome::Success)
}

fn home() -> Option<PathBuf> {
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
}

/// Says on stderr when git-ai records this agent's edits too (its hooks in the same file, or
/// its working logs in the repository's `.git/ai`): git-clada then defers to it for
/// `refs/notes/ai` (docs/agents.md).
fn git_ai_notice(path: &std::path::Path) {
    let events = agent::settings::git_ai_hooks(path);
    let in_repo = std::env::current_dir()
        .ok()
        .and_then(|d| clada_git::Repo::discover(&d).ok())
        .is_some_and(|r| agent::git_ai_present(&r));
    if events.is_empty() && !in_repo {
        return;
    }
    let shown = path.display().to_string();
    let shown = clada_base::term::Shown::Escaped.content(&shown);
    let where_ = match events.is_empty() {
        true => "its working logs are in this repository (.git/ai)".to_string(),
        false => format!("its hooks are in {shown} ({})", events.join(", ")),
    };
    eprintln!(
        "git-clada: git-ai is installed too ({where_}); git-clada still records checkpoints and makes the turn's AI commit, but leaves refs/notes/ai to git-ai in repositories that have .git/ai, so no commit gets two authorship logs"
    );
}
