//! The untracked files of the worktree, for a status that lists them (step-back parks them,
//! exec's changes are found by them). A walk of the worktree's directories that compares each
//! listing with the index's entries of that directory (found by binary search, so a directory
//! costs its own entries, not the index's), asks the ignore rules (`.gitignore`,
//! `info/exclude`, `core.excludesFile`, through gix) only about names the index does not
//! have, and does not enter ignored or nested repositories' directories. It runs beside the
//! parallel stat pass of the tracked files.
//!
//! What it lists is what git's status lists with `--untracked-files=all`: every untracked, not
//! ignored file (and symlink), sorted; a nested repository (a directory holding `.git`) as
//! the directory itself; empty directories not at all.

use std::collections::HashSet;
use std::os::unix::ffi::OsStrExt;

use gix::bstr::{BStr, BString, ByteSlice};
use gix::index::entry::Mode;

use super::index::Index;
use super::{GixContext, Repo, Result};

impl Repo {
    /// Every untracked, not ignored file of the worktree (see the module docs), sorted.
    pub(crate) fn untracked_files(&self, index: &Index) -> Result<Vec<BString>> {
        let stack = self
            .repo
            .excludes(&index.file, None, Default::default())
            .ctx("cannot read the ignore rules")?;
        let mut walk = Walk {
            repo: self,
            index,
            stack,
            out: Vec::new(),
        };
        walk.dir(BString::default(), Some(0..index.file.entries().len()))?;
        let mut out = walk.out;
        out.sort();
        Ok(out)
    }
}

struct Walk<'a> {
    repo: &'a Repo,
    index: &'a Index,
    stack: gix::AttributeStack<'a>,
    out: Vec<BString>,
}

impl Walk<'_> {
    /// Lists the directory `rel` (`""`: the worktree root); `tracked` is the range of index
    /// entries below it (`None`: an untracked directory).
    fn dir(&mut self, rel: BString, tracked: Option<std::ops::Range<usize>>) -> Result<()> {
        let abs = if rel.is_empty() {
            self.repo.workdir().to_path_buf()
        } else {
            self.repo.abs_path(rel.as_bstr())
        };
        let Ok(listing) = std::fs::read_dir(&abs) else {
            // Gone or unreadable: nothing of it can be listed (git says the same).
            return Ok(());
        };
        let prefix_len = if rel.is_empty() { 0 } else { rel.len() + 1 };
        let index = self.index;
        let (files, dirs) = match &tracked {
            Some(range) => children(index, range.clone(), prefix_len),
            None => (HashSet::new(), HashSet::new()),
        };
        for entry in listing.flatten() {
            let name = entry.file_name();
            let name = name.as_bytes();
            if name == b".git" || files.contains(name) {
                continue;
            }
            let mut path = rel.clone();
            if !path.is_empty() {
                path.push(b'/');
            }
            path.extend_from_slice(name);
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                if self.excluded(path.as_bstr(), true)? {
                    continue;
                }
                if dirs.contains(name) {
                    let mut sub = path.clone();
                    sub.push(b'/');
                    let range = index.file.prefixed_entries_range(sub.as_bstr());
                    self.dir(path, range)?;
                } else if entry.path().join(".git").symlink_metadata().is_ok() {
                    // A repository of its own: listed as the directory, not entered.
                    self.out.push(path);
                } else {
                    self.dir(path, None)?;
                }
            } else if (kind.is_file() || kind.is_symlink())
                && !self.excluded(path.as_bstr(), false)?
            {
                self.out.push(path);
            }
        }
        Ok(())
    }

    /// Whether the ignore rules exclude `path` (a directory when `dir`).
    fn excluded(&mut self, path: &BStr, dir: bool) -> Result<bool> {
        let p = gix::path::from_bstr(path).ctx(format!("invalid path '{path}'"))?;
        let mode = if dir { Mode::DIR } else { Mode::FILE };
        let platform = self
            .stack
            .at_path(&*p, Some(mode))
            .ctx(format!("cannot check whether '{path}' is ignored"))?;
        Ok(platform.is_excluded())
    }
}

/// The names of the files and directories `index` has directly in a directory whose entries
/// are `range` (each of their paths starts with the directory's `prefix_len` bytes). A
/// subdirectory's entries are skipped by a binary search, not one by one.
fn children(
    index: &Index,
    range: std::ops::Range<usize>,
    prefix_len: usize,
) -> (HashSet<&[u8]>, HashSet<&[u8]>) {
    let file = &*index.file;
    let entries = file.entries();
    let mut files = HashSet::new();
    let mut dirs = HashSet::new();
    let mut i = range.start;
    while i < range.end {
        let path: &[u8] = entries[i].path(file).as_ref();
        let rest = &path[prefix_len.min(path.len())..];
        match rest.find_byte(b'/') {
            None => {
                files.insert(rest);
                i += 1;
            }
            Some(slash) => {
                dirs.insert(&rest[..slash]);
                let sub = &path[..prefix_len + slash + 1];
                i = match file.prefixed_entries_range(sub.as_bstr()) {
                    Some(r) if r.end > i => r.end,
                    _ => i + 1,
                };
            }
        }
    }
    (files, dirs)
}
