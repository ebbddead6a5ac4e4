//! A long-lived process's memory of the worktree's stat data, kept true by inotify, so an
//! apply's index-vs-worktree comparison does not `lstat` every tracked file again when nothing
//! changed since the last call (`git clada mcp` makes many small applies in one repository).
//!
//! The rule that makes a remembered `lstat` as good as a new one: each directory holding
//! tracked files is watched *before* any of its files' stat data is remembered, and at the
//! start of every scan all queued events are read and every path they name is forgotten.
//! The kernel queues an event inside the call that changes a name (a write, truncate, chmod,
//! create, delete or rename in a watched directory), so a change finished before the scan
//! starts is always seen; one made after is seen by the next scan. Anything the watch cannot
//! vouch for — a queue overflow, a watched directory created, removed or renamed, a watch the
//! kernel refuses — forgets everything, and the next scan is a full one.
//!
//! What inotify does not see, as for git's and watchman's file monitors: a change through a
//! hard link in another directory, or through a shared writable `mmap`. So the paths an apply
//! is about to write are always `lstat`-ed afresh (see [`Repo::finish_status`]): a stale
//! memory can then only make another file look unchanged, which keeps it out of the AI
//! commit as an unchanged file is kept out.
//!
//! Linux only; elsewhere every scan is a full one.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use gix::bstr::{BStr, BString, ByteSlice};

/// One remembered `lstat` of a tracked path: its stat data, or that it did not exist.
#[derive(Clone, Copy)]
pub(crate) enum Seen {
    Stat(libc::stat),
    Missing,
}

/// The shared handle a long-lived process keeps and gives each [`Repo`](super::Repo) it opens
/// (`Repo::use_stat_cache`). Cloning shares the memory.
#[derive(Clone, Default)]
pub struct StatCache {
    inner: Arc<Mutex<Option<Watched>>>,
    /// The index file this process wrote last (see `index::IndexMemory`).
    index: crate::index::IndexMemory,
}

impl std::fmt::Debug for StatCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StatCache").finish_non_exhaustive()
    }
}

/// The watch of one worktree and what it vouches for.
pub(crate) struct Watched {
    workdir: PathBuf,
    inotify: Inotify,
    /// Watch descriptor → the directory it watches (relative, `""` for the root).
    dirs: HashMap<i32, BString>,
    /// Every directory holding tracked files, and each of their ancestors, watched or not:
    /// a directory event naming one of these forgets everything.
    of_interest: HashSet<BString>,
    /// The directories whose files may be remembered (watched successfully).
    watched: HashSet<BString>,
    pub(crate) seen: HashMap<BString, Seen>,
    /// Every path an event named since the last scan recorded in `last` (`None`: too many to
    /// keep, the next scan is a full one).
    touched: Option<HashSet<BString>>,
    /// What the last scan concluded, for the next to start from.
    last: Option<LastScan>,
}

/// The part of a stat pass's conclusions the next pass cannot take over as they are: the
/// paths it found dirty, had to content-check (racily clean ones among them), or saw with no
/// watch vouching for them. Every other tracked path was clean, or skipped (a gitlink, a
/// sparse entry), and stays so while neither its index entry nor its file changes (see
/// `worktree_scan::delta_pass`).
pub(crate) struct LastScan {
    /// The origin the scanned index was given (`index::Origin`).
    pub(crate) id: u64,
    /// The scanned index's timestamp, in whole seconds: a later one keeps every clean entry
    /// clean (racy-git only looks at files modified in or after it).
    pub(crate) index_secs: u32,
    /// How stat data was compared, as `worktree_scan` says.
    pub(crate) policy: u64,
    pub(crate) recheck: Vec<BString>,
}

/// More paths than this touched between two scans, and the next one is a full one.
const MAX_TOUCHED: usize = 1 << 16;

impl StatCache {
    pub fn new() -> StatCache {
        StatCache::default()
    }

