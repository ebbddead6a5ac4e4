//! Small filesystem helpers shared by the executor and the repository layer: atomic file
//! replacement (never a half-written file, even if the process dies mid-write) and pruning of
//! emptied directories.

use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// Writes `data` to `path` by writing a temporary file in the same directory and renaming it
/// over `path`. The file is created with mode 0666 or 0777 (executable) less the umask, as git
/// does. Parent directories must exist.
pub fn write_atomic(path: &Path, data: &[u8], executable: bool) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(
        ".{name}.clada-tmp-{}-{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let result = (|| {
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(if executable { 0o777 } else { 0o666 })
            .open(&tmp)?;
        f.write_all(data)?;
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
