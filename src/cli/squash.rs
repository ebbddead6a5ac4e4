//! `git clada squash`: collapse runs of AI commits. Argument handling only; the work is in
//! `history::squash`.

use clap::ValueEnum;

use crate::cli::Global;
use clada_base::error::{Outcome, UsageError};
use clada_engine::history::squash::{self, Selection, SquashOptions};
use clada_git::Repo;

/// Collapse runs of AI commits into one commit each.
///
/// Only the current branch's first-parent history above the first merge commit is touched;
/// pushed commits (reachable from a remote-tracking branch or a tag) are never rewritten. A
/// snapshot commit of your own uncommitted work goes with the AI commit made on top of it,
/// and the squashed message says so. Trailers are merged; the new commit's notes list the
/// squashed commits, whose own notes keep their replies and reports (`git clada show` reads
/// them); commits above are copied with new parents only. The final tree stays exactly the same, so
/// the index and your files (uncommitted changes included) are not touched. `git clada undo`
/// takes a squash back. Exit status 3 when there is nothing to squash or it is refused
/// (nothing is changed then).
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  git clada squash --mode auto_ai\n  git clada squash --mode hours --hours 3 --message 'AI: refactor parser'\n  git clada squash --mode session --no-contiguous-only"
)]
pub struct Args {
    /// Which commits to select.
    #[arg(long, value_enum)]
    pub mode: SquashMode,

    /// With --mode hours: AI commits made in the last N hours.
    #[arg(long, value_name = "N")]
    pub hours: Option<u64>,

    /// With --mode days: AI commits made in the last N days.
    #[arg(long, value_name = "N")]
    pub days: Option<u64>,

    /// With --mode msg_contains: AI commits whose message contains S.
    #[arg(long, value_name = "S")]
    pub msg_target: Option<String>,

    /// With --mode session: the session whose commits to squash — an agent's session (its
    /// turns) or a `git clada mcp` session (the `Clada-Session` trailer, shown by `git clada
    /// log`). Default: the session of the newest such commit.
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,

    /// Subject of the squashed commit (default: the subjects combined).
    #[arg(long, value_name = "M")]
    pub message: Option<String>,

    /// Squash each contiguous run separately, keeping human commits in between (default).
    #[arg(long, overrides_with = "no_contiguous_only")]
    pub contiguous_only: bool,

    /// Gather the selected commits across human commits, if that needs no conflict resolution.
    #[arg(long)]
    pub no_contiguous_only: bool,
}

/// Squash selection modes (the seeds' `git_squash` modes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
#[value(rename_all = "snake_case")]
pub enum SquashMode {
    /// The run of git-clada commits at the tip.
    AutoAi,
    /// AI commits whose subject starts with `AI:`.
    AiMessages,
    /// AI commits made in the last --hours N hours.
    Hours,
    /// AI commits made in the last --days N days.
    Days,
    /// AI commits whose message contains --msg-target S.
    MsgContains,
    /// AI commits of one session: an agent's turns, or one `git clada mcp` session's calls
    /// (--session ID, else the newest).
    Session,
}

pub fn run(args: Args, global: Global) -> anyhow::Result<Outcome> {
    let selection = selection(&args)?;
    let opts = SquashOptions {
        selection,
        message: args.message.clone(),
        contiguous_only: !args.no_contiguous_only,
        dry_run: global.dry_run,
        now: clada_engine::history::now(),
    };
    let cwd = std::env::current_dir()?;
    let repo = Repo::discover(&cwd)?;
    super::print_history(
        squash::squash(&repo, &opts),
        &global,
        clada_engine::history::render::squash_report,
    )
}

/// The mode with its parameter; a parameter given to the wrong mode is a usage error.
fn selection(args: &Args) -> Result<Selection, UsageError> {
    let stray = |flag: &str| {
        UsageError(format!(
            "{flag} does not apply to --mode {}",
            args.mode
                .to_possible_value()
                .map(|v| v.get_name().to_string())
                .unwrap_or_default()
        ))
    };
    if args.hours.is_some() && args.mode != SquashMode::Hours {
        return Err(stray("--hours"));
    }
    if args.days.is_some() && args.mode != SquashMode::Days {
        return Err(stray("--days"));
    }
    if args.msg_target.is_some() && args.mode != SquashMode::MsgContains {
        return Err(stray("--msg-target"));
    }
    if args.session.is_some() && args.mode != SquashMode::Session {
        return Err(stray("--session"));
    }
    Ok(match args.mode {
        SquashMode::AutoAi => Selection::AutoAi,
        SquashMode::AiMessages => Selection::AiMessages,
        SquashMode::Hours => Selection::Hours(args.hours.ok_or_else(|| {
            UsageError("--mode hours needs --hours N (AI commits of the last N hours)".into())
        })?),
        SquashMode::Days => Selection::Days(args.days.ok_or_else(|| {
            UsageError("--mode days needs --days N (AI commits of the last N days)".into())
        })?),
        SquashMode::Session => Selection::Session(args.session.clone()),
        SquashMode::MsgContains => match &args.msg_target {
            Some(s) if !s.is_empty() => Selection::MsgContains(s.clone()),
            _ => return Err(UsageError(
                "--mode msg_contains needs --msg-target S (AI commits whose message contains S)"
                    .into(),
            )),
        },
    })
}
