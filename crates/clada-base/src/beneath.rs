//! The worktree as directory handles: every file system operation of the engine on a worktree
//! path (read, write, create, rename, delete, mkdir, chmod, symlink, restore) is an `*at` call
//! on a handle of the path's parent directory, and that handle is opened from a handle of the
//! worktree root — never a path string the kernel resolves again (DESIGN §5.1). A process that
//! swaps a checked directory for a symlink between the sandbox's check and the write (a
//! daemon an approved `npm install` left, an editor plugin) then cannot redirect the write:
//! the walk refuses the link and the action fails with `path_changed`.
//!
//! How a directory is reached ([`Root::dir`]): one `openat2` from the root handle with
//! `RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS` (the sandbox hands over
//! physical paths — in-root links already resolved — so no component may be a link now);
//! where `openat2` is missing (`ENOSYS`, kernels before 5.6) or forbidden (`EPERM`, older
//! container seccomp profiles), a walk of `openat(O_PATH | O_DIRECTORY | O_NOFOLLOW)` one
//! component at a time. A concurrent rename makes `openat2` answer `EAGAIN`: it is retried a
//! few times, then the operation fails with `path_changed` ("a directory of this path was
//! replaced while git-clada was writing; nothing was written"). `GIT_CLADA_NO_OPENAT2=1`
//! forces the walk (the tests run both).
//!
//! Git directories: a component named `.git` (any case) is refused by name. Every git
//! directory of the repository (the git dir, the common dir of a linked worktree) is also
//! known by device and inode ([`Root::guard_git_dirs`]); when one of them lies inside the
//! worktree under another name, every directory is reached by the walk and each one walked is
//! compared with them all, so an in-root link or name leading into one is refused. Otherwise
//! the kernel's `RESOLVE_NO_SYMLINKS` walk visits exactly the names of the path, none of which
//! is a git directory.
//!
//! Why a small module over `rustix` and not `cap-std`: `cap_std::fs::Dir` follows in-root
//! symlinks and has no per-component hook, so the git-directory check needs a walk of its own
//! either way; the `EAGAIN`/`ENOSYS`/`EPERM` policy and the `path_changed` error are ours; and
//! `rustix` is already in the dependency tree (through `tempfile`), where `cap-std` would add
//! `cap-primitives`, `cap-tempfile` and their dependencies for a dozen system calls.

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io::{self, Write};
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::OnceLock;

use rustix::fs::{AtFlags, Mode, OFlags, RenameFlags, Stat};

use crate::platform;

/// Why an operation on a worktree path was refused (inside an `io::Error` of kind `Other`;
/// see [`refusal`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refused {
    /// A directory of the path is not what the sandbox checked (now a symlink, or replaced
    /// while it was being opened).
    #[error(
        "a directory of this path was replaced while git-clada was writing; nothing was written"
    )]
    PathChanged,
    /// The path leads into a git directory.
    #[error("this path leads into a git directory, which git-clada never changes or reads; nothing was written")]
    GitDir,
}

/// The refusal inside `e`, if it is one.
pub fn refusal(e: &io::Error) -> Option<&Refused> {
    e.get_ref().and_then(|x| x.downcast_ref::<Refused>())
}

fn refused(r: Refused) -> io::Error {
    io::Error::other(r)
}

/// How many times an `openat2` interrupted by a concurrent rename (`EAGAIN`) is tried again.
const EAGAIN_RETRIES: usize = 8;

/// Whether `openat2` works here: 0 not known yet, 1 yes, 2 no (the walk is used).
/// `GIT_CLADA_NO_OPENAT2` set starts it at 2, so the tests run the walk too.
static OPENAT2: AtomicU8 = AtomicU8::new(0);

/// Whether `openat2` may be tried (not known to be missing or forbidden here).
fn try_openat2() -> bool {
    static FORCED_OFF: OnceLock<bool> = OnceLock::new();
    if *FORCED_OFF.get_or_init(|| std::env::var_os("GIT_CLADA_NO_OPENAT2").is_some()) {
        return false;
    }
    OPENAT2.load(Ordering::Relaxed) != 2
}

