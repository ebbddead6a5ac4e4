//! `git clada mcp`: serve git-clada to agents over the Model Context Protocol. Argument
//! handling only; the server is `loops::mcp`. The tools' descriptions and options come from
//! the clap definitions of the commands they stand for, read here and handed down.

use anyhow::Context;

use crate::cli::Global;
use crate::cli::{engine_options_for, ExecFlags};
use crate::loops::options::{config_author, configured};
use crate::mcp::tools::{CommandText, CommandTexts, ParamKind, ParamText, APPLY_OPTIONS};
use crate::mcp::{self, McpError, ServeOptions};
use clada_base::error::{Outcome, UsageError};
use clada_engine::record::apply::ApplyOptions;

/// Serve git-clada as an MCP server over stdio: the edit tool an agent calls.
///
/// Agents (Claude Code and Desktop, Cursor, Codex CLI, …) start it as a child process and
/// call its tools: `edit` (JSON actions, or `path`/`old_string`/`new_string` as editor tools
/// take them), `apply` (a reply with action blocks in any format), `check` (the same with
/// nothing changed: the report and the diff), `read`, `grep`, `ls`, `glob`, and `undo`,
/// `redo`, `status`, `log`, `show`. Every `apply` or `edit` call is one AI commit with a
/// `Clada-Session` trailer naming this server's session, and one `git clada undo` step; the
/// user's uncommitted work is never touched. The instructions of `git clada prompt` are served
/// as MCP prompts, one per dialect.
///
/// What the agent may not decide is decided here and in the configuration: the exec policy
/// (under `ask`, the client is asked to show the user an approval form where it can; else the
/// block is refused with how to approve it), limits, hooks, `--no-verify`. The server runs
/// until the client closes its input; exit status 2 when it cannot start (not a repository,
/// bad configuration).
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  git clada mcp\n  git clada -C ~/src/project mcp --exec ask\n  claude mcp add git-clada -- git clada mcp"
)]
pub struct Args {
    /// Serve a plain folder (the current one, or -C DIR) without git: nothing is committed,
    /// and undo, redo, status, log and show are not available.
    #[arg(long)]
    pub no_git: bool,

    /// The exec policy and limits of every call (under `ask`, clients that can show a form
    /// ask the user; elsewhere only approved and read-only commands run).
    #[command(flatten)]
    pub exec_flags: ExecFlags,

    #[command(flatten)]
    pub provenance: crate::cli::ProvenanceFlags,

    /// Do not run the pre-commit, commit-msg and post-commit hooks on the AI commits.
    #[arg(long)]
    pub no_verify: bool,

    /// The session id in the `Clada-Session` trailer of this server's commits (default: a new
    /// `mcp-…` id per server; `git clada log` shows it, `git clada squash --mode session`
    /// collapses a session's commits).
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,
}

pub fn run(args: Args, global: Global) -> anyhow::Result<Outcome> {
    let cwd = std::env::current_dir().context("cannot determine the current directory")?;
    let session = match args.session.clone() {
        Some(s) => {
            mcp::check_session_id(&s).map_err(|e| UsageError(e.to_string()))?;
            s
        }
        None => mcp::new_session_id(),
    };
    let (cfg, root) = if args.no_git {
        (clada_engine::config::load_for_dir(&cwd)?, None)
    } else {
        clada_engine::config::load_with_root(&cwd)?
    };
    if let Some(w) = cfg.untrusted_warning() {
        eprintln!("git-clada: warning: {w}");
    }
    let root = root.unwrap_or_else(|| cwd.clone());
    // The terminal prompt is replaced per call (stdin is the protocol, not a terminal).
    let (engine, _) = engine_options_for(&args.exec_flags, &global, &cfg, &root)?;
    let apply = ApplyOptions {
        no_verify: args.no_verify,
        // Every tool call is a new intent: never skipped as a repeat.
        force: true,
        wip_commit: cfg.wip.value == clada_engine::config::WipSetting::Commit,
        author: config_author(&cfg)?,
        // One server, many applies in one worktree: the stat data of files nothing touched
        // since the last call is remembered, not read again.
        stat_cache: Some(clada_git::StatCache::new()),
        object_cache: Some(clada_git::ObjectCache::new()),
        open_cache: Some(clada_git::OpenCache::new()),
        ..configured(&cfg, engine)
    };
    let apply = ApplyOptions {
        provenance: args.provenance.over(apply.provenance.clone()),
        ..apply
    };
    eprintln!(
        "git-clada: serving MCP on stdio for {} (session {session})",
        root.display()
    );
    let served = mcp::serve(ServeOptions {
        cwd,
        root,
        no_git: args.no_git,
        apply,
        session,
        texts: command_texts(),
    });
    match served {
        Ok(()) => Ok(Outcome::Success),
        Err(McpError::Usage(m)) => Err(UsageError(m).into()),
        Err(e) => Err(e.into()),
    }
}

