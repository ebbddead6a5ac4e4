//! `git clada show`: the stored reply and result report of one AI commit. Argument handling
//! only; the work is in `history::log`.

use crate::cli::{Format, Global};
use clada_base::error::{Outcome, Refusal};
use clada_engine::history::{log, HistoryError};
use clada_engine::report::{self, ReportFormat};
use clada_git::Repo;

/// Show the reply an AI commit was made from and its result report.
///
/// Prints the reply text stored with the commit (`refs/notes/clada-reply`) and the result
/// report stored as a note (`refs/notes/clada`), rendered in the chosen format: human, llm
/// (the paste-back block) or json (one object with the reply and the stored report). For a
/// squashed commit, every original reply with its report, oldest first; for a snapshot
/// commit, the paths of your own work it recorded; for an agent's turn (no reply), the agent,
/// its session and model and each tool call with the paths it changed. Exit status 3 when REV
/// is not a git-clada commit (or not a commit at all).
#[derive(Debug, clap::Args)]
#[command(after_help = "Example:\n  git clada show\n  git clada show HEAD~2 --format json")]
pub struct Args {
    /// The commit to show (default HEAD).
    #[arg(value_name = "REV")]
    pub rev: Option<String>,
}

pub fn run(args: Args, global: Global) -> anyhow::Result<Outcome> {
    let repo = Repo::discover(&std::env::current_dir()?)?;
    let rev = args.rev.as_deref().unwrap_or("HEAD");
    let shown = match log::show(&repo, rev) {
        Ok(s) => s,
        Err(HistoryError::Refused(msg)) => return Err(Refusal(msg).into()),
        Err(e) => return Err(e.into()),
    };
    let format = match global.format_or_default() {
        Format::Json => {
            crate::cli::print_json(&shown)?;
            return Ok(Outcome::Success);
        }
        Format::Human => ReportFormat::Human,
        Format::Llm => ReportFormat::Llm,
    };
    let color = report::use_color(clada_base::term::stdout_is_terminal());
    crate::cli::print(&clada_engine::history::render::show_report(
        &shown,
        format,
        color,
        global.shown(),
    ))?;
    Ok(Outcome::Success)
}