    /// The memory of the index file this process wrote last, shared by every clone.
    pub(crate) fn index_memory(&self) -> crate::index::IndexMemory {
        self.index.clone()
    }

    /// The watch of `workdir`, brought up to date: queued events read and the paths they
    /// name forgotten. Then [`CacheGuard::watch`] the directories of the tracked paths.
    /// `None` when nothing can be vouched for (not Linux, inotify unavailable): the caller
    /// scans everything.
    pub(crate) fn lock_for(&self, workdir: &Path) -> Option<CacheGuard<'_>> {
        let mut guard = self
            .inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let fresh = match &*guard {
            Some(w) => w.workdir != workdir,
            None => true,
        };
        if fresh {
            *guard = Watched::new(workdir);
        }
        let keep = match guard.as_mut() {
            Some(w) => w.drain(),
            None => false,
        };
        if !keep {
            // Start over at the next scan, with a new inotify instance.
            *guard = None;
            return None;
        }
        Some(CacheGuard { guard })
    }
}

/// The locked watch, for one scan.
pub(crate) struct CacheGuard<'a> {
    guard: std::sync::MutexGuard<'a, Option<Watched>>,
}

impl CacheGuard<'_> {
    pub(crate) fn watched(&self) -> Option<&Watched> {
        self.guard.as_ref()
    }

    pub(crate) fn watched_mut(&mut self) -> Option<&mut Watched> {
        self.guard.as_mut()
    }

    /// Watches every directory of `dirs` (the parents of the tracked paths, sorted) not
    /// watched yet; false, the memory dropped, when the kernel refuses one (the user's watch
    /// limit): the caller scans everything.
    pub(crate) fn watch<'b>(&mut self, dirs: impl Iterator<Item = &'b BStr>) -> bool {
        let keep = self.guard.as_mut().is_some_and(|w| w.watch_all(dirs));
        if !keep {
            *self.guard = None;
        }
        keep
    }

    /// Remembers what a scan saw, for the paths in watched directories; returns the others
    /// (no watch vouches for them, so the next scan looks at them again).
    pub(crate) fn remember(&mut self, observed: Vec<(BString, Seen)>) -> Vec<BString> {
        let mut unvouched = Vec::new();
        match self.guard.as_mut() {
            Some(w) => {
                for (path, seen) in observed {
                    if w.watched.contains(parent(path.as_bstr())) {
                        w.seen.insert(path, seen);
                    } else {
                        unvouched.push(path);
                    }
                }
            }
            None => unvouched.extend(observed.into_iter().map(|(p, _)| p)),
        }
        unvouched
    }
}

impl Watched {
    fn new(workdir: &Path) -> Option<Watched> {
        Some(Watched {
            workdir: workdir.to_path_buf(),
            inotify: Inotify::new()?,
            dirs: HashMap::new(),
            of_interest: HashSet::new(),
            watched: HashSet::new(),
            seen: HashMap::new(),
            touched: Some(HashSet::new()),
            last: None,
        })
    }

    /// How many paths' stat data is remembered.
    pub(crate) fn len(&self) -> usize {
        self.seen.len()
    }

    pub(crate) fn get(&self, path: &BStr) -> Option<Seen> {
        self.seen.get(path).copied()
    }

    /// Starts a scan: the last scan's conclusions and the paths touched since, taken (a scan
    /// that fails leaves none, and the next one is full). `None` when there is nothing to
    /// start from.
    pub(crate) fn take_last(&mut self) -> Option<(LastScan, HashSet<BString>)> {
        let touched = self.touched.replace(HashSet::new());
        Some((self.last.take()?, touched?))
    }

    /// Records what a scan concluded (see [`LastScan`]).
    pub(crate) fn set_last(&mut self, last: LastScan) {
        self.last = Some(last);
    }

    /// Reads every queued event; false when the watch can no longer vouch for anything.
    fn drain(&mut self) -> bool {
        loop {
            let events = match self.inotify.read() {
                Some(events) => events,
                None => return false,
            };
            if events.is_empty() {
                return true;
            }
            for ev in events {
                if !self.forget(&ev) {
                    return false;
                }
            }
        }
    }

