//! `git clada provenance`: the authorship logs of `refs/notes/ai` (argument handling only;
//! the work is in `history::provenance`).

use crate::base::error::{Outcome, Refusal};
use crate::cli::{Format, Global};
use crate::history::{provenance, HistoryError};
use crate::repo::Repo;

/// Line-level AI attribution: the Git AI Standard's authorship logs in refs/notes/ai.
///
/// git-clada writes a log on every AI commit it makes (see docs/provenance.md); these
/// commands manage them.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Example:\n  git clada provenance backfill\n  git clada provenance backfill main~20..main"
)]
pub struct Args {
    #[command(subcommand)]
    pub action: Action,
}

#[derive(Debug, clap::Subcommand)]
pub enum Action {
    /// Write the logs of AI commits made before git-clada wrote them.
    ///
    /// Every AI commit git-clada recorded in RANGE that has no log gets the one an apply
    /// writes now: the lines it changed, agent git-clada, model unknown, the session of its
    /// Clada-Session trailer or its reply. Commits that have a log, yours or another tool's,
    /// are left alone. With --dry-run, lists them and writes nothing.
    Backfill {
        /// `A..B` (the first-parent history of B down to A) or `B` (down to the root).
        /// Default: HEAD.
        #[arg(value_name = "RANGE")]
        range: Option<String>,
    },
}

pub fn run(args: Args, global: Global) -> anyhow::Result<Outcome> {
    let repo = Repo::discover(&std::env::current_dir()?)?;
    let Action::Backfill { range } = args.action;
    let report = match provenance::backfill(&repo, range.as_deref(), global.dry_run) {
        Ok(r) => r,
        Err(HistoryError::Refused(msg)) => return Err(Refusal(msg).into()),
        Err(e) => return Err(e.into()),
    };
    match global.format_or_default() {
        Format::Json => crate::cli::print_json(&report)?,
        _ => print!("{}", provenance::render(&report)),
    }
    Ok(Outcome::Success)
}
