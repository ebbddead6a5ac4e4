//! What git's `post-commit` hook can tell about where a new commit's lines came from, for
//! the authorship logs (`refs/notes/ai`): a cherry-pick (`cherry_pick.rs`), a
//! `git merge --squash` whose message still lists the squashed commits (`Squashed commit of
//! the following:` and a `commit <id>` line each), or a commit right after
//! `git reset --soft` (HEAD's reflog: the reset from the old tip, then this commit on the
//! commit it reset to), whose old commits are the first-parent chain it replaced. Evidence
//! that is missing or does not fit — a message edited, a merge in the chain, a reset that
//! was no step back — gives nothing: a gap, never a wrong attribution.

use clada_git::{CommitInfo, ObjectId, ReflogEntry, Repo, RepoError};

use super::provenance::AI_NOTES_REF;
use super::rewritten::{carry_one, CarryReport, Rewrite};

/// How many commits a `reset --soft` may step back over and still be carried.
const RESET_LIMIT: usize = 1_000;

/// After a commit: carries the logs of the commits it replaces, when git's evidence names
/// them. `Ok(None)` when there is none.
pub fn after_commit(repo: &Repo) -> Result<Option<CarryReport>, RepoError> {
    let reflog = repo.reflog("HEAD")?;
    let Some(last) = reflog.last() else {
        return Ok(None);
    };
    let head = repo.resolve_commit("HEAD")?;
    if last.new != head {
        return Ok(None);
    }
    if last.message.starts_with("cherry-pick") || last.message.starts_with("commit (cherry-pick)") {
        return super::cherry_pick::after_pick(repo, head).map(Some);
    }
    if !last.message.starts_with("commit:") {
        return Ok(None);
    }
    let info = repo.commit_info(head)?;
    let olds = match squashed_from_message(&info.message) {
        Some(listed) => existing(repo, listed),
        None => soft_reset_chain(repo, &reflog, &info)?,
    };
    if olds.is_empty() {
        return Ok(None);
    }
    let mut book = repo.note_book(AI_NOTES_REF)?;
    let mut report = CarryReport::default();
    carry_one(repo, &mut book, &Rewrite { new: head, olds }, &mut report)?;
    book.commit("clada: authorship carried through a squash of commits")?;
    Ok(Some(report))
}

/// The commits a `git merge --squash` message lists, oldest first (git lists them newest
/// first, as `git log` does).
fn squashed_from_message(message: &str) -> Option<Vec<ObjectId>> {
    if !message.starts_with("Squashed commit of the following:") {
        return None;
    }
    let mut listed: Vec<ObjectId> = message
        .lines()
        .filter_map(|l| l.strip_prefix("commit "))
        .filter_map(|hex| ObjectId::from_hex(hex.trim().as_bytes()).ok())
        .collect();
    listed.reverse();
    (!listed.is_empty()).then_some(listed)
}

/// `ids` if every one is a commit of this repository, else none.
fn existing(repo: &Repo, ids: Vec<ObjectId>) -> Vec<ObjectId> {
    if ids.iter().all(|id| repo.commit_info(*id).is_ok()) {
        ids
    } else {
        Vec::new()
    }
}

/// After `git reset --soft X` and a commit on X: the commits from X (exclusive) to the old
/// tip, oldest first, when they are one first-parent chain without merges.
fn soft_reset_chain(
    repo: &Repo,
    reflog: &[ReflogEntry],
    head: &CommitInfo,
) -> Result<Vec<ObjectId>, RepoError> {
    let [.., reset, _] = reflog else {
        return Ok(Vec::new());
    };
    let parent = head.parents.first().copied();
    if !reset.message.starts_with("reset: moving to") || parent != Some(reset.new) {
        return Ok(Vec::new());
    }
    let chain = repo.first_parent_chain(reset.old, RESET_LIMIT + 1)?;
    let Some(end) = chain.iter().position(|c| c.id == reset.new) else {
        return Ok(Vec::new());
    };
    let replaced = &chain[..end];
    if replaced.is_empty() || replaced.iter().any(|c| c.parents.len() != 1) {
        return Ok(Vec::new());
    }
    Ok(replaced.iter().rev().map(|c| c.id).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_squash_message_lists_its_commits_oldest_first() {
        let (a, b) = ("a".repeat(40), "b".repeat(40));
        let msg = format!(
            "Squashed commit of the following:\n\ncommit {b}\nAuthor: x\n\n    two\n\ncommit {a}\nAuthor: x\n\n    one\n"
        );
        let got = squashed_from_message(&msg).unwrap();
        assert_eq!(
            got.iter().map(|o| o.to_string()).collect::<Vec<_>>(),
            vec![a, b]
        );
        assert_eq!(
            squashed_from_message("my own message\n\ncommit 123\n"),
            None
        );
    }
}
