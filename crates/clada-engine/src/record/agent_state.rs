//! The checkpoints of an agent's tool calls (written by `agent/`, read by `history` for the
//! undo of one call), kept off the branch in one ref per branch,
//! `refs/clada/agent/<branch>`: a tree holding `state.json` (the before-states of the calls
//! still running and the checkpoints of the turn) and, under `o/`, every blob it names, so
//! `git gc` keeps them. Hooks of one repository take turns on `.git/clada/agent.lock` for the
//! read-modify-write (never on git-clada's main lock, which an apply may hold for long), and
//! the ref moves by compare-and-swap.

use serde::{Deserialize, Serialize};

use clada_git::{
    BString, ByteSlice, Entry, EntryKind, Expected, ObjectId, RefUpdate, Repo, RepoError,
    StateLock, TreeChange,
};

/// Where the checkpoints of branch `branch` (a full ref name, `None` when detached) are kept.
pub fn state_ref(branch: Option<&str>) -> String {
    let short = branch
        .map(|b| b.strip_prefix("refs/heads/").unwrap_or(b))
        .unwrap_or("HEAD");
    format!("refs/clada/agent/{short}")
}

/// A file's content as the checkpoints store it: its blob and mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stored {
    pub kind: StoredKind,
    #[serde(with = "hex_id")]
    pub id: ObjectId,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StoredKind {
    File,
    Executable,
    Link,
}

impl Stored {
    /// The stored form of a worktree or tree entry; `None` for what is no file (a
    /// submodule, a directory).
    pub fn of(entry: Option<Entry>) -> Option<Stored> {
        let e = entry?;
        let kind = match e.kind {
            EntryKind::Blob => StoredKind::File,
            EntryKind::Executable => StoredKind::Executable,
            EntryKind::Link => StoredKind::Link,
            _ => return None,
        };
        Some(Stored { kind, id: e.id })
    }

    pub fn entry(self) -> Entry {
        Entry {
            kind: match self.kind {
                StoredKind::File => EntryKind::Blob,
                StoredKind::Executable => EntryKind::Executable,
                StoredKind::Link => EntryKind::Link,
            },
            id: self.id,
        }
    }
}

mod hex_id {
    use clada_git::ObjectId;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(id: &ObjectId, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&id.to_string())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<ObjectId, D::Error> {
        let hex = String::deserialize(d)?;
        ObjectId::from_hex(hex.as_bytes()).map_err(serde::de::Error::custom)
    }
}

/// A path and what it held (`None`: nothing).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileState {
    pub path: String,
    pub entry: Option<Stored>,
}

/// The state recorded before a tool call, waiting for the call's after.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Open {
    /// The call's `tool_use_id`; `None` for an agent without one (paired per session, in
    /// arrival order).
    pub key: Option<String>,
    pub session: String,
    pub tool: String,
    /// A shell tool: `files` lists every dirty or untracked file; any other path held what
    /// the index holds.
    pub worktree: bool,
    pub files: Vec<FileState>,
    /// HEAD when the call started (empty: unborn, or a state an older git-clada wrote), so
    /// a commit made during the call (the agent's own `git commit`) is seen by its after.
    #[serde(default)]
    pub head: String,
    /// A shell call: what the index held at each path where it differed from HEAD's tree
    /// (`None`: removed from the index), so the agent's own `git add`, `git mv` and `git
    /// stash` are read from the index as well as the worktree.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub staged: Vec<FileState>,
    /// A shell call: `refs/stash` when it started (empty: no stash).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub stash: String,
}

/// What one tool call changed.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Checkpoint {
    pub key: Option<String>,
    pub session: String,
    pub tool: String,
    /// HEAD when the call ended.
    pub head: String,
    /// HEAD when the call started: commits made on top of it may hold this call's lines
    /// (empty in a state an older git-clada wrote: `head` then stands for it).
    #[serde(default)]
    pub base: String,
    /// The agent, as the Git AI Standard names it (`claude`, `cursor`, …).
    #[serde(default)]
    pub agent: Option<String>,
    /// The model, when the payload named it.
    #[serde(default)]
    pub model: Option<String>,
    /// The agent's transcript, where the model is read from when a commit takes the lines.
    #[serde(default)]
    pub transcript: Option<String>,
    pub changes: Vec<Change>,
    /// Not a tool call: the agent's changes its turn's commit left out (`record::admit`: the
    /// user's untracked file, a hunk touching the user's edit), kept so that whoever commits
    /// them credits the agent. Never undone as a call; the next end of a turn looks at them
    /// again.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub left_out: bool,
    /// Files the call moved (`git mv old new`), as `(old, new)`: the new path's content
    /// before the call is the old path's, which its written lines are counted from.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub moves: Vec<(String, String)>,
}

