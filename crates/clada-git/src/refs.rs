//! Reference updates done the way git's files backend does them: lock each loose ref
//! (`<name>.lock`), compare its current value under that lock (loose, else `packed-refs`,
//! which is only read), write the new values and reflogs, and rename the locks into place.
//! `packed-refs` is never locked: git itself takes that lock only to delete a ref, and
//! deletions (and symbolic updates) still go through gix's transaction.
//!
//! The locks are made provably ours before they exist (see `lockfile`): one intent file names
//! them all, and each lock is created as a second name of a token, so a kill at any point
//! leaves nothing the next git-clada cannot clear.

use std::fs::File;
use std::io::Write;
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;

use gix::ObjectId;

use super::commit::{Expected, RefUpdate};
use super::lockfile::LockBusy;
use super::{io_err, Repo, RepoError, Result};

/// One ref the transaction writes (after following `HEAD`), and the refs whose reflogs record
/// the move.
struct Leaf {
    /// The ref whose file changes.
    name: String,
    new: ObjectId,
    expected: Expected,
    reflog: String,
    /// `HEAD` when the update went through it: locked too (as git does), and logged.
    via_head: bool,
}

/// One line of a reflog: the ref moved from `old` to `new`, for the reason `message`
/// (`commit (amend): …`, `clada: apply …`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReflogEntry {
    pub old: ObjectId,
    pub new: ObjectId,
    pub message: String,
}

impl Repo {
    /// The reflog of `name` (`HEAD`, `refs/heads/main`), oldest first; empty when it has none.
    /// Lines that do not read as reflog lines are skipped.
    pub fn reflog(&self, name: &str) -> Result<Vec<ReflogEntry>> {
        let path = self.reflog_path(name);
        let data = match std::fs::read(&path) {
            Ok(d) => d,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(io_err("cannot read the reflog", &path)(e)),
        };
        let hex = self.repo.object_hash().len_in_hex();
        let mut out = Vec::new();
        for line in data.split(|&b| b == b'\n') {
            let (Some(old), Some(new)) = (line.get(..hex), line.get(hex + 1..2 * hex + 1)) else {
                continue;
            };
            let (Ok(old), Ok(new)) = (ObjectId::from_hex(old), ObjectId::from_hex(new)) else {
                continue;
            };
            let message = match line.iter().position(|&b| b == b'\t') {
                Some(i) => String::from_utf8_lossy(&line[i + 1..]).into_owned(),
                None => String::new(),
            };
            out.push(ReflogEntry { old, new, message });
        }
        Ok(out)
    }

    /// Moves every ref of `updates` (an object each; `HEAD` is followed to its branch) in one
    /// transaction: all are locked, then each is compared with its expected value, then all
    /// are written. `Ok(false)` when this path does not apply (a namespace is configured), so
    /// the caller uses gix's transaction instead.
    pub(crate) fn update_loose_refs(&self, updates: &[RefUpdate]) -> Result<bool> {
        self.loose_transaction(updates, true)
    }

    /// [`Repo::update_loose_refs`]; with `deref_head` false, an update of `HEAD` writes
    /// `HEAD` itself (detaching it).
    pub(crate) fn loose_transaction(
        &self,
        updates: &[RefUpdate],
        deref_head: bool,
    ) -> Result<bool> {
        if self.repo.refs.namespace.is_some() {
            return Ok(false);
        }
        let mut leaves = Vec::with_capacity(updates.len());
        for u in updates {
            let (name, via_head) = if u.name == "HEAD" && deref_head {
                match self.head_leaf()? {
                    Some(branch) => (branch, true),
                    None => ("HEAD".to_string(), false),
                }
            } else {
                (u.name.clone(), false)
            };
            let valid: std::result::Result<gix::refs::FullName, _> = name.as_str().try_into();
            if let Err(e) = valid {
                return Err(RepoError::Invalid(format!(
                    "invalid reference name '{name}': {e}"
                )));
            }
            leaves.push(Leaf {
                name,
                new: u.new,
                expected: u.expected,
                reflog: u.reflog.clone(),
                via_head,
            });
        }
        let mut locks: Vec<PathBuf> = Vec::new();
        for l in &leaves {
            if l.via_head {
                locks.push(self.ref_lock_path("HEAD"));
            }
            locks.push(self.ref_lock_path(&l.name));
        }
        let names: Vec<&str> = leaves.iter().map(|l| l.name.as_str()).collect();
        let announced = self.announce_locks(&locks);
        clada_base::failpoint::hit("refs:before-lock");
        let wait = self.ref_lock_wait();
        let (mut files, proof) = announced.take(wait).map_err(|e| match e {
            LockBusy::Held => RepoError::Invalid(format!(
                "cannot update {}: another git command holds its lock (a '.lock' file next to it); if none is running (one may have crashed), remove the lock file and try again",
                names.join(", ")
            )),
            LockBusy::Other(e) => e,
        })?;
        clada_base::failpoint::hit("refs:prepared");
        clada_base::failpoint::hit("refs:locked");
        let result = self.write_locked(&leaves, &locks, &mut files);
        if result.is_err() {
            for (file, lock) in files.iter().zip(&locks) {
                super::lockfile::release_if_ours(file, lock);
            }
        }
        drop(proof);
        result.map(|()| true)
    }

