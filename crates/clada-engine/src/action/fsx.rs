//! The engine's only door to the filesystem: atomic writes that keep permissions, Node-style
//! error texts, the dry-run overlay, and the record of every path an action touched (its state
//! before the first touch), from which [`FileChange`]s are built and [`restore`] works. The
//! disk itself is [`Disk`]: directory handles from the worktree root, never a path the kernel
//! resolves again.
//!
//! In dry-run mode nothing is written: changes go to an in-memory overlay that later reads of
//! the same reply see, so a dry run reports exactly what a real run would (DESIGN §6, `--dry-run`).

use std::collections::HashMap;
use std::io;
use std::path::{Path, PathBuf};

use indexmap::IndexMap;

pub use super::disk::{Disk, EntryKind};
use super::{FileChange, FileState};
use crate::sandbox::{has_git_component, Sandbox};

/// A delete or move refused because the tree holds a `.git` entry (carried inside an
/// `io::Error` of kind `Other`).
#[derive(Debug, thiserror::Error)]
#[error("the tree contains the git directory '{}'", .0.display())]
pub struct GitInside(pub PathBuf);

impl GitInside {
    /// The `.git` path, if `e` is this refusal.
    pub fn find(e: &io::Error) -> Option<&Path> {
        e.get_ref()
            .and_then(|x| x.downcast_ref::<GitInside>())
            .map(|g| g.0.as_path())
    }
}

/// Text actions refuse files larger than this (DESIGN §4).
pub const MAX_TEXT_BYTES: u64 = 10 * 1024 * 1024;
/// A NUL byte in this many leading bytes marks a file as binary.
pub const BINARY_SNIFF_BYTES: usize = 8 * 1024;

// ---------------------------------------------------------------------------------------------
// Node-style error texts (clada-semantics §5)

/// `(code, description)` for an OS error, with libuv's wording.
pub fn errno_name(err: &io::Error) -> Option<(&'static str, &'static str)> {
    let raw = err.raw_os_error()?;
    let pair = match raw {
        libc::EPERM => ("EPERM", "operation not permitted"),
        libc::ENOENT => ("ENOENT", "no such file or directory"),
        libc::EIO => ("EIO", "i/o error"),
        libc::EACCES => ("EACCES", "permission denied"),
        libc::EBUSY => ("EBUSY", "resource busy or locked"),
        libc::EEXIST => ("EEXIST", "file already exists"),
        libc::EXDEV => ("EXDEV", "cross-device link not permitted"),
        libc::ENOTDIR => ("ENOTDIR", "not a directory"),
        libc::EISDIR => ("EISDIR", "illegal operation on a directory"),
        libc::EINVAL => ("EINVAL", "invalid argument"),
        libc::EMFILE => ("EMFILE", "too many open files"),
        libc::ETXTBSY => ("ETXTBSY", "text file is busy"),
        libc::EFBIG => ("EFBIG", "file too large"),
        libc::ENOSPC => ("ENOSPC", "no space left on device"),
        libc::EROFS => ("EROFS", "read-only file system"),
        libc::ENAMETOOLONG => ("ENAMETOOLONG", "name too long"),
        libc::ENOTEMPTY => ("ENOTEMPTY", "directory not empty"),
        libc::ELOOP => ("ELOOP", "too many symbolic links encountered"),
        libc::EDQUOT => ("EDQUOT", "disk quota exceeded"),
        _ => return None,
    };
    Some(pair)
}

/// The original's `formatNodeError(error, path, op, dest?)`: known codes read
/// `CODE: description, op 'path'` (`rename 'a' -> 'b'` with a destination), other codes
/// `CODE: message`, no code the message or `Unknown error during op on 'path'`.
pub fn format_node_error(
    code: Option<&str>,
    message: Option<&str>,
    path: &str,
    op: &str,
    dest: Option<&str>,
) -> String {
    let known = match code {
        Some("ENOENT") => Some("no such file or directory"),
        Some("EEXIST") => Some("file already exists"),
        Some("EACCES") => Some("permission denied"),
        Some("EISDIR") => Some("illegal operation on a directory"),
        Some("ENOTDIR") => Some("not a directory"),
        Some("ENOTEMPTY") => Some("directory not empty"),
        _ => None,
    };
    match (code, known) {
        (Some(code), Some(text)) => match dest {
            Some(dest) => format!("{code}: {text}, {op} '{path}' -> '{dest}'"),
            None => format!("{code}: {text}, {op} '{path}'"),
        },
        (Some(code), None) => format!("{code}: {}", message.unwrap_or_default()),
        (None, _) => match message {
            Some(m) if !m.is_empty() => m.to_string(),
            _ => format!("Unknown error during {op} on '{path}'"),
        },
    }
}

