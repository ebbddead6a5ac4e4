//! Restoring a recorded state: HEAD, the index and the given worktree paths are set back to
//! what a journal or an apply record says they were. Used by undo, redo and the recovery of an
//! interrupted transaction.
//!
//! A restore is idempotent (it writes target content, it does not apply deltas), and it is
//! itself journaled: if it is interrupted, running it again finishes it. Besides the files,
//! the index and HEAD, a plan may carry the refs that belong to the same step (step-back's
//! state refs, for instance: set before anything else changes, or removed once HEAD moved)
//! and untracked files to take out of the worktree first (work step-back parked), so that
//! every visible change of such an operation happens inside the journaled restore.
//!
//! The index is rebuilt from a tree, which holds no index flags; the flags users set
//! (skip-worktree of a sparse checkout, assume-unchanged, intent-to-add) are carried over
//! from the index being replaced, or set as the plan records them. A path whose entry stays
//! skip-worktree is not written to the worktree, as in a sparse checkout.

use serde::{Deserialize, Serialize};

use std::collections::BTreeMap;

use clada_git::{
    BString, ByteSlice, Entry, EntryFlags, EntryKind, Expected, Index, ObjectId, Repo, RepoError,
};

use super::journal::{parse_id, Before, JournalError, JournalPath};
// The flags type lives with the journal, which records it; restore plans carry it too.
pub use super::journal::PathFlags;

/// The state to restore.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RestorePlan {
    /// What this restore is for (messages, reflog).
    pub reason: String,
    /// Where HEAD (or its branch) must end up.
    pub head: String,
    /// The branch HEAD is on (full name), or `None` when detached.
    pub branch: Option<String>,
    /// The tree the tracked worktree must hold for `paths`.
    pub worktree_tree: String,
    /// The tree the index must hold.
    pub index_tree: String,
    /// Tracked paths to set to their `worktree_tree` content (or delete when absent there).
    pub paths: Vec<String>,
    /// Untracked or ignored paths to put back as they were.
    pub untracked: Vec<JournalPath>,
    /// Refs set (or deleted) right after the journal is written, before anything else.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub refs_before: Vec<RefChange>,
    /// Untracked files taken out of the worktree before the checkout (saved elsewhere by
    /// the caller, e.g. parked by step-back).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub remove_untracked: Vec<String>,
    /// Index flags to set exactly as given for these paths; every other path keeps the
    /// flags it has in the index being replaced.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub flags: Vec<PathFlags>,
    /// Refs set (or deleted) once HEAD is where the plan says.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub refs_after: Vec<RefChange>,
    /// The commits HEAD (or `branch`) may be at for the restore to move it; filled with the
    /// current one when the restore starts unless the caller knows better. A branch found
    /// anywhere else moved for another reason (a commit made while the restore was
    /// interrupted), and is never moved back over it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub head_from: Vec<String>,
    /// Restore the files even when the branch moved away from `head_from` (leaving the branch
    /// and the index alone, [`RestoreError::HeadMoved`]); otherwise such a restore is refused
    /// with nothing changed ([`RestoreError::Moved`]). The roll-back of an interrupted apply
    /// sets it: its files must come back whatever happened to the branch.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub finish_if_moved: bool,
    /// Leave the index as it is (`index_tree` is not written): for a move between commits of
    /// one tree (the undo and redo of a squash), where the user's staged changes stay staged.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub keep_index: bool,
}

impl RestorePlan {
    /// A plan for the given HEAD, trees and paths, with nothing else to do.
    pub fn new(
        reason: String,
        head: ObjectId,
        branch: Option<String>,
        worktree_tree: ObjectId,
        index_tree: ObjectId,
        paths: Vec<String>,
    ) -> RestorePlan {
        RestorePlan {
            reason,
            head: head.to_string(),
            branch,
            worktree_tree: worktree_tree.to_string(),
            index_tree: index_tree.to_string(),
            paths,
            ..Default::default()
        }
    }
}

/// A ref a restore sets to an object, or deletes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RefChange {
    pub name: String,
    /// The object it points to afterwards; `None` deletes it.
    pub target: Option<String>,
    pub reflog: String,
}

impl RefChange {
    pub fn set(name: impl Into<String>, target: ObjectId, reflog: impl Into<String>) -> Self {
        RefChange {
            name: name.into(),
            target: Some(target.to_string()),
            reflog: reflog.into(),
        }
    }

