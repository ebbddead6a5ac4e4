//! Phase 6, second half: the changed paths hashed into trees, by editing the user's worktree
//! tree W (only changed paths are hashed). The result is the worktree after the apply (W')
//! and, when the user's work is to stay uncommitted, the AI's changes on top of HEAD alone
//! (three-way merged where the user changed the same file); when they cannot be kept apart,
//! the reason, and the commit falls back to a snapshot of the user's work.

use crate::action::Execution;
use crate::repo::{BString, ByteSlice, EntryKind, Index, IndexUpdate, ObjectId, Repo, TreeChange};

use super::super::merge;
use super::super::message::{self, Item, Verb};
use super::begin::Transaction;
use super::state::Start;
use super::{ApplyError, ApplyOptions};

/// The AI's changes as trees.
pub(super) struct Built {
    /// Every changed path relative to the user's worktree tree W (what the worktree now holds).
    pub(super) changes: Vec<TreeChange>,
    /// The tracked worktree after the apply (W').
    pub(super) after_tree: ObjectId,
    /// The changes to commit on top of HEAD when the user's work stays uncommitted; `Err`
    /// with the reason when it cannot be kept apart (the snapshot fallback).
    pub(super) on_head: Result<Vec<TreeChange>, String>,
    pub(super) items: Vec<Item>,
}

impl Transaction<'_> {
    /// The changed paths hashed into trees: W' and, where possible, the AI's changes on top
    /// of HEAD alone.
    pub(super) fn build(
        &self,
        start: &Start,
        opts: &ApplyOptions,
        order: &[BString],
        execution: &Execution,
    ) -> Result<Built, ApplyError> {
        let repo = self.repo;
        let mut hasher = repo.hasher_with(&start.index)?;
        let mut changes = Vec::with_capacity(order.len());
        let mut items = Vec::with_capacity(order.len());
        for p in order {
            let entry = hasher.hash(p.as_bstr())?.map(|(e, _)| e);
            let before = file_entry(repo, self.base_tree, p)?;
            if before == entry {
                continue;
            }
            let verb = match (before, entry) {
                (None, _) => Verb::Create,
                (_, None) => Verb::Delete,
                _ => Verb::Edit,
            };
            items.push(Item::Path(verb, p.to_string()));
            changes.push(TreeChange {
                path: p.clone(),
                entry,
            });
        }
        let items = message::fold_moves(items, &execution.result);
        let after_tree = repo.edit_tree(self.base_tree, &changes)?;
        let on_head = if opts.wip_commit && start.status.is_dirty() {
            Err("--wip commit".to_string())
        } else {
            self.merge_onto_head(start, &changes)?
        };
        Ok(Built {
            changes,
            after_tree,
            on_head,
            items,
        })
    }

    /// The AI's changes as changes of HEAD's tree: for a path the user had changed too, HEAD's
    /// version plus the AI's change by a three-way merge. `Err` with the reason when a path is
    /// staged or the merge conflicts.
    fn merge_onto_head(
        &self,
        start: &Start,
        changes: &[TreeChange],
    ) -> Result<Result<Vec<TreeChange>, String>, ApplyError> {
        let repo = self.repo;
        if !start.status.is_dirty() {
            return Ok(Ok(changes.to_vec()));
        }
        let mut out = Vec::with_capacity(changes.len());
        for c in changes {
            let h = file_entry(repo, start.head_tree, &c.path)?;
            let i = file_entry(repo, self.index_tree, &c.path)?;
            let w = file_entry(repo, self.base_tree, &c.path)?;
            if i != h {
                return Ok(Err(format!("{} has staged changes", c.path)));
            }
            let entry = match (w == h, c.entry, w, h) {
                (true, e, _, _) => e,
                (false, None, _, _) => None,
                (false, Some(a), None, _) => Some(a),
                (false, Some(a), Some(w), Some(h))
                    if [a.kind, w.kind, h.kind]
                        .iter()
                        .all(|k| matches!(k, EntryKind::Blob | EntryKind::Executable)) =>
                {
                    let merged = merge::merge3(
                        &repo.read_blob(w.id)?,
                        &repo.read_blob(h.id)?,
                        &repo.read_blob(a.id)?,
                    );
                    let Some(bytes) = merged else {
                        return Ok(Err(format!(
                            "the AI's change to {} overlaps your uncommitted change there",
                            c.path
                        )));
                    };
                    let kind = if a.kind != w.kind { a.kind } else { h.kind };
                    Some(crate::repo::Entry {
                        kind,
                        id: repo.write_blob(&bytes)?,
                    })
                }
                _ => {
                    return Ok(Err(format!(
                        "{} changed type (a symlink or a mode change) on one side",
                        c.path
                    )))
                }
            };
            out.push(TreeChange {
                path: c.path.clone(),
                entry,
            });
        }
        Ok(Ok(out))
    }
}

/// A path's non-tree entry in `tree`.
pub(super) fn file_entry(
    repo: &Repo,
    tree: ObjectId,
    path: &BString,
) -> Result<Option<crate::repo::Entry>, ApplyError> {
    Ok(repo
        .tree_entry(tree, path.as_bstr())?
        .filter(|e| e.kind != EntryKind::Tree))
}

/// Index updates setting each path to its entry in `changes`; the worktree file matches
/// when `worktree` (what the files now hold) has the same entry.
pub(super) fn index_updates(changes: &[TreeChange], worktree: &[TreeChange]) -> Vec<IndexUpdate> {
    changes
        .iter()
        .map(|c| IndexUpdate {
            path: c.path.clone(),
            entry: c.entry,
            worktree_matches: worktree
                .iter()
                .find(|w| w.path == c.path)
                .is_some_and(|w| w.entry == c.entry),
        })
        .collect()
}

/// `index` with `updates` applied (the user's index with only the AI's paths staged).
pub(super) fn with_updates(
    repo: &Repo,
    index: &Index,
    updates: &[IndexUpdate],
) -> Result<Index, ApplyError> {
    let mut out = index.clone();
    out.apply(repo, updates)?;
    Ok(out)
}
