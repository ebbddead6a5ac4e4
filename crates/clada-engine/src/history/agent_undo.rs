//! `git clada undo` of one agent tool call still uncommitted: the last checkpoint the agent's
//! hooks recorded (`record::agent_state`) is taken back — each path it changed set to what it
//! held before the call — while those paths are as the call left them; a path changed since
//! is refused, naming it. Everything else in the worktree (the user's own uncommitted work)
//! stays. `redo` puts the call back — its files and its checkpoint — while nothing was
//! recorded since. The files come back through `record::restore`, as every undo's, and the
//! checkpoints move in the same journaled restore.

use crate::record::agent_state::{state_ref, Checkpoint, Held, Stored};
use crate::record::restore::{self, RefChange, RestorePlan};
use clada_git::{BString, ObjectId, Repo, TreeChange};

use super::common::{current_branch, HistoryError, UndoReport};
use super::stack::{self, Op, StackEntry};

/// How messages name a call: `Edit call toolu_1`.
fn call_name(cp: &Checkpoint) -> String {
    match &cp.key {
        Some(k) => format!("{} call {k}", cp.tool),
        None => format!("{} call", cp.tool),
    }
}

/// The agent's tool calls `undo` would take back one by one before reaching HEAD (`tip`),
/// newest first, as `undo --list` names them.
pub fn uncommitted_calls(
    repo: &Repo,
    branch: &str,
    tip: ObjectId,
) -> Result<Vec<String>, HistoryError> {
    let (_, _, state) = crate::record::agent_state::read_state(repo, Some(branch))?;
    let tip = tip.to_string();
    Ok(state
        .checkpoints
        .iter()
        .rev()
        // Undo stops at what a turn's commit left out (`undo_agent_call`): so does the list.
        .take_while(|cp| cp.head == tip && !cp.left_out)
        .map(|cp| format!("the agent's {} ({})", call_name(cp), cp.session))
        .collect())
}

/// The ref change that leaves the agent state as `held` now has it.
fn state_change(held: &Held) -> Result<(RefChange, Option<String>), HistoryError> {
    let name = held.ref_name().to_string();
    Ok(match held.prepare()? {
        Some(tree) => (
            RefChange::set(name, tree, "clada: agent checkpoint (undo/redo)"),
            Some(tree.to_string()),
        ),
        None => (RefChange::delete(name), None),
    })
}

/// Takes back the last agent tool call of the branch when it is newer than HEAD (it ended
/// with HEAD at `tip`); `None` when there is none, and undo goes on to the commits.
pub fn undo_agent_call(
    repo: &Repo,
    branch: &str,
    tip: ObjectId,
    dry_run: bool,
) -> Result<Option<UndoReport>, HistoryError> {
    if repo.read_ref(&state_ref(Some(branch)))?.is_none() {
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
    let call = call_name(&cp);
    let index = repo.read_index()?;
    if let Some(path) = changed_since(repo, &index, &cp, Way::Undo)? {
        return Err(HistoryError::Refused(format!(
            "{path} changed since the agent's {call} wrote it, so undo would lose that change: nothing was changed. Put the agent's version back or take its change back yourself (`git diff -- {path}` shows the file), then `git clada undo` again"
        )));
    }
    let (mut plan, report) = call_plan(repo, branch, tip, &index, &cp, Way::Undo, dry_run)?;
    let (reason, subject) = (plan.reason.clone(), format!("the agent's {call}"));
    if dry_run {
        return Ok(Some(report));
    }
    held.state.checkpoints.pop();
    let (change, state) = state_change(&held)?;
    plan.refs_after.push(change);
    let checkpoint = serde_json::to_string(&cp)
        .map_err(|e| HistoryError::Refused(format!("cannot record the redo entry: {e}")))?;
    let push = stack::push(
        repo,
        branch,
        Op::AgentCall { checkpoint, state },
        &subject,
        &plan,
    )?;
    plan.refs_after.push(push);
    restore::run(repo, &plan, &format!("clada: {reason}"))?;
    drop(held);
    Ok(Some(report))
}

/// `redo` of an agent tool call `undo` took back: its files get what the call left there and
/// its checkpoint is recorded again, while the agent state is as the undo left it (`state`)
/// and the call's files as the undo put them.
pub fn redo_agent_call(
    repo: &Repo,
    branch: &str,
    entry: &StackEntry,
    checkpoint: &str,
    state: Option<&str>,
    dry_run: bool,
) -> Result<UndoReport, HistoryError> {
    let cp: Checkpoint = serde_json::from_str(checkpoint).map_err(|e| {
        HistoryError::Refused(format!(
            "the redo stack entry of the agent's call cannot be read ({e}); nothing was changed"
        ))
    })?;
    let call = call_name(&cp);
    let (_, tip) = current_branch(repo, "redo")?;
    let mut held = Held::read(repo, Some(branch))?;
    let now = repo.read_ref(held.ref_name())?.map(|t| t.to_string());
    if now.as_deref() != state {
        return Err(HistoryError::Refused(format!(
            "there is nothing to redo: the agent recorded tool calls since the undo of its {call}, so putting it back would mix the turns (nothing was changed)"
        )));
    }
    let index = repo.read_index()?;
    if let Some(path) = changed_since(repo, &index, &cp, Way::Redo)? {
        return Err(HistoryError::Refused(format!(
            "{path} changed since the undo of the agent's {call}; redo would lose that change, so nothing was changed: move it away first"
        )));
    }
    let (mut plan, report) = call_plan(repo, branch, tip, &index, &cp, Way::Redo, dry_run)?;
    let reason = plan.reason.clone();
    if dry_run {
        return Ok(report);
    }
    for ch in &cp.changes {
        held.keep(ch.before);
        held.keep(ch.after);
    }
    held.state.checkpoints.push(cp);
    let (change, _) = state_change(&held)?;
    plan.refs_after = vec![change, stack::pop(branch, entry)?];
    restore::run(repo, &plan, &format!("clada: {reason}"))?;
    drop(held);
    Ok(report)
}

/// Which way a tool call is replayed: undo puts its files back as they were before it, redo
/// as it left them.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Way {
    Undo,
    Redo,
}

