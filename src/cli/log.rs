//! `git clada log`: list git-clada commits.

use crate::cli::{not_implemented, Global};
use crate::error::Outcome;

/// List git-clada commits on the current branch: short hash, age, subject, blocks ok/failed.
#[derive(Debug, clap::Args)]
#[command(after_help = "Example:\n  git clada log -n 5")]
pub struct Args {
    /// Show at most N commits.
    #[arg(short = 'n', long = "max-count", value_name = "N")]
    pub max_count: Option<usize>,
}

pub fn run(_args: Args, _global: Global) -> anyhow::Result<Outcome> {
    Err(not_implemented("log"))
}
