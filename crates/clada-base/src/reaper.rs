//! Retiring replaced and removed files off the caller's path. When a rename replaces a file
//! (a ref, the index, a worktree file written atomically) or an unlink removes one, the
//! kernel frees the old inode on the spot if nothing else holds it. On ext4 that (truncating
//! the inode, updating its bitmaps) costs about 0.15 ms per file, and a rename over a file
//! with delayed-allocation data also starts its writeback (about 0.05 ms): measured on this
//! project's VM, 0.22 ms per replacing rename, 0.016 ms with both moved elsewhere. An apply
//! replaces seven or eight files, so the MCP server paid over 1.5 ms per call for it.
//!
//! [`replace`] and [`remove`] first take an `O_PATH` handle on what is about to go, do the
//! rename or unlink, and hand the handle to one background thread that drops it; the inode
//! is then freed there, on another core, while the caller goes on. [`start_writeback`] asks
//! that thread to start writing a file's data out (`sync_file_range`, Linux only), so a later
//! rename over the file finds nothing left to flush.
//!
//! Nothing about what the caller sees changes: the rename or unlink is done and complete
//! when the function returns, with the same atomicity and the same durability (the data is
//! written out as the kernel would have; no call here waits for the disk). The queue is
//! bounded: when the thread falls behind, the handle is closed in place, so at most
//! [`QUEUE`] files are ever held open. Elsewhere than Linux, or when the thread cannot be
//! started, everything happens in place as before.

use std::io;
use std::os::fd::{AsFd, OwnedFd};
use std::path::Path;
use std::sync::mpsc::{sync_channel, SyncSender, TrySendError};
use std::sync::{Mutex, OnceLock};

/// How many handles may wait for the thread before new ones are closed in place: enough to
/// hide the frees of a call, few enough that held handles never crowd a low open-files limit.
pub const QUEUE: usize = 64;

enum Job {
    /// Drop the handle: the last reference to a replaced or removed inode.
    Close(#[allow(dead_code)] OwnedFd),
    /// Start writing the file's dirty data out, then drop the handle.
    Writeback(OwnedFd),
}

fn sender() -> Option<&'static Mutex<SyncSender<Job>>> {
    static SENDER: OnceLock<Option<Mutex<SyncSender<Job>>>> = OnceLock::new();
    SENDER
        .get_or_init(|| {
            if !crate::platform::LINUX {
                return None;
            }
            let (tx, rx) = sync_channel::<Job>(QUEUE);
            std::thread::Builder::new()
                .name("clada-reaper".into())
                .spawn(move || {
                    for job in rx {
                        match job {
                            Job::Close(fd) => drop(fd),
                            Job::Writeback(fd) => crate::platform::writeback_now(&fd),
                        }
                    }
                })
                .ok()
                .map(|_| Mutex::new(tx))
        })
        .as_ref()
}

fn send(job: Job) {
    let Some(tx) = sender() else { return };
    let Ok(tx) = tx.lock() else { return };
    match tx.try_send(job) {
        Ok(()) => {}
        // Full or gone: the job's handle is dropped here, in place.
        Err(TrySendError::Full(_) | TrySendError::Disconnected(_)) => {}
    }
}

fn retire(held: Option<OwnedFd>) {
    if let Some(fd) = held {
        send(Job::Close(fd));
    }
}

/// `rename(from, to)`, the file it replaces freed on the background thread.
pub fn replace(from: &Path, to: &Path) -> io::Result<()> {
    let held = sender().and_then(|_| crate::platform::hold(None, to));
    std::fs::rename(from, to)?;
    retire(held);
    Ok(())
}

/// `renameat(dir, from, dir, to)`, the file it replaces freed on the background thread.
pub fn replace_at(dir: impl AsFd, from: &Path, to: &Path) -> io::Result<()> {
    let held = sender().and_then(|_| crate::platform::hold(Some(dir.as_fd()), to));
    rustix::fs::renameat(&dir, from, &dir, to)?;
    retire(held);
    Ok(())
}

/// `unlink(path)`, the file freed on the background thread.
pub fn remove(path: &Path) -> io::Result<()> {
    let held = sender().and_then(|_| crate::platform::hold(None, path));
    std::fs::remove_file(path)?;
    retire(held);
    Ok(())
}

/// Asks the background thread to start writing `file`'s data out, so that a rename over
/// another file later has none to flush. A handle of its own is taken (`dup`); the caller
/// keeps `file`.
pub fn start_writeback(file: &impl AsFd) {
    if sender().is_none() {
        return;
    }
    if let Ok(fd) = file.as_fd().try_clone_to_owned() {
        send(Job::Writeback(fd));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replace_and_remove_do_what_rename_and_unlink_do() -> io::Result<()> {
        let dir = std::env::temp_dir().join(format!("clada-reaper-{}", std::process::id()));
        std::fs::create_dir_all(&dir)?;
        let (a, b) = (dir.join("a"), dir.join("b"));
        std::fs::write(&a, "new")?;
        std::fs::write(&b, "old")?;
        let f = std::fs::File::open(&a)?;
        start_writeback(&f);
        replace(&a, &b)?;
        assert_eq!(std::fs::read_to_string(&b)?, "new");
        assert!(!a.exists());
        // Nothing to replace: a plain rename.
        replace(&b, &a)?;
        assert_eq!(std::fs::read_to_string(&a)?, "new");
        // A symlink is replaced itself; its target is untouched.
        std::fs::write(&b, "target")?;
        let link = dir.join("link");
        std::os::unix::fs::symlink(&b, &link)?;
        std::fs::write(dir.join("c"), "over the link")?;
        let d = std::fs::File::open(&dir)?;
        replace_at(&d, Path::new("c"), Path::new("link"))?;
        assert_eq!(std::fs::read_to_string(&link)?, "over the link");
        assert!(!std::fs::symlink_metadata(&link)?.file_type().is_symlink());
        assert_eq!(std::fs::read_to_string(&b)?, "target");
        remove(&a)?;
        assert!(!a.exists());
        assert_eq!(
            remove(&a).map_err(|e| e.kind()),
            Err(io::ErrorKind::NotFound)
        );
        assert!(replace(&a, &b).is_err());
        std::fs::remove_dir_all(&dir)
    }
}
