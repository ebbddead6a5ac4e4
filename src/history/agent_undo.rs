//! `git clada undo` of one agent tool call still uncommitted: the last checkpoint the agent's
//! hooks recorded (`record::agent_state`) is taken back — each path it changed set to what it
//! held before the call — while those paths are as the call left them; a path changed since
//! is refused, naming it. Everything else in the worktree (the user's own uncommitted work)
//! stays. The files come back through `record::restore`, as every undo's.

use crate::record::agent_state::{Held, Stored};
use crate::record::restore::{self, RestorePlan};
use crate::repo::{BString, ObjectId, Repo, TreeChange};

use super::common::{HistoryError, UndoReport};

/// Takes back the last agent tool call of the branch when it is newer than HEAD (it ended
/// with HEAD at `tip`); `None` when there is none, and undo goes on to the commits.
pub fn undo_agent_call(
    repo: &Repo,
    branch: &str,
    tip: ObjectId,
    dry_run: bool,
) -> Result<Option<UndoReport>, HistoryError> {
    let name = crate::record::agent_state::state_ref(Some(branch));
    if repo.read_ref(&name)?.is_none() {
        return Ok(None);
    }
    let mut held = Held::read(repo, Some(branch))?;
    let tip_hex = tip.to_string();
    let Some(last) = held.state.checkpoints.last() else {
        return Ok(None);
    };
    // What a turn's commit left out (`left_out`) is part of that turn, not a call.
    if last.head != tip_hex || last.left_out {
        return Ok(None);
    }
    let cp = last.clone();
    let index = repo.read_index()?;
    let mut hasher = repo.hasher_with(&index)?;
    let call = match &cp.key {
        Some(k) => format!("{} call {k}", cp.tool),
        None => format!("{} call", cp.tool),
    };
    for ch in &cp.changes {
        let now = Stored::of(hasher.hash(ch.path.as_bytes().into())?.map(|(e, _)| e));
        if now != ch.after {
            return Err(HistoryError::Refused(format!(
                "{} changed since the agent's {call} wrote it, so undo would lose that change: nothing was changed. Put the agent's version back or take its change back yourself (`git diff -- {}` shows the file), then `git clada undo` again",
                ch.path, ch.path
            )));
        }
    }
    let head_tree = repo.tree_of(tip)?;
    let edits: Vec<TreeChange> = cp
        .changes
        .iter()
        .map(|ch| TreeChange {
            path: BString::from(ch.path.as_str()),
            entry: ch.before.map(Stored::entry),
        })
        .collect();
    let worktree_tree = repo.edit_tree(head_tree, &edits)?;
    let index_tree = repo.tree_of_index(head_tree, &index)?;
    let paths: Vec<String> = cp.changes.iter().map(|c| c.path.clone()).collect();
    let reason = format!("undo of the agent's {call}");
    let mut plan = RestorePlan::new(
        reason.clone(),
        tip,
        Some(branch.to_string()),
        worktree_tree,
        index_tree,
        paths.clone(),
    );
    plan.keep_index = true;
    plan.head_from = vec![tip_hex.clone()];
    let report = UndoReport {
        operation: "undo".into(),
        kind: "agent-call".into(),
        commit: None,
        subject: Some(format!("the agent's {call}")),
        from: tip_hex.clone(),
        to: tip_hex,
        paths,
        restored_work: None,
        dry_run,
    };
    if dry_run {
        return Ok(Some(report));
    }
    restore::run(repo, &plan, &format!("clada: {reason}"))?;
    held.state.checkpoints.pop();
    held.save()?;
    Ok(Some(report))
}
