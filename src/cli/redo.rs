//! `git clada redo`: re-apply what the last undo took back.

use crate::cli::Global;
use clada_base::error::Outcome;
use clada_engine::history::undo;
use clada_git::Repo;

/// Re-apply what the last `git clada undo` took back, if nothing moved since.
///
/// An apply, a squash or a step comes back as it was; an agent's turn comes back with its
/// changes replayed on your files (your edits since kept, refused where they touch the agent's
/// lines); an agent's tool call comes back with its checkpoint, while the agent recorded no
/// call since.
#[derive(Debug, clap::Args)]
#[command(after_help = "Example:\n  git clada redo")]
pub struct Args {}

pub fn run(_args: Args, global: Global) -> anyhow::Result<Outcome> {
    let cwd = std::env::current_dir()?;
    let repo = Repo::discover(&cwd)?;
    super::print_history(undo::redo(&repo, global.dry_run), &global, |r, _| {
        clada_engine::history::render::undo_report(r)
    })
}
