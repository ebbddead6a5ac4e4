//! step-back / step-forward: walking the worktree through history with uncommitted work parked
//! under `refs/clada/stash/`.

use crate::repo::{Repo, RepoError};

/// The ref recording an active step-back (its presence means "stepped back").
pub const STATE_REF: &str = "refs/clada/step/tip";

/// `Some(message)` when the worktree is stepped back, explaining how to return.
pub fn stepped_back(repo: &Repo) -> Result<Option<String>, RepoError> {
    Ok(repo.read_ref(STATE_REF)?.map(|tip| {
        format!(
            "you are stepped back in history (the tip is {}); run `git clada step-forward --all` to return first",
            Repo::short(tip)
        )
    }))
}
