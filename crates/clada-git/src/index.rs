//! The index: reading it, changing only the entries of given paths, keeping git's cache-tree
//! extension valid where it can be, and writing it under git's own `index.lock`.
//!
//! Reading is the one part of most commands whose cost grows with the repository, so it is
//! done once per version of the file: [`Repo::read_index`] keeps what it decoded, keyed by the
//! file's identity (inode, size, times: git replaces the index by renaming a new file over
//! it), and hands out copies that share the entries until one is edited. A version is read
//! in pieces and decoded as it comes in, its trailing checksum verified on the way
//! (`index_stream`; gix decodes whatever that reader leaves to it). Writing streams the
//! serialised entries through a hashing buffer, and from 32,000 entries hashes and writes
//! them on a second thread.
//!
//! gix has no high-level "update these paths" API, and one trap: after
//! `dangerously_push_entry` by-path lookups silently miss entries, so every lookup here is
//! done before any push and the entries are re-sorted once at the end.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use gix::bstr::{BStr, BString, ByteSlice};
use gix::index::entry::{Flags, Mode, Stage, Stat};
use gix::ObjectId;

use super::index_stream::Decoded;
use super::tree::{Entry, EntryKind};
use super::{io_err, GixContext, Repo, RepoError, Result};

/// git's `index.lock`, held from before the branch moves until the new index is in place, so
/// no other git command sees the new commit with the old index. It is created with a token
/// (see `lockfile`), so a crash leaves a lock the next git-clada can prove its own and remove;
/// dropped without [`IndexLock::commit`], it is removed.
pub struct IndexLock {
    file: Option<std::fs::File>,
    /// The checksum of what [`Self::write`] wrote.
    written: Option<[u8; 20]>,
    /// `index.lock`.
    path: PathBuf,
    /// `index`.
    target: PathBuf,
    token: Option<super::lockfile::TokenedLocks>,
}

impl Drop for IndexLock {
    fn drop(&mut self) {
        // Not committed: release the lock, if it is still ours.
        if let Some(file) = self.file.take() {
            super::lockfile::release_if_ours(&file, &self.path);
        }
        self.token.take();
    }
}

impl std::fmt::Debug for IndexLock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IndexLock")
            .field("path", &self.path)
            .finish()
    }
}

/// The index of the worktree, in memory. Copies share the entries until one of them is
/// edited (copy on write), so handing one out costs nothing.
#[derive(Clone)]
pub struct Index {
    pub(crate) file: std::sync::Arc<gix::index::File>,
    /// A cache-tree computed by [`Index::set_cache_tree`], written in place of gix's own
    /// (gix cannot attach one to an index read without it).
    cache_tree: Option<CacheTree>,
    /// What git keeps to redo a resolved conflict (`git checkout -m`), the resolve-undo
    /// extension's body as read: gix neither exposes nor writes it, so it is carried over.
    resolve_undo: Option<std::sync::Arc<[u8]>>,
    /// The file was index version 4 (compressed paths, `feature.manyFiles`): written back so.
    v4: bool,
}

type CacheTree = gix::index::extension::Tree;

/// The flags a user sets on index entries, which a rebuilt index must keep.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct EntryFlags {
    /// Outside a sparse checkout: the file is not in the worktree, and that is no deletion.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub skip_worktree: bool,
    /// `git update-index --assume-unchanged`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub assume_unchanged: bool,
    /// `git add -N`: tracked, content not yet staged.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub intent_to_add: bool,
}

impl EntryFlags {
    fn of(flags: Flags) -> EntryFlags {
        EntryFlags {
            skip_worktree: flags.contains(Flags::SKIP_WORKTREE),
            assume_unchanged: flags.contains(Flags::ASSUME_VALID),
            intent_to_add: flags.contains(Flags::INTENT_TO_ADD),
        }
    }

    pub fn is_empty(&self) -> bool {
        !self.skip_worktree && !self.assume_unchanged && !self.intent_to_add
    }
}

/// Where a cache-tree disagrees with the entries it describes, as git would have to believe
/// it: a node marked valid whose count is not the number of entries under it, or that covers
/// an intent-to-add or conflicted entry (git keeps those out of trees). git-clada before
/// issue 33 wrote such a node beside an intent-to-add entry, and git then committed a tree
/// with duplicate entries that lost files. `None` when the cache-tree (if any) is sound.
pub(crate) fn cache_tree_problem(state: &gix::index::State, tree: &CacheTree) -> Option<String> {
    fn walk(state: &gix::index::State, node: &CacheTree, prefix: &mut Vec<u8>) -> Option<String> {
        let entries = state.entries();
        let range = if prefix.is_empty() {
            0..entries.len()
        } else {
            state
                .prefixed_entries_range(prefix.as_bstr())
                .unwrap_or(0..0)
        };
        let here = if prefix.is_empty() {
            "the root".to_string()
        } else {
            format!("'{}'", prefix[..prefix.len() - 1].as_bstr())
        };
        if let Some(counted) = node.num_entries {
            // A sparse-directory entry for this very directory is one entry.
            let n = range.len() as u32;
            if counted != n {
                return Some(format!(
                    "the cache-tree of {here} counts {counted} entries, the index has {n}"
                ));
            }
            if let Some(e) = entries[range].iter().find(|e| {
                e.stage() != Stage::Unconflicted || e.flags.contains(Flags::INTENT_TO_ADD)
            }) {
                return Some(format!(
                    "the cache-tree of {here} is marked valid over '{}', which git keeps out of trees",
                    e.path(state)
                ));
            }
        }
        for child in &node.children {
            let len = prefix.len();
            prefix.extend_from_slice(&child.name);
            prefix.push(b'/');
            let found = walk(state, child, prefix);
            prefix.truncate(len);
            if found.is_some() {
                return found;
            }
        }
        None
    }
    walk(state, tree, &mut Vec::new())
}

/// What to record for a path in the index: its entry, and whether the worktree file is known
/// to hold exactly that content (then its stat data is recorded so git trusts it; otherwise
/// the stat is zeroed, which makes git re-check the content).
#[derive(Debug, Clone)]
pub struct IndexUpdate {
    pub path: BString,
    pub entry: Option<Entry>,
    pub worktree_matches: bool,
}

/// Identifies one version of the index file: git and git-clada replace it by renaming a new
/// file into place, so a rewrite changes at least the inode, and any write the times.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct IndexStamp {
    dev: u64,
    ino: u64,
    len: u64,
    mtime: (i64, i64),
    ctime: (i64, i64),
}

impl IndexStamp {
    pub(crate) fn of(path: &std::path::Path) -> Option<IndexStamp> {
        std::fs::metadata(path)
            .ok()
            .map(|md| Self::from_metadata(&md))
    }

    fn from_metadata(md: &std::fs::Metadata) -> IndexStamp {
        use std::os::unix::fs::MetadataExt;
        IndexStamp {
            dev: md.dev(),
            ino: md.ino(),
            len: md.len(),
            mtime: (md.mtime(), md.mtime_nsec()),
            ctime: (md.ctime(), md.ctime_nsec()),
        }
    }
}

impl Repo {
    /// The index as it is on disk now (an empty one if there is none yet). A version already
    /// read by this process is not read again: the file's identity is compared first.
    pub fn read_index(&self) -> Result<Index> {
        let path = self.repo.index_path();
        if let Some(now) = IndexStamp::of(&path) {
            if let Some((stamp, index)) = &*self.index_cache.borrow() {
                if *stamp == now {
                    return Ok(index.clone());
                }
            }
        }
        let (index, stamp) = read_index_file(path, self.repo.object_hash())?;
        *self.index_cache.borrow_mut() = stamp.map(|s| (s, index.clone()));
        Ok(index)
    }

