//! undo / redo (DESIGN §7.2), and the recovery of interrupted transactions.
//!
//! `undo` takes back the last clada operation on the current branch:
//! - an apply: HEAD is an AI commit; the branch goes back to the commit before it (and before
//!   its snapshot), the worktree and index to exactly the user's state before the apply
//!   (tracked, staged/unstaged split, and untracked files the AI overwrote), from the apply
//!   record (in `refs/clada/records`, or `refs/clada/apply/<commit>` from earlier versions);
//! - a squash: `refs/clada/squash/<HEAD>` names the tip before the squash; the branch goes back
//!   to it (the trees are identical, so no file changes).
//!
//! What an undo took back is kept in `refs/clada/redo/<branch>` so `redo` can re-apply it while
//! nothing has moved. All state lives in refs, so both work across restarts. Both are
//! journaled restores: an interrupted undo is finished by running undo again, and an
//! interrupted apply is rolled back by undo.

use serde::Serialize;

use super::common::{current_branch, squash_index_ref, squash_ref, write_orig_head, HistoryError};
use super::recorded::{oldest_not_in, Recorded};
use super::stack::{self, Op};
use crate::record::apply::{pending_ref, read_record};
use crate::record::journal::{parse_id, Before, Journal, JournalPath};
use crate::record::restore::{self, RefChange, RestoreError, RestorePlan};
use crate::record::{classify, snapshot, CladaCommit};
use clada_git::{BString, ByteSlice, CommitInfo, ObjectId, Repo};

mod list;
mod recover;
mod redo;
mod turn;
pub use list::*;
use recover::*;
pub use redo::*;

pub use super::common::{RestoredWork, UndoReport};

/// Refuses when the index differs from `tree`, or the worktree differs from it at `paths`
/// (the paths the operation rewrites). The index is checked in full because the operation
/// replaces it; worktree changes elsewhere are not in the way and stay as they are. Only the
/// named paths are looked at, so the check costs what the change costs, not what the
/// repository's size costs.
pub(crate) fn require_clean_paths(
    repo: &Repo,
    tree: ObjectId,
    paths: &[BString],
    what: &str,
) -> Result<(), HistoryError> {
    let index = repo.read_index()?;
    let status = repo.status_of_paths(tree, &index, paths)?;
    if !status.staged.is_empty() {
        return Err(staged_since(&status.staged, what));
    }
    if status.is_dirty() {
        return Err(HistoryError::Refused(format!(
            "the worktree has changed since {what}: {}; commit or stash those changes first (nothing was changed)",
            snapshot::describe_paths(&status.dirty_paths(), 8)
        )));
    }
    Ok(())
}

fn staged_since(paths: &[BString], what: &str) -> HistoryError {
    HistoryError::Refused(format!(
        "the index has changed since {what} (staged: {}); unstage or commit those changes first (nothing was changed)",
        snapshot::describe_paths(paths, 8)
    ))
}

/// Refuses unless the index holds exactly `index_tree` and the worktree holds `worktree_tree`
/// at `paths` (the paths about to be rewritten). Worktree changes elsewhere are not in the way.
fn require_state(
    repo: &Repo,
    index_tree: ObjectId,
    worktree_tree: ObjectId,
    paths: &[BString],
    what: &str,
) -> Result<(), HistoryError> {
    let index = repo.read_index()?;
    let staged = repo.status_of_paths(index_tree, &index, &[])?.staged;
    if !staged.is_empty() {
        return Err(staged_since(&staged, what));
    }
    let mut hasher = repo.hasher_with(&index)?;
    let mut changed = Vec::new();
    for p in paths {
        // Outside a sparse checkout the file is absent by design, as git's status says.
        if index.flags_of(p.as_bstr()).is_some_and(|f| f.skip_worktree) {
            continue;
        }
        let want = repo
            .tree_entry(worktree_tree, p.as_bstr())?
            .filter(|e| e.kind != clada_git::EntryKind::Tree);
        if hasher.id_of(p.as_bstr())? != want {
            changed.push(p.clone());
        }
    }
    if !changed.is_empty() {
        return Err(HistoryError::Refused(format!(
            "the worktree has changed since {what}: {}; commit or stash those changes (or move them away) first (nothing was changed)",
            snapshot::describe_paths(&changed, 8)
        )));
    }
    Ok(())
}

