//! Status: which tracked paths are staged or changed in the worktree, and (on request) which
//! files are untracked. This is the only part of an apply whose cost grows with the size of
//! the repository, so it avoids work where git's own data allows: a valid cache-tree equal to
//! HEAD's tree proves nothing is staged without comparing entries.

use gix::bstr::{BString, ByteSlice};
use gix::status::index_worktree::Item;
use gix::ObjectId;

use super::index::Index;
use super::untracked::UntrackedCache;
use super::{GixContext, Repo, Result};

/// How a tracked path differs from what is recorded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Dirt {
    Modified,
    Deleted,
    TypeChanged,
    Conflicted,
}

/// The state of the worktree and index relative to HEAD.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Status {
    /// Paths whose index entry differs from HEAD's tree (added, modified or removed).
    pub staged: Vec<BString>,
    /// Tracked paths whose worktree file differs from the index.
    pub unstaged: Vec<(BString, Dirt)>,
    /// Untracked, not ignored files (only filled when asked for).
    pub untracked: Vec<BString>,
}

impl Status {
    /// Tracked changes exist (staged or not); untracked files do not count.
    pub fn is_dirty(&self) -> bool {
        !self.staged.is_empty() || !self.unstaged.is_empty()
    }

    /// Every path with a tracked change, sorted and deduplicated.
    pub fn dirty_paths(&self) -> Vec<BString> {
        let mut out: Vec<BString> = self
            .staged
            .iter()
            .cloned()
            .chain(self.unstaged.iter().map(|(p, _)| p.clone()))
            .collect();
        out.sort();
        out.dedup();
        out
    }

    pub fn conflicted(&self) -> Vec<BString> {
        self.unstaged
            .iter()
            .filter(|(_, d)| *d == Dirt::Conflicted)
            .map(|(p, _)| p.clone())
            .collect()
    }
}

impl Repo {
    /// Compares `head_tree` with `index` and `index` with the worktree. With `untracked`, also
    /// lists untracked files (a directory walk, so only when needed).
    pub fn status(&self, head_tree: ObjectId, index: &Index, untracked: bool) -> Result<Status> {
        let cache = match untracked {
            true => Some(UntrackedCache::Off),
            false => None,
        };
        self.status_listing(head_tree, index, cache)
    }

    /// [`Repo::status`] with untracked files, reading directories only where the untracked
    /// cache (see `untracked`) has no valid listing; with `keep`, the cache is brought up to
    /// date afterwards (not in a dry run, which writes nothing).
    pub fn status_with_untracked_cache(
        &self,
        head_tree: ObjectId,
        index: &Index,
        keep: bool,
    ) -> Result<Status> {
        let cache = match keep {
            true => UntrackedCache::Update,
            false => UntrackedCache::Read,
        };
        self.status_listing(head_tree, index, Some(cache))
    }

    /// The status, with the untracked files listed as `untracked` says (`None`: not listed).
    fn status_listing(
        &self,
        head_tree: ObjectId,
        index: &Index,
        untracked: Option<UntrackedCache>,
    ) -> Result<Status> {
        let mut status = Status {
            staged: self.staged_paths(head_tree, index)?,
            ..Status::default()
        };
        clada_base::trace::phase("status: staged");
        let Some(cache) = untracked else {
            status.unstaged = self.unstaged_paths(index)?;
            return Ok(status);
        };
        let (unstaged, untracked) = self.unstaged_and_untracked(index, cache)?;
        status.unstaged = unstaged;
        status.untracked = untracked;
        clada_base::trace::phase("status: worktree and untracked");
        Ok(status)
    }