    /// Starts reading the index file on another thread, so the read overlaps with what a
    /// command does before it needs the index (taking the lock, reading refs and records);
    /// [`IndexPrefetch::adopt`] hands the result to [`Repo::read_index`], which uses it only
    /// while the file is still that version.
    pub fn prefetch_index(&self) -> IndexPrefetch {
        let path = self.repo.index_path();
        let hash = self.repo.object_hash();
        IndexPrefetch {
            handle: std::thread::spawn(move || read_index_file(path, hash)),
        }
    }

    /// Remembers `index` as the version of the index file identified by `stamp` (one read on
    /// another thread, see `prefetch_status`).
    pub(crate) fn remember_index(&self, stamp: IndexStamp, index: &Index) {
        *self.index_cache.borrow_mut() = Some((stamp, index.clone()));
    }

    /// An index holding exactly `tree` (stat data empty; see [`Index::carry_stat_from`]).
    pub fn index_from_tree(&self, tree: ObjectId) -> Result<Index> {
        let mut file = self
            .repo
            .index_from_tree(&tree)
            .ctx(format!("cannot build an index from tree {tree}"))?;
        file.set_path(self.repo.index_path());
        Ok(Index {
            file: std::sync::Arc::new(file),
            cache_tree: None,
            resolve_undo: None,
            v4: false,
        })
    }

    /// `old` turned into an index holding exactly `tree`, as `git reset` leaves it: entries
    /// that stay keep their stat data (git does not re-read those files), changed ones get
    /// none (git re-checks them), and the cache-tree is rebuilt (reusing what is still valid).
    /// When `old`'s cache-tree names the tree it holds and it has no conflicts or
    /// intent-to-add entries, only the paths that differ between the two trees are edited, so
    /// the cost grows with the change; otherwise the index is built from `tree` and the stat
    /// data carried over.
    pub fn index_at_tree(&self, old: Index, tree: ObjectId) -> Result<Index> {
        let known = old.valid_cached_tree().filter(|_| {
            old.file.entries().iter().all(|e| {
                e.stage() == Stage::Unconflicted && !e.flags.contains(Flags::INTENT_TO_ADD)
            })
        });
        if let Some(from) = known {
            let updates: Vec<IndexUpdate> = self
                .diff_trees(from, tree)?
                .into_iter()
                .map(|d| IndexUpdate {
                    path: d.path,
                    entry: d.new,
                    worktree_matches: false,
                })
                .collect();
            let mut index = old;
            index.apply(self, &updates)?;
            index.set_cache_tree(self, tree, None)?;
            return Ok(index);
        }
        let mut index = self.index_from_tree(tree)?;
        index.carry_stat_from(&old);
        index.set_cache_tree(self, tree, Some(&old))?;
        index.resolve_undo = old.resolve_undo.clone();
        index.v4 = old.v4;
        Ok(index)
    }

    /// Takes git's `index.lock`, waiting briefly if a git command holds it.
    pub fn lock_index(&self) -> Result<IndexLock> {
        let target = self.repo.index_path();
        let mut path = target.clone().into_os_string();
        path.push(".lock");
        let path = PathBuf::from(path);
        match self.create_tokened_lock(&path, Duration::from_secs(2)) {
            Ok((file, token)) => {
                clada_base::failpoint::hit("index:locked");
                Ok(IndexLock {
                    file: Some(file),
                    written: None,
                    path,
                    target,
                    token,
                })
            }
            Err(super::lockfile::LockBusy::Held) => Err(RepoError::Invalid(format!(
                "cannot lock the index: '{}' exists, so another git command is using the index (waited 2 s); if no other git command is running (one may have crashed), remove '{}' and try again",
                path.display(),
                path.display()
            ))),
            Err(super::lockfile::LockBusy::Other(e)) => Err(RepoError::Invalid(format!(
                "cannot lock the index ({}): {e}",
                target.display()
            ))),
        }
    }

    /// Records the worktree's stat data for `rel` into an index entry.
    fn stat_of(&self, rel: &BStr) -> Result<Stat> {
        let abs = self.abs_path(rel);
        let md = gix::index::fs::Metadata::from_path_no_follow(&abs)
            .map_err(io_err("cannot inspect", &abs))?;
        Stat::from_fs(&md)
            .map_err(|e| RepoError::Invalid(format!("bad timestamp on '{}': {e}", abs.display())))
    }
}

/// An index read started on another thread (see [`Repo::prefetch_index`]).
pub struct IndexPrefetch {
    handle: std::thread::JoinHandle<Result<(Index, Option<IndexStamp>)>>,
}

impl IndexPrefetch {
    /// Waits for the read and lets `repo` use it; a read that failed is left for
    /// `read_index` to do again (and report).
    pub fn adopt(self, repo: &Repo) {
        if let Ok(Ok((index, Some(stamp)))) = self.handle.join() {
            repo.remember_index(stamp, &index);
        }
    }
}

impl IndexLock {
    /// Writes `index` through the lock and renames it into place.
    pub fn commit(mut self, index: &Index) -> Result<()> {
        self.write(index)?;
        self.rename()
    }

    /// Writes `index` into the lock file; it replaces the index only with [`Self::rename`]
    /// (until then git sees the lock held and the old index in place).
    pub fn write(&mut self, index: &Index) -> Result<()> {
        clada_base::trace::phase("index: locked");
        let Some(file) = self.file.as_mut() else {
            return Err(RepoError::Invalid(
                "the index lock was already released".into(),
            ));
        };
        let digest = index
            .serialize_into(&*file)
            .map_err(io_err("cannot write the index", &self.path))?;
        self.written = Some(digest);
        clada_base::trace::phase("index: serialized");
        clada_base::failpoint::hit("index:written");
        Ok(())
    }

    /// Renames the written lock file over the index, releasing the lock.
    pub fn rename(mut self) -> Result<()> {
        if self.file.is_none() {
            return Err(RepoError::Invalid(
                "the index lock was already released".into(),
            ));
        }
        std::fs::rename(&self.path, &self.target).map_err(|e| {
            RepoError::Invalid(format!(
                "cannot replace the index '{}': {e}",
                self.target.display()
            ))
        })?;
        // Renamed: nothing of ours is left at the lock's name to remove.
        let file = self.file.take();
        // The lock was a hard link to a token: removing the token changes the index's ctime,
        // so the index's identity is taken after it.
        self.token.take();
        if let (Some(file), Some(digest)) = (file, self.written) {
            record_checked(&self.target, &file, digest);
        }
        clada_base::failpoint::hit("index:committed");
        Ok(())
    }
}

impl Index {
    /// An empty index for `repo` (a placeholder where none is needed).
    pub fn empty_like(repo: &Repo) -> Index {
        Index {
            file: std::sync::Arc::new(gix::index::File::from_state(
                gix::index::State::new(repo.repo.object_hash()),
                repo.repo.index_path(),
            )),
            cache_tree: None,
            resolve_undo: None,
            v4: false,
        }
    }

    /// The entries to edit: this copy's own (the shared ones are copied first).
    fn file_mut(&mut self) -> &mut gix::index::File {
        std::sync::Arc::make_mut(&mut self.file)
    }

    /// Before an edit: when the only other holder of these entries is the repository's
    /// cache of the file's version, the cache lets go, so the edit needs no copy (the edited
    /// index is what gets written next; the old version is read again if anyone asks).
    fn release_cached(&self, repo: &Repo) {
        let mut cache = repo.index_cache.borrow_mut();
        let shared = cache
            .as_ref()
            .is_some_and(|(_, c)| std::sync::Arc::ptr_eq(&c.file, &self.file));
        if shared && std::sync::Arc::strong_count(&self.file) == 2 {
            *cache = None;
        }
    }

    /// The stage-0 entry of `path`.
    pub fn entry(&self, path: &BStr) -> Option<Entry> {
        let e = self
            .file
            .entry_by_path_and_stage(path, Stage::Unconflicted)?;
        Some(Entry {
            kind: kind_of(e.mode)?,
            id: e.id,
        })
    }

