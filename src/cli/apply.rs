//! `git clada apply`: parse, validate, execute and commit one LLM reply.
//!
//! Argument handling only: the git transaction lives in `record::apply`, the `--no-git` path
//! is the engine on its own in the current directory.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use anyhow::Context;

use crate::cli::dialects::DialectArg;
use crate::cli::{finish_report, ExecFlags, Format, Global};
use crate::loops::options;
use clada_base::error::{Outcome, Refusal, UsageError};
use clada_engine::action::{self, EngineOptions, Execution};
use clada_engine::record::{self, apply::ApplyError, apply::ApplyOptions};
use clada_engine::report::{self, ReportFormat};
use clada_engine::sandbox::Sandbox;

/// Apply the action blocks of an LLM reply and commit the result as one AI commit.
///
/// Every block is parsed and validated, every path is checked against the sandbox before
/// anything runs, then the valid actions run in order. A failed block does not stop later
/// ones (use --atomic for all-or-nothing). Uncommitted work stays uncommitted: the AI commit
/// holds only the AI's changes, and `git clada undo` restores your work exactly. The report goes to stdout.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  git clada apply reply.md\n  llm 'add a --verbose flag' | git clada apply -\n  git clada apply --no-git --format json reply.md"
)]
pub struct Args {
    /// The reply to apply; `-` or nothing reads standard input.
    #[arg(value_name = "FILE")]
    pub file: Option<PathBuf>,

    /// Which format to read: auto reads each block in the format its opening line shows (SHAM,
    /// NESL, nesl, CSL, CML, the replacer format, aider's SEARCH/REPLACE, apply_patch, unified
    /// diffs); a format name reads only that one.
    #[arg(long, value_enum, default_value_t = DialectArg::AUTO)]
    pub dialect: DialectArg,

    /// Run the actions without git: paths are relative to the current directory, nothing is
    /// committed.
    #[arg(long)]
    pub no_git: bool,

    /// Permit absolute paths outside the worktree (such changes are never committed).
    #[arg(long)]
    pub allow_outside: bool,

    /// All-or-nothing: if any block fails, restore every file and commit nothing.
    #[arg(long)]
    pub atomic: bool,

    /// Apply and stage the changes but do not commit.
    #[arg(long)]
    pub no_commit: bool,

    /// Do not run the pre-commit, commit-msg and post-commit hooks.
    #[arg(long)]
    pub no_verify: bool,

    /// Refuse to apply when there is uncommitted work.
    #[arg(long)]
    pub no_snapshot: bool,

    /// Apply the reply even when it is the one applied last and its files are still as it
    /// left them (a reply pasted twice); without it the second paste is reported "already
    /// applied" and nothing runs, its exec blocks included.
    #[arg(long)]
    pub force: bool,

    /// What happens to uncommitted work: `keep` leaves it uncommitted (staged stays staged)
    /// and the AI commit holds only the AI's changes; `commit` first records it in a
    /// `clada: snapshot before AI edit` commit on the branch. Default: config `wip`, else keep.
    #[arg(long, value_enum, value_name = "MODE")]
    pub wip: Option<WipArg>,

    /// Author of the AI commit, as `NAME <EMAIL>` (like `git commit --author`). The committer,
    /// and any snapshot of your own work, keep your identity.
    #[arg(long, value_name = "NAME <EMAIL>", value_parser = options::parse_author)]
    pub git_author: Option<(String, String)>,

    /// Use MESSAGE as the commit subject instead of the generated `AI: …` summary.
    #[arg(short = 'm', long = "message", value_name = "MESSAGE")]
    pub message: Option<String>,

    #[command(flatten)]
    pub exec_flags: ExecFlags,

    #[command(flatten)]
    pub provenance: crate::cli::ProvenanceFlags,

    /// Read the reply from the clipboard instead of a file or stdin.
    #[arg(long, conflicts_with = "file")]
    pub paste: bool,