/// The help of the commands the tools stand for, from their clap definitions: `apply` (only
/// the options a call may set), `undo`, `redo`, `status`, `log`, `show`, and the global
/// `--dry-run`.
fn command_texts() -> CommandTexts {
    let root = crate::cli::command();
    let mut texts = CommandTexts::new();
    for name in ["apply", "undo", "redo", "status", "log", "show"] {
        let Some(cmd) = root.find_subcommand(name) else {
            continue;
        };
        let wanted = |id: &str| name != "apply" || APPLY_OPTIONS.contains(&id);
        let params = cmd
            .get_arguments()
            .filter(|a| !a.is_global_set() && !a.is_hide_set() && wanted(a.get_id().as_str()))
            .map(param_text)
            .collect();
        texts.insert(
            name.to_string(),
            CommandText {
                about: help_text(cmd.get_about().or(cmd.get_long_about())),
                params,
            },
        );
    }
    if let Some(dry) = root.get_arguments().find(|a| a.get_id() == "dry_run") {
        texts.insert(
            "dry-run".into(),
            CommandText {
                about: help_text(dry.get_help()),
                params: vec![param_text(dry)],
            },
        );
    }
    texts
}

fn help_text(s: Option<&clap::builder::StyledStr>) -> String {
    s.map(|s| s.to_string()).unwrap_or_default()
}

/// One clap argument as a tool parameter: a flag is a boolean, a number an integer, an enum
/// its values.
fn param_text(a: &clap::Arg) -> ParamText {
    let values: Vec<(String, String)> = a
        .get_possible_values()
        .iter()
        .filter(|v| !v.is_hide_set())
        .map(|v| (v.get_name().to_string(), help_text(v.get_help())))
        .collect();
    let parser = a.get_value_parser().type_id();
    let kind = if matches!(a.get_action(), clap::ArgAction::SetTrue) {
        ParamKind::Boolean
    } else if !values.is_empty() {
        ParamKind::OneOf(values)
    } else if [
        clap::builder::ValueParser::from(clap::value_parser!(usize)),
        clap::builder::ValueParser::from(clap::value_parser!(u64)),
    ]
    .iter()
    .any(|p| p.type_id() == parser)
    {
        ParamKind::Integer
    } else {
        ParamKind::String
    };
    ParamText {
        name: a.get_id().to_string(),
        help: help_text(a.get_long_help().or(a.get_help())),
        kind,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tools_get_the_commands_own_help_and_only_the_agents_options() {
        let texts = command_texts();
        let apply = &texts["apply"];
        let names: Vec<&str> = apply.params.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["dialect", "atomic", "message"]);
        assert!(apply.about.starts_with("Apply the action blocks"));
        let dialect = &apply.params[0];
        match &dialect.kind {
            ParamKind::OneOf(values) => {
                assert!(values.iter().any(|(v, _)| v == "auto"));
                assert!(values.iter().any(|(v, _)| v == "tool-call"));
            }
            other => panic!("dialect is {other:?}"),
        }
        assert_eq!(apply.params[1].kind, ParamKind::Boolean);
        assert_eq!(texts["log"].params[0].name, "max_count");
        assert_eq!(texts["log"].params[0].kind, ParamKind::Integer);
        assert_eq!(texts["show"].params[0].kind, ParamKind::String);
        assert!(texts["undo"]
            .about
            .contains("Take back the last clada operation"));
        assert_eq!(texts["dry-run"].params[0].name, "dry_run");
    }
}
