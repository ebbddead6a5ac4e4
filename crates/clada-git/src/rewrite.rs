//! Support for the history commands: many notes of one notes ref read and written in one
//! go (a squash of 1,000 commits reads 1,000 notes and must not write 1,000 notes commits),
//! and a view of the repository whose object writes stay in memory, so a `--dry-run` can
//! build the very trees and commits a real run would build without changing `.git`.

use gix::ObjectId;

use super::{Expected, GixContext, RefUpdate, Repo, RepoError, Result};

/// The notes of one notes ref, loaded once and edited in memory; [`NoteBook::commit`] writes
/// every staged edit as a single notes commit.
pub struct NoteBook<'r> {
    repo: &'r Repo,
    notes_ref: String,
    /// The notes commit the ref pointed to when the book was opened (compare-and-swap).
    parent: Option<ObjectId>,
    state: gix::note::plumbing::State,
    staged: usize,
}

impl Repo {
    /// Opens the notes of `notes_ref` (which may not exist yet) for batched reads and edits.
    pub fn note_book(&self, notes_ref: &str) -> Result<NoteBook<'_>> {
        let parent = self.read_ref(notes_ref)?;
        let root = match parent {
            Some(commit) => self.tree_of(commit)?,
            None => self.empty_tree(),
        };
        let state = gix::note::plumbing::State::new(root, &self.repo)
            .ctx(format!("cannot read the notes of {notes_ref}"))?;
        Ok(NoteBook {
            repo: self,
            notes_ref: notes_ref.to_string(),
            parent,
            state,
            staged: 0,
        })
    }

    /// The same repository, except that objects written through the returned handle stay in
    /// memory: it sees everything on disk plus what it wrote itself, and never changes disk.
    pub fn with_object_memory(&self) -> Repo {
        Repo {
            repo: self.repo.clone().with_object_memory(),
            workdir: self.workdir().to_path_buf(),
            git_dir: self.git_dir().to_path_buf(),
            common_dir: self.common_dir().to_path_buf(),
            index_cache: Default::default(),
            object_memory: true,
            objects_fd: Default::default(),
            worktree: Default::default(),
            commit_cache: Default::default(),
            known: Default::default(),
            stat_cache: None,
            index_memory: None,
            object_cache: None,
        }
    }
}

impl NoteBook<'_> {
    /// The note on `target` (including edits staged in this book).
    pub fn get(&mut self, target: ObjectId) -> Result<Option<Vec<u8>>> {
        let objects = super::odb::LooseFirst(self.repo);
        let found = self.state.get(&target, &objects).ctx(format!(
            "cannot read the note on {target} in {}",
            self.notes_ref
        ))?;
        match found {
            Some(blob) => Ok(Some(self.repo.read_blob(blob)?)),
            None => Ok(None),
        }
    }

    /// Stages `data` as the note on `target` (replacing any note it has).
    pub fn stage(&mut self, target: ObjectId, data: &[u8]) -> Result<()> {
        let blob = self.repo.write_blob(data)?;
        self.state
            .edit(target, Some(blob), &self.repo.repo)
            .ctx(format!(
                "cannot set the note on {target} in {}",
                self.notes_ref
            ))?;
        self.staged += 1;
        Ok(())
    }

    /// Stages the removal of the note on `target` (nothing when it has none).
    pub fn remove(&mut self, target: ObjectId) -> Result<()> {
        if self.get(target)?.is_none() {
            return Ok(());
        }
        self.state.edit(target, None, &self.repo.repo).ctx(format!(
            "cannot remove the note on {target} in {}",
            self.notes_ref
        ))?;
        self.staged += 1;
        Ok(())
    }

    /// Number of edits staged so far.
    pub fn staged(&self) -> usize {
        self.staged
    }

    /// Writes the staged edits as one notes commit and moves the notes ref to it, provided
    /// nobody else moved it since the book was opened. Nothing staged: nothing written.
    pub fn commit(self, message: &str) -> Result<()> {
        let repo = self.repo;
        let notes_ref = self.notes_ref.clone();
        match self.write(message)? {
            Some(update) => repo
                .update_ref(&update.name, update.new, update.expected, &update.reflog)
                .map_err(|e| match e {
                    RepoError::Invalid(m) => {
                        RepoError::Invalid(format!("cannot update {notes_ref}: {m}"))
                    }
                    other => other,
                }),
            None => Ok(()),
        }
    }

    /// Writes the staged edits as one notes commit without moving the notes ref, and returns
    /// the move to make (compare-and-swap against the commit the book was opened at), so it
    /// can join other reference moves in one transaction. `None` when nothing was staged.
    pub fn write(self, message: &str) -> Result<Option<RefUpdate>> {
        if self.staged == 0 {
            return Ok(None);
        }
        self.write_with(message, None).map(Some)
    }

    /// Writes the staged edits (even none) as a merge of the notes commit the book was opened
    /// at and `other` (another clone's notes commit, which then is in this ref's history), and
    /// moves the notes ref to it, provided nobody else moved it since the book was opened.
    pub fn commit_merge(self, message: &str, other: ObjectId) -> Result<()> {
        let repo = self.repo;
        let update = self.write_with(message, Some(other))?;
        repo.update_ref(&update.name, update.new, update.expected, &update.reflog)
    }

    fn write_with(mut self, message: &str, other: Option<ObjectId>) -> Result<RefUpdate> {
        let tree = self
            .state
            .write(&super::odb::ObjectWriter(self.repo))
            .ctx(format!("cannot write the notes tree of {}", self.notes_ref))?;
        let (_, committer) = self.repo.identity()?;
        let parents: Vec<ObjectId> = self.parent.into_iter().chain(other).collect();
        let commit = self
            .repo
            .write_commit(tree, &parents, message, &committer, &committer)?;
        let expected = match self.parent {
            Some(p) => Expected::Value(p),
            None => Expected::MustNotExist,
        };
        Ok(RefUpdate {
            name: self.notes_ref,
            new: commit,
            expected,
            reflog: format!("notes: {message}"),
        })
    }
}

impl Repo {
    /// Writes a copy of commit `id` with a new tree and new parents, keeping everything else
    /// byte for byte (author, committer, encoding, message, extra headers) except a signature,
    /// which the rewritten commit could not carry truthfully.
    pub fn replay_commit(
        &self,
        id: ObjectId,
        tree: ObjectId,
        parents: &[ObjectId],
    ) -> Result<ObjectId> {
        let commit = self
            .repo
            .find_commit(id)
            .ctx(format!("cannot read commit {id}"))?;
        let mut owned = commit
            .decode()
            .ctx(format!("cannot decode commit {id}"))?
            .to_owned()
            .ctx(format!("cannot decode commit {id}"))?;
        owned.tree = tree;
        owned.parents = parents.iter().copied().collect();
        owned
            .extra_headers
            .retain(|(name, _)| name != "gpgsig" && name != "gpgsig-sha256");
        self.put_encoded(&owned)
    }
}
