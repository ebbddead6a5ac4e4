//! Small filesystem helpers shared by the executor and the repository layer: atomic file
//! replacement (never a half-written file, even if the process dies mid-write) and pruning of
//! emptied directories.

use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;
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
}

/// Writes `data` to `path` by writing a temporary file in the same directory and renaming it
/// over `path`, so readers and a crash of the process never see a half-written file. There is
/// no fsync, as git does for worktree files: durability against power loss is left to the
/// filesystem (ext4 flushes a rename-replaced file's data). Parent directories must exist.
pub fn write_atomic(path: &Path, data: &[u8], perm: Perm) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(
        ".{name}.clada-tmp-{}-{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let (executable, keep) = match perm {
        Perm::Executable(x) => (x, None),
        Perm::KeepExisting { executable_if_new } => (
            executable_if_new,
            std::fs::metadata(path)
                .ok()
                .map(|m| m.permissions().mode() & 0o7777),
        ),
    };
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
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// Replaces whatever is at `path` with a symlink to `target`, atomically (via rename).
pub fn symlink_atomic(path: &Path, target: &Path) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let tmp = dir.join(format!(
        ".clada-tmp-link-{}-{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    std::os::unix::fs::symlink(target, &tmp)?;
    let result = std::fs::rename(&tmp, path);
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// Removes the empty directories from `dir` upwards, stopping at `root` (never removed) or at
/// the first directory that is not empty.
pub fn prune_empty_dirs(mut dir: &Path, root: &Path) {
    while dir != root && dir.starts_with(root) {
        if std::fs::remove_dir(dir).is_err() {
            break;
        }
        match dir.parent() {
            Some(p) => dir = p,
            None => break,
        }
    }
}
