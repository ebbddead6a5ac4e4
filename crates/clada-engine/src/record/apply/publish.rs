//! Phase 8: making the outcome visible. The snapshot or kept-work commit and the AI commit
//! are written, the journal names the commit, and only then does the branch move (by
//! compare-and-swap, in one ref transaction with the apply record and the notes); git's index
//! lock is released into place after the branch moved, so no `git commit` slips in between.
//! An apply that commits nothing ends here too: its record goes under the pending ref so
//! undo can still take it back. The journal is dropped last.

use crate::action::{Execution, Step};
use crate::input::Reply;
use clada_git::{BString, Expected, IndexLock, ObjectId, RefUpdate, Repo, RepoError, Signature};

use super::super::journal::{Before, Journal, JournalRef, JournalSnapshot};
use super::super::snapshot;
use super::super::REPLY_NOTES_REF;
use super::begin::Transaction;
use super::build::Built;
use super::collect::untracked_after;
use super::records::{kept_ref, pending_ref, record_tree, records_update};
use super::rollback::roll_back;
use super::stage::Written;
use super::state::Start;
use super::{uncommitted, ApplyError, ApplyOptions, ApplyOutcome};

impl Transaction<'_> {
    /// Makes the commit, the record and the notes, and moves the branch, the record refs and
    /// the notes in one ref transaction; then git's index lock is released into place.
    pub(super) fn publish(
        mut self,
        start: &Start,
        opts: &ApplyOptions,
        reply: &Reply,
        mut execution: Execution,
        built: &Built,
        written: Written,
    ) -> Result<ApplyOutcome, ApplyError> {
        let repo = self.repo;
        let Written {
            commit_tree,
            after_tree,
            after_index,
            index_writer,
            msg,
            ..
        } = written;

        let head_commit = start.head_commit;
        let identity = &start.identity;
        let (parent, snap, kept) = self.user_work_commit(start, built, reply)?;
        let author = commit_author(opts, &identity.0);
        let commit =
            repo.write_branch_commit(commit_tree, &[parent], &msg, &author, &identity.1)?;
        let keeper = match (kept, &snap) {
            (Some(_), _) => Some(kept_ref(commit)),
            (None, Some(s)) => Some(s.commit.to_string()),
            (None, None) => None,
        };
        if let Some(keeper) = keeper {
            execution.result.warnings.extend(
                built
                    .displaced
                    .iter()
                    .map(|p| displaced_warning(p, &keeper)),
            );
        }
        self.journal.blocks = super::records::applied_keys(&execution.result);
        // The AI changes left pending that this commit takes are one operation with it.
        self.journal.took = built.took.map(|t| t.to_string());
        self.journal.before_tree = built.before_tree.map(|t| t.to_string());
        let record = self.record_commit(commit, after_tree, after_index)?;
        let subject = msg.lines().next().unwrap_or_default().to_string();
        report_commit(
            &mut execution,
            opts,
            commit,
            &subject,
            snap.map(|s| s.commit.to_string()),
        );
        // The branch, the apply record and both notes move in one transaction: all or none.
        let mut updates = branch_updates(reply, head_commit, commit, kept, &subject);
        updates.push(records_update(repo, commit, record)?);
        // An agent's turn has no reply to keep.
        let turn = built.turn.is_some() && !super::stage::has_blocks(&execution);
        let reply_note = (!turn).then_some(reply);
        updates.extend(notes_updates(repo, &execution, reply_note, commit)?);
        updates.extend(ai_log_update(
            repo,
            opts,
            reply,
            (commit, commit_tree),
            parent,
            built,
            &identity.0,
        )?);
        updates.extend(self.also_ref_updates(opts, commit)?);
        // git's index lock stays held (the new index written into it) until the branch has
        // moved: a `git commit` cannot slip in between, and if the branch moved anyway the
        // old index is still in place.
        let index_lock = index_writer
            .join()
            .map_err(|_| RepoError::Invalid("writing the index stopped unexpectedly".into()))??;
        // The journal names the commit before the branch moves to it, so a recovery knows
        // the branch is where this apply put it (and never moves a branch that moved for
        // another reason).
        self.journal.write(repo)?;
        clada_base::trace::phase("commit+record+notes");
        clada_base::failpoint::hit("apply:before-ref");
        let index_lock = self.move_refs(&updates, index_lock, head_commit, built, &execution)?;
        clada_base::trace::phase("refs");
        clada_base::failpoint::hit("apply:after-ref");
        index_lock.rename()?;
        clada_base::failpoint::hit("apply:after-index");
        // An uncommitted apply recorded earlier is part of the user's work now (its changes
        // are in this apply's "before"): undo reaches it again once this commit is undone.
        // The pending record this commit took is the commit's own (one undo takes both
        // back): the branch's pending record is the one before it again, so a day of turns
        // does not nest every taken record under the next.
        if let Some(took) = built.took {
            let previous = super::records::previous_pending(repo, took)?;
            super::records::restore_pending(repo, start.head.branch(), previous)?;
        }

        let contain = super::stage::changed_hook_files(repo, opts, built);
        post_commit(repo, opts, contain, &mut execution)?;
        Journal::remove(repo)?;
        Ok(ApplyOutcome {
            execution,
            commit: Some(commit),
            snapshot: snap.map(|s| s.commit),
            diff: None,
        })
    }

    /// The refs `opts.also_refs` moves with the branch, each journalled with where it was so
    /// a recovery can put it back.
    fn also_ref_updates(
        &mut self,
        opts: &ApplyOptions,
        commit: ObjectId,
    ) -> Result<Vec<RefUpdate>, ApplyError> {
        let Some(also) = &opts.also_refs else {
            return Ok(Vec::new());
        };
        let repo = self.repo;
        let extra = (also.0)(repo, Some(commit))?;
        self.journal.also_refs = extra
            .iter()
            .map(|u| {
                Ok(JournalRef {
                    name: u.name.clone(),
                    before: match u.expected {
                        Expected::Value(v) => Some(v.to_string()),
                        _ => repo.read_ref(&u.name)?.map(|v| v.to_string()),
                    },
                })
            })
            .collect::<Result<_, RepoError>>()?;
        Ok(extra)
    }

    /// Names `commit` in the journal, with the state the apply leaves behind (W', I' and the
    /// journaled paths they do not track), and writes the apply record's tree from it.
    fn record_commit(
        &mut self,
        commit: ObjectId,
        after_tree: ObjectId,
        after_index: ObjectId,
    ) -> Result<ObjectId, ApplyError> {
        let repo = self.repo;
        self.journal.commit = Some(commit.to_string());
        // Untracked after the apply means: not in the index it leaves behind.
        self.journal.after = untracked_after(repo, &self.journal, after_index)?;
        self.journal.after_tree = Some(after_tree.to_string());
        self.journal.after_index = Some(after_index.to_string());
        record_tree(repo, &self.journal)
    }

    /// Moves the branch (compare-and-swap from `head_commit`), the record refs and the notes
    /// in one ref transaction: all or none. When someone moved the branch meanwhile, the
    /// reply is taken back and nothing is committed. Hands back git's index lock, still held.
    fn move_refs(
        &self,
        updates: &[RefUpdate],
        index_lock: IndexLock,
        head_commit: ObjectId,
        built: &Built,
        execution: &Execution,
    ) -> Result<IndexLock, ApplyError> {
        let repo = self.repo;
        if let Err(err) = repo.update_refs(updates) {
            if repo.head()?.commit() != Some(head_commit) {
                // Someone moved the branch meanwhile (a ref update that does not take
                // git's index lock): take the reply back, leave their commit alone.
                drop(index_lock);
                let changed: Vec<BString> = built.changes.iter().map(|c| c.path.clone()).collect();
                roll_back(repo, &self.journal, execution, &changed)?;
                Journal::remove(repo)?;
                return Err(ApplyError::Refused(format!(
                    "the branch moved while the reply was being applied ({err}); the reply's changes were taken back and nothing was committed: apply the reply again"
                )));
            }
            return Err(err.into());
        }
        Ok(index_lock)
    }

    /// The commit the AI commit goes on: HEAD, or the snapshot of the user's work (fallback
    /// and `--wip commit`); with the work kept, its stash-format commit. Both are recorded in
    /// the journal.
    fn user_work_commit(
        &mut self,
        start: &Start,
        built: &Built,
        reply: &Reply,
    ) -> Result<(ObjectId, Option<snapshot::Snapshot>, Option<ObjectId>), ApplyError> {
        let repo = self.repo;
        if !start.status.is_dirty() {
            return Ok((start.head_commit, None, None));
        }
        if built.on_head.is_ok() {
            let k = kept_work_commit(repo, start, self.index_tree, self.base_tree, &reply.source)?;
            self.journal.kept = Some(k.to_string());
            return Ok((start.head_commit, None, Some(k)));
        }
        let s = snapshot::commit(
            repo,
            start.head_commit,
            self.index_tree,
            self.base_tree,
            &start.identity,
            &reply.source,
        )?;
        self.journal.snapshot = Some(JournalSnapshot {
            commit: s.commit.to_string(),
            index_tree: self.index_tree.to_string(),
        });
        Ok((s.commit, Some(s), None))
    }

    /// Ends an apply that commits nothing. When it changed files (untracked or ignored ones,
    /// or staged with `--no-commit`, or left by a failing hook), its record is kept under
    /// [`pending_ref`] so `git clada undo` can take it back; `after` is (W', I') when tracked
    /// files changed.
    pub(super) fn close_uncommitted(
        mut self,
        start: &Start,
        opts: &ApplyOptions,
        reply: &Reply,
        mut execution: Execution,
        after: Option<(ObjectId, ObjectId)>,
    ) -> Result<ApplyOutcome, ApplyError> {
        let repo = self.repo;
        let index_after = after.map_or(self.index_tree, |(_, index)| index);
        self.journal.after = untracked_after(repo, &self.journal, index_after)?;
        let untracked_changed = self.journal.after.iter().any(|a| {
            self.journal
                .paths
                .iter()
                .any(|b| b.path == a.path && b.before != a.before && b.before != Before::Tracked)
        });
        if after.is_none() && !untracked_changed {
            Journal::remove(repo)?;
            if execution.changes.iter().any(|c| c.rel.is_some()) {
                execution
                    .result
                    .warnings
                    .push("the reply left every tracked file as it was: nothing to commit".into());
            }
            return Ok(uncommitted(execution));
        }
        let (after_tree, after_index) = after.unwrap_or((self.base_tree, self.index_tree));
        self.journal.after_tree = Some(after_tree.to_string());
        self.journal.after_index = Some(after_index.to_string());
        let record = record_tree(repo, &self.journal)?;
        let name = pending_ref(start.head.branch());
        // The uncommitted apply recorded before this one stays reachable under `previous`:
        // undo takes them back one after the other.
        let record = match repo.read_ref(&name)? {
            Some(previous) => repo.edit_tree(
                record,
                &[clada_git::TreeChange {
                    path: "previous".into(),
                    entry: Some(clada_git::Entry {
                        kind: clada_git::EntryKind::Tree,
                        id: previous,
                    }),
                }],
            )?,
            None => record,
        };
        let replies_blob = repo.write_blob(&reply.bytes())?;
        let mut updates = vec![RefUpdate {
            name,
            new: record,
            expected: Expected::Any,
            reflog: format!(
                "clada: uncommitted apply of {} (reply {replies_blob})",
                reply.source
            ),
        }];
        if let Some(also) = &opts.also_refs {
            updates.extend((also.0)(repo, None)?);
        }
        repo.update_refs(&updates)?;
        Journal::remove(repo)?;
        if after.is_none() {
            execution.result.warnings.push(
                "the reply changed only untracked or ignored files, so there was nothing to commit; `git clada undo` puts them back".into(),
            );
        }
        Ok(uncommitted(execution))
    }
}