/// The untracked or ignored paths an apply changed: (state before, state after).
fn untracked_changes(j: &Journal) -> impl Iterator<Item = (&JournalPath, &JournalPath)> {
    j.after.iter().filter_map(|after| {
        let before = j.paths.iter().find(|jp| jp.path == after.path)?;
        (before.before != after.before && !matches!(before.before, Before::Tracked))
            .then_some((before, after))
    })
}

/// Refuses when an untracked or ignored path the apply wrote or deleted is no longer as the
/// apply left it (the user edited or re-created it): undo would destroy that work.
fn require_untracked_after(repo: &Repo, journal: Option<&Journal>) -> Result<(), HistoryError> {
    let Some(j) = journal else {
        return Ok(());
    };
    let mut changed = Vec::new();
    for (_, after) in untracked_changes(j) {
        let rel = BString::from(after.path.as_str());
        if !holds(repo, rel.as_bstr(), &after.before)? {
            changed.push(rel);
        }
    }
    if !changed.is_empty() {
        return Err(HistoryError::Refused(format!(
            "{} changed since the apply (untracked or ignored); undo would overwrite or delete that work, so it is refused: move it away first (nothing was changed)",
            snapshot::describe_paths(&changed, 8)
        )));
    }
    Ok(())
}

/// Refuses rewriting history that a remote-tracking branch or tag contains.
pub(crate) fn require_unpublished(
    repo: &Repo,
    oldest: ObjectId,
    what: &str,
) -> Result<(), HistoryError> {
    if let Some(r) = repo.published_by(oldest)? {
        return Err(HistoryError::Refused(format!(
            "{} is already published (reachable from {r}); {what} would rewrite shared history. Use `git revert` instead",
            Repo::short(oldest)
        )));
    }
    Ok(())
}

/// `git clada undo`.
pub fn undo(repo: &Repo, dry_run: bool) -> Result<UndoReport, HistoryError> {
    // The index is read beside taking the lock and finding what to undo (interrupted work
    // and recovery, rare, read it again themselves).
    let prefetch = repo.prefetch_index();
    let lock = if dry_run { None } else { Some(repo.lock()?) };

    // Interrupted work first: finishing it is what the user needs.
    if let Some(plan) = restore::pending(repo)? {
        return finish_restore(repo, plan, dry_run);
    }
    if let Some(journal) = Journal::read(repo)? {
        return recover_apply(repo, &journal, dry_run);
    }
    // A git-clada killed in a ref transaction outside any journal (a squash, the record of
    // an uncommitted apply) left the repository as it was before or after that
    // transaction; taking the lock cleared its lock files, and that was all to recover.
    let stale = match &lock {
        Some(l) => l.stale().found,
        None => repo.stale_locks_pending(),
    };
    if stale {
        return recovered_locks(repo, lock.as_ref(), dry_run);
    }
    if let Some(op) = repo.in_progress() {
        return Err(HistoryError::Refused(op.describe().to_string()));
    }
    // Stepped back: the last operation was a step.
    if let Some(state) = super::step::read_state(repo)? {
        prefetch.adopt(repo);
        return super::step_undo::undo_step(repo, &state, dry_run);
    }
    clada_base::trace::phase("undo: lock+journals");
    let (branch, tip) = current_branch(repo, "undo")?;
    // An agent's tool call newer than HEAD, still uncommitted, is the last thing done.
    if let Some(report) = super::agent_undo::undo_agent_call(repo, &branch, tip, dry_run)? {
        return Ok(report);
    }
    if let Some(returned) = super::step::returned(repo, &branch, tip)? {
        prefetch.adopt(repo);
        return super::step_undo::undo_return(repo, &returned, dry_run);
    }
    let pending = pending_record(repo, &branch)?;
    if let Some((record, j)) = pending {
        if j.head_id()? == tip {
            prefetch.adopt(repo);
            return undo_pending(repo, &branch, record, &j, dry_run);
        }
    }
    if let Some(before) = repo.read_ref(&squash_ref(tip))? {
        prefetch.adopt(repo);
        return undo_squash(repo, &branch, tip, before, dry_run);
    }
    let info = repo.commit_info(tip)?;
    // Only a commit git-clada's records hold is taken back: trailers alone are copied by an
    // amend or `git commit -C` into commits holding the user's work.
    if let Some(journal) = read_record(repo, tip)? {
        return undo_apply(repo, &branch, &info, journal, dry_run, prefetch);
    }
    Err(nothing_to_undo(repo, &branch, &info)?)
}

