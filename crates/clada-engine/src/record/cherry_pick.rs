//! Authorship logs through `git cherry-pick`, which runs git's `post-commit` hook and no
//! `post-rewrite`: when HEAD's last reflog entry says a cherry-pick made the commit
//! (`commit_evidence.rs` reads it), the commit picked is found — named by `CHERRY_PICK_HEAD` (git leaves it for the hook), else by
//! the `(cherry picked from commit …)` line of `-x`, else as the one commit with a git-clada
//! log whose change is the same patch — and its log is carried onto the new commit the way a
//! rebase carries it (`rewritten.rs`). Two candidates that would give different logs, or none:
//! nothing is written (a gap, never a wrong attribution).

use crate::authorship::{carry, Log};
use clada_git::{EntryKind, NoteBook, ObjectId, Repo, RepoError};

use super::provenance::{log_in, AI_NOTES_REF};
use super::rewritten::{carry_one, CarryReport, Rewrite};

/// How many annotated commits the patch search looks at.
const SEARCH_LIMIT: usize = 5_000;

/// After a cherry-pick made `head` (HEAD's reflog says so): carries the picked commit's log
/// onto it.
pub fn after_pick(repo: &Repo, head: ObjectId) -> Result<CarryReport, RepoError> {
    let mut book = repo.note_book(AI_NOTES_REF)?;
    let mut report = CarryReport::default();
    let Some(source) = picked(repo, &mut book, head)? else {
        return Ok(report);
    };
    let rewrite = Rewrite {
        new: head,
        olds: vec![source],
    };
    carry_one(repo, &mut book, &rewrite, &mut report)?;
    book.commit("clada: authorship carried through cherry-pick")?;
    Ok(report)
}

/// The commit `head` was picked from, if it can be told and has a git-clada log.
fn picked(
    repo: &Repo,
    book: &mut NoteBook<'_>,
    head: ObjectId,
) -> Result<Option<ObjectId>, RepoError> {
    let named = match repo.read_ref("CHERRY_PICK_HEAD")? {
        Some(id) => Some(id),
        None => picked_from_line(&repo.commit_info(head)?.message),
    };
    if let Some(source) = named {
        let ours = repo.commit_info(source).is_ok()
            && log_in(book, source)?.is_some_and(|l| l.is_claded());
        return Ok(ours.then_some(source));
    }
    by_patch(repo, book, head)
}

/// The commit the last `(cherry picked from commit <id>)` line of `message` names.
fn picked_from_line(message: &str) -> Option<ObjectId> {
    message.lines().rev().find_map(|l| {
        let hex = l
            .trim()
            .strip_prefix("(cherry picked from commit ")?
            .strip_suffix(')')?;
        ObjectId::from_hex(hex.as_bytes()).ok()
    })
}

/// The one annotated commit with a git-clada log whose change is `head`'s, when all such
/// commits carry the same log onto `head`.
fn by_patch(
    repo: &Repo,
    book: &mut NoteBook<'_>,
    head: ObjectId,
) -> Result<Option<ObjectId>, RepoError> {
    let head_change = change_of(repo, head)?;
    let mut found: Option<(ObjectId, String)> = None;
    for candidate in repo.note_targets(AI_NOTES_REF, SEARCH_LIMIT)? {
        if candidate == head || repo.commit_info(candidate).is_err() {
            continue;
        }
        let Some(log) = log_in(book, candidate)?.filter(Log::is_claded) else {
            continue;
        };
        if !same_patch(repo, &head_change, &change_of(repo, candidate)?)? {
            continue;
        }
        let carried = super::provenance::squash_logs(
            repo,
            super::rewritten::parent_tree(repo, head)?,
            &[(Some(log), repo.tree_of(candidate)?)],
            (head, repo.tree_of(head)?),
        )?
        .map(|l| l.serialize());
        let Some(carried) = carried else { continue };
        match &found {
            Some((_, same)) if *same == carried => {}
            Some(_) => return Ok(None),
            None => found = Some((candidate, carried)),
        }
    }
    Ok(found.map(|(c, _)| c))
}

/// A commit's change: each path it changes with the entries before and after.
fn change_of(repo: &Repo, commit: ObjectId) -> Result<Vec<clada_git::TreeDiff>, RepoError> {
    let tree = repo.tree_of(commit)?;
    repo.diff_trees(super::rewritten::parent_tree(repo, commit)?, tree)
}

/// Whether two changes touch the same paths the same way.
fn same_patch(
    repo: &Repo,
    a: &[clada_git::TreeDiff],
    b: &[clada_git::TreeDiff],
) -> Result<bool, RepoError> {
    if a.len() != b.len() || a.iter().zip(b).any(|(x, y)| x.path != y.path) {
        return Ok(false);
    }
    let read = |e: &Option<clada_git::Entry>| -> Result<Option<Vec<u8>>, RepoError> {
        match e {
            Some(e) if matches!(e.kind, EntryKind::Commit | EntryKind::Tree) => {
                Ok(Some(e.id.to_string().into_bytes()))
            }
            Some(e) => repo.read_blob(e.id).map(Some),
            None => Ok(None),
        }
    };
    for (x, y) in a.iter().zip(b) {
        let (xo, xn, yo, yn) = (read(&x.old)?, read(&x.new)?, read(&y.old)?, read(&y.new)?);
        if !carry::same_change(
            (xo.as_deref(), xn.as_deref()),
            (yo.as_deref(), yn.as_deref()),
        ) {
            return Ok(false);
        }
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_x_line_names_the_picked_commit() {
        let id = "0123456789abcdef0123456789abcdef01234567";
        let msg = format!("AI: x\n\nbody\n\n(cherry picked from commit {id})\n");
        assert_eq!(
            picked_from_line(&msg).map(|o| o.to_string()),
            Some(id.into())
        );
        assert_eq!(
            picked_from_line("AI: x\n\n(cherry picked from commit zz)\n"),
            None
        );
    }
}
