//! `git clada status`: where you are (stepped back? last clada operation?). Argument
//! handling only; the work is in `history::log`.

use crate::base::error::Outcome;
use crate::cli::{Format, Global};
use crate::history::log;
use crate::repo::Repo;

/// Say where you are: the branch, whether you are stepped back (and how far), and the last
/// clada operation that undo would take back.
///
/// Also reports an interrupted git-clada operation (which `git clada undo` finishes) and a
/// git operation in progress (merge, rebase, …). Changes nothing.
#[derive(Debug, clap::Args)]
#[command(after_help = "Example:\n  git clada status\n  git clada status --format json")]
pub struct Args {}

pub fn run(_args: Args, global: Global) -> anyhow::Result<Outcome> {
    let repo = Repo::discover(&std::env::current_dir()?)?;
    let report = log::status(&repo)?;
    match global.format_or_default() {
        Format::Json => crate::cli::print_json(&report)?,
        Format::Human | Format::Llm => print!(
            "{}",
            crate::history::render::status_report(&report, global.shown())
        ),
    }
    Ok(Outcome::Success)
}
