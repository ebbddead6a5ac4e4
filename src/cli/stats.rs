//! `git clada stats`: AI, human and unknown lines per commit of a range (argument handling
//! only; the work is in `history::stats`).

use crate::base::error::{Outcome, Refusal};
use crate::cli::{Format, Global};
use crate::history::{stats, HistoryError};
use crate::repo::Repo;

/// Count the lines of each commit still present, by who wrote them: AI, human or unknown.
///
/// For every commit of RANGE (its first-parent history), the lines it last changed that are
/// still in RANGE's last version, split by their origin in the authorship logs
/// (refs/notes/ai), as `git clada blame` reads them; then the total, with a bar
/// (`you ██░░ ai`).
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Example:\n  git clada stats\n  git clada stats main~50..main --format json"
)]
pub struct Args {
    /// `A..B` (B's first-parent history down to A) or `B` (down to the root). Default: HEAD.
    #[arg(value_name = "RANGE")]
    pub range: Option<String>,
}

pub fn run(args: Args, global: Global) -> anyhow::Result<Outcome> {
    let repo = Repo::discover(&std::env::current_dir()?)?;
    let report = match stats::stats(&repo, args.range.as_deref()) {
        Ok(r) => r,
        Err(HistoryError::Refused(msg)) => return Err(Refusal(msg).into()),
        Err(e) => return Err(e.into()),
    };
    match global.format_or_default() {
        Format::Json => crate::cli::print_json(&report)?,
        _ => print!("{}", stats::render(&report)),
    }
    Ok(Outcome::Success)
}
