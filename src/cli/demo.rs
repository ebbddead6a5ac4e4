//! `git clada demo`: apply the bundled example reply in a scratch repository.

use crate::cli::{not_implemented, Global};
use crate::error::Outcome;

/// Create a scratch repository in a temporary directory, apply the bundled example reply,
/// print the report and the commit, then undo it.
#[derive(Debug, clap::Args)]
#[command(after_help = "Example:\n  git clada demo")]
pub struct Args {
    /// Keep the scratch repository and print its path.
    #[arg(long)]
    pub keep: bool,
}

pub fn run(_args: Args, _global: Global) -> anyhow::Result<Outcome> {
    Err(not_implemented("demo"))
}
