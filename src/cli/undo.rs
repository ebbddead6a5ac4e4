//! `git clada undo`: take back the last clada operation.

use crate::cli::{not_implemented, Global};
use crate::error::Outcome;

/// Take back the last clada operation on this branch.
///
/// For an apply: removes the AI commit and its snapshot commit and restores your uncommitted
/// work exactly, staged and unstaged. For a squash: restores the commits it collapsed.
/// Refuses when HEAD is not a git-clada commit, when the worktree changed since, or when the
/// commit was pushed.
#[derive(Debug, clap::Args)]
#[command(after_help = "Example:\n  git clada undo\n  git clada undo --dry-run")]
pub struct Args {}

pub fn run(_args: Args, _global: Global) -> anyhow::Result<Outcome> {
    Err(not_implemented("undo"))
}
