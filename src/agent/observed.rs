//! What a hook reads of the repository and of a call's files, below every other part of the
//! agent room: HEAD's id, how far back a hook looks for commits made since, and the lines a
//! change wrote.

use clada_engine::authorship::carry;
use clada_git::{Repo, RepoError};

use super::state::Stored;

/// HEAD's commit id, empty on an unborn branch.
pub fn head_id(repo: &Repo) -> Result<String, RepoError> {
    Ok(repo
        .head()?
        .commit()
        .map(|c| c.to_string())
        .unwrap_or_default())
}

/// Each path a call may have changed: its content before the call and now.
pub type Seen = Vec<(String, Option<Stored>, Option<Stored>)>;

/// How many commits past the checkpoints' HEAD are looked at: commits further away (a
/// long rebase, a reset) leave the checkpoints to the end of the turn.
pub const WALK_LIMIT: usize = 100;

/// The lines of `after` that differ from `before`, as ranges.
pub(super) fn written(
    repo: &Repo,
    before: Option<Stored>,
    after: Option<Stored>,
) -> Result<String, RepoError> {
    let read = |s: Option<Stored>| -> Result<Option<Vec<u8>>, RepoError> {
        match s {
            Some(s) if s.kind != super::state::StoredKind::Link => Ok(Some(repo.read_blob(s.id)?)),
            _ => Ok(None),
        }
    };
    let Some(new) = read(after)? else {
        return Ok(String::new());
    };
    Ok(carry::written_lines(read(before)?.as_deref(), &new).to_string())
}