/// The git directories, by device and inode.
#[derive(Debug, Default)]
struct Guard {
    ids: Vec<(u64, u64)>,
    /// One of them lies inside the worktree under a name other than `.git`.
    inside: bool,
}

/// A handle of the worktree root.
#[derive(Debug)]
pub struct Root {
    fd: OwnedFd,
    path: PathBuf,
    guard: OnceLock<Guard>,
}

/// A handle of a directory below (or at) the root, reached by [`Root::dir`].
#[derive(Debug)]
pub struct Dir {
    fd: OwnedFd,
}

fn id(st: &Stat) -> (u64, u64) {
    (st.st_dev, st.st_ino)
}

fn is_git_name(name: &OsStr) -> bool {
    name.as_bytes().eq_ignore_ascii_case(b".git")
}

/// The names of `rel`, refusing anything but plain names (no `..`, no root) and `.git`.
fn names(rel: &Path) -> io::Result<Vec<&OsStr>> {
    let mut out = Vec::new();
    for c in rel.components() {
        match c {
            Component::Normal(n) if is_git_name(n) => return Err(refused(Refused::GitDir)),
            Component::Normal(n) => out.push(n),
            Component::CurDir => {}
            _ => return Err(io::Error::from_raw_os_error(libc::EINVAL)),
        }
    }
    Ok(out)
}

const DIR_FLAGS: OFlags = platform::DIR_HANDLE
    .union(OFlags::DIRECTORY)
    .union(OFlags::NOFOLLOW)
    .union(OFlags::CLOEXEC);

impl Root {
    /// Opens the root `path` (the sandbox's canonical root; followed if it is a link: the
    /// root itself is the user's choice). Its `.git` directory, if any, is guarded at once.
    pub fn open(path: &Path) -> io::Result<Root> {
        let fd = rustix::fs::open(
            path,
            platform::DIR_HANDLE | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
        )?;
        Ok(Root {
            fd,
            path: path.to_path_buf(),
            guard: OnceLock::new(),
        })
    }

    /// Guards the repository's git directories (the git dir, the common dir): no directory
    /// reached through this root may be one of them or lie inside one of them. Set once; a
    /// later call changes nothing.
    pub fn guard_git_dirs(&self, dirs: &[&Path]) {
        let mut g = Guard::default();
        let dot_git = self.path.join(".git");
        for d in dirs.iter().copied().chain([dot_git.as_path()]) {
            let Ok(st) = rustix::fs::stat(d) else {
                continue;
            };
            if g.ids.contains(&id(&st)) {
                continue;
            }
            g.ids.push(id(&st));
            let canonical = std::fs::canonicalize(d).unwrap_or_else(|_| d.to_path_buf());
            if let Ok(rel) = canonical.strip_prefix(&self.path) {
                g.inside |= rel.as_os_str().is_empty() || names(rel).is_ok();
            }
        }
        let _ = self.guard.set(g);
    }

    fn guard(&self) -> &Guard {
        self.guard.get_or_init(|| {
            let mut g = Guard::default();
            if let Ok(st) = rustix::fs::stat(self.path.join(".git")) {
                g.ids.push(id(&st));
            }
            g
        })
    }