    /// Forgets what `ev` may have changed; false when it touches the directory structure.
    fn forget(&mut self, ev: &Event) -> bool {
        if ev.lost {
            return false;
        }
        let Some(dir) = self.dirs.get(&ev.wd) else {
            return false;
        };
        let path = join(dir.as_bstr(), ev.name.as_bstr());
        self.seen.remove(&path);
        if let Some(touched) = self.touched.as_mut() {
            if touched.len() >= MAX_TOUCHED {
                self.touched = None;
            } else {
                touched.insert(path.clone());
            }
        }
        // A directory created, removed or renamed where tracked files live (or under which
        // they live): the watches no longer match the tree.
        !ev.is_dir || !self.of_interest.contains(&path)
    }

    /// Watches every directory of `dirs` not watched yet; false when the kernel refuses one
    /// for any reason but its absence (a missing directory's files are simply not
    /// remembered; its creation shows as an event in a watched ancestor).
    fn watch_all<'a>(&mut self, dirs: impl Iterator<Item = &'a BStr>) -> bool {
        let mut last: Option<&BStr> = None;
        for dir in dirs {
            if last == Some(dir) {
                continue;
            }
            last = Some(dir);
            if self.of_interest.contains(dir) {
                continue;
            }
            let mut up = dir;
            loop {
                self.of_interest.insert(up.to_owned());
                if up.is_empty() {
                    break;
                }
                up = parent(up);
            }
            let full = match dir.is_empty() {
                true => self.workdir.clone(),
                false => {
                    use std::os::unix::ffi::OsStrExt;
                    self.workdir.join(std::ffi::OsStr::from_bytes(dir))
                }
            };
            match self.inotify.add(&full) {
                Added::Watch(wd) => {
                    self.dirs.insert(wd, dir.to_owned());
                    self.watched.insert(dir.to_owned());
                }
                Added::Absent => {}
                Added::Refused => return false,
            }
        }
        true
    }
}

pub(crate) fn parent(path: &BStr) -> &BStr {
    match path.rfind_byte(b'/') {
        Some(pos) => path[..pos].as_bstr(),
        None => b"".as_bstr(),
    }
}

fn join(dir: &BStr, name: &BStr) -> BString {
    if dir.is_empty() {
        return name.to_owned();
    }
    let mut p = dir.to_owned();
    p.push(b'/');
    p.extend_from_slice(name);
    p
}

/// One inotify event, as `forget` needs it.
struct Event {
    wd: i32,
    /// The watch can no longer vouch for its directory: the queue overflowed, or the watch
    /// was dropped, its directory removed, renamed or unmounted.
    lost: bool,
    /// The name is a directory's.
    is_dir: bool,
    name: BString,
}

/// What adding a watch came to.
// The portable side never watches: only `Refused` is made there.
#[allow(dead_code)]
enum Added {
    Watch(i32),
    /// The directory does not exist (or is not one): nothing to watch.
    Absent,
    /// The kernel refused (the user's watch limit, a permission…).
    Refused,
}

/// A non-blocking inotify instance, closed on drop (never made on the portable side).
#[allow(dead_code)]
struct Inotify(std::os::fd::OwnedFd);

// inotify is Linux's; elsewhere (and in the portable build) nothing is watched and every
// pass looks at every path (the platform seam, `clada_base::platform`).
clada_base::linux! {
    #[path = "stat_cache_linux.rs"]
    mod sys;
}

clada_base::portable! {
    mod sys {
        use super::{Added, Event, Inotify};
        use std::path::Path;

        impl Inotify {
            pub(super) fn new() -> Option<Inotify> {
                None
            }
            pub(super) fn add(&self, _dir: &Path) -> Added {
                Added::Refused
            }
            pub(super) fn read(&self) -> Option<Vec<Event>> {
                None
            }
        }
    }
}
