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

mod cache_tree;
mod flags;
mod read;
mod write;
pub(crate) use cache_tree::*;
pub(crate) use read::*;
use write::*;

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
    /// A long-lived process's memory, and the index [`Self::write`] wrote, with the lock
    /// file's timestamp: remembered as the index once it is in place.
    memory: Option<(IndexMemory, Option<Index>)>,
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
    /// The index's timestamp where it is not `file`'s own (see [`Index::timestamp`]): kept
    /// beside the shared entries so that setting it does not copy them.
    mtime: Option<filetime::FileTime>,
    /// Which scanned version these entries are, and what changed since (see [`Origin`]).
    pub(crate) origin: Option<Origin>,
}

/// Where an index's entries come from, for a long-lived process's stat pass
/// (`worktree_scan`): the index it scanned, numbered `id`, with the entries at the paths of
/// `edited` set since. Every other entry is as it was in that index, so the stat pass's
/// verdict on it still holds unless the worktree changed. Any edit of the entries not made
/// through [`Index::apply`] or [`Index::refresh_stat`] drops this (see `Index::file_mut`), so
/// an origin never claims more than is known.
#[derive(Clone, Debug)]
pub(crate) struct Origin {
    pub(crate) id: u64,
    pub(crate) edited: Vec<BString>,
}

impl Origin {
    /// A number for a new scanned version, unique in this process.
    pub(crate) fn next_id() -> u64 {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    }
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

/// A long-lived process's memory of the index file it wrote last: the index serialized into
/// it, with the identity the file had once in place (see [`IndexLock::rename`]). The
/// next read of an index file with that identity is this (git replaces the index by a
/// rename, so any write of it is a new file). Cloning shares the memory.
#[derive(Clone, Default)]
pub(crate) struct IndexMemory(std::sync::Arc<std::sync::Mutex<Option<(IndexStamp, Index)>>>);

impl IndexMemory {
    fn remember(&self, stamp: IndexStamp, index: Index) {
        if let Ok(mut slot) = self.0.lock() {
            *slot = Some((stamp, index));
        }
    }

    /// The index file at `path` when it is still the one remembered.
    pub(crate) fn index_at(&self, path: &std::path::Path) -> Option<(Index, IndexStamp)> {
        let now = IndexStamp::of(path)?;
        let slot = self.0.lock().ok()?;
        match &*slot {
            Some((stamp, index)) if *stamp == now => Some((index.clone(), now)),
            _ => None,
        }
    }
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
            mtime: None,
            origin: None,
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
                    memory: self.index_memory.clone().map(|m| (m, None)),
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
        // Its data is written out while the apply goes on, not by the rename into place.
        clada_base::reaper::start_writeback(file);
        if let Some((_, remembered)) = &mut self.memory {
            // What the next call reads is exactly what `index` serialized to, so the index
            // itself is remembered rather than the file decoded back (a second pass over
            // every entry and a hash of the whole file). Only its timestamp is the new
            // file's: the modification time git and the stat pass judge racily-clean entries
            // by. Without it the next call reads the file itself.
            // An entry marked for removal is left out of the file but not out of memory:
            // such an index (never one git-clada makes) is read back from the file instead.
            let removed = index
                .file
                .entries()
                .iter()
                .any(|e| e.flags.contains(Flags::REMOVE));
            *remembered = file.metadata().ok().filter(|_| !removed).map(|md| {
                let mut written = index.clone();
                written.mtime = Some(filetime::FileTime::from_last_modification_time(&md));
                written
            });
        }
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
        clada_base::reaper::replace(&self.path, &self.target).map_err(|e| {
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
            if let (Some((memory, Some(index))), Ok(md)) = (self.memory.take(), file.metadata()) {
                memory.remember(IndexStamp::from_metadata(&md), index);
            }
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
            mtime: None,
            origin: None,
        }
    }

    /// The entries to edit: this copy's own (the shared ones are copied first). The edit is
    /// not known to the stat pass, so the origin is dropped.
    fn file_mut(&mut self) -> &mut gix::index::File {
        self.origin = None;
        std::sync::Arc::make_mut(&mut self.file)
    }

    /// [`Self::file_mut`] for an edit that changes no entry's content (the cache-tree, the
    /// order of the entries), which keeps the origin.
    fn file_mut_same_entries(&mut self) -> &mut gix::index::File {
        std::sync::Arc::make_mut(&mut self.file)
    }

    /// The index's timestamp, for racy-git: an entry whose file was modified in its second or
    /// later proves nothing by its stat data. The modification time of the file it was read
    /// from, or of the file it was written to.
    pub(crate) fn timestamp(&self) -> filetime::FileTime {
        self.mtime.unwrap_or_else(|| self.file.timestamp())
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

    /// The paths of the gitlinks (submodules and embedded repositories) the index holds: where
    /// `git status` enters another repository.
    pub fn gitlinks(&self) -> Vec<String> {
        self.file
            .entries()
            .iter()
            .filter(|e| e.mode == Mode::COMMIT)
            .map(|e| e.path(&self.file).to_string())
            .collect()
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
        self.file_mut_same_entries().remove_tree();
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
        // The origin survives an edit of exactly these paths (entries removed need no
        // note: a stat pass looks up what it re-judges). Expanding a sparse directory
        // changes entries no update names.
        let origin = self.origin.take().filter(|_| !self.has_sparse_dirs());
        self.apply_updates(repo, updates)?;
        self.origin = origin.map(|mut o| {
            o.edited.extend(
                updates
                    .iter()
                    .filter(|u| u.entry.is_some())
                    .map(|u| u.path.clone()),
            );
            o
        });
        Ok(())
    }

    /// [`Self::apply`] without the origin's bookkeeping.
    fn apply_updates(&mut self, repo: &Repo, updates: &[IndexUpdate]) -> Result<()> {
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
        state.set_timestamp(self.timestamp());
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
            mtime: None,
            origin: None,
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
        let (entries, paths) = self.file_mut_same_entries().entries_mut_and_pathbacking();
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
        if let Some(tree) = self.file_mut_same_entries().tree_mut() {
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
        if old.timestamp() < self.timestamp() {
            self.mtime = Some(old.timestamp());
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

    /// Refreshes the stat data of `paths` from the worktree (files just written there).
    pub fn refresh_stat(&mut self, repo: &Repo, paths: &[BString]) -> Result<()> {
        self.release_cached(repo);
        let mut origin = self.origin.take();
        for p in paths {
            if let Some(idx) = self
                .file
                .entry_index_by_path_and_stage(p.as_bstr(), Stage::Unconflicted)
            {
                let stat = repo.stat_of(p.as_bstr())?;
                self.file_mut().entries_mut()[idx].stat = stat;
                if let Some(o) = origin.as_mut() {
                    o.edited.push(p.clone());
                }
            }
        }
        self.origin = origin;
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

#[cfg(test)]
mod tests;