    /// Under the locks: the compare, the new values, the reflogs, then the renames.
    fn write_locked(&self, leaves: &[Leaf], locks: &[PathBuf], files: &mut [File]) -> Result<()> {
        let mut previous = Vec::with_capacity(leaves.len());
        for l in leaves {
            let current = self.read_ref_target(&l.name)?;
            let ok = match l.expected {
                Expected::Any => true,
                Expected::MustNotExist => current.is_none(),
                Expected::Value(id) => current == Some(id),
            };
            if !ok {
                let shown =
                    |v: Option<ObjectId>| v.map_or("nothing".to_string(), |id| id.to_string());
                let want = match l.expected {
                    Expected::Value(id) => id.to_string(),
                    _ => "nothing".into(),
                };
                return Err(RepoError::Invalid(format!(
                    "{} was changed by another process while git-clada was working (it is at {}, expected {want}); nothing was moved, look at `git log` and try again",
                    l.name,
                    shown(current)
                )));
            }
            // The reflog names the commit a symbolic ref pointed to (a HEAD being detached).
            previous.push(current.or_else(|| self.read_ref(&l.name).ok().flatten()));
        }
        // Who made the move: looked up only when a reflog is written (refs without one, like
        // git-clada's own, need no identity).
        let mut signature: Option<String> = None;
        let mut i = 0;
        let mut renames = Vec::with_capacity(leaves.len());
        for (l, old) in leaves.iter().zip(&previous) {
            let logs: &[&str] = if l.via_head {
                // HEAD stays symbolic: its lock only guards the reflog entry.
                &["HEAD", l.name.as_str()]
            } else {
                &[l.name.as_str()]
            };
            if l.via_head {
                i += 1;
            }
            let lock = &locks[i];
            files[i]
                .write_all(format!("{}\n", l.new).as_bytes())
                .map_err(io_err("cannot write the lock", lock))?;
            // Written out while the reflogs are appended, so the rename has nothing to flush.
            clada_base::reaper::start_writeback(&files[i]);
            for name in logs {
                let Some(mut file) = self.reflog_file(name)? else {
                    continue;
                };
                let sig = match &signature {
                    Some(sig) => sig,
                    None => signature.insert(self.reflog_signature()?),
                };
                let line = reflog_line(*old, l.new, sig, &l.reflog);
                file.write_all(&line)
                    .map_err(io_err("cannot write the reflog", &self.reflog_path(name)))?;
            }
            renames.push((i, l.via_head));
            i += 1;
        }
        for (at, via_head) in renames {
            let lock = &locks[at];
            let target = PathBuf::from(std::ffi::OsStr::from_bytes(
                lock.as_os_str()
                    .as_bytes()
                    .strip_suffix(b".lock")
                    .unwrap_or(lock.as_os_str().as_bytes()),
            ));
            clada_base::reaper::replace(lock, &target)
                .map_err(io_err("cannot update the reference", &target))?;
            if via_head {
                let _ = clada_base::reaper::remove(&locks[at - 1]);
            }
        }
        clada_base::failpoint::hit("refs:committed");
        Ok(())
    }