/// An `io::Error` in the original's words, e.g. `ENOENT: no such file or directory, open 'p'`.
/// Every errno we can name gets the full `CODE: description, op 'path'` form (Node's own message
/// for such codes), so no code is printed twice as the original did.
pub fn node_error(err: &io::Error, path: &str, op: &str, dest: Option<&str>) -> String {
    use clada_base::beneath::{refusal, Refused};
    match refusal(err) {
        Some(Refused::PathChanged) => {
            return format!(
                "path_changed: a directory of '{path}' was replaced while git-clada was writing ({op}); nothing was written — check what replaced it (a symlink?) and run the block again"
            )
        }
        Some(Refused::GitDir) => {
            return format!(
                "git_dir: '{path}' leads into a git directory, which git-clada never changes ({op}); nothing was written"
            )
        }
        None => {}
    }
    match errno_name(err) {
        Some((code, text)) => match dest {
            Some(dest) => format!("{code}: {text}, {op} '{path}' -> '{dest}'"),
            None => format!("{code}: {text}, {op} '{path}'"),
        },
        None => match err.kind() {
            io::ErrorKind::NotFound => format_node_error(Some("ENOENT"), None, path, op, dest),
            io::ErrorKind::AlreadyExists => format_node_error(Some("EEXIST"), None, path, op, dest),
            io::ErrorKind::PermissionDenied => {
                format_node_error(Some("EACCES"), None, path, op, dest)
            }
            io::ErrorKind::IsADirectory => format_node_error(Some("EISDIR"), None, path, op, dest),
            io::ErrorKind::NotADirectory => {
                format_node_error(Some("ENOTDIR"), None, path, op, dest)
            }
            io::ErrorKind::DirectoryNotEmpty => {
                format_node_error(Some("ENOTEMPTY"), None, path, op, dest)
            }
            _ => format!("{err}, {op} '{path}'"),
        },
    }
}

fn errno(code: i32) -> io::Error {
    io::Error::from_raw_os_error(code)
}

// ---------------------------------------------------------------------------------------------
// What is at a path

/// One overlay entry (dry run). A `Dir` that replaced something absent on disk is `fresh`:
/// whatever the disk has below it is not visible.
#[derive(Debug, Clone)]
enum Node {
    File { bytes: Vec<u8>, executable: bool },
    Symlink(PathBuf),
    Dir { fresh: bool },
    Absent,
}

/// The filesystem as the actions of one reply see it.
#[derive(Debug)]
pub struct Vfs {
    dry_run: bool,
    disk: Disk,
    overlay: HashMap<PathBuf, Node>,
    /// Every path touched, in order of first touch, with its state before that touch.
    touched: IndexMap<PathBuf, FileState>,
    /// Whether content writes may be held in memory (see [`Held`]).
    holding: bool,
    held: Option<Held>,
    /// The action now running (recorded as the writer of held content).
    writer: usize,
    /// While an atomic group runs: every path it touched, with its state before the group.
    group: Option<IndexMap<PathBuf, FileState>>,
    /// Plain files written to hold a symbolic link's target (no symlinks: `core.symlinks`).
    link_files: Vec<PathBuf>,
}

/// A file whose newest content is kept in memory while consecutive actions of one reply edit
/// it, and written once (atomically) when they are done: a reply of N appends to one file
/// then costs O(N) instead of rewriting the growing file N times. The caller ([`super::execute`])
/// flushes it before any action that could look at the disk in another way.
#[derive(Debug)]
struct Held {
    path: PathBuf,
    bytes: Vec<u8>,
    executable: bool,
    /// The file did not exist before (its mode then comes from `executable`).
    new: bool,
    /// Counts of CRLF and of LF in `bytes`, once known (appends keep them up to date).
    eol: Option<(usize, usize)>,
    /// The actions whose changes are in `bytes` but not yet on disk.
    writers: Vec<usize>,
}

/// Held content that could not be written: the error and the actions whose changes it held.
#[derive(Debug)]
pub struct FlushError {
    pub error: io::Error,
    pub path: PathBuf,
    pub writers: Vec<usize>,
}