    /// The root's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// `abs` relative to the root, when it is inside it.
    pub fn rel<'a>(&self, abs: &'a Path) -> Option<&'a Path> {
        abs.strip_prefix(&self.path).ok()
    }

    /// A handle of the directory `rel` (relative to the root; empty: the root).
    pub fn dir(&self, rel: &Path) -> io::Result<Dir> {
        let names = names(rel)?;
        if names.is_empty() {
            return Ok(Dir {
                fd: rustix::fs::openat(&self.fd, ".", DIR_FLAGS, Mode::empty())?,
            });
        }
        let guard = self.guard();
        if !guard.inside && try_openat2() {
            match self.openat2(rel) {
                Err(e) if platform::openat2_unusable(&e) => {
                    OPENAT2.store(2, Ordering::Relaxed);
                }
                other => {
                    OPENAT2.store(1, Ordering::Relaxed);
                    return other;
                }
            }
        }
        self.walk(&names)
    }

    fn openat2(&self, rel: &Path) -> io::Result<Dir> {
        for _ in 0..EAGAIN_RETRIES {
            match platform::openat2_beneath(self.fd.as_fd(), rel, DIR_FLAGS) {
                Ok(fd) => return Ok(Dir { fd }),
                Err(rustix::io::Errno::AGAIN) => continue,
                // A component is a symlink now, or the path was moved out from under the root.
                Err(rustix::io::Errno::LOOP | rustix::io::Errno::XDEV) => {
                    return Err(refused(Refused::PathChanged))
                }
                Err(rustix::io::Errno::NOTDIR) => return Err(self.not_a_dir(rel)),
                Err(e) => return Err(e.into()),
            }
        }
        Err(refused(Refused::PathChanged))
    }

    /// `ENOTDIR` on the way to `rel`: `path_changed` when a component is a symlink (the
    /// sandbox handed over a path without any), else the plain error.
    fn not_a_dir(&self, rel: &Path) -> io::Error {
        match self.walk(&names(rel).unwrap_or_default()) {
            Err(e) => e,
            Ok(_) => io::Error::from_raw_os_error(libc::ENOTDIR),
        }
    }

    /// Reaches `names` one component at a time, comparing every directory with the git dirs.
    fn walk(&self, names: &[&OsStr]) -> io::Result<Dir> {
        let guard = self.guard();
        let mut cur = Dir {
            fd: rustix::fs::openat(&self.fd, ".", DIR_FLAGS, Mode::empty())?,
        };
        for name in names {
            cur = cur.sub_checked(name, &guard.ids)?;
        }
        Ok(cur)
    }

    /// The parent directory of `rel` and its final name.
    pub fn parent<'a>(&self, rel: &'a Path) -> io::Result<(Dir, &'a OsStr)> {
        let name = Root::final_name(rel)?;
        let dir = self.dir(rel.parent().unwrap_or(Path::new("")))?;
        Ok((dir, name))
    }

    /// The final name of `rel`, as [`Root::parent`] checks it (none, or `.git`, refused).
    pub fn final_name(rel: &Path) -> io::Result<&OsStr> {
        let name = rel
            .file_name()
            .ok_or_else(|| io::Error::from_raw_os_error(libc::EINVAL))?;
        if is_git_name(name) {
            return Err(refused(Refused::GitDir));
        }
        Ok(name)
    }

    /// The directory `rel`, created with its missing parents (mode 0777 less the umask);
    /// the names created, outermost first.
    pub fn create_dirs(&self, rel: &Path) -> io::Result<(Dir, Vec<PathBuf>)> {
        match self.dir(rel) {
            Ok(d) => return Ok((d, Vec::new())),
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
        let guard = self.guard();
        let mut cur = self.dir(Path::new(""))?;
        let mut made = Vec::new();
        let mut at = PathBuf::new();
        for name in names(rel)? {
            at.push(name);
            match rustix::fs::mkdirat(&cur.fd, name, Mode::from_bits_truncate(0o777)) {
                Ok(()) => made.push(at.clone()),
                Err(rustix::io::Errno::EXIST) => {}
                Err(e) => return Err(e.into()),
            }
            cur = cur.sub_checked(name, &guard.ids)?;
        }
        Ok((cur, made))
    }

    /// What is at `rel`, opened for reading when it is a regular file: one `openat2` for the
    /// common case (a regular file, no link on the way), the parent's handle otherwise.
    /// Never follows a link (a final one is [`Entry::Link`]); nothing there is `NotFound`.
    pub fn open_entry(&self, rel: &Path) -> io::Result<Entry> {
        let fast = !self.guard().inside && try_openat2();
        if fast && !names(rel)?.is_empty() {
            let flags = OFlags::RDONLY
                | OFlags::NOFOLLOW
                | OFlags::NONBLOCK
                | OFlags::NOCTTY
                | OFlags::CLOEXEC;
            for _ in 0..EAGAIN_RETRIES {
                match platform::openat2_beneath(self.fd.as_fd(), rel, flags) {
                    Ok(fd) => {
                        OPENAT2.store(1, Ordering::Relaxed);
                        let file = File::from(fd);
                        let meta = Meta::of_file(&file)?;
                        return Ok(match meta.is_file() {
                            true => Entry::File(file, meta),
                            false => Entry::Other(meta),
                        });
                    }
                    Err(rustix::io::Errno::AGAIN) => continue,
                    // A link on the way or at the end: the parent's handle tells which.
                    Err(rustix::io::Errno::LOOP) => break,
                    Err(rustix::io::Errno::NOSYS | rustix::io::Errno::PERM) => {
                        OPENAT2.store(2, Ordering::Relaxed);
                        break;
                    }
                    Err(e) => return Err(e.into()),
                }
            }
        }
        let (dir, name) = self.parent(rel)?;
        dir.entry(name)
    }

    /// Whether `dir` is one of the guarded git directories.
    pub fn is_git_dir(&self, dir: &Dir) -> io::Result<bool> {
        Ok(self.guard().ids.contains(&id(&rustix::fs::fstat(&dir.fd)?)))
    }

    /// The git directory ids, for [`Dir::remove_tree`].
    pub fn git_ids(&self) -> &[(u64, u64)] {
        &self.guard().ids
    }
}