/// Why HEAD, which no record of git-clada holds, is not undone: an AI commit the user
/// amended (with how to take back the AI's part by hand), a commit that only carries
/// git-clada's trailers, or a commit of the user's.
fn nothing_to_undo(
    repo: &Repo,
    branch: &str,
    info: &CommitInfo,
) -> Result<HistoryError, HistoryError> {
    let head = format!("HEAD ({} \"{}\")", Repo::short(info.id), info.subject());
    let recorded = Recorded::read(repo)?;
    if classify(info).is_some() {
        if let Some(ai) = recorded.amended_from(branch, info.id)? {
            let ai = Repo::short(ai);
            return Ok(HistoryError::Refused(format!(
                "{head} is the AI commit {ai} amended by `git commit --amend`: undo takes back only what git-clada made, and taking this commit back would take your changes with it, so it is refused (nothing was changed). To take back only the AI's part by hand: `git revert --no-edit {ai}` reverses the AI's change of {ai} as a new commit and keeps yours (`git diff {ai}^ {ai}` shows that change; `git clada show {ai}` its reply)"
            )));
        }
        return Ok(HistoryError::Refused(format!(
            "{head} carries git-clada's trailers, but no record of git-clada holds it: it is a copy (`git commit -C`, an amend, a cherry-pick or a rebase copies the trailers, not the record) or was made elsewhere. undo takes back only what git-clada made, so nothing was changed; `git revert` or `git reset` take back a commit of your own"
        )));
    }
    Ok(HistoryError::Refused(format!(
        "{head} is not a git-clada commit and no uncommitted apply, squash or step of git-clada is on top of it, so there is nothing to undo{}; `git clada undo --list` shows what undo and redo can reach",
        match stack::top(repo, branch)? {
            Some(_) => " (`git clada redo` puts back what undo took back)",
            None => "",
        }
    )))
}

/// One side of an apply: HEAD, the index's tree and the tracked worktree's tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Side {
    head: ObjectId,
    index: ObjectId,
    worktree: ObjectId,
}

/// The state before and after an AI commit's apply, from its record `journal` (or, without
/// one, from the commit and its snapshot parent: only for redo of an entry an earlier version
/// put on the redo stack, itself a record of git-clada's).
fn apply_sides(
    repo: &Repo,
    info: &CommitInfo,
    journal: Option<Journal>,
) -> Result<(Side, Side, Option<Journal>), HistoryError> {
    if let Some(j) = journal {
        // A commit that took AI changes left pending goes back to before those too.
        let before = Side {
            head: j.head_id()?,
            index: parse_id(&j.index_tree)?,
            worktree: parse_id(j.before_tree.as_deref().unwrap_or(&j.base_tree))?,
        };
        let after = Side {
            head: info.id,
            index: j.after_index.as_deref().map_or(Ok(info.tree), parse_id)?,
            worktree: j.after_tree.as_deref().map_or(Ok(info.tree), parse_id)?,
        };
        return Ok((before, after, Some(j)));
    }
    let after = Side {
        head: info.id,
        index: info.tree,
        worktree: info.tree,
    };
    // Without a record (made elsewhere, or records pruned) the parent chain still says it:
    // the snapshot's tree is the worktree, its index tree is in its trailer.
    let parent = *info.parents.first().ok_or_else(|| {
        HistoryError::Refused(format!(
            "{} has no parent; it cannot be undone",
            Repo::short(info.id)
        ))
    })?;
    let pinfo = repo.commit_info(parent)?;
    if classify(&pinfo) == Some(CladaCommit::Snapshot) {
        let head = *pinfo.parents.first().ok_or_else(|| {
            HistoryError::Refused(format!("snapshot {} has no parent", Repo::short(parent)))
        })?;
        let i = pinfo
            .trailer(crate::record::trailer::INDEX)
            .and_then(|h| parse_id(&h).ok())
            .unwrap_or(pinfo.tree);
        let before = Side {
            head,
            index: i,
            worktree: pinfo.tree,
        };
        return Ok((before, after, None));
    }
    let before = Side {
        head: parent,
        index: pinfo.tree,
        worktree: pinfo.tree,
    };
    Ok((before, after, None))
}