/// The user's work as a stash-format commit: tree W, parents HEAD and a commit of the index
/// tree, as `git stash` writes them.
pub(super) fn kept_work_commit(
    repo: &Repo,
    start: &Start,
    index_tree: ObjectId,
    worktree_tree: ObjectId,
    source: &str,
) -> Result<ObjectId, ApplyError> {
    let head = start.head_commit;
    let subject = repo.commit_info(head)?.subject().to_string();
    let on = format!(
        "{}: {} {subject}",
        start.head.short_name(),
        Repo::short(head)
    );
    let (author, committer) = &start.identity;
    let index_commit = repo.write_commit(
        index_tree,
        &[head],
        &format!("index on {on}\n"),
        author,
        committer,
    )?;
    Ok(repo.write_commit(
        worktree_tree,
        &[head, index_commit],
        &format!(
            "WIP on {on}\n\nYour uncommitted work, recorded by git-clada before applying {source}; it stayed uncommitted.\n"
        ),
        author,
        committer,
    )?)
}

/// The warning for a path whose uncommitted work the reply took out of the worktree, naming
/// the commit or ref (`keeper`) that holds it.
fn displaced_warning(path: &BString, keeper: &str) -> String {
    format!(
        "your uncommitted change to {path} is no longer in the worktree (the reply's change \
         replaced or removed it); it is kept in {keeper}: `git checkout {keeper} -- {path}` \
         brings it back, `git clada undo` takes the whole reply back"
    )
}

