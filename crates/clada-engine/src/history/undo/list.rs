//! `undo --list`: the operations undo and redo would take, newest first.

use super::*;

/// One operation on the undo or redo stack, as `undo --list` shows it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ListedOp {
    /// `apply`, `uncommitted-apply`, `squash`, `step-back` or `step-forward`.
    pub kind: String,
    pub commit: Option<String>,
    pub subject: String,
}

/// What `git clada undo --list` shows: the operations undo takes back, newest first, and
/// those redo puts back, next first.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StackList {
    pub branch: String,
    pub undo: Vec<ListedOp>,
    /// True when the undo list stopped at `max` entries.
    pub undo_truncated: bool,
    pub redo: Vec<ListedOp>,
    /// Why redo would refuse although entries are recorded (something happened since).
    pub redo_stale: Option<String>,
}

/// `git clada undo --list`: at most `max` entries per stack. Reads only.
pub fn list(repo: &Repo, max: usize) -> Result<StackList, HistoryError> {
    let mut undo = Vec::new();
    let state = crate::history::step::read_state(repo)?;
    let (branch, tip) = match &state {
        Some(s) => (s.branch.clone(), s.tip),
        None => current_branch(repo, "undo")?,
    };
    let step = |kind: &str, to: ObjectId| -> Result<ListedOp, HistoryError> {
        Ok(ListedOp {
            kind: kind.into(),
            commit: Some(to.to_string()),
            subject: format!(
                "{kind} to {} \"{}\"",
                Repo::short(to),
                repo.commit_info(to)?.subject()
            ),
        })
    };
    // The walk's steps, newest first.
    let walk = match &state {
        Some(s) => Some(crate::history::step::read_trail(repo, s)?),
        None => match crate::history::step::returned(repo, &branch, tip)? {
            Some(r) => {
                undo.push(step("step-forward", tip)?);
                let trail: Vec<ObjectId> = r
                    .trail
                    .iter()
                    .map(|h| parse_id(h))
                    .collect::<Result<_, _>>()?;
                Some(trail[..trail.len().saturating_sub(1)].to_vec())
            }
            None => None,
        },
    };
    for pair in walk.unwrap_or_default().windows(2).rev() {
        let forward = crate::history::step::depth(repo, tip, pair[1])?
            < crate::history::step::depth(repo, tip, pair[0])?;
        undo.push(step(
            if forward { "step-forward" } else { "step-back" },
            pair[1],
        )?);
    }
    // The agent's tool calls nobody committed yet, newest first: undo takes them first.
    if state.is_none() {
        for call in crate::history::agent_undo::uncommitted_calls(repo, &branch, tip)? {
            undo.push(ListedOp {
                kind: "agent-call".into(),
                commit: None,
                subject: call,
            });
        }
    }
    let at = walk_commits(repo, &branch, tip, max, &mut undo)?;
    let undo_truncated = undo.len() > max || (undo.len() == max && at.is_some());
    undo.truncate(max);
    let entries = stack::list(repo, &branch, max)?;
    let redo_stale = match entries.first() {
        Some(top) => match stack::require_current(repo, &branch, top) {
            Err(HistoryError::Refused(why)) => Some(why),
            Err(e) => return Err(e),
            Ok(()) => None,
        },
        None => None,
    };
    let mut redo = Vec::with_capacity(entries.len());
    for e in entries {
        // An AI commit that is an agent's turn is listed as one, as undo lists it.
        let turn = match &e.op {
            Op::Apply { commit } => crate::record::is_turn(&repo.commit_info(parse_id(commit)?)?),
            _ => false,
        };
        redo.push(ListedOp {
            kind: if turn { "turn" } else { e.op.kind() }.into(),
            commit: match &e.op {
                Op::Apply { commit } | Op::Squash { commit } => Some(commit.clone()),
                Op::Step { to, .. } => Some(to.clone()),
                Op::UncommittedApply { .. } | Op::AgentCall { .. } => None,
            },
            subject: e.subject,
        });
    }
    Ok(StackList {
        branch: branch
            .strip_prefix("refs/heads/")
            .unwrap_or(&branch)
            .to_string(),
        undo,
        undo_truncated,
        redo,
        redo_stale,
    })
}

/// The operations on the branch's commits from `tip` down, pushed onto `undo` until it holds
/// `max`: the uncommitted applies recorded at each commit, then the squash or apply (or
/// agent's turn) the commit is. Returns where the walk stopped (`None`: nothing further).
fn walk_commits(
    repo: &Repo,
    branch: &str,
    tip: ObjectId,
    max: usize,
    undo: &mut Vec<ListedOp>,
) -> Result<Option<ObjectId>, HistoryError> {
    let mut pending = repo.read_ref(&pending_ref(Some(branch)))?;
    let mut at = Some(tip);
    while let Some(c) = at {
        if undo.len() >= max {
            break;
        }
        at = None;
        while let Some(record) = pending {
            let Some(j) = crate::record::apply::record_journal(repo, record)? else {
                break;
            };
            if j.head_id()? != c {
                break;
            }
            undo.push(ListedOp {
                kind: uncommitted_kind(&j).into(),
                commit: None,
                subject: uncommitted_subject(&j),
            });
            pending = previous_pending(repo, record)?;
        }
        let info = repo.commit_info(c)?;
        if let Some(before) = repo.read_ref(&squash_ref(c))? {
            undo.push(ListedOp {
                kind: "squash".into(),
                commit: Some(c.to_string()),
                subject: info.subject().to_string(),
            });
            at = Some(before);
        } else if let Some(journal) = read_record(repo, c)? {
            let took = taken(repo, &journal)?;
            undo.push(ListedOp {
                kind: match took.as_ref().and_then(|(_, j)| j.turn.as_ref()) {
                    Some(_) => "turn",
                    None => "apply",
                }
                .into(),
                commit: Some(c.to_string()),
                subject: info.subject().to_string(),
            });
            // The pending AI changes it took are part of it, not an operation below it.
            if let Some((tree, _)) = took.filter(|(t, _)| pending == Some(*t)) {
                pending = previous_pending(repo, tree)?;
            }
            at = Some(apply_sides(repo, &info, Some(journal))?.0.head);
        }
    }
    Ok(at)
}
