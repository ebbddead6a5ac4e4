//! Steps on the undo stack: `git clada undo` while stepped back takes the last step-back or
//! step-forward back (to the position before it, recorded in the walk's trail); after a
//! step-forward that returned to the tip, it steps back to where that walk was (parking the
//! work again). `git clada redo` takes the same step again.

use super::common::HistoryError;
use super::common::UndoReport;
use super::stack::{self, Op, StackEntry};
use super::step::{
    back_from_tip, current_position, depth, move_within, read_trail, Move, Returned, StepState,
};
use crate::record::journal::parse_id;
use clada_git::{ObjectId, Repo};

/// The undo report of a step.
fn report(mv: &Move, operation: &str, kind: &str, commit: ObjectId, subject: String) -> UndoReport {
    UndoReport {
        operation: operation.into(),
        kind: kind.into(),
        commit: Some(commit.to_string()),
        subject: Some(subject),
        from: mv.report.from.clone(),
        to: mv.report.to.clone(),
        paths: mv.report.paths.clone(),
        restored_work: None,
        dry_run: mv.report.dry_run,
    }
}

/// `to 1a2b3c4 "subject"`, for the subject of a step.
fn step_subject(repo: &Repo, kind: &str, to: ObjectId) -> Result<String, HistoryError> {
    Ok(format!(
        "{kind} to {} \"{}\"",
        Repo::short(to),
        repo.commit_info(to)?.subject()
    ))
}

/// Runs a planned step with one more ref change at its end (the redo stack's).
fn run_with(
    repo: &Repo,
    mv: Move,
    change: impl FnOnce(
        &crate::record::restore::RestorePlan,
    ) -> Result<crate::record::restore::RefChange, HistoryError>,
) -> Result<(), HistoryError> {
    let mut mv = mv;
    if let Some((mut plan, reflog)) = mv.plan.take() {
        let c = change(&plan)?;
        plan.refs_after.push(c);
        crate::record::restore::run(repo, &plan, &reflog)?;
        mv.recorded(repo)?;
    }
    Ok(())
}

/// Undo while stepped back: back to the position before the last step.
pub fn undo_step(
    repo: &Repo,
    state: &StepState,
    dry_run: bool,
) -> Result<UndoReport, HistoryError> {
    let trail = read_trail(repo, state)?;
    let (position, _) = current_position(repo, state)?;
    let n = trail.len();
    if n < 2 || trail[n - 1] != position {
        return Err(HistoryError::Refused(format!(
            "HEAD ({}) is not where the last step left it, so undo cannot tell which step to take back; step with `git clada step-back` or `git clada step-forward` instead (nothing was changed)",
            Repo::short(position)
        )));
    }
    let prev = trail[n - 2];
    // The step taken back moved toward the tip when it ended nearer to it.
    let forward = depth(repo, state.tip, position)? < depth(repo, state.tip, prev)?;
    let kind = if forward { "step-forward" } else { "step-back" };
    let mv = move_within(repo, state, prev, trail[..n - 1].to_vec(), None, dry_run)?;
    let subject = step_subject(repo, kind, position)?;
    let out = report(&mv, "undo", kind, position, subject.clone());
    run_with(repo, mv, |plan| {
        stack::push(
            repo,
            &state.branch,
            Op::Step {
                to: position.to_string(),
                forward,
            },
            &subject,
            plan,
        )
    })?;
    Ok(out)
}

/// Undo of the step-forward that returned to the tip: back to where that walk was.
pub fn undo_return(
    repo: &Repo,
    returned: &Returned,
    dry_run: bool,
) -> Result<UndoReport, HistoryError> {
    let trail: Vec<ObjectId> = returned
        .trail
        .iter()
        .map(|h| parse_id(h).map_err(HistoryError::from))
        .collect::<Result<_, _>>()?;
    let walk = &trail[..trail.len().saturating_sub(1)];
    let (Some(&tip), Some(&target)) = (trail.first(), walk.last()) else {
        return Err(HistoryError::Refused(
            "the record of the last return to the tip is incomplete; nothing to undo there".into(),
        ));
    };
    let mv = back_from_tip(repo, Some((target, walk.to_vec())), dry_run)?;
    let subject = step_subject(repo, "step-forward", tip)?;
    let out = report(&mv, "undo", "step-forward", tip, subject.clone());
    run_with(repo, mv, |plan| {
        stack::push(
            repo,
            &returned.branch,
            Op::Step {
                to: tip.to_string(),
                forward: true,
            },
            &subject,
            plan,
        )
    })?;
    Ok(out)
}

/// Redo of an undone step: the same step again.
pub fn redo_step(
    repo: &Repo,
    state: Option<&StepState>,
    branch: &str,
    entry: &StackEntry,
    dry_run: bool,
) -> Result<UndoReport, HistoryError> {
    let Op::Step { to, forward } = &entry.op else {
        return Err(HistoryError::Refused("the redo entry is not a step".into()));
    };
    let to = parse_id(to)?;
    let mv = match state {
        // Not stepped back: the undone step was the walk's first step back.
        None => {
            let tip = super::common::current_branch(repo, "redo")?.1;
            back_from_tip(repo, Some((to, vec![tip, to])), dry_run)?
        }
        Some(state) => {
            let mut trail = read_trail(repo, state)?;
            let returned = if to == state.tip {
                let mut r = Returned::new(repo, state)?;
                r.trail.push(state.tip.to_string());
                Some(r)
            } else {
                None
            };
            trail.push(to);
            move_within(repo, state, to, trail, returned, dry_run)?
        }
    };
    let kind = if *forward {
        "step-forward"
    } else {
        "step-back"
    };
    let out = report(&mv, "redo", kind, to, entry.subject.clone());
    run_with(repo, mv, |_| stack::pop(branch, entry))?;
    Ok(out)
}
