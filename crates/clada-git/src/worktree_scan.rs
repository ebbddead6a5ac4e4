//! The fast index-vs-worktree comparison behind [`Repo::status`](super::Repo::status) when no
//! untracked listing is needed — the one part of an apply whose cost grows with the size of
//! the repository.
//!
//! Like git, it trusts the index's stat data: a file whose `lstat` matches its entry (mtime,
//! ctime, size, inode, uid, gid, mode) and is not racily clean is unchanged; only the others
//! are read and hashed. Two things make it cheaper than a plain loop of `lstat(path)`: each
//! directory is opened once and its files are `fstatat`-ed by name (the kernel walks one path
//! component per file instead of the whole path), and the work is split over the cores at
//! directory boundaries. Suspects are hashed through git's filters without writing objects, so
//! a dry run stays read-only.

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;

use gix::bstr::{BStr, BString, ByteSlice};
use gix::index::entry::{Mode, Stage, Stat};

use super::index::{kind_of, Index, IndexStamp};
use super::stat_cache::{Seen, Watched};
use super::status::Dirt;
use super::status::Status;
use super::{EntryKind, ObjectId, Repo, Result};

/// How stat data is compared (`core.trustctime`, `core.checkStat`, `core.fileMode`).
#[derive(Clone, Copy)]
struct Policy {
    stat: gix::index::entry::stat::Options,
    file_mode: bool,
    /// A sparse checkout that does not expect files outside its patterns (git's default):
    /// git treats a skip-worktree file that is present in the worktree as an ordinary
    /// tracked file (`clear_skip_worktree_from_present_files`), so its changes show.
    present_sparse: bool,
    /// `core.symlinks`: where false, a link is checked out as a plain file, which is no type
    /// change (git's `ce_mode_from_stat`).
    symlinks: bool,
}

impl Policy {
    /// The policy as one number, to tell whether two passes compared alike.
    fn key(&self) -> u64 {
        [
            self.stat.trust_ctime,
            self.stat.check_stat,
            self.stat.use_nsec,
            self.stat.use_stdev,
            self.file_mode,
            self.present_sparse,
            self.symlinks,
        ]
        .iter()
        .enumerate()
        .map(|(i, &b)| u64::from(b) << i)
        .sum()
    }
}

/// Tracked paths that differ from the index, and the untracked files.
pub(crate) type WorktreeState = (Vec<(BString, Dirt)>, Vec<BString>);

/// Dirty paths found by stat alone, and the index positions of entries to content-check.
type ScanOutput = (Vec<(BString, Dirt)>, Vec<usize>);

/// What the stat pass concluded for one entry.
enum Verdict {
    Clean,
    Dirty(Dirt),
    /// Stat data differs or is racy: compare the content.
    Suspect,
}

/// An open directory, closed on drop.
struct DirFd(libc::c_int);

impl Drop for DirFd {
    fn drop(&mut self) {
        // SAFETY: the descriptor was opened by us and is closed exactly once.
        unsafe {
            libc::close(self.0);
        }
    }
}

fn open_dir(at: libc::c_int, path: &[u8]) -> Option<DirFd> {
    let c = CString::new(path).ok()?;
    // SAFETY: `c` is a valid NUL-terminated string; flags request a path-only descriptor.
    let fd = unsafe {
        libc::openat(
            at,
            c.as_ptr(),
            libc::O_PATH | libc::O_DIRECTORY | libc::O_CLOEXEC | libc::O_NOFOLLOW,
        )
    };
    (fd >= 0).then_some(DirFd(fd))
}

fn lstat_at(dir: libc::c_int, name: &[u8]) -> std::io::Result<libc::stat> {
    let c =
        CString::new(name).map_err(|_| std::io::Error::from(std::io::ErrorKind::InvalidInput))?;
    // SAFETY: a zeroed `stat` is a valid out-parameter; `c` is NUL-terminated.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: as above; AT_SYMLINK_NOFOLLOW makes this an lstat relative to `dir`.
    let rc = unsafe { libc::fstatat(dir, c.as_ptr(), &mut st, libc::AT_SYMLINK_NOFOLLOW) };
    if rc == 0 {
        Ok(st)
    } else {
        Err(std::io::Error::last_os_error())
    }
}

