//! Edits no hook reported (Codex's `apply_patch` calls that fire none, openai/codex#26751):
//! at a session's first hook of a turn its worktree is remembered (every dirty or untracked
//! file, hashed); at the end of the turn, what changed since then that no checkpoint holds —
//! a path the agent's checkpoints never named, or one that changed after its last checkpoint
//! — is named on stderr as not attributed. It is left as it is in the worktree: never
//! committed as the agent's (the turn commits the checkpoints' versions only), never lost.
//! A user's own edit during the turn is found the same way: the two cannot be told apart.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::repo::{ByteSlice, Repo, RepoError};

use super::calls::dirty_paths;
use super::state::{FileState, Held, Stored};
use super::turn::Sides;

/// A session's worktree when its turn began: its dirty and untracked files.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Baseline {
    pub session: String,
    pub files: Vec<FileState>,
}

/// Remembers the worktree for `session` unless its turn has begun already (the cost of a
/// status of the worktree, once per turn).
pub fn remember(repo: &Repo, held: &mut Held, session: &str) -> Result<(), RepoError> {
    if held.state.baselines.iter().any(|b| b.session == session) {
        return Ok(());
    }
    let files = dirty_now(repo)?
        .into_iter()
        .map(|(path, entry)| FileState { path, entry })
        .collect();
    held.state.baselines.push(Baseline {
        session: session.to_string(),
        files,
    });
    Ok(())
}

/// The paths that changed during `session`'s turn with no checkpoint holding their content
/// now, given the turn's `sides`; the session's baseline is dropped (the turn ends). Empty
/// when no baseline was taken (the hooks were installed mid-turn).
pub fn at_end(
    repo: &Repo,
    held: &mut Held,
    session: &str,
    sides: &BTreeMap<String, Sides>,
) -> Result<Vec<String>, RepoError> {
    let Some(i) = held
        .state
        .baselines
        .iter()
        .position(|b| b.session == session)
    else {
        return Ok(Vec::new());
    };
    let base = held.state.baselines.remove(i);
    let before: BTreeMap<&str, Option<Stored>> = base
        .files
        .iter()
        .map(|f| (f.path.as_str(), f.entry))
        .collect();
    let mut out = Vec::new();
    for (path, now) in dirty_now(repo)? {
        let unchanged = match sides.get(&path) {
            Some(s) => s.agent == now,
            None => before.get(path.as_str()) == Some(&now),
        };
        if !unchanged {
            out.push(path);
        }
    }
    Ok(out)
}

/// The turn's `sides` with what changed in a path after the agent's last checkpoint of it
/// carried into the user's version (as a user's edit between two agent calls is, `turn`):
/// the turn commits the agent's changes only, never what no hook reported.
pub fn fold_later_edits(
    repo: &Repo,
    mut sides: BTreeMap<String, Sides>,
) -> Result<BTreeMap<String, Sides>, RepoError> {
    let index = repo.read_index()?;
    let mut hasher = repo.hasher_with(&index)?;
    for (path, s) in sides.iter_mut() {
        let now = Stored::of(hasher.hash(path.as_bytes().as_bstr())?.map(|(e, _)| e));
        if now != s.agent {
            s.user = super::turn::carry_edit(repo, s.agent, now, s.user)?;
            // The later edit could not be told from the agent's (a merge conflict): the
            // path is left to the user whole, unattributed.
            if s.user == now {
                s.agent = now;
            }
        }
    }
    sides.retain(|_, s| s.user != s.agent);
    Ok(sides)
}

/// Every dirty or untracked file and its content now.
fn dirty_now(repo: &Repo) -> Result<Vec<(String, Option<Stored>)>, RepoError> {
    let index = repo.read_index()?;
    let mut hasher = repo.hasher_with(&index)?;
    let mut out = Vec::new();
    for p in dirty_paths(repo, &index)? {
        let entry = Stored::of(hasher.id_of(p.as_bstr())?);
        out.push((p.to_string(), entry));
    }
    Ok(out)
}
