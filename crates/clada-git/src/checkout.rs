//! In-place checkout: move the worktree's tracked files from one tree to another, rewriting
//! only the paths that differ (gix has no `reset --hard`; this is the recipe of
//! `reference/gix-notes.md` (e), done with plain file operations).
//!
//! Planning and conflict detection are separate from execution, so callers can refuse before
//! touching anything: a file to be created where an untracked file or directory stands, or a
//! directory needed where an untracked file stands, is a conflict, never overwritten.

use std::collections::BTreeSet;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use gix::bstr::{BStr, BString, ByteSlice};
use gix::ObjectId;

use super::tree::{Entry, EntryKind, Hasher};
use super::{io_err, Repo, Result};

/// What a checkout from one tree to another will do.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CheckoutPlan {
    /// Paths to (re)write with the given entry.
    pub writes: Vec<(BString, Entry)>,
    /// Paths to delete.
    pub deletes: Vec<BString>,
}

impl CheckoutPlan {
    pub fn is_empty(&self) -> bool {
        self.writes.is_empty() && self.deletes.is_empty()
    }

    /// Every path the checkout touches, sorted.
    pub fn paths(&self) -> Vec<BString> {
        let mut out: Vec<BString> = self
            .writes
            .iter()
            .map(|(p, _)| p.clone())
            .chain(self.deletes.iter().cloned())
            .collect();
        out.sort();
        out.dedup();
        out
    }
}

/// A checkout whose file contents are read and converted for the worktree.
#[derive(Debug)]
pub struct PreparedCheckout {
    deletes: Vec<BString>,
    /// Path, entry, and the converted content when filters apply (else read when written).
    writes: Vec<(BString, Entry, Option<Vec<u8>>)>,
}

/// Something in the worktree that a checkout would destroy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathConflict {
    pub path: BString,
    pub reason: String,
}

impl Repo {
    /// Plans moving tracked content from tree `from` to tree `to`.
    pub fn plan_checkout(&self, from: ObjectId, to: ObjectId) -> Result<CheckoutPlan> {
        let mut plan = CheckoutPlan::default();
        for d in self.diff_trees(from, to)? {
            match d.new {
                Some(entry) if entry.kind != EntryKind::Commit => plan.writes.push((d.path, entry)),
                Some(_) => {}
                None => plan.deletes.push(d.path),
            }
        }
        Ok(plan)
    }

    /// What in the worktree (not tracked in `from`) would be overwritten or lost by `plan`.
    pub fn checkout_conflicts(
        &self,
        from: ObjectId,
        plan: &CheckoutPlan,
    ) -> Result<Vec<PathConflict>> {
        let deleted: BTreeSet<&BStr> = plan.deletes.iter().map(|p| p.as_bstr()).collect();
        let mut conflicts = Vec::new();
        for (path, entry) in &plan.writes {
            // A path that `from` tracks holds tracked content; the caller's dirty check
            // guarantees it is unmodified, so replacing it loses nothing.
            if self
                .tree_entry(from, path.as_bstr())?
                .is_some_and(|e| e.kind != EntryKind::Tree)
            {
                continue;
            }
            if let Some(md) = self.worktree_metadata(path.as_bstr())? {
                if md.is_dir() {
                    if !self.dir_holds_only(path.as_bstr(), &deleted)? {
                        conflicts.push(PathConflict {
                            path: path.clone(),
                            reason: "a directory with untracked files is in the way".into(),
                        });
                    }
                } else if !same_content(self, path.as_bstr(), entry)? {
                    conflicts.push(PathConflict {
                        path: path.clone(),
                        reason: "an untracked file would be overwritten".into(),
                    });
                }
            }
            // A file standing where a parent directory is needed.
            let mut parent = path.as_bstr();
            while let Some(pos) = parent.rfind_byte(b'/') {
                parent = parent[..pos].as_bstr();
                if let Some(md) = self.worktree_metadata(parent)? {
                    if !md.is_dir() && !deleted.contains(parent) {
                        conflicts.push(PathConflict {
                            path: parent.to_owned(),
                            reason: format!("an untracked file stands where the directory for '{path}' is needed"),
                        });
                    }
                    break;
                }
            }
        }
        Ok(conflicts)
    }

    /// True when every file below directory `rel` is in `deleted` (so it empties out).
    fn dir_holds_only(&self, rel: &BStr, deleted: &BTreeSet<&BStr>) -> Result<bool> {
        let root = self.worktree()?;
        let mut stack: Vec<BString> = vec![rel.to_owned()];
        while let Some(dir) = stack.pop() {
            let abs = self.abs_path(dir.as_bstr());
            let entries = root
                .dir(Path::new(std::ffi::OsStr::from_bytes(&dir)))
                .and_then(|d| d.list())
                .map_err(io_err("cannot read directory", &abs))?;
            for (name, meta) in entries {
                let mut child = dir.clone();
                child.push(b'/');
                child.extend_from_slice(name.as_bytes());
                if meta.is_dir() {
                    stack.push(child);
                } else if !deleted.contains(child.as_bstr()) {
                    return Ok(false);
                }
            }
        }
        Ok(true)
    }

    /// Carries out `plan`: deletions first (emptied directories are pruned), then writes
    /// (each file replaced atomically). Returns the paths written.
    pub fn execute_checkout(
        &self,
        plan: &CheckoutPlan,
        hasher: &mut Hasher<'_>,
    ) -> Result<Vec<BString>> {
        let prepared = self.prepare_checkout(plan, hasher)?;
        self.execute_prepared(prepared, hasher)
    }

