//! `git clada status`: where you are (stepped back? last clada operation?).

use crate::cli::{not_implemented, Global};
use crate::error::Outcome;

/// Say where you are: the branch, whether you are stepped back (and how far), and the last
/// clada operation that undo would take back.
#[derive(Debug, clap::Args)]
#[command(after_help = "Example:\n  git clada status")]
pub struct Args {}

pub fn run(_args: Args, _global: Global) -> anyhow::Result<Outcome> {
    Err(not_implemented("status"))
}