fn stat_of(st: &libc::stat) -> Stat {
    use gix::index::entry::stat::Time;
    Stat {
        mtime: Time {
            secs: st.st_mtime as u32,
            nsecs: st.st_mtime_nsec as u32,
        },
        ctime: Time {
            secs: st.st_ctime as u32,
            nsecs: st.st_ctime_nsec as u32,
        },
        dev: st.st_dev as u32,
        ino: st.st_ino as u32,
        uid: st.st_uid,
        gid: st.st_gid,
        size: st.st_size as u32,
    }
}

fn judge(
    entry: &gix::index::Entry,
    st: &libc::stat,
    policy: Policy,
    index_time: gix::index::entry::stat::Time,
) -> Verdict {
    let fmt = st.st_mode & libc::S_IFMT;
    let kind = match kind_of(entry.mode) {
        Some(k) => k,
        None => return Verdict::Suspect,
    };
    match kind {
        EntryKind::Link if fmt != libc::S_IFLNK && (policy.symlinks || fmt != libc::S_IFREG) => {
            return Verdict::Dirty(Dirt::TypeChanged)
        }
        EntryKind::Blob | EntryKind::Executable if fmt != libc::S_IFREG => {
            return Verdict::Dirty(Dirt::TypeChanged)
        }
        EntryKind::Executable | EntryKind::Blob if policy.file_mode => {
            let exec = st.st_mode & 0o100 != 0;
            if exec != (kind == EntryKind::Executable) {
                return Verdict::Dirty(Dirt::Modified);
            }
        }
        _ => {}
    }
    let disk = stat_of(st);
    if !entry.stat.matches(&disk, policy.stat) {
        return Verdict::Suspect;
    }
    // Racily clean: modified in the same second the index was written, so equal stat data
    // proves nothing.
    if disk.mtime.secs >= index_time.secs {
        return Verdict::Suspect;
    }
    Verdict::Clean
}

impl Repo {
    fn scan_policy(&self) -> Policy {
        let cfg = self.repo.config_snapshot();
        let trust_ctime = cfg.boolean("core.trustctime").unwrap_or(true);
        let check_stat = cfg
            .string("core.checkStat")
            .map(|v| !v.eq_ignore_ascii_case(b"minimal"))
            .unwrap_or(true);
        let file_mode = cfg.boolean("core.fileMode").unwrap_or(true);
        let present_sparse = cfg.boolean("core.sparseCheckout").unwrap_or(false)
            && !cfg
                .boolean("sparse.expectFilesOutsideOfPatterns")
                .unwrap_or(false);
        Policy {
            stat: gix::index::entry::stat::Options {
                trust_ctime,
                check_stat,
                // git compares whole seconds unless built with USE_NSEC.
                use_nsec: false,
                use_stdev: false,
            },
            file_mode,
            present_sparse,
            symlinks: cfg.boolean("core.symlinks").unwrap_or(true),
        }
    }