impl Way {
    fn name(self) -> &'static str {
        match self {
            Way::Undo => "undo",
            Way::Redo => "redo",
        }
    }
}

/// The first of `cp`'s paths whose content is no longer what the move starts from (the
/// call's result for an undo, what it replaced for a redo): moving it would lose a change.
fn changed_since(
    repo: &Repo,
    index: &clada_git::Index,
    cp: &Checkpoint,
    way: Way,
) -> Result<Option<String>, HistoryError> {
    let mut hasher = repo.hasher_with(index)?;
    for ch in &cp.changes {
        let now = Stored::of(hasher.hash(ch.path.as_bytes().into())?.map(|(e, _)| e));
        let from = match way {
            Way::Undo => ch.after,
            Way::Redo => ch.before,
        };
        if now != from {
            return Ok(Some(ch.path.clone()));
        }
    }
    Ok(None)
}

/// The restore plan that moves `cp`'s files `way` on the branch at `tip` (HEAD and the index
/// stay), and its report.
fn call_plan(
    repo: &Repo,
    branch: &str,
    tip: ObjectId,
    index: &clada_git::Index,
    cp: &Checkpoint,
    way: Way,
    dry_run: bool,
) -> Result<(RestorePlan, UndoReport), HistoryError> {
    let changes: Vec<TreeChange> = cp
        .changes
        .iter()
        .map(|ch| TreeChange {
            path: BString::from(ch.path.as_str()),
            entry: match way {
                Way::Undo => ch.before,
                Way::Redo => ch.after,
            }
            .map(Stored::entry),
        })
        .collect();
    let head_tree = repo.tree_of(tip)?;
    let worktree_tree = repo.edit_tree(head_tree, &changes)?;
    let index_tree = repo.tree_of_index(head_tree, index)?;
    let paths: Vec<String> = cp.changes.iter().map(|c| c.path.clone()).collect();
    let call = call_name(cp);
    let mut plan = RestorePlan::new(
        format!("{} of the agent's {call}", way.name()),
        tip,
        Some(branch.to_string()),
        worktree_tree,
        index_tree,
        paths.clone(),
    );
    plan.keep_index = true;
    plan.head_from = vec![tip.to_string()];
    let report = UndoReport {
        operation: way.name().into(),
        kind: "agent-call".into(),
        commit: None,
        subject: Some(format!("the agent's {call}")),
        from: tip.to_string(),
        to: tip.to_string(),
        paths,
        restored_work: None,
        dry_run,
    };
    Ok((plan, report))
}
