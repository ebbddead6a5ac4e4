//! `git clada step-back` / `step-forward`: walk the worktree through history.

use crate::cli::{not_implemented, Global};
use crate::error::Outcome;

/// Move the worktree one commit back, parking uncommitted work first.
///
/// Uncommitted work (staged, unstaged and untracked) is parked in a stash-format commit under
/// refs/clada/stash/; HEAD is detached at the parent. Repeat to go further back.
#[derive(Debug, clap::Args)]
#[command(after_help = "Example:\n  git clada step-back\n  git clada step-forward --all")]
pub struct BackArgs {}

/// Move the worktree one commit toward the tip step-back started from.
///
/// Arriving at the tip re-attaches the branch and restores the parked work exactly.
#[derive(Debug, clap::Args)]
#[command(after_help = "Example:\n  git clada step-forward\n  git clada step-forward --all")]
pub struct ForwardArgs {
    /// Return to the tip at once.
    #[arg(long)]
    pub all: bool,
}

pub fn run_back(_args: BackArgs, _global: Global) -> anyhow::Result<Outcome> {
    Err(not_implemented("step-back"))
}

pub fn run_forward(_args: ForwardArgs, _global: Global) -> anyhow::Result<Outcome> {
    Err(not_implemented("step-forward"))
}