/// What a text action needs to know about a file before appending to it.
#[derive(Debug, Clone, Copy)]
pub struct TextInfo {
    pub len: u64,
    /// Why it cannot be edited as text ([`text_refusal`]).
    pub refusal: Option<&'static str>,
    pub ends_with_lf: bool,
    /// [`super::textmatch::uses_crlf`] of the content.
    pub crlf: bool,
}

impl Vfs {
    pub fn new(dry_run: bool, disk: Disk) -> Vfs {
        Vfs {
            dry_run,
            disk,
            overlay: HashMap::new(),
            touched: IndexMap::new(),
            holding: false,
            held: None,
            writer: 0,
            group: None,
            link_files: Vec::new(),
        }
    }

    /// The plain files that stand for links (no symlinks: `core.symlinks`), to begin with.
    pub fn with_link_files(mut self, files: Vec<PathBuf>) -> Vfs {
        self.link_files = files;
        self
    }

    /// Whether the plain file at `p` stands for a link ([`Vfs::mark_link_file`]).
    pub fn is_link_file(&self, p: &Path) -> bool {
        self.link_files.iter().any(|q| q == p)
    }

    /// The disk under the overlay.
    pub fn disk(&self) -> &Disk {
        &self.disk
    }

    pub fn dry_run(&self) -> bool {
        self.dry_run
    }

    /// Lets content writes be held in memory until [`Vfs::flush`] (real runs only; a dry run
    /// keeps everything in its overlay anyway).
    pub fn set_holding(&mut self, on: bool) {
        self.holding = on && !self.dry_run;
    }

    /// Records `index` as the action now running.
    pub fn set_writer(&mut self, index: usize) {
        self.writer = index;
    }

    /// The file whose content is held in memory, if any.
    pub fn held_path(&self) -> Option<&Path> {
        self.held.as_ref().map(|h| h.path.as_path())
    }

    fn held(&self, p: &Path) -> Option<&Held> {
        self.held.as_ref().filter(|h| h.path == p)
    }

    /// Writes held content to disk (atomically) and forgets it. On failure the file keeps
    /// what it had before the writers ran.
    pub fn flush(&mut self) -> Result<(), FlushError> {
        let Some(h) = self.held.take() else {
            return Ok(());
        };
        if h.writers.is_empty() {
            return Ok(());
        }
        let new_executable = h.new && h.executable;
        self.disk
            .write(&h.path, &h.bytes, new_executable)
            .map_err(|error| FlushError {
                error,
                path: h.path,
                writers: h.writers,
            })
    }

    /// Holds the file at `p` in memory (a real run with holding on) so that the next edits
    /// read and change it there; the overlay already does that in a dry run. No-op for
    /// anything but a file.
    fn load(&mut self, p: &Path) -> io::Result<()> {
        if !self.holding || self.held(p).is_some() {
            return Ok(());
        }
        if self.held.as_ref().is_some_and(|h| !h.writers.is_empty()) {
            // Another file's changes are pending; this one is not held then.
            return Ok(());
        }
        if let Ok(EntryKind::File { executable, .. }) = self.disk.kind(p) {
            let bytes = self.disk.read(p)?;
            self.held = Some(Held {
                path: p.to_path_buf(),
                bytes,
                executable,
                new: false,
                eol: None,
                writers: Vec::new(),
            });
        }
        Ok(())
    }

    /// Runs `f` on the content of the file at `p` without copying it when it is in memory.
    pub fn with_content<R>(&self, p: &Path, f: impl FnOnce(&[u8]) -> R) -> io::Result<R> {
        if let Some(h) = self.held(p) {
            return Ok(f(&h.bytes));
        }
        if let Some(Node::File { bytes, .. }) = self.dry_run.then(|| self.overlay.get(p)).flatten()
        {
            return Ok(f(bytes));
        }
        Ok(f(&self.read(p)?))
    }

    /// The facts an append needs about the file at `p`, computed once per file and kept up
    /// to date while it is held.
    pub fn text_info(&mut self, p: &Path) -> io::Result<TextInfo> {
        self.load(p)?;
        let eol = match self.held.as_mut().filter(|h| h.path == p) {
            Some(h) => *h.eol.get_or_insert_with(|| eol_counts(&h.bytes)),
            None => self.with_content(p, eol_counts)?,
        };
        self.with_content(p, |b| TextInfo {
            len: b.len() as u64,
            refusal: text_refusal(b),
            ends_with_lf: b.ends_with(b"\n"),
            crlf: eol.0 > 0 && eol.0 * 2 >= eol.1,
        })
    }

