//! `git clada commit`: the AI commit of changes an apply left pending.

use anyhow::Context;

use crate::cli::Global;
use crate::cli::{engine_options_for, finish_report, ExecFlags};
use crate::loops::options::{config_author, configured};
use clada_base::error::{Outcome, Refusal};
use clada_engine::record::apply::{ApplyError, ApplyOptions};

/// Commit the AI's changes that an apply left pending, as their AI commit.
///
/// When a hook (pre-commit, commit-msg) fails, `git clada apply` commits nothing and the AI's
/// changes stay in the worktree, pending. The next apply's AI commit includes them; this
/// commits them now (fix what the hook reported first). Your own uncommitted work stays
/// uncommitted, as with apply.
#[derive(Debug, clap::Args)]
#[command(after_help = "Example:\n  git clada commit")]
pub struct Args {
    /// Do not run the pre-commit, commit-msg and post-commit hooks.
    #[arg(long)]
    pub no_verify: bool,

    /// Replaces the generated subject of the AI commit.
    #[arg(short, long, value_name = "SUBJECT")]
    pub message: Option<String>,
}

pub fn run(args: Args, global: Global) -> anyhow::Result<Outcome> {
    let cwd = std::env::current_dir().context("cannot determine the current directory")?;
    let (cfg, root) = clada_engine::config::load_with_root(&cwd)?;
    let root = root.unwrap_or_else(|| cwd.clone());
    let (engine, _) = engine_options_for(&ExecFlags::default(), &global, &cfg, &root)?;
    let opts = ApplyOptions {
        no_verify: args.no_verify,
        message: args.message.clone(),
        author: config_author(&cfg)?,
        finish_pending: true,
        ..configured(&cfg, engine)
    };
    let reply = clada_engine::input::Reply {
        text: String::new(),
        source: "git clada commit".into(),
    };
    let outcome = match clada_engine::record::apply::apply(&cwd, &reply, &opts) {
        Ok(o) => o,
        Err(ApplyError::Refused(msg)) => return Err(Refusal(msg).into()),
        Err(ApplyError::NotRecorded(ran)) => return finish_report(&ran, &global),
        Err(e) => return Err(e.into()),
    };
    if outcome.commit.is_none() && global.dry_run {
        return finish_report(&outcome.execution, &global);
    }
    if outcome.commit.is_none() && outcome.execution.result.success {
        return Err(Refusal(
            "nothing is pending: no apply left AI changes uncommitted on this branch (or the files changed since)".into(),
        )
        .into());
    }
    finish_report(&outcome.execution, &global)
}