    /// Every stage-0 entry, sorted by path.
    pub fn entries(&self) -> BTreeMap<BString, Entry> {
        let mut out = BTreeMap::new();
        for e in self.file.entries() {
            if e.stage() != Stage::Unconflicted {
                continue;
            }
            if let Some(kind) = kind_of(e.mode) {
                out.insert(e.path(&self.file).to_owned(), Entry { kind, id: e.id });
            }
        }
        out
    }

    /// Whether `other` holds the same entries: path, mode, object id, stage and the user's
    /// flags. Stat data is left out: a read-only `git status` refreshes it and rewrites the
    /// file without changing what the index says.
    pub fn same_entries(&self, other: &Index) -> bool {
        let key = |i: &Index| -> Vec<_> {
            i.file
                .entries()
                .iter()
                .map(|e| {
                    (
                        e.path(&i.file).to_owned(),
                        e.mode,
                        e.id,
                        e.stage(),
                        EntryFlags::of(e.flags),
                    )
                })
                .collect()
        };
        self.file.entries().len() == other.file.entries().len() && key(self) == key(other)
    }

    /// Paths with unresolved merge conflicts.
    pub fn conflicted_paths(&self) -> Vec<BString> {
        let mut out: Vec<BString> = self
            .file
            .entries()
            .iter()
            .filter(|e| e.stage() != Stage::Unconflicted)
            .map(|e| e.path(&self.file).to_owned())
            .collect();
        out.dedup();
        out
    }

    pub fn len(&self) -> usize {
        self.file.entries().len()
    }

    pub fn is_empty(&self) -> bool {
        self.file.entries().is_empty()
    }

    /// What is wrong with this index's cache-tree extension as read, if anything (see
    /// [`cache_tree_problem`]).
    pub fn cache_tree_problem(&self) -> Option<String> {
        let tree = self.cache_tree.as_ref().or_else(|| self.file.tree())?;
        cache_tree_problem(&self.file, tree)
    }

    /// Drops the cache-tree extension: git rebuilds it at the next commit or `write-tree`.
    pub fn drop_cache_tree(&mut self) {
        self.cache_tree = None;
        self.file_mut().remove_tree();
    }

    /// The root tree id recorded in git's cache-tree extension, when it is complete and valid:
    /// then it is the tree the index holds, known without looking at any entry.
    pub fn valid_cached_tree(&self) -> Option<ObjectId> {
        let tree = self.cache_tree.as_ref().or_else(|| self.file.tree())?;
        tree.num_entries?;
        Some(tree.id)
    }

    /// Records that this index holds exactly `tree` by (re)building git's cache-tree
    /// extension, so git and the next status know it without comparing entries. Subtrees whose
    /// id did not change are reused from the current cache-tree, so only the directories on
    /// changed paths are read (from `reuse`, or this index's own cache-tree).
    pub fn set_cache_tree(
        &mut self,
        repo: &Repo,
        tree: ObjectId,
        reuse: Option<&Index>,
    ) -> Result<()> {
        let old = match reuse {
            // A sparse index's nodes count its directory entries as one: nothing to reuse
            // for an index that holds their files.
            Some(other) if other.has_sparse_dirs() => None,
            Some(other) => other
                .cache_tree
                .clone()
                .or_else(|| other.file.tree().cloned()),
            None => self.cache_tree.take().or_else(|| self.file.tree().cloned()),
        };
        let state: &gix::index::State = &self.file;
        // A sparse index holds a directory outside the cone as one entry naming its tree;
        // git's cache-tree node for it is a leaf counting that one entry.
        let sparse: std::collections::HashSet<&BStr> = state
            .entries()
            .iter()
            .filter(|e| e.mode == Mode::DIR)
            .map(|e| e.path(state))
            .collect();
        let mut prefix = Vec::new();
        let mut built = build_cache_tree(repo, tree, &mut prefix, &sparse, old.as_ref())?;
        self.invalidate_untreed(&mut built);
        self.cache_tree = Some(built);
        Ok(())
    }

    /// Invalidates the nodes of `tree` above every entry git keeps out of trees, as git's
    /// `cache-tree.c` does: an intent-to-add entry (its directories up to the root: a node
    /// whose subtree holds one is never valid), and a conflicted entry (stages 1–3: git
    /// writes no tree for an unmerged path). Without this the counts include entries the
    /// tree lacks, and git believes the cache over the entries: `git status` showed a
    /// tracked file as added and the user's next commit wrote a tree with duplicate entries.
    /// Skip-worktree and assume-unchanged entries are in trees like any other.
    fn invalidate_untreed(&self, tree: &mut CacheTree) {
        let state: &gix::index::State = &self.file;
        for e in state.entries() {
            if e.stage() != Stage::Unconflicted || e.flags.contains(Flags::INTENT_TO_ADD) {
                invalidate_path(tree, e.path(state));
            }
        }
    }

    /// Writes the index file's bytes to `out` as they are made: gix's serialisation of the
    /// entries, our cache-tree when we have one, and the trailing checksum. They pass through
    /// 256 KiB pieces, hashed as each piece leaves, so a 100,000-entry index (~9 MiB) never
    /// sits whole in memory beside the entries. A large index is hashed and written on a
    /// second thread while the next piece is serialised (see [`Pipelined`]).
    fn serialize_into<W: std::io::Write + Send>(&self, out: W) -> std::io::Result<[u8; 20]> {
        self.serialize_with(out, self.len() >= PIPELINE_ENTRIES)
    }

    /// [`Self::serialize_into`], with the pipeline chosen by the caller (the tests take both
    /// ways at any size).
    fn serialize_with<W: std::io::Write + Send>(
        &self,
        out: W,
        pipelined: bool,
    ) -> std::io::Result<[u8; 20]> {
        use sha1::Digest;
        if self.file.object_hash() != gix::hash::Kind::Sha1 {
            return Err(std::io::Error::other(
                "only SHA-1 repositories are supported",
            ));
        }
        let hashing = Hashing {
            inner: out,
            hasher: sha1::Sha1::new(),
        };
        let mut hashing = if pipelined {
            std::thread::scope(|s| {
                let mut pipe = Pipelined::start(s, hashing);
                let written = self.write_body(&mut pipe);
                let finished = pipe.finish();
                // The worker's own error says more than the closed channel `written` met.
                let hashing = finished?;
                written.map(|()| hashing)
            })?
        } else {
            let mut out = std::io::BufWriter::with_capacity(PIECE, hashing);
            self.write_body(&mut out)?;
            out.into_inner().map_err(|e| e.into_error())?
        };
        let digest: [u8; 20] = hashing.hasher.finalize().into();
        hashing.inner.write_all(&digest)?;
        hashing.inner.flush()?;
        Ok(digest)
    }

    /// Everything of the index file but its trailing checksum.
    fn write_body(&self, out: &mut impl std::io::Write) -> std::io::Result<()> {
        let state: &gix::index::State = &self.file;
        let tree = self.cache_tree.as_ref().or_else(|| state.tree());
        let resolve_undo = self.resolve_undo.as_deref();
        super::index_stream::write_entries(state, tree, resolve_undo, self.v4, out)
    }