    /// Appends `add` to the existing file at `p`, in place when it is held or in the overlay.
    pub fn append(&mut self, p: &Path, add: &[u8]) -> io::Result<()> {
        self.load(p)?;
        self.touch(p)?;
        let writer = self.writer;
        if let Some(h) = self.held.as_mut().filter(|h| h.path == p) {
            if let Some((crlf, lf)) = &mut h.eol {
                let (c, l) = eol_counts(add);
                let joined = h.bytes.ends_with(b"\r") && add.starts_with(b"\n");
                *crlf += c + usize::from(joined);
                *lf += l;
            }
            h.bytes.extend_from_slice(add);
            h.writers.push(writer);
            return Ok(());
        }
        if self.dry_run {
            if let Some(Node::File { bytes, .. }) = self.overlay.get_mut(p) {
                bytes.extend_from_slice(add);
                return Ok(());
            }
        }
        let mut bytes = self.read(p)?;
        bytes.extend_from_slice(add);
        self.write_file(p, &bytes, false)
    }

    /// The overlay's say about `p`: `Some(Ok(node))` when decided by the overlay, `Some(Err)`
    /// when an overlay ancestor makes it impossible, `None` to ask the disk.
    fn overlay_lookup(&self, p: &Path) -> Option<io::Result<Node>> {
        if !self.dry_run || self.overlay.is_empty() {
            return None;
        }
        if let Some(n) = self.overlay.get(p) {
            return Some(Ok(n.clone()));
        }
        for anc in p.ancestors().skip(1) {
            match self.overlay.get(anc) {
                None => continue,
                Some(Node::Absent) => return Some(Ok(Node::Absent)),
                Some(Node::File { .. }) | Some(Node::Symlink(_)) => {
                    return Some(Err(errno(libc::ENOTDIR)))
                }
                Some(Node::Dir { fresh: true }) => return Some(Ok(Node::Absent)),
                Some(Node::Dir { fresh: false }) => return None,
            }
        }
        None
    }

    /// What is at `p` (a final symlink is not followed); `NotFound` when nothing.
    pub fn kind(&self, p: &Path) -> io::Result<EntryKind> {
        if let Some(h) = self.held(p) {
            return Ok(EntryKind::File {
                len: h.bytes.len() as u64,
                executable: h.executable,
            });
        }
        match self.overlay_lookup(p) {
            Some(Ok(Node::File { bytes, executable })) => Ok(EntryKind::File {
                len: bytes.len() as u64,
                executable,
            }),
            Some(Ok(Node::Dir { .. })) => Ok(EntryKind::Dir),
            Some(Ok(Node::Symlink(_))) => Ok(EntryKind::Symlink),
            Some(Ok(Node::Absent)) => Err(errno(libc::ENOENT)),
            Some(Err(e)) => Err(e),
            None => self.disk.kind(p),
        }
    }

    pub fn exists(&self, p: &Path) -> bool {
        self.kind(p).is_ok()
    }

    /// The whole state at `p` (contents included).
    pub fn state(&self, p: &Path) -> io::Result<FileState> {
        if let Some(h) = self.held(p) {
            return Ok(FileState::File {
                bytes: h.bytes.clone(),
                executable: h.executable,
            });
        }
        match self.overlay_lookup(p) {
            Some(Ok(Node::File { bytes, executable })) => Ok(FileState::File { bytes, executable }),
            Some(Ok(Node::Dir { .. })) => Ok(FileState::Dir),
            Some(Ok(Node::Symlink(t))) => Ok(FileState::Symlink { target: t }),
            Some(Ok(Node::Absent)) | Some(Err(_)) => Ok(FileState::Absent),
            None => self.disk.state(p),
        }
    }

    /// Reads a file (following a final symlink on disk, like `open`).
    pub fn read(&self, p: &Path) -> io::Result<Vec<u8>> {
        if let Some(h) = self.held(p) {
            return Ok(h.bytes.clone());
        }
        match self.overlay_lookup(p) {
            Some(Ok(Node::File { bytes, .. })) => Ok(bytes),
            Some(Ok(Node::Dir { .. })) => Err(errno(libc::EISDIR)),
            // A relative target is read from the link's folder, as the kernel reads it.
            Some(Ok(Node::Symlink(t))) => {
                let folder = p.parent().unwrap_or(Path::new("/"));
                self.read(&crate::sandbox::normalize(&folder.join(t)))
            }
            Some(Ok(Node::Absent)) => Err(errno(libc::ENOENT)),
            Some(Err(e)) => Err(e),
            None => self.disk.read(p),
        }
    }

