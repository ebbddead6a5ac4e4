//! Which commits git-clada made, by its own records — never by trailers alone (DESIGN §6.7,
//! §7.2, §7.3). Trailers are text a human's `git commit --amend`, `git commit -C`,
//! cherry-pick or rebase copies into commits git-clada never saw; taking such a commit back
//! would take the user's content with it. So undo, redo and squash act only on:
//! - an AI commit whose apply record exists (`refs/clada/records`, or the one ref per commit
//!   `refs/clada/apply/<commit>` of earlier versions: every version wrote one in the ref
//!   transaction that put the commit on its branch, so commits made before this rule are
//!   recognised as before);
//! - a squash commit that a squash record made: `refs/clada/squash/<new tip>` names the tip
//!   before the squash (the commit's `Clada-Squashed` trailer), and the commit is one the
//!   squash wrote — on the new tip's first-parent chain above where it meets the old one. A
//!   copy lands elsewhere, so it is not;
//! - a snapshot commit only as the first parent of a recorded AI commit (the caller pairs
//!   them).
//!
//! A commit that carries the trailers but no record is refused by undo; if the reflog shows
//! it came from a recorded AI commit by `git commit --amend`, the refusal says how to take back
//! the AI's part by hand.

use std::cell::OnceCell;

use crate::record::apply::{is_recorded, RECORDS_REF};
use crate::record::{classify, trailer, CladaCommit};
use clada_git::{CommitInfo, ObjectId, Repo};

use super::common::HistoryError;

/// How many `commit (amend)` steps back the reflog is followed to a recorded AI commit.
const AMEND_DEPTH: usize = 32;

/// git-clada's records, read once for a walk over many commits.
pub(crate) struct Recorded<'r> {
    repo: &'r Repo,
    /// The tree of [`RECORDS_REF`], if any apply was recorded there.
    records: Option<ObjectId>,
    /// Every squash record (new tip, tip before), read when first needed.
    squashes: OnceCell<Vec<(ObjectId, ObjectId)>>,
}