    /// Also put the llm report on the clipboard (OSC 52 to the terminal when no display
    /// server is reachable); a failed copy is reported, never fails the apply. Also on with config
    /// `clipboard.copy: true`.
    #[arg(long)]
    pub copy: bool,
}

/// What to do with uncommitted work during an apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum WipArg {
    /// Keep it uncommitted.
    Keep,
    /// Record it in a snapshot commit before the AI commit.
    Commit,
}

pub fn run(args: Args, global: Global) -> anyhow::Result<Outcome> {
    if args.no_git {
        return run_no_git(args, global);
    }
    let reply = read_reply(&args)?;
    let cwd = std::env::current_dir().context("cannot determine the current directory")?;
    // Opened once: the configuration and the apply read the same repository.
    let repo = clada_git::Repo::discover(&cwd);
    let cfg = clada_engine::config::load_for_repo(repo.as_ref().ok())?;
    let root = repo.as_ref().ok().map(|r| r.workdir().to_path_buf());
    if let Some(w) = cfg.untrusted_warning() {
        eprintln!("git-clada: warning: {w}");
    }
    crate::cli::set_color(cfg.color.value);
    let root = root.unwrap_or_else(|| cwd.clone());
    let (engine, approvals) = engine_options(&args, &global, &cfg, &root, repo.as_ref().ok())?;
    let wip = args.wip.unwrap_or(match cfg.wip.value {
        clada_engine::config::WipSetting::Keep => WipArg::Keep,
        clada_engine::config::WipSetting::Commit => WipArg::Commit,
    });
    let opts = ApplyOptions {
        dialect: args.dialect.into(),
        allow_outside: args.allow_outside,
        atomic: args.atomic,
        author: match &args.git_author {
            Some(a) => Some(a.clone()),
            None => options::config_author(&cfg)?,
        },
        no_commit: args.no_commit,
        no_verify: args.no_verify,
        no_snapshot: args.no_snapshot,
        force: args.force,
        wip_commit: wip == WipArg::Commit,
        message: args.message.clone(),
        ..options::configured(&cfg, engine)
    };
    let opts = ApplyOptions {
        provenance: args.provenance.over(opts.provenance.clone()),
        ..opts
    };
    let result = repo
        .map_err(ApplyError::from)
        .and_then(|repo| record::apply::apply_in(&repo, &reply, &opts));
    approvals.store(&root)?;
    let copy = args.copy || cfg.clipboard_copy.value;
    // A reply that could not be applied still has a report to paste back: it is copied too.
    match &result {
        Ok(_) => {}
        Err(ApplyError::NotRecorded(ran)) => copy_report(copy, ran),
        Err(e) => copy_fatal(copy, &e.to_string()),
    }
    let outcome = match result {
        Ok(o) => o,
        Err(ApplyError::Refused(msg)) => return Err(Refusal(msg).into()),
        // Only `apply` (and `check`) can work without a repository: the hint belongs here.
        Err(e @ ApplyError::Repo(clada_git::RepoError::NotARepo(_))) => {
            return Err(anyhow::anyhow!(
                "{e}, or use --no-git to run the actions in the current directory without a repository"
            ))
        }
        // The blocks ran but were not recorded: their report, with the fatal error (exit 1).
        Err(ApplyError::NotRecorded(ran)) => return finish_report(&ran, &global),
        Err(e) => return Err(e.into()),
    };
    clada_base::trace::phase("apply returned");
    if let Some(diff) = &outcome.diff {
        if !diff.is_empty() && global.format_or_default() != Format::Json {
            let mut stdout = std::io::stdout().lock();
            let _ = writeln!(stdout, "{}", global.shown().content(diff));
        }
    }
    copy_report(copy, &outcome.execution);
    finish_report(&outcome.execution, &global)
}

