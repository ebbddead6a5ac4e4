//! The read-only view (issue 37 §2): what a command of the read-only list other than git
//! must not see, because it runs without asking and its output goes to the model. Every git
//! directory of the worktree (`.git` at any depth — an untracked nested repository's too —
//! and the repository's own git and common directories under any name) and every entry
//! `paths.deny` matches is hidden there: `confine` mounts an empty read-only folder or file
//! over each one in the command's own mount namespace. git itself is never hidden from (a
//! hidden tracked file would look modified): it gets pathspecs instead (`policy::pinned`).
//!
//! Finding the entries walks the whole worktree without following links (a symlink is never
//! hidden: reading through it reaches its target, which is hidden itself when it is denied).
//! The list is cached for the process, keyed by the root, the deny globs and the git
//! directories, and checked before each use: it holds every folder the walk read with its
//! inode and change time (`ctime`, which no process can set back, unlike `mtime`); creating,
//! removing or renaming an entry changes its folder's, so one folder that changed, or is
//! gone, means a new walk. A walk whose folders changed within the last second is not trusted
//! for the next block (timestamps are coarse): the next block walks again.

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

/// More entries to hide than this and the view is not made (the command asks instead): each
/// one is a mount.
pub(crate) const MAX_HIDDEN: usize = 2000;

/// How long ago a folder must have last changed for a walk to be reused.
const SETTLE: Duration = Duration::from_secs(1);

/// One entry to hide, relative to the root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hidden {
    pub rel: PathBuf,
    pub dir: bool,
}

/// The entries hidden from a read-only command in the worktree `root` (canonical).
#[derive(Debug)]
pub struct View {
    pub root: PathBuf,
    pub hidden: Vec<Hidden>,
}

/// A folder the walk read, as it was then.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Stamp {
    rel: PathBuf,
    ino: u64,
    ctime: (i64, i64),
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Key {
    root: PathBuf,
    deny: Vec<String>,
    git_dirs: Vec<PathBuf>,
}

struct Cached {
    key: Key,
    view: Arc<View>,
    stamps: Vec<Stamp>,
    settled: bool,
}

/// A few worktrees' lists (an MCP server or a test process may serve several).
static CACHE: Mutex<Vec<Cached>> = Mutex::new(Vec::new());
const CACHED: usize = 8;

/// The view of `root` for the deny globs `deny` (`denied` says whether an absolute path is
/// denied) and the repository's `git_dirs`; `Err` says why it cannot be made.
pub(crate) fn of(
    root: &Path,
    git_dirs: &[PathBuf],
    deny: &[String],
    denied: &dyn Fn(&Path) -> bool,
) -> Result<Arc<View>, String> {
    of_settled(root, git_dirs, deny, denied, SETTLE)
}

fn of_settled(
    root: &Path,
    git_dirs: &[PathBuf],
    deny: &[String],
    denied: &dyn Fn(&Path) -> bool,
    settle: Duration,
) -> Result<Arc<View>, String> {
    let root = std::fs::canonicalize(root)
        .map_err(|e| format!("cannot read the worktree '{}': {e}", root.display()))?;
    let key = Key {
        root: root.clone(),
        deny: deny.to_vec(),
        git_dirs: git_dirs
            .iter()
            .filter_map(|g| std::fs::canonicalize(g).ok())
            .collect(),
    };
    if let Ok(cache) = CACHE.lock() {
        if let Some(c) = cache.iter().find(|c| c.key == key) {
            if c.settled && unchanged(&root, &c.stamps) {
                return Ok(Arc::clone(&c.view));
            }
        }
    }
    let started = SystemTime::now();
    let (hidden, stamps) = walk(&root, &key.git_dirs, denied)?;
    let view = Arc::new(View { root, hidden });
    let settled = stamps.iter().all(|s| older_than(s.ctime, started, settle));
    if let Ok(mut cache) = CACHE.lock() {
        cache.retain(|c| c.key != key);
        if cache.len() >= CACHED {
            cache.remove(0);
        }
        cache.push(Cached {
            key,
            view: Arc::clone(&view),
            stamps,
            settled,
        });
    }
    Ok(view)
}

fn ctime(md: &std::fs::Metadata) -> (i64, i64) {
    (md.ctime(), md.ctime_nsec())
}

/// Whether `ctime` lies more than `settle` before `t`.
fn older_than(ctime: (i64, i64), t: SystemTime, settle: Duration) -> bool {
    let Ok(since) = t.duration_since(SystemTime::UNIX_EPOCH) else {
        return false;
    };
    let Some(limit) = since.checked_sub(settle) else {
        return false;
    };
    let (s, ns) = ctime;
    s >= 0 && Duration::new(s as u64, ns.clamp(0, 999_999_999) as u32) < limit
}

