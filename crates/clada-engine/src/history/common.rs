//! What undo/redo, squash and step all use, beneath all three: the error type, the refusal
//! checks of DESIGN §7.1, the current branch, `ORIG_HEAD`, the refs that record operations,
//! the squash commit an undo takes back. (The phase timer is `clada_base::trace`, shared by every
//! command.)

use crate::record::apply::{refuse_if_busy, ApplyError};
use crate::record::journal::JournalError;
use crate::record::restore::RestoreError;
use crate::record::{classify, CladaCommit};
use clada_git::{CommitInfo, Head, ObjectId, Repo, RepoError};

/// The error of every history command. `Refused` means nothing was changed (exit 3).
#[derive(Debug, thiserror::Error)]
pub enum HistoryError {
    /// Refused for safety; nothing changed (exit 3).
    #[error("{0}")]
    Refused(String),
    #[error(transparent)]
    Repo(#[from] RepoError),
    #[error(transparent)]
    Journal(#[from] JournalError),
    #[error(transparent)]
    Restore(RestoreError),
    #[error(transparent)]
    Apply(#[from] ApplyError),
}

impl From<RestoreError> for HistoryError {
    /// A restore refused because the branch moved under it changed nothing: a refusal.
    fn from(e: RestoreError) -> Self {
        match e {
            RestoreError::Moved { .. } => HistoryError::Refused(e.to_string()),
            e => HistoryError::Restore(e),
        }
    }
}

/// The ref recording a squash: new tip → tip before the squash.
pub fn squash_ref(new_tip: ObjectId) -> String {
    format!("refs/clada/squash/{new_tip}")
}

/// The ref a squash writes beside its record when the index held staged changes: the tree of
/// that index, so the squash's undo and redo can tell those changes (which stay staged) from
/// ones staged after it.
pub fn squash_index_ref(new_tip: ObjectId) -> String {
    format!("refs/clada/squash-index/{new_tip}")
}

/// Writes `ORIG_HEAD` as git does before rewriting commands.
pub fn write_orig_head(repo: &Repo, id: ObjectId) -> Result<(), RepoError> {
    let path = repo.git_dir().join("ORIG_HEAD");
    clada_base::fsutil::write_atomic(
        &path,
        format!("{id}\n").as_bytes(),
        clada_base::fsutil::Perm::Executable(false),
    )
    .map_err(clada_git::io_err_pub("cannot write", &path))
}

/// The branch HEAD is on, refusing detached or unborn HEADs.
pub(crate) fn current_branch(repo: &Repo, what: &str) -> Result<(String, ObjectId), HistoryError> {
    match repo.head()? {
        Head::Branch { name, commit } => Ok((name, commit)),
        Head::Detached { .. } => Err(HistoryError::Refused(format!(
            "HEAD is detached; {what} works on the current branch's history: check out a branch first (`git switch <branch>`)"
        ))),
        Head::Unborn { .. } => Err(HistoryError::Refused(format!(
            "the branch has no commits; there is nothing to {what}"
        ))),
    }
}

/// The squash commit an undo of the squash that made `tip` takes back: the newest squash
/// commit from `tip` down to `oldest` (the first commit the undo drops). With
/// `--no-contiguous-only` the commits in between were replayed on top of it, so the tip itself
/// is a copy of a human commit; without, the tip usually is the squash commit.
pub fn squash_commit_of(
    repo: &Repo,
    tip: ObjectId,
    oldest: ObjectId,
) -> Result<CommitInfo, HistoryError> {
    let mut next = Some(tip);
    while let Some(id) = next {
        let info = repo.commit_info(id)?;
        if classify(&info) == Some(CladaCommit::Squash) || id == oldest {
            return Ok(info);
        }
        next = info.parents.first().copied();
    }
    Ok(repo.commit_info(tip)?)
}

/// Refuses while git-clada or git has something unfinished: an interrupted apply, undo or
/// redo; a merge, rebase, cherry-pick, revert, bisect or `git am` in progress.
pub(crate) fn refuse_busy(repo: &Repo) -> Result<(), HistoryError> {
    match refuse_if_busy(repo) {
        Ok(()) => Ok(()),
        Err(ApplyError::Refused(msg)) => Err(HistoryError::Refused(msg)),
        Err(e) => Err(e.into()),
    }
}

/// Refuses while stepped back (step-forward first).
pub(crate) fn refuse_stepped_back(repo: &Repo) -> Result<(), HistoryError> {
    match crate::record::stepped_back(repo)? {
        Some(msg) => Err(HistoryError::Refused(msg)),
        None => Ok(()),
    }
}

/// Unix seconds now.
pub fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

/// What undo or redo did (or would do, with `dry_run`).
#[derive(Debug, Clone, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UndoReport {
    /// `undo`, `redo` or `recover`.
    pub operation: String,
    /// `apply`, `squash`, `uncommitted-apply`, `interrupted-apply`, `interrupted-restore`
    /// or `interrupted-transaction` (only the lock files of a killed git-clada were left).
    pub kind: String,
    /// The commit taken back (undo) or re-applied (redo).
    pub commit: Option<String>,
    pub subject: Option<String>,
    /// HEAD before and after.
    pub from: String,
    pub to: String,
    /// Worktree paths rewritten.
    pub paths: Vec<String>,
    /// With a snapshot: the user's work that comes back uncommitted.
    pub restored_work: Option<RestoredWork>,
    pub dry_run: bool,
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct RestoredWork {
    pub staged: usize,
    pub unstaged: usize,
}
