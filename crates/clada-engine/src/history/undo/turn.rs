//! Undo and redo of an agent's turn (`record::agent_turn`): each path the agent changed is
//! taken back (or put back) from what the worktree holds now, by replaying the agent's calls
//! backwards (forwards) as three-way merges. The user's own edits of those files — made
//! before, during or after the turn — stay where they are; where one touches the agent's
//! lines (a merge conflict), the operation is refused, naming the path and the lines, before
//! anything is written.

use super::*;
use crate::record::agent_state::Stored;
use crate::record::agent_turn::Turn;
use crate::record::merge::{conflict_lines, merge3};
use clada_git::Entry;

/// Which way a turn is replayed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Way {
    /// Undo: every call taken back, newest first.
    Back,
    /// Redo: every call put back, oldest first.
    Forward,
}

/// What one path of a turn cannot be moved to, and where.
struct Tangle {
    path: String,
    /// 1-based lines of the file as it is now; empty when the whole file is in question.
    lines: Vec<(usize, usize)>,
}

/// The worktree entry each of `turn`'s paths gets when the turn is replayed `way` from what
/// the worktree holds now. Refused, naming every path and its lines, where the user's edit
/// touches the agent's change; `commit` names the turn in that message.
pub(super) fn targets(
    repo: &Repo,
    turn: &Turn,
    way: Way,
    commit: Option<ObjectId>,
) -> Result<Vec<(BString, Option<Entry>)>, HistoryError> {
    let index = repo.read_index()?;
    let mut hasher = repo.hasher_with(&index)?;
    let mut out = Vec::with_capacity(turn.paths.len());
    let mut tangles = Vec::new();
    for tp in &turn.paths {
        let path = BString::from(tp.path.as_str());
        // Written as a blob: a merge reads it (it is most often a version the turn stored).
        let mut cur = Stored::of(hasher.hash(path.as_bstr())?.map(|(e, _)| e));
        let mut steps: Vec<(Option<Stored>, Option<Stored>)> =
            tp.steps.iter().map(|s| (s.before, s.after)).collect();
        if way == Way::Back {
            steps = steps.into_iter().rev().map(|(b, a)| (a, b)).collect();
        }
        let mut tangled = None;
        for (from, to) in steps {
            match replay(repo, cur, from, to)? {
                Ok(next) => cur = next,
                Err(lines) => {
                    tangled = Some(Tangle {
                        path: tp.path.clone(),
                        lines,
                    });
                    break;
                }
            }
        }
        match tangled {
            Some(t) => tangles.push(t),
            None => out.push((path, cur.map(Stored::entry))),
        }
    }
    if !tangles.is_empty() {
        return Err(refusal(&tangles, way, commit));
    }
    Ok(out)
}

/// One call's change `from` → `to` replayed on `cur`: the new content, or the lines of `cur`
/// where it conflicts (empty: the whole file).
#[allow(clippy::type_complexity)]
fn replay(
    repo: &Repo,
    cur: Option<Stored>,
    from: Option<Stored>,
    to: Option<Stored>,
) -> Result<Result<Option<Stored>, Vec<(usize, usize)>>, HistoryError> {
    if cur == from {
        return Ok(Ok(to));
    }
    if from == to || cur == to {
        return Ok(Ok(cur));
    }
    let (Some(c), Some(f), Some(t)) = (cur, from, to) else {
        // Created or deleted on one side, changed on the other.
        return Ok(Err(Vec::new()));
    };
    use crate::record::agent_state::StoredKind::Link;
    if [c.kind, f.kind, t.kind].contains(&Link) {
        return Ok(Err(Vec::new()));
    }
    // The mode as a three-way merge too: the one side that changed it wins.
    let kind = match (c.kind == f.kind, f.kind == t.kind) {
        (true, _) => t.kind,
        (false, true) => c.kind,
        (false, false) if c.kind == t.kind => c.kind,
        _ => return Ok(Err(Vec::new())),
    };
    let (cb, fb, tb) = (
        repo.read_blob(c.id)?,
        repo.read_blob(f.id)?,
        repo.read_blob(t.id)?,
    );
    Ok(match merge3(&fb, &cb, &tb) {
        Some(merged) => Ok(Some(Stored {
            kind,
            id: repo.write_blob(&merged)?,
        })),
        None => Err(conflict_lines(&fb, &cb, &tb)),
    })
}

/// The refusal naming where the user's edits touch the agent's lines.
fn refusal(tangles: &[Tangle], way: Way, commit: Option<ObjectId>) -> HistoryError {
    let named: Vec<String> = tangles
        .iter()
        .take(8)
        .map(|t| match t.lines.as_slice() {
            [] => format!("{} (the whole file)", t.path),
            lines => {
                let spans: Vec<String> = lines
                    .iter()
                    .map(|&(a, b)| match a == b {
                        true => a.to_string(),
                        false => format!("{a}-{b}"),
                    })
                    .collect();
                let word = match lines.len() == 1 && lines[0].0 == lines[0].1 {
                    true => "line",
                    false => "lines",
                };
                format!("{} {word} {}", t.path, spans.join(", "))
            }
        })
        .collect();
    let more = match tangles.len() > 8 {
        true => format!(" and {} more", tangles.len() - 8),
        false => String::new(),
    };
    let revert = match commit {
        Some(c) => format!(
            "; or take the agent's change back yourself with `git revert {}`",
            Repo::short(c)
        ),
        None => String::new(),
    };
    HistoryError::Refused(match way {
        Way::Back => format!(
            "your own edits touch the agent's lines in {}{more}: taking the agent's turn back would lose one or the other, so nothing was changed. Move your edits there out of the way (`git stash` keeps them), then `git clada undo` again{revert}",
            named.join("; ")
        ),
        Way::Forward => format!(
            "your edits since the undo touch the lines the agent's turn wrote in {}{more}: putting the turn back would lose one or the other, so nothing was changed. Move your edits there out of the way (`git stash` keeps them), then `git clada redo` again",
            named.join("; ")
        ),
    })
}
