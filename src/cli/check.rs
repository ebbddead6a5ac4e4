//! `git clada check`: parse and validate replies without side effects.

use std::path::PathBuf;

use crate::cli::parse::DialectArg;
use crate::cli::{not_implemented, Global};
use crate::error::Outcome;

/// Parse and validate replies without changing anything; exit 1 on any error.
///
/// Meant for hooks and CI: every block is parsed and checked against the action schema and
/// the path sandbox, nothing is executed.
#[derive(Debug, clap::Args)]
#[command(after_help = "Example:\n  git clada check reply.md")]
pub struct Args {
    /// Replies to check; `-` or nothing reads standard input.
    #[arg(value_name = "FILE")]
    pub files: Vec<PathBuf>,

    /// Block spelling: auto picks SHAM, NESL or nesl per block from its header.
    #[arg(long, value_enum, default_value_t = DialectArg::Auto)]
    pub dialect: DialectArg,
}

pub fn run(_args: Args, _global: Global) -> anyhow::Result<Outcome> {
    Err(not_implemented("check"))
}