    /// Reads and converts (smudge, eol) every file `plan` writes, touching nothing: with
    /// git's filters in play this is where a failing filter stops the checkout, before any
    /// file changed. Without filters the contents are read when written instead.
    pub fn prepare_checkout(
        &self,
        plan: &CheckoutPlan,
        hasher: &mut Hasher<'_>,
    ) -> Result<PreparedCheckout> {
        let mut writes = Vec::with_capacity(plan.writes.len());
        for (path, entry) in &plan.writes {
            let data = match entry.kind {
                EntryKind::Blob | EntryKind::Executable if hasher.filters() => {
                    let raw = self.read_blob(entry.id)?;
                    Some(hasher.to_worktree(path.as_bstr(), &raw)?)
                }
                _ => None,
            };
            writes.push((path.clone(), *entry, data));
        }
        Ok(PreparedCheckout {
            deletes: plan.deletes.clone(),
            writes,
        })
    }

    /// Carries out a prepared checkout: deletions first (emptied directories are pruned),
    /// then writes (each file replaced atomically). Returns the paths written.
    pub fn execute_prepared(
        &self,
        prepared: PreparedCheckout,
        hasher: &mut Hasher<'_>,
    ) -> Result<Vec<BString>> {
        let mut deletes = prepared.deletes;
        // Deepest first, so directories empty out before their parents are pruned.
        deletes.sort_by(|a, b| b.len().cmp(&a.len()).then(b.cmp(a)));
        for path in &deletes {
            self.worktree_remove_file(path.as_bstr())?;
        }
        let mut written = Vec::with_capacity(prepared.writes.len());
        for (path, entry, data) in prepared.writes {
            self.write_entry_data(path.as_bstr(), &entry, data, hasher)?;
            written.push(path);
        }
        Ok(written)
    }

    /// Writes one tree entry to the worktree.
    pub fn write_entry(&self, rel: &BStr, entry: &Entry, hasher: &mut Hasher<'_>) -> Result<()> {
        self.write_entry_data(rel, entry, None, hasher)
    }

    /// Writes one tree entry to the worktree; `converted` is the file's worktree content when
    /// already prepared.
    fn write_entry_data(
        &self,
        rel: &BStr,
        entry: &Entry,
        converted: Option<Vec<u8>>,
        hasher: &mut Hasher<'_>,
    ) -> Result<()> {
        let abs = self.abs_path(rel);
        // Through the parent's handle, opened from the root: a directory of the path swapped
        // for a symlink (to `.git`, say) stops the write instead of redirecting it.
        let (dir, name) = self.worktree_parent(rel)?;
        if let Ok(Some(md)) = dir.stat(name) {
            if md.is_dir() {
                dir.rmdir(name)
                    .map_err(io_err("cannot replace directory", &abs))?;
            }
        }
        match entry.kind {
            EntryKind::Link if !self.symlinks() => {
                // As git checks a link out without symlinks: a plain file holding its target
                // (the rename replaces a link there, never following it).
                let data = self.read_blob(entry.id)?;
                dir.write_atomic(
                    name,
                    &data,
                    clada_base::fsutil::Perm::Restore(false),
                    "checkout:before-rename",
                )
                .map_err(io_err("cannot write", &abs))?;
            }
            EntryKind::Link => {
                let data = self.read_blob(entry.id)?;
                let target = std::path::Path::new(std::ffi::OsStr::from_bytes(&data));
                dir.symlink_atomic(name, target)
                    .map_err(io_err("cannot create symlink", &abs))?;
            }
            EntryKind::Blob | EntryKind::Executable => {
                let data = match converted {
                    Some(d) => d,
                    None => hasher.to_worktree(rel, &self.read_blob(entry.id)?)?,
                };
                // An existing file keeps its permission bits (only git's executable bit is
                // the entry's): undo must give back a read-only file read-only. A new file
                // is created with the umask applied, as git does.
                dir.write_atomic(
                    name,
                    &data,
                    clada_base::fsutil::Perm::Restore(entry.kind == EntryKind::Executable),
                    "checkout:before-rename",
                )
                .map_err(io_err("cannot write", &abs))?;
            }
            EntryKind::Commit | EntryKind::Tree => {}
        }
        Ok(())
    }
}

impl Repo {
    /// The blob id of the worktree file at `rel` as raw bytes (no filters, nothing written),
    /// or `None` when it is missing or not a file or symlink.
    pub fn raw_blob_id(&self, rel: &BStr) -> Result<Option<ObjectId>> {
        let bytes = match self.worktree_content(rel)? {
            Some((super::Content::File(b) | super::Content::Link(b), _)) => b,
            None => return Ok(None),
        };
        let id = gix::objs::compute_hash(self.repo.object_hash(), gix::objs::Kind::Blob, &bytes)
            .map_err(|e| super::RepoError::Invalid(format!("cannot hash '{rel}': {e}")))?;
        Ok(Some(id))
    }
}

/// True when the worktree file at `rel` already holds `entry` (an identical untracked file is
/// not a conflict).
fn same_content(repo: &Repo, rel: &BStr, entry: &Entry) -> Result<bool> {
    let bytes = match repo.worktree_content(rel)? {
        Some((super::Content::Link(_), _)) if entry.kind != EntryKind::Link => return Ok(false),
        Some((super::Content::File(b) | super::Content::Link(b), _)) => b,
        None => return Ok(false),
    };
    let id = gix::objs::compute_hash(repo.repo.object_hash(), gix::objs::Kind::Blob, &bytes)
        .map_err(|e| super::RepoError::Invalid(format!("cannot hash '{rel}': {e}")))?;
    Ok(id == entry.id)
}