    /// The index to compare with the worktree: `index` itself, or — in a sparse checkout
    /// where a directory the sparse index holds as one entry has content in the worktree —
    /// `index` with its sparse directories expanded, as git expands it to look at such files
    /// (`clear_skip_worktree_from_present_files`).
    fn scan_view<'a>(&self, index: &'a Index) -> Result<std::borrow::Cow<'a, Index>> {
        if present_sparse_dirs(index, self.workdir(), self.scan_policy()) {
            return Ok(std::borrow::Cow::Owned(index.expanded(self)?));
        }
        Ok(std::borrow::Cow::Borrowed(index))
    }

    /// Tracked paths whose worktree file differs from `index`, sorted.
    pub(crate) fn unstaged_paths(&self, index: &Index) -> Result<Vec<(BString, Dirt)>> {
        let index = &*self.scan_view(index)?;
        let (dirty, suspects) = stat_pass(index, self.workdir(), self.scan_policy())?;
        self.content_check(index, dirty, suspects)
    }

    /// Tracked paths whose worktree file differs from `index`, and the untracked files (see
    /// `untracked`): the stat pass runs on its own threads while this one walks the
    /// directories for untracked files.
    pub(crate) fn unstaged_and_untracked(
        &self,
        index: &Index,
        cache: super::untracked::UntrackedCache,
    ) -> Result<WorktreeState> {
        let index = &*self.scan_view(index)?;
        let workdir = self.workdir();
        let policy = self.scan_policy();
        let (scanned, untracked) = std::thread::scope(|s| {
            let scan = s.spawn(move || stat_pass(index, workdir, policy));
            let untracked = self.untracked_files(index, cache);
            let scanned = scan.join().unwrap_or_else(|_| {
                Err(super::RepoError::Invalid(
                    "the status scan stopped unexpectedly".into(),
                ))
            });
            (scanned, untracked)
        });
        let (dirty, suspects) = scanned?;
        let unstaged = self.content_check(index, dirty, suspects)?;
        Ok((unstaged, untracked?))
    }

    /// Hashes the suspects of a stat pass (through git's filters, writing nothing) and adds
    /// the ones whose content differs.
    fn content_check(
        &self,
        index: &Index,
        mut dirty: Vec<(BString, Dirt)>,
        suspects: Vec<usize>,
    ) -> Result<Vec<(BString, Dirt)>> {
        let entries = index.file.entries();
        if !suspects.is_empty() {
            let mut hasher = self.hasher_with(index)?;
            for i in suspects {
                let e = &entries[i];
                let path = e.path(&index.file);
                match hasher.id_of(path)? {
                    None => dirty.push((path.to_owned(), Dirt::Deleted)),
                    Some(found) => {
                        let same = kind_of(e.mode) == Some(found.kind) && found.id == e.id;
                        if !same {
                            dirty.push((path.to_owned(), Dirt::Modified));
                        }
                    }
                }
            }
        }
        clada_base::trace::phase("scan: content checks");
        dirty.sort();
        dirty.dedup_by(|a, b| a.0 == b.0);
        Ok(dirty)
    }

    /// Starts reading the index and comparing it with the worktree on a background thread,
    /// so the repository-sized part of an apply overlaps with parsing the reply and taking
    /// the lock. Finish with [`Repo::finish_status`].
    pub fn prefetch_status(&self) -> StatusPrefetch {
        let path = self.repo.index_path();
        let hash = self.repo.object_hash();
        let workdir = self.workdir().to_path_buf();
        let policy = self.scan_policy();
        let cache = self.stat_cache.clone();
        let memory = self.index_memory.clone();
        let handle = std::thread::spawn(move || -> Result<Prefetched> {
            let remembered = memory.as_ref().and_then(|m| m.index_at(&path));
            let (index, stamp) = match remembered {
                Some((index, stamp)) => (index, Some(stamp)),
                None => super::index::read_index_file(path, hash)?,
            };
            // A sparse directory with content: the scan needs trees (see `scan_view`).
            let expand = present_sparse_dirs(&index, &workdir, policy);
            if expand {
                return Ok(Prefetched {
                    index,
                    stamp,
                    dirty: Vec::new(),
                    suspects: Vec::new(),
                    expand,
                    cached: false,
                });
            }
            let mut index = index;
            let ((dirty, suspects), cached) =
                cached_stat_pass(&mut index, &workdir, policy, cache)?;
            Ok(Prefetched {
                index,
                stamp,
                dirty,
                suspects,
                expand,
                cached,
            })
        });
        StatusPrefetch { handle }
    }

    /// The index and its status against `head_tree`, from a prefetch. If the index file
    /// changed since the prefetch read it (another process committed in between), both are
    /// computed again here, so the result is always as of now. The tracked files at or under
    /// `fresh` (the paths about to be written) are `lstat`-ed again whatever a stat cache
    /// remembers, so a change it could not see (a shared `mmap`) still counts there.
    pub fn finish_status(
        &self,
        prefetch: StatusPrefetch,
        head_tree: ObjectId,
        fresh: &[&BStr],
    ) -> Result<(Index, Status)> {
        let mut pre = prefetch.handle.join().map_err(|_| {
            super::RepoError::Invalid("the status scan stopped unexpectedly".into())
        })??;
        if pre.expand || IndexStamp::of(&self.repo.index_path()) != pre.stamp {
            let index = self.read_index()?;
            let status = self.status(head_tree, &index, false)?;
            return Ok((index, status));
        }
        if let Some(stamp) = pre.stamp {
            self.remember_index(stamp, &pre.index);
        }
        if pre.cached && !fresh.is_empty() {
            self.restat(&mut pre, fresh)?;
        }
        clada_base::trace::phase("scan: stat (prefetched)");
        let unstaged = self.content_check(&pre.index, pre.dirty, pre.suspects)?;
        let status = Status {
            staged: self.staged_paths(head_tree, &pre.index)?,
            unstaged,
            untracked: Vec::new(),
        };
        Ok((pre.index, status))
    }

    /// Judges again, from a new `lstat`, the entries at or under `fresh`.
    fn restat(&self, pre: &mut Prefetched, fresh: &[&BStr]) -> Result<()> {
        let under = |path: &BStr| {
            fresh
                .iter()
                .any(|f| path.starts_with(f) && (path.len() == f.len() || path[f.len()] == b'/'))
        };
        // Looked up, not filtered out of every entry: the cost grows with `fresh`.
        let file = &pre.index.file;
        let mut chosen: Vec<usize> = Vec::new();
        for f in fresh {
            let mut below = f.to_vec();
            below.push(b'/');
            chosen.extend(file.entry_range(f).into_iter().flatten());
            chosen.extend(
                file.prefixed_entries_range(below.as_bstr())
                    .into_iter()
                    .flatten(),
            );
        }
        chosen.sort_unstable();
        chosen.dedup();
        if chosen.is_empty() {
            return Ok(());
        }
        pre.dirty.retain(|(p, _)| !under(p.as_bstr()));
        pre.suspects.retain(|i| !chosen.contains(i));
        let root =
            open_dir(libc::AT_FDCWD, self.workdir().as_os_str().as_bytes()).ok_or_else(|| {
                super::io_err("cannot open the worktree", self.workdir())(
                    std::io::Error::last_os_error(),
                )
            })?;
        let t = pre.index.timestamp();
        for i in chosen {
            let range = Range {
                index: &pre.index,
                from: i,
                to: i + 1,
                root: root.0,
                policy: self.scan_policy(),
                index_time: gix::index::entry::stat::Time {
                    secs: t.unix_seconds() as u32,
                    nsecs: t.nanoseconds(),
                },
            };
            let found = range.scan(None);
            pre.dirty.extend(found.dirty);
            pre.suspects.extend(found.suspects);
        }
        pre.dirty.sort();
        Ok(())
    }
}

