//! The platform seam: the one place that says which side of each OS-dependent piece a build
//! has. The Linux side uses the kernel's features — `openat2` with `RESOLVE_BENEATH` for
//! directory handles, `O_PATH` handles, writeback started early (`sync_file_range`), inotify
//! for change watching, pidfds for reaping, Landlock and namespaces for the sandbox; the
//! portable side uses what POSIX has — the one-component walk with `O_NOFOLLOW | O_DIRECTORY`
//! (directories opened for reading: execute-only directories cannot be walked), no watcher (a
//! full scan each time), `waitpid`, and no OS sandbox, where exec blocks are refused and hooks
//! are ⏸ (docs/platforms.md).
//!
//! This crate's `portable` feature builds the portable side on Linux, so it is compiled and
//! tested here (`.ci/run`): a feature rather than a `--cfg` in `RUSTFLAGS`, so that only
//! git-clada's own crates build again, not every dependency. The decision is made in this file
//! alone: [`linux!`] and [`portable!`] are defined for the side this build has, so the crates
//! that use them need no configuration of their own. Code elsewhere never names an operating
//! system: it writes its Linux-only items inside [`linux!`] and their other side inside
//! [`portable!`], or asks [`LINUX`]; a test (`tests/cli/layers.rs`) holds `target_os`, the
//! feature, `openat2`, Landlock, pidfds and inotify to this file and the `*_linux.rs` files
//! [`linux!`] declares.

use std::io;
use std::os::fd::{BorrowedFd, OwnedFd};
use std::path::Path;

use rustix::fs::OFlags;

/// Whether this build has the Linux side (false on other systems and in the portable build).
pub const LINUX: bool = cfg!(all(target_os = "linux", not(feature = "portable")));

/// Whether this is macOS (git's `core.protectHFS` defaults to true there; the clipboard has
/// `pbcopy`).
pub const MACOS: bool = cfg!(target_os = "macos");

/// Items of the Linux side: compiled on Linux, except in the portable build.
#[cfg(all(target_os = "linux", not(feature = "portable")))]
#[macro_export]
macro_rules! linux {
    ($($item:item)*) => { $($item)* };
}
/// Items of the Linux side: compiled on Linux, except in the portable build.
#[cfg(not(all(target_os = "linux", not(feature = "portable"))))]
#[macro_export]
macro_rules! linux {
    ($($item:item)*) => {};
}

/// Items of the portable side: compiled everywhere but on Linux, and in the portable build.
#[cfg(not(all(target_os = "linux", not(feature = "portable"))))]
#[macro_export]
macro_rules! portable {
    ($($item:item)*) => { $($item)* };
}
/// Items of the portable side: compiled everywhere but on Linux, and in the portable build.
#[cfg(all(target_os = "linux", not(feature = "portable")))]
#[macro_export]
macro_rules! portable {
    ($($item:item)*) => {};
}

/// How a directory handle is opened: `O_PATH` on Linux (no read permission needed, no
/// directory stream); for reading elsewhere, which execute-only directories refuse.
#[cfg(all(target_os = "linux", not(feature = "portable")))]
pub const DIR_HANDLE: OFlags = OFlags::PATH;
#[cfg(not(all(target_os = "linux", not(feature = "portable"))))]
pub const DIR_HANDLE: OFlags = OFlags::RDONLY;

/// `openat2(dir, rel, flags)` with `RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
/// RESOLVE_NO_MAGICLINKS`: `rel` reached below `dir` through no link. `ENOSYS` on the portable
/// side, which makes [`crate::beneath`] walk one component at a time, as it does on a kernel
/// without `openat2`.
#[cfg(all(target_os = "linux", not(feature = "portable")))]
pub fn openat2_beneath(
    dir: BorrowedFd<'_>,
    rel: &Path,
    flags: OFlags,
) -> rustix::io::Result<OwnedFd> {
    use rustix::fs::{Mode, ResolveFlags};
    let resolve = ResolveFlags::BENEATH | ResolveFlags::NO_SYMLINKS | ResolveFlags::NO_MAGICLINKS;
    rustix::fs::openat2(dir, rel, flags, Mode::empty(), resolve)
}
#[cfg(not(all(target_os = "linux", not(feature = "portable"))))]
pub fn openat2_beneath(_: BorrowedFd<'_>, _: &Path, _: OFlags) -> rustix::io::Result<OwnedFd> {
    Err(rustix::io::Errno::NOSYS)
}

/// Starts writeback of every dirty page of `fd` without waiting for it (Linux's
/// `sync_file_range`); nothing elsewhere, where the data is written when the kernel chooses.
#[cfg(all(target_os = "linux", not(feature = "portable")))]
pub fn writeback_now(fd: &OwnedFd) {
    use std::os::fd::AsRawFd;
    // SAFETY: the descriptor is owned and open for the whole call; the call reads no memory.
    let _ = unsafe { libc::sync_file_range(fd.as_raw_fd(), 0, 0, libc::SYNC_FILE_RANGE_WRITE) };
}
#[cfg(not(all(target_os = "linux", not(feature = "portable"))))]
pub fn writeback_now(_: &OwnedFd) {}

/// A handle on `name` in `dir` (or the path `name` when `dir` is `None`) that keeps its inode
/// alive without reading it (`O_PATH`, never following a link); `None` where there is no such
/// handle, or nothing there.
#[cfg(all(target_os = "linux", not(feature = "portable")))]
pub fn hold(dir: Option<BorrowedFd<'_>>, name: &Path) -> Option<OwnedFd> {
    use rustix::fs::{Mode, CWD};
    let flags = OFlags::PATH | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    match dir {
        Some(d) => rustix::fs::openat(d, name, flags, Mode::empty()).ok(),
        None => rustix::fs::openat(CWD, name, flags, Mode::empty()).ok(),
    }
}
#[cfg(not(all(target_os = "linux", not(feature = "portable"))))]
pub fn hold(_: Option<BorrowedFd<'_>>, _: &Path) -> Option<OwnedFd> {
    None
}

/// Whether an error of [`openat2_beneath`] means it cannot be used here (missing, or
/// forbidden by a seccomp profile), so the walk is used from now on.
pub fn openat2_unusable(e: &io::Error) -> bool {
    matches!(e.raw_os_error(), Some(libc::ENOSYS | libc::EPERM))
}