/// What [`Root::open_entry`] found.
#[derive(Debug)]
pub enum Entry {
    /// A regular file, open for reading.
    File(File, Meta),
    /// A symlink and its target.
    Link(PathBuf, Meta),
    /// A directory, a FIFO, a device…
    Other(Meta),
}

/// What is at a name, without following a final symlink.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Meta {
    pub mode: u32,
    pub len: u64,
    pub dev: u64,
    pub ino: u64,
}

impl Meta {
    fn of(st: &Stat) -> Meta {
        Meta {
            mode: st.st_mode,
            len: st.st_size as u64,
            dev: st.st_dev,
            ino: st.st_ino,
        }
    }
    pub fn is_dir(&self) -> bool {
        self.mode & libc::S_IFMT == libc::S_IFDIR
    }
    pub fn is_file(&self) -> bool {
        self.mode & libc::S_IFMT == libc::S_IFREG
    }
    pub fn is_symlink(&self) -> bool {
        self.mode & libc::S_IFMT == libc::S_IFLNK
    }
    pub fn is_executable(&self) -> bool {
        self.mode & 0o111 != 0
    }
    /// What the opened `file` is.
    pub fn of_file(file: &File) -> io::Result<Meta> {
        Ok(Meta::of(&rustix::fs::fstat(file)?))
    }
    /// What it is, in words ("a named pipe (FIFO)").
    pub fn kind_name(&self) -> &'static str {
        match self.mode & libc::S_IFMT {
            libc::S_IFDIR => "a directory",
            libc::S_IFLNK => "a symbolic link",
            libc::S_IFIFO => "a named pipe (FIFO)",
            libc::S_IFCHR => "a character device",
            libc::S_IFBLK => "a block device",
            libc::S_IFSOCK => "a socket",
            libc::S_IFREG => "a regular file",
            _ => "not a file",
        }
    }
    /// The permission bits.
    pub fn perm(&self) -> u32 {
        self.mode & 0o7777
    }
}

impl Dir {
    /// The subdirectory `name` (not followed if it is a link: that is `path_changed`),
    /// refused when it is one of the git directories `git`.
    fn sub_checked(&self, name: &OsStr, git: &[(u64, u64)]) -> io::Result<Dir> {
        if is_git_name(name) {
            return Err(refused(Refused::GitDir));
        }
        let fd = match rustix::fs::openat(&self.fd, name, DIR_FLAGS, Mode::empty()) {
            Ok(fd) => fd,
            Err(rustix::io::Errno::NOTDIR | rustix::io::Errno::LOOP) => {
                return Err(match self.stat(name) {
                    Ok(Some(m)) if m.is_symlink() => refused(Refused::PathChanged),
                    _ => io::Error::from_raw_os_error(libc::ENOTDIR),
                })
            }
            Err(e) => return Err(e.into()),
        };
        if git.contains(&id(&rustix::fs::fstat(&fd)?)) {
            return Err(refused(Refused::GitDir));
        }
        Ok(Dir { fd })
    }