/// The stat pass of a prefetch: with a stat cache, only what changed since the last pass
/// when `index` descends from the index that pass scanned (see [`delta_pass`]), otherwise
/// every entry, the cache standing in for the `lstat`s it can vouch for. `index` is given a
/// new origin, the one the cache records the pass under. Returns the dirty paths, the
/// suspects, and whether a cache was used.
fn cached_stat_pass(
    index: &mut Index,
    workdir: &std::path::Path,
    policy: Policy,
    cache: Option<super::stat_cache::StatCache>,
) -> Result<(ScanOutput, bool)> {
    let Some(mut guard) = cache.as_ref().and_then(|c| c.lock_for(workdir)) else {
        return Ok((stat_pass(index, workdir, policy)?, false));
    };
    let index_secs = index.timestamp().unix_seconds() as u32;
    let recheck = guard
        .watched_mut()
        .and_then(|w| w.take_last())
        .and_then(|(last, touched)| {
            let origin = index.origin.as_ref()?;
            let usable = origin.id == last.id
                && index_secs >= last.index_secs
                && policy.key() == last.policy;
            usable.then(|| {
                let mut paths = last.recheck;
                paths.extend(origin.edited.iter().cloned());
                paths.extend(touched);
                paths.sort();
                paths.dedup();
                paths
            })
        });
    // Only new paths' directories can be new to the watch (the others were watched by the
    // last pass, or their paths are rechecked as unvouched).
    let file = &index.file;
    let watching = match (&recheck, &index.origin) {
        (Some(_), Some(origin)) => guard.watch(
            origin
                .edited
                .iter()
                .map(|p| super::stat_cache::parent(p.as_bstr())),
        ),
        _ => guard.watch(
            file.entries()
                .iter()
                .map(|e| super::stat_cache::parent(e.path(file))),
        ),
    };
    if !watching {
        return Ok((stat_pass(index, workdir, policy)?, false));
    }
    let watched = guard.watched();
    let ((dirty, suspects), observed) = match &recheck {
        Some(paths) => delta_pass(index, workdir, policy, watched, paths)?,
        None => stat_pass_with(index, workdir, policy, watched)?,
    };
    let mut again = guard.remember(observed);
    again.extend(dirty.iter().map(|(p, _)| p.clone()));
    again.extend(
        suspects
            .iter()
            .map(|&i| index.file.entries()[i].path(file).to_owned()),
    );
    let id = super::index::Origin::next_id();
    if let Some(w) = guard.watched_mut() {
        w.set_last(super::stat_cache::LastScan {
            id,
            index_secs,
            policy: policy.key(),
            recheck: again,
        });
    }
    index.origin = Some(super::index::Origin {
        id,
        edited: Vec::new(),
    });
    Ok(((dirty, suspects), true))
}