    /// Names and kinds in a directory, sorted by name.
    pub fn list_dir(&self, p: &Path) -> io::Result<Vec<(String, EntryKind)>> {
        let mut entries: IndexMap<String, EntryKind> = IndexMap::new();
        let overlay_dir = self.overlay_lookup(p);
        let from_disk = match &overlay_dir {
            Some(Ok(Node::Dir { fresh })) => !fresh,
            Some(Ok(Node::File { .. })) | Some(Ok(Node::Symlink(_))) => {
                return Err(errno(libc::ENOTDIR))
            }
            Some(Ok(Node::Absent)) => return Err(errno(libc::ENOENT)),
            Some(Err(e)) => {
                return Err(io::Error::from_raw_os_error(
                    e.raw_os_error().unwrap_or(libc::ENOENT),
                ))
            }
            None => true,
        };
        if from_disk {
            entries.extend(self.disk.list(p)?);
        }
        if self.dry_run {
            for (path, _) in self.overlay.iter() {
                if path.parent() == Some(p) {
                    if let Some(name) = path.file_name() {
                        let name = name.to_string_lossy().into_owned();
                        match self.kind(path) {
                            Ok(k) => {
                                entries.insert(name, k);
                            }
                            Err(_) => {
                                entries.shift_remove(&name);
                            }
                        }
                    }
                }
            }
        }
        let mut v: Vec<(String, EntryKind)> = entries.into_iter().collect();
        v.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(v)
    }

    /// Every entry below `dir` (not `dir` itself), parents before children.
    pub fn walk(&self, dir: &Path) -> io::Result<Vec<(PathBuf, EntryKind)>> {
        let mut out = Vec::new();
        let mut stack = vec![dir.to_path_buf()];
        while let Some(d) = stack.pop() {
            for (name, kind) in self.list_dir(&d)? {
                // A git directory is listed, never entered (whoever walks refuses it).
                let git = name.eq_ignore_ascii_case(".git");
                let p = d.join(name);
                if kind == EntryKind::Dir && !git {
                    stack.push(p.clone());
                }
                out.push((p, kind));
            }
        }
        Ok(out)
    }

