//! Recording AI work in git: the apply transaction (snapshot of the user's work, AI commit with
//! trailers, index, hooks, notes, branch move) and the journal that makes an interrupted
//! transaction recoverable. Built on `repo` (git) and `action` (the executor); the executor
//! itself never sees git.

pub mod apply;
pub mod journal;
pub mod message;
pub mod restore;
pub mod snapshot;

/// The notes ref holding each AI commit's reply text (its blob id is the `Clada-Reply`
/// trailer); `refs/notes/clada` holds the JSON result report.
pub const REPLY_NOTES_REF: &str = "refs/notes/clada-reply";

/// Trailer names on git-clada's commits. Commits are recognised as git-clada's by these,
/// never by their subject alone.
pub mod trailer {
    pub const VERSION: &str = "Clada-Version";
    pub const REPLY: &str = "Clada-Reply";
    pub const BLOCKS: &str = "Clada-Blocks";
    pub const FAILED: &str = "Clada-Failed";
    pub const SNAPSHOT: &str = "Clada-Snapshot";
    pub const INDEX: &str = "Clada-Index";
    pub const SQUASHED: &str = "Clada-Squashed";
}

use crate::repo::CommitInfo;

/// What kind of git-clada commit a commit is, judged by its trailers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CladaCommit {
    /// An AI commit made by `apply`.
    Apply,
    /// The snapshot of the user's work made before an apply.
    Snapshot,
    /// The result of `squash`.
    Squash,
}

/// Classifies `commit`; `None` for commits git-clada did not make.
pub fn classify(commit: &CommitInfo) -> Option<CladaCommit> {
    let trailers = commit.trailers();
    let has = |name: &str| trailers.iter().any(|(k, _)| k.eq_ignore_ascii_case(name));
    if !has(trailer::VERSION) {
        return None;
    }
    if has(trailer::SNAPSHOT) {
        Some(CladaCommit::Snapshot)
    } else if has(trailer::SQUASHED) {
        Some(CladaCommit::Squash)
    } else if has(trailer::BLOCKS) {
        Some(CladaCommit::Apply)
    } else {
        None
    }
}