/// The stat pass over only `paths` (sorted): every entry at them is judged as a full pass
/// would, and every other entry is taken to be as the last pass found it — clean or skipped.
/// That holds because the last pass's dirty, suspect and unvouched paths, the entries edited
/// since (the index's origin) and every path an event named since are all in `paths`: any
/// other entry is the one the last pass judged, its file's `lstat` is the one the watch
/// remembered then (no event named it), and the index is no older (a clean entry was not
/// racy then and cannot be now).
fn delta_pass(
    index: &Index,
    workdir: &std::path::Path,
    policy: Policy,
    cache: Option<&Watched>,
    paths: &[BString],
) -> Result<(ScanOutput, Vec<(BString, Seen)>)> {
    let root = open_dir(libc::AT_FDCWD, workdir.as_os_str().as_bytes()).ok_or_else(|| {
        super::io_err("cannot open the worktree", workdir)(std::io::Error::last_os_error())
    })?;
    let t = index.timestamp();
    let index_time = gix::index::entry::stat::Time {
        secs: t.unix_seconds() as u32,
        nsecs: t.nanoseconds(),
    };
    let mut dirty = Vec::new();
    let mut suspects = Vec::new();
    let mut observed = Vec::new();
    for path in paths {
        let Some(at) = index.file.entry_range(path.as_bstr()) else {
            continue;
        };
        let found = Range {
            index,
            from: at.start,
            to: at.end,
            root: root.0,
            policy,
            index_time,
        }
        .scan(cache);
        dirty.extend(found.dirty);
        suspects.extend(found.suspects);
        observed.extend(found.observed);
    }
    Ok(((dirty, suspects), observed))
}

/// A background index read and stat pass (see [`Repo::prefetch_status`]).
pub struct StatusPrefetch {
    handle: std::thread::JoinHandle<Result<Prefetched>>,
}

struct Prefetched {
    index: Index,
    stamp: Option<IndexStamp>,
    dirty: Vec<(BString, Dirt)>,
    suspects: Vec<usize>,
    /// The scan was left to [`Repo::finish_status`] (see `scan_view`).
    expand: bool,
    /// A stat cache stood in for some `lstat`s.
    cached: bool,
}