/// Whether every folder of `stamps` is still the one the walk read, unchanged.
fn unchanged(root: &Path, stamps: &[Stamp]) -> bool {
    stamps.iter().all(|s| {
        std::fs::symlink_metadata(root.join(&s.rel))
            .is_ok_and(|md| md.is_dir() && md.ino() == s.ino && ctime(&md) == s.ctime)
    })
}

/// Every entry to hide under `root`, and the folders read.
fn walk(
    root: &Path,
    git_dirs: &[PathBuf],
    denied: &dyn Fn(&Path) -> bool,
) -> Result<(Vec<Hidden>, Vec<Stamp>), String> {
    let mut hidden = Vec::new();
    let mut stamps = Vec::new();
    let mut stack = vec![PathBuf::new()];
    while let Some(rel) = stack.pop() {
        let dir = root.join(&rel);
        // The stamp before the listing: a change while it is read shows next time.
        let Ok(md) = std::fs::symlink_metadata(&dir) else {
            continue;
        };
        stamps.push(Stamp {
            rel: rel.clone(),
            ino: md.ino(),
            ctime: ctime(&md),
        });
        let entries =
            std::fs::read_dir(&dir).map_err(|e| format!("cannot list '{}': {e}", dir.display()))?;
        for e in entries {
            let e = e.map_err(|e| format!("cannot list '{}': {e}", dir.display()))?;
            let Ok(t) = e.file_type() else { continue };
            if t.is_symlink() {
                continue;
            }
            let abs = e.path();
            let here = rel.join(e.file_name());
            let git = e.file_name().eq_ignore_ascii_case(".git") || git_dirs.contains(&abs);
            if git || denied(&abs) {
                hidden.push(Hidden {
                    rel: here,
                    dir: t.is_dir(),
                });
                if hidden.len() > MAX_HIDDEN {
                    return Err(format!(
                        "paths.deny and the git directories match more than {MAX_HIDDEN} \
                         entries of the worktree (each is hidden by a mount of its own)"
                    ));
                }
            } else if t.is_dir() {
                stack.push(here);
            }
        }
    }
    hidden.sort_by(|a, b| a.rel.cmp(&b.rel));
    Ok((hidden, stamps))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rels(v: &View) -> Vec<String> {
        v.hidden
            .iter()
            .map(|h| format!("{}{}", h.rel.display(), if h.dir { "/" } else { "" }))
            .collect()
    }

    #[test]
    fn git_dirs_and_denied_entries_are_found_links_skipped_and_changes_seen() {
        let d = tempfile::tempdir().unwrap();
        let r = std::fs::canonicalize(d.path()).unwrap();
        for dir in [".git/hooks", "sub/.git", "src", "secrets/deep", ".gitdata"] {
            std::fs::create_dir_all(r.join(dir)).unwrap();
        }
        for f in [".env", "src/a.rs", "secrets/deep/key.txt", "src/.env"] {
            std::fs::write(r.join(f), "x").unwrap();
        }
        std::os::unix::fs::symlink(".env", r.join("link.env")).unwrap();
        let deny = |p: &Path| {
            let rel = p.strip_prefix(&r).unwrap().to_string_lossy().into_owned();
            rel == ".env" || rel == "secrets" || rel.ends_with("link.env")
        };
        let globs = [".env".to_string(), "secrets".to_string()];
        let git = [r.join(".gitdata")];
        let v = of_settled(&r, &git, &globs, &deny, Duration::ZERO).unwrap();
        assert_eq!(
            rels(&v),
            [".env", ".git/", ".gitdata/", "secrets/", "sub/.git/"]
        );
        // Unchanged: the same list, not walked again.
        let again = of_settled(&r, &git, &globs, &deny, Duration::ZERO).unwrap();
        assert!(Arc::ptr_eq(&v, &again));
        // A nested repository made since: seen.
        std::fs::create_dir_all(r.join("src/inner/.git")).unwrap();
        let v = of_settled(&r, &git, &globs, &deny, Duration::ZERO).unwrap();
        assert!(rels(&v).contains(&"src/inner/.git/".to_string()), "{v:?}");
        // A walk of folders that just changed is not reused.
        std::fs::write(r.join("src/b.rs"), "x").unwrap();
        let fresh = of_settled(&r, &git, &globs, &deny, Duration::from_secs(3600)).unwrap();
        let next = of_settled(&r, &git, &globs, &deny, Duration::from_secs(3600)).unwrap();
        assert!(!Arc::ptr_eq(&fresh, &next));
    }
}
