//! Restoring a recorded state: HEAD, the index and the given worktree paths are set back to
//! what a journal or an apply record says they were. Used by undo, redo and the recovery of an
//! interrupted transaction.
//!
//! A restore is idempotent (it writes target content, it does not apply deltas), and it is
//! itself journaled: if it is interrupted, running it again finishes it.

use serde::{Deserialize, Serialize};

use crate::repo::{
    BString, ByteSlice, Entry, EntryKind, Expected, Index, ObjectId, Repo, RepoError,
};

use super::journal::{parse_id, Before, JournalError, JournalPath};

/// The state to restore.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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
}

#[derive(Debug, thiserror::Error)]
pub enum RestoreError {
    #[error(transparent)]
    Repo(#[from] RepoError),
    #[error(transparent)]
    Journal(#[from] JournalError),
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

/// Carries out `plan`: journal it, rewrite the listed paths, put untracked files back, rewrite
/// the index, move HEAD. `reflog` is the reflog message for the HEAD move.
pub fn run(repo: &Repo, plan: &RestorePlan, reflog: &str) -> Result<(), RestoreError> {
    let jpath = journal_path(repo);
    if let Some(dir) = jpath.parent() {
        std::fs::create_dir_all(dir).map_err(|source| JournalError::Io {
            path: dir.to_path_buf(),
            source,
        })?;
    }
    let bytes = serde_json::to_vec_pretty(plan).map_err(|source| JournalError::Corrupt {
        path: jpath.clone(),
        source,
    })?;
    crate::fsutil::write_atomic(&jpath, &bytes, crate::fsutil::Perm::Executable(false)).map_err(
        |source| JournalError::Io {
            path: jpath.clone(),
            source,
        },
    )?;
    crate::failpoint::hit("restore:after-journal");

    let worktree_tree = parse_id(&plan.worktree_tree)?;
    let index_tree = parse_id(&plan.index_tree)?;
    let head = parse_id(&plan.head)?;
    let old_index = repo.read_index()?;
    let mut hasher = repo.hasher_with(&old_index)?;

    // Tracked paths: deletions first (deepest first), then writes.
    let mut writes: Vec<(BString, Entry)> = Vec::new();
    let mut deletes: Vec<BString> = Vec::new();
    for p in &plan.paths {
        let rel = BString::from(p.as_str());
        match repo.tree_entry(worktree_tree, rel.as_bstr())? {
            // A directory in the target: whatever file is there now goes (the checkout
            // leaves directories alone), so the files below it can be written.
            Some(e) if e.kind == EntryKind::Tree => deletes.push(rel),
            Some(e) => writes.push((rel, e)),
            None => deletes.push(rel),
        }
    }
    let checkout = crate::repo::CheckoutPlan { writes, deletes };
    let written = repo.execute_checkout(&checkout, &mut hasher)?;
    crate::failpoint::hit("restore:after-worktree");

    // Untracked files the operation had overwritten or created. A path the operation made
    // tracked is also in `paths` (the checkout just deleted it); only a path the target
    // tree itself tracks is left to the checkout.
    let mut untracked = plan.untracked.clone();
    untracked.sort_by_key(|jp| std::cmp::Reverse(jp.path.len()));
    for jp in &untracked {
        let rel = BString::from(jp.path.as_str());
        if repo
            .tree_entry(worktree_tree, rel.as_bstr())?
            .is_some_and(|e| e.kind != EntryKind::Tree)
        {
            continue;
        }
        restore_untracked(repo, jp, worktree_tree)?;
    }

    // The index: exactly `index_tree`, keeping stat data of unchanged entries so git does
    // not re-read them, and fresh stat data for files just written whose content the index
    // records.
    let mut index = repo.index_from_tree(index_tree)?;
    index.carry_stat_from(&old_index);
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
    index.set_cache_tree(repo, index_tree, Some(&old_index))?;
    write_index(repo, &index)?;
    crate::failpoint::hit("restore:after-index");

    // HEAD last: until it moves, re-running the restore starts from the same journal.
    match &plan.branch {
        Some(branch) => {
            let current = repo.read_ref(branch)?;
            if current != Some(head) {
                // Through HEAD when it is on that branch, so HEAD's reflog records the move
                // too, as it does for git's own commands.
                let on_branch = repo.head()?.branch() == Some(branch.as_str());
                let name = if on_branch { "HEAD" } else { branch.as_str() };
                repo.update_ref(name, head, Expected::Any, reflog)?;
            }
            let head_now = repo.head()?;
            if head_now.branch() != Some(branch.as_str()) {
                repo.attach_head(branch, reflog)?;
            }
        }
        None => {
            if repo.head()?.commit() != Some(head) || repo.head()?.branch().is_some() {
                repo.detach_head(head, Expected::Any, reflog)?;
            }
        }
    }
    // An interrupted run of this restore may have left temporary files of its writes.
    crate::fsutil::remove_temp_files(
        repo.workdir(),
        plan.paths
            .iter()
            .map(String::as_str)
            .chain(plan.untracked.iter().map(|u| u.path.as_str())),
    );
    std::fs::remove_file(&jpath).map_err(|source| JournalError::Io {
        path: jpath,
        source,
    })?;
    Ok(())
}

fn write_index(repo: &Repo, index: &Index) -> Result<(), RepoError> {
    let lock = repo.lock_index()?;
    lock.commit(index)
}

/// Puts one untracked path back to its recorded state.
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
            match std::fs::symlink_metadata(&abs) {
                Ok(md) if md.is_dir() => {
                    let _ = std::fs::remove_dir(&abs);
                }
                Ok(_) => std::fs::remove_file(&abs).map_err(io("cannot remove"))?,
                Err(_) => {}
            }
            if let Some(parent) = abs.parent() {
                crate::fsutil::prune_empty_dirs(parent, repo.workdir());
            }
        }
        Before::Dir => {
            std::fs::create_dir_all(&abs).map_err(io("cannot create directory"))?;
        }
        Before::Blob { id, executable } => {
            let data = repo.read_blob(parse_id(id)?)?;
            if let Some(parent) = abs.parent() {
                std::fs::create_dir_all(parent).map_err(io("cannot create directory"))?;
            }
            if std::fs::symlink_metadata(&abs).is_ok_and(|m| m.is_dir()) {
                std::fs::remove_dir_all(&abs).map_err(io("cannot replace directory"))?;
            }
            crate::fsutil::write_atomic(&abs, &data, crate::fsutil::Perm::Executable(*executable))
                .map_err(io("cannot write"))?;
        }
        Before::Link { id } => {
            use std::os::unix::ffi::OsStrExt;
            let data = repo.read_blob(parse_id(id)?)?;
            if let Some(parent) = abs.parent() {
                std::fs::create_dir_all(parent).map_err(io("cannot create directory"))?;
            }
            let target = std::path::Path::new(std::ffi::OsStr::from_bytes(&data));
            crate::fsutil::symlink_atomic(&abs, target).map_err(io("cannot create symlink"))?;
        }
    }
    Ok(())
}