    pub fn delete(name: impl Into<String>) -> Self {
        RefChange {
            name: name.into(),
            target: None,
            reflog: String::new(),
        }
    }

    /// Makes the ref so; nothing happens when it already is (a re-run writes no second
    /// reflog entry).
    fn apply(&self, repo: &Repo) -> Result<(), RestoreError> {
        match &self.target {
            Some(hex) => {
                let id = parse_id(hex)?;
                if repo.read_ref(&self.name)? != Some(id) {
                    repo.update_ref(&self.name, id, Expected::Any, &self.reflog)?;
                }
            }
            None => repo.delete_ref(&self.name, Expected::Any)?,
        }
        Ok(())
    }
}

/// The ref changes that take back the refs an interrupted apply moved with its branch (the
/// journal's `also_refs`), for the plan that rolls it back.
pub fn refs_back(journal: &super::journal::Journal) -> Result<Vec<RefChange>, RestoreError> {
    journal
        .also_refs
        .iter()
        .map(|r| {
            Ok(match &r.before {
                Some(hex) => RefChange::set(
                    r.name.clone(),
                    parse_id(hex)?,
                    format!("clada: roll back interrupted apply of {}", journal.source),
                ),
                None => RefChange::delete(r.name.clone()),
            })
        })
        .collect()
}

/// The flags `paths` get when an apply writes them: skip-worktree and intent-to-add cleared
/// (the file is in the worktree, its content staged), assume-unchanged kept. Only paths
/// whose flags change are listed.
pub fn flags_as_written<'a>(
    index: &Index,
    paths: impl IntoIterator<Item = &'a clada_git::BStr>,
) -> Vec<PathFlags> {
    paths
        .into_iter()
        .filter_map(|p| {
            let f = index.flags_of(p)?;
            (f.skip_worktree || f.intent_to_add).then(|| PathFlags {
                path: p.to_string(),
                flags: EntryFlags {
                    skip_worktree: false,
                    intent_to_add: false,
                    ..f
                },
            })
        })
        .collect()
}

/// The flags of `index` worth recording for a later restore of it: those of `paths` (the
/// paths an operation is about to change, whose flags it clears) and every intent-to-add
/// entry (which a tree cannot hold).
pub fn flags_to_record<'a>(
    index: &Index,
    paths: impl IntoIterator<Item = &'a clada_git::BStr>,
) -> Vec<PathFlags> {
    let mut out: BTreeMap<BString, EntryFlags> = BTreeMap::new();
    for p in paths {
        if let Some(f) = index.flags_of(p).filter(|f| !f.is_empty()) {
            out.insert(p.to_owned(), f);
        }
    }
    for (p, f) in index.flagged() {
        if f.intent_to_add {
            out.insert(p, f);
        }
    }
    out.into_iter()
        .map(|(path, flags)| PathFlags {
            path: path.to_string(),
            flags,
        })
        .collect()
}

