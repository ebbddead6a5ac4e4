//! Taking the reply back while the transaction is still open (`--atomic`, a failing hook
//! with `hooks.rollback_on_failure`, git's index lock held by another command, the branch
//! moved under the apply). File actions restore themselves; what exec changed goes back to
//! the tree the journal recorded. The caller removes the journal afterwards, so a crash
//! during the roll-back leaves it for `git clada undo` to finish.

use std::collections::BTreeSet;

use crate::action::{self, Execution};
use crate::repo::{BString, ByteSlice, EntryKind, Repo, RepoError};

use super::super::journal::{parse_id, Journal};
use super::ApplyError;

/// Puts every path the reply changed back as it was (`--atomic`).
pub(super) fn roll_back(
    repo: &Repo,
    journal: &Journal,
    execution: &Execution,
    changed: &[BString],
) -> Result<(), ApplyError> {
    // File actions restore themselves precisely (also outside the worktree) …
    action::restore(&execution.changes).map_err(|e| {
        ApplyError::Repo(RepoError::Invalid(format!(
            "--atomic: cannot restore the files changed by the reply: {e}; `git clada undo` can finish the job"
        )))
    })?;
    // … and what exec changed goes back to the recorded state.
    let file_paths: BTreeSet<String> = execution
        .changes
        .iter()
        .filter_map(|c| c.rel.clone())
        .collect();
    let exec_paths: Vec<String> = changed
        .iter()
        .map(|p| p.to_string())
        .filter(|p| !file_paths.contains(p))
        .collect();
    if exec_paths.is_empty() {
        return Ok(());
    }
    let base_tree = parse_id(&journal.base_tree)?;
    let mut hasher = repo.hasher()?;
    let mut writes = Vec::new();
    let mut deletes = Vec::new();
    for p in exec_paths {
        let b = BString::from(p);
        match repo.tree_entry(base_tree, b.as_bstr())? {
            Some(e) if e.kind != EntryKind::Tree => writes.push((b, e)),
            _ => deletes.push(b),
        }
    }
    repo.execute_checkout(&crate::repo::CheckoutPlan { writes, deletes }, &mut hasher)?;
    Ok(())
}