    /// Sets (or removes) the entries of the given paths; all other entries are untouched.
    /// Stat data is taken from the worktree for paths whose file is known to match.
    pub fn apply(&mut self, repo: &Repo, updates: &[IndexUpdate]) -> Result<()> {
        if updates.is_empty() {
            return Ok(());
        }
        self.release_cached(repo);
        self.expand_sparse_above(repo, updates)?;
        let mut new_entries = Vec::new();
        let mut to_remove = std::collections::HashSet::new();
        // All lookups happen before the first push (see module docs).
        for u in updates {
            let existing = self
                .file
                .entry_index_by_path_and_stage(u.path.as_bstr(), Stage::Unconflicted);
            let stat = match (&u.entry, u.worktree_matches) {
                (Some(_), true) => repo.stat_of(u.path.as_bstr())?,
                _ => Stat::default(),
            };
            match (existing, &u.entry) {
                (Some(idx), Some(entry)) => {
                    let e = &mut self.file_mut().entries_mut()[idx];
                    e.id = entry.id;
                    e.mode = mode_of(entry.kind);
                    e.stat = stat;
                    e.flags.remove(Flags::INTENT_TO_ADD | Flags::SKIP_WORKTREE);
                }
                (Some(idx), None) => {
                    to_remove.insert(idx);
                }
                (None, Some(entry)) => new_entries.push((u.path.clone(), *entry, stat)),
                (None, None) => {}
            }
            // A file replacing a directory (or the reverse) leaves stale entries below or
            // above it; drop them so the index never holds both `a` and `a/b`.
            if u.entry.is_some() {
                let mut prefix = u.path.clone();
                prefix.push(b'/');
                if let Some(range) = self.file.prefixed_entries_range(prefix.as_bstr()) {
                    to_remove.extend(range);
                }
                let mut parent = u.path.as_bstr();
                while let Some(pos) = parent.rfind_byte(b'/') {
                    parent = parent[..pos].as_bstr();
                    if let Some(idx) = self
                        .file
                        .entry_index_by_path_and_stage(parent, Stage::Unconflicted)
                    {
                        to_remove.insert(idx);
                    }
                }
            }
            self.invalidate_cached_tree(u.path.as_bstr());
        }
        if !to_remove.is_empty() {
            self.file_mut()
                .remove_entries(|idx, _, _| to_remove.contains(&idx));
        }
        if new_entries.is_empty() {
            return Ok(());
        }
        for (path, entry, stat) in new_entries {
            self.file_mut().dangerously_push_entry(
                stat,
                entry.id,
                Flags::empty(),
                mode_of(entry.kind),
                path.as_bstr(),
            );
        }
        self.sort_entries();
        Ok(())
    }

    /// In a sparse index, replaces every sparse-directory entry above an updated path with
    /// the files of its tree, each marked skip-worktree (outside the sparse checkout), as
    /// git's `ensure_full_index` does for the directories it must look into; the other
    /// sparse directories stay collapsed. An entry inside a directory the index holds as one
    /// entry would make an index git reads out of order.
    fn expand_sparse_above(&mut self, repo: &Repo, updates: &[IndexUpdate]) -> Result<()> {
        if !self.has_sparse_dirs() {
            return Ok(());
        }
        let mut expand: Vec<(usize, BString, ObjectId)> = Vec::new();
        for u in updates {
            let mut end = 0;
            while let Some(pos) = u.path[end..].find_byte(b'/') {
                end += pos + 1;
                let dir = u.path[..end].as_bstr();
                if let Some(idx) = self
                    .file
                    .entry_index_by_path_and_stage(dir, Stage::Unconflicted)
                {
                    let e = &self.file.entries()[idx];
                    if e.mode == Mode::DIR && !expand.iter().any(|(i, ..)| *i == idx) {
                        expand.push((idx, dir.to_owned(), e.id));
                    }
                }
            }
        }
        self.expand_sparse(repo, expand)
    }

    /// Whether the index holds sparse-directory entries (as read, or restored here).
    fn has_sparse_dirs(&self) -> bool {
        self.file.is_sparse() || self.file.entries().iter().any(|e| e.mode == Mode::DIR)
    }

    /// This index with every sparse-directory entry replaced by the files of its tree (git's
    /// `ensure_full_index`), for what cannot look at a directory entry (gix's comparison
    /// with a tree refuses a sparse index). A copy; the index written keeps its sparse
    /// directories.
    pub(crate) fn expanded(&self, repo: &Repo) -> Result<Index> {
        if !self.has_sparse_dirs() {
            return Ok(self.clone());
        }
        let old: &gix::index::State = &self.file;
        // A new state: gix marks an index sparse only while decoding one.
        let mut state = gix::index::State::new(old.object_hash());
        state.set_timestamp(old.timestamp());
        for e in old.entries() {
            let path = e.path(old);
            if e.mode != Mode::DIR {
                state.dangerously_push_entry(e.stat, e.id, e.flags, e.mode, path);
                continue;
            }
            let prefix = &path[..path.len() - 1];
            for (file, entry) in repo.tree_files(e.id)? {
                let mut full = BString::from(prefix);
                full.push(b'/');
                full.extend_from_slice(&file);
                state.dangerously_push_entry(
                    Stat::default(),
                    entry.id,
                    Flags::SKIP_WORKTREE | Flags::EXTENDED,
                    mode_of(entry.kind),
                    full.as_bstr(),
                );
            }
        }
        let mut full = Index {
            file: std::sync::Arc::new(gix::index::File::from_state(state, self.file.path())),
            cache_tree: None,
            resolve_undo: self.resolve_undo.clone(),
            v4: self.v4,
        };
        full.sort_entries();
        Ok(full)
    }

    /// Replaces the sparse-directory entries `expand` (index, path with its `/`, tree) with
    /// the files of their trees, marked skip-worktree.
    fn expand_sparse(
        &mut self,
        repo: &Repo,
        expand: Vec<(usize, BString, ObjectId)>,
    ) -> Result<()> {
        if expand.is_empty() {
            return Ok(());
        }
        let mut files = Vec::new();
        for (_, dir, tree) in &expand {
            let prefix = &dir[..dir.len() - 1];
            for (path, entry) in repo.tree_files(*tree)? {
                let mut full = BString::from(prefix);
                full.push(b'/');
                full.extend_from_slice(&path);
                files.push((full, entry));
            }
        }
        let gone: std::collections::HashSet<usize> = expand.iter().map(|(i, ..)| *i).collect();
        self.file_mut()
            .remove_entries(|idx, _, _| gone.contains(&idx));
        for (path, entry) in files {
            self.file_mut().dangerously_push_entry(
                Stat::default(),
                entry.id,
                Flags::SKIP_WORKTREE | Flags::EXTENDED,
                mode_of(entry.kind),
                path.as_bstr(),
            );
        }
        self.sort_entries();
        for (_, dir, _) in &expand {
            self.invalidate_cached_tree(dir.as_bstr());
        }
        Ok(())
    }

    /// Sorts the entries in git's order, in place: gix's sort is stable and takes a scratch
    /// copy of every entry (8 MB at 100,000 entries, the largest allocation of an apply);
    /// (path, stage) is unique, so stability does not matter.
    fn sort_entries(&mut self) {
        let (entries, paths) = self.file_mut().entries_mut_and_pathbacking();
        entries.sort_unstable_by(|a, b| {
            gix::index::Entry::cmp_filepaths(a.path_in(paths), b.path_in(paths))
                .then_with(|| a.stage().cmp(&b.stage()))
        });
    }

    /// Marks the cache-tree nodes on `path`'s directories as invalid, as git does for every
    /// changed path, so the rest of the cache stays valid for git's next `write-tree`.
    fn invalidate_cached_tree(&mut self, path: &BStr) {
        if let Some(tree) = self.cache_tree.as_mut() {
            invalidate_path(tree, path);
        }
        if let Some(tree) = self.file_mut().tree_mut() {
            invalidate_path(tree, path);
        }
    }

