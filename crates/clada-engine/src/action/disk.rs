//! The disk under [`super::fsx::Vfs`]: every operation on a path inside the worktree goes
//! through directory handles opened from the root ([`clada_base::beneath`]) and ends in an
//! `*at` call on the parent's handle, so a directory swapped for a symlink after the sandbox
//! checked the path cannot redirect it (the operation fails with `path_changed` instead).
//! Paths outside the worktree exist only with `--allow-outside` (the user's choice; never
//! committed) and are used by name.

use std::ffi::OsStr;
use std::io;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use clada_base::beneath::{Dir, Meta, Root};
use clada_base::fsutil::Perm;

use super::FileState;

fn errno(code: i32) -> io::Error {
    io::Error::from_raw_os_error(code)
}

/// The kind of a directory entry, without reading file contents.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryKind {
    File { len: u64, executable: bool },
    Dir,
    Symlink,
}

fn kind_of(m: &Meta) -> EntryKind {
    if m.is_symlink() {
        EntryKind::Symlink
    } else if m.is_dir() {
        EntryKind::Dir
    } else {
        EntryKind::File {
            len: m.len,
            executable: m.is_executable(),
        }
    }
}

fn missing(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::NotFound || e.raw_os_error() == Some(libc::ENOTDIR)
}

/// How many symlinks a read follows (within the worktree) before it gives up, as `ELOOP`.
const MAX_LINKS: usize = 8;

/// A folder handle and the root-relative path it was opened at.
type KeptDir = (PathBuf, Arc<Dir>);

/// The worktree's disk, for one reply.
#[derive(Debug, Clone)]
pub struct Disk {
    root: Arc<Root>,
    /// The folder the last operation opened, by its root-relative path: one block's
    /// operations on one file (its state for the journal, the read, the write) go through the
    /// handle opened once, what the lesson "check what you opened" asks. Forgotten at the
    /// start of every block ([`Disk::forget`], since an exec block may have moved folders) and
    /// by every operation here that makes, removes or moves an entry other than a file's
    /// content.
    last: Arc<Mutex<Option<KeptDir>>>,
    /// How many operations made, removed or moved an entry other than a file's content:
    /// what a folder looked up before may no longer be where it was (see
    /// [`Disk::changes`]).
    changes: Arc<std::sync::atomic::AtomicU64>,
}

impl Disk {
    pub fn new(root: Arc<Root>) -> Disk {
        Disk {
            root,
            last: Default::default(),
            changes: Default::default(),
        }
    }

    /// A count that grows with every operation that made, removed or moved a folder entry
    /// (not a file's content): equal counts mean the folders are as they were.
    pub fn changes(&self) -> u64 {
        self.changes.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Before an operation that makes, removes or moves an entry: the kept handle is
    /// forgotten and the change counted.
    fn changing(&self) {
        self.forget();
        self.changes
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }

    /// Forgets the folder handle kept from earlier operations.
    pub fn forget(&self) {
        if let Ok(mut last) = self.last.lock() {
            *last = None;
        }
    }

    pub fn root(&self) -> &Root {
        &self.root
    }

    /// The parent handle and final name of `p`, or `None` when `p` is outside the root (or is
    /// the root itself, which the user chose and no action changes).
    fn at<'a>(&self, p: &'a Path) -> Option<io::Result<(Arc<Dir>, &'a OsStr)>> {
        let rel = self.root.rel(p).filter(|r| !r.as_os_str().is_empty())?;
        let parent = rel.parent().unwrap_or(Path::new(""));
        let kept = self.last.lock().ok().and_then(|last| {
            last.as_ref()
                .filter(|(at, _)| at == parent)
                .map(|(_, dir)| dir.clone())
        });
        if let Some(dir) = kept {
            return Some(Root::final_name(rel).map(|name| (dir, name)));
        }
        Some(self.root.parent(rel).map(|(dir, name)| {
            let dir = Arc::new(dir);
            if let Ok(mut last) = self.last.lock() {
                *last = Some((parent.to_path_buf(), dir.clone()));
            }
            (dir, name)
        }))
    }

