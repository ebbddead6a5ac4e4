//! The listener's state in git: the one-watcher-per-repository lock, and the set of blocks a
//! watcher has applied, kept under `refs/clada/watch/<key>` so that a restarted watcher does
//! not apply them again.
//!
//! The set is a commit whose tree holds `applied` (one block key per line) and `file` (the
//! watched path); each batch adds a commit on top, so `git log refs/clada/watch/<key>` lists
//! the batches. It is deliberately not part of the branch: `undo` of a watched apply does not
//! make the watcher apply the block again.

use std::fs::File;
use std::io::{Read, Seek, Write};

use gix::bstr::BString;
use gix::ObjectId;

use super::{Entry, EntryKind, Expected, Repo, Result, TreeChange};

/// Held while a watcher runs; released on drop or when the process dies.
#[derive(Debug)]
pub struct WatchLock {
    _file: File,
}

/// The applied set as read: the commit it was read from (for compare-and-swap) and the keys.
#[derive(Debug, Clone, Default)]
pub struct WatchState {
    pub commit: Option<ObjectId>,
    pub applied: Vec<String>,
}

impl Repo {
    /// Takes the watcher lock (`<git-dir>/clada-watch.lock`) without waiting. When another
    /// watcher holds it, the inner error is the message refusing the second one.
    pub fn watch_lock(&self, watching: &str) -> Result<std::result::Result<WatchLock, String>> {
        let path = self.git_dir().join("clada-watch.lock");
        let mut file = super::lock::open_lock_file(&path)?;
        if !super::lock::try_flock(&file, &path)? {
            let mut holder = String::new();
            let _ = file.read_to_string(&mut holder);
            let holder = holder.trim();
            return Ok(Err(format!(
                "another `git clada watch` is already running in this repository{}; stop it first (Ctrl-C in its terminal) — one watcher per repository",
                if holder.is_empty() {
                    String::new()
                } else {
                    format!(" ({holder})")
                }
            )));
        }
        // Informational only (for the message above).
        let _ = file.set_len(0);
        let _ = file.rewind();
        let _ = write!(file, "pid {}, watching {watching}", std::process::id());
        Ok(Ok(WatchLock { _file: file }))
    }

    /// Reads the applied set kept in `name` (empty if the ref does not exist).
    pub fn watch_state(&self, name: &str) -> Result<WatchState> {
        let Some(commit) = self.read_ref(name)? else {
            return Ok(WatchState::default());
        };
        let tree = self.tree_of(commit)?;
        let applied = match self.tree_entry(tree, gix::bstr::BStr::new("applied"))? {
            Some(e) => String::from_utf8_lossy(&self.read_blob(e.id)?)
                .lines()
                .filter(|l| !l.is_empty())
                .map(String::from)
                .collect(),
            None => Vec::new(),
        };
        Ok(WatchState {
            commit: Some(commit),
            applied,
        })
    }

    /// Records `state.applied` (the whole set) as a new commit on `name`, moving the ref only
    /// if it still is where `state` was read from. Returns the new commit.
    pub fn record_watch_state(
        &self,
        name: &str,
        state: &WatchState,
        file: &str,
        message: &str,
    ) -> Result<ObjectId> {
        let update = self.watch_state_update(name, state, file, message)?;
        self.update_refs(std::slice::from_ref(&update))?;
        Ok(update.new)
    }

    /// The commit recording `state.applied` and the compare-and-swap update moving `name` to
    /// it, for a caller that moves it in one ref transaction with other refs (an apply moves
    /// it with the branch, so a kill cannot separate the commit from the record of its
    /// blocks).
    pub fn watch_state_update(
        &self,
        name: &str,
        state: &WatchState,
        file: &str,
        message: &str,
    ) -> Result<super::RefUpdate> {
        let mut applied = state.applied.join("\n");
        applied.push('\n');
        let blob = |data: &[u8]| -> Result<Entry> {
            Ok(Entry {
                kind: EntryKind::Blob,
                id: self.write_blob(data)?,
            })
        };
        let changes = [
            TreeChange {
                path: BString::from("applied"),
                entry: Some(blob(applied.as_bytes())?),
            },
            TreeChange {
                path: BString::from("file"),
                entry: Some(blob(format!("{file}\n").as_bytes())?),
            },
        ];
        let tree = self.edit_tree(self.empty_tree(), &changes)?;
        let (author, committer) = self.identity()?;
        let parents: Vec<ObjectId> = state.commit.into_iter().collect();
        let commit = self.write_commit(tree, &parents, message, &author, &committer)?;
        let expected = match state.commit {
            Some(c) => Expected::Value(c),
            None => Expected::MustNotExist,
        };
        Ok(super::RefUpdate {
            name: name.to_string(),
            new: commit,
            expected,
            reflog: "clada: watch".into(),
        })
    }
}