    /// Copies stat data from `old` for every entry whose path, id and mode are unchanged, so
    /// files that did not change are not re-read by git (what `git reset` does).
    ///
    /// The stat data is only as good as `old`'s timestamp: a file changed in the same second
    /// as `old` was written, to the same size, has the stat data of its old content ("racily
    /// clean"), and only an entry no older than the index's timestamp is re-read. So the
    /// earlier of the two timestamps is kept; an index built from a tree has "now", which
    /// would hide such a change (recovery of an interrupted apply then missed a same-size
    /// change exec made).
    pub fn carry_stat_from(&mut self, old: &Index) {
        if old.file.timestamp() < self.file.timestamp() {
            let stamp = old.file.timestamp();
            self.file_mut().set_timestamp(stamp);
        }
        let old_entries = old.file.entries();
        let mut j = 0;
        let (entries, backing) = self.file_mut().entries_mut_and_pathbacking();
        for e in entries.iter_mut() {
            let path = e.path_in(backing);
            while j < old_entries.len()
                && gix::index::Entry::cmp_filepaths(old_entries[j].path(&old.file), path).is_lt()
            {
                j += 1;
            }
            if let Some(o) = old_entries.get(j) {
                if o.path(&old.file) == path
                    && o.id == e.id
                    && o.mode == e.mode
                    && o.stage() == e.stage()
                {
                    e.stat = o.stat;
                }
            }
        }
    }

    /// The user's flags on the stage-0 entry of `path` (`None` when it has no entry).
    pub fn flags_of(&self, path: &BStr) -> Option<EntryFlags> {
        if let Some(e) = self.file.entry_by_path_and_stage(path, Stage::Unconflicted) {
            return Some(EntryFlags::of(e.flags));
        }
        // Inside a sparse directory of a sparse index: the directory entry's flags.
        let mut end = 0;
        while let Some(pos) = path[end..].find_byte(b'/') {
            end += pos + 1;
            if let Some(e) = self
                .file
                .entry_by_path_and_stage(path[..end].as_bstr(), Stage::Unconflicted)
                .filter(|e| e.mode == Mode::DIR)
            {
                return Some(EntryFlags::of(e.flags));
            }
        }
        None
    }

    /// Every stage-0 entry with a user flag set, sorted by path.
    pub fn flagged(&self) -> Vec<(BString, EntryFlags)> {
        self.file
            .entries()
            .iter()
            .filter(|e| e.stage() == Stage::Unconflicted)
            .filter_map(|e| {
                let f = EntryFlags::of(e.flags);
                (!f.is_empty()).then(|| (e.path(&self.file).to_owned(), f))
            })
            .collect()
    }

    /// Sets the user's flags of the given paths: on an existing entry the bits are set or
    /// cleared (intent-to-add only on an entry of the empty blob, which is what such an
    /// entry holds); a path without an entry gets an intent-to-add entry when `flags` say so
    /// and its worktree file exists (a file deleted since has nothing to intend to add).
    pub fn set_flags(&mut self, repo: &Repo, flags: &[(BString, EntryFlags)]) -> Result<()> {
        self.release_cached(repo);
        let empty_blob = ObjectId::empty_blob(self.file.object_hash());
        let mut added = Vec::new();
        for (path, f) in flags {
            if path.ends_with(b"/") {
                // A sparse directory of a sparse index: its flag is its files' flag, where an
                // index built from a tree holds them one by one.
                self.set_dir_flags(repo, path.as_bstr(), *f);
                continue;
            }
            match self
                .file
                .entry_index_by_path_and_stage(path.as_bstr(), Stage::Unconflicted)
            {
                Some(idx) => {
                    let e = &mut self.file_mut().entries_mut()[idx];
                    e.flags.set(Flags::SKIP_WORKTREE, f.skip_worktree);
                    e.flags.set(Flags::ASSUME_VALID, f.assume_unchanged);
                    e.flags
                        .set(Flags::INTENT_TO_ADD, f.intent_to_add && e.id == empty_blob);
                    if e.flags
                        .intersects(Flags::SKIP_WORKTREE | Flags::INTENT_TO_ADD)
                    {
                        e.flags.insert(Flags::EXTENDED);
                    }
                }
                None if f.intent_to_add => {
                    let Some(md) = repo.worktree_metadata(path.as_bstr())? else {
                        continue;
                    };
                    let mode = if md.is_symlink() {
                        Mode::SYMLINK
                    } else if !md.is_file() {
                        continue;
                    } else if md.is_executable() {
                        Mode::FILE_EXECUTABLE
                    } else {
                        Mode::FILE
                    };
                    added.push((path.clone(), mode));
                }
                None => {}
            }
        }
        if added.is_empty() {
            return Ok(());
        }
        // git keeps intent-to-add entries out of trees and invalidates the cache-tree above
        // them (to the root).
        repo.write_blob(b"")?;
        for (path, _) in &added {
            self.invalidate_cached_tree(path.as_bstr());
        }
        for (path, mode) in added {
            self.file_mut().dangerously_push_entry(
                Stat::default(),
                empty_blob,
                Flags::INTENT_TO_ADD | Flags::EXTENDED,
                mode,
                path.as_bstr(),
            );
        }
        self.sort_entries();
        Ok(())
    }

    /// Sets the skip-worktree and assume-unchanged bits of the directory entry `dir` (with
    /// its `/`, an entry of a sparse index). Where the index holds the directory's files
    /// instead (it was rebuilt from a tree), those absent from the worktree get the bits —
    /// a present file is an ordinary tracked file to git (`clear_skip_worktree_from_present_
    /// files`) — and when all are absent (and none conflicted or intent-to-add, and the
    /// cache-tree names the directory's tree) they become that one entry again: git expects
    /// a sparse index to stay sparse, and git 2.47 misreads a full index with an
    /// intent-to-add entry under `index.sparse` (`git ls-files` shows every entry as the
    /// first one).
    fn set_dir_flags(&mut self, repo: &Repo, dir: &BStr, f: EntryFlags) {
        let range = match self
            .file
            .entry_index_by_path_and_stage(dir, Stage::Unconflicted)
        {
            Some(idx) => idx..idx + 1,
            None => match self.file.prefixed_entries_range(dir) {
                Some(range) => range,
                None => return,
            },
        };
        let mut present = Vec::new();
        let mut collapsible = f.skip_worktree && !f.assume_unchanged;
        for e in &self.file.entries()[range.clone()] {
            let path = e.path(&self.file);
            // A path the system cannot name from the root (longer than its limit) counts as
            // absent: skip-worktree, as recorded.
            let here =
                e.mode != Mode::DIR && repo.worktree_metadata(path).is_ok_and(|m| m.is_some());
            present.push(here);
            collapsible &= !here
                && e.stage() == Stage::Unconflicted
                && !e.flags.contains(Flags::INTENT_TO_ADD)
                && e.mode != Mode::DIR;
        }
        let tree = match (collapsible, self.cache_tree.as_mut()) {
            (true, Some(root)) => collapse_node(root, dir, range.len() as u32),
            _ => None,
        };
        if let Some(id) = tree {
            self.file_mut()
                .remove_entries(|idx, _, _| range.contains(&idx));
            self.file_mut().dangerously_push_entry(
                Stat::default(),
                id,
                Flags::SKIP_WORKTREE | Flags::EXTENDED,
                Mode::DIR,
                dir,
            );
            self.sort_entries();
            return;
        }
        for (e, here) in self.file_mut().entries_mut()[range].iter_mut().zip(present) {
            let skip = f.skip_worktree && !here;
            e.flags.set(Flags::SKIP_WORKTREE, skip);
            e.flags.set(Flags::ASSUME_VALID, f.assume_unchanged);
            if skip {
                e.flags.insert(Flags::EXTENDED);
            }
        }
    }

    /// Refreshes the stat data of `paths` from the worktree (files just written there).
    pub fn refresh_stat(&mut self, repo: &Repo, paths: &[BString]) -> Result<()> {
        self.release_cached(repo);
        for p in paths {
            if let Some(idx) = self
                .file
                .entry_index_by_path_and_stage(p.as_bstr(), Stage::Unconflicted)
            {
                let stat = repo.stat_of(p.as_bstr())?;
                self.file_mut().entries_mut()[idx].stat = stat;
            }
        }
        Ok(())
    }

