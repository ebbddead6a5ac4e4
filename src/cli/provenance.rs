//! `git clada provenance`: the authorship logs of `refs/notes/ai` (argument handling only;
//! the work is in `history::provenance`).

use crate::cli::{Format, Global};
use clada_base::error::{Outcome, Refusal};
use clada_engine::history::{provenance, HistoryError};
use clada_engine::record::{commit_evidence, rewritten, shared_logs};
use clada_git::Repo;

/// Line-level AI attribution: the Git AI Standard's authorship logs in refs/notes/ai.
///
/// git-clada writes a log on every AI commit it makes (see docs/provenance.md); these
/// commands manage them.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Example:\n  git clada provenance backfill\n  git clada provenance backfill main~20..main"
)]
pub struct Args {
    #[command(subcommand)]
    pub action: Action,
}

#[derive(Debug, clap::Subcommand)]
pub enum Action {
    /// Write the logs of AI commits made before git-clada wrote them.
    ///
    /// Every AI commit git-clada recorded in RANGE that has no log gets the one an apply
    /// writes now: the lines it changed, agent git-clada, model unknown, the session of its
    /// Clada-Session trailer or its reply. Commits that have a log, yours or another tool's,
    /// are left alone. With --dry-run, lists them and writes nothing.
    Backfill {
        /// `A..B` (the first-parent history of B down to A) or `B` (down to the root).
        /// Default: HEAD.
        #[arg(value_name = "RANGE")]
        range: Option<String>,
    },
    /// For git's post-rewrite hook (installed by `git clada hooks install`): carry the logs
    /// of rewritten commits to their new ids, reading git's `<old> <new>` lines on standard
    /// input. Never fails the rewrite: problems are printed and the exit status is 0.
    #[command(hide = true)]
    Rewritten {
        /// What git says rewrote them: amend or rebase.
        #[arg(value_name = "HOW")]
        how: String,
    },
    /// For git's post-commit hook: after a cherry-pick, a merge --squash or a reset --soft,
    /// carry the logs of the commits the new one replaces, where git's evidence names them;
    /// and write the log of a commit holding lines an agent's open checkpoints attribute.
    /// Never fails: problems are printed and the exit status is 0.
    #[command(hide = true)]
    PostCommit,
    /// For git's pre-push hook: push refs/notes/ai to REMOTE where its logs are shared, after
    /// merging what it has (fetching, merging and pushing again when another clone pushed
    /// first). Never asks for credentials and never fails the push: a problem is one line.
    #[command(hide = true)]
    PrePush {
        /// The remote git pushes to (a name; a URL is not shared with).
        #[arg(value_name = "REMOTE")]
        remote: String,
    },
    /// For git's post-merge and post-checkout hooks: merge the logs fetched from the remotes
    /// (refs/notes/remotes/<remote>/ai) into refs/notes/ai. Never fails.
    #[command(hide = true)]
    Fetched,
}

/// Runs a hook's part, printing what went wrong and never failing git's own command.
fn from_hook(what: &str, work: impl FnOnce() -> anyhow::Result<()>) -> anyhow::Result<Outcome> {
    if let Err(e) = work() {
        eprintln!("git-clada {what} hook: {e:#} (the AI line attribution of the new commits is left out; your git command is not affected)");
    }
    Ok(Outcome::Success)
}

/// Whether authorship logs are on in the user's configuration (`provenance: off`).
fn logs_on(repo: &Repo) -> anyhow::Result<bool> {
    Ok(clada_engine::config::load_for_repo(Some(repo))?
        .provenance_log
        .value)
}

pub fn run(args: Args, global: Global) -> anyhow::Result<Outcome> {
    let range = match args.action {
        Action::Backfill { range } => range,
        Action::Rewritten { how } => {
            return from_hook("post-rewrite", || {
                let mut input = String::new();
                std::io::Read::read_to_string(&mut std::io::stdin(), &mut input)?;
                let repo = Repo::discover(&std::env::current_dir()?)?;
                if !logs_on(&repo)? {
                    return Ok(());
                }
                // A pull --rebase fetched the logs of the commits it rebases onto.
                shared_logs::merge_on_read(&repo);
                let (rewrites, bad) = rewritten::parse_rewritten(&input);
                for b in bad {
                    eprintln!("git-clada post-rewrite hook: skipped {b}");
                }
                rewritten::carry_rewritten(&repo, &rewrites, &how)?;
                Ok(())
            });
        }
        Action::PrePush { remote } => {
            let pushed = Repo::discover(&std::env::current_dir()?)
                .map_err(anyhow::Error::from)
                .and_then(|repo| Ok(shared_logs::push_logs(&repo, &remote)?));
            match pushed {
                Ok(None) => {}
                Ok(Some(line)) => eprintln!("{line}"),
                Err(e) => eprintln!("git-clada: the AI attribution logs (refs/notes/ai) were not pushed to {remote}: {e:#}; your push is not affected"),
            }
            return Ok(Outcome::Success);
        }
        Action::Fetched => {
            if let Ok(repo) = Repo::discover(&std::env::current_dir()?) {
                shared_logs::merge_on_read(&repo);
            }
            return Ok(Outcome::Success);
        }
        Action::PostCommit => {
            return from_hook("post-commit", || {
                let repo = Repo::discover(&std::env::current_dir()?)?;
                let logs = logs_on(&repo)?;
                if logs {
                    commit_evidence::after_commit(&repo)?;
                }
                // Lines an agent's checkpoints attribute, committed by the agent or the user.
                // git-ai writes the logs itself where it keeps its working logs (.git/ai).
                let logs = logs && !crate::agent::git_ai_present(&repo);
                crate::agent::committed::after_commit(&repo, logs)?;
                Ok(())
            });
        }
    };
    let repo = Repo::discover(&std::env::current_dir()?)?;
    let report = match provenance::backfill(&repo, range.as_deref(), global.dry_run) {
        Ok(r) => r,
        Err(HistoryError::Refused(msg)) => return Err(Refusal(msg).into()),
        Err(e) => return Err(e.into()),
    };
    match global.format_or_default() {
        Format::Json => crate::cli::print_json(&report)?,
        _ => crate::cli::print(&provenance::render(&report))?,
    }
    Ok(Outcome::Success)
}