impl<'r> Recorded<'r> {
    pub fn read(repo: &'r Repo) -> Result<Recorded<'r>, HistoryError> {
        Ok(Recorded {
            repo,
            records: repo.read_ref(RECORDS_REF)?,
            squashes: OnceCell::new(),
        })
    }

    /// Whether an apply made `commit` (its record exists).
    pub fn is_apply(&self, commit: ObjectId) -> Result<bool, HistoryError> {
        Ok(is_recorded(self.repo, self.records, commit)?)
    }

    /// What kind of git-clada commit `info` is, if its records say git-clada made it. A
    /// snapshot is answered by its trailers: it counts only below a recorded AI commit, which
    /// the caller checks.
    pub fn kind(&self, info: &CommitInfo) -> Result<Option<CladaCommit>, HistoryError> {
        let kind = classify(info);
        let recorded = match kind {
            Some(CladaCommit::Apply) => self.is_apply(info.id)?,
            Some(CladaCommit::Squash) => self.is_squash(info)?,
            other => return Ok(other),
        };
        Ok(match recorded || self.is_squash_copy(info, kind, 0)? {
            true => kind,
            false => None,
        })
    }

    /// Whether a squash wrote `info` as the copy of a commit git-clada made: a squash
    /// rewrites the commits above the ones it folds, so the AI commits among them get new ids
    /// that no apply record names. The copy is on a squash record's new chain above where it
    /// meets the old one, and the old chain there holds a commit of the same kind with the
    /// same author and message that git-clada made (itself maybe such a copy).
    fn is_squash_copy(
        &self,
        info: &CommitInfo,
        kind: Option<CladaCommit>,
        depth: usize,
    ) -> Result<bool, HistoryError> {
        if depth > AMEND_DEPTH {
            return Ok(false);
        }
        for &(tip, before) in self.squash_records()? {
            let oldest = oldest_not_in(self.repo, tip, before)?;
            if !chain_holds(self.repo, tip, oldest, info.id)? {
                continue;
            }
            let meet = self.repo.commit_info(oldest)?.parents.first().copied();
            let mut next = Some(before);
            while let Some(id) = next.filter(|&id| Some(id) != meet) {
                let old = self.repo.commit_info(id)?;
                if old.message == info.message
                    && old.author == info.author
                    && classify(&old) == kind
                {
                    let made = match kind {
                        Some(CladaCommit::Apply) => self.is_apply(old.id)?,
                        Some(CladaCommit::Squash) => self.is_squash(&old)?,
                        _ => false,
                    };
                    if made || self.is_squash_copy(&old, kind, depth + 1)? {
                        return Ok(true);
                    }
                }
                next = old.parents.first().copied();
            }
        }
        Ok(false)
    }

    /// Whether a squash wrote `info`: a squash record's tip before is its `Clada-Squashed`
    /// trailer, and `info` is among the commits between that record's new tip and where the
    /// two tips' chains meet.
    fn is_squash(&self, info: &CommitInfo) -> Result<bool, HistoryError> {
        let Some(old) = info
            .trailer(trailer::SQUASHED)
            .and_then(|h| ObjectId::from_hex(h.trim().as_bytes()).ok())
        else {
            return Ok(false);
        };
        for &(tip, before) in self.squash_records()? {
            if before == old {
                let oldest = oldest_not_in(self.repo, tip, before)?;
                if chain_holds(self.repo, tip, oldest, info.id)? {
                    return Ok(true);
                }
            }
        }
        Ok(false)
    }

    /// Every squash record (new tip, tip before), read once.
    fn squash_records(&self) -> Result<&[(ObjectId, ObjectId)], HistoryError> {
        if self.squashes.get().is_none() {
            let all = self
                .repo
                .refs_with_prefix("refs/clada/squash/")?
                .into_iter()
                .filter_map(|(name, before)| {
                    let tip = name.strip_prefix("refs/clada/squash/")?;
                    Some((ObjectId::from_hex(tip.as_bytes()).ok()?, before))
                })
                .collect();
            let _ = self.squashes.set(all);
        }
        Ok(self.squashes.get().map_or(&[], Vec::as_slice))
    }

    /// The recorded AI commit `tip` was amended from, when the reflog of `branch` (or HEAD's)
    /// shows `git commit --amend` steps from one to it.
    pub fn amended_from(
        &self,
        branch: &str,
        tip: ObjectId,
    ) -> Result<Option<ObjectId>, HistoryError> {
        let mut log = self.repo.reflog(branch)?;
        log.extend(self.repo.reflog("HEAD")?);
        let mut at = tip;
        for _ in 0..AMEND_DEPTH {
            let Some(step) = log
                .iter()
                .rev()
                .find(|e| e.new == at && e.old != at && e.message.starts_with("commit (amend)"))
            else {
                return Ok(None);
            };
            if self.is_apply(step.old)? {
                return Ok(Some(step.old));
            }
            at = step.old;
        }
        Ok(None)
    }
}

/// Whether `id` is on `tip`'s first-parent chain down to `oldest` (both included).
fn chain_holds(
    repo: &Repo,
    tip: ObjectId,
    oldest: ObjectId,
    id: ObjectId,
) -> Result<bool, HistoryError> {
    let mut next = Some(tip);
    while let Some(at) = next {
        if at == id {
            return Ok(true);
        }
        if at == oldest {
            break;
        }
        next = repo.commit_info(at)?.parents.first().copied();
    }
    Ok(false)
}

/// The oldest commit on `tip`'s first-parent chain that is not on `before`'s: the first
/// commit an undo back to `before` would drop. Both chains are walked in step, so the cost
/// is the distance to where they meet.
pub(crate) fn oldest_not_in(
    repo: &Repo,
    tip: ObjectId,
    before: ObjectId,
) -> Result<ObjectId, HistoryError> {
    let mut on_tip: Vec<ObjectId> = Vec::new();
    let mut on_before = std::collections::HashSet::new();
    let (mut a, mut b) = (Some(tip), Some(before));
    while a.is_some() || b.is_some() {
        if let Some(x) = a {
            if on_before.contains(&x) {
                break;
            }
            on_tip.push(x);
            a = repo.commit_info(x)?.parents.first().copied();
        }
        if let Some(y) = b {
            if let Some(pos) = on_tip.iter().position(|&t| t == y) {
                on_tip.truncate(pos);
                break;
            }
            on_before.insert(y);
            b = repo.commit_info(y)?.parents.first().copied();
        }
    }
    Ok(on_tip.last().copied().unwrap_or(tip))
}