    /// What is at `p` (a final symlink is not followed).
    pub fn kind(&self, p: &Path) -> io::Result<EntryKind> {
        match self.at(p) {
            Some(at) => {
                let (dir, name) = at?;
                match dir.stat(name)? {
                    Some(m) => Ok(kind_of(&m)),
                    None => Err(errno(libc::ENOENT)),
                }
            }
            None => {
                let md = std::fs::symlink_metadata(p)?;
                let ft = md.file_type();
                Ok(if ft.is_symlink() {
                    EntryKind::Symlink
                } else if ft.is_dir() {
                    EntryKind::Dir
                } else {
                    EntryKind::File {
                        len: md.len(),
                        executable: md.permissions().mode() & 0o111 != 0,
                    }
                })
            }
        }
    }

    /// The whole state at `p` (contents included; a final link is not followed).
    pub fn state(&self, p: &Path) -> io::Result<FileState> {
        let Some(at) = self.at(p) else {
            return outside_state(p);
        };
        let (dir, name) = match at {
            Ok(x) => x,
            Err(e) if missing(&e) => return Ok(FileState::Absent),
            Err(e) => return Err(e),
        };
        match dir.stat(name) {
            Ok(None) => Ok(FileState::Absent),
            Ok(Some(m)) if m.is_dir() => Ok(FileState::Dir),
            Ok(Some(m)) if m.is_symlink() => Ok(FileState::Symlink {
                target: dir.read_link(name)?,
            }),
            Ok(Some(_)) => {
                let (bytes, m) = dir.read(name)?;
                Ok(FileState::File {
                    bytes,
                    executable: m.is_executable(),
                })
            }
            Err(e) if missing(&e) => Ok(FileState::Absent),
            Err(e) => Err(e),
        }
    }

    /// The content of the file at `p`, following a final symlink as `open` does — within the
    /// worktree only: a link leading out of it or into `.git` is refused.
    pub fn read(&self, p: &Path) -> io::Result<Vec<u8>> {
        let mut path = p.to_path_buf();
        for _ in 0..MAX_LINKS {
            let Some(at) = self.at(&path) else {
                if std::fs::metadata(&path)?.is_dir() {
                    return Err(errno(libc::EISDIR));
                }
                return std::fs::read(&path);
            };
            let (dir, name) = at?;
            match dir.stat(name)? {
                None => return Err(errno(libc::ENOENT)),
                Some(m) if m.is_symlink() => {
                    let target = dir.read_link(name)?;
                    let parent = path.parent().unwrap_or(Path::new("/"));
                    path = crate::sandbox::normalize(&parent.join(target));
                    if self.root.rel(&path).is_none() {
                        return Err(errno(libc::EACCES));
                    }
                }
                Some(_) => return dir.read(name).map(|(b, _)| b),
            }
        }
        Err(errno(libc::ELOOP))
    }

    /// Whether `p` is a directory, following a final symlink within the worktree.
    pub fn is_dir_following(&self, p: &Path) -> bool {
        match self.root.rel(p) {
            Some(rel) => self.root.dir(rel).is_ok(),
            None => std::fs::metadata(p).map(|m| m.is_dir()).unwrap_or(false),
        }
    }

    /// Names and kinds in the directory `p`.
    pub fn list(&self, p: &Path) -> io::Result<Vec<(String, EntryKind)>> {
        match self.root.rel(p) {
            Some(rel) => Ok(self
                .root
                .dir(rel)?
                .list()?
                .into_iter()
                .map(|(n, m)| (n.to_string_lossy().into_owned(), kind_of(&m)))
                .collect()),
            None => {
                let mut out = Vec::new();
                for e in std::fs::read_dir(p)? {
                    let e = e?;
                    if let Ok(k) = self.kind(&e.path()) {
                        out.push((e.file_name().to_string_lossy().into_owned(), k));
                    }
                }
                Ok(out)
            }
        }
    }

    /// Creates the directory `p` (its parent exists).
    pub fn mkdir(&self, p: &Path) -> io::Result<()> {
        self.changing();
        match self.at(p) {
            Some(at) => {
                let (dir, name) = at?;
                match dir.mkdir(name) {
                    Err(e) if e.kind() == io::ErrorKind::AlreadyExists => match dir.stat(name)? {
                        Some(m) if m.is_dir() => Ok(()),
                        _ => Err(e),
                    },
                    other => other,
                }
            }
            None => match std::fs::create_dir(p) {
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists && p.is_dir() => Ok(()),
                other => other,
            },
        }
    }

