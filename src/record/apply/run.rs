//! Phase 5 and the sequence after it: the actions run (the engine writes files atomically, one
//! by one), then `hooks.after`, whose changes are collected with exec's. [`Transaction::run`]
//! then drives the rest in order: collect the changed paths; roll everything back when the
//! reply must be all or nothing; take git's index lock (with exec only now, as exec may run
//! git itself) and check nothing moved; build the trees; then stage only (`--no-commit`),
//! commit, or close an apply that changed nothing tracked.

use crate::action::{self, Execution, Step};
use crate::read::input::Reply;
use crate::repo::{BString, Repo, RepoError};
use crate::sandbox::Sandbox;

use super::super::journal::Journal;
use super::begin::Transaction;
use super::build::{index_updates, with_updates};
use super::rollback::roll_back;
use super::state::Start;
use super::{uncommitted, ApplyError, ApplyOptions, ApplyOutcome};

/// Runs the reply's actions, then `hooks.after` (a formatter, the tests), which sees the
/// reply's result; what it changes is collected with exec's changes (`has_exec`). `before`
/// are the steps of `hooks.before`, reported first.
pub(super) fn execute(
    repo: &Repo,
    plan: &action::Plan,
    sandbox: &Sandbox,
    opts: &ApplyOptions,
    before: Vec<Step>,
) -> Execution {
    let mut execution = action::execute(plan, sandbox, &opts.engine);
    crate::base::trace::phase("execute");
    let (after, _) =
        crate::exec::hooks::run("after", &opts.hooks.after, repo.workdir(), &opts.hooks);
    execution
        .result
        .steps
        .extend(before.into_iter().chain(after));
    execution.result.update_success();
    crate::base::failpoint::hit("apply:after-execute");
    execution
}

impl Transaction<'_> {
    /// Everything after the actions ran: collect, build, stage, hooks, commit, record.
    pub(super) fn run(
        mut self,
        start: &mut Start,
        opts: &ApplyOptions,
        reply: &Reply,
        mut execution: Execution,
    ) -> Result<ApplyOutcome, ApplyError> {
        let repo = self.repo;
        let changed = self.collect_changes(start, &mut execution)?;
        let hook_failed = opts.hooks.rollback_on_failure
            && execution
                .result
                .steps
                .iter()
                .any(|s| !s.success && crate::exec::hooks::is_hook_step(s));
        if (opts.atomic && !execution.result.success) || hook_failed {
            roll_back(repo, &self.journal, &execution, &changed)?;
            Journal::remove(repo)?;
            let cause = if opts.atomic {
                "--atomic"
            } else {
                "hooks.rollback_on_failure"
            };
            crate::report::mark_rolled_back(&mut execution.result, cause);
            return Ok(uncommitted(execution));
        }
        // From here on git's index lock is held (with exec it is taken only now, as exec
        // may have run git commands itself).
        let lock = index_lock(
            self.early_lock.take(),
            repo,
            &self.journal,
            &execution,
            &changed,
        )?;
        if start.has_exec {
            if let Some(what) = start.moved(repo)? {
                // Exec ran git itself (or another git command ran meanwhile): committing on
                // top would mix the two, and rolling back would undo what exec meant to do.
                drop(lock);
                Journal::remove(repo)?;
                execution.result.warnings.push(format!(
                    "exec changed git's state ({what}), so git-clada committed nothing and left the repository exactly as the reply's actions and exec left it (see `git status`); `git clada undo` cannot take this reply back"
                ));
                return Ok(uncommitted(execution));
            }
        }
        crate::base::failpoint::hit("apply:index-locked");
        let built = self.build(start, opts, &changed, &execution)?;
        crate::base::trace::phase("ignore check+hash+tree");
        crate::base::failpoint::hit("apply:after-tree");

        if built.changes.is_empty() {
            drop(lock);
            return self.close_uncommitted(start, reply, execution, None);
        }
        if opts.no_commit {
            let updates = index_updates(&built.changes, &built.changes);
            lock.commit(&with_updates(repo, &start.index, &updates)?)?;
            let after_index = repo.edit_tree(self.index_tree, &built.changes)?;
            execution.result.steps.push(Step {
                name: "stage".into(),
                success: true,
                output: format!(
                    "--no-commit: {} path(s) staged, nothing committed; review with `git diff --cached`, take back with `git clada undo`",
                    built.changes.len()
                ),
            });
            return self.close_uncommitted(
                start,
                reply,
                execution,
                Some((built.after_tree, after_index)),
            );
        }
        self.commit(start, opts, reply, execution, built, lock)
    }
}

/// git's index lock: the one taken before the actions ran, or (the exec case) taken now. When
/// another git command holds it now, the reply's changes are rolled back so the failure leaves
/// nothing behind.
fn index_lock(
    early: Option<crate::repo::IndexLock>,
    repo: &Repo,
    journal: &Journal,
    execution: &Execution,
    changed: &[BString],
) -> Result<crate::repo::IndexLock, ApplyError> {
    if let Some(lock) = early {
        return Ok(lock);
    }
    let err = match repo.lock_index() {
        Ok(lock) => return Ok(lock),
        Err(err) => err,
    };
    roll_back(repo, journal, execution, changed)?;
    Journal::remove(repo)?;
    Err(ApplyError::Repo(RepoError::Invalid(format!(
        "{err} (the reply's changes were rolled back; nothing was committed)"
    ))))
}
