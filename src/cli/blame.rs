//! `git clada blame`: git's blame with each line's origin from the authorship logs (argument
//! handling only; the work is in `history::blame`).

use crate::cli::{Format, Global};
use clada_base::error::{Outcome, Refusal, UsageError};
use clada_engine::history::{blame, HistoryError};
use clada_git::Repo;

/// Show who wrote each line of a file: the last commit that changed it and whether an AI wrote it.
///
/// For every line, git's blame (the commit that last changed it) and, from that commit's
/// authorship log in refs/notes/ai (the Git AI Standard), its origin: ai (with the agent,
/// model, session and the stored reply of a git-clada AI commit), human, or unknown (a commit
/// without a log). The human format is git blame's with the agent/model in the name column.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Example:\n  git clada blame src/app.py\n  git clada blame src/app.py HEAD~3 -L 10,20 --format json"
)]
pub struct Args {
    /// The file, relative to the repository's root.
    #[arg(value_name = "PATH")]
    pub path: String,

    /// The commit whose version is blamed (default HEAD).
    #[arg(value_name = "REV")]
    pub rev: Option<String>,

    /// Only lines A to B (1-based, inclusive), as `git blame -L A,B`.
    #[arg(short = 'L', value_name = "A,B", value_parser = parse_range)]
    pub lines: Option<(u32, u32)>,
}

fn parse_range(text: &str) -> Result<(u32, u32), String> {
    let (a, b) = text
        .split_once(',')
        .ok_or_else(|| format!("`{text}`: expected A,B (two line numbers)"))?;
    let n = |s: &str| s.trim().parse::<u32>().ok().filter(|&n| n > 0);
    match (n(a), n(b)) {
        (Some(a), Some(b)) if a <= b => Ok((a, b)),
        _ => Err(format!("`{text}`: expected A,B with 1 <= A <= B")),
    }
}

pub fn run(args: Args, global: Global) -> anyhow::Result<Outcome> {
    let repo = Repo::discover(&std::env::current_dir()?)?;
    if args.path.starts_with('-') {
        return Err(UsageError(format!("`{}` is not a path", args.path)).into());
    }
    let report = match blame::blame(&repo, &args.path, args.rev.as_deref(), args.lines) {
        Ok(r) => r,
        Err(HistoryError::Refused(msg)) => return Err(Refusal(msg).into()),
        Err(e) => return Err(e.into()),
    };
    match global.format_or_default() {
        Format::Json => crate::cli::print_json(&report)?,
        _ => crate::cli::print(&blame::render(&report, global.shown()))?,
    }
    Ok(Outcome::Success)
}