    /// Writes this index as a standalone file (for hooks run against a temporary index).
    pub fn write_to_path(&self, path: &std::path::Path) -> Result<()> {
        let file = std::fs::File::create(path).map_err(io_err("cannot write", path))?;
        self.serialize_into(&file)
            .map_err(io_err("cannot write", path))?;
        Ok(())
    }
}

/// Reads the index file at `path` (an empty index if there is none yet), with the identity
/// of the version read (from the open file, so it names exactly what was read). Versions 2
/// to 4 are decoded as they are read, in pieces (see `index_stream`); anything else is read
/// whole and decoded by gix, its checksum verified on a second thread meanwhile.
pub(crate) fn read_index_file(
    path: PathBuf,
    hash: gix::hash::Kind,
) -> Result<(Index, Option<IndexStamp>)> {
    let (decoded, stamp) = match std::fs::File::open(&path) {
        Ok(f) => {
            let (decoded, stamp) = read_open_index(f, hash, &path)?;
            (decoded, Some(stamp))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => (
            Decoded {
                state: gix::index::State::new(hash),
                tree: None,
                resolve_undo: None,
                v4: false,
            },
            None,
        ),
        Err(e) => return Err(io_err("cannot read the index", &path)(e)),
    };
    Ok((Index::from_decoded(decoded, path), stamp))
}

impl Index {
    /// The index `decoded` holds, as the file at `path`.
    pub(super) fn from_decoded(decoded: Decoded, path: PathBuf) -> Index {
        Index {
            file: std::sync::Arc::new(gix::index::File::from_state(decoded.state, path)),
            cache_tree: decoded.tree,
            resolve_undo: decoded.resolve_undo.map(Into::into),
            v4: decoded.v4,
        }
    }
}

/// The entries and kept extensions of the index file open as `f`, and its identity.
pub(super) fn read_open_index(
    mut f: std::fs::File,
    hash: gix::hash::Kind,
    path: &std::path::Path,
) -> Result<(Decoded, IndexStamp)> {
    let md = f
        .metadata()
        .map_err(io_err("cannot read the index", path))?;
    let mtime = filetime::FileTime::from_last_modification_time(&md);
    let stamp = IndexStamp::from_metadata(&md);
    if hash == gix::hash::Kind::Sha1 {
        let trusted = checked_trailer(path, &stamp, &f);
        if let super::index_stream::Streamed::Read(decoded) =
            super::index_stream::read(&mut f, md.len(), mtime, path, trusted)?
        {
            return Ok((*decoded, stamp));
        }
        use std::io::Seek;
        f.rewind().map_err(io_err("cannot read the index", path))?;
    }
    Ok((read_whole(f, &md, mtime, hash, path)?, stamp))
}

/// Where git-clada records the identity and checksum of the index file it wrote last:
/// `clada/index-checked` in the git dir, for the git dir's own `index` only.
fn checked_record_path(index: &std::path::Path) -> Option<PathBuf> {
    if index.file_name()? != "index" {
        return None;
    }
    Some(index.parent()?.join("clada").join("index-checked"))
}

/// The identity of one version of the index file, as the checked record stores it.
fn stamp_bytes(stamp: &IndexStamp) -> Vec<u8> {
    let IndexStamp {
        dev,
        ino,
        len,
        mtime,
        ctime,
    } = *stamp;
    [dev, ino, len]
        .into_iter()
        .chain([mtime.0, mtime.1, ctime.0, ctime.1].map(|t| t as u64))
        .flat_map(u64::to_le_bytes)
        .collect()
}

/// Records that the index file just renamed into place at `index` (still open as `file`)
/// is one git-clada wrote, with checksum `digest`. Only a hint for the next read (see
/// [`checked_trailer`]): a record that cannot be written, or is torn, makes that read check
/// the file in full, so failures are ignored. Nothing is created but the record itself.
fn record_checked(index: &std::path::Path, file: &std::fs::File, digest: [u8; 20]) {
    let (Some(record), Ok(md)) = (checked_record_path(index), file.metadata()) else {
        return;
    };
    let mut bytes = digest.to_vec();
    bytes.extend_from_slice(&stamp_bytes(&IndexStamp::from_metadata(&md)));
    // Written over the previous record, which has the same length, without truncating the
    // file first: on ext4 a truncate frees and journals the block (~0.14 ms, as measured for
    // `clada.lock`).
    use std::os::unix::fs::FileExt;
    if let Ok(f) = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(false)
        .open(record)
    {
        // Only a longer leftover (another version's record) needs cutting.
        if f.write_all_at(&bytes, 0).is_ok()
            && f.metadata().is_ok_and(|m| m.len() > bytes.len() as u64)
        {
            let _ = f.set_len(bytes.len() as u64);
        }
    }
}

/// The checksum of the index file open as `f` (whose identity is `stamp`), if it is the very
/// file git-clada wrote last — its identity is the recorded one and it still ends with the
/// recorded checksum. Its bytes were hashed as they were written, so they are not hashed
/// again on the way in; any other index (written by git or another tool, or changed in any
/// way its identity shows) has its checksum verified in full. Like git, which never verifies
/// on reads, this trusts the disk to keep what was written.
fn checked_trailer(
    path: &std::path::Path,
    stamp: &IndexStamp,
    f: &std::fs::File,
) -> Option<[u8; 20]> {
    use std::os::unix::fs::FileExt;
    let record = std::fs::read(checked_record_path(path)?).ok()?;
    if record.len() <= 20 || record[20..] != stamp_bytes(stamp) {
        return None;
    }
    let mut tail = [0u8; 20];
    f.read_exact_at(&mut tail, stamp.len.checked_sub(20)?)
        .ok()?;
    (tail[..] == record[..20] && tail != [0; 20]).then_some(tail)
}

/// The index file decoded by gix from its bytes read whole, the checksum verified on a
/// second thread while the entries are decoded.
fn read_whole(
    mut f: std::fs::File,
    md: &std::fs::Metadata,
    mtime: filetime::FileTime,
    hash: gix::hash::Kind,
    path: &std::path::Path,
) -> Result<Decoded> {
    let mut data = Vec::with_capacity(md.len() as usize + 1);
    {
        use std::io::Read;
        f.read_to_end(&mut data)
            .map_err(io_err("cannot read the index", path))?;
    }
    let (checked, decoded) = std::thread::scope(|s| {
        let check = s.spawn(|| verify_checksum(&data, path));
        let decoded = gix::index::State::from_bytes(
            &data,
            mtime,
            hash,
            gix::index::decode::Options::default(),
        );
        let checked = check.join().unwrap_or_else(|_| {
            Err(RepoError::Invalid(
                "checking the index stopped unexpectedly".into(),
            ))
        });
        (checked, decoded)
    });
    checked?;
    let what = || format!("cannot read the index '{}'", path.display());
    // gix decodes a split index (and, unlike the streamed reader, misplaces the entry after a
    // path of 4 KiB or more): say how to turn it back into one file git-clada reads itself.
    let split = || {
        format!(
            "{}; it is a split index (core.splitIndex): `git config core.splitIndex false && git update-index --no-split-index` makes it one file",
            what()
        )
    };
    let split_index = data
        .windows(8)
        .any(|w| w.starts_with(b"link") && u32::from_be_bytes([w[4], w[5], w[6], w[7]]) >= 20);
    let (mut state, _) = match decoded {
        Err(_) if split_index => return Err(RepoError::Invalid(split())),
        decoded => decoded.ctx(what())?,
    };
    if state.link().is_some() {
        // A split index: most entries are in the shared index it names, which gix merges
        // in when it opens the file itself. Written back whole; git splits it again.
        let file = gix::index::File::at(path, hash, false, Default::default())
            .map_err(|_| RepoError::Invalid(split()))?;
        state = file.into();
    }
    let v4 = data.get(4..8) == Some(&4u32.to_be_bytes()[..]);
    Ok(Decoded {
        tree: state.remove_tree(),
        resolve_undo: super::index_stream::raw_extension(&data, super::index_stream::REUC),
        state,
        v4,
    })
}

/// Checks the index file's trailing SHA-1 (all zeroes means `index.skipHash`: nothing to check).
fn verify_checksum(data: &[u8], path: &std::path::Path) -> Result<()> {
    use sha1::Digest;
    if data.len() < 32 {
        return Err(super::index_stream::truncated(path));
    }
    let (body, trailer) = data.split_at(data.len() - 20);
    if trailer.iter().all(|b| *b == 0) {
        return Ok(());
    }
    if sha1::Sha1::digest(body).as_slice() != trailer {
        return Err(super::index_stream::corrupt(path));
    }
    Ok(())
}

/// Turns the valid cache-tree node of directory `dir` (with its `/`), which counts `files`
/// entries, into the leaf of one sparse-directory entry, as git counts it, and returns its
/// tree id; the counts of the valid nodes above it shrink by as much. `None` (and nothing
/// changed) when the node is missing or not valid.
fn collapse_node(root: &mut CacheTree, dir: &BStr, files: u32) -> Option<ObjectId> {
    let components: Vec<&[u8]> = dir[..dir.len().checked_sub(1)?]
        .split(|b| *b == b'/')
        .collect();
    let mut node: &CacheTree = root;
    for comp in &components {
        node = node.children.iter().find(|c| c.name.as_slice() == *comp)?;
    }
    if node.num_entries != Some(files) {
        return None;
    }
    let id = node.id;
    let shrink = files - 1;
    let mut node: &mut CacheTree = root;
    for comp in &components {
        node.num_entries = node.num_entries.map(|n| n - shrink);
        node = node
            .children
            .iter_mut()
            .find(|c| c.name.as_slice() == *comp)?;
    }
    node.num_entries = Some(1);
    node.children.clear();
    Some(id)
}

/// Marks `tree`'s nodes on `path`'s directories (the root included) as invalid.
fn invalidate_path(tree: &mut CacheTree, path: &BStr) {
    let mut node = tree;
    node.num_entries = None;
    let mut components: Vec<&[u8]> = path.split(|b| *b == b'/').collect();
    components.pop();
    for comp in components {
        match node.children.iter_mut().find(|c| c.name.as_slice() == comp) {
            Some(child) => {
                child.num_entries = None;
                node = child;
            }
            None => break,
        }
    }
}

/// Builds the cache-tree node for `id` at `path` (its directory path with a trailing `/`,
/// empty for the root), reusing `old` where the ids match. A directory in `sparse` (a
/// sparse-directory entry of the index) is a leaf of one entry, as git counts it. git orders
/// subtrees by name length, then bytes.
fn build_cache_tree(
    repo: &Repo,
    id: ObjectId,
    path: &mut Vec<u8>,
    sparse: &std::collections::HashSet<&BStr>,
    old: Option<&CacheTree>,
) -> Result<CacheTree> {
    let name = match path.len() {
        0 => &[][..],
        n => {
            let dir = &path[..n - 1];
            &dir[dir.rfind_byte(b'/').map_or(0, |i| i + 1)..]
        }
    };
    if sparse.contains(path.as_bstr()) {
        return Ok(CacheTree {
            name: name.into(),
            id,
            num_entries: Some(1),
            children: Vec::new(),
        });
    }
    if let Some(o) = old {
        // A sparse index's leaves were counted differently: reuse only without one.
        if o.num_entries.is_some() && o.id == id && sparse.is_empty() {
            let mut reused = o.clone();
            reused.name = name.into();
            return Ok(reused);
        }
    }
    let name: Vec<u8> = name.to_vec();
    let data = repo.tree_data(id)?;
    let decoded = gix::objs::TreeRef::from_bytes(&data, repo.repo.object_hash())
        .with_ctx(|| format!("cannot decode tree {id}"))?;
    let mut files = 0u32;
    let mut subtrees: Vec<(Vec<u8>, ObjectId)> = Vec::new();
    for e in &decoded.entries {
        if e.mode.is_tree() {
            subtrees.push((e.filename.to_vec(), e.oid.to_owned()));
        } else {
            files += 1;
        }
    }
    let mut children = Vec::with_capacity(subtrees.len());
    for (child_name, child_id) in subtrees {
        let old_child = old.and_then(|o| {
            o.children
                .iter()
                .find(|c| c.name.as_slice() == child_name.as_slice())
        });
        let len = path.len();
        path.extend_from_slice(&child_name);
        path.push(b'/');
        let child = build_cache_tree(repo, child_id, path, sparse, old_child);
        path.truncate(len);
        children.push(child?);
    }
    children.sort_by(|a, b| {
        a.name
            .len()
            .cmp(&b.name.len())
            .then_with(|| a.name.cmp(&b.name))
    });
    let total = files
        + children
            .iter()
            .map(|c| c.num_entries.unwrap_or(0))
            .sum::<u32>();
    Ok(CacheTree {
        name: name.into(),
        id,
        num_entries: Some(total),
        children,
    })
}

pub(crate) fn mode_of(kind: EntryKind) -> Mode {
    match kind {
        EntryKind::Blob => Mode::FILE,
        EntryKind::Executable => Mode::FILE_EXECUTABLE,
        EntryKind::Link => Mode::SYMLINK,
        EntryKind::Commit => Mode::COMMIT,
        EntryKind::Tree => Mode::DIR,
    }
}

pub(crate) fn kind_of(mode: Mode) -> Option<EntryKind> {
    Some(match mode {
        m if m == Mode::FILE => EntryKind::Blob,
        m if m == Mode::FILE_EXECUTABLE => EntryKind::Executable,
        m if m == Mode::SYMLINK => EntryKind::Link,
        m if m == Mode::COMMIT => EntryKind::Commit,
        _ => return None,
    })
}

/// The pieces the index file is written in (and hashed in) on one thread.
const PIECE: usize = 256 << 10;

/// The pieces handed across threads: smaller, since up to four are alive at once.
const PIPE_PIECE: usize = 128 << 10;

/// From this many entries (~2.8 MiB of index) the index is hashed and written on a second
/// thread. Measured here: at 100,000 entries it saves ~3.7 ms of a 33 ms undo; at 10,000 it
/// cost 0.2 ms (handing four pieces across threads costs more than the overlap saves).
const PIPELINE_ENTRIES: usize = 32_000;

/// A writer that hands full pieces to a second thread, which hashes and writes them while
/// this one serialises the next: serialising, hashing and writing a 100,000-entry index each
/// take a few milliseconds, and on one thread they add up. One piece waits while the worker
/// hashes another, and their buffers come back to be reused: with the one being filled, the
/// pieces hold at most 4 x 128 KiB.
struct Pipelined<'scope, W> {
    piece: Vec<u8>,
    full: Option<std::sync::mpsc::SyncSender<Vec<u8>>>,
    empty: std::sync::mpsc::Receiver<Vec<u8>>,
    worker: std::thread::ScopedJoinHandle<'scope, std::io::Result<Hashing<W>>>,
}

