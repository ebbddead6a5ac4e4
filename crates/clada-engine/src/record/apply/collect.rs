//! Phase 6, first half: which paths the reply changed. File actions report their own
//! changes; what exec and `hooks.after` changed is found by comparing the status after with
//! the state the journal recorded. Paths git would refuse (ignored files, as
//! `record::admit` decides for every AI commit, and `.git` look-alikes) are left on disk but
//! out of the commit, with a warning. This runs after the actions and
//! before any tree is built, so the build hashes only these paths.

use std::collections::BTreeSet;

use crate::action::{Execution, FileState};
use clada_git::{BString, ByteSlice, EntryKind, ObjectId, Repo};

use super::super::journal::{Before, Journal, JournalPath};
use super::begin::{saved_state, Transaction};
use super::build::file_entry;
use super::state::Start;
use super::ApplyError;

impl Transaction<'_> {
    /// Paths the reply changed: by file actions, then by exec (status before vs after). Paths
    /// git ignores are left in place but not committed, as `git add` would refuse them too.
    pub(super) fn collect_changes(
        &self,
        start: &Start,
        execution: &mut Execution,
    ) -> Result<Vec<BString>, ApplyError> {
        let repo = self.repo;
        let mut changed: BTreeSet<BString> = BTreeSet::new();
        let mut order: Vec<BString> = Vec::new();
        for c in &execution.changes {
            let Some(rel) = &c.rel else { continue };
            let is_file = |s: &FileState| !matches!(s, FileState::Absent | FileState::Dir);
            if !is_file(&c.before) && !is_file(&c.after) {
                continue;
            }
            let rel = BString::from(rel.as_str());
            if changed.insert(rel.clone()) {
                order.push(rel);
            }
        }
        if start.has_exec {
            let mut hasher = repo.hasher_with(&start.index)?;
            let by_exec = exec_changes(repo, start, self.base_tree, &mut hasher)?;
            let untracked = untracked_touched(repo, &self.journal, &changed)?;
            let mut listed: Vec<String> = by_exec
                .iter()
                .filter(|p| !changed.contains(*p))
                .map(|p| p.to_string())
                .collect();
            listed.extend(
                untracked
                    .iter()
                    .map(|p| format!("{p} (untracked, not committed)")),
            );
            if !listed.is_empty() {
                execution.result.warnings.push(format!(
                    "exec changed {}: {}",
                    if listed.len() == 1 {
                        "1 path"
                    } else {
                        "these paths"
                    },
                    listed.join(", ")
                ));
            }
            for p in by_exec {
                if changed.insert(p.clone()) {
                    order.push(p);
                }
            }
        }
        let ignored = crate::record::admit::ignored(repo, &start.index, &order)?;
        for p in &ignored {
            let warning = crate::report::ignored_path_warning(&execution.changes, &p.to_string());
            execution.result.warnings.push(warning);
        }
        order.retain(|p| !ignored.contains(p));
        let overwritten = overwritten_untracked(start, execution, &ignored);
        execution.result.warnings.extend(overwritten);
        drop_refused_names(repo, &mut order, &mut execution.result.warnings);
        Ok(order)
    }
}

/// The warnings for the user's untracked files a file action replaced or deleted: git had no
/// copy of them, so the report names each one and says that undo brings it back (the journal
/// saved it before the reply ran). Ignored files have their own warning.
fn overwritten_untracked(
    start: &Start,
    execution: &Execution,
    ignored: &BTreeSet<BString>,
) -> Vec<String> {
    let is_file = |s: &FileState| matches!(s, FileState::File { .. } | FileState::Symlink { .. });
    execution
        .changes
        .iter()
        .filter(|c| is_file(&c.before) && c.before != c.after)
        .filter_map(|c| {
            let rel = c.rel.as_deref()?;
            let path = BString::from(rel);
            let untracked = start.index.entry(path.as_bstr()).is_none() && !ignored.contains(&path);
            untracked.then(|| match is_file(&c.after) {
                true => format!(
                    "{rel} was your untracked file (git had no copy of it): the reply replaced \
                     it; `git clada undo` restores your version"
                ),
                false => format!(
                    "{rel} was your untracked file (git had no copy of it): the reply removed \
                     it; `git clada undo` restores it"
                ),
            })
        })
        .collect()
}

