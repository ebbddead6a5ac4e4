//! Phase 6, second half: the changed paths hashed into trees, by editing the user's worktree
//! tree W (only changed paths are hashed). The result is the worktree after the apply (W')
//! and, when the user's work is to stay uncommitted, the AI's changes on top of HEAD alone
//! (three-way merged where the user changed the same file); when they cannot be kept apart,
//! the reason, and the commit falls back to a snapshot of the user's work.

use std::collections::BTreeSet;

use crate::action::Execution;
use clada_git::{BString, ByteSlice, EntryKind, Index, IndexUpdate, ObjectId, Repo, TreeChange};

use super::super::merge;
use super::super::message::{self, Item, Verb};
use super::begin::Transaction;
use super::records::pending_changes;
use super::state::Start;
use super::{ApplyError, ApplyOptions};

/// Paths with AI changes left pending by an earlier apply: their entry before it, and now.
type Pending = std::collections::BTreeMap<BString, super::records::Pending>;

/// The AI's changes as trees.
pub(super) struct Built {
    /// Every changed path relative to the user's worktree tree W (what the worktree now holds).
    pub(super) changes: Vec<TreeChange>,
    /// The tracked worktree after the apply (W').
    pub(super) after_tree: ObjectId,
    /// The AI's changes on top of HEAD, with the user's work kept uncommitted; `Err` under
    /// `--wip commit` (the user asked for a snapshot commit of their work).
    pub(super) on_head: Result<OnHead, String>,
    pub(super) items: Vec<Item>,
    /// Paths whose uncommitted work the AI's change took out of the worktree (a delete, a
    /// whole-file write, a conflicting edit): a warning names where that work is kept.
    pub(super) displaced: Vec<BString>,
    /// Paths whose AI changes an earlier apply left pending (a failing hook), committed now.
    pub(super) pending: Vec<BString>,
    /// Those paths as that apply left them and, when this reply changed them too, as they
    /// were before it: what the authorship log may attribute to the AI there.
    pub(super) pending_ai: crate::record::provenance::AiVersions,
    /// The agent that made the pending changes with its own tools, if the record names one.
    pub(super) pending_agent: Option<crate::record::journal::JournalAgent>,
    /// The record of the pending changes this commit takes (its tree), and the agent's turn
    /// that made them, if one did.
    pub(super) took: Option<ObjectId>,
    pub(super) turn: Option<crate::record::agent_turn::Turn>,
    /// The tracked worktree before the pending changes (W with each pending path as it was
    /// before them): where undo of the commit goes back to.
    pub(super) before_tree: Option<ObjectId>,
}

/// The AI's changes kept apart from the user's uncommitted work (DESIGN §6.3).
#[derive(Debug, Clone, Default)]
pub(super) struct OnHead {
    /// What the AI commit changes in HEAD's tree.
    pub(super) commit: Vec<TreeChange>,
    /// What the index left behind gets for the committed paths: the committed entry, or for a
    /// path with staged work, the three-way merge of (HEAD, the staged version, the
    /// committed version) — so `git diff --cached` still shows exactly the user's staged
    /// change.
    pub(super) index: Vec<TreeChange>,
    /// Paths whose AI change cannot be separated from the user's uncommitted change there:
    /// written to the worktree, not committed, the index left as the user had it; with the
    /// reason. The report marks them ⏸ and the commit names them (`Clada-Uncommitted`).
    pub(super) uncommitted: Vec<(BString, String)>,
}