    /// The subdirectory `name`, with the checks of the walk.
    pub fn sub(&self, name: &OsStr, root: &Root) -> io::Result<Dir> {
        self.sub_checked(name, root.git_ids())
    }

    /// What is at `name` (a final link is not followed); `None` when nothing is.
    pub fn stat(&self, name: &OsStr) -> io::Result<Option<Meta>> {
        match rustix::fs::statat(&self.fd, name, AtFlags::SYMLINK_NOFOLLOW) {
            Ok(st) => Ok(Some(Meta::of(&st))),
            Err(rustix::io::Errno::NOENT) => Ok(None),
            Err(e) => Err(e.into()),
        }
    }

    /// Opens the file `name` for reading, never through a link and never blocking (a FIFO
    /// opens and reads as empty); the caller checks what was opened with `File::metadata`.
    pub fn open_read(&self, name: &OsStr) -> io::Result<File> {
        let flags =
            OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC;
        match rustix::fs::openat(&self.fd, name, flags, Mode::empty()) {
            Ok(fd) => Ok(File::from(fd)),
            Err(rustix::io::Errno::LOOP) => Err(io::Error::from_raw_os_error(libc::ELOOP)),
            Err(e) => Err(e.into()),
        }
    }

    /// What is at `name` (see [`Root::open_entry`]).
    pub fn entry(&self, name: &OsStr) -> io::Result<Entry> {
        match self.open_read(name) {
            Ok(file) => {
                let meta = Meta::of_file(&file)?;
                Ok(match meta.is_file() {
                    true => Entry::File(file, meta),
                    false => Entry::Other(meta),
                })
            }
            Err(e) if e.raw_os_error() == Some(libc::ELOOP) => match self.stat(name)? {
                Some(m) if m.is_symlink() => Ok(Entry::Link(self.read_link(name)?, m)),
                _ => Err(refused(Refused::PathChanged)),
            },
            // Not readable: what it is still decides (a directory without read permission).
            Err(e) if e.kind() == io::ErrorKind::PermissionDenied => match self.stat(name)? {
                Some(m) if !m.is_file() && !m.is_symlink() => Ok(Entry::Other(m)),
                _ => Err(e),
            },
            Err(e) => Err(e),
        }
    }

