//! `git clada show`: the stored reply and result report of one AI commit.

use crate::cli::{not_implemented, Global};
use crate::error::Outcome;

/// Show the reply an AI commit was made from and its result report.
#[derive(Debug, clap::Args)]
#[command(after_help = "Example:\n  git clada show\n  git clada show HEAD~2 --format json")]
pub struct Args {
    /// The commit to show (default HEAD).
    #[arg(value_name = "REV")]
    pub rev: Option<String>,
}

pub fn run(_args: Args, _global: Global) -> anyhow::Result<Outcome> {
    Err(not_implemented("show"))
}
