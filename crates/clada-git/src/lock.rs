//! git-clada's own lock: one clada operation at a time per worktree.
//!
//! An advisory `flock` on `<git-dir>/clada.lock`. The kernel drops it when the process dies,
//! however it dies, so a crash never leaves a stale lock that blocks the next run; the pid
//! written into the file only serves the error message.
//!
//! Taking it is also when git's lock files that a killed git-clada left behind are cleared
//! (see `lockfile`): whoever held the clada lock before is gone, so every lock file it proved
//! its own can go.

use std::fs::{File, OpenOptions};
use std::io::Read;
use std::os::unix::fs::FileExt;
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::{io_err, Repo, RepoError, Result, StaleLocks};

/// How long a second git-clada waits for the first to finish before giving up.
const DEFAULT_WAIT: Duration = Duration::from_secs(3);

/// Held for the duration of a clada operation; released on drop (or process death).
#[derive(Debug)]
pub struct CladaLock {
    _file: File,
    path: PathBuf,
    stale: StaleLocks,
}

impl CladaLock {
    pub fn path(&self) -> &std::path::Path {
        &self.path
    }

    /// What was cleared of a git-clada that died before this one took the lock.
    pub fn stale(&self) -> &StaleLocks {
        &self.stale
    }
}

/// Opens (creating it if needed) a lock file without truncating it: its content names the
/// holder, for the messages of whoever finds it locked.
pub(super) fn open_lock_file(path: &Path) -> Result<File> {
    OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
        .map_err(io_err("cannot create the lock file", path))
}

/// Takes an exclusive `flock` without waiting: `false` when another process holds it.
pub(super) fn try_flock(file: &File, path: &Path) -> Result<bool> {
    // SAFETY: flock on a file descriptor we own; no memory is involved.
    let rc = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
    if rc == 0 {
        return Ok(true);
    }
    let err = std::io::Error::last_os_error();
    if err.raw_os_error() != Some(libc::EWOULDBLOCK) {
        return Err(io_err("cannot lock", path)(err));
    }
    Ok(false)
}

/// The holder's line in the lock file: the pid, right-aligned in ten columns (every `u32`
/// fits), so each holder's record covers the previous one's exactly.
fn pid_record(pid: u32) -> String {
    format!("{pid:>10}\n")
}

/// How long to wait for a lock another git-clada holds: `GIT_CLADA_LOCK_WAIT_MS`, else 3 s.
fn lock_wait() -> Duration {
    std::env::var("GIT_CLADA_LOCK_WAIT_MS")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
        .map(Duration::from_millis)
        .unwrap_or(DEFAULT_WAIT)
}

/// Opens `path` and takes its `flock`, waiting up to [`lock_wait`]; past that, the error is
/// `busy` with the holder's pid (when it wrote one) and what to do.
fn wait_for_flock(path: &Path, busy: &str) -> Result<File> {
    wait_for_flock_within(path, busy, lock_wait())
}

fn wait_for_flock_within(path: &Path, busy: &str, wait: Duration) -> Result<File> {
    let mut file = open_lock_file(path)?;
    let start = Instant::now();
    let mut pause = Duration::from_millis(5);
    loop {
        if try_flock(&file, path)? {
            return Ok(file);
        }
        if start.elapsed() >= wait {
            let mut holder = String::new();
            let _ = file.read_to_string(&mut holder);
            let holder = holder.lines().next().unwrap_or("").trim();
            return Err(RepoError::Invalid(format!(
                "{busy}{} and did not finish within {:.1}s; wait for it to finish and try again",
                if holder.is_empty() {
                    String::new()
                } else {
                    format!(" (pid {holder})")
                },
                wait.as_secs_f64()
            )));
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(100));
    }
}

/// A lock of one of git-clada's own state files, taken with [`Repo::lock_state`]; released on
/// drop (or process death).
#[derive(Debug)]
pub struct StateLock {
    _file: File,
}

impl Repo {
    /// Takes the clada lock, waiting briefly if another git-clada holds it.
    /// `GIT_CLADA_LOCK_WAIT_MS` overrides the wait (tests use it).
    pub fn lock(&self) -> Result<CladaLock> {
        let path = self.git_dir().join("clada.lock");
        let file = wait_for_flock(&path, "another git-clada is running in this repository")?;
        // The pid is informational only, so failing to record it is not an error. It is
        // written over the previous holder's, padded to a fixed width, never truncated first:
        // on ext4 truncating the file frees its block and journals that, 0.3-3 ms measured
        // per command (more than the rest of taking the lock), while an overwrite in place
        // only dirties the page.
        let _ = file.write_all_at(pid_record(std::process::id()).as_bytes(), 0);
        let stale = self.clear_stale_locks();
        if let Some(msg) = stale.left_message() {
            eprintln!("git-clada: warning: {msg}");
        }
        Ok(CladaLock {
            _file: file,
            path,
            stale,
        })
    }

    /// Takes the lock of git-clada's state file `<git-dir>/clada/<name>` (the lock is
    /// `<name>.lock` beside it), for a read-modify-write of that file that spans more than one
    /// command's clada lock. Waits like [`Repo::lock`]; `busy` starts the message when it
    /// gives up.
    pub fn lock_state(&self, name: &str, busy: &str) -> Result<StateLock> {
        let dir = self.git_dir().join("clada");
        std::fs::create_dir_all(&dir).map_err(io_err("cannot create", &dir))?;
        let path = dir.join(format!("{name}.lock"));
        let file = wait_for_flock(&path, busy)?;
        let _ = file.write_all_at(pid_record(std::process::id()).as_bytes(), 0);
        Ok(StateLock { _file: file })
    }

    /// [`Repo::lock_state`] that waits at most `budget`: `None` when the lock is still held
    /// then (a caller with a deadline of its own does something else instead of failing).
    pub fn lock_state_within(&self, name: &str, budget: Duration) -> Result<Option<StateLock>> {
        let dir = self.git_dir().join("clada");
        std::fs::create_dir_all(&dir).map_err(io_err("cannot create", &dir))?;
        let path = dir.join(format!("{name}.lock"));
        let file = open_lock_file(&path)?;
        let start = Instant::now();
        let mut pause = Duration::from_millis(2);
        loop {
            if try_flock(&file, &path)? {
                let _ = file.write_all_at(pid_record(std::process::id()).as_bytes(), 0);
                return Ok(Some(StateLock { _file: file }));
            }
            if start.elapsed() >= budget {
                return Ok(None);
            }
            std::thread::sleep(pause.min(budget.saturating_sub(start.elapsed())));
            pause = (pause * 2).min(Duration::from_millis(50));
        }
    }

    /// Whether a git-clada died holding git's lock files (read-only: nothing is removed, and
    /// nothing is reported while another git-clada is running, whose locks are live).
    pub fn stale_locks_pending(&self) -> bool {
        let dir = self.git_dir().join("clada").join("locks");
        if std::fs::read_dir(&dir).map_or(true, |mut rd| rd.next().is_none()) {
            return false;
        }
        let Ok(file) = File::open(self.git_dir().join("clada.lock")) else {
            return true;
        };
        // SAFETY: flock on a file descriptor we own; no memory is involved.
        unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_SH | libc::LOCK_NB) == 0 }
    }
}