impl<'scope, W: std::io::Write + Send + 'scope> Pipelined<'scope, W> {
    fn start<'env>(
        scope: &'scope std::thread::Scope<'scope, 'env>,
        mut hashing: Hashing<W>,
    ) -> Self {
        let (full, pieces) = std::sync::mpsc::sync_channel::<Vec<u8>>(1);
        let (give_back, empty) = std::sync::mpsc::channel::<Vec<u8>>();
        let worker = scope.spawn(move || {
            use std::io::Write;
            for mut piece in pieces {
                hashing.write_all(&piece)?;
                piece.clear();
                // The serialising side may have finished already; the piece is just freed.
                let _ = give_back.send(piece);
            }
            Ok(hashing)
        });
        Pipelined {
            piece: Vec::with_capacity(PIPE_PIECE),
            full: Some(full),
            empty,
            worker,
        }
    }

    /// Hands the current piece to the worker and starts the next in a returned buffer.
    fn hand_over(&mut self) -> std::io::Result<()> {
        let next = self
            .empty
            .try_recv()
            .unwrap_or_else(|_| Vec::with_capacity(PIPE_PIECE));
        let piece = std::mem::replace(&mut self.piece, next);
        let sent = self.full.as_ref().map(|f| f.send(piece));
        match sent {
            Some(Ok(())) => Ok(()),
            _ => Err(std::io::Error::other("the index writer stopped")),
        }
    }

    /// Sends what is left and waits for the worker: the hashing writer, everything written.
    fn finish(mut self) -> std::io::Result<Hashing<W>> {
        let last = if self.piece.is_empty() {
            Ok(())
        } else {
            self.hand_over()
        };
        self.full = None;
        let hashing = self
            .worker
            .join()
            .map_err(|_| std::io::Error::other("the index writer stopped unexpectedly"))??;
        last.map(|()| hashing)
    }
}