/// How one path's AI change is recorded.
enum Kept {
    /// Committed as `commit`; the index left behind gets `index`.
    Committed {
        commit: Option<clada_git::Entry>,
        index: Option<clada_git::Entry>,
    },
    /// Left in the worktree only, for this reason.
    Uncommitted(String),
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
        // Files the reply wrote are files, unless they hold a link's target (no symlinks).
        let files: Vec<BString> = execution
            .changes
            .iter()
            .filter(|c| matches!(c.after, crate::action::FileState::File { .. }))
            .filter_map(|c| c.rel.as_deref())
            .filter(|r| !execution.link_files.iter().any(|l| l == r))
            .map(BString::from)
            .collect();
        hasher.files_not_links(files.iter().map(|p| p.as_bstr()));
        let mut changes = Vec::with_capacity(order.len());
        let mut items = Vec::with_capacity(order.len());
        let mut add = |p: &BString, before, entry| {
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
        };
        let mut added = std::collections::BTreeSet::new();
        for p in order {
            let mut entry = hasher.hash(p.as_bstr())?.map(|(e, _)| e);
            // A link written as a plain file (no symlinks here) is a link in the commit, as
            // `git apply` records it.
            if let Some(e) = entry.as_mut().filter(|_| {
                execution
                    .link_files
                    .iter()
                    .any(|l| l.as_bytes() == p.as_slice())
            }) {
                e.kind = EntryKind::Link;
            }
            let before = file_entry(repo, self.base_tree, p)?;
            if before != entry {
                add(p, before, entry);
                added.insert(p);
            }
        }
        // The AI's changes a failing hook left pending go into this commit too.
        let (pending, taken) =
            pending_changes(repo, start.head.branch(), start.head_commit, &mut hasher)?;
        for (p, pend) in &pending {
            if !added.contains(p) {
                add(p, pend.before, pend.now);
            }
        }
        let items = message::fold_moves(items, &execution.result);
        clada_base::failpoint::io_error("apply:write-tree").map_err(|e| {
            clada_git::RepoError::Invalid(format!("cannot write the new tree: {e}"))
        })?;
        let after_tree = repo.edit_tree(self.base_tree, &changes)?;
        let on_head = if opts.wip_commit && start.status.is_dirty() {
            Err("--wip commit".to_string())
        } else {
            Ok(self.merge_onto_head(start, &changes, &execution.moves, &pending)?)
        };
        let displaced = self.displaced(start, &changes, &execution.moves, &pending)?;
        // Files an agent moved (`git mv`): their lines count from where they were.
        let moves = (taken.as_ref())
            .and_then(|(_, j)| j.agent.as_ref())
            .map_or(&[][..], |a| &a.moves[..]);
        let pending_ai = self.pending_ai_versions(&pending, &added, moves)?;
        let before_tree = self.tree_before_pending(&pending)?;
        let (took, taken) = match taken {
            Some((tree, journal)) => (Some(tree), Some(journal)),
            None => (None, None),
        };
        let pending_agent = taken.as_ref().and_then(|j| j.agent.clone());
        let turn = taken.and_then(|j| j.turn);
        Ok(Built {
            changes,
            after_tree,
            on_head,
            items,
            displaced,
            pending: pending.into_keys().collect(),
            pending_ai,
            pending_agent,
            took,
            turn,
            before_tree,
        })
    }

    /// The pending AI changes this commit takes, each with the entry before the reply when
    /// the reply changed that path too, and where an agent moved it from (`moves`).
    fn pending_ai_versions(
        &self,
        pending: &Pending,
        added: &BTreeSet<&BString>,
        moves: &[(String, String)],
    ) -> Result<Vec<crate::record::provenance::AiVersion>, ApplyError> {
        let repo = self.repo;
        let mut pending_ai = Vec::with_capacity(pending.len());
        for (p, pend) in pending {
            let before = match added.contains(p) {
                true => Some(repo.tree_entry(self.base_tree, p.as_bstr())?),
                false => None,
            };
            pending_ai.push(crate::record::provenance::AiVersion {
                path: p.clone(),
                ai: pend.ai,
                before_reply: before,
                moved_from: (moves.iter())
                    .find(|(_, new)| *p == new.as_str())
                    .map(|(old, _)| BString::from(old.as_str())),
            });
        }
        Ok(pending_ai)
    }

    /// The tree as it was before the pending changes this commit takes (none without them).
    fn tree_before_pending(&self, pending: &Pending) -> Result<Option<ObjectId>, ApplyError> {
        if pending.is_empty() {
            return Ok(None);
        }
        let back: Vec<TreeChange> = pending
            .iter()
            .map(|(p, pend)| TreeChange {
                path: p.clone(),
                entry: pend.before,
            })
            .collect();
        Ok(Some(self.repo.edit_tree(self.base_tree, &back)?))
    }

    /// The changed paths that held uncommitted work (W differs from HEAD, for a moved file at
    /// its old path) which the worktree no longer holds: the worktree is not the AI's commit
    /// plus the user's change.
    fn displaced(
        &self,
        start: &Start,
        changes: &[TreeChange],
        moves: &[(String, String)],
        pending: &Pending,
    ) -> Result<Vec<BString>, ApplyError> {
        let repo = self.repo;
        let mut out = Vec::new();
        if !start.status.is_dirty() {
            return Ok(out);
        }
        for c in changes {
            let moved_away = c.entry.is_none()
                && moves.iter().any(|(old, _)| {
                    c.path == old.as_str()
                        || c.path
                            .strip_prefix(old.as_bytes())
                            .is_some_and(|r| r.starts_with(b"/"))
                });
            if moved_away {
                // Judged at the path it moved to.
                continue;
            }
            let (from, h, w) = self.versions(start, &c.path, moves, pending)?;
            let kept = match (w == h, w, h, c.entry) {
                (true, ..) => true,
                (false, Some(w), Some(h), Some(a))
                    if [a.kind, w.kind, h.kind]
                        .iter()
                        .all(|k| matches!(k, EntryKind::Blob | EntryKind::Executable)) =>
                {
                    let (w, h, a) = (
                        repo.read_blob(w.id)?,
                        repo.read_blob(h.id)?,
                        repo.read_blob(a.id)?,
                    );
                    // The AI's change alone (on HEAD), then the user's change on top of it;
                    // or, where a merge sees a conflict, the user's lines left in place.
                    merge::merge3(&w, &h, &a)
                        .and_then(|ai| merge::merge3(&h, &w, &ai))
                        .is_some_and(|both| both == a)
                        || merge::user_change_kept(&h, &w, &a)
                }
                (false, w, _, a) => w == a,
            };
            if !kept {
                out.push(from);
            }
        }
        out.sort();
        out.dedup();
        Ok(out)
    }

    /// The path a change's content came from (itself, or a moved file's old path) and its
    /// HEAD and worktree-before (W) entries.
    #[allow(clippy::type_complexity)]
    ///
    /// A path with AI changes left pending by an earlier apply takes the entry it had before
    /// that apply as the user's version, so those changes count as the AI's.
    fn versions(
        &self,
        start: &Start,
        path: &BString,
        moves: &[(String, String)],
        pending: &Pending,
    ) -> Result<(BString, Option<clada_git::Entry>, Option<clada_git::Entry>), ApplyError> {
        let repo = self.repo;
        if let Some(pend) = pending.get(path) {
            return Ok((
                path.clone(),
                file_entry(repo, start.head_tree, path)?,
                pend.before,
            ));
        }
        let h = file_entry(repo, start.head_tree, path)?;
        let w = file_entry(repo, self.base_tree, path)?;
        match (h, w, moved_from(path, moves)) {
            (None, None, Some(src)) => {
                let h = file_entry(repo, start.head_tree, &src)?;
                let w = file_entry(repo, self.base_tree, &src)?;
                Ok((src, h, w))
            }
            _ => Ok((path.clone(), h, w)),
        }
    }

    /// The AI's changes as changes of HEAD's tree: for a path the user had changed too, HEAD's
    /// version plus the AI's change by a three-way merge, and for a path with staged work an
    /// index entry that keeps that work staged. A path where either merge conflicts (or a
    /// type changed) stays out of the commit (see [`OnHead::uncommitted`]).
    ///
    /// A path a `file_move` created takes the moved file's versions as its own: HEAD's blob
    /// moves, plus the AI's edits, and the user's uncommitted edit stays an unstaged change at
    /// the new path.
    fn merge_onto_head(
        &self,
        start: &Start,
        changes: &[TreeChange],
        moves: &[(String, String)],
        pending: &Pending,
    ) -> Result<OnHead, ApplyError> {
        let repo = self.repo;
        if !start.status.is_dirty() {
            return Ok(OnHead {
                commit: changes.to_vec(),
                index: changes.to_vec(),
                uncommitted: Vec::new(),
            });
        }
        let mut out = OnHead::default();
        for c in changes {
            let (from, h, w) = self.versions(start, &c.path, moves, pending)?;
            let i = file_entry(repo, self.index_tree, &from)?;
            match self.keep_apart(&c.path, h, i, w, c.entry)? {
                Kept::Committed { commit, index } => {
                    out.commit.push(TreeChange {
                        path: c.path.clone(),
                        entry: commit,
                    });
                    out.index.push(TreeChange {
                        path: c.path.clone(),
                        entry: index,
                    });
                }
                Kept::Uncommitted(reason) => out.uncommitted.push((c.path.clone(), reason)),
            }
        }
        Ok(out)
    }

    /// One path's AI change (W → A) separated from the user's work: HEAD's version `h`, the
    /// user's staged version `i` and worktree version `w`.
    fn keep_apart(
        &self,
        path: &BString,
        h: Option<clada_git::Entry>,
        i: Option<clada_git::Entry>,
        w: Option<clada_git::Entry>,
        a: Option<clada_git::Entry>,
    ) -> Result<Kept, ApplyError> {
        let repo = self.repo;
        let blob = |e: &Option<clada_git::Entry>| {
            e.is_some_and(|e| matches!(e.kind, EntryKind::Blob | EntryKind::Executable))
        };
        let overlap = || {
            Kept::Uncommitted(format!(
                "the AI's change to {path} overlaps your uncommitted change there"
            ))
        };
        // The commit: HEAD's version plus the AI's change.
        let commit = match (w == h, a, w, h) {
            (true, a, _, _) => a,
            // The AI deleted a file the user had changed (kept in the undo record).
            (false, None, _, _) => None,
            // Untracked before (or new): the AI wrote what is there.
            (false, Some(a), _, None) if i.is_none() => Some(a),
            (false, Some(a), Some(w), Some(h)) if blob(&Some(a)) && blob(&Some(w)) && blob(&Some(h)) => {
                let merged = merge::merge3(
                    &repo.read_blob(w.id)?,
                    &repo.read_blob(h.id)?,
                    &repo.read_blob(a.id)?,
                );
                let Some(bytes) = merged else {
                    return Ok(overlap());
                };
                let kind = if a.kind != w.kind { a.kind } else { h.kind };
                Some(clada_git::Entry {
                    kind,
                    id: repo.write_blob(&bytes)?,
                })
            }
            _ => {
                return Ok(Kept::Uncommitted(format!(
                    "{path} changed type (a symlink or a mode change) on one side, or is a new file you staged"
                )))
            }
        };
        if i == h {
            return Ok(Kept::Committed {
                commit,
                index: commit,
            });
        }
        // Staged work: the index keeps the user's staged change on top of the commit.
        let index = match (i, commit, h) {
            (i, c, _) if c == h => i,
            (i, c, _) if i == c => c,
            (Some(i), Some(c), Some(h)) if blob(&Some(i)) && blob(&Some(c)) && blob(&Some(h)) => {
                let merged = merge::merge3(
                    &repo.read_blob(h.id)?,
                    &repo.read_blob(i.id)?,
                    &repo.read_blob(c.id)?,
                );
                let Some(bytes) = merged else {
                    return Ok(overlap());
                };
                let kind = if i.kind != h.kind { i.kind } else { c.kind };
                Some(clada_git::Entry {
                    kind,
                    id: repo.write_blob(&bytes)?,
                })
            }
            _ => return Ok(overlap()),
        };
        Ok(Kept::Committed { commit, index })
    }
}

/// The path `path` held before the `file_move`s (`(old, new)` in order) that brought it
/// there (a file moved, or one inside a moved folder); `None` when no move made it.
fn moved_from(path: &BString, moves: &[(String, String)]) -> Option<BString> {
    let mut p = path.to_string();
    let mut moved = false;
    for (old, new) in moves.iter().rev() {
        if p == *new {
            p = old.clone();
        } else if let Some(rest) = p
            .strip_prefix(new.as_str())
            .and_then(|r| r.strip_prefix('/'))
        {
            p = format!("{old}/{rest}");
        } else {
            continue;
        }
        moved = true;
    }
    moved.then(|| BString::from(p))
}

/// A path's non-tree entry in `tree`.
pub(super) fn file_entry(
    repo: &Repo,
    tree: ObjectId,
    path: &BString,
) -> Result<Option<clada_git::Entry>, ApplyError> {
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
