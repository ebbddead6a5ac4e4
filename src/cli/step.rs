//! `git clada step-back` / `step-forward`: walk the worktree through history. Argument
//! handling only; the work is in `history::step`.

use crate::cli::Global;
use clada_base::error::Outcome;
use clada_engine::history::step;
use clada_git::Repo;

/// Move the worktree one commit back, parking uncommitted work first.
///
/// Uncommitted work (staged, unstaged and untracked; ignored files stay where they are) is
/// parked in a stash-format commit under refs/clada/stash/; HEAD is detached at the parent of
/// the branch's tip. Repeat to go further back. Only the paths that differ are rewritten.
/// Refuses at the root commit, at a merge commit, when you changed tracked files while
/// stepped back, and when an untracked or ignored file is in the way. While stepped back,
/// apply, undo and squash refuse; `git clada status` says where you are.
#[derive(Debug, clap::Args)]
#[command(after_help = "Example:\n  git clada step-back\n  git clada step-forward --all")]
pub struct BackArgs {}

/// Move the worktree one commit toward the tip step-back started from.
///
/// Arriving at the tip re-attaches the branch and restores the parked work exactly: staged
/// and unstaged changes and untracked files.
#[derive(Debug, clap::Args)]
#[command(after_help = "Example:\n  git clada step-forward\n  git clada step-forward --all")]
pub struct ForwardArgs {
    /// Return to the tip at once.
    #[arg(long)]
    pub all: bool,
}

pub fn run_back(_args: BackArgs, global: Global) -> anyhow::Result<Outcome> {
    let repo = Repo::discover(&std::env::current_dir()?)?;
    super::print_history(step::step_back(&repo, global.dry_run), &global, |r, _| {
        clada_engine::history::render::step_report(r)
    })
}

pub fn run_forward(args: ForwardArgs, global: Global) -> anyhow::Result<Outcome> {
    let repo = Repo::discover(&std::env::current_dir()?)?;
    super::print_history(
        step::step_forward(&repo, args.all, global.dry_run),
        &global,
        |r, _| clada_engine::history::render::step_report(r),
    )
}