    /// The whole content of the regular file `name`, and what it is.
    pub fn read(&self, name: &OsStr) -> io::Result<(Vec<u8>, Meta)> {
        use std::io::Read;
        let mut f = self.open_read(name)?;
        let st = rustix::fs::fstat(&f)?;
        let meta = Meta::of(&st);
        if meta.is_dir() {
            return Err(io::Error::from_raw_os_error(libc::EISDIR));
        }
        if !meta.is_file() {
            return Err(io::Error::from_raw_os_error(libc::EINVAL));
        }
        // Sized from the `fstat` just made, one byte more to see the end: `read_to_end`
        // would ask the kernel for the size and the position again first.
        let mut bytes = vec![0u8; meta.len as usize + 1];
        let mut filled = 0;
        loop {
            if filled == bytes.len() {
                bytes.resize(filled + filled.max(8192), 0);
            }
            match f.read(&mut bytes[filled..]) {
                Ok(0) => break,
                Ok(n) => filled += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        bytes.truncate(filled);
        Ok((bytes, meta))
    }

    /// The target of the symlink `name`.
    pub fn read_link(&self, name: &OsStr) -> io::Result<PathBuf> {
        let t = rustix::fs::readlinkat(&self.fd, name, Vec::new())?;
        Ok(PathBuf::from(OsStr::from_bytes(t.as_bytes())))
    }

    /// Creates the directory `name` (0777 less the umask).
    pub fn mkdir(&self, name: &OsStr) -> io::Result<()> {
        Ok(rustix::fs::mkdirat(
            &self.fd,
            name,
            Mode::from_bits_truncate(0o777),
        )?)
    }

    /// Removes the file or symlink `name`.
    pub fn unlink(&self, name: &OsStr) -> io::Result<()> {
        Ok(rustix::fs::unlinkat(&self.fd, name, AtFlags::empty())?)
    }

    /// Removes the empty directory `name`.
    pub fn rmdir(&self, name: &OsStr) -> io::Result<()> {
        Ok(rustix::fs::unlinkat(&self.fd, name, AtFlags::REMOVEDIR)?)
    }

    /// Renames `name` to `to_name` in `to` (replacing what is there, as `rename(2)`).
    pub fn rename(&self, name: &OsStr, to: &Dir, to_name: &OsStr) -> io::Result<()> {
        Ok(rustix::fs::renameat(&self.fd, name, &to.fd, to_name)?)
    }

    /// Swaps `name` and `other` (`RENAME_EXCHANGE`; both must exist).
    pub fn exchange(&self, name: &OsStr, other: &OsStr) -> io::Result<()> {
        Ok(rustix::fs::renameat_with(
            &self.fd,
            name,
            &self.fd,
            other,
            RenameFlags::EXCHANGE,
        )?)
    }

    /// Sets the permission bits of the file `name` (never through a link) to what `f` makes
    /// of the current ones.
    pub fn set_mode(&self, name: &OsStr, f: impl FnOnce(u32) -> u32) -> io::Result<()> {
        let flags = OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC;
        let fd = match rustix::fs::openat(&self.fd, name, flags | OFlags::RDONLY, Mode::empty()) {
            Err(rustix::io::Errno::ACCESS) => {
                rustix::fs::openat(&self.fd, name, flags | OFlags::WRONLY, Mode::empty())?
            }
            other => other?,
        };
        let now = rustix::fs::fstat(&fd)?.st_mode & 0o7777;
        let want = f(now);
        if want != now {
            rustix::fs::fchmod(&fd, Mode::from_bits_truncate(want))?;
        }
        Ok(())
    }

    /// Names and metadata of the entries (not `.`, `..`), in directory order.
    pub fn list(&self) -> io::Result<Vec<(OsString, Meta)>> {
        let fd = rustix::fs::openat(
            &self.fd,
            ".",
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
        )?;
        let mut out = Vec::new();
        for entry in rustix::fs::Dir::new(fd)? {
            let entry = entry?;
            let name = OsStr::from_bytes(entry.file_name().to_bytes());
            if name == "." || name == ".." {
                continue;
            }
            if let Some(meta) = self.stat(name)? {
                out.push((name.to_os_string(), meta));
            }
        }
        Ok(out)
    }

    /// Removes the tree at `name` (a directory and everything below it, or a file), through
    /// handles, never entering a git directory (`GitDir` then, with what was removed before
    /// it gone).
    pub fn remove_tree(&self, name: &OsStr, root: &Root) -> io::Result<()> {
        match self.stat(name)? {
            None => Ok(()),
            Some(m) if !m.is_dir() => self.unlink(name),
            Some(_) => {
                let sub = self.sub(name, root)?;
                for (child, _) in sub.list()? {
                    sub.remove_tree(&child, root)?;
                }
                self.rmdir(name)
            }
        }
    }

    /// Writes `data` to `name` through a temporary file in this directory renamed over it (see
    /// [`super::fsutil::write_atomic`]), with the permission bits `perm` chooses.
    pub fn write_atomic(
        &self,
        name: &OsStr,
        data: &[u8],
        perm: super::fsutil::Perm,
        fail_point: &str,
    ) -> io::Result<()> {
        let existing = self.stat(name)?;
        let (executable, keep) =
            super::fsutil::perm_bits(perm, existing.map(|m| (m.is_file(), m.perm())));
        let tmp = super::fsutil::temp_name(name);
        let result = (|| {
            let fd = rustix::fs::openat(
                &self.fd,
                tmp.as_os_str(),
                OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
                Mode::from_bits_truncate(if executable { 0o777 } else { 0o666 }),
            )?;
            let mut f = File::from(fd);
            f.write_all(data)?;
            if let Some(mode) = keep {
                rustix::fs::fchmod(&f, Mode::from_bits_truncate(mode))?;
            }
            drop(f);
            crate::failpoint::hit(fail_point);
            crate::reaper::replace_at(&self.fd, Path::new(&tmp), Path::new(name))
        })();
        if result.is_err() {
            let _ = self.unlink(&tmp);
        }
        result
    }

    /// Replaces whatever is at `name` (not a directory) with a symlink to `target`, atomically.
    pub fn symlink_atomic(&self, name: &OsStr, target: &Path) -> io::Result<()> {
        let tmp = super::fsutil::temp_name(name);
        rustix::fs::symlinkat(target, &self.fd, tmp.as_os_str())?;
        let result = self.rename(&tmp, self, name);
        if result.is_err() {
            let _ = self.unlink(&tmp);
        }
        result
    }

    /// This directory's device and inode.
    pub fn id(&self) -> io::Result<(u64, u64)> {
        Ok(id(&rustix::fs::fstat(&self.fd)?))
    }

    /// The raw handle, for callers that need one more `*at` call.
    pub fn as_fd(&self) -> std::os::fd::BorrowedFd<'_> {
        self.fd.as_fd()
    }
}

/// Removes the temporary files a killed git-clada left next to the worktree files `rels`
/// (`/`-separated, relative to `root`): only entries named as [`write_atomic`](crate::fsutil::write_atomic) names its
/// temporary for one of those files, in the directories that hold them, never a directory —
/// each through the directory's handle. Returns the paths removed (relative to `root`). Call
/// it only while holding git-clada's lock, so no live process can be writing them.
pub fn remove_temp_files<'a>(root: &Root, rels: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let mut by_dir: std::collections::BTreeMap<&str, std::collections::BTreeSet<&str>> =
        std::collections::BTreeMap::new();
    for rel in rels {
        let (dir, name) = rel.rsplit_once('/').unwrap_or(("", rel));
        if !name.is_empty() {
            by_dir.entry(dir).or_default().insert(name);
        }
    }
    let mut removed = Vec::new();
    for (dir, names) in by_dir {
        let Ok(handle) = root.dir(Path::new(dir)) else {
            continue;
        };
        let Ok(entries) = handle.list() else {
            continue;
        };
        for (entry, meta) in entries {
            let entry = entry.to_string_lossy().into_owned();
            if meta.is_dir() || !names.iter().any(|n| crate::fsutil::is_temp_for(&entry, n)) {
                continue;
            }
            if handle.unlink(std::ffi::OsStr::new(&entry)).is_ok() {
                removed.push(if dir.is_empty() {
                    entry
                } else {
                    format!("{dir}/{entry}")
                });
            }
        }
    }
    removed
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn root() -> (tempfile::TempDir, PathBuf, Root) {
        let dir = tempfile::tempdir().unwrap();
        let path = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir_all(path.join(".git/hooks")).unwrap();
        std::fs::create_dir_all(path.join("d/e")).unwrap();
        let root = Root::open(&path).unwrap();
        (dir, path, root)
    }

