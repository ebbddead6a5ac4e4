//! One path over an agent's turn: the user's version and the agent's, from the turn's
//! checkpoints in order, with edits others made between the agent's calls carried into the
//! user's side. What the turn commit, the left-out checkpoints and the unreported edits all
//! read.

use std::collections::BTreeMap;

use clada_git::{Repo, RepoError};

use super::state::{Checkpoint, Stored};

/// One path over the turn: the user's version (the path before the agent's first change of
/// it, with edits made by others between the agent's calls) and the agent's last version.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sides {
    pub user: Option<Stored>,
    pub agent: Option<Stored>,
    /// The agent's first change of the path created it (`record::admit`: a file the user
    /// had untracked before is never the turn's to commit).
    pub created: bool,
}

/// The turn's paths and their sides, from its checkpoints in order. When a path changed
/// between two of the agent's calls (the user edited it), that edit is carried into the
/// user's version by a three-way merge (base: the agent's version, ours: the path before the
/// next call, theirs: the user's version), so it stays the user's; where the merge cannot
/// tell (a conflict, binary content), the agent's earlier change counts as the user's: a gap
/// in attribution, never the user's lines counted as the agent's.
pub fn sides(
    repo: &Repo,
    checkpoints: &[&Checkpoint],
) -> Result<BTreeMap<String, Sides>, RepoError> {
    let mut out: BTreeMap<String, Sides> = BTreeMap::new();
    for cp in checkpoints {
        for ch in &cp.changes {
            let Some(s) = out.get_mut(&ch.path) else {
                out.insert(
                    ch.path.clone(),
                    Sides {
                        user: ch.before,
                        agent: ch.after,
                        created: ch.before.is_none(),
                    },
                );
                continue;
            };
            if ch.before != s.agent {
                s.user = carry_edit(repo, s.agent, ch.before, s.user)?;
            }
            s.agent = ch.after;
        }
    }
    out.retain(|_, s| s.user != s.agent);
    Ok(out)
}

/// The user's version with the edit `agent` → `now` (made by someone else) carried in; the
/// agent's hunks that touch that edit stay on the user's side (`record::admit`).
pub(super) fn carry_edit(
    repo: &Repo,
    agent: Option<Stored>,
    now: Option<Stored>,
    user: Option<Stored>,
) -> Result<Option<Stored>, RepoError> {
    let (Some(a), Some(n), Some(u)) = (agent, now, user) else {
        return Ok(now);
    };
    let (a_b, n_b, u_b) = (
        repo.read_blob(a.id)?,
        repo.read_blob(n.id)?,
        repo.read_blob(u.id)?,
    );
    Ok(
        match clada_engine::record::admit::users_edit(&a_b, &n_b, &u_b) {
            Some(carried) => Some(Stored {
                kind: n.kind,
                id: repo.write_blob(&carried.user)?,
            }),
            None => Some(n),
        },
    )
}
