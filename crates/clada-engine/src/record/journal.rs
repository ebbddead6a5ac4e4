//! The transaction journal: `<git-dir>/clada/transaction.json`, written before an apply
//! touches the worktree and removed when it is complete. If the process dies in between, the
//! journal says what the state was before, so `git clada undo` can roll the apply back and
//! every other command refuses until it has.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use clada_git::{EntryFlags, ObjectId, Repo};

/// What a path held before the transaction touched it, when the commit history cannot say.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Before {
    /// Nothing was there.
    Absent,
    /// A directory (its untracked files are listed as paths of their own).
    Dir,
    /// A tracked path: its content is in the journal's `base_tree`.
    Tracked,
    /// An untracked (or ignored) file, saved as a blob.
    Blob { id: String, executable: bool },
    /// An untracked symlink, saved as a blob of its target.
    Link { id: String },
}

/// The index flags of one path (skip-worktree, assume-unchanged, intent-to-add), as the
/// journal records them and a restore plan sets them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PathFlags {
    pub path: String,
    #[serde(flatten)]
    pub flags: EntryFlags,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JournalPath {
    pub path: String,
    pub before: Before,
}

/// The snapshot part of the journal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JournalSnapshot {
    pub commit: String,
    pub index_tree: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Journal {
    /// Always `apply` for now.
    pub op: String,
    /// Unix seconds when the transaction started.
    pub started: i64,
    pub pid: u32,
    /// Where the reply came from (for messages).
    pub source: String,
    /// HEAD before the transaction.
    pub head: String,
    /// The branch HEAD was on (full name), if any.
    pub branch: Option<String>,
    /// The tree of the tracked worktree before the transaction (the snapshot tree, or HEAD's).
    pub base_tree: String,
    /// The tree the index held before (equal to `base_tree` when nothing was staged apart).
    pub index_tree: String,
    pub snapshot: Option<JournalSnapshot>,
    /// Every path the reply's actions may write, with its prior state.
    pub paths: Vec<JournalPath>,
    /// Whether exec blocks ran (their changes are found by comparing with `base_tree`).
    pub exec: bool,
    /// The AI commit, recorded just before the branch is moved to it.
    pub commit: Option<String>,
    /// In the apply record only: the state right after the apply of every journaled path the
    /// AI commit does not track (an untracked file the reply deleted, an ignored file it
    /// wrote), so `redo` can put those back exactly as the apply left them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub after: Vec<JournalPath>,
    /// In the apply record only: the index flags (skip-worktree, assume-unchanged,
    /// intent-to-add) before the apply of the paths it changed and of intent-to-add entries,
    /// which the apply clears or commits; undo sets them back.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub index_flags: Vec<PathFlags>,
    /// The stash-format commit of the user's work when it stayed uncommitted (kept under
    /// `refs/clada/work/<commit>`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kept: Option<String>,
    /// The tracked worktree (W') and the index (I') as the apply left them; records written
    /// before these existed left both equal to the commit's tree.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after_tree: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after_index: Option<String>,
    /// The keys of the blocks whose change this apply made ([`crate::action::block_key`]),
    /// stored beside the journal in the apply record (its `blocks` file): a block pasted
    /// again is not run twice (see `apply::records::mark_already_applied`).
    #[serde(skip)]
    pub blocks: Vec<String>,
    /// The blob id of the reply's text: a reply pasted again right after it is recognised
    /// (see `apply::records::mark_repeated_reply`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reply: Option<String>,
    /// In the apply record only: paths whose AI change overlapped the user's uncommitted
    /// change and stayed in the worktree, uncommitted (`Clada-Uncommitted`). They are never
    /// "pending": a later apply or `git clada commit` leaves them to the user.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub uncommitted: Vec<String>,
    /// Refs besides the branch that the apply moves in the branch's ref transaction (a
    /// watcher's record of its blocks), with the value each had before (`None`: absent):
    /// rolling the apply back sets them back too.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub also_refs: Vec<JournalRef>,
    /// In the record of AI changes an agent made with its own tools (`crate::agent`): who
    /// made them, for the authorship log of the commit that takes them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<JournalAgent>,
    /// In the record of AI changes an agent's turn made: the turn, its calls and each
    /// path's changes (`record::agent_turn`), for undo, redo, `show` and the commit message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn: Option<super::agent_turn::Turn>,
    /// In the record of an AI commit that took AI changes left pending (an agent's turn, an
    /// apply a hook stopped): the record of those changes (a tree, kept in this record's tree
    /// as `took`). They are one operation with the commit: one undo takes both back.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub took: Option<String>,
    /// With `took`: the tracked worktree before that operation began (`base_tree` with the
    /// pending paths as they were before those changes), which undo puts back.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before_tree: Option<String>,
}

/// The agent of AI changes made outside an apply: the Git AI Standard's tool name, the model
/// and the agent's conversation id.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JournalAgent {
    pub tool: String,
    pub model: Option<String>,
    pub conversation: Option<String>,
    /// Files the agent moved (`git mv old new`), as `(old, new)`: the log counts the new
    /// path's lines from the old path's content.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub moves: Vec<(String, String)>,
}

/// A ref and the object it pointed to before an apply moved it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JournalRef {
    pub name: String,
    pub before: Option<String>,
}

impl Journal {
    pub fn path(repo: &Repo) -> PathBuf {
        repo.git_dir().join("clada").join("transaction.json")
    }

    /// Reads the journal of an interrupted transaction, if there is one.
    pub fn read(repo: &Repo) -> Result<Option<Journal>, JournalError> {
        let path = Self::path(repo);
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(source) => return Err(JournalError::Io { path, source }),
        };
        serde_json::from_slice(&bytes)
            .map(Some)
            .map_err(|source| JournalError::Corrupt { path, source })
    }

    /// Writes (or rewrites) the journal atomically.
    pub fn write(&self, repo: &Repo) -> Result<(), JournalError> {
        let path = Self::path(repo);
        let bytes = serde_json::to_vec_pretty(self).map_err(|source| JournalError::Corrupt {
            path: path.clone(),
            source,
        })?;
        clada_base::fsutil::write_atomic_creating_dir(
            &path,
            &bytes,
            clada_base::fsutil::Perm::Executable(false),
        )
        .map_err(|source| JournalError::Io { path, source })
    }

    /// Removes the journal: the transaction is complete (or rolled back).
    pub fn remove(repo: &Repo) -> Result<(), JournalError> {
        let path = Self::path(repo);
        match clada_base::reaper::remove(&path) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(source) => Err(JournalError::Io { path, source }),
        }
    }

    pub fn head_id(&self) -> Result<ObjectId, JournalError> {
        parse_id(&self.head)
    }
}

pub fn parse_id(hex: &str) -> Result<ObjectId, JournalError> {
    ObjectId::from_hex(hex.as_bytes()).map_err(|_| JournalError::BadId(hex.to_string()))
}

#[derive(Debug, thiserror::Error)]
pub enum JournalError {
    #[error("cannot access the transaction journal '{path}': {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("the transaction journal '{path}' is unreadable ({source}); inspect it, then delete it to continue")]
    Corrupt {
        path: PathBuf,
        #[source]
        source: serde_json::Error,
    },
    #[error("the transaction journal holds an invalid object id '{0}'")]
    BadId(String),
}