    fn refused_as(r: io::Result<impl std::fmt::Debug>) -> Option<Refused> {
        r.err().and_then(|e| refusal(&e).cloned())
    }

    #[test]
    fn a_directory_swapped_for_a_link_is_path_changed_both_ways() {
        let (_t, path, root) = root();
        root.guard_git_dirs(&[&path.join(".git")]);
        assert!(root.dir(Path::new("d/e")).is_ok());
        std::fs::rename(path.join("d"), path.join("d.real")).unwrap();
        symlink(".git", path.join("d")).unwrap();
        assert_eq!(
            refused_as(root.dir(Path::new("d"))),
            Some(Refused::PathChanged)
        );
        assert_eq!(
            refused_as(root.parent(Path::new("d/config"))),
            Some(Refused::PathChanged)
        );
        assert_eq!(
            refused_as(root.walk(&[OsStr::new("d")])),
            Some(Refused::PathChanged)
        );
        // A final link is opened as a link, never followed.
        assert!(matches!(
            root.open_entry(Path::new("d")),
            Ok(Entry::Link(..))
        ));
        assert_eq!(
            refused_as(root.open_entry(Path::new("d/config"))),
            Some(Refused::PathChanged)
        );
    }

    #[test]
    fn git_directories_are_refused_by_name_and_by_identity() {
        let (_t, path, root) = root();
        std::fs::create_dir_all(path.join("meta.git/hooks")).unwrap();
        root.guard_git_dirs(&[&path.join("meta.git")]);
        assert!(root.guard().inside);
        assert_eq!(
            refused_as(root.dir(Path::new(".GIT/hooks"))),
            Some(Refused::GitDir)
        );
        assert_eq!(
            refused_as(root.parent(Path::new(".git"))),
            Some(Refused::GitDir)
        );
        // A git dir under another name: every component is compared.
        assert_eq!(
            refused_as(root.dir(Path::new("meta.git/hooks"))),
            Some(Refused::GitDir)
        );
        assert_eq!(
            refused_as(root.dir(Path::new("meta.git"))),
            Some(Refused::GitDir)
        );
        assert!(root.dir(Path::new("d/e")).is_ok());
        // In-root links into it are links: refused on the way.
        symlink("meta.git/hooks", path.join("l")).unwrap();
        assert_eq!(
            refused_as(root.parent(Path::new("l/x"))),
            Some(Refused::PathChanged)
        );
        // A tree holding it is not removed through it.
        let top = root.dir(Path::new("")).unwrap();
        assert_eq!(
            refused_as(top.remove_tree(OsStr::new("meta.git"), &root)),
            Some(Refused::GitDir)
        );
        assert!(path.join("meta.git/hooks").is_dir());
    }

