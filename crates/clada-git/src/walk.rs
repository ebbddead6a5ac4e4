//! History: the first-parent chain of a commit, and whether commits are published (reachable
//! from a remote-tracking branch or a tag), which the history commands never rewrite.

use gix::ObjectId;

use super::commit::CommitInfo;
use super::{GixContext, Repo, Result};

/// How far before the oldest candidate's commit time the publication walk still looks, to
/// tolerate clock skew between machines.
const SKEW_SECONDS: i64 = 24 * 3600;

impl Repo {
    /// The first-parent chain starting at `tip` (inclusive), newest first, at most `limit`
    /// commits.
    pub fn first_parent_chain(&self, tip: ObjectId, limit: usize) -> Result<Vec<CommitInfo>> {
        let mut out = Vec::new();
        let mut next = Some(tip);
        while let Some(id) = next {
            if out.len() >= limit {
                break;
            }
            let info = self.walk_commit_info(id)?;
            next = info.parents.first().copied();
            out.push(info);
        }
        Ok(out)
    }

    /// If `oldest` (and therefore every descendant of it on the branch) is reachable from a
    /// remote-tracking branch or a tag, the name of one such ref.
    ///
    /// All commits the history commands rewrite lie on one first-parent chain, so checking the
    /// oldest of them suffices: any ref containing a newer one contains the oldest too.
    pub fn published_by(&self, oldest: ObjectId) -> Result<Option<String>> {
        let mut tips = self.refs_with_prefix("refs/remotes/")?;
        tips.extend(self.refs_with_prefix("refs/tags/")?);
        if tips.is_empty() {
            return Ok(None);
        }
        if let Some((name, _)) = tips.iter().find(|(_, id)| *id == oldest) {
            return Ok(Some(name.clone()));
        }
        let cutoff = self.commit_info(oldest)?.committer.seconds - SKEW_SECONDS;
        for (name, tip) in &tips {
            // Tags may point at non-commits; those cannot contain a commit.
            let Ok(tip) = self
                .repo
                .find_object(*tip)
                .and_then(|o| o.peel_to_commit().map(|c| c.id))
            else {
                continue;
            };
            let walk = self
                .repo
                .rev_walk([tip])
                .sorting(gix::revision::walk::Sorting::ByCommitTimeCutoff {
                    order: Default::default(),
                    seconds: cutoff,
                })
                .all()
                .ctx(format!("cannot walk the history of {name}"))?;
            for info in walk {
                let info = info.ctx(format!("cannot walk the history of {name}"))?;
                if info.id == oldest {
                    return Ok(Some(name.clone()));
                }
            }
        }
        Ok(None)
    }
}

impl Repo {
    /// Whether `prefix` (4 to 64 hex digits) names exactly one object, and that object is a
    /// commit reachable from `HEAD`, a branch, a remote-tracking branch or a tag: one whose
    /// tree has the worktree's layout. A read-only git command may name such a commit by its
    /// id; any other object (a blob, a tree, a commit only git-clada's own refs reach) is
    /// asked about first (issue 51 §9). `false` whenever it cannot tell.
    pub fn is_reachable_commit(&self, prefix: &str) -> bool {
        self.reachable_commit(prefix).unwrap_or(false)
    }

    fn reachable_commit(&self, prefix: &str) -> Result<bool> {
        let Ok(prefix) = gix::hash::Prefix::from_hex(prefix) else {
            return Ok(false);
        };
        let Ok(Some(Ok(id))) = self.repo.objects.lookup_prefix(prefix, None) else {
            return Ok(false);
        };
        let Ok(object) = self.repo.find_object(id) else {
            return Ok(false);
        };
        if object.kind != gix::object::Kind::Commit {
            return Ok(false);
        }
        let mut tips: Vec<ObjectId> = Vec::new();
        if let Ok(head) = self.repo.head_id() {
            tips.push(head.detach());
        }
        for prefix in ["refs/heads/", "refs/remotes/", "refs/tags/"] {
            for (_, tip) in self.refs_with_prefix(prefix)? {
                // Tags may point at non-commits; those contain no commit.
                if let Ok(c) = self.repo.find_object(tip).and_then(|o| o.peel_to_commit()) {
                    tips.push(c.id);
                }
            }
        }
        if tips.contains(&id) {
            return Ok(true);
        }
        tips.sort();
        tips.dedup();
        let cutoff = self.commit_info(id)?.committer.seconds - SKEW_SECONDS;
        let walk = self
            .repo
            .rev_walk(tips)
            .sorting(gix::revision::walk::Sorting::ByCommitTimeCutoff {
                order: Default::default(),
                seconds: cutoff,
            })
            .all()
            .ctx("cannot walk the history")?;
        for info in walk {
            if info.ctx("cannot walk the history")?.id == id {
                return Ok(true);
            }
        }
        Ok(false)
    }
}
