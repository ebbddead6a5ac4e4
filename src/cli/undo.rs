//! `git clada undo`: take back the last clada operation.

use crate::cli::Global;
use clada_base::error::Outcome;
use clada_engine::history::undo;
use clada_git::Repo;

/// Take back the last clada operation on this branch; repeated, the one before it.
///
/// For an apply: removes the AI commit and its snapshot commit and restores your uncommitted
/// work exactly, staged and unstaged (untracked files the AI overwrote included). For an apply
/// that committed nothing (`--no-commit`, a failing hook): puts the files and the index back.
/// For a squash: restores the commits it collapsed. For a step-back or step-forward: goes back
/// to where the step started. For an agent's turn: removes its AI commit and puts every file
/// the agent changed back as it was before the turn, your own edits of them kept (refused,
/// naming the lines, where one touches the agent's); an agent's tool call nobody committed yet
/// is taken back first, one call each. Each undo is kept for `git clada redo`, which puts them
/// back in order. Refuses when HEAD is not a git-clada commit, when a file it would rewrite or the
/// index changed since, or when the commit was pushed; edits of other files are kept. Also
/// rolls back an apply that was interrupted (crash, kill) and finishes an interrupted undo or
/// redo.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  git clada undo\n  git clada undo --list\n  git clada --dry-run undo"
)]
pub struct Args {
    /// List what undo takes back (newest first) and what redo puts back, and change nothing.
    #[arg(long)]
    pub list: bool,
}

pub fn run(args: Args, global: Global) -> anyhow::Result<Outcome> {
    let cwd = std::env::current_dir()?;
    let repo = Repo::discover(&cwd)?;
    if args.list {
        return super::print_history(
            undo::list(&repo, 50),
            &global,
            clada_engine::history::render::stack_list,
        );
    }
    super::print_history(undo::undo(&repo, global.dry_run), &global, |r, _| {
        clada_engine::history::render::undo_report(r)
    })
}