    #[test]
    fn writes_and_directories_through_handles() {
        let (_t, path, root) = root();
        let (dir, made) = root.create_dirs(Path::new("n/o/p")).unwrap();
        assert_eq!(
            made,
            [
                PathBuf::from("n"),
                PathBuf::from("n/o"),
                PathBuf::from("n/o/p")
            ]
        );
        dir.write_atomic(
            OsStr::new("f"),
            b"x",
            super::super::fsutil::Perm::Executable(true),
            "t",
        )
        .unwrap();
        assert_eq!(std::fs::read(path.join("n/o/p/f")).unwrap(), b"x");
        let (bytes, meta) = dir.read(OsStr::new("f")).unwrap();
        assert!(bytes == b"x" && meta.is_executable());
        dir.set_mode(OsStr::new("f"), |m| m & !0o111).unwrap();
        assert!(!dir.stat(OsStr::new("f")).unwrap().unwrap().is_executable());
        dir.symlink_atomic(OsStr::new("f"), Path::new("elsewhere"))
            .unwrap();
        assert_eq!(
            dir.read_link(OsStr::new("f")).unwrap(),
            PathBuf::from("elsewhere")
        );
        let top = root.dir(Path::new("")).unwrap();
        top.remove_tree(OsStr::new("n"), &root).unwrap();
        assert!(!path.join("n").exists());
        let names: Vec<_> = top.list().unwrap().into_iter().map(|(n, _)| n).collect();
        assert!(names.contains(&OsString::from("d")) && names.contains(&OsString::from(".git")));
        // Nothing is left of the temporary files.
        assert!(!names
            .iter()
            .any(|n| n.to_string_lossy().contains("clada-tmp")));
    }

    #[test]
    fn only_temp_files_of_the_named_paths_are_removed() {
        let dir = tempfile::tempdir().expect("temp");
        let root = dir.path();
        std::fs::create_dir_all(root.join("d")).expect("mkdir");
        for name in [
            "d/.f.rs.clada-tmp-1-0",
            "d/.g.rs.clada-tmp-1-0",
            "d/.f.rs.clada-tmp-keep",
            ".top.clada-tmp-9-9",
        ] {
            std::fs::write(root.join(name), "x").expect("write");
        }
        std::fs::create_dir(root.join("d/.f.rs.clada-tmp-2-2")).expect("mkdir");
        let handle = super::Root::open(root).expect("root");
        let removed = remove_temp_files(&handle, ["d/f.rs", "top", "missing/x"]);
        assert_eq!(removed.len(), 2, "{removed:?}");
        assert!(!root.join("d/.f.rs.clada-tmp-1-0").exists());
        assert!(!root.join(".top.clada-tmp-9-9").exists());
        assert!(root.join("d/.g.rs.clada-tmp-1-0").exists());
        assert!(root.join("d/.f.rs.clada-tmp-keep").exists());
        assert!(root.join("d/.f.rs.clada-tmp-2-2").is_dir());
    }
}