impl Checkpoint {
    /// HEAD when the call started.
    pub fn base(&self) -> &str {
        match self.base.is_empty() {
            true => &self.head,
            false => &self.base,
        }
    }
}

/// One path a tool call changed: before and after, and the lines it wrote (1-based ranges
/// of the after version, `1-4,9`).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Change {
    pub path: String,
    pub before: Option<Stored>,
    pub after: Option<Stored>,
    pub lines: String,
}

/// What the index held at a path before a session's agent first changed it there in a
/// turn (its own `git add`, `git mv`): the user's side of the index, given back before the
/// turn's commit takes the agent's version (so the agent's staging is part of its change,
/// and what the user had staged stays staged).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StagedBefore {
    pub session: String,
    pub path: String,
    /// Whether the user had staged something there (else the index held HEAD's version).
    pub staged: bool,
    /// What the user had staged (`None`: the path removed from the index).
    pub entry: Option<Stored>,
}

/// The agent's changes that its own `git stash` took out of the worktree: still its own,
/// credited when they come back (a `stash pop` in a later call, or by the user).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Stashed {
    /// The stash commit holding them.
    pub stash: String,
    /// The checkpoint they stand for (marked `left_out` once the stash is gone).
    pub checkpoint: Checkpoint,
}

/// Everything recorded on one branch.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct State {
    pub open: Vec<Open>,
    pub checkpoints: Vec<Checkpoint>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub staged: Vec<StagedBefore>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stashed: Vec<Stashed>,
}

impl State {
    /// Nothing is recorded.
    pub fn is_empty(&self) -> bool {
        self.open.is_empty()
            && self.checkpoints.is_empty()
            && self.staged.is_empty()
            && self.stashed.is_empty()
    }
}

/// The state of one branch, read under the agent lock, to be saved by [`Held::save`].
pub struct Held<'r> {
    repo: &'r Repo,
    _lock: StateLock,
    name: String,
    tree: Option<ObjectId>,
    pub state: State,
    /// Blobs written since it was read, to be kept reachable.
    new_blobs: Vec<ObjectId>,
}

impl<'r> Held<'r> {
    /// Takes the agent lock and reads the state of `branch`.
    pub fn read(repo: &'r Repo, branch: Option<&str>) -> Result<Held<'r>, RepoError> {
        let lock = repo.lock_state(
            "agent",
            "another git-clada agent hook is recording a checkpoint",
        )?;
        Self::read_locked(repo, branch, lock)
    }

    /// [`Held::read`] waiting for the lock at most `budget`: `None` when another hook still
    /// holds it then.
    pub fn read_within(
        repo: &'r Repo,
        branch: Option<&str>,
        budget: std::time::Duration,
    ) -> Result<Option<Held<'r>>, RepoError> {
        match repo.lock_state_within("agent", budget)? {
            Some(lock) => Self::read_locked(repo, branch, lock).map(Some),
            None => Ok(None),
        }
    }

