//! `git clada repair-index`: argument handling only; the work is in `history::repair`.

use crate::cli::Global;
use clada_base::error::Outcome;
use clada_engine::history::repair;
use clada_git::Repo;

/// Repair the index's cache-tree if an earlier git-clada wrote it wrong.
///
/// git-clada builds before November 2026 wrote a cache-tree (the index's TREE extension)
/// that counted an intent-to-add entry (`git add -N`): `git status` then showed a tracked
/// file as added, and the next `git commit` could write a tree with duplicate entries and
/// without some files.
/// This checks the cache-tree against the entries and, when they disagree, drops it (git
/// rebuilds it at your next commit). Entries, staged changes and flags are untouched.
/// `git clada status` says when it is needed; `git fsck` finds commits that already carry
/// duplicate entries (see docs/recovery.md).
#[derive(Debug, clap::Args)]
#[command(after_help = "Example:\n  git clada repair-index\n  git clada repair-index --dry-run")]
pub struct Args {}

pub fn run(_args: Args, global: Global) -> anyhow::Result<Outcome> {
    let repo = Repo::discover(&std::env::current_dir()?)?;
    super::print_history(
        repair::repair_index(&repo, global.dry_run),
        &global,
        clada_engine::history::render::repair_report,
    )
}