    /// Writes `bytes` to `p` atomically, keeping an existing file's permission bits (a new
    /// one gets 0666, or 0777 with `new_executable`, less the umask).
    pub fn write(&self, p: &Path, bytes: &[u8], new_executable: bool) -> io::Result<()> {
        let perm = Perm::KeepExisting {
            executable_if_new: new_executable,
        };
        match self.at(p) {
            Some(at) => {
                let (dir, name) = at?;
                dir.write_atomic(name, bytes, perm, "engine:before-rename")
            }
            None => clada_base::fsutil::write_atomic_at(p, bytes, perm, "engine:before-rename"),
        }
    }

    /// Sets or clears the executable bits of the file at `p` (`x` where `r` is set).
    pub fn set_executable(&self, p: &Path, on: bool) -> io::Result<()> {
        let f = |mode: u32| {
            if on {
                mode | ((mode & 0o444) >> 2)
            } else {
                mode & !0o111
            }
        };
        match self.at(p) {
            Some(at) => {
                let (dir, name) = at?;
                dir.set_mode(name, f)
            }
            None => {
                let mode = std::fs::metadata(p)?.permissions().mode();
                std::fs::set_permissions(p, std::fs::Permissions::from_mode(f(mode)))
            }
        }
    }

    /// Removes the empty directory `p`.
    pub fn rmdir(&self, p: &Path) -> io::Result<()> {
        self.changing();
        match self.at(p) {
            Some(at) => {
                let (dir, name) = at?;
                dir.rmdir(name)
            }
            None => std::fs::remove_dir(p),
        }
    }

    /// Removes the file or symlink `p`.
    pub fn unlink(&self, p: &Path) -> io::Result<()> {
        self.changing();
        match self.at(p) {
            Some(at) => {
                let (dir, name) = at?;
                dir.unlink(name)
            }
            None => std::fs::remove_file(p),
        }
    }

    /// Removes whatever is at `p` (a directory with everything below it); nothing there is
    /// fine.
    pub fn remove_any(&self, p: &Path) -> io::Result<()> {
        self.changing();
        match self.at(p) {
            Some(at) => {
                let (dir, name) = match at {
                    Ok(x) => x,
                    Err(e) if missing(&e) => return Ok(()),
                    Err(e) => return Err(e),
                };
                dir.remove_tree(name, &self.root)
            }
            None => match std::fs::symlink_metadata(p) {
                Ok(m) if m.is_dir() => std::fs::remove_dir_all(p),
                Ok(_) => std::fs::remove_file(p),
                Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
                Err(e) => Err(e),
            },
        }
    }

    /// Renames `from` to `to` (both inside the root, or both outside it).
    pub fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        self.changing();
        match (self.at(from), self.at(to)) {
            (Some(a), Some(b)) => {
                let ((da, na), (db, nb)) = (a?, b?);
                da.rename(na, &db, nb)
            }
            (None, None) => std::fs::rename(from, to),
            // Across the root's edge: by name, as only --allow-outside makes such a move.
            _ => std::fs::rename(from, to),
        }
    }

    /// Replaces whatever is at `p` with a symlink to `target`.
    pub fn symlink(&self, p: &Path, target: &Path) -> io::Result<()> {
        self.changing();
        match self.at(p) {
            Some(at) => {
                let (dir, name) = at?;
                dir.symlink_atomic(name, target)
            }
            None => clada_base::fsutil::symlink_atomic(p, target),
        }
    }

    /// Creates the directory `p` and its missing parents.
    pub fn create_dirs(&self, p: &Path) -> io::Result<()> {
        self.changing();
        match self.root.rel(p) {
            Some(rel) => self.root.create_dirs(rel).map(|_| ()),
            None => std::fs::create_dir_all(p),
        }
    }
}

fn outside_state(p: &Path) -> io::Result<FileState> {
    let md = match std::fs::symlink_metadata(p) {
        Ok(md) => md,
        Err(e) if missing(&e) => return Ok(FileState::Absent),
        Err(e) => return Err(e),
    };
    let ft = md.file_type();
    Ok(if ft.is_symlink() {
        FileState::Symlink {
            target: std::fs::read_link(p)?,
        }
    } else if ft.is_dir() {
        FileState::Dir
    } else {
        FileState::File {
            bytes: std::fs::read(p)?,
            executable: md.permissions().mode() & 0o111 != 0,
        }
    })
}
