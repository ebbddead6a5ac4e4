//! `git clada log`: list git-clada commits. Argument handling only; the work is in
//! `history::log`.

use crate::cli::{Format, Global};
use clada_base::error::Outcome;
use clada_engine::history::log;
use clada_git::Repo;

/// List git-clada commits on the current branch: short hash, age, subject, blocks ok/failed.
///
/// Walks the current branch's first-parent history from the tip (while stepped back: from
/// the tip step-back started from, marking HEAD's position with `*`). Snapshot commits of
/// your own uncommitted work are marked as such; squashed commits say how many commits they
/// replaced. `--format json` gives one object per commit.
#[derive(Debug, clap::Args)]
#[command(after_help = "Example:\n  git clada log -n 5\n  git clada log --format json")]
pub struct Args {
    /// Show at most N commits.
    #[arg(short = 'n', long = "max-count", value_name = "N")]
    pub max_count: Option<usize>,
}

pub fn run(args: Args, global: Global) -> anyhow::Result<Outcome> {
    let repo = Repo::discover(&std::env::current_dir()?)?;
    let report = log::log(&repo, args.max_count, clada_engine::history::now())?;
    match global.format_or_default() {
        Format::Json => crate::cli::print_json(&report)?,
        Format::Human | Format::Llm => {
            crate::cli::print(&clada_engine::history::render::log_report(&report))?
        }
    }
    Ok(Outcome::Success)
}