    /// The branch `HEAD` points to (following symbolic refs), or `None` when detached.
    fn head_leaf(&self) -> Result<Option<String>> {
        let mut name = "HEAD".to_string();
        for _ in 0..5 {
            match self.symbolic_target(&name) {
                Some(t) => name = t,
                None => break,
            }
        }
        Ok((name != "HEAD").then_some(name))
    }

    /// The object `name` points to now (loose, else packed), without peeling.
    fn read_ref_target(&self, name: &str) -> Result<Option<ObjectId>> {
        let found = self
            .repo
            .try_find_reference(name)
            .map_err(|e| RepoError::Invalid(format!("cannot read {name}: {e}")))?;
        Ok(found.and_then(|r| match r.inner.target {
            gix::refs::Target::Object(id) => Some(id),
            gix::refs::Target::Symbolic(_) => None,
        }))
    }

    /// `Name <email> seconds +hhmm` of the committer, as reflogs record it.
    fn reflog_signature(&self) -> Result<String> {
        if let Ok(c) = self.persona("COMMITTER", "committer") {
            let sign = if c.offset < 0 { '-' } else { '+' };
            let off = c.offset.unsigned_abs();
            return Ok(format!(
                "{} <{}> {} {sign}{:02}{:02}",
                c.name,
                c.email,
                c.seconds,
                off / 3600,
                (off % 3600) / 60
            ));
        }
        let sig = self
            .repo
            .committer()
            .transpose()
            .map_err(|e| RepoError::Invalid(format!("cannot tell who the committer is: {e}")))?
            .ok_or_else(|| {
                RepoError::Invalid(
                    "your git identity is not configured; set it with `git config --global user.name \"Your Name\"` and `git config --global user.email you@example.com`".into(),
                )
            })?;
        let mut out = Vec::new();
        sig.trim()
            .write_to(&mut out)
            .map_err(|e| RepoError::Invalid(format!("cannot write the committer: {e}")))?;
        Ok(String::from_utf8_lossy(&out).into_owned())
    }

    /// Where the reflog of `name` lives.
    fn reflog_path(&self, name: &str) -> PathBuf {
        let mut path = self.ref_base_dir(name).join("logs");
        for comp in name.split('/') {
            path.push(comp);
        }
        path
    }

    /// The reflog of `name` opened for appending, created where git would (`HEAD`,
    /// branches, remote-tracking branches, notes; every ref with
    /// `core.logAllRefUpdates=always`); `None` when it has none and gets none.
    fn reflog_file(&self, name: &str) -> Result<Option<File>> {
        use gix::refs::store::WriteReflog;
        let mode = self.repo.refs.write_reflog;
        if mode == WriteReflog::Disable {
            return Ok(None);
        }
        let create = mode == WriteReflog::Always
            || name == "HEAD"
            || [
                "refs/heads/",
                "refs/remotes/",
                "refs/notes/",
                "refs/worktree/",
            ]
            .iter()
            .any(|p| name.starts_with(p));
        let path = self.reflog_path(name);
        let mut options = std::fs::OpenOptions::new();
        options.append(true);
        let opened = match options.open(&path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && create => {
                if let Some(dir) = path.parent() {
                    std::fs::create_dir_all(dir).map_err(io_err("cannot create directory", dir))?;
                }
                options.create(true).open(&path)
            }
            other => other,
        };
        match opened {
            Ok(f) => Ok(Some(f)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(io_err("cannot write the reflog", &path)(e)),
        }
    }
}

/// One reflog line: `old new signature\tmessage\n` (a message on one line, as git keeps it).
fn reflog_line(old: Option<ObjectId>, new: ObjectId, signature: &str, message: &str) -> Vec<u8> {
    let old = old.unwrap_or_else(|| ObjectId::null(new.kind()));
    let message: String = message
        .trim_end()
        .chars()
        .map(|c| if c == '\n' { ' ' } else { c })
        .collect();
    let mut line = format!("{old} {new} {signature}").into_bytes();
    if !message.is_empty() {
        line.push(b'\t');
        line.extend_from_slice(message.as_bytes());
    }
    line.push(b'\n');
    line
}
