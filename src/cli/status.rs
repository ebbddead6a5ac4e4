//! `git clada status`: where you are (stepped back? last clada operation?). Argument
//! handling only; the work is in `history::log`.

use crate::cli::{Format, Global};
use clada_base::error::Outcome;
use clada_engine::history::log;
use clada_git::Repo;

/// Say where you are: the branch, whether you are stepped back (and how far), and the last
/// clada operation that undo would take back.
///
/// Also reports an interrupted git-clada operation (which `git clada undo` finishes) and a
/// git operation in progress (merge, rebase, …). Changes nothing but what --ack says.
///
/// Also names the files a git hook calls that a reply changed and you have not committed or
/// marked reviewed: your own next `git commit` runs them outside any sandbox.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Example:\n  git clada status\n  git clada status --format json\n  git clada status --ack scripts/lint.sh"
)]
pub struct Args {
    /// Mark PATH reviewed: a file a hook calls that a reply changed, which status names until
    /// you commit it or mark it so.
    #[arg(long, value_name = "PATH")]
    pub ack: Vec<String>,
}

pub fn run(args: Args, global: Global) -> anyhow::Result<Outcome> {
    let repo = Repo::discover(&std::env::current_dir()?)?;
    for path in &args.ack {
        if !clada_engine::record::called::ack(&repo, path)? {
            return Err(anyhow::Error::new(clada_base::error::UsageError(format!(
                "--ack {path}: no reply changed that file for a hook to run (git clada status \
                 names the ones waiting for you)"
            ))));
        }
    }
    let report = log::status(&repo)?;
    match global.format_or_default() {
        Format::Json => crate::cli::print_json(&report)?,
        Format::Human | Format::Llm => crate::cli::print(
            &clada_engine::history::render::status_report(&report, global.shown()),
        )?,
    }
    Ok(Outcome::Success)
}