/// Whether `index` has a sparse-directory entry whose directory exists in the worktree, in
/// a sparse checkout where git then looks at the files in it.
fn present_sparse_dirs(index: &Index, workdir: &std::path::Path, policy: Policy) -> bool {
    policy.present_sparse
        && index.file.entries().iter().any(|e| {
            e.mode == Mode::DIR
                && gix::path::from_bstr(e.path(&index.file))
                    .is_ok_and(|p| workdir.join(p).symlink_metadata().is_ok())
        })
}

/// The stat half of the comparison: dirty paths stat data proves, and the positions of the
/// entries whose content must be checked. Needs no repository handle, so it can run on any
/// thread.
fn stat_pass(index: &Index, workdir: &std::path::Path, policy: Policy) -> Result<ScanOutput> {
    stat_pass_with(index, workdir, policy, None).map(|(out, _)| out)
}

/// [`stat_pass`] that takes the stat data `cache` remembers instead of asking the kernel
/// again, and returns what it did ask the kernel, for the cache to remember.
fn stat_pass_with(
    index: &Index,
    workdir: &std::path::Path,
    policy: Policy,
    cache: Option<&Watched>,
) -> Result<(ScanOutput, Vec<(BString, Seen)>)> {
    let entries = index.file.entries();
    let index_time = {
        let t = index.timestamp();
        gix::index::entry::stat::Time {
            secs: t.unix_seconds() as u32,
            nsecs: t.nanoseconds(),
        }
    };
    let root = open_dir(libc::AT_FDCWD, workdir.as_os_str().as_bytes()).ok_or_else(|| {
        super::io_err("cannot open the worktree", workdir)(std::io::Error::last_os_error())
    })?;

    // Split at directory boundaries so each thread opens its own directories.
    // With a cache that remembers most entries the pass is lookups, not syscalls: threads
    // would cost more than they save.
    let threads = match cache {
        Some(c) if c.len() * 2 >= entries.len() => 1,
        _ => super::threads::cores(),
    };
    let mut bounds = vec![0usize];
    for t in 1..threads {
        let mut cut = entries.len() * t / threads;
        while cut > 0
            && cut < entries.len()
            && parent(entries[cut].path(&index.file)) == parent(entries[cut - 1].path(&index.file))
        {
            cut += 1;
        }
        if cut > *bounds.last().unwrap_or(&0) && cut < entries.len() {
            bounds.push(cut);
        }
    }
    bounds.push(entries.len());

    let chunks: Vec<(usize, usize)> = bounds.windows(2).map(|w| (w[0], w[1])).collect();
    let range = |(from, to): (usize, usize)| Range {
        index,
        from,
        to,
        root: root.0,
        policy,
        index_time,
    };
    // One part is scanned here: a thread would cost its start (on a VM, waking the other
    // core can take longer than the pass).
    let results: Vec<Ranged> = match chunks[..] {
        [one] => vec![range(one).scan(cache)],
        _ => parallel_scan(&chunks, range, cache, entries.len()),
    };
    let mut dirty = Vec::new();
    let mut suspects = Vec::new();
    let mut observed = Vec::new();
    for r in results {
        dirty.extend(r.dirty);
        suspects.extend(r.suspects);
        observed.extend(r.observed);
    }
    Ok(((dirty, suspects), observed))
}

/// The parts of a stat pass, each on a thread of its own.
fn parallel_scan<'a>(
    chunks: &[(usize, usize)],
    range: impl Fn((usize, usize)) -> Range<'a> + Sync,
    cache: Option<&Watched>,
    total: usize,
) -> Vec<Ranged> {
    std::thread::scope(|s| {
        let handles: Vec<_> = chunks
            .iter()
            .map(|&part| {
                let range = &range;
                s.spawn(move || range(part).scan(cache))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join().unwrap_or_else(|_| Ranged {
                    suspects: from_all(total),
                    ..Ranged::default()
                })
            })
            .collect()
    })
}

