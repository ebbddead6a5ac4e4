//! The snapshot of the user's uncommitted work taken before an AI edit (DESIGN §6.3).
//!
//! Commit `S` (parent HEAD) holds the tracked worktree exactly as the user had it, so the AI
//! commit on top of it contains only the AI's changes. Its tree is the index plus the
//! worktree changes of tracked files (what `git stash` calls the worktree tree); untracked
//! files are never included. The index tree is named in the trailer `Clada-Index` and kept
//! reachable by the apply record (in `refs/clada/records`), so undo can restore staged
//! vs unstaged exactly.
//! `S` has a single parent so the branch's first-parent history never gains a merge.

use clada_git::{
    BString, ByteSlice, Dirt, Hasher, Index, ObjectId, Repo, Result, Signature, Status, TreeChange,
};

use super::trailer;

/// The recorded state of the user's uncommitted work.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Snapshot {
    /// The snapshot commit `S`.
    pub commit: ObjectId,
    /// Its tree: index + worktree changes of tracked files.
    pub worktree_tree: ObjectId,
    /// The tree of the index as it was.
    pub index_tree: ObjectId,
}

/// The tree of `index` (its stage-0 entries), computed by editing `head_tree` with the staged
/// paths only.
pub fn index_tree(
    repo: &Repo,
    head_tree: ObjectId,
    index: &Index,
    status: &Status,
) -> Result<ObjectId> {
    let changes: Vec<TreeChange> = status
        .staged
        .iter()
        .map(|p| TreeChange {
            path: p.clone(),
            entry: index.entry(p.as_bstr()),
        })
        .collect();
    repo.edit_tree(head_tree, &changes)
}

/// The tree of the tracked worktree: `index_tree` edited with every unstaged change.
pub fn worktree_tree(
    repo: &Repo,
    index_tree: ObjectId,
    status: &Status,
    hasher: &mut Hasher<'_>,
) -> Result<ObjectId> {
    let mut changes = Vec::with_capacity(status.unstaged.len());
    for (path, dirt) in &status.unstaged {
        let entry = match dirt {
            Dirt::Deleted => None,
            Dirt::Modified | Dirt::TypeChanged | Dirt::Conflicted => {
                hasher.hash(path.as_bstr())?.map(|(e, _)| e)
            }
        };
        changes.push(TreeChange {
            path: path.clone(),
            entry,
        });
    }
    repo.edit_tree(index_tree, &changes)
}

/// Writes the snapshot commit `S` on top of `head` for the given trees (no ref is moved: the
/// AI commit made on top of it puts it on the branch).
pub fn commit(
    repo: &Repo,
    head: ObjectId,
    index_tree: ObjectId,
    worktree_tree: ObjectId,
    identity: &(Signature, Signature),
    source: &str,
) -> Result<Snapshot> {
    let message = format!(
        "clada: snapshot before AI edit\n\n\
         Uncommitted work recorded by git-clada before applying {source}.\n\
         `git clada undo` restores it as it was, staged and unstaged.\n\n\
         {}: {}\n{}: yes\n{}: {index_tree}\n",
        trailer::VERSION,
        crate::VERSION,
        trailer::SNAPSHOT,
        trailer::INDEX,
    );
    let commit =
        repo.write_branch_commit(worktree_tree, &[head], &message, &identity.0, &identity.1)?;
    Ok(Snapshot {
        commit,
        worktree_tree,
        index_tree,
    })
}

/// The paths of `status` as a sorted list (for messages).
pub fn describe_paths(paths: &[BString], max: usize) -> String {
    let mut s: Vec<String> = paths.iter().take(max).map(|p| p.to_string()).collect();
    if paths.len() > max {
        s.push(format!("and {} more", paths.len() - max));
    }
    s.join(", ")
}