    /// Like [`Repo::status`] without untracked files, except that the worktree is only
    /// looked at for `paths` (the index is still compared with `head_tree` in full). For
    /// operations that rewrite only those paths, this keeps the cost of the worktree check
    /// growing with the change instead of with the repository.
    pub fn status_of_paths(
        &self,
        head_tree: ObjectId,
        index: &Index,
        paths: &[BString],
    ) -> Result<Status> {
        let mut status = Status {
            staged: self.staged_paths(head_tree, index)?,
            ..Status::default()
        };
        if !paths.is_empty() {
            // Literal pathspecs: a path with `*` or `[` in it means just that path.
            let patterns = paths
                .iter()
                .map(|p| {
                    let mut spec = BString::from(":(literal)");
                    spec.extend_from_slice(p);
                    spec
                })
                .collect();
            self.worktree_status(index, false, patterns, &mut status)?;
        }
        Ok(status)
    }

    /// Fills `status.unstaged` (and `status.untracked` with `untracked`) from a comparison
    /// of `index` with the worktree, limited to `patterns` unless they are empty.
    fn worktree_status(
        &self,
        index: &Index,
        untracked: bool,
        patterns: Vec<BString>,
        status: &mut Status,
    ) -> Result<()> {
        let platform = self
            .repo
            .status(gix::progress::Discard)
            .ctx("cannot compute the status")?
            .index(gix::worktree::IndexPersistedOrInMemory::InMemory(
                self.index_for_status(index)?,
            ))
            .index_worktree_rewrites(None)
            .index_worktree_submodules(None)
            .untracked_files(if untracked {
                gix::status::UntrackedFiles::Files
            } else {
                gix::status::UntrackedFiles::None
            });
        let iter = platform
            .into_index_worktree_iter(patterns)
            .ctx("cannot compute the status")?;
        for item in iter {
            let item = item.ctx("cannot compute the status")?;
            use gix::status::plumbing::index_as_worktree::{Change, EntryStatus};
            match &item {
                Item::Modification {
                    rela_path,
                    status: st,
                    ..
                } => {
                    let dirt = match st {
                        EntryStatus::Conflict { .. } => Dirt::Conflicted,
                        EntryStatus::Change(Change::Removed) => Dirt::Deleted,
                        EntryStatus::Change(Change::Type { .. }) => Dirt::TypeChanged,
                        EntryStatus::Change(_) => Dirt::Modified,
                        EntryStatus::IntentToAdd => Dirt::Modified,
                        EntryStatus::NeedsUpdate(_) => continue,
                    };
                    status.unstaged.push((rela_path.clone(), dirt));
                }
                Item::DirectoryContents { entry, .. } => {
                    if untracked && entry.status == gix::dir::entry::Status::Untracked {
                        status.untracked.push(entry.rela_path.clone());
                    }
                }
                Item::Rewrite { .. } => {}
            }
        }
        status.unstaged.sort();
        status.unstaged.dedup_by(|a, b| a.0 == b.0);
        status.untracked.sort();
        Ok(())
    }

    /// The copy of `index` the worktree status runs on. gix 0.90 does not see an executable
    /// file replaced by a symlink as a type change (a symlink's mode bits look executable)
    /// and reads the file through the link instead, failing on a dangling link or one to a
    /// directory. Marked non-executable in the copy, such an entry is seen as a type change.
    fn index_for_status(&self, index: &Index) -> Result<gix::index::File> {
        use gix::index::entry::Mode;
        let mut file = (*index.file).clone();
        // gix judges racily-clean entries by the file's own timestamp.
        file.set_timestamp(index.timestamp());
        let executables: Vec<usize> = file
            .entries()
            .iter()
            .enumerate()
            .filter(|(_, e)| e.mode == Mode::FILE_EXECUTABLE)
            .map(|(i, _)| i)
            .collect();
        for i in executables {
            let path = file.entries()[i].path(&file).to_owned();
            if self
                .worktree_metadata(path.as_bstr())?
                .is_some_and(|m| m.is_symlink())
            {
                file.entries_mut()[i].mode = Mode::FILE;
            }
        }
        Ok(file)
    }

