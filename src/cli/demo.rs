//! `git clada demo`: apply the bundled example reply in a scratch repository.

use std::io::IsTerminal;

use crate::cli::Global;
use clada_base::error::Outcome;

/// Create a scratch repository in a temporary directory, apply the bundled example reply,
/// print the report and the commit, then undo it.
#[derive(Debug, clap::Args)]
#[command(after_help = "Example:\n  git clada demo\n  git clada demo --keep")]
pub struct Args {
    /// Keep the scratch repository (its path is printed) instead of deleting it.
    #[arg(long)]
    pub keep: bool,
}

pub fn run(args: Args, _global: Global) -> anyhow::Result<Outcome> {
    let dir = tempfile::Builder::new()
        .prefix("git-clada-demo-")
        .tempdir()?;
    let color = clada_engine::report::use_color(std::io::stdout().is_terminal());
    let text = crate::loops::demo::run(dir.path(), color)?;
    // `say`: a closed stdout must not leave the scratch repository behind (`clada_base::stdout`).
    clada_base::stdout::say(&text)?;
    if args.keep {
        let kept = dir.keep();
        clada_base::stdout::say(&format!(
            "\nThe scratch repository is kept at {}\n",
            kept.display()
        ))?;
    }
    Ok(Outcome::Success)
}
