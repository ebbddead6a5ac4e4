//! `git clada squash`: collapse runs of AI commits.

use crate::cli::{not_implemented, Global};
use crate::error::Outcome;

/// Collapse runs of AI commits into one commit each.
///
/// Only the current branch's first-parent history is touched; pushed commits, tagged commits
/// and merges are never rewritten. The final tree stays exactly the same.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  git clada squash --mode auto_ai\n  git clada squash --mode hours --hours 3 --message 'AI: refactor parser'"
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

    /// With --mode msg_contains: commits whose message contains S.
    #[arg(long, value_name = "S")]
    pub msg_target: Option<String>,

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
    /// Commits whose subject starts with `AI:`.
    AiMessages,
    /// AI commits made in the last --hours N hours.
    Hours,
    /// AI commits made in the last --days N days.
    Days,
    /// Commits whose message contains --msg-target S.
    MsgContains,
}

pub fn run(_args: Args, _global: Global) -> anyhow::Result<Outcome> {
    Err(not_implemented("squash"))
}
