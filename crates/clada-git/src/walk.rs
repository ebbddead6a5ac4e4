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