/// What one thread's part of the stat pass found.
#[derive(Default)]
struct Ranged {
    dirty: Vec<(BString, Dirt)>,
    suspects: Vec<usize>,
    /// The `lstat`s asked of the kernel (for the cache), when there is a cache.
    observed: Vec<(BString, Seen)>,
}

/// One thread's part of the stat pass: entries `from..to`.
struct Range<'a> {
    index: &'a Index,
    from: usize,
    to: usize,
    root: libc::c_int,
    policy: Policy,
    index_time: gix::index::entry::stat::Time,
}

/// Every index position, for the (unreachable in practice) case of a panicked scan thread:
/// treating everything as suspect is slow but correct.
fn from_all(n: usize) -> Vec<usize> {
    (0..n).collect()
}

fn parent(path: &BStr) -> &[u8] {
    match path.rfind_byte(b'/') {
        Some(pos) => &path[..pos],
        None => b"",
    }
}

impl Range<'_> {
    /// Dirty paths found by stat alone, and the positions of suspects; with a cache, its
    /// remembered `lstat`s stand in for the kernel's.
    fn scan(&self, cache: Option<&Watched>) -> Ranged {
        let index = self.index;
        let entries = index.file.entries();
        let mut out = Ranged::default();
        let mut current: Option<(Vec<u8>, Option<DirFd>)> = None;
        for (i, e) in entries.iter().enumerate().take(self.to).skip(self.from) {
            let path = e.path(&index.file);
            if e.stage() != Stage::Unconflicted {
                out.dirty.push((path.to_owned(), Dirt::Conflicted));
                continue;
            }
            // Outside the sparse checkout: absent is as expected, present is looked at (git).
            let hidden = e.flags.contains(gix::index::entry::Flags::SKIP_WORKTREE);
            if e.mode == Mode::COMMIT
                || e.mode == Mode::DIR
                || (hidden && !self.policy.present_sparse)
            {
                continue;
            }
            if e.flags.contains(gix::index::entry::Flags::INTENT_TO_ADD) {
                out.dirty.push((path.to_owned(), Dirt::Modified));
                continue;
            }
            let seen = match cache.and_then(|c| c.get(path)) {
                Some(seen) => seen,
                None => {
                    let seen = self.lstat(path, &mut current);
                    if cache.is_some() {
                        if let Some(seen) = seen {
                            out.observed.push((path.to_owned(), seen));
                        }
                    }
                    match seen {
                        Some(seen) => seen,
                        None => {
                            out.suspects.push(i);
                            continue;
                        }
                    }
                }
            };
            match seen {
                Seen::Stat(st) => match judge(e, &st, self.policy, self.index_time) {
                    Verdict::Clean => {}
                    Verdict::Dirty(d) => out.dirty.push((path.to_owned(), d)),
                    Verdict::Suspect => out.suspects.push(i),
                },
                Seen::Missing if !hidden => out.dirty.push((path.to_owned(), Dirt::Deleted)),
                Seen::Missing => {}
            }
        }
        out
    }

    /// `lstat` of `path` through its directory's handle (opened once per directory, kept in
    /// `current`); `None` when the kernel gave an error other than absence.
    fn lstat(&self, path: &BStr, current: &mut Option<(Vec<u8>, Option<DirFd>)>) -> Option<Seen> {
        let dir = parent(path);
        let name = match path.rfind_byte(b'/') {
            Some(pos) => &path[pos + 1..],
            None => path,
        };
        let fresh = match current {
            Some((d, _)) => d.as_slice() != dir,
            None => true,
        };
        if fresh {
            let fd = match dir.is_empty() {
                true => open_dir(self.root, b"."),
                false => open_dir(self.root, dir),
            };
            *current = Some((dir.to_vec(), fd));
        }
        let Some((_, Some(fd))) = current else {
            return Some(Seen::Missing);
        };
        match lstat_at(fd.0, name) {
            Ok(st) => Some(Seen::Stat(st)),
            Err(err) if matches!(err.raw_os_error(), Some(libc::ENOENT) | Some(libc::ENOTDIR)) => {
                Some(Seen::Missing)
            }
            Err(_) => None,
        }
    }
}
