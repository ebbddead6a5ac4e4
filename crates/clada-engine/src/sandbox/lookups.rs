//! Where a lexical directory physically is (symlinked directories resolved), whether a
//! directory holds a `.git`, and the memory of those lookups while one reply is planned or run
//! ([`Sandbox::planning`], [`Sandbox::executing`]).

use std::path::{Path, PathBuf};

use super::Sandbox;

/// Directory lookups remembered while one reply is planned, or between the changes its
/// actions make to folders while it runs.
#[derive(Debug, Default)]
pub(super) struct Lookups {
    /// Lexical directory → where it physically is (as [`resolve_existing`] says).
    physical: std::collections::HashMap<PathBuf, PathBuf>,
    /// Directory → whether it holds a `.git` (a nested repository).
    dot_git: std::collections::HashMap<PathBuf, bool>,
}

impl Sandbox {
    /// The same sandbox for planning one reply: every directory is looked up once and
    /// remembered. Only for planning, while nothing changes the worktree; the checks made
    /// again just before each action runs use [`Sandbox::executing`]'s memory instead.
    pub fn planning(&self) -> Sandbox {
        let mut s = self.clone();
        s.lookups = Some(Default::default());
        s
    }

    /// The same sandbox for the checks made again just before each action runs: a directory
    /// is looked up once until [`Sandbox::forget_lookups`], which the engine calls after
    /// every block that ran code (an exec block) or made, removed or moved an entry — the
    /// only ways an earlier action can change what a folder's name leads to. (A change made
    /// meanwhile by another process is what the directory handles catch: the disk's
    /// operations go through handles opened beneath the root, not through these names.)
    pub fn executing(&self) -> Sandbox {
        self.planning()
    }

    /// Forgets the directory lookups remembered so far (nothing without a memory).
    pub fn forget_lookups(&self) {
        if let Some(lookups) = &self.lookups {
            if let Ok(mut l) = lookups.lock() {
                *l = Lookups::default();
            }
        }
    }

    /// Where the lexical directory `dir` physically is: the longest existing ancestor
    /// canonicalised, the rest as written. A directory below the root is found from its
    /// parent with one `lstat` (see [`Sandbox::physical_below_root`]); while planning, what
    /// was found is remembered.
    pub(super) fn physical(&self, dir: &Path) -> PathBuf {
        if dir == self.root {
            return self.root.clone();
        }
        let Some(lookups) = &self.lookups else {
            return self.physical_below_root(dir);
        };
        if let Some(hit) = lookups
            .lock()
            .ok()
            .and_then(|l| l.physical.get(dir).cloned())
        {
            return hit;
        }
        let found = self.physical_below_root(dir);
        if let Ok(mut l) = lookups.lock() {
            l.physical.insert(dir.to_path_buf(), found.clone());
        }
        found
    }

    /// [`Sandbox::physical`] looked up now: a directory below the (canonical) root is found
    /// from its parent with one `lstat` per component below the root, where `canonicalize`
    /// would `readlink` every component from `/`; anything else, or a symlink on the way, is
    /// resolved in full.
    fn physical_below_root(&self, dir: &Path) -> PathBuf {
        if dir == self.root {
            return self.root.clone();
        }
        match (dir.parent(), dir.file_name()) {
            (Some(parent), Some(name)) if dir.starts_with(&self.root) => {
                let candidate = self.physical(parent).join(name);
                match std::fs::symlink_metadata(&candidate) {
                    Ok(md) if !md.file_type().is_symlink() => candidate,
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => candidate,
                    // A symlink (or an error): resolved in full.
                    _ => resolve_existing(dir),
                }
            }
            _ => resolve_existing(dir),
        }
    }

    /// Whether `dir` holds a `.git` (remembered while planning).
    pub(super) fn has_dot_git(&self, dir: &Path) -> bool {
        let look = || std::fs::symlink_metadata(dir.join(".git")).is_ok();
        let Some(lookups) = &self.lookups else {
            return look();
        };
        if let Some(hit) = lookups
            .lock()
            .ok()
            .and_then(|l| l.dot_git.get(dir).copied())
        {
            return hit;
        }
        let found = look();
        if let Ok(mut l) = lookups.lock() {
            l.dot_git.insert(dir.to_path_buf(), found);
        }
        found
    }
}

/// Canonicalises the longest existing ancestor of `p` and appends the rest: symlinked
/// directories along the way are resolved, missing tails are kept as written.
pub(super) fn resolve_existing(p: &Path) -> PathBuf {
    let mut existing = p.to_path_buf();
    let mut tail: Vec<PathBuf> = Vec::new();
    loop {
        if let Ok(c) = std::fs::canonicalize(&existing) {
            let mut out = c;
            for t in tail.iter().rev() {
                out.push(t);
            }
            return out;
        }
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                tail.push(PathBuf::from(name));
                existing = parent.to_path_buf();
            }
            _ => return p.to_path_buf(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sandbox::{normalize, Access, PathErrorCode};

    #[test]
    fn directories_are_found_as_canonicalize_finds_them_and_as_they_are_now() {
        let top = tempfile::tempdir().unwrap();
        let root = top.path().join("root");
        let outside = top.path().join("outside");
        std::fs::create_dir_all(root.join("a/b")).unwrap();
        std::fs::create_dir_all(root.join("real")).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(root.join("a/file"), "x").unwrap();
        std::os::unix::fs::symlink(root.join("real"), root.join("inner")).unwrap();
        let sandbox = Sandbox::new(&root, false).unwrap();
        let root = sandbox.root().to_path_buf();
        for dir in [
            "",
            "a",
            "a/b",
            "a/missing",
            "a/missing/deeper",
            "a/file",
            "a/file/below",
            "inner",
            "inner/x",
        ] {
            let lexical = normalize(&root.join(dir));
            assert_eq!(
                sandbox.physical(&lexical),
                resolve_existing(&lexical),
                "{dir:?}"
            );
        }
        // Nothing is remembered outside planning: a folder replaced by a symlink to outside
        // the root is seen at once, and what goes through it is refused.
        assert!(sandbox.resolve("a/b/new.txt", Access::Follow).is_ok());
        std::fs::remove_dir(root.join("a/b")).unwrap();
        std::os::unix::fs::symlink(&outside, root.join("a/b")).unwrap();
        let refused = sandbox.resolve("a/b/new.txt", Access::Follow).unwrap_err();
        assert_eq!(refused.code, PathErrorCode::SymlinkEscape);
    }
}
