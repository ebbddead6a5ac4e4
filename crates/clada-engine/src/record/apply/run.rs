//! Phase 5 and the sequence after it: the actions run (the engine writes files atomically, one
//! by one), then `hooks.after`, whose changes are collected with exec's. [`Transaction::run`]
//! then drives the rest in order: collect the changed paths; roll everything back when the
//! reply must be all or nothing; take git's index lock (with exec only now, as exec may run
//! git itself) and check nothing moved; build the trees; then stage only (`--no-commit`),
//! commit, or close an apply that changed nothing tracked.

use crate::action::{self, Execution, Step};
use crate::input::Reply;
use crate::sandbox::Sandbox;
use clada_git::{BString, ByteSlice, Repo, RepoError};

use super::super::journal::Journal;
use super::begin::Transaction;
use super::build::{file_entry, index_updates, with_updates};
use super::collect::exec_changes;
use super::rollback::roll_back;
use super::state::Start;
use super::{uncommitted, ApplyError, ApplyOptions, ApplyOutcome};

/// Runs the reply's actions; `before` are the steps of `hooks.before`, reported first.
pub(super) fn execute(
    plan: &action::Plan,
    sandbox: &Sandbox,
    opts: &ApplyOptions,
    before: Vec<Step>,
) -> Execution {
    let mut execution = action::execute(plan, sandbox, &opts.engine);
    clada_base::trace::phase("execute");
    execution.result.steps.extend(before);
    execution
}