/// The AI commit's author: `--git-author` when given, else the user (`user`).
fn commit_author(opts: &ApplyOptions, user: &Signature) -> Signature {
    match &opts.author {
        Some((name, email)) => Signature {
            name: name.clone(),
            email: email.clone(),
            ..user.clone()
        },
        None => user.clone(),
    }
}

/// The commit as the result reports it: its id, the snapshot's, the commit step, and what is
/// said once (what the hooks left and was cleared after them, what the sandbox went without),
/// in the stored report as in the printed one.
fn report_commit(
    execution: &mut Execution,
    opts: &ApplyOptions,
    commit: ObjectId,
    subject: &str,
    snapshot_commit: Option<String>,
) {
    execution.result.git_commit = Some(commit.to_string());
    execution.result.snapshot_commit = snapshot_commit;
    execution.result.steps.push(Step::new(
        "commit",
        true,
        format!("{} {subject}", Repo::short(commit)),
    ));
    let (cleared, notices) = said_once(opts);
    execution.result.warnings.extend(cleared);
    execution.result.warnings.extend(notices);
    execution.result.update_success();
}

/// The branch (from `head_commit` to `commit`) and the kept work: the refs of the ref
/// transaction besides the record and the notes.
fn branch_updates(
    reply: &Reply,
    head_commit: ObjectId,
    commit: ObjectId,
    kept: Option<ObjectId>,
    subject: &str,
) -> Vec<RefUpdate> {
    let mut updates = vec![RefUpdate {
        name: "HEAD".into(),
        new: commit,
        expected: Expected::Value(head_commit),
        reflog: format!("clada: apply {}: {subject}", reply.source),
    }];
    if let Some(k) = kept {
        updates.push(RefUpdate {
            name: kept_ref(commit),
            new: k,
            expected: Expected::Any,
            reflog: "clada: your uncommitted work before the apply".into(),
        });
    }
    updates
}

