//! Git notes on `refs/notes/clada`: the JSON result report of each AI commit, readable with
//! `git log --notes=clada`. The notes commit also keeps the stored reply blob reachable.

use gix::ObjectId;

use super::{GixContext, Repo, Result};

/// The notes ref git-clada writes.
pub const NOTES_REF: &str = "refs/notes/clada";

impl Repo {
    /// Adds or replaces the note on `target`.
    pub fn set_note(&self, target: ObjectId, data: &[u8]) -> Result<()> {
        let mut notes = self.repo.notes().ctx("cannot open the notes")?;
        notes
            .replace(NOTES_REF, target, data)
            .ctx(format!("cannot write the note on {target}"))?;
        Ok(())
    }

    /// Adds or replaces the note on `target` in the notes ref `notes_ref`.
    pub fn set_note_at(&self, notes_ref: &str, target: ObjectId, data: &[u8]) -> Result<()> {
        let mut notes = self.repo.notes().ctx("cannot open the notes")?;
        notes
            .replace(notes_ref, target, data)
            .ctx(format!("cannot write the note on {target} in {notes_ref}"))?;
        Ok(())
    }

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
}