    /// Paths whose index entry differs from `head_tree`.
    pub(crate) fn staged_paths(&self, head_tree: ObjectId, index: &Index) -> Result<Vec<BString>> {
        // A valid cache-tree names the tree the index holds: compare two trees, at a cost
        // that grows with their difference, instead of every entry.
        if let Some(root) = index.valid_cached_tree() {
            return Ok(self
                .diff_trees(head_tree, root)?
                .into_iter()
                .map(|d| d.path)
                .collect());
        }
        let mut out = Vec::new();
        let full = index.expanded(self)?;
        self.repo
            .tree_index_status(
                &head_tree,
                &full.file,
                None,
                gix::status::tree_index::TrackRenames::Disabled,
                |change, _, _| {
                    out.push(change.fields().0.to_owned());
                    Ok(gix::diff::index::Action::Continue(()))
                },
            )
            .ctx("cannot compare the index with HEAD")?;
        out.sort();
        out.dedup();
        Ok(out)
    }
}

impl Repo {
    /// Which of `paths` (untracked, worktree-relative files) `.gitignore` and friends exclude.
    pub fn ignored(&self, index: &Index, paths: &[BString]) -> Result<Vec<BString>> {
        if paths.is_empty() {
            return Ok(Vec::new());
        }
        let mut stack = self
            .repo
            .excludes(&index.file, None, Default::default())
            .ctx("cannot read the ignore rules")?;
        let mut out = Vec::new();
        for p in paths {
            let path = gix::path::from_bstr(p.as_bstr()).ctx(format!("invalid path '{p}'"))?;
            let platform = stack
                .at_path(&*path, Some(gix::index::entry::Mode::FILE))
                .ctx(format!("cannot check whether '{p}' is ignored"))?;
            if platform.is_excluded() {
                out.push(p.clone());
            }
        }
        Ok(out)
    }

    /// Ignored files the index does not track, at most `limit`: the worktree walked without
    /// entering ignored directories (build output is skipped whole), nested repositories or
    /// `.git`. For saving what an exec might delete.
    pub fn ignored_files(&self, index: &Index, limit: usize) -> Result<Vec<BString>> {
        let mut stack = self
            .repo
            .excludes(&index.file, None, Default::default())
            .ctx("cannot read the ignore rules")?;
        let mut out = Vec::new();
        let git_dirs = self.git_dirs_inside();
        let mut dirs = vec![(self.workdir().to_path_buf(), BString::from(""))];
        while let Some((abs, rel)) = dirs.pop() {
            let Ok(rd) = std::fs::read_dir(&abs) else {
                continue;
            };
            for e in rd.flatten() {
                let name = e.file_name();
                let Some(name) = name.to_str() else { continue };
                if name == ".git" {
                    continue;
                }
                let child = match rel.is_empty() {
                    true => BString::from(name),
                    false => BString::from(format!("{rel}/{name}")),
                };
                let path =
                    gix::path::from_bstr(child.as_bstr()).ctx(format!("invalid path '{child}'"))?;
                let Ok(kind) = e.file_type() else { continue };
                let mode = match kind.is_dir() {
                    true => gix::index::entry::Mode::DIR,
                    false => gix::index::entry::Mode::FILE,
                };
                let excluded = stack
                    .at_path(&*path, Some(mode))
                    .ctx(format!("cannot check whether '{child}' is ignored"))?
                    .is_excluded();
                if kind.is_dir() {
                    if !excluded && !git_dirs.contains(&child) && !e.path().join(".git").exists() {
                        dirs.push((e.path(), child));
                    }
                } else if excluded && index.entry(child.as_bstr()).is_none() {
                    out.push(child);
                    if out.len() >= limit {
                        return Ok(out);
                    }
                }
            }
        }
        out.sort();
        Ok(out)
    }

    /// The tree the index holds, computed by editing `base_tree` with the entries that differ
    /// from it (cheap when few do).
    pub fn tree_of_index(&self, base_tree: ObjectId, index: &Index) -> Result<ObjectId> {
        let staged = self.staged_paths(base_tree, index)?;
        let changes: Vec<super::TreeChange> = staged
            .iter()
            .map(|p| super::TreeChange {
                path: p.clone(),
                entry: index.entry(p.as_bstr()),
            })
            .collect();
        self.edit_tree(base_tree, &changes)
    }
}