impl Transaction<'_> {
    /// `hooks.after` (a formatter, the tests), which sees the reply's result and gets the
    /// paths it changed. What it changes there is collected with exec's changes; what it
    /// changes anywhere else (the user's own dirty files, other files) is put back as it was
    /// before the apply and named in a warning, so the AI commit holds only the AI's change
    /// and the user's work stays as it was.
    pub(super) fn after_hooks(
        &self,
        start: &Start,
        opts: &ApplyOptions,
        execution: &mut Execution,
    ) -> Result<(), ApplyError> {
        if !opts.hooks.after.is_empty() {
            let repo = self.repo;
            let reply_paths = self.reply_paths(start, execution)?;
            let existing: Vec<String> = reply_paths
                .iter()
                .filter(|p| {
                    repo.worktree_metadata(p.as_bstr())
                        .is_ok_and(|m| m.is_some())
                })
                .map(|p| p.to_string())
                .collect();
            let contain = crate::record::githooks::touches_hook_files(
                repo,
                &opts.hooks.policy,
                reply_paths.iter().map(|p| p.to_str().unwrap_or_default()),
            );
            let (after, _) = crate::exec::clada_hooks::run(
                "after",
                &opts.hooks.after,
                repo.workdir(),
                &crate::record::githooks::configured(repo, &opts.hooks),
                &existing,
                contain,
            );
            execution.result.steps.extend(after);
            let outside = self.put_back_outside(start, &reply_paths)?;
            if !outside.is_empty() {
                execution.result.warnings.push(format!(
                    "hooks.after changed {} the reply did not change, so it was put back as it was before the apply: {}",
                    if outside.len() == 1 { "a path" } else { "paths" },
                    outside.join(", ")
                ));
            }
        }
        execution
            .result
            .warnings
            .extend(crate::exec::clada_hooks::warnings(&opts.hooks));
        execution.result.update_success();
        clada_base::failpoint::hit("apply:after-execute");
        Ok(())
    }

    /// The paths the reply changed so far: its file actions' and what its exec blocks
    /// changed (compared with the state the journal recorded).
    fn reply_paths(
        &self,
        start: &Start,
        execution: &Execution,
    ) -> Result<std::collections::BTreeSet<BString>, ApplyError> {
        let mut hasher = self.repo.hasher_with(&start.index)?;
        let mut out: std::collections::BTreeSet<BString> =
            exec_changes(self.repo, start, self.base_tree, &mut hasher)?
                .into_iter()
                .collect();
        out.extend(
            execution
                .changes
                .iter()
                .filter_map(|c| c.rel.as_deref().map(BString::from)),
        );
        Ok(out)
    }

    /// Puts back every path outside `reply_paths` that differs from the state before the
    /// apply (tracked: the worktree tree W; untracked: the journal's saved copy; new: removed);
    /// returns them.
    fn put_back_outside(
        &self,
        start: &Start,
        reply_paths: &std::collections::BTreeSet<BString>,
    ) -> Result<Vec<String>, ApplyError> {
        let repo = self.repo;
        let mut hasher = repo.hasher_with(&start.index)?;
        let now = exec_changes(repo, start, self.base_tree, &mut hasher)?;
        let mut out = Vec::new();
        for p in now.into_iter().filter(|p| !reply_paths.contains(p)) {
            match file_entry(repo, self.base_tree, &p)? {
                Some(e) => repo.write_entry(p.as_bstr(), &e, &mut hasher)?,
                None => {
                    if let Some((dir, name)) = repo.wt_at(p.as_bstr())? {
                        if dir.stat(name).is_ok_and(|m| m.is_some_and(|m| !m.is_dir())) {
                            dir.unlink(name).map_err(clada_git::io_err_pub(
                                "cannot remove",
                                &repo.abs_path(p.as_bstr()),
                            ))?;
                        }
                    }
                }
            }
            out.push(p.to_string());
        }
        Ok(out)
    }
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
                .any(|s| !s.success && crate::exec::clada_hooks::is_hook_step(s));
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
                return self.commit_nothing_after_a_move(start, reply, &what, execution);
            }
        }
        clada_base::failpoint::hit("apply:index-locked");
        let built = self.build(start, opts, &changed, &execution)?;
        clada_base::trace::phase("ignore check+hash+tree");
        clada_base::failpoint::hit("apply:after-tree");

        if built.changes.is_empty() {
            drop(lock);
            return self.close_uncommitted(start, opts, reply, execution, None);
        }
        if let Ok(on_head) = &built.on_head {
            self.journal.uncommitted = on_head
                .uncommitted
                .iter()
                .map(|(p, _)| p.to_string())
                .collect();
            if on_head.commit.is_empty() && !opts.no_commit {
                // Every change overlaps the user's own: nothing to commit; the record lets
                // undo take the changes back.
                drop(lock);
                super::stage::warn_uncommitted(&mut execution, on_head);
                execution.result.warnings.extend(built.displaced.iter().map(|p| {
                    format!(
                        "your uncommitted change to {p} is no longer in the worktree (the reply's change replaced or removed it); `git clada undo` takes the reply back and brings it back exactly"
                    )
                }));
                let index_tree = self.index_tree;
                return self.close_uncommitted(
                    start,
                    opts,
                    reply,
                    execution,
                    Some((built.after_tree, index_tree)),
                );
            }
        }
        if opts.no_commit {
            let updates = index_updates(&built.changes, &built.changes);
            lock.commit(&with_updates(repo, &start.index, &updates)?)?;
            let after_index = repo.edit_tree(self.index_tree, &built.changes)?;
            execution.result.steps.push(Step::new(
                "stage",
                true,
                format!(
                    "--no-commit: {} staged, nothing committed; review with `git diff --cached`, take back with `git clada undo`",
                    clada_read::text::count(built.changes.len(), "path", "paths")
                ),
            ));
            return self.close_uncommitted(
                start,
                opts,
                reply,
                execution,
                Some((built.after_tree, after_index)),
            );
        }
        self.commit(start, opts, reply, execution, built, lock)
    }

    /// HEAD or the branch moved while the reply ran (`what` says how): nothing is committed,
    /// the repository stays as the actions and exec left it, and the user's work from before
    /// the reply is kept under a ref the warning names.
    fn commit_nothing_after_a_move(
        &self,
        start: &Start,
        reply: &Reply,
        what: &str,
        mut execution: Execution,
    ) -> Result<ApplyOutcome, ApplyError> {
        let repo = self.repo;
        // The user's work as it was before the reply stays reachable (exec may have
        // overwritten it: a `git checkout -- FILE`), under a ref the warning names.
        let kept = match start.status.is_dirty() {
            true => Some(self.keep_work_aside(start, reply)?),
            false => None,
        };
        Journal::remove(repo)?;
        let kept = kept.map_or(String::new(), |r| {
            format!("; your uncommitted work from before the reply is kept in {r} (`git stash apply {r}` brings it back)")
        });
        // Who moved it is unknown: an exec block running git, or a person's commit
        // made meanwhile; the message says both.
        let why = match what.strip_prefix("HEAD moved ") {
            Some(rest) => format!(
                "HEAD moved while the reply ran ({rest}: a commit made meanwhile, or git run by an exec block)"
            ),
            None => format!(
                "{what} while the reply ran (git run by an exec block, or another git command)"
            ),
        };
        execution.result.warnings.push(format!(
            "{why}, so git-clada committed nothing and left the repository exactly as the reply's actions and exec left it (see `git status`); `git clada undo` cannot take this reply back{kept}"
        ));
        Ok(uncommitted(execution))
    }
}

impl Transaction<'_> {
    /// The user's work before the apply (W and the index) as a stash-format commit under
    /// `refs/clada/work/<its id>`; returns the ref.
    fn keep_work_aside(&self, start: &Start, reply: &Reply) -> Result<String, ApplyError> {
        let kept = super::publish::kept_work_commit(
            self.repo,
            start,
            self.index_tree,
            self.base_tree,
            &reply.source,
        )?;
        let name = super::records::kept_ref(kept);
        self.repo.update_ref(
            &name,
            kept,
            clada_git::Expected::Any,
            "clada: your uncommitted work before exec changed git's state",
        )?;
        Ok(name)
    }
}

/// git's index lock: the one taken before the actions ran, or (the exec case) taken now. When
/// another git command holds it now, the reply's changes are rolled back so the failure leaves
/// nothing behind.
fn index_lock(
    early: Option<clada_git::IndexLock>,
    repo: &Repo,
    journal: &Journal,
    execution: &Execution,
    changed: &[BString],
) -> Result<clada_git::IndexLock, ApplyError> {
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