#[derive(Debug, thiserror::Error)]
pub enum RestoreError {
    #[error(transparent)]
    Repo(#[from] RepoError),
    #[error(transparent)]
    Journal(#[from] JournalError),
    /// Everything was restored but HEAD, which moved while the restore was interrupted.
    #[error("{what} finished restoring the files, but left the index and {name} at {current}: it moved there while {what} was interrupted (a commit made since?), and git-clada never moves a branch back over commits it did not make; `git log` and `git status` show what is there (`git reset --keep {target}` moves it where {what} meant to, dropping those commits from the branch)")]
    HeadMoved {
        what: String,
        name: String,
        current: String,
        target: String,
    },
    /// A directory of a path the restore writes was replaced (by a symlink, say) while it
    /// ran: it stopped there, and its journal stays.
    #[error("{what} stopped at '{}': {why}. Nothing was deleted or written through it, and the restore's journal stays: put that directory back as it was (or move what stands there away), then run `git clada undo` again to finish", path.display())]
    Stopped {
        what: String,
        path: std::path::PathBuf,
        why: String,
    },
    /// The branch moved since the plan was made; nothing was changed.
    #[error("{name} moved to {current} since {what} was planned (a commit made meanwhile?), so nothing was changed: git-clada never moves a branch back over commits it did not make; run the command again to act on where {name} is now")]
    Moved {
        what: String,
        name: String,
        current: String,
    },
}

/// The journal file of an in-progress restore.
fn journal_path(repo: &Repo) -> std::path::PathBuf {
    repo.git_dir().join("clada").join("restore.json")
}

/// A restore that was interrupted, if any.
pub fn pending(repo: &Repo) -> Result<Option<RestorePlan>, RestoreError> {
    let path = journal_path(repo);
    match std::fs::read(&path) {
        Ok(bytes) => {
            Ok(Some(serde_json::from_slice(&bytes).map_err(|source| {
                JournalError::Corrupt { path, source }
            })?))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(JournalError::Io { path, source }.into()),
    }
}

/// Carries out `plan`: take git's index lock, check the branch is still where the plan was
/// based on, journal it, set the refs that go first, take parked untracked files out, rewrite
/// the listed paths, put untracked files back, rewrite the index, move HEAD by
/// compare-and-swap, set the refs that go last. `reflog` is the reflog message for the HEAD
/// move.
///
/// git's index lock is taken first and held to the end: `git commit` holds it from before its
/// editor opens until after it moved the branch, so once the lock is ours the branch can only
/// move by a bare ref update, which the compare-and-swap catches. A branch found elsewhere
/// than the plan's `head_from` when the lock is ours moved since the plan was made: a new
/// restore is then refused with nothing changed; a re-run of an interrupted one restores the
/// files and leaves the branch and the index where they are (they hold someone's commit).
///
/// Before the journal is written, every file to write is read and converted for the worktree
/// (git's smudge/eol filters): a filter that fails stops the restore with nothing changed.
///
/// Every worktree change goes through directory handles opened from the root: a directory
/// found swapped for a symlink (`path_changed`) stops the restore where it is, with nothing
/// deleted or written through it and the journal kept ([`RestoreError::Stopped`]).
pub fn run(repo: &Repo, plan: &RestorePlan, reflog: &str) -> Result<(), RestoreError> {
    run_journaled(repo, plan, reflog).map_err(|e| match e {
        RestoreError::Repo(RepoError::Io { path, source, .. })
            if clada_base::beneath::refusal(&source).is_some() =>
        {
            RestoreError::Stopped {
                what: plan.reason.clone(),
                path,
                why: source.to_string(),
            }
        }
        e => e,
    })
}

fn run_journaled(repo: &Repo, plan: &RestorePlan, reflog: &str) -> Result<(), RestoreError> {
    let rerun = journal_path(repo).exists();
    let index_lock = repo.lock_index()?;
    clada_base::failpoint::hit("restore:index-locked");
    let current = branch_tip(repo, plan)?;
    let mut filled;
    let plan = if plan.head_from.is_empty() {
        filled = plan.clone();
        filled.head_from = current.map(|c| c.to_string()).into_iter().collect();
        &filled
    } else {
        plan
    };
    let worktree_tree = parse_id(&plan.worktree_tree)?;
    let index_tree = parse_id(&plan.index_tree)?;
    let head = parse_id(&plan.head)?;
    let moved = match head_moved(plan, head, current) {
        Some(m) if !(rerun || plan.finish_if_moved) => return Err(m.refused(plan)),
        other => other,
    };
    let old_index = repo.read_index()?;
    let mut hasher = repo.hasher_with(&old_index)?;
    clada_base::trace::phase("restore: read index");

    // The flags the new index gets: the old index's, with the plan's on top.
    let mut flags: BTreeMap<BString, EntryFlags> = old_index.flagged().into_iter().collect();
    for pf in &plan.flags {
        flags.insert(BString::from(pf.path.as_str()), pf.flags);
    }
    // The temporary files a killed write left beside the plan's paths go first, so the
    // directories the interrupted operation created empty out and are pruned below. Only a
    // re-run or the roll-back of an interrupted apply can meet any: every write to the
    // worktree happens after a journal is written, and those two are what a journal left
    // behind leads to (a fresh restore would list each directory for nothing).
    if rerun || plan.finish_if_moved {
        remove_temp_files(repo, plan);
    }
    let checkout = checkout_plan(repo, plan, &old_index, &flags, worktree_tree, index_tree)?;
    let prepared = repo.prepare_checkout(&checkout, &mut hasher)?;
    clada_base::trace::phase("restore: plan checkout");

    let jpath = write_journal(repo, plan)?;
    clada_base::failpoint::hit("restore:after-journal");

    for change in &plan.refs_before {
        change.apply(repo)?;
    }
    clada_base::failpoint::hit("restore:after-refs-before");
    remove_untracked(repo, &plan.remove_untracked)?;
    // What the operation created goes before the checkout writes: a file moved into a folder
    // of its own name (`bench` → `bench/bench`) leaves a folder where the file goes back.
    restore_untracked_paths(repo, plan, worktree_tree, Pass::Created)?;
    clada_base::failpoint::hit("restore:after-remove");
    clada_base::trace::phase("restore: journal+refs");

    let written = repo.execute_prepared(prepared, &mut hasher)?;
    clada_base::failpoint::hit("restore:after-worktree");

    restore_untracked_paths(repo, plan, worktree_tree, Pass::Saved)?;
    clada_base::trace::phase("restore: files");

    // A branch that moved for another reason keeps its commits, and the index git left
    // with them: only the files are restored.
    if let Some(moved) = moved {
        drop(index_lock);
        std::fs::remove_file(&jpath).map_err(|source| JournalError::Io {
            path: jpath.clone(),
            source,
        })?;
        return Err(moved.finished(plan));
    }
    if plan.keep_index {
        drop(index_lock);
    } else {
        rebuild_index(
            repo,
            index_lock,
            index_tree,
            worktree_tree,
            old_index,
            &written,
            flags,
        )?;
    }
    clada_base::failpoint::hit("restore:after-index");
    clada_base::trace::phase("restore: index");

    // HEAD last: until it moves, re-running the restore starts from the same journal.
    move_head(repo, plan, head, current, reflog)?;
    clada_base::failpoint::hit("restore:after-head");
    for change in &plan.refs_after {
        change.apply(repo)?;
    }
    clada_base::failpoint::hit("restore:after-refs-after");
    std::fs::remove_file(&jpath).map_err(|source| JournalError::Io {
        path: jpath,
        source,
    })?;
    clada_base::trace::phase("restore: head+refs");
    Ok(())
}

/// Removes the temporary files of atomic writes (an interrupted operation's, or an
/// interrupted run of this restore's) beside the plan's paths.
fn remove_temp_files(repo: &Repo, plan: &RestorePlan) {
    let Ok(root) = repo.worktree() else { return };
    clada_base::beneath::remove_temp_files(
        &root,
        plan.paths
            .iter()
            .map(String::as_str)
            .chain(plan.untracked.iter().map(|u| u.path.as_str())),
    );
}

/// Where the plan's branch (or a detached HEAD) is now.
fn branch_tip(repo: &Repo, plan: &RestorePlan) -> Result<Option<ObjectId>, RepoError> {
    match &plan.branch {
        Some(branch) => repo.read_ref(branch),
        None => Ok(repo.head()?.commit()),
    }
}

/// The tracked paths to delete and to write. A path that stays outside a sparse checkout is
/// left as it is on disk (its file is not ours to touch: status does not look at it); one that
/// becomes sparse is removed rather than written. `flags` are the new index's.
fn checkout_plan(
    repo: &Repo,
    plan: &RestorePlan,
    old_index: &Index,
    flags: &BTreeMap<BString, EntryFlags>,
    worktree_tree: ObjectId,
    index_tree: ObjectId,
) -> Result<clada_git::CheckoutPlan, RestoreError> {
    let old_sparse = |p: &BString| {
        old_index
            .flags_of(p.as_bstr())
            .is_some_and(|f| f.skip_worktree)
    };
    let new_sparse = |p: &BString| flags.get(p).is_some_and(|f| f.skip_worktree);

    // Deletions first (deepest first), then writes.
    let mut writes: Vec<(BString, Entry)> = Vec::new();
    let mut deletes: Vec<BString> = Vec::new();
    for p in &plan.paths {
        let rel = BString::from(p.as_str());
        if old_sparse(&rel) && new_sparse(&rel) {
            continue;
        }
        let in_index = repo.tree_entry(index_tree, rel.as_bstr())?.is_some();
        match repo.tree_entry(worktree_tree, rel.as_bstr())? {
            // A directory in the target: whatever file is there now goes (the checkout
            // leaves directories alone), so the files below it can be written.
            Some(e) if e.kind == EntryKind::Tree => deletes.push(rel),
            Some(_) if in_index && new_sparse(&rel) => deletes.push(rel),
            Some(e) => writes.push((rel, e)),
            None => deletes.push(rel),
        }
    }
    Ok(clada_git::CheckoutPlan { writes, deletes })
}

/// Writes the restore's own journal (the plan), so an interrupted restore is finished by
/// running it again; returns its path.
fn write_journal(repo: &Repo, plan: &RestorePlan) -> Result<std::path::PathBuf, RestoreError> {
    let jpath = journal_path(repo);
    let bytes = serde_json::to_vec_pretty(plan).map_err(|source| JournalError::Corrupt {
        path: jpath.clone(),
        source,
    })?;
    clada_base::fsutil::write_atomic_creating_dir(
        &jpath,
        &bytes,
        clada_base::fsutil::Perm::Executable(false),
    )
    .map_err(|source| JournalError::Io {
        path: jpath.clone(),
        source,
    })?;
    Ok(jpath)
}

/// The two passes over the untracked paths: removing what the operation created (before the
/// checkout), putting back what it overwrote or deleted (after it).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Pass {
    Created,
    Saved,
}

/// Untracked files the operation had overwritten or created. A path the operation made
/// tracked is also in `paths` (the checkout just deleted it); only a path the target tree
/// itself tracks is left to the checkout.
fn restore_untracked_paths(
    repo: &Repo,
    plan: &RestorePlan,
    worktree_tree: ObjectId,
    pass: Pass,
) -> Result<(), RestoreError> {
    let mut untracked = plan.untracked.clone();
    untracked.sort_by_key(|jp| std::cmp::Reverse(jp.path.len()));
    for jp in &untracked {
        if (jp.before == Before::Absent) != (pass == Pass::Created) {
            continue;
        }
        let rel = BString::from(jp.path.as_str());
        if repo
            .tree_entry(worktree_tree, rel.as_bstr())?
            .is_some_and(|e| e.kind != EntryKind::Tree)
        {
            continue;
        }
        restore_untracked(repo, jp, worktree_tree)?;
    }
    Ok(())
}

/// Where the branch (or HEAD) is, when it is neither at the plan's target nor where the plan
/// was based on: it moved for another reason.
struct Moved {
    name: String,
    current: String,
}

impl Moved {
    /// The files were restored, the branch and the index left alone.
    fn finished(self, plan: &RestorePlan) -> RestoreError {
        RestoreError::HeadMoved {
            what: plan.reason.clone(),
            name: self.name,
            current: self.current,
            target: plan.head.clone(),
        }
    }

    /// Nothing was changed.
    fn refused(self, plan: &RestorePlan) -> RestoreError {
        RestoreError::Moved {
            what: plan.reason.clone(),
            name: self.name,
            current: self.current,
        }
    }
}

fn head_moved(plan: &RestorePlan, head: ObjectId, current: Option<ObjectId>) -> Option<Moved> {
    let based_on = |c: ObjectId| plan.head_from.iter().any(|h| parse_id(h).ok() == Some(c));
    if current == Some(head) || current.is_some_and(based_on) {
        return None;
    }
    Some(Moved {
        name: plan
            .branch
            .as_deref()
            .map(|b| b.strip_prefix("refs/heads/").unwrap_or(b).to_string())
            .unwrap_or_else(|| "HEAD".into()),
        current: current.map(Repo::short).unwrap_or_else(|| "nothing".into()),
    })
}

/// The index: exactly `index_tree`, keeping stat data of unchanged entries so git does not
/// re-read them, and fresh stat data for files just `written` whose content the index
/// records; then the index flags.
fn rebuild_index(
    repo: &Repo,
    lock: clada_git::IndexLock,
    index_tree: ObjectId,
    worktree_tree: ObjectId,
    old_index: Index,
    written: &[BString],
    flags: BTreeMap<BString, EntryFlags>,
) -> Result<(), RepoError> {
    let mut index = repo.index_at_tree(old_index, index_tree)?;
    let fresh: Vec<BString> = written
        .iter()
        .filter(|p| {
            let w = repo.tree_entry(worktree_tree, p.as_bstr()).ok().flatten();
            let i = index.entry(p.as_bstr());
            w.is_some() && w == i
        })
        .cloned()
        .collect();
    index.refresh_stat(repo, &fresh)?;
    let flags: Vec<(BString, EntryFlags)> = flags.into_iter().collect();
    index.set_flags(repo, &flags)?;
    lock.commit(&index)
}

/// Moves HEAD (or the plan's branch, attaching HEAD to it) to `head`, by compare-and-swap
/// from `current` (where it was once git's index lock was ours); nothing happens when it is
/// there already (a re-run).
fn move_head(
    repo: &Repo,
    plan: &RestorePlan,
    head: ObjectId,
    current: Option<ObjectId>,
    reflog: &str,
) -> Result<(), RepoError> {
    let expected = match current {
        Some(c) => Expected::Value(c),
        None => Expected::MustNotExist,
    };
    match &plan.branch {
        Some(branch) => {
            if current != Some(head) {
                // Through HEAD when it is on that branch, so HEAD's reflog records the move
                // too, as it does for git's own commands.
                let on_branch = repo.head()?.branch() == Some(branch.as_str());
                let name = if on_branch { "HEAD" } else { branch.as_str() };
                repo.update_ref(name, head, expected, reflog)?;
            }
            let head_now = repo.head()?;
            if head_now.branch() != Some(branch.as_str()) {
                repo.attach_head(branch, reflog)?;
            }
        }
        None => {
            let on_branch = repo.head()?.branch().is_some();
            if current != Some(head) || on_branch {
                // A symbolic HEAD has no object to compare with; the branch it is on was
                // compared once git's lock was ours.
                let expected = if on_branch { Expected::Any } else { expected };
                repo.detach_head(head, expected, reflog)?;
            }
        }
    }
    Ok(())
}

/// Takes untracked files out of the worktree (their content is saved elsewhere), pruning
/// directories they leave empty. Missing ones are already gone (a re-run).
fn remove_untracked(repo: &Repo, paths: &[String]) -> Result<(), RestoreError> {
    for p in paths {
        repo.worktree_remove_file(BString::from(p.as_str()).as_bstr())?;
    }
    Ok(())
}

/// Puts one untracked path back to its recorded state, through directory handles opened from
/// the worktree root (`clada_git::worktree`).
fn restore_untracked(
    repo: &Repo,
    jp: &JournalPath,
    worktree_tree: ObjectId,
) -> Result<(), RestoreError> {
    let rel = BString::from(jp.path.as_str());
    let abs = repo.abs_path(rel.as_bstr());
    let io = |context: &'static str| {
        let abs = abs.clone();
        move |source| {
            RestoreError::Repo(RepoError::Io {
                context,
                path: abs,
                source,
            })
        }
    };
    match &jp.before {
        Before::Tracked => {}
        Before::Absent => {
            // Created by the operation and not tracked in the target: remove it (a
            // directory only when empty: anything inside it belongs to someone).
            if repo.tree_entry(worktree_tree, rel.as_bstr())?.is_some() {
                return Ok(());
            }
            if let Some((dir, name)) = repo.wt_at(rel.as_bstr())? {
                match dir.stat(name).map_err(io("cannot inspect"))? {
                    Some(md) if md.is_dir() => {
                        let _ = dir.rmdir(name);
                    }
                    Some(_) => dir.unlink(name).map_err(io("cannot remove"))?,
                    None => {}
                }
            }
            repo.worktree_prune(rel.as_bstr())?;
        }
        Before::Dir => {
            repo.worktree_dirs(rel.as_bstr())?;
        }
        Before::Blob { id, executable } => {
            let data = repo.read_blob(parse_id(id)?)?;
            let (dir, name) = repo.worktree_parent(rel.as_bstr())?;
            if dir
                .stat(name)
                .map_err(io("cannot inspect"))?
                .is_some_and(|m| m.is_dir())
            {
                let root = repo.worktree()?;
                dir.remove_tree(name, &root)
                    .map_err(io("cannot replace directory"))?;
            }
            dir.write_atomic(
                name,
                &data,
                clada_base::fsutil::Perm::Restore(*executable),
                "write:before-rename",
            )
            .map_err(io("cannot write"))?;
        }
        Before::Link { id } => {
            use std::os::unix::ffi::OsStrExt;
            let data = repo.read_blob(parse_id(id)?)?;
            let (dir, name) = repo.worktree_parent(rel.as_bstr())?;
            let target = std::path::Path::new(std::ffi::OsStr::from_bytes(&data));
            dir.symlink_atomic(name, target)
                .map_err(io("cannot create symlink"))?;
        }
    }
    Ok(())
}
