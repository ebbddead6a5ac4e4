//! `git clada redo`: re-apply what the last undo took back.

use crate::cli::{not_implemented, Global};
use crate::error::Outcome;

/// Re-apply what the last `git clada undo` took back, if nothing moved since.
#[derive(Debug, clap::Args)]
#[command(after_help = "Example:\n  git clada redo")]
pub struct Args {}

pub fn run(_args: Args, _global: Global) -> anyhow::Result<Outcome> {
    Err(not_implemented("redo"))
}