/// The record of the last apply on `branch` that committed nothing, if any: its tree and
/// journal.
fn pending_record(repo: &Repo, branch: &str) -> Result<Option<(ObjectId, Journal)>, HistoryError> {
    let Some(tree) = repo.read_ref(&pending_ref(Some(branch)))? else {
        return Ok(None);
    };
    Ok(crate::record::apply::record_journal(repo, tree)?.map(|j| (tree, j)))
}

/// The record of the uncommitted apply before the one recorded in `tree` (kept under
/// `previous`, so undo reaches them one after the other).
fn previous_pending(repo: &Repo, tree: ObjectId) -> Result<Option<ObjectId>, HistoryError> {
    Ok(crate::record::apply::previous_pending(repo, tree)?)
}

/// HEAD, the index's tree and the worktree's tree before and after the uncommitted apply
/// recorded in `journal`.
fn pending_sides(journal: &Journal) -> Result<(Side, Side), HistoryError> {
    let head = journal.head_id()?;
    let before = Side {
        head,
        index: parse_id(&journal.index_tree)?,
        worktree: parse_id(&journal.base_tree)?,
    };
    let after = Side {
        head,
        index: journal
            .after_index
            .as_deref()
            .map_or(Ok(before.index), parse_id)?,
        worktree: journal
            .after_tree
            .as_deref()
            .map_or(Ok(before.worktree), parse_id)?,
    };
    Ok((before, after))
}

/// The record of the AI changes left pending that the commit of `journal` took (an agent's
/// turn, an apply a hook stopped): its tree and journal.
fn taken(repo: &Repo, journal: &Journal) -> Result<Option<(ObjectId, Journal)>, HistoryError> {
    let Some(hex) = &journal.took else {
        return Ok(None);
    };
    let tree = parse_id(hex)?;
    Ok(crate::record::apply::record_journal(repo, tree)?.map(|j| (tree, j)))
}

/// The ref change that leaves the pending record of `branch` as it was before the AI changes
/// of `taken` (a record's tree) were handed over: its `previous`, or none — after the undo
/// of the commit that took them, as after that commit itself (and its redo).
pub(super) fn pending_before(
    repo: &Repo,
    branch: &str,
    taken: ObjectId,
    reason: &str,
) -> Result<RefChange, HistoryError> {
    Ok(match previous_pending(repo, taken)? {
        Some(previous) => RefChange::set(pending_ref(Some(branch)), previous, reason),
        None => RefChange::delete(pending_ref(Some(branch))),
    })
}

/// An agent's turn replayed by a move, and which way; the commit that holds it, to name.
type TurnMove<'t> = Option<(
    &'t crate::record::agent_turn::Turn,
    turn::Way,
    Option<ObjectId>,
)>;

/// The state change from `from` to `to`: checks that nothing is in the way, then the restore
/// plan (or, with `dry_run`, only the report's paths). The paths of an agent's turn among
/// them are replayed from what the worktree holds now (`turn`), keeping the user's edits.
#[allow(clippy::too_many_arguments)]
fn plan_move(
    repo: &Repo,
    branch: &str,
    from: Side,
    to: Side,
    untracked: Vec<JournalPath>,
    reason: String,
    what: &str,
    replay: TurnMove<'_>,
) -> Result<RestorePlan, HistoryError> {
    let mut paths: Vec<BString> = repo
        .diff_trees(from.worktree, to.worktree)?
        .into_iter()
        .map(|d| d.path)
        .collect();
    let mut worktree = to.worktree;
    let mut replayed = Vec::new();
    if let Some((t, way, commit)) = replay {
        let targets = turn::targets(repo, t, way, commit)?;
        paths.retain(|p| !targets.iter().any(|(q, _)| q == p));
        let edits: Vec<clada_git::TreeChange> = targets
            .iter()
            .map(|(path, entry)| clada_git::TreeChange {
                path: path.clone(),
                entry: *entry,
            })
            .collect();
        worktree = repo.edit_tree(to.worktree, &edits)?;
        replayed = targets.into_iter().map(|(p, _)| p).collect();
    }
    require_state(repo, from.index, from.worktree, &paths, what)?;
    paths.extend(replayed);
    paths.sort();
    paths.dedup();
    Ok(RestorePlan {
        reason,
        head: to.head.to_string(),
        branch: Some(branch.to_string()),
        worktree_tree: worktree.to_string(),
        index_tree: to.index.to_string(),
        paths: paths.iter().map(|p| p.to_string()).collect(),
        untracked,
        head_from: vec![from.head.to_string()],
        ..Default::default()
    })
}

