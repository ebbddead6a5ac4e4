//! Small filesystem helpers shared by the executor and the repository layer: atomic file
//! replacement (never a half-written file, even if the process dies mid-write; by path for
//! git-clada's own files, through a directory handle for worktree files — see
//! `beneath::Dir::write_atomic`), which temporary names are its own (`beneath::remove_temp_files` removes those
//! a killed process left), and the bounded
//! read of a small configuration file that may be anything a file system can hold
//! ([`read_small`]).

use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// How [`write_atomic`] chooses the new file's permission bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Perm {
    /// What a git checkout does: 0666 or 0777 (executable), less the umask.
    Executable(bool),
    /// What an edit does: an existing file keeps its bits; a new one is created as with
    /// `Executable(executable_if_new)`.
    KeepExisting { executable_if_new: bool },
    /// What a restore does: an existing file keeps its bits (a read-only file stays
    /// read-only) with the executable bits set (where it is readable) or cleared as the entry
    /// says; a new one is created as with `Executable`.
    Restore(bool),
}

/// Writes `data` to `path` by writing a temporary file in the same directory and renaming it
/// over `path`, so readers and a crash of the process never see a half-written file. There is
/// no fsync, as git does for worktree files: durability against power loss is left to the
/// filesystem (ext4 flushes a rename-replaced file's data). Parent directories must exist.
pub fn write_atomic(path: &Path, data: &[u8], perm: Perm) -> std::io::Result<()> {
    write_atomic_at(path, data, perm, "write:before-rename")
}

/// [`write_atomic`], creating the parent directory first only when it is missing (for state
/// files whose folder exists after the first run: no `mkdir` on every write).
pub fn write_atomic_creating_dir(path: &Path, data: &[u8], perm: Perm) -> std::io::Result<()> {
    match write_atomic(path, data, perm) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir)?;
            }
            write_atomic(path, data, perm)
        }
        other => other,
    }
}