/// `--copy` of an apply that stopped as a whole: its llm report (the `FATAL` line) goes to
/// the clipboard, and what happened to stderr, as for any other report.
fn copy_fatal(copy: bool, message: &str) {
    if let (true, Some(llm)) = (copy, report::fatal(message, ReportFormat::Llm)) {
        eprintln!("git-clada: {}", crate::loops::clipboard::copy(&llm).line());
    }
}

/// `--copy` (or config `clipboard.copy`): the llm report to the clipboard; what happened goes
/// to stderr.
fn copy_report(copy: bool, execution: &Execution) {
    if copy {
        let llm = report::render(&execution.result, ReportFormat::Llm, false);
        eprintln!("git-clada: {}", crate::loops::clipboard::copy(&llm).line());
    }
}

/// Reads the reply; on a terminal, first says that it waits for one (a bare `git clada apply`
/// would otherwise sit there silently).
fn read_reply(args: &Args) -> anyhow::Result<clada_engine::input::Reply> {
    if args.paste {
        let text =
            crate::loops::clipboard::paste().map_err(|e| UsageError(format!("--paste: {e}")))?;
        if text.len() as u64 > clada_engine::input::MAX_REPLY_BYTES {
            return Err(UsageError(
                "--paste: the clipboard holds more than the 50 MiB limit for a reply".into(),
            )
            .into());
        }
        return Ok(clada_engine::input::text_reply(text, "clipboard".into())?);
    }
    let from_stdin = args
        .file
        .as_deref()
        .is_none_or(|f| f == std::path::Path::new("-"));
    if from_stdin && std::io::stdin().is_terminal() {
        eprintln!("reading the reply from stdin (end it with Ctrl-D, or pass a file: git clada apply reply.md)...");
    }
    Ok(clada_engine::input::read_reply(
        args.file.as_deref(),
        args.dialect.into(),
    )?)
}

/// The engine options the command line and the configuration ask for: `--dry-run`, `--exec`
/// (else config `exec`, else ask — with a terminal prompt when there is a terminal), limits,
/// the repository's approved commands, whole-file shaping (`files.final_newline`,
/// `.editorconfig`).
pub fn engine_options(
    args: &Args,
    global: &Global,
    cfg: &clada_engine::config::Config,
    root: &std::path::Path,
    repo: Option<&clada_git::Repo>,
) -> anyhow::Result<(EngineOptions, options::NewApprovals)> {
    let flags = ExecFlags {
        no_git: args.no_git,
        ..args.exec_flags
    };
    let dirs = match repo {
        Some(repo) if !args.no_git => options::repo_dirs(repo),
        _ => options::git_dirs(root, args.no_git),
    };
    crate::loops::options::engine_options(&flags.choice(), global.dry_run, cfg, root, dirs)
}

/// `--no-git`: the engine on its own; paths are relative to the current directory.
fn run_no_git(args: Args, global: Global) -> anyhow::Result<Outcome> {
    let reply = read_reply(&args)?;
    let parsed = clada_read::parse(&reply.text, args.dialect.into());
    let cwd = std::env::current_dir().context("cannot determine the current directory")?;
    let cfg = clada_engine::config::load_for_dir(&cwd)?;
    crate::cli::set_color(cfg.color.value);
    let sandbox = Sandbox::new(&cwd, args.allow_outside)?
        .deny_paths(&cfg.paths_deny.value)
        .allow_config_writes(!cfg.paths_protect_config.value)
        .allow_hook_writes(!cfg.paths_protect_hooks.value);
    let plan = action::plan(&parsed, &sandbox);
    let (opts, approvals) = engine_options(&args, &global, &cfg, &cwd, None)?;
    let mark = clada_engine::exec::notices::mark();
    let mut execution = action::execute(&plan, &sandbox, &opts);
    let notices = clada_engine::exec::notices::since(&mark, &opts.confine.env);
    execution.result.warnings.extend(notices);
    approvals.store(&cwd)?;
    copy_report(args.copy || cfg.clipboard_copy.value, &execution);
    finish_report(&execution, &global)
}
