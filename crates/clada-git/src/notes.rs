//! Reading git notes: `refs/notes/clada` holds the JSON result report of each AI commit
//! (readable with `git log --notes=clada`), `refs/notes/clada-reply` the reply text. Writing
//! goes through [`NoteBook`](super::rewrite::NoteBook), so notes move with other refs in one
//! transaction.

use gix::ObjectId;

use super::{GixContext, Repo, Result};

/// The notes ref git-clada writes.
pub const NOTES_REF: &str = "refs/notes/clada";

impl Repo {
    /// The note on `target`, if any.
    pub fn note(&self, target: ObjectId) -> Result<Option<Vec<u8>>> {
        self.note_at(NOTES_REF, target)
    }

    /// The note on `target` in `notes_ref`, if any.
    pub fn note_at(&self, notes_ref: &str, target: ObjectId) -> Result<Option<Vec<u8>>> {
        let notes = self.repo.notes().ctx("cannot open the notes")?;
        let mut notes = notes
            .with_refs([notes_ref])
            .ctx("cannot select the clada notes")?;
        let found = notes
            .get(target)
            .ctx(format!("cannot read the note on {target}"))?;
        Ok(found.into_iter().next().map(|n| n.blob.data.clone()))
    }

    /// The objects that have a note in `notes_ref` (its notes tree's paths, fan-out folders
    /// joined), at most `limit` of them.
    pub fn note_targets(&self, notes_ref: &str, limit: usize) -> Result<Vec<ObjectId>> {
        let Some(commit) = self.read_ref(notes_ref)? else {
            return Ok(Vec::new());
        };
        let files = self.tree_files(self.tree_of(commit)?)?;
        Ok(files
            .keys()
            .filter_map(|path| {
                let hex: Vec<u8> = path.iter().copied().filter(|&b| b != b'/').collect();
                ObjectId::from_hex(&hex).ok()
            })
            .take(limit)
            .collect())
    }
}