/// [`write_atomic`] with the name of the fail point between writing the temporary file and
/// renaming it (so the crash tests can leave a temporary file behind from one kind of write).
pub fn write_atomic_at(
    path: &Path,
    data: &[u8],
    perm: Perm,
    fail_point: &str,
) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = temp_path(dir, &name);
    let existing = match perm {
        Perm::Executable(_) => None,
        Perm::KeepExisting { .. } => std::fs::metadata(path)
            .ok()
            .map(|m| (m.is_file(), m.permissions().mode() & 0o7777)),
        Perm::Restore(_) => std::fs::symlink_metadata(path)
            .ok()
            .map(|m| (m.is_file(), m.permissions().mode() & 0o7777)),
    };
    let (executable, keep) = perm_bits(perm, existing);
    let result = (|| {
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(if executable { 0o777 } else { 0o666 })
            .open(&tmp)?;
        f.write_all(data)?;
        if let Some(mode) = keep {
            f.set_permissions(std::fs::Permissions::from_mode(mode))?;
        }
        drop(f);
        crate::failpoint::hit(fail_point);
        crate::reaper::replace(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// The mode a new file is created with (`true`: 0777, else 0666, less the umask) and the
/// permission bits to set on it afterwards, for `perm` and what is at the path now (whether
/// it is a regular file, and its permission bits).
pub fn perm_bits(perm: Perm, existing: Option<(bool, u32)>) -> (bool, Option<u32>) {
    match perm {
        Perm::Executable(x) => (x, None),
        Perm::KeepExisting { executable_if_new } => (
            executable_if_new,
            existing.filter(|(file, _)| *file).map(|(_, mode)| mode),
        ),
        Perm::Restore(x) => (
            x,
            existing.filter(|(file, _)| *file).map(|(_, mode)| match x {
                true => mode | ((mode & 0o444) >> 2),
                false => mode & !0o111,
            }),
        ),
    }
}

/// The name of the temporary file that stands in for `name` until it is renamed over it:
/// `.<name>.clada-tmp-<pid>-<n>`, which [`remove_temp_files`] recognises.
pub fn temp_name(name: &std::ffi::OsStr) -> std::ffi::OsString {
    let mut s = std::ffi::OsString::from(".");
    s.push(name);
    s.push(format!(
        ".clada-tmp-{}-{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    s
}

/// Replaces whatever is at `path` with a symlink to `target`, atomically (via rename).
pub fn symlink_atomic(path: &Path, target: &Path) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = temp_path(dir, &name);
    std::os::unix::fs::symlink(target, &tmp)?;
    let result = std::fs::rename(&tmp, path);
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// The temporary file that stands in for `dir/name` until it is renamed over it.
fn temp_path(dir: &Path, name: &str) -> PathBuf {
    dir.join(temp_name(std::ffi::OsStr::new(name)))
}

/// Whether `entry` is a temporary file of [`write_atomic`] or [`symlink_atomic`] for the file
/// named `name`.
pub(crate) fn is_temp_for(entry: &str, name: &str) -> bool {
    let Some(rest) = entry
        .strip_prefix('.')
        .and_then(|r| r.strip_prefix(name))
        .and_then(|r| r.strip_prefix(".clada-tmp-"))
    else {
        return false;
    };
    let mut parts = rest.split('-');
    let digits =
        |p: Option<&str>| p.is_some_and(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
    digits(parts.next()) && digits(parts.next()) && parts.next().is_none()
}

/// Whether [`read_small`] follows a symbolic link at the path itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Links {
    /// The user's own files: a link into a dotfiles repository is theirs to make.
    Follow,
    /// Files in a worktree, which a clone or a process there can make anything: a link is
    /// refused (as git does not follow an in-tree `.gitattributes` link).
    Refuse,
}

/// Why [`read_small`] would not read a file.
#[derive(Debug, thiserror::Error)]
pub enum SmallFileError {
    #[error("it is a symbolic link, and a configuration file in the worktree is read only as a regular file (replace the link with the file)")]
    Symlink,
    #[error("it is {0}, not a regular file (replace it with a regular file)")]
    NotRegular(&'static str),
    #[error("it is larger than {limit} bytes, the most a configuration file may hold")]
    TooLarge { limit: u64 },
    #[error("cannot read it: {0}")]
    Io(#[from] std::io::Error),
}

/// What a file type is, in words ("a named pipe (FIFO)").
pub fn kind_name(t: std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if t.is_dir() {
        "a directory"
    } else if t.is_symlink() {
        "a symbolic link"
    } else if t.is_fifo() {
        "a named pipe (FIFO)"
    } else if t.is_char_device() {
        "a character device"
    } else if t.is_block_device() {
        "a block device"
    } else if t.is_socket() {
        "a socket"
    } else if t.is_file() {
        "a regular file"
    } else {
        "not a file"
    }
}

/// Reads the configuration file `path` when it is a regular file of at most `limit` bytes;
/// `Ok(None)` when nothing is there. Whatever else is there (a FIFO, which would block the
/// open; `/dev/zero`, which never ends; a directory) is refused without reading, and the
/// file is opened non-blocking, so a swap between the check and the open cannot make the
/// read hang either: what was opened is checked again.
pub fn read_small(
    path: &Path,
    limit: u64,
    links: Links,
) -> Result<Option<Vec<u8>>, SmallFileError> {
    use std::io::Read;
    let md = match links {
        Links::Follow => std::fs::metadata(path),
        Links::Refuse => std::fs::symlink_metadata(path),
    };
    let md = match md {
        Ok(md) => md,
        Err(e)
            if e.kind() == std::io::ErrorKind::NotFound
                || e.raw_os_error() == Some(libc::ENOTDIR) =>
        {
            return Ok(None)
        }
        Err(e) => return Err(e.into()),
    };
    check_small(&md, limit, links)?;
    let mut flags = libc::O_NONBLOCK | libc::O_NOCTTY;
    if links == Links::Refuse {
        flags |= libc::O_NOFOLLOW;
    }
    let file = match std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(flags)
        .open(path)
    {
        Ok(f) => f,
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => return Err(SmallFileError::Symlink),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    check_small(&file.metadata()?, limit, links)?;
    let mut bytes = Vec::new();
    file.take(limit + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(SmallFileError::TooLarge { limit });
    }
    Ok(Some(bytes))
}

fn check_small(md: &std::fs::Metadata, limit: u64, links: Links) -> Result<(), SmallFileError> {
    let t = md.file_type();
    if t.is_symlink() && links == Links::Refuse {
        return Err(SmallFileError::Symlink);
    }
    if !t.is_file() {
        return Err(SmallFileError::NotRegular(kind_name(t)));
    }
    if md.len() > limit {
        return Err(SmallFileError::TooLarge { limit });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn temp_names_are_recognised_exactly() {
        assert!(is_temp_for(".a.txt.clada-tmp-123-0", "a.txt"));
        assert!(!is_temp_for(".a.txt.clada-tmp-123-", "a.txt"));
        assert!(!is_temp_for(".a.txt.clada-tmp-x-1", "a.txt"));
        assert!(!is_temp_for(".a.txt.clada-tmp-1-2-3", "a.txt"));
        assert!(!is_temp_for(".b.txt.clada-tmp-1-2", "a.txt"));
        assert!(!is_temp_for("a.txt.clada-tmp-1-2", "a.txt"));
    }
}
