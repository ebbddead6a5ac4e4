//! `git clada watch`: the listener.

use std::path::PathBuf;

use crate::cli::{not_implemented, Global};
use crate::error::Outcome;

/// Watch FILE and apply new blocks whenever it changes (planned).
#[derive(Debug, clap::Args)]
#[command(after_help = "Example:\n  git clada watch chat.md")]
pub struct Args {
    /// The file to watch.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
}

pub fn run(_args: Args, _global: Global) -> anyhow::Result<Outcome> {
    Err(not_implemented("watch"))
}