    fn read_locked(
        repo: &'r Repo,
        branch: Option<&str>,
        lock: clada_git::StateLock,
    ) -> Result<Held<'r>, RepoError> {
        let (name, tree, state) = read_state(repo, branch)?;
        Ok(Held {
            repo,
            _lock: lock,
            name,
            tree,
            state,
            new_blobs: Vec::new(),
        })
    }

    /// Notes a blob the state names, so the saved tree keeps it.
    pub fn keep(&mut self, stored: Option<Stored>) {
        if let Some(s) = stored {
            self.new_blobs.push(s.id);
        }
    }

    /// Writes the state and moves the ref (compare-and-swap); an empty state removes it.
    pub fn save(self) -> Result<(), RepoError> {
        self.write()
    }

    /// Saves this branch's state and reads `branch`'s, under the same lock (a hook that
    /// finds the agent switched branches during a call).
    pub fn save_then_read(self, branch: Option<&str>) -> Result<Held<'r>, RepoError> {
        self.write()?;
        let Held { repo, _lock, .. } = self;
        Self::read_locked(repo, branch, _lock)
    }

    /// The branch whose state this is (a full ref name; `None` when detached).
    pub fn branch(&self) -> Option<String> {
        let short = self.name.strip_prefix("refs/clada/agent/")?;
        (short != "HEAD").then(|| format!("refs/heads/{short}"))
    }

    fn write(&self) -> Result<(), RepoError> {
        let repo = self.repo;
        let expected = self.tree.map_or(Expected::MustNotExist, Expected::Value);
        match self.prepare()? {
            Some(tree) => update(repo, &self.name, tree, expected),
            None if self.tree.is_some() => repo.delete_ref(&self.name, expected),
            None => Ok(()),
        }
    }

    /// The ref's name: where [`Held::prepare`]'s tree goes.
    pub fn ref_name(&self) -> &str {
        &self.name
    }

    /// The tree the state is saved as, written but not put under the ref (`None`: the state
    /// is empty, and the ref goes): for a caller that moves the ref in a transaction of its
    /// own (undo and redo of one call) while it still holds the lock.
    pub fn prepare(&self) -> Result<Option<ObjectId>, RepoError> {
        let repo = self.repo;
        if self.state.is_empty() {
            return Ok(None);
        }
        let json = serde_json::to_vec(&self.state)
            .map_err(|e| RepoError::Invalid(format!("cannot write the agent checkpoints: {e}")))?;
        let mut changes = vec![TreeChange {
            path: "state.json".into(),
            entry: Some(Entry {
                kind: EntryKind::Blob,
                id: repo.write_blob(&json)?,
            }),
        }];
        for id in &self.new_blobs {
            changes.push(TreeChange {
                path: BString::from(format!("o/{id}")),
                entry: Some(Entry {
                    kind: EntryKind::Blob,
                    id: *id,
                }),
            });
        }
        changes.sort_by(|a, b| a.path.cmp(&b.path));
        changes.dedup_by(|a, b| a.path == b.path);
        // A state left with nothing of an earlier turn starts a fresh tree, so the blobs of
        // committed turns are not kept for ever.
        let base = match self.state.checkpoints.is_empty() && self.state.stashed.is_empty() {
            true => repo.empty_tree(),
            false => self.tree.unwrap_or_else(|| repo.empty_tree()),
        };
        let tree = repo.edit_tree(base, &changes)?;
        if base == repo.empty_tree() {
            // The open calls' blobs, and the user's staged versions, must survive the fresh
            // tree too.
            let open = self.state.open.iter();
            let named = open
                .flat_map(|o| o.files.iter().chain(&o.staged).map(|f| f.entry))
                .chain(self.state.staged.iter().map(|s| s.entry));
            let mut keep: Vec<TreeChange> = named
                .flatten()
                .map(|s| TreeChange {
                    path: BString::from(format!("o/{}", s.id)),
                    entry: Some(s.entry()),
                })
                .collect();
            keep.sort_by(|a, b| a.path.cmp(&b.path));
            keep.dedup_by(|a, b| a.path == b.path);
            return Ok(Some(repo.edit_tree(tree, &keep)?));
        }
        Ok(Some(tree))
    }
}

/// The state of `branch` as its ref holds it now: its ref name, tree and content. Without the
/// lock this is a snapshot another hook may be replacing (a hook that could not take the lock
/// reads it only to find its own call's before-state).
pub fn read_state(
    repo: &Repo,
    branch: Option<&str>,
) -> Result<(String, Option<ObjectId>, State), RepoError> {
    let name = state_ref(branch);
    let tree = repo.read_ref(&name)?;
    let state = match tree {
        Some(t) => match repo.tree_entry(t, b"state.json".as_bstr())? {
            Some(e) => serde_json::from_slice(&repo.read_blob(e.id)?).map_err(|e| {
                RepoError::Invalid(format!(
                    "the agent checkpoints in {name} are unreadable ({e}); `git update-ref -d {name}` drops them"
                ))
            })?,
            None => State::default(),
        },
        None => State::default(),
    };
    Ok((name, tree, state))
}

fn update(repo: &Repo, name: &str, tree: ObjectId, expected: Expected) -> Result<(), RepoError> {
    repo.update_refs(&[RefUpdate {
        name: name.to_string(),
        new: tree,
        expected,
        reflog: "clada: agent checkpoint".into(),
    }])
}