    /// Files that exist only in the overlay below `dir` (dry run), sorted.
    pub fn overlay_files_under(&self, dir: &Path) -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> = self
            .overlay
            .keys()
            .filter(|p| p.starts_with(dir) && matches!(self.kind(p), Ok(EntryKind::File { .. })))
            .cloned()
            .collect();
        v.sort();
        v
    }

    /// Remembers the state of `p` before the first change to it.
    fn touch(&mut self, p: &Path) -> io::Result<()> {
        if !self.touched.contains_key(p) {
            let before = self.state(p)?;
            self.touched.insert(p.to_path_buf(), before);
        }
        if self.group.as_ref().is_some_and(|g| !g.contains_key(p)) {
            let before = self.state(p)?;
            if let Some(g) = self.group.as_mut() {
                g.insert(p.to_path_buf(), before);
            }
        }
        Ok(())
    }

    /// Starts recording what an atomic group changes (flush held content first: a roll-back
    /// restores only the group's paths).
    pub fn begin_group(&mut self) {
        self.group = Some(IndexMap::new());
    }

    /// Stops recording; the group's changes stay.
    pub fn end_group(&mut self) {
        self.group = None;
    }

    /// Puts every path the running group touched back to its state before the group (newest
    /// first), on disk or in the overlay, and stops recording.
    pub fn rollback_group(&mut self) -> io::Result<()> {
        let Some(g) = self.group.take() else {
            return Ok(());
        };
        // Held content is the group's own (it was flushed when the group began).
        self.held = None;
        for (p, before) in g.iter().rev() {
            if self.dry_run {
                let node = match before {
                    FileState::Absent => Node::Absent,
                    FileState::Dir => Node::Dir { fresh: false },
                    FileState::Symlink { target } => Node::Symlink(target.clone()),
                    FileState::File { bytes, executable } => Node::File {
                        bytes: bytes.clone(),
                        executable: *executable,
                    },
                };
                self.overlay.insert(p.clone(), node);
            } else {
                restore_one(&self.disk, p, before)?;
            }
        }
        Ok(())
    }

    /// Creates `dir` and its missing parents, recording each one created.
    pub fn create_dir_all(&mut self, dir: &Path) -> io::Result<()> {
        let mut missing = Vec::new();
        for anc in dir.ancestors() {
            match self.kind(anc) {
                Ok(EntryKind::Dir) => break,
                Ok(EntryKind::Symlink) if self.dir_through_link(anc) => break,
                Ok(_) => return Err(errno(libc::EEXIST)),
                Err(e) if e.kind() == io::ErrorKind::NotFound => missing.push(anc.to_path_buf()),
                Err(e) => return Err(e),
            }
        }
        for d in missing.into_iter().rev() {
            self.touch(&d)?;
            if self.dry_run {
                self.overlay.insert(d, Node::Dir { fresh: true });
            } else {
                self.disk.mkdir(&d)?;
            }
        }
        Ok(())
    }

    fn dir_through_link(&self, p: &Path) -> bool {
        self.disk.is_dir_following(p)
    }

    /// Writes a whole file atomically (temp file in the same directory, then rename), keeping
    /// the permissions of the file it replaces; `executable` sets the x bits of a new file.
    pub fn write_file(&mut self, p: &Path, bytes: &[u8], new_executable: bool) -> io::Result<()> {
        if let Ok(EntryKind::Dir) = self.kind(p) {
            return Err(errno(libc::EISDIR));
        }
        self.touch(p)?;
        if self.dry_run {
            let executable = match self.kind(p) {
                Ok(EntryKind::File { executable, .. }) => executable,
                _ => new_executable,
            };
            self.overlay.insert(
                p.to_path_buf(),
                Node::File {
                    bytes: bytes.to_vec(),
                    executable,
                },
            );
            return Ok(());
        }
        let writer = self.writer;
        if let Some(h) = self.held.as_mut().filter(|h| h.path == p) {
            h.bytes = bytes.to_vec();
            h.eol = None;
            h.writers.push(writer);
            return Ok(());
        }
        if !self.holding || self.held.as_ref().is_some_and(|h| !h.writers.is_empty()) {
            return self.disk.write(p, bytes, new_executable);
        }
        let (new, executable) = match self.disk.kind(p) {
            Ok(EntryKind::File { executable, .. }) => (false, executable),
            Ok(EntryKind::Symlink) => {
                // The link is replaced by the file, as a file write does: write it now.
                return self.disk.write(p, bytes, new_executable);
            }
            _ => (true, new_executable),
        };
        self.held = Some(Held {
            path: p.to_path_buf(),
            bytes: bytes.to_vec(),
            executable,
            new,
            eol: None,
            writers: vec![writer],
        });
        Ok(())
    }

    /// Makes `p` a symbolic link to `target`, replacing the file or link there (atomically on
    /// disk). The target is the caller's to check: nothing here follows it.
    pub fn write_symlink(&mut self, p: &Path, target: &Path) -> io::Result<()> {
        if let Ok(EntryKind::Dir) = self.kind(p) {
            return Err(errno(libc::EISDIR));
        }
        if self.held(p).is_some() {
            self.flush().map_err(|e| e.error)?;
        }
        self.touch(p)?;
        if self.dry_run {
            self.overlay
                .insert(p.to_path_buf(), Node::Symlink(target.to_path_buf()));
            return Ok(());
        }
        self.disk.symlink(p, target)
    }

    /// Records that the plain file at `p` holds a symbolic link's target (see
    /// [`super::Execution::link_files`]).
    pub fn mark_link_file(&mut self, p: &Path) {
        if !self.link_files.iter().any(|q| q == p) {
            self.link_files.push(p.to_path_buf());
        }
    }

    /// The root-relative paths of the files [`Vfs::mark_link_file`] recorded that are still
    /// such files.
    pub fn link_files(&self, sandbox: &Sandbox) -> Vec<String> {
        self.link_files
            .iter()
            .filter(|p| matches!(self.kind(p), Ok(EntryKind::File { .. })))
            .filter_map(|p| sandbox.rel(p))
            .collect()
    }

    /// Sets or clears the executable bits of a file (a diff's mode change): `x` where `r` is
    /// set, as git checks out a 100755 file, or none. Held content is written first.
    pub fn set_executable(&mut self, p: &Path, on: bool) -> io::Result<()> {
        if self.held(p).is_some() {
            self.flush().map_err(|e| e.error)?;
        }
        let EntryKind::File { executable, .. } = self.kind(p)? else {
            return Err(errno(libc::EINVAL));
        };
        if executable == on {
            return Ok(());
        }
        self.touch(p)?;
        if self.dry_run {
            let bytes = self.read(p)?;
            self.overlay.insert(
                p.to_path_buf(),
                Node::File {
                    bytes,
                    executable: on,
                },
            );
            return Ok(());
        }
        self.disk.set_executable(p, on)
    }

    /// Removes the directories a delete or move emptied, from `dir` upwards, stopping below
    /// `root` or at the first directory with something in it — as `git rm` and `git mv` do,
    /// so the worktree an apply leaves is the one a checkout of its commit (redo) gives.
    /// Each removal is recorded, so a restore puts the directory back.
    pub fn prune_emptied(&mut self, dir: &Path, root: &Path) -> io::Result<()> {
        let mut dir = dir.to_path_buf();
        while dir != root && dir.starts_with(root) {
            if !matches!(self.kind(&dir), Ok(EntryKind::Dir)) || !self.list_dir(&dir)?.is_empty() {
                break;
            }
            self.touch(&dir)?;
            if self.dry_run {
                self.overlay.insert(dir.clone(), Node::Absent);
            } else if self.disk.rmdir(&dir).is_err() {
                break;
            }
            if !dir.pop() {
                break;
            }
        }
        Ok(())
    }

    /// Removes a file or symlink.
    pub fn remove_file(&mut self, p: &Path) -> io::Result<()> {
        match self.kind(p)? {
            EntryKind::Dir => return Err(errno(libc::EISDIR)),
            EntryKind::File { .. } | EntryKind::Symlink => {}
        }
        self.touch(p)?;
        self.link_files.retain(|q| q != p);
        if self.dry_run {
            self.overlay.insert(p.to_path_buf(), Node::Absent);
            Ok(())
        } else {
            self.disk.unlink(p)
        }
    }

    /// Removes an empty directory, or (recursive) a whole tree. A tree containing a `.git`
    /// entry is refused: git-clada never deletes git's data (a nested repository, a submodule).
    pub fn remove_dir(&mut self, p: &Path, recursive: bool) -> io::Result<Vec<PathBuf>> {
        match self.kind(p)? {
            EntryKind::Dir => {}
            _ => return Err(errno(libc::ENOTDIR)),
        }
        let inside = self.walk(p)?;
        if !inside.is_empty() && !recursive {
            return Err(errno(libc::ENOTEMPTY));
        }
        if let Some((git, _)) = inside
            .iter()
            .find(|(q, _)| has_git_component(q.strip_prefix(p).unwrap_or(q)))
        {
            return Err(io::Error::other(format!(
                "refusing to delete '{}': it contains a .git entry",
                git.display()
            )));
        }
        // Restore recreates missing parents itself, so the order of these records is free.
        for (q, _) in &inside {
            self.touch(q)?;
        }
        self.touch(p)?;
        if self.dry_run {
            self.overlay.insert(p.to_path_buf(), Node::Absent);
            for (q, _) in &inside {
                self.overlay.insert(q.clone(), Node::Absent);
            }
        } else if recursive {
            self.disk.remove_any(p)?;
        } else {
            self.disk.rmdir(p)?;
        }
        Ok(inside.into_iter().map(|(q, _)| q).collect())
    }

    /// Renames a file, symlink or directory (the destination's parent must exist).
    pub fn rename(&mut self, from: &Path, to: &Path) -> io::Result<()> {
        let kind = self.kind(from)?;
        let mut pairs = vec![(from.to_path_buf(), to.to_path_buf())];
        if kind == EntryKind::Dir {
            match self.kind(to) {
                Ok(EntryKind::Dir) if !self.list_dir(to)?.is_empty() => {
                    return Err(errno(libc::ENOTEMPTY))
                }
                Ok(EntryKind::Dir) | Err(_) => {}
                Ok(_) => return Err(errno(libc::ENOTDIR)),
            }
            if to.starts_with(from) {
                return Err(errno(libc::EINVAL));
            }
            for (q, _) in self.walk(from)? {
                if has_git_component(q.strip_prefix(from).unwrap_or(&q)) {
                    return Err(io::Error::other(GitInside(q)));
                }
                let rel = q
                    .strip_prefix(from)
                    .map(Path::to_path_buf)
                    .unwrap_or_default();
                pairs.push((q.clone(), to.join(rel)));
            }
        } else if let Ok(EntryKind::Dir) = self.kind(to) {
            return Err(errno(libc::EISDIR));
        }
        for (a, b) in &pairs {
            self.touch(a)?;
            self.touch(b)?;
        }
        for (a, b) in &pairs {
            let moved = self.is_link_file(a);
            self.link_files.retain(|q| q != a && q != b);
            if moved {
                self.link_files.push(b.clone());
            }
        }
        if self.dry_run {
            let mut moved = Vec::new();
            for (a, b) in &pairs {
                let node = match self.state(a)? {
                    FileState::File { bytes, executable } => Node::File { bytes, executable },
                    FileState::Symlink { target } => Node::Symlink(target),
                    FileState::Dir => Node::Dir { fresh: true },
                    FileState::Absent => Node::Absent,
                };
                moved.push((b.clone(), node));
            }
            for (a, _) in &pairs {
                self.overlay.insert(a.clone(), Node::Absent);
            }
            for (b, node) in moved {
                self.overlay.insert(b, node);
            }
            Ok(())
        } else {
            self.disk.rename(from, to)
        }
    }

    /// The recorded changes: every touched path whose state differs now, in first-touch order.
    /// A path whose directory was replaced since (a symlink now stands on the way) cannot be
    /// read: it counts as changed and gone, so a roll-back tries it and stops there
    /// (`path_changed`) instead of passing over it.
    pub fn changes(&self, sandbox: &Sandbox) -> Vec<FileChange> {
        let mut out = Vec::new();
        for (p, before) in &self.touched {
            let (after, unreadable) = match self.state(p) {
                Ok(s) => (s, false),
                Err(e) => (
                    FileState::Absent,
                    clada_base::beneath::refusal(&e).is_some(),
                ),
            };
            if &after == before && !unreadable {
                continue;
            }
            out.push(FileChange {
                path: p.clone(),
                rel: sandbox.rel(p),
                before: before.clone(),
                after,
            });
        }
        out
    }
}

