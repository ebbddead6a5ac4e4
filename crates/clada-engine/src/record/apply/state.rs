//! Phases 2–3: the state an apply starts from. Read under the clada lock and after the
//! refusal checks, so an apply that is refused has changed nothing: not the worktree, not the
//! index, not even a journal. What is read here (HEAD, the index, the status, the index
//! file's identity) is what the journal records next, and what `moved` compares against to
//! notice a git command that ran in between.

use crate::action;
use clada_git::{Head, Index, ObjectId, Repo, Status, StatusPrefetch};

use super::super::journal::Journal;
use super::super::restore;
use super::super::snapshot;
use super::super::stepped_back;
use super::{ApplyError, ApplyOptions};

/// Refusal checks shared by every command that changes the worktree: an interrupted
/// transaction, a git operation in progress.
pub fn refuse_if_busy(repo: &Repo) -> Result<(), ApplyError> {
    if let Some(j) = Journal::read(repo)? {
        return Err(ApplyError::Refused(format!(
            "an earlier `git clada apply` of {} was interrupted (pid {}); run `git clada undo` to roll it back first",
            j.source, j.pid
        )));
    }
    if restore::pending(repo)?.is_some() {
        return Err(ApplyError::Refused(
            "an earlier `git clada undo`/`redo` was interrupted; run `git clada undo` again to finish it".into(),
        ));
    }
    if let Some(op) = repo.in_progress() {
        return Err(ApplyError::Refused(op.describe().to_string()));
    }
    Ok(())
}

/// The state an apply starts from, read under the clada lock after the refusal checks.
pub(super) struct Start {
    pub(super) head: Head,
    pub(super) head_commit: ObjectId,
    pub(super) head_tree: ObjectId,
    pub(super) index: Index,
    pub(super) status: Status,
    pub(super) identity: (clada_git::Signature, clada_git::Signature),
    pub(super) has_exec: bool,
    /// The index file's identity when it was read, to notice a git command changing it
    /// before the apply holds git's index lock.
    index_stamp: Option<IndexStamp>,
}

/// Size, modification time and inode of `.git/index`: git rewrites the index by renaming a
/// new file over it, so any change shows in these.
#[derive(Debug, Clone, PartialEq, Eq)]
struct IndexStamp(u64, i64, i64, u64);

fn index_stamp(repo: &Repo) -> Option<IndexStamp> {
    use std::os::unix::fs::MetadataExt;
    let md = std::fs::metadata(repo.git_dir().join("index")).ok()?;
    Some(IndexStamp(md.len(), md.mtime(), md.mtime_nsec(), md.ino()))
}

impl Start {
    /// Refusal checks, then HEAD, the index and the status.
    pub(super) fn read(
        repo: &Repo,
        plan: &action::Plan,
        opts: &ApplyOptions,
        prefetch: StatusPrefetch,
    ) -> Result<Start, ApplyError> {
        refuse_if_busy(repo)?;
        // Stepped back, HEAD is detached on purpose: what to do is to step forward, not to
        // make a branch, so this is said before the detached HEAD is.
        if let Some(msg) = stepped_back(repo)? {
            return Err(ApplyError::Refused(msg));
        }
        let head = repo.head()?;
        let head_commit = match &head {
            Head::Unborn { name } => {
                return Err(ApplyError::Refused(format!(
                    "the branch {} has no commit yet; make a first commit (e.g. `git commit --allow-empty -m init`) and apply again",
                    name.strip_prefix("refs/heads/").unwrap_or(name)
                )))
            }
            // A commit on a detached HEAD is reachable from nothing but HEAD: undo, redo,
            // squash and step work on a branch's history and refuse a detached HEAD, and the
            // next checkout would leave the commit to git's garbage collection. So an apply
            // is refused there too, rather than making a commit nothing can take back.
            Head::Detached { commit } => {
                return Err(ApplyError::Refused(format!(
                    "HEAD is detached (at {}); git-clada commits on a branch so that `git clada undo` can take the reply back: create or check out a branch first (`git switch -c <name>`) and apply again",
                    Repo::short(*commit)
                )))
            }
            Head::Branch { commit, .. } => *commit,
        };
        let identity = repo.identity()?;
        let head_tree = repo.tree_of(head_commit)?;
        clada_base::trace::phase("checks");
        let has_exec = !opts.hooks.after.is_empty()
            || plan
                .actions
                .iter()
                .any(|a| a.action == "exec" && a.op.is_ok());
        let index_stamp = index_stamp(repo);
        // Exec may create, change or delete untracked files, so its status lists them (a
        // directory walk) for the journal to save.
        let (index, status) = if has_exec {
            let index = repo.read_index()?;
            let status = repo.status(head_tree, &index, true)?;
            (index, status)
        } else {
            let writes: Vec<String> = plan
                .actions
                .iter()
                .flat_map(|a| a.write_paths())
                .filter_map(|rp| rp.rel.clone())
                .collect();
            let fresh: Vec<&clada_git::BStr> = writes.iter().map(|w| w.as_str().into()).collect();
            repo.finish_status(prefetch, head_tree, &fresh)?
        };
        let conflicted = index.conflicted_paths();
        if !conflicted.is_empty() {
            return Err(ApplyError::Refused(format!(
                "the index has unresolved conflicts in {}; resolve them and `git add` the files first",
                snapshot::describe_paths(&conflicted, 5)
            )));
        }
        clada_base::trace::phase("status");
        if status.is_dirty() && opts.no_snapshot {
            return Err(ApplyError::Refused(format!(
                "uncommitted changes in {}; commit or stash them first, or apply without --no-snapshot (they then stay uncommitted, and `git clada undo` restores them exactly)",
                snapshot::describe_paths(&status.dirty_paths(), 5)
            )));
        }
        Ok(Start {
            head,
            head_commit,
            head_tree,
            index,
            status,
            identity,
            has_exec,
            index_stamp,
        })
    }

    /// Whether HEAD or the index changed since `read` (another git command, or exec).
    pub(super) fn moved(&self, repo: &Repo) -> Result<Option<String>, ApplyError> {
        let now = repo.head()?.commit();
        if now != Some(self.head_commit) {
            return Ok(Some(format!(
                "HEAD moved from {} to {}",
                Repo::short(self.head_commit),
                now.map_or("nothing".into(), Repo::short)
            )));
        }
        // git rewrites the index file for a read-only command too (`git status` refreshing
        // stat data): only a change of an entry counts.
        if index_stamp(repo) != self.index_stamp && !repo.read_index()?.same_entries(&self.index) {
            return Ok(Some("the index changed".into()));
        }
        Ok(None)
    }
}