/// The paths a restore rewrites: those it touches (tracked ones and untracked or ignored ones)
/// that do not already hold what it writes there.
fn all_paths(repo: &Repo, plan: &RestorePlan) -> Result<Vec<String>, HistoryError> {
    let tree = parse_id(&plan.worktree_tree)?;
    let index = repo.read_index()?;
    let mut hasher = repo.hasher_with(&index)?;
    let mut out = Vec::new();
    for p in &plan.paths {
        let rel = BString::from(p.as_str());
        let want = repo
            .tree_entry(tree, rel.as_bstr())?
            .filter(|e| e.kind != clada_git::EntryKind::Tree);
        if hasher.id_of(rel.as_bstr())? != want {
            out.push(p.clone());
        }
    }
    for u in &plan.untracked {
        let rel = BString::from(u.path.as_str());
        if !out.contains(&u.path) && !holds(repo, rel.as_bstr(), &u.before)? {
            out.push(u.path.clone());
        }
    }
    out.sort();
    Ok(out)
}

fn undo_apply(
    repo: &Repo,
    branch: &str,
    info: &CommitInfo,
    journal: Journal,
    dry_run: bool,
    prefetch: clada_git::IndexPrefetch,
) -> Result<UndoReport, HistoryError> {
    let (before, after, journal) = apply_sides(repo, info, Some(journal))?;
    // The index is first needed below; its read went on beside the record's.
    prefetch.adopt(repo);
    let first_rewritten = info
        .parents
        .first()
        .copied()
        .filter(|p| *p != before.head)
        .unwrap_or(info.id);
    clada_base::trace::phase("undo: apply record");
    require_unpublished(repo, first_rewritten, "undoing it")?;
    clada_base::trace::phase("undo: unpublished");
    require_untracked_after(repo, journal.as_ref())?;
    let mut untracked = untracked_restores(repo, journal.as_ref(), before.worktree)?;
    let took = match &journal {
        Some(j) => taken(repo, j)?,
        None => None,
    };
    // The untracked and ignored paths the taken changes wrote go back with them.
    if let Some((_, tj)) = &took {
        require_untracked_after(repo, Some(tj))?;
        untracked.extend(untracked_restores(repo, Some(tj), before.worktree)?);
    }
    let turn = took.as_ref().and_then(|(_, j)| j.turn.as_ref());
    let mut plan = plan_move(
        repo,
        branch,
        after,
        before,
        untracked,
        format!("undo of {}", info.id),
        "the apply",
        turn.map(|t| (t, turn::Way::Back, Some(info.id))),
    )?;
    plan.flags = journal
        .as_ref()
        .map(|j| j.index_flags.clone())
        .unwrap_or_default();
    // The pending record the commit took is taken back with it.
    if let Some((tree, _)) = &took {
        plan.refs_after.push(pending_before(
            repo,
            branch,
            *tree,
            "clada: undo of the commit that took pending AI changes",
        )?);
    }

    clada_base::trace::phase("undo: state checked");
    let checkout = repo.plan_checkout(after.worktree, parse_id(&plan.worktree_tree)?)?;
    let conflicts = repo.checkout_conflicts(after.worktree, &checkout)?;
    let replayed = |p: &BString| turn.is_some_and(|t| t.paths.iter().any(|tp| *p == tp.path));
    if let Some(c) = conflicts.iter().find(|c| !replayed(&c.path)) {
        return Err(HistoryError::Refused(format!(
            "undo would overwrite '{}' ({}); move it away first (nothing was changed)",
            c.path, c.reason
        )));
    }
    let staged = repo
        .diff_trees(repo.tree_of(before.head)?, before.index)?
        .len();
    let unstaged = repo.diff_trees(before.index, before.worktree)?.len();
    clada_base::trace::phase("undo: conflicts");
    let report = UndoReport {
        operation: "undo".into(),
        kind: match turn {
            Some(_) => "turn",
            None => "apply",
        }
        .into(),
        commit: Some(info.id.to_string()),
        subject: Some(info.subject().to_string()),
        from: info.id.to_string(),
        to: before.head.to_string(),
        paths: all_paths(repo, &plan)?,
        restored_work: (staged + unstaged > 0).then_some(RestoredWork { staged, unstaged }),
        dry_run,
    };
    clada_base::trace::phase("undo: checks+plan");
    if dry_run {
        return Ok(report);
    }
    // Recorded for redo inside the journaled restore, once HEAD moved, so a restore that
    // fails or is killed leaves no redo record of an undo that did not happen.
    let push = stack::push(
        repo,
        branch,
        Op::Apply {
            commit: info.id.to_string(),
        },
        info.subject(),
        &plan,
    )?;
    plan.refs_after.push(push);
    write_orig_head(repo, info.id)?;
    restore::run(
        repo,
        &plan,
        &format!(
            "clada: undo apply {}: {}",
            Repo::short(info.id),
            info.subject()
        ),
    )?;
    Ok(report)
}

