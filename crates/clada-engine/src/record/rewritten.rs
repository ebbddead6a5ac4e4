//! Authorship logs (`refs/notes/ai`) through the user's own rewrites, for the hooks
//! `git clada hooks install` puts in place: `post-rewrite` (amend, rebase — git names every
//! `<old> <new>` pair, several old commits for one new with fixup and squash) and
//! `post-commit` after a cherry-pick (`cherry_pick.rs`). Each new commit gets the lines of its
//! old commits' logs carried through the diff from each old version to the new one (the last
//! session winning on overlap, as in a squash), kept where the new commit itself writes them:
//! a line a human changed or added on the way is not the AI's. Only git-clada's logs are
//! carried, and a new commit's note is replaced only when it is git-clada's or a copy git's
//! `notes.rewriteRef` made of git-clada's logs — never another tool's log.

use serde::Serialize;

use crate::authorship::Log;
use clada_git::{NoteBook, ObjectId, Repo, RepoError};

use super::provenance::{log_in, squash_logs, AI_NOTES_REF};

/// One new commit and the old commits it replaces, oldest first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rewrite {
    pub new: ObjectId,
    pub olds: Vec<ObjectId>,
}

/// What carrying did.
#[derive(Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CarryReport {
    /// New commits that got a log.
    pub written: Vec<String>,
    /// New commits whose note is another tool's, left alone.
    pub foreign: usize,
    /// Copies git's `notes.rewriteRef` made that nothing of the AI's is left in, removed.
    pub removed: usize,
}

/// The pairs git hands `post-rewrite` on standard input (`<old> <new> [extra]` a line),
/// grouped by new commit in the order git lists them; with the lines that are not such a pair.
pub fn parse_rewritten(text: &str) -> (Vec<Rewrite>, Vec<String>) {
    let mut out: Vec<Rewrite> = Vec::new();
    let mut bad = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let mut words = line.split_whitespace();
        let ids = (words.next(), words.next());
        let (Some(old), Some(new)) = ids else {
            bad.push(format!("line {}: `{line}` is not `<old> <new>`", i + 1));
            continue;
        };
        let (Ok(old), Ok(new)) = (
            ObjectId::from_hex(old.as_bytes()),
            ObjectId::from_hex(new.as_bytes()),
        ) else {
            bad.push(format!(
                "line {}: `{line}` does not name two commits",
                i + 1
            ));
            continue;
        };
        match out.iter_mut().find(|r| r.new == new) {
            Some(r) if !r.olds.contains(&old) => r.olds.push(old),
            Some(_) => {}
            None => out.push(Rewrite {
                new,
                olds: vec![old],
            }),
        }
    }
    (out, bad)
}

/// Whether the note on `commit` may be replaced: there is none, or every log in it is
/// git-clada's (its own, or copies of git-clada's logs that git's `notes.rewriteRef` put or
/// concatenated there). A note that is no log, or holds another tool's, stays.
pub(crate) fn replaceable(book: &mut NoteBook<'_>, commit: ObjectId) -> Result<bool, RepoError> {
    let Some(data) = book.get(commit)? else {
        return Ok(true);
    };
    Ok(std::str::from_utf8(&data)
        .ok()
        .and_then(|t| Log::parse_notes(t).ok())
        .is_some_and(|logs| logs.iter().all(Log::is_claded)))
}

/// The first parent's tree of `commit`, or the empty tree for a root commit.
pub(crate) fn parent_tree(repo: &Repo, commit: ObjectId) -> Result<ObjectId, RepoError> {
    match repo.commit_info(commit)?.parents.first() {
        Some(p) => repo.tree_of(*p),
        None => Ok(repo.empty_tree()),
    }
}

/// Stages on `rewrite.new` the log carried from its old commits' git-clada logs; `Ok(None)`
/// when it has none to carry or its note is another tool's.
pub(crate) fn carry_one(
    repo: &Repo,
    book: &mut NoteBook<'_>,
    rewrite: &Rewrite,
    report: &mut CarryReport,
) -> Result<(), RepoError> {
    let mut logs = Vec::with_capacity(rewrite.olds.len());
    for old in &rewrite.olds {
        let log = log_in(book, *old)?.filter(Log::is_claded);
        logs.push((log, repo.tree_of(*old)?));
    }
    if !replaceable(book, rewrite.new)? {
        report.foreign += 1;
        return Ok(());
    }
    let had_note = book.get(rewrite.new)?.is_some();
    if logs.iter().all(|(l, _)| l.is_none()) {
        // A copy git made of logs none of which is the old commits' own (stale copies) says
        // nothing true about the new commit's lines.
        if had_note && log_in(book, rewrite.new)?.is_none() {
            book.remove(rewrite.new)?;
            report.removed += 1;
        }
        return Ok(());
    }
    let new = (rewrite.new, repo.tree_of(rewrite.new)?);
    match squash_logs(repo, parent_tree(repo, rewrite.new)?, &logs, new)? {
        Some(log) => {
            book.stage(rewrite.new, log.serialize().as_bytes())?;
            report.written.push(rewrite.new.to_string());
        }
        None if had_note => {
            book.remove(rewrite.new)?;
            report.removed += 1;
        }
        None => {}
    }
    Ok(())
}

/// Carries the logs of every rewrite into `refs/notes/ai`, in one notes commit. `how` is what
/// git says rewrote them (`amend`, `rebase`), for the notes commit's message.
pub fn carry_rewritten(
    repo: &Repo,
    rewrites: &[Rewrite],
    how: &str,
) -> Result<CarryReport, RepoError> {
    let mut book = repo.note_book(AI_NOTES_REF)?;
    let mut report = CarryReport::default();
    for rewrite in rewrites {
        carry_one(repo, &mut book, rewrite, &mut report)?;
    }
    book.commit(&format!("clada: authorship carried through {how}"))?;
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_group_by_new_commit_in_gits_order() {
        let a = "a".repeat(40);
        let b = "b".repeat(40);
        let c = "c".repeat(40);
        let x = "1".repeat(40);
        let text = format!("{a} {x}\n{b} {x} extra\n\n{c} {c}\n{a} {x}\nnonsense\n{a} zz\n");
        let (rewrites, bad) = parse_rewritten(&text);
        let id = |h: &str| ObjectId::from_hex(h.as_bytes()).unwrap();
        assert_eq!(
            rewrites,
            vec![
                Rewrite {
                    new: id(&x),
                    olds: vec![id(&a), id(&b)]
                },
                Rewrite {
                    new: id(&c),
                    olds: vec![id(&c)]
                }
            ]
        );
        assert_eq!(bad.len(), 2, "{bad:?}");
        assert!(bad[0].starts_with("line 6:"), "{bad:?}");
    }
}
