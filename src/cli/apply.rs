//! `git clada apply`: parse, validate, execute and commit one LLM reply.

use std::path::PathBuf;

use crate::cli::parse::DialectArg;
use crate::cli::{not_implemented, Global};
use crate::error::Outcome;

/// Apply the action blocks of an LLM reply and commit the result as one AI commit.
///
/// Every block is parsed and validated, every path is checked against the sandbox before
/// anything runs, then the valid actions run in order. A failed block does not stop later
/// ones (use --atomic for all-or-nothing). Uncommitted work is first recorded in a snapshot
/// commit so `git clada undo` restores it exactly. The report goes to stdout.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  git clada apply reply.md\n  llm 'add a --verbose flag' | git clada apply -\n  git clada apply --no-git --format json reply.md"
)]
pub struct Args {
    /// The reply to apply; `-` or nothing reads standard input.
    #[arg(value_name = "FILE")]
    pub file: Option<PathBuf>,

    /// Block spelling: auto picks SHAM, NESL or nesl per block from its header.
    #[arg(long, value_enum, default_value_t = DialectArg::Auto)]
    pub dialect: DialectArg,

    /// Run the actions without git: paths are relative to the current directory, nothing is
    /// committed.
    #[arg(long)]
    pub no_git: bool,

    /// Permit absolute paths outside the worktree (such changes are never committed).
    #[arg(long)]
    pub allow_outside: bool,

    /// All-or-nothing: if any block fails, restore every file and commit nothing.
    #[arg(long)]
    pub atomic: bool,

    /// Apply and stage the changes but do not commit.
    #[arg(long)]
    pub no_commit: bool,

    /// Do not run the pre-commit, commit-msg and post-commit hooks.
    #[arg(long)]
    pub no_verify: bool,

    /// Refuse a dirty worktree instead of recording it in a snapshot commit first.
    #[arg(long)]
    pub no_snapshot: bool,

    /// Use MESSAGE as the commit subject instead of the generated `AI: …` summary.
    #[arg(short = 'm', long = "message", value_name = "MESSAGE")]
    pub message: Option<String>,

    /// Policy for `exec` blocks: ask on a terminal, allow, or deny. Default: ask on a
    /// terminal, deny otherwise.
    #[arg(long, value_enum, value_name = "POLICY")]
    pub exec: Option<ExecPolicyArg>,
}

/// Policy for running `exec` blocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ExecPolicyArg {
    /// Show the code and ask y/n/always (terminal only).
    Ask,
    /// Run every exec block.
    Allow,
    /// Refuse every exec block.
    Deny,
}

pub fn run(_args: Args, _global: Global) -> anyhow::Result<Outcome> {
    Err(not_implemented("apply"))
}
