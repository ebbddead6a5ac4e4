//! `git clada undo`: take back the last clada operation.

use crate::base::error::Outcome;
use crate::cli::Global;
use crate::history::undo;
use crate::repo::Repo;

/// Take back the last clada operation on this branch.
///
/// For an apply: removes the AI commit and its snapshot commit and restores your uncommitted
/// work exactly, staged and unstaged (untracked files the AI overwrote included). For a
/// squash: restores the commits it collapsed. Refuses when HEAD is not a git-clada commit,
/// when a file it would rewrite or the index changed since, or when the commit was pushed;
/// edits of other files are kept. Also rolls back an apply that was interrupted (crash,
/// kill) and finishes an interrupted undo or redo.
#[derive(Debug, clap::Args)]
#[command(after_help = "Example:\n  git clada undo\n  git clada --dry-run undo")]
pub struct Args {}

pub fn run(_args: Args, global: Global) -> anyhow::Result<Outcome> {
    let cwd = std::env::current_dir()?;
    let repo = Repo::discover(&cwd)?;
    super::print_history(
        undo::undo(&repo, global.dry_run),
        &global,
        crate::history::render::undo_report,
    )
}