/// Tracked paths exec changed (compared with the user's worktree tree W, so a dirty file exec
/// reverted counts too) and files it created. A path the index does not track that existed
/// before (an untracked file, one the user stopped tracking with `git rm --cached`) is never
/// committed for exec: its prior content is in the journal, and undo puts it back.
pub(super) fn exec_changes(
    repo: &Repo,
    start: &Start,
    base_tree: ObjectId,
    hasher: &mut clada_git::Hasher<'_>,
) -> Result<Vec<BString>, ApplyError> {
    let after = repo.status(start.head_tree, &start.index, true)?;
    let before_untracked: BTreeSet<&BString> = start.status.untracked.iter().collect();
    let mut candidates: BTreeSet<BString> = start.status.dirty_paths().into_iter().collect();
    candidates.extend(after.dirty_paths());
    let mut out = Vec::new();
    for p in candidates {
        if before_untracked.contains(&p) {
            continue;
        }
        let now = hasher.hash(p.as_bstr())?.map(|(e, _)| e);
        let was = file_entry(repo, base_tree, &p)?;
        if now != was {
            out.push(p);
        }
    }
    for p in &after.untracked {
        if !before_untracked.contains(p) {
            out.push(p.clone());
        }
    }
    Ok(out)
}

/// Journaled untracked files (not named by an action) that are no longer as they were.
fn untracked_touched(
    repo: &Repo,
    journal: &Journal,
    by_actions: &BTreeSet<BString>,
) -> Result<Vec<String>, ApplyError> {
    let mut out = Vec::new();
    for jp in &journal.paths {
        if !matches!(jp.before, Before::Blob { .. } | Before::Link { .. })
            || by_actions.contains(&BString::from(jp.path.as_str()))
        {
            continue;
        }
        let rel = BString::from(jp.path.as_str());
        let now = saved_state(repo, rel.as_bstr())?;
        if now.as_ref() != Some(&jp.before) {
            out.push(jp.path.clone());
        }
    }
    Ok(out)
}

/// Leaves out of the commit the paths git refuses (`.git` look-alikes, a symlinked
/// `.gitmodules`): the sandbox refuses them in file actions, but an exec can create them. They
/// stay on disk; a warning says why they were not committed.
fn drop_refused_names(repo: &Repo, order: &mut Vec<BString>, warnings: &mut Vec<String>) {
    order.retain(|p| {
        let is_link = repo
            .worktree_metadata(p.as_bstr())
            .is_ok_and(|m| m.is_some_and(|m| m.is_symlink()));
        match crate::sandbox::gitname::refused_path(&p.to_str_lossy(), is_link) {
            Some(why) => {
                warnings.push(why);
                false
            }
            None => true,
        }
    });
}

/// The state now of every journaled path that `tree` (the index the apply leaves) does not
/// track.
pub(super) fn untracked_after(
    repo: &Repo,
    journal: &Journal,
    tree: ObjectId,
) -> Result<Vec<JournalPath>, ApplyError> {
    let mut out = Vec::new();
    for jp in &journal.paths {
        let rel = BString::from(jp.path.as_str());
        if repo
            .tree_entry(tree, rel.as_bstr())?
            .is_some_and(|e| e.kind != EntryKind::Tree)
        {
            continue;
        }
        // What cannot be saved (a FIFO left there) is as good as gone for undo.
        let before = saved_state(repo, rel.as_bstr())?.unwrap_or(Before::Absent);
        out.push(JournalPath {
            path: jp.path.clone(),
            before,
        });
    }
    Ok(out)
}
