//! Worktree files through directory handles ([`clada_base::beneath`], opened from the root
//! by [`Repo::worktree`]): what a commit is made of (the files hashed, the untracked files
//! saved) is read from a handle this layer opened, and what a restore writes or deletes goes
//! through the parent's handle — never a path the kernel resolves again, so a directory
//! swapped for a symlink to `.git` cannot put `.git/config` into a commit or a restore into
//! `.git`.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use gix::bstr::{BStr, ByteSlice};

use clada_base::beneath::{Dir, Entry, Meta};

use super::{io_err, Repo, Result};

/// The content git stores for a worktree entry.
#[derive(Debug)]
pub enum Content {
    /// A regular file's bytes.
    File(Vec<u8>),
    /// A symlink's target.
    Link(Vec<u8>),
}

fn missing(e: &std::io::Error) -> bool {
    e.kind() == std::io::ErrorKind::NotFound || e.raw_os_error() == Some(libc::ENOTDIR)
}

/// Nothing git would see is there: missing, or below a symlink (git never looks through a
/// leading symlink; a directory swapped for one is such a path too, and nothing is read
/// through it).
fn not_there(e: &std::io::Error) -> bool {
    missing(e)
        || clada_base::beneath::refusal(e) == Some(&clada_base::beneath::Refused::PathChanged)
}

impl Repo {
    /// `rel` as a relative path.
    fn rel_path(rel: &BStr) -> &Path {
        Path::new(OsStr::from_bytes(rel))
    }

    /// The parent handle of the worktree path `rel` and its final name; `None` when a parent
    /// directory is missing, is not one, or is a symlink (as git sees it: nothing there).
    pub fn wt_at<'a>(&self, rel: &'a BStr) -> Result<Option<(Dir, &'a OsStr)>> {
        let root = self.worktree()?;
        match root.parent(Self::rel_path(rel)) {
            Ok(x) => Ok(Some(x)),
            Err(e) if not_there(&e) => Ok(None),
            Err(e) => Err(io_err("cannot open the directory of", &self.abs_path(rel))(
                e,
            )),
        }
    }

    /// What is at the worktree path `rel` (a final link is not followed); `None` when nothing.
    pub fn worktree_metadata(&self, rel: &BStr) -> Result<Option<Meta>> {
        let Some((dir, name)) = self.wt_at(rel)? else {
            return Ok(None);
        };
        match dir.stat(name) {
            Ok(m) => Ok(m),
            Err(e) if missing(&e) => Ok(None),
            Err(e) => Err(io_err("cannot inspect", &self.abs_path(rel))(e)),
        }
    }

    /// What is at the worktree path `rel`, a regular file opened for reading, a link with its
    /// target (see [`clada_base::beneath::Root::open_entry`]); `None` when nothing is there.
    pub fn worktree_entry(&self, rel: &BStr) -> Result<Option<Entry>> {
        let root = self.worktree()?;
        match root.open_entry(Self::rel_path(rel)) {
            Ok(e) => Ok(Some(e)),
            Err(e) if not_there(&e) => Ok(None),
            Err(e) => Err(io_err("cannot read", &self.abs_path(rel))(e)),
        }
    }

    /// What git would store for the worktree path `rel` before filters: a file's bytes or a
    /// link's target, read through handles; `None` when nothing trackable is there.
    pub fn worktree_content(&self, rel: &BStr) -> Result<Option<(Content, Meta)>> {
        use std::io::Read;
        Ok(match self.worktree_entry(rel)? {
            None | Some(Entry::Other(_)) => None,
            Some(Entry::Link(t, m)) => Some((Content::Link(t.as_os_str().as_bytes().to_vec()), m)),
            Some(Entry::File(mut f, m)) => {
                let mut bytes = Vec::with_capacity(m.len as usize);
                f.read_to_end(&mut bytes)
                    .map_err(|e| io_err("cannot read", &self.abs_path(rel))(e))?;
                Some((Content::File(bytes), m))
            }
        })
    }

    /// Opens the regular file at `rel` for reading through handles (never through a link);
    /// `None` when it is not there.
    pub fn worktree_open(&self, rel: &BStr) -> Result<Option<std::fs::File>> {
        let Some((dir, name)) = self.wt_at(rel)? else {
            return Ok(None);
        };
        match dir.open_read(name) {
            Ok(f) => Ok(Some(f)),
            Err(e) if missing(&e) => Ok(None),
            Err(e) => Err(io_err("cannot read", &self.abs_path(rel))(e)),
        }
    }

    /// Removes the file or symlink at `rel` (a directory there is left alone) and prunes the
    /// directories that leaves empty, up to the root.
    pub fn worktree_remove_file(&self, rel: &BStr) -> Result<()> {
        if let Some((dir, name)) = self.wt_at(rel)? {
            match dir.stat(name) {
                Ok(Some(m)) if !m.is_dir() => dir
                    .unlink(name)
                    .map_err(|e| io_err("cannot delete", &self.abs_path(rel))(e))?,
                Ok(_) => {}
                Err(e) if missing(&e) => {}
                Err(e) => return Err(io_err("cannot inspect", &self.abs_path(rel))(e)),
            }
        }
        self.worktree_prune(rel)
    }

    /// Removes the empty directories above `rel`, deepest first, stopping at the root or at
    /// the first one with something in it.
    pub fn worktree_prune(&self, rel: &BStr) -> Result<()> {
        let mut dir = Self::rel_path(rel).parent();
        while let Some(d) = dir.filter(|d| !d.as_os_str().is_empty()) {
            let Some((parent, name)) = self.wt_at(d.as_os_str().as_bytes().as_bstr())? else {
                break;
            };
            if parent.rmdir(name).is_err() {
                break;
            }
            dir = d.parent();
        }
        Ok(())
    }

    /// The directory `rel`, created with its missing parents (nothing is replaced: a file in
    /// the way is an error).
    pub fn worktree_dirs(&self, rel: &BStr) -> Result<Dir> {
        let root = self.worktree()?;
        root.create_dirs(Self::rel_path(rel))
            .map(|(d, _)| d)
            .map_err(|e| io_err("cannot create directory", &self.abs_path(rel))(e))
    }

    /// The parent directory of `rel`, created when missing, and the final name.
    pub fn worktree_parent<'a>(&self, rel: &'a BStr) -> Result<(Dir, &'a OsStr)> {
        let path = Self::rel_path(rel);
        let name = path
            .file_name()
            .filter(|n| !n.as_bytes().eq_ignore_ascii_case(b".git"))
            .ok_or_else(|| super::RepoError::Invalid(format!("'{rel}' names no worktree file")))?;
        let parent = path.parent().unwrap_or(Path::new(""));
        let dir = self.worktree_dirs(parent.as_os_str().as_bytes().as_bstr())?;
        Ok((dir, name))
    }
}