/// Puts every `before` state back, newest change first; used by `--atomic` (DESIGN §6.4).
/// Each file is restored atomically through directory handles; missing parents are
/// recreated. A directory found replaced on the way (`path_changed`) stops it: nothing is
/// deleted by name.
pub fn restore(disk: &Disk, changes: &[FileChange]) -> io::Result<()> {
    for c in changes.iter().rev() {
        restore_one(disk, &c.path, &c.before)?;
    }
    Ok(())
}

fn restore_one(disk: &Disk, p: &Path, before: &FileState) -> io::Result<()> {
    let now = disk.kind(p).ok();
    let parent = || match p.parent() {
        Some(parent) => disk.create_dirs(parent),
        None => Ok(()),
    };
    match before {
        FileState::Absent => disk.remove_any(p),
        FileState::Dir => {
            if now != Some(EntryKind::Dir) {
                disk.remove_any(p)?;
                disk.create_dirs(p)?;
            }
            Ok(())
        }
        FileState::Symlink { target } => {
            if now == Some(EntryKind::Dir) {
                disk.remove_any(p)?;
            }
            parent()?;
            disk.symlink(p, target)
        }
        FileState::File { bytes, executable } => {
            if now == Some(EntryKind::Dir) || now == Some(EntryKind::Symlink) {
                disk.remove_any(p)?;
            }
            parent()?;
            disk.write(p, bytes, *executable)?;
            disk.set_executable(p, *executable)
        }
    }
}

/// (CRLF count, LF count) of `bytes`.
fn eol_counts(bytes: &[u8]) -> (usize, usize) {
    let lf = memchr::memchr_iter(b'\n', bytes).count();
    let crlf = memchr::memchr_iter(b'\n', bytes)
        .filter(|&i| i > 0 && bytes[i - 1] == b'\r')
        .count();
    (crlf, lf)
}

/// Why a file cannot be edited as text.
pub fn text_refusal(bytes: &[u8]) -> Option<&'static str> {
    if bytes.len() as u64 > MAX_TEXT_BYTES {
        Some("too_large")
    } else if bytes[..bytes.len().min(BINARY_SNIFF_BYTES)].contains(&0) {
        Some("binary")
    } else {
        None
    }
}

#[cfg(test)]
mod tests;
