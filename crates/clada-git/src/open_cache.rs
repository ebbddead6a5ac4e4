//! A long-lived process's memory of the repository it opened (`repo::OpenCache`): the MCP
//! server opens the same repository for every call, and finding it, reading its
//! configuration and setting up its stores cost about 0.5 ms a call. The opened repository
//! is kept and handed out again only while nothing it was made from has changed, as the
//! `lstat` of each of these says (device, inode, mode, owner, size, modification and change
//! times):
//!
//! - every file configuration could come from, present or not: the installation's and the
//!   system's (unless `GIT_CONFIG_NOSYSTEM`), the global ones (`GIT_CONFIG_GLOBAL`, else
//!   `$XDG_CONFIG_HOME/git/config` and `~/.gitconfig`), the repository's `config` and
//!   `config.worktree`;
//! - the directory it was opened from, the worktree, its `.git`, the git directories (owner:
//!   `safe.directory`), `commondir` and `objects/info/alternates`.
//!
//! A configuration with `include` or `includeIf` is never kept: what it loads depends on more
//! files and, for `onbranch`, on HEAD. Nor is one any of whose files changed in the last two
//! seconds, so a change within the file system's timestamp granularity, or between gix
//! reading a file and its `lstat` here, cannot be mistaken for no change: the next call opens
//! afresh and looks again. The environment is read once per process, so it is not watched.
//! Everything else gix keeps (refs, packed refs, the object database) checks the disk itself.

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Files changed this recently (seconds) are not trusted to show the next change.
const RACY_SECS: i64 = 2;

/// The repository a server opened, kept for its next call (see the module doc).
#[derive(Clone, Default)]
pub struct OpenCache(Arc<Mutex<Option<Kept>>>);

impl std::fmt::Debug for OpenCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("OpenCache")
    }
}

pub(crate) struct Kept {
    pub(crate) dir: PathBuf,
    pub(crate) repo: gix::ThreadSafeRepository,
    pub(crate) workdir: PathBuf,
    pub(crate) git_dir: PathBuf,
    pub(crate) common_dir: PathBuf,
    stamps: Vec<(PathBuf, Option<Stamp>)>,
}

#[derive(PartialEq, Eq, Debug)]
struct Stamp {
    dev: u64,
    ino: u64,
    mode: u32,
    uid: u32,
    size: u64,
    mtime: (i64, i64),
    ctime: (i64, i64),
}

/// What `lstat` says of `path`; of a directory only what it is and whose (its times change
/// with every file created in it, a lock file say).
fn stamp(path: &Path) -> Option<Stamp> {
    let m = std::fs::symlink_metadata(path).ok()?;
    if m.is_dir() {
        return Some(Stamp {
            dev: m.dev(),
            ino: m.ino(),
            mode: m.mode(),
            uid: m.uid(),
            size: 0,
            mtime: (0, 0),
            ctime: (0, 0),
        });
    }
    Some(Stamp {
        dev: m.dev(),
        ino: m.ino(),
        mode: m.mode(),
        uid: m.uid(),
        size: m.size(),
        mtime: (m.mtime(), m.mtime_nsec()),
        ctime: (m.ctime(), m.ctime_nsec()),
    })
}

impl OpenCache {
    pub fn new() -> Self {
        Self::default()
    }

    /// The kept repository for `dir`, if nothing it was made from changed.
    pub(crate) fn get(&self, dir: &Path) -> Option<Kept> {
        let kept = self.0.lock().ok()?;
        let k = kept.as_ref()?;
        if k.dir != dir || k.stamps.iter().any(|(p, s)| stamp(p) != *s) {
            return None;
        }
        Some(Kept {
            dir: k.dir.clone(),
            repo: k.repo.clone(),
            workdir: k.workdir.clone(),
            git_dir: k.git_dir.clone(),
            common_dir: k.common_dir.clone(),
            stamps: Vec::new(),
        })
    }

    /// Keeps `repo`, just opened from `dir`, when its configuration allows (see the module
    /// doc); else forgets whatever was kept.
    pub(crate) fn keep(&self, dir: &Path, repo: &super::Repo) {
        let kept = keepable(dir, repo);
        if let Ok(mut slot) = self.0.lock() {
            *slot = kept;
        }
    }
}

fn keepable(dir: &Path, repo: &super::Repo) -> Option<Kept> {
    let config = repo.repo.config_snapshot();
    let file = config.plumbing();
    let includes = ["include", "includeIf"].iter().any(|name| {
        file.sections_by_name(name)
            .is_some_and(|mut s| s.next().is_some())
    });
    if includes {
        return None;
    }
    let paths = watched_paths(dir, repo);
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?;
    let nanos = |(sec, nsec): (i64, i64)| i128::from(sec) * 1_000_000_000 + i128::from(nsec);
    let racy_from = now.as_nanos() as i128 - i128::from(RACY_SECS) * 1_000_000_000;
    let mut stamps = Vec::with_capacity(paths.len());
    for p in paths {
        let s = stamp(&p);
        if let Some(s) = &s {
            if nanos(s.mtime) >= racy_from || nanos(s.ctime) >= racy_from {
                return None;
            }
        }
        stamps.push((p, s));
    }
    Some(Kept {
        dir: dir.to_path_buf(),
        repo: repo.repo.clone().into_sync(),
        workdir: repo.workdir.clone(),
        git_dir: repo.git_dir.clone(),
        common_dir: repo.common_dir.clone(),
        stamps,
    })
}

/// Every path whose change could change what opening `dir` gives (see the module doc).
fn watched_paths(dir: &Path, repo: &super::Repo) -> Vec<PathBuf> {
    use gix::config::Source;
    let mut env = |name: &str| std::env::var_os(name);
    let mut paths: Vec<PathBuf> = [
        Source::GitInstallation,
        Source::System,
        Source::Git,
        Source::User,
    ]
    .into_iter()
    .filter_map(|s| s.storage_location(&mut env))
    .collect();
    // Whatever gix did load is watched too, wherever it came from.
    paths.extend(
        repo.repo
            .config_snapshot()
            .plumbing()
            .sections()
            .filter_map(|s| s.meta().path.clone()),
    );
    paths.extend([
        dir.to_path_buf(),
        repo.workdir.clone(),
        repo.workdir.join(".git"),
        repo.git_dir.clone(),
        repo.git_dir.join("config.worktree"),
        repo.git_dir.join("commondir"),
        repo.common_dir.clone(),
        repo.common_dir.join("config"),
        repo.common_dir.join("objects/info/alternates"),
    ]);
    paths.sort();
    paths.dedup();
    paths
}