/// The notes of `commit` (its result report and its reply, when it has one) written, as
/// updates of the notes refs for the same ref transaction.
fn notes_updates(
    repo: &Repo,
    execution: &Execution,
    reply: Option<&Reply>,
    commit: ObjectId,
) -> Result<Vec<RefUpdate>, ApplyError> {
    let mut reports = repo.note_book(clada_git::NOTES_REF)?;
    reports.stage(commit, crate::report::json(&execution.result).as_bytes())?;
    let short = Repo::short(commit);
    let mut updates = Vec::new();
    updates.extend(reports.write(&format!("clada: results of {short}"))?);
    if let Some(reply) = reply {
        let mut replies = repo.note_book(REPLY_NOTES_REF)?;
        replies.stage(commit, &reply.bytes())?;
        updates.extend(replies.write(&format!("clada: reply of {short}"))?);
    }
    Ok(updates)
}

/// The authorship log of `commit` in `refs/notes/ai` (unless `provenance: off`), as an update
/// for the same ref transaction: the lines of its files that differ from its parent's.
fn ai_log_update(
    repo: &Repo,
    opts: &ApplyOptions,
    reply: &Reply,
    (commit, commit_tree): (ObjectId, ObjectId),
    parent: ObjectId,
    built: &Built,
    user: &Signature,
) -> Result<Option<RefUpdate>, ApplyError> {
    use crate::record::provenance;
    if opts.provenance.off {
        return Ok(None);
    }
    let human = format!("{} <{}>", user.name, user.email);
    // AI changes an agent made with its own tools are its, unless the command names a tool.
    let by_agent = match (&built.pending_agent, &opts.provenance.tool) {
        (Some(a), None) => Some(provenance::Agent {
            tool: Some(a.tool.clone()),
            model: a.model.clone().or_else(|| opts.provenance.model.clone()),
            conversation: a.conversation.clone(),
            ..opts.provenance.clone()
        }),
        _ => None,
    };
    let session = by_agent.as_ref().unwrap_or(&opts.provenance).session(
        opts.session.as_deref(),
        repo.blob_id(&reply.bytes()),
        &human,
    );
    let parent_tree = repo.tree_of(parent)?;
    let log = provenance::commit_log(
        repo,
        commit,
        parent_tree,
        commit_tree,
        &session,
        &built.pending_ai,
    )?;
    Ok(provenance::log_update(repo, commit, &log)?)
}

/// The `post-commit` hook, contained like the others (nothing it writes into the git
/// directory is kept); it cannot undo the commit, so a failure is a warning. Not run under
/// `--exec deny` or `--no-verify`.
fn post_commit(
    repo: &Repo,
    opts: &ApplyOptions,
    contain: bool,
    execution: &mut Execution,
) -> Result<(), ApplyError> {
    if opts.no_verify || opts.hooks.exec_denied {
        return Ok(());
    }
    let hooks = crate::record::githooks::GitHooks::new(repo, &opts.hooks.policy, contain);
    if let Some(step) = hooks.post_commit()? {
        if !step.success {
            let how = step
                .needs_user
                .as_ref()
                .map(|n| format!(" ({})", n.how))
                .unwrap_or_default();
            execution.result.warnings.push(format!(
                "the post-commit hook failed; the commit stands{how}: {}",
                step.output
            ));
        }
    }
    Ok(())
}

/// What the apply's hooks left and was cleared after them (setuid bits, file capabilities),
/// and the notices of `exec::notices`, each taken once: the first caller says them.
pub(super) fn said_once(opts: &ApplyOptions) -> (Vec<String>, Vec<String>) {
    (
        opts.hooks.policy.findings.take(),
        crate::exec::notices::take(&opts.engine.confine.env),
    )
}
