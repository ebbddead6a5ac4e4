//! `git clada stats`: AI, human and unknown lines of a range, per commit, agent and model,
//! file and week (argument handling only; the work is in `history::stats` and
//! `history::stats_page`).

use crate::cli::{Format, FormatArg, Global};
use clada_base::error::{Outcome, Refusal};
use clada_engine::history::{stats, stats_page, HistoryError};
use clada_git::Repo;

/// Count the lines of a range by who wrote them: AI (per agent and model), human or unknown.
///
/// For the commits of RANGE (every commit it reaches, merged branches too, as git log and
/// git blame see them): the lines they added, and those still in RANGE's last version, split
/// by their origin in the authorship logs (refs/notes/ai) as `git clada blame` reads them;
/// per commit, per agent and model, per file and per week. `--format markdown` prints the
/// summary a pull request or a CI job shows, `--format html` one self-contained page.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Example:\n  git clada stats\n  git clada stats origin/main..HEAD --format markdown\n  git clada stats --format html > ai-share.html"
)]
pub struct Args {
    /// `BASE..HEAD` (the commits HEAD reaches and BASE does not, as `git log BASE..HEAD`) or
    /// `HEAD` (every commit it reaches). Default: HEAD.
    #[arg(value_name = "RANGE")]
    pub range: Option<String>,
}

pub fn run(args: Args, global: Global, document: Option<FormatArg>) -> anyhow::Result<Outcome> {
    let repo = Repo::discover(&std::env::current_dir()?)?;
    if let Some(range) = args.range.as_deref().filter(|r| r.starts_with('-')) {
        return Err(Refusal(format!("`{range}` is not a range")).into());
    }
    let report = match stats::stats(&repo, args.range.as_deref()) {
        Ok(r) => r,
        Err(HistoryError::Refused(msg)) => return Err(Refusal(msg).into()),
        Err(e) => return Err(e.into()),
    };
    match (document, global.format_or_default()) {
        (Some(FormatArg::Markdown), _) => crate::cli::print(&stats_page::markdown(&report))?,
        (Some(_), _) => crate::cli::print(&stats_page::page(&report))?,
        (None, Format::Json) => crate::cli::print_json(&report)?,
        (None, _) => crate::cli::print(&stats::render(&report))?,
    }
    Ok(Outcome::Success)
}
