//! `apply` as a git transaction (DESIGN §6).
//!
//! Order of work, chosen so that every point of failure leaves a recoverable state:
//!
//! 1. parse, plan and sandbox-check the reply; nothing valid → report, git untouched;
//! 2. take the clada lock; refuse (nothing changed) during merges/rebases/…, on an unborn
//!    branch, while stepped back, with an interrupted transaction, without an identity;
//! 3. status; record the user's tracked work in snapshot trees (blobs only, no ref moves);
//! 4. write the journal (prior state of every path the reply may write, untracked files saved
//!    as blobs) — from here on `git clada undo` can roll everything back;
//! 5. execute the actions (the engine writes files atomically, one by one);
//! 6. collect the changed paths (file actions, plus what exec changed), build the new tree by
//!    editing the base tree (only changed paths hashed), write the index with them staged;
//! 7. hooks (`pre-commit`, `commit-msg`); a failing hook leaves the changes staged, no commit;
//! 8. write the snapshot and AI commits, record the commit in the journal, move the branch
//!    with compare-and-swap, store the apply record, notes, `post-commit`; drop the journal.
//!
//! One file per phase, in that order: [`state`] (2–3: the refusals and the state read under
//! the lock), [`begin`] (3–4: snapshot trees, the journal, git's index lock), [`run`] (5, then
//! the sequence of the phases after it), [`collect`] (6: which paths changed), [`build`] (6:
//! the trees), [`stage`] (6–7: the index and the hooks), [`publish`] (8: the commits, the
//! branch move, the record; or the record of an apply that commits nothing). Beside them:
//! [`rollback`] (taking the reply back when the transaction cannot finish), [`dry_run`] (the
//! same first steps, nothing written) and [`records`] (the refs and the record tree that keep
//! an apply undoable after the journal is gone). This file holds the entry point and the
//! types callers see.

mod begin;
mod build;
mod collect;
mod dry_run;
mod publish;
mod records;
mod rollback;
mod run;
mod stage;
mod state;

use std::path::Path;

use crate::action::{self, EngineOptions, Execution};
use crate::input::Reply;
use crate::sandbox::{Sandbox, SandboxError};
use clada_git::{ObjectId, Repo, RepoError};
use clada_read::Dialect;

use super::journal::JournalError;
use super::restore::RestoreError;

pub use records::{
    is_recorded, kept_ref, pending_ref, previous_pending, put_pending, read_record, record_journal,
    record_ref, restore_pending, AgentChanges, RECORDS_REF,
};
pub use stage::HOOK_REFUSED_TURN;
pub use state::refuse_if_busy;

use begin::Transaction;
use state::Start;

/// How to apply.
#[derive(Debug, Clone, Default)]
pub struct ApplyOptions {
    pub dialect: Dialect,
    /// Permit paths outside the worktree (never committed).
    pub allow_outside: bool,
    /// All or nothing: restore everything and commit nothing if any block fails.
    pub atomic: bool,
    /// Stage the changes but do not commit.
    pub no_commit: bool,
    /// Skip the pre-commit, commit-msg and post-commit hooks.
    pub no_verify: bool,
    /// Refuse a dirty worktree.
    pub no_snapshot: bool,
    /// Record the user's uncommitted work in a snapshot commit on the branch before the AI
    /// commit (the behaviour before uncommitted work stayed uncommitted).
    pub wip_commit: bool,
    /// Replaces the generated subject.
    pub message: Option<String>,
    /// `(name, email)` of the AI commit's author (`--git-author`); the committer, and the
    /// snapshot of the user's work, keep the user's identity.
    pub author: Option<(String, String)>,
    /// Engine options; `engine.dry_run` makes the whole apply a dry run.
    pub engine: EngineOptions,
    /// Path globs the sandbox refuses (config `paths.deny`).
    pub paths_deny: Vec<String>,
    /// Replies may write `.clada.yml` and `.clada/` (config `paths.protect_config: false`).
    pub config_writable: bool,
    /// Replies may write hook files (the user's own `paths.protect_hooks: false`).
    pub hooks_writable: bool,
    /// `Co-authored-by` value (config `commit.coauthor`); else git config `clada.coauthor`.
    pub coauthor: Option<String>,
    /// `hooks.before` / `hooks.after` from the configuration (see `crate::exec::clada_hooks`).
    pub hooks: crate::exec::clada_hooks::Hooks,
    /// Run the reply even when it is the one applied last and its files are as it left them
    /// (a reply pasted again); without it its blocks are reported "already applied" and not
    /// run. MCP calls and `watch` set it: each call is a new intent, and `watch` keeps its
    /// own set of applied blocks.
    pub force: bool,
    /// More refs to move in the same ref transaction as the branch (or as the pending record
    /// of an apply that commits nothing): `watch` records its applied blocks this way, so a
    /// kill never separates the commit from that record.
    pub also_refs: Option<AlsoRefs>,
    /// A long-lived process's memory of the worktree's stat data (`git clada mcp`), so an
    /// apply need not `lstat` every tracked file again (see `repo::StatCache`).
    pub stat_cache: Option<clada_git::StatCache>,
    /// A long-lived process's memory of objects read and written (`git clada mcp`): the
    /// trees and notes the last call wrote are the ones the next reads (see
    /// `repo::ObjectCache`).
    pub object_cache: Option<clada_git::ObjectCache>,
    /// A long-lived process's opened repository (`git clada mcp`), kept while nothing it was
    /// opened from changed (see `repo::OpenCache`).
    pub open_cache: Option<clada_git::OpenCache>,
    /// Commit the AI changes an earlier apply left pending even when the reply has nothing
    /// to do (`git clada commit`).
    pub finish_pending: bool,
    /// The MCP session the apply is a tool call of: a `Clada-Session` trailer on the commit.
    pub session: Option<String>,
    /// Who the AI commit's authorship log (`refs/notes/ai`) names, or no log.
    pub provenance: crate::record::provenance::Agent,
    /// An agent's turn commit takes its subject from the user's prompt (`agent.subject:
    /// prompt`, the user's own configuration), not from what changed.
    pub prompt_subject: bool,
}