impl<'scope, W: std::io::Write + Send + 'scope> std::io::Write for Pipelined<'scope, W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        // Handed over before it would overflow: a piece never grows past its capacity.
        if !self.piece.is_empty() && self.piece.len() + buf.len() > PIPE_PIECE {
            self.hand_over()?;
        }
        self.piece.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A writer that hashes what passes through it (the index file's trailing checksum).
struct Hashing<W> {
    inner: W,
    hasher: sha1::Sha1,
}

impl<W: std::io::Write> std::io::Write for Hashing<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        use sha1::Digest;
        let n = self.inner.write(buf)?;
        self.hasher.update(&buf[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An index of `n` entries in folders of 100, every entry a different object id.
    fn index_of(n: usize) -> Index {
        let mut state = gix::index::State::new(gix::hash::Kind::Sha1);
        for i in 0..n {
            let mut id = [0u8; 20];
            id[..8].copy_from_slice(&(i as u64).to_be_bytes());
            state.dangerously_push_entry(
                gix::index::entry::Stat {
                    size: i as u32,
                    ..Default::default()
                },
                ObjectId::from_bytes_or_panic(&id),
                Flags::empty(),
                gix::index::entry::Mode::FILE,
                format!("d{:04}/f{i:06}.rs", i / 100).as_str().into(),
            );
        }
        state.sort_entries();
        Index {
            file: std::sync::Arc::new(gix::index::File::from_state(state, PathBuf::from("index"))),
            cache_tree: None,
            resolve_undo: None,
            v4: false,
        }
    }

    #[test]
    fn only_the_index_git_clada_wrote_itself_is_read_back_without_hashing() {
        let dir = tempfile::tempdir().unwrap();
        let repo = Repo::init(dir.path()).unwrap();
        std::fs::create_dir_all(repo.git_dir().join("clada")).unwrap();
        let index = index_of(2_000);
        let lock = repo.lock_index().unwrap();
        lock.commit(&index).unwrap();
        let path = repo.git_dir().join("index");
        let record_path = repo.git_dir().join("clada").join("index-checked");
        let record = std::fs::read(&record_path).expect("the write is recorded");
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(record[..20], bytes[bytes.len() - 20..], "with its checksum");
        let stamp = IndexStamp::of(&path).unwrap();
        assert_eq!(record[20..], stamp_bytes(&stamp), "{stamp:?}");
        let open = || std::fs::File::open(&path).unwrap();
        assert_eq!(
            checked_trailer(&path, &stamp, &open()).map(|t| t.to_vec()),
            Some(bytes[bytes.len() - 20..].to_vec())
        );
        let (back, _) = read_index_file(path.clone(), gix::hash::Kind::Sha1).unwrap();
        assert_eq!(back.len(), 2_000);

        // The same bytes written by anyone else (another inode, other times): checked in
        // full, so a flipped bit is refused.
        let mut damaged = bytes.clone();
        damaged[500] ^= 1;
        std::fs::write(&path, &damaged).unwrap();
        let stamp = IndexStamp::of(&path).unwrap();
        assert_eq!(checked_trailer(&path, &stamp, &open()), None);
        let err = read_index_file(path.clone(), gix::hash::Kind::Sha1)
            .err()
            .expect("refused");
        assert!(err.to_string().contains("bad checksum"), "{err}");

        // A record naming this very file but another checksum: checked in full too.
        let mut forged = vec![7u8; 20];
        forged.extend_from_slice(&stamp_bytes(&stamp));
        std::fs::write(&record_path, &forged).unwrap();
        assert_eq!(checked_trailer(&path, &stamp, &open()), None);
        assert!(read_index_file(path.clone(), gix::hash::Kind::Sha1).is_err());

        // A record naming this file and its checksum is what skips the hashing: with it,
        // the damaged body is read as it stands, as git itself reads every index.
        let mut trusted = damaged[damaged.len() - 20..].to_vec();
        trusted.extend_from_slice(&stamp_bytes(&stamp));
        std::fs::write(&record_path, &trusted).unwrap();
        assert!(checked_trailer(&path, &stamp, &open()).is_some());
        assert!(read_index_file(path.clone(), gix::hash::Kind::Sha1).is_ok());

        // A longer leftover record is cut to this one by the next write.
        std::fs::write(&record_path, vec![1u8; 200]).unwrap();
        let lock = repo.lock_index().unwrap();
        lock.commit(&index).unwrap();
        let stamp = IndexStamp::of(&path).unwrap();
        assert!(checked_trailer(&path, &stamp, &open()).is_some());
        let bytes = std::fs::read(&path).unwrap();
        let mut trusted = bytes[bytes.len() - 20..].to_vec();
        trusted.extend_from_slice(&stamp_bytes(&stamp));
        assert_eq!(std::fs::read(&record_path).unwrap(), trusted);

        // Torn or missing record, or an index not at the git dir's `index`: no trust.
        std::fs::write(&record_path, &trusted[..30]).unwrap();
        assert_eq!(checked_trailer(&path, &stamp, &open()), None);
        std::fs::remove_file(&record_path).unwrap();
        assert_eq!(checked_trailer(&path, &stamp, &open()), None);
        assert_eq!(checked_record_path(&dir.path().join("other.index")), None);
    }

    /// A writer that fails once `left` bytes have been written.
    struct Failing {
        left: usize,
    }

    impl std::io::Write for Failing {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            if buf.len() > self.left {
                return Err(std::io::Error::other("disk full"));
            }
            self.left -= buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn the_pipelined_index_is_byte_for_byte_the_one_written_on_one_thread() {
        for n in [0, 1, 1_500, 40_000] {
            let index = index_of(n);
            let (mut one, mut two) = (Vec::new(), Vec::new());
            index.serialize_with(&mut one, false).unwrap();
            index.serialize_with(&mut two, true).unwrap();
            assert_eq!(one.len(), two.len(), "{n} entries");
            assert!(one == two, "{n} entries: the bytes differ");
            verify_checksum(&two, std::path::Path::new("index")).unwrap();
            let back = gix::index::State::from_bytes(
                &two,
                filetime::FileTime::zero(),
                gix::hash::Kind::Sha1,
                Default::default(),
            )
            .unwrap()
            .0;
            assert_eq!(back.entries().len(), n);
        }
    }

    #[test]
    fn a_failing_write_is_an_error_either_way_never_a_hang() {
        let index = index_of(40_000);
        for pipelined in [false, true] {
            let err = index
                .serialize_with(Failing { left: 300 << 10 }, pipelined)
                .unwrap_err();
            assert!(err.to_string().contains("disk full"), "{pipelined}: {err}");
        }
    }
}
