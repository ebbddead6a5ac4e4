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
}