/// Makes the extra ref updates of an apply, given its commit (`None`: it committed nothing).
#[derive(Clone)]
pub struct AlsoRefs(
    #[allow(clippy::type_complexity)]
    pub  std::sync::Arc<
        dyn Fn(&Repo, Option<ObjectId>) -> Result<Vec<clada_git::RefUpdate>, RepoError>
            + Send
            + Sync,
    >,
);

impl std::fmt::Debug for AlsoRefs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("AlsoRefs(..)")
    }
}

/// What an apply did.
#[derive(Debug)]
pub struct ApplyOutcome {
    /// The report, with the git fields (`gitCommit`, `snapshotCommit`, `steps`, `warnings`)
    /// filled in.
    pub execution: Execution,
    pub commit: Option<ObjectId>,
    pub snapshot: Option<ObjectId>,
    /// With `--dry-run`: the diff that would be committed.
    pub diff: Option<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum ApplyError {
    /// Refused for safety; nothing was changed (exit 3).
    #[error("{0}")]
    Refused(String),
    #[error(transparent)]
    Repo(#[from] RepoError),
    #[error(transparent)]
    Journal(#[from] JournalError),
    #[error(transparent)]
    Restore(#[from] RestoreError),
    #[error(transparent)]
    Sandbox(#[from] SandboxError),
    /// The reply's blocks ran but recording them failed and could not be taken back on the
    /// spot (a full disk after exec ran, say): the report lists the blocks that ran, its
    /// `fatalError` says why and that `git clada undo` restores the state before the apply
    /// (the journal stays). Exit 1: something was changed.
    #[error("{}", .0.result.fatal_error.as_deref().unwrap_or("recording the apply failed"))]
    NotRecorded(Box<Execution>),
}

/// Applies `reply` to the repository containing `cwd`.
pub fn apply(cwd: &Path, reply: &Reply, opts: &ApplyOptions) -> Result<ApplyOutcome, ApplyError> {
    let mut repo = match &opts.open_cache {
        Some(cache) => Repo::discover_kept(cwd, cache)?,
        None => Repo::discover(cwd)?,
    };
    clada_base::trace::phase("discover");
    if let Some(cache) = &opts.stat_cache {
        repo.use_stat_cache(cache.clone());
    }
    if let Some(cache) = &opts.object_cache {
        repo.use_object_cache(cache.clone());
    }
    apply_in(&repo, reply, opts)
}

/// [`apply`] to a repository the caller has already opened. Its report says once what the
/// sandbox went without and which variables its blocks and hooks did not get, when they ran
/// (`exec::notices`).
pub fn apply_in(
    repo: &Repo,
    reply: &Reply,
    opts: &ApplyOptions,
) -> Result<ApplyOutcome, ApplyError> {
    crate::exec::notices::begin();
    let mut result = apply_opened(repo, reply, opts);
    // What was not said where the commit's report was stored (`publish::said_once`): an
    // apply that stored none, or processes that ran after it (post-commit).
    let (cleared, notices) = publish::said_once(opts);
    match &mut result {
        Ok(o) => {
            o.execution.result.warnings.extend(cleared);
            o.execution.result.warnings.extend(notices);
        }
        Err(ApplyError::NotRecorded(e)) => e.result.warnings.extend(notices),
        Err(_) => {}
    }
    result
}

fn apply_opened(
    repo: &Repo,
    reply: &Reply,
    opts: &ApplyOptions,
) -> Result<ApplyOutcome, ApplyError> {
    clada_base::trace::phase("open");
    // hooks.before changes the user's state, so it runs before any of it is read.
    let (before, before_ok) = match opts.engine.dry_run {
        true => (Vec::new(), true),
        false => crate::exec::clada_hooks::run(
            "before",
            &opts.hooks.before,
            repo.workdir(),
            &super::githooks::configured(repo, &opts.hooks),
            &[],
            false,
        ),
    };
    // The repository-sized work (reading the index, comparing it with the worktree) runs in
    // the background while the reply is parsed and the lock taken; `finish_status` redoes it
    // if the index changed in between.
    let prefetch = repo.prefetch_status();
    let parsed = clada_read::parse(&reply.text, opts.dialect);
    let sandbox = Sandbox::new(repo.workdir(), opts.allow_outside)?
        .guard_git_dirs(&[repo.git_dir(), repo.common_dir()])
        .refuse_nested_repositories(&repo.declared_submodules())
        .deny_paths(&opts.paths_deny)
        .allow_config_writes(opts.config_writable)
        .protect(super::githooks::protected_set(repo, &[]))
        .allow_hook_writes(opts.hooks_writable);
    // The replacer format's suffix rule searches the tracked files.
    let sandbox = match crate::action::needs_tracked(&parsed) {
        true => sandbox.with_tracked(repo.tracked_paths()),
        false => sandbox,
    };
    let plan = action::plan(&parsed, &sandbox);
    clada_base::trace::phase("parse+plan");
    if !before_ok {
        let mut execution = action::execute(
            &action::Plan {
                actions: Vec::new(),
                ..plan.clone()
            },
            &sandbox,
            &opts.engine,
        );
        execution.result.steps = before;
        execution
            .result
            .warnings
            .push("a hooks.before command failed, so no block of the reply was applied".into());
        execution.result.update_success();
        return Ok(uncommitted(execution));
    }

    if plan.nothing_to_do() && !opts.finish_pending {
        let mut execution = action::execute(&plan, &sandbox, &opts.engine);
        execution.result.steps = before;
        execution.result.update_success();
        return Ok(uncommitted(execution));
    }

    // A dry run reads the state without taking the lock, so it changes nothing, not even
    // the lock file.
    let dry = opts.engine.dry_run;
    let _lock = if dry { None } else { Some(repo.lock()?) };
    let mut start = Start::read(repo, &plan, opts, prefetch)?;
    // The gitlinks are known once the index is read: exec and hooks keep their git
    // directories too.
    let nested = super::githooks::nested_git(repo, sandbox.root(), &start.index.gitlinks());
    let sandbox = sandbox.protect_git(nested);
    let opts = &with_repository(opts, &sandbox, repo, &start.index);
    let mut plan = plan;
    if !opts.force
        && !matches!(opts.dialect, clada_read::Dialect::Only(f) if f == clada_read::Format::TOOL_CALL)
    {
        records::mark_repeated_reply(
            repo,
            &mut plan,
            start.head_commit,
            start.head.branch(),
            &reply.text,
        )?;
    }
    if dry {
        return dry_run::dry_run(&plan, &sandbox, opts, &start.status);
    }
    let mut tx = Transaction::begin(repo, reply, &plan, &start)?;

    let mut execution = run::execute(&plan, &sandbox, opts, before);
    execution.result.warnings.append(&mut tx.warnings);
    // Kept to take the reply back should recording it fail (a full disk, say).
    let ran = execution.clone();
    let result = match tx.after_hooks(&start, opts, &mut execution) {
        Ok(()) => tx.run(&mut start, opts, reply, execution),
        Err(e) => Err(e),
    };
    match result {
        Err(ApplyError::Repo(e)) => rollback::after_failure(repo, &start, ran, e.to_string()),
        Err(ApplyError::Journal(e)) => rollback::after_failure(repo, &start, ran, e.to_string()),
        other => other,
    }
}

/// `opts` with the sandbox's protected set for the hooks (what exec gets from the sandbox).
/// `opts` with what the repository decides: the protected set hooks keep, and whether its
/// worktree has symbolic links (`core.symlinks`).
fn with_repository(
    opts: &ApplyOptions,
    sandbox: &Sandbox,
    repo: &Repo,
    index: &clada_git::Index,
) -> ApplyOptions {
    let mut opts = opts.clone();
    opts.hooks.policy.protected = Some(sandbox.guarded());
    opts.engine.symlinks = repo.symlinks();
    if !opts.engine.symlinks {
        // The files that stand for the index's links (git checks links out so here).
        let links = index
            .entries()
            .into_iter()
            .filter(|(_, e)| e.kind == clada_git::EntryKind::Link)
            .map(|(p, _)| sandbox.root().join(p.to_string()))
            .collect();
        opts.engine.link_stand_ins = std::sync::Arc::new(links);
    }
    opts
}

/// The outcome of an apply that committed nothing (its report finalised).
fn uncommitted(mut execution: Execution) -> ApplyOutcome {
    execution.result.update_success();
    ApplyOutcome {
        execution,
        commit: None,
        snapshot: None,
        diff: None,
    }
}
