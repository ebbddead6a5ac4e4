//! `git clada hooks install|uninstall`: git-clada's own git hooks.

use crate::cli::{not_implemented, Global};
use crate::error::Outcome;

/// Install or remove git-clada's git hooks (a pre-commit hook that refuses stray block
/// markers). Existing hook content is preserved; core.hooksPath is respected.
#[derive(Debug, clap::Args)]
#[command(after_help = "Example:\n  git clada hooks install")]
pub struct Args {
    #[command(subcommand)]
    pub action: HooksAction,
}

#[derive(Debug, clap::Subcommand)]
pub enum HooksAction {
    /// Install the hooks.
    Install,
    /// Remove the hooks, keeping any other content of the hook files.
    Uninstall,
}

pub fn run(_args: Args, _global: Global) -> anyhow::Result<Outcome> {
    Err(not_implemented("hooks"))
}
