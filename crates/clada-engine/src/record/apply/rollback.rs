//! Taking the reply back while the transaction is still open (`--atomic`, a failing hook
//! with `hooks.rollback_on_failure`, git's index lock held by another command, the branch
//! moved under the apply). File actions restore themselves; what exec changed goes back to
//! the tree the journal recorded. The caller removes the journal afterwards, so a crash
//! during the roll-back leaves it for `git clada undo` to finish.

use std::collections::BTreeSet;

use crate::action::{self, Execution};
use clada_git::{BString, ByteSlice, EntryKind, Repo, RepoError};

use super::super::journal::{parse_id, Journal};
use super::state::Start;
use super::{uncommitted, ApplyError, ApplyOutcome};

/// Puts every path the reply changed back as it was (`--atomic`).
pub(super) fn roll_back(
    repo: &Repo,
    journal: &Journal,
    execution: &Execution,
    changed: &[BString],
) -> Result<(), ApplyError> {
    // File actions restore themselves precisely (also outside the worktree), through
    // directory handles: a directory found swapped for a link stops the roll-back (nothing is
    // deleted or written through it) and the journal stays for `git clada undo` …
    let disk = action::fsx::Disk::new(repo.worktree()?);
    action::restore(&disk, &execution.changes).map_err(|e| {
        let stopped = match clada_base::beneath::refusal(&e) {
            Some(_) => " — the roll-back stopped there and deleted nothing by name; the apply's journal stays",
            None => "",
        };
        ApplyError::Repo(RepoError::Invalid(format!(
            "cannot restore the files changed by the reply: {e}{stopped}; `git clada undo` can finish the job"
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
    repo.execute_checkout(&clada_git::CheckoutPlan { writes, deletes }, &mut hasher)?;
    Ok(())
}

/// Recording the reply failed after its actions ran (a full disk while writing objects, the
/// index or the journal): the reply is taken back on the spot, the journal dropped, and the
/// report lists the blocks that ran, each marked rolled back. When that cannot be done safely
/// (the branch already moved, exec ran, the journal is unreadable) or fails too, the error
/// says that `git clada undo` restores the state before the apply (the journal stays), and
/// still lists the blocks that ran ([`ApplyError::NotRecorded`]).
pub(super) fn after_failure(
    repo: &Repo,
    start: &Start,
    mut ran: Execution,
    error: String,
) -> Result<ApplyOutcome, ApplyError> {
    let undo = |why: String| Err(not_recorded(&ran, &error, &why));
    let journal = match Journal::read(repo) {
        Ok(Some(j)) => j,
        // No journal: the failure came after the transaction was closed or taken back.
        Ok(None) => return Err(ApplyError::Repo(RepoError::Invalid(error))),
        Err(e) => return undo(format!("the journal cannot be read ({e})")),
    };
    if repo.head()?.commit() != Some(start.head_commit) || journal.commit.is_some() {
        return undo("the commit was already made".into());
    }
    if journal.exec {
        return undo("exec ran (what it changed is for undo to take back)".into());
    }
    if let Err(e) = roll_back(repo, &journal, &ran, &[]) {
        return undo(format!("taking the reply back failed too ({e})"));
    }
    if let Err(e) = Journal::remove(repo) {
        return undo(format!("the journal cannot be removed ({e})"));
    }
    let result = &mut ran.result;
    fail_the_blocks_that_ran(
        result,
        true,
        &format!("not applied: recording the commit failed ({error}), so every change of the reply was rolled back"),
    );
    result.rolled_back = true;
    result.warnings.push(format!(
        "recording the commit failed ({error}); every change of this reply was rolled back and nothing was committed: free the space (or fix the cause) and apply again"
    ));
    Ok(uncommitted(ran))
}

/// The blocks of `ran` reported as run but not recorded: their changes are in the worktree,
/// uncommitted, and the journal stays for `git clada undo` to take them back.
fn not_recorded(ran: &Execution, error: &str, why: &str) -> ApplyError {
    let mut ran = ran.clone();
    let result = &mut ran.result;
    fail_the_blocks_that_ran(
        result,
        false,
        &format!("ran, but recording the commit failed ({error}): its change is in the worktree, uncommitted, until `git clada undo` takes the reply back"),
    );
    result.fatal_error = Some(format!(
        "{error}; {why}, so the reply's changes are still in the worktree: `git clada undo` restores the state before the apply"
    ));
    result.update_success();
    ApplyError::NotRecorded(Box::new(ran))
}

/// Marks every block that ran and succeeded as failed with `error` (and `rolled_back`).
fn fail_the_blocks_that_ran(
    result: &mut crate::action::ExecutionResult,
    rolled_back: bool,
    error: &str,
) {
    for r in result
        .results
        .iter_mut()
        .filter(|r| r.success && !r.skipped)
    {
        r.success = false;
        r.rolled_back = rolled_back;
        r.error = Some(error.to_string());
    }
}