/// Undo of an apply that committed nothing (`--no-commit`, a failing hook, a reply that
/// changed only untracked or ignored files): HEAD stays, the index and files go back.
fn undo_pending(
    repo: &Repo,
    branch: &str,
    record: ObjectId,
    journal: &Journal,
    dry_run: bool,
) -> Result<UndoReport, HistoryError> {
    let head = journal.head_id()?;
    let (before, after) = pending_sides(journal)?;
    require_untracked_after(repo, Some(journal))?;
    let untracked = untracked_restores(repo, Some(journal), before.worktree)?;
    let mut plan = plan_move(
        repo,
        branch,
        after,
        before,
        untracked,
        format!("undo of the uncommitted apply of {}", journal.source),
        "the apply",
        journal.turn.as_ref().map(|t| (t, turn::Way::Back, None)),
    )?;
    plan.flags = journal.index_flags.clone();
    // The uncommitted apply before it (if any) becomes the next one undo takes back.
    plan.refs_after = vec![match previous_pending(repo, record)? {
        Some(previous) => RefChange::set(
            pending_ref(Some(branch)),
            previous,
            "clada: undo of an uncommitted apply",
        ),
        None => RefChange::delete(pending_ref(Some(branch))),
    }];
    let report = UndoReport {
        operation: "undo".into(),
        kind: uncommitted_kind(journal).into(),
        commit: None,
        subject: Some(uncommitted_subject(journal)),
        from: head.to_string(),
        to: head.to_string(),
        paths: all_paths(repo, &plan)?,
        restored_work: None,
        dry_run,
    };
    if dry_run {
        return Ok(report);
    }
    let push = stack::push(
        repo,
        branch,
        Op::UncommittedApply {
            record: record.to_string(),
            source: journal.source.clone(),
        },
        &uncommitted_subject(journal),
        &plan,
    )?;
    plan.refs_after.push(push);
    restore::run(
        repo,
        &plan,
        &format!("clada: undo uncommitted apply of {}", journal.source),
    )?;
    Ok(report)
}

/// How reports name the kind of an operation that committed nothing: an agent's turn whose
/// commit did not happen (a hook refused it), or an apply.
fn uncommitted_kind(journal: &Journal) -> &'static str {
    match journal.turn {
        Some(_) => "uncommitted-turn",
        None => "uncommitted-apply",
    }
}

/// How reports name an operation that committed nothing.
fn uncommitted_subject(journal: &Journal) -> String {
    match &journal.turn {
        Some(t) => format!(
            "uncommitted {} turn ({} tool call{})",
            t.agent,
            t.call_count(),
            if t.call_count() == 1 { "" } else { "s" }
        ),
        None => format!("uncommitted apply of {}", journal.source),
    }
}

/// Untracked and ignored paths the apply overwrote or created, to put back as they were.
fn untracked_restores(
    repo: &Repo,
    journal: Option<&Journal>,
    w: ObjectId,
) -> Result<Vec<JournalPath>, HistoryError> {
    let Some(j) = journal else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for jp in &j.paths {
        if matches!(jp.before, Before::Tracked) {
            continue;
        }
        if repo
            .tree_entry(w, BString::from(jp.path.as_str()).as_bstr())?
            .is_some()
        {
            continue;
        }
        out.push(jp.clone());
    }
    Ok(out)
}

fn undo_squash(
    repo: &Repo,
    branch: &str,
    tip: ObjectId,
    before: ObjectId,
    dry_run: bool,
) -> Result<UndoReport, HistoryError> {
    let tip_tree = repo.tree_of(tip)?;
    let before_tree = repo.tree_of(before)?;
    let oldest = oldest_not_in(repo, tip, before)?;
    require_unpublished(repo, oldest, "undoing the squash")?;
    let changed: Vec<BString> = repo
        .diff_trees(tip_tree, before_tree)?
        .into_iter()
        .map(|d| d.path)
        .collect();
    // A squash keeps every tree, so its undo only moves the branch: the index stays, and
    // what was staged when the squash ran may still be. Only a change staged since is in
    // the way (the undo would not be the squash's inverse).
    let keep_index = changed.is_empty();
    match keep_index {
        true => require_index_as_at_squash(repo, tip, tip_tree)?,
        false => require_clean_paths(repo, tip_tree, &changed, "the squash")?,
    }
    let paths: Vec<String> = changed.iter().map(|p| p.to_string()).collect();
    // Named by the squash commit, not by a human commit replayed on top of it.
    let info = super::common::squash_commit_of(repo, tip, oldest)?;
    let report = UndoReport {
        operation: "undo".into(),
        kind: "squash".into(),
        commit: Some(info.id.to_string()),
        subject: Some(info.subject().to_string()),
        from: tip.to_string(),
        to: before.to_string(),
        paths: paths.clone(),
        restored_work: None,
        dry_run,
    };
    if dry_run {
        return Ok(report);
    }
    write_orig_head(repo, tip)?;
    let plan = RestorePlan {
        reason: format!("undo of squash {tip}"),
        head: before.to_string(),
        branch: Some(branch.to_string()),
        worktree_tree: before_tree.to_string(),
        index_tree: before_tree.to_string(),
        paths,
        head_from: vec![tip.to_string()],
        keep_index,
        ..Default::default()
    };
    let push = stack::push(
        repo,
        branch,
        Op::Squash {
            commit: tip.to_string(),
        },
        info.subject(),
        &plan,
    )?;
    let mut plan = plan;
    plan.refs_after.push(push);
    restore::run(
        repo,
        &plan,
        &format!("clada: undo squash {}", Repo::short(tip)),
    )?;
    Ok(report)
}

/// The index when the squash that made `tip` ran: the tree its record keeps, or `tip_tree`
/// (nothing was staged, or an earlier version made the squash).
fn index_at_squash(
    repo: &Repo,
    tip: ObjectId,
    tip_tree: ObjectId,
) -> Result<ObjectId, HistoryError> {
    Ok(repo.read_ref(&squash_index_ref(tip))?.unwrap_or(tip_tree))
}

/// Refuses when the index no longer holds what it held when the squash that made `tip` ran.
fn require_index_as_at_squash(
    repo: &Repo,
    tip: ObjectId,
    tip_tree: ObjectId,
) -> Result<(), HistoryError> {
    let then = index_at_squash(repo, tip, tip_tree)?;
    let staged = repo.status_of_paths(then, &repo.read_index()?, &[])?.staged;
    match staged.is_empty() {
        true => Ok(()),
        false => Err(staged_since(&staged, "the squash")),
    }
}

/// Finishes a restore (undo/redo) that was interrupted.
fn finish_restore(
    repo: &Repo,
    plan: RestorePlan,
    dry_run: bool,
) -> Result<UndoReport, HistoryError> {
    let report = UndoReport {
        operation: "recover".into(),
        kind: "interrupted-restore".into(),
        commit: None,
        subject: Some(plan.reason.clone()),
        from: repo
            .head()?
            .commit()
            .map(|c| c.to_string())
            .unwrap_or_default(),
        to: plan.head.clone(),
        paths: plan.paths.clone(),
        restored_work: None,
        dry_run,
    };
    if !dry_run {
        restore::run(repo, &plan, &format!("clada: finish {}", plan.reason))?;
    }
    Ok(report)
}
