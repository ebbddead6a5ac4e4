//! git's lock files taken by git-clada (`index.lock`, `<ref>.lock`, `packed-refs.lock`), made
//! provably ours, so that after a crash exactly these are removed — and never a lock that a
//! live git command holds.
//!
//! The proof is a hard link. For every lock file git-clada holds, `<git-dir>/clada/locks/`
//! keeps a *token*: a second name of the same inode, whose own name says which lock it is
//! for (or, where a name cannot say it, an *intent* file naming the locks and the content
//! git-clada writes into them). While the token exists its inode cannot be
//! reused, so "the lock file has the token's device and inode" is true of our lock and of no
//! other file. The index lock and the ref locks of reference updates (see `refs`) are created
//! as the token first and then linked into place (`link` fails if the name exists, like
//! `O_EXCL`), so they are never ours without the proof. Ref locks gix creates (deletions and
//! symbolic updates, in gix's transaction) are linked to their tokens as soon as the
//! transaction is prepared, and an intent (written before) covers the short window in
//! between: a lock holding exactly the content we intended is ours too. A lock that is still
//! empty or half-written in that window (or `packed-refs.lock`, whose content is only written
//! at commit) is taken as ours only if it stays exactly as it is for a second while the next
//! git-clada watches: git holds ref locks for milliseconds. Anything else — a lock another
//! process replaced ours with, or one never proven — is left in place.
//!
//! Tokens and intents are written only while the clada lock (`clada.lock`) is held, so when
//! the next git-clada takes that lock, whatever it finds in `clada/locks/` belongs to a
//! process that died: [`Repo::clear_stale_locks`] settles it.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use super::{io_err, Repo, RepoError, Result};

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// What the clean-up of a dead git-clada's locks found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StaleLocks {
    /// A git-clada died while holding (or taking) git locks.
    pub found: bool,
    /// Lock files proven ours and removed.
    pub removed: Vec<PathBuf>,
    /// Lock files that may be ours but could as well be a running git command's: left in
    /// place.
    pub left: Vec<PathBuf>,
}

impl StaleLocks {
    /// Removes `lock` when it is proven ours, leaves it (and lists it) when it may be.
    fn settle(&mut self, lock: PathBuf, verdict: Verdict) {
        match verdict {
            Verdict::Ours => match std::fs::remove_file(&lock) {
                Ok(()) => self.removed.push(lock),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(_) => self.left.push(lock),
            },
            Verdict::Unknown => self.left.push(lock),
            Verdict::NotOurs => {}
        }
    }

    /// A sentence for the user about the locks left in place, if any.
    pub fn left_message(&self) -> Option<String> {
        if self.left.is_empty() {
            return None;
        }
        let list: Vec<String> = self
            .left
            .iter()
            .map(|p| format!("'{}'", p.display()))
            .collect();
        Some(format!(
            "git-clada was killed while taking the lock {}; it cannot tell it from one a running git command holds, so it is left in place: if no git command is running, remove it (`rm {}`)",
            list.join(", "),
            self.left
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(" ")
        ))
    }
}

/// One lock git-clada is about to take or holds: its intent file and (once linked) its token.
/// Dropping it removes both (the lock itself is released by its owner); the intent goes
/// first, so an intent never outlives its token.
#[derive(Debug)]
pub(crate) struct LockToken {
    token: PathBuf,
    intent: PathBuf,
}

impl LockToken {
    /// Links the lock file `lock` (just created by gix acting for us) to this token. Best
    /// effort: without the link, recovery falls back to the intent's content.
    fn link_from(&self, lock: &Path) {
        let _ = std::fs::hard_link(lock, &self.token);
    }
}

impl Drop for LockToken {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.intent);
        let _ = std::fs::remove_file(&self.token);
    }
}

/// How the token of a lock comes to be.
enum Linking<'a> {
    /// The token exists before the lock: a lock without the token's inode is not ours.
    Before,
    /// The lock is linked to the token after it was created (by gix), and will hold
    /// `content` (`None`: unknown).
    After(Option<&'a [u8]>),
}

impl Repo {
    fn lock_token_dir(&self) -> PathBuf {
        self.git_dir().join("clada").join("locks")
    }

    /// Fresh paths for a token and its intent (the directory is created when a file is
    /// first made in it, see [`create_in_lock_dir`]).
    fn token_paths(&self) -> (PathBuf, PathBuf) {
        let dir = self.lock_token_dir();
        let name = format!(
            "{}-{}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        );
        (dir.join(&name), dir.join(format!("{name}.intent")))
    }

    /// Records the intent to take the lock file `lock`; its token is not linked yet.
    fn lock_intent(&self, lock: &Path, linking: Linking<'_>) -> Result<LockToken> {
        let (token, intent) = self.token_paths();
        write_intent(&intent, &intent_text(lock, &linking))?;
        Ok(LockToken { token, intent })
    }

    /// Records that a ref transaction is about to create the lock file `lock` and write
    /// `content` into it (`None`: unknown); [`Repo::link_lock_tokens`] proves it ours once
    /// it exists.
    pub(crate) fn ref_lock_intent(&self, lock: &Path, content: Option<&[u8]>) -> Result<LockToken> {
        self.lock_intent(lock, Linking::After(content))
    }

    /// Links every lock file in `locks` that exists now to its token (called right after a
    /// ref transaction took its locks, before it commits).
    pub(crate) fn link_lock_tokens(&self, locks: &[(PathBuf, LockToken)]) {
        for (lock, token) in locks {
            token.link_from(lock);
        }
    }

    /// Records the intent to create the lock files `locks` (one intent file names them
    /// all); [`AnnouncedLocks::take`] then creates each as a second name of a token made just
    /// before it. Where nothing can be recorded (`.git/clada` not writable), the locks are
    /// still taken later, only without the proof.
    pub(crate) fn announce_locks(&self, locks: &[PathBuf]) -> AnnouncedLocks {
        let (first_token, intent) = self.token_paths();
        let mut tokens = vec![first_token];
        while tokens.len() < locks.len() {
            tokens.push(self.token_paths().0);
        }
        tokens.truncate(locks.len());
        // Usually each token's name says which lock it is for, and no intent file is needed.
        let named: Option<Vec<PathBuf>> = tokens
            .iter()
            .zip(locks)
            .map(|(token, lock)| self.named_token(token, lock))
            .collect();
        if let Some(tokens) = named {
            return AnnouncedLocks {
                locks: locks.to_vec(),
                proof: Some(TokenedLocks {
                    intent: None,
                    tokens,
                }),
            };
        }
        let mut text = b"clada-locks 2\n".to_vec();
        for (token, lock) in tokens.iter().zip(locks) {
            let name = token.file_name().map_or(&b""[..], |n| n.as_bytes());
            text.extend_from_slice(name);
            text.extend_from_slice(b"\0before\0");
            text.extend_from_slice(lock.as_os_str().as_bytes());
            text.push(0);
        }
        let recorded = write_intent(&intent, &text).is_ok();
        AnnouncedLocks {
            locks: locks.to_vec(),
            proof: recorded.then_some(TokenedLocks {
                intent: Some(intent),
                tokens,
            }),
        }
    }

    /// `token` renamed to also name the lock it is made for: `<token>@g@<path>` for a lock in
    /// this worktree's git dir, `<token>@c@<path>` in the common dir, the path relative to
    /// it with `%` and `/` escaped. `None` when the lock lies elsewhere or the name would be
    /// too long for the filesystem.
    fn named_token(&self, token: &Path, lock: &Path) -> Option<PathBuf> {
        let (tag, rel) = match lock.strip_prefix(self.git_dir()) {
            Ok(rel) => ("g", rel),
            Err(_) => ("c", lock.strip_prefix(self.common_dir()).ok()?),
        };
        let mut name = token.file_name()?.as_bytes().to_vec();
        name.extend_from_slice(b"@");
        name.extend_from_slice(tag.as_bytes());
        name.push(b'@');
        for b in rel.as_os_str().as_bytes() {
            match b {
                b'%' => name.extend_from_slice(b"%25"),
                b'/' => name.extend_from_slice(b"%2F"),
                b => name.push(*b),
            }
        }
        (name.len() <= 240).then(|| token.with_file_name(std::ffi::OsStr::from_bytes(&name)))
    }

    /// The lock a token named by [`Repo::named_token`] is for.
    fn lock_of_token(&self, name: &[u8]) -> Option<PathBuf> {
        let at = name.iter().position(|b| *b == b'@')?;
        let rest = &name[at + 1..];
        let (base, escaped) = match rest {
            [b'g', b'@', tail @ ..] => (self.git_dir(), tail),
            [b'c', b'@', tail @ ..] => (self.common_dir(), tail),
            _ => return None,
        };
        let mut rel = Vec::with_capacity(escaped.len());
        let mut rest = escaped;
        while let Some((first, tail)) = rest.split_first() {
            let (byte, skip) = match (first, tail) {
                (b'%', [b'2', b'5', ..]) => (b'%', 2),
                (b'%', [b'2', b'F', ..]) => (b'/', 2),
                (b, _) => (*b, 0),
            };
            rel.push(byte);
            rest = &tail[skip..];
        }
        Some(base.join(std::ffi::OsStr::from_bytes(&rel)))
    }

    /// Creates the lock file `lock` as a second name of a token made first, waiting up to
    /// `wait` while another process holds it (see [`Repo::announce_locks`]).
    pub(crate) fn create_tokened_lock(
        &self,
        lock: &Path,
        wait: Duration,
    ) -> Result<(File, Option<TokenedLocks>), LockBusy> {
        let (mut files, proof) = self.announce_locks(&[lock.to_path_buf()]).take(wait)?;
        match files.pop() {
            Some(file) => Ok((file, proof)),
            None => Err(LockBusy::Held),
        }
    }

    /// Removes the lock files a dead git-clada left behind — exactly those proven its own —
    /// and its tokens. Must be called with the clada lock held: then every token belongs
    /// to a process that is gone.
    pub(crate) fn clear_stale_locks(&self) -> StaleLocks {
        let mut out = StaleLocks::default();
        let dir = self.lock_token_dir();
        let Ok(rd) = std::fs::read_dir(&dir) else {
            return out;
        };
        let names: Vec<PathBuf> = rd.flatten().map(|e| e.path()).collect();
        for path in &names {
            let Some(stem) = path
                .file_name()
                .and_then(|n| n.to_str())
                .and_then(|n| n.strip_suffix(".intent"))
            else {
                continue;
            };
            out.found = true;
            let Ok(text) = std::fs::read(path) else {
                continue;
            };
            for (token, linking, lock) in parse_intent(&text, stem) {
                let token = dir.join(std::ffi::OsStr::from_bytes(token));
                let lock = PathBuf::from(std::ffi::OsStr::from_bytes(lock));
                let verdict = judge(&lock, &token, &linking);
                out.settle(lock, verdict);
                let _ = std::fs::remove_file(&token);
            }
            let _ = std::fs::remove_file(path);
        }
        // Tokens without an intent: their name says which lock they are for (or, of an
        // intent already removed, they are simply left over).
        for path in &names {
            if path.as_os_str().as_bytes().ends_with(b".intent") || !path.exists() {
                continue;
            }
            out.found = true;
            let lock = path
                .file_name()
                .and_then(|n| self.lock_of_token(n.as_bytes()));
            if let Some(lock) = lock {
                let verdict = judge(&lock, path, &Linking::Before);
                out.settle(lock, verdict);
            }
            let _ = std::fs::remove_file(path);
        }
        // The directory itself stays: the next lock needs it again.
        out
    }
}

/// The text of a one-lock intent file: the lock's path, then how its token is linked.
fn intent_text(lock: &Path, linking: &Linking<'_>) -> Vec<u8> {
    let mut text = Vec::new();
    text.extend_from_slice(lock.as_os_str().as_bytes());
    match linking {
        Linking::Before => text.extend_from_slice(b"\nbefore"),
        Linking::After(None) => text.extend_from_slice(b"\nafter"),
        Linking::After(Some(c)) => {
            text.extend_from_slice(b"\nafter=");
            text.extend_from_slice(c);
        }
    }
    text
}

/// Writes an intent file.
fn write_intent(intent: &Path, text: &[u8]) -> Result<()> {
    let mut f = create_in_lock_dir(intent).map_err(io_err("cannot record a lock", intent))?;
    f.write_all(text)
        .map_err(io_err("cannot record a lock", intent))
}

/// Creates a new file in the token directory, creating the directory only when it is missing
/// (it stays once made).
fn create_in_lock_dir(path: &Path) -> std::io::Result<File> {
    let open = || {
        OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .mode(0o666)
            .open(path)
    };
    match open() {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir)?;
            }
            open()
        }
        other => other,
    }
}

/// The records of an intent file: (token name, how it is linked, lock path). The first
/// format names one lock (the token is the intent's own name); the second any number.
fn parse_intent<'a>(text: &'a [u8], own_token: &'a str) -> Vec<(&'a [u8], Linking<'a>, &'a [u8])> {
    let linking_of = |l: &'a [u8]| match l {
        b"before" => Linking::Before,
        b"after" => Linking::After(None),
        other => Linking::After(other.strip_prefix(b"after=")),
    };
    if let Some(body) = text.strip_prefix(b"clada-locks 2\n") {
        let fields: Vec<&[u8]> = body.split(|b| *b == 0).collect();
        return fields
            .chunks(3)
            .filter(|c| c.len() == 3 && !c[0].is_empty())
            .map(|c| (c[0], linking_of(c[1]), c[2]))
            .collect();
    }
    let (lock, linking) = match text.iter().position(|b| *b == b'\n') {
        Some(pos) => (&text[..pos], &text[pos + 1..]),
        None => (text, &b""[..]),
    };
    vec![(own_token.as_bytes(), linking_of(linking), lock)]
}

/// Locks git-clada created itself: their tokens and the intent file that names them.
/// Dropping it removes the intent, then the tokens (the locks themselves are renamed or
/// removed by their owner first).
#[derive(Debug)]
pub(crate) struct TokenedLocks {
    intent: Option<PathBuf>,
    tokens: Vec<PathBuf>,
}

impl Drop for TokenedLocks {
    fn drop(&mut self) {
        if let Some(intent) = self.intent.take() {
            let _ = std::fs::remove_file(intent);
        }
        for token in &self.tokens {
            let _ = std::fs::remove_file(token);
        }
    }
}

/// Lock files announced in an intent file, not yet taken (see [`Repo::announce_locks`]).
pub(crate) struct AnnouncedLocks {
    locks: Vec<PathBuf>,
    proof: Option<TokenedLocks>,
}

impl AnnouncedLocks {
    /// Takes every announced lock, each as a hard link to a fresh token (`link` fails if the
    /// name exists, like `O_EXCL`), creating a missing parent directory; waits up to `wait`
    /// for one another process holds. On failure the locks taken so far are released.
    /// Returns the open lock files, in order, and their proof (`None` where no token could be
    /// made: then the locks are plain exclusive creates).
    pub(crate) fn take(
        self,
        wait: Duration,
    ) -> Result<(Vec<File>, Option<TokenedLocks>), LockBusy> {
        let AnnouncedLocks { locks, proof } = self;
        let mut files: Vec<File> = Vec::with_capacity(locks.len());
        let release = |files: &[File], locks: &[PathBuf]| {
            for (file, lock) in files.iter().zip(locks) {
                release_if_ours(file, lock);
            }
        };
        let Some(proof) = proof else {
            for lock in &locks {
                match create_plain_lock(lock, wait) {
                    Ok(f) => files.push(f),
                    Err(e) => {
                        release(&files, &locks);
                        return Err(e);
                    }
                }
            }
            return Ok((files, None));
        };
        for (token, lock) in proof.tokens.iter().zip(&locks) {
            match take_one(token, lock, wait) {
                Ok(f) => files.push(f),
                Err(e) => {
                    release(&files, &locks);
                    return Err(e);
                }
            }
        }
        Ok((files, Some(proof)))
    }
}

/// Removes the lock file `lock` if it is still the file `held` (nobody replaced it).
pub(crate) fn release_if_ours(held: &File, lock: &Path) {
    if let (Ok(h), Ok(now)) = (held.metadata(), std::fs::symlink_metadata(lock)) {
        if h.dev() == now.dev() && h.ino() == now.ino() {
            let _ = std::fs::remove_file(lock);
        }
    }
}

/// One lock of [`AnnouncedLocks::take`]: the token, then the lock as its second name.
fn take_one(token: &Path, lock: &Path, wait: Duration) -> Result<File, LockBusy> {
    let file = match create_in_lock_dir(token) {
        Ok(f) => f,
        // No token (the directory cannot be written): the lock without the proof.
        Err(_) => return create_plain_lock(lock, wait),
    };
    let start = Instant::now();
    let mut pause = Duration::from_millis(1);
    let mut made_parent = false;
    loop {
        match std::fs::hard_link(token, lock) {
            Ok(()) => return Ok(file),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                if start.elapsed() >= wait {
                    let _ = std::fs::remove_file(token);
                    return Err(LockBusy::Held);
                }
                std::thread::sleep(pause);
                pause = (pause * 2).min(Duration::from_millis(100));
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && !made_parent => {
                made_parent = true;
                if let Some(dir) = lock.parent() {
                    if let Err(e) = std::fs::create_dir_all(dir) {
                        let _ = std::fs::remove_file(token);
                        return Err(LockBusy::Other(io_err("cannot create directory", dir)(e)));
                    }
                }
            }
            // A filesystem without hard links: an exclusive create, without the proof.
            Err(_) => {
                drop(file);
                let _ = std::fs::remove_file(token);
                return create_plain_lock(lock, wait);
            }
        }
    }
}

fn create_plain_lock(lock: &Path, wait: Duration) -> Result<File, LockBusy> {
    let start = Instant::now();
    let mut pause = Duration::from_millis(1);
    loop {
        match OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .mode(0o666)
            .open(lock)
        {
            Ok(f) => return Ok(f),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                if start.elapsed() >= wait {
                    return Err(LockBusy::Held);
                }
                std::thread::sleep(pause);
                pause = (pause * 2).min(Duration::from_millis(100));
            }
            Err(e) => return Err(LockBusy::Other(io_err("cannot create", lock)(e))),
        }
    }
}

enum Verdict {
    Ours,
    NotOurs,
    Unknown,
}

/// Whether the lock file at `lock` is the one whose token is at `token`.
fn judge(lock: &Path, token: &Path, linking: &Linking<'_>) -> Verdict {
    let Ok(md) = std::fs::symlink_metadata(lock) else {
        return Verdict::NotOurs;
    };
    if let Ok(t) = std::fs::symlink_metadata(token) {
        return if t.dev() == md.dev() && t.ino() == md.ino() {
            Verdict::Ours
        } else {
            // The token names our lock's inode, and this is another file.
            Verdict::NotOurs
        };
    }
    let Linking::After(content) = linking else {
        return Verdict::NotOurs;
    };
    // Killed between gix creating the lock and the link: what it holds decides.
    let Ok(now) = std::fs::read(lock) else {
        return Verdict::Unknown;
    };
    match content {
        Some(c) if !c.is_empty() && now == *c => Verdict::Ours,
        // Something else than what we meant to write: another process's lock.
        Some(c) if !c.starts_with(&now) => Verdict::NotOurs,
        // Empty or half-written (a deletion's lock, or killed while gix wrote into it), or
        // a lock whose content is not known in advance (packed-refs): git holds a ref lock
        // for milliseconds (`core.filesRefLockTimeout` is 100 ms), so one that stays
        // exactly as it is while we watch is no running command's.
        _ => {
            if unchanged_for(lock, &md, STALE_AFTER) {
                Verdict::Ours
            } else {
                Verdict::NotOurs
            }
        }
    }
}

/// How long a ref lock that may be ours must stay untouched to be taken as left behind.
const STALE_AFTER: Duration = Duration::from_secs(1);

/// Whether the file at `path` keeps the identity, size and times of `first` for `period`.
fn unchanged_for(path: &Path, first: &std::fs::Metadata, period: Duration) -> bool {
    let same = |md: &std::fs::Metadata| {
        md.dev() == first.dev()
            && md.ino() == first.ino()
            && md.len() == first.len()
            && md.mtime_nsec() == first.mtime_nsec()
            && md.mtime() == first.mtime()
            && md.ctime_nsec() == first.ctime_nsec()
    };
    let start = Instant::now();
    while start.elapsed() < period {
        std::thread::sleep(Duration::from_millis(50));
        match std::fs::symlink_metadata(path) {
            Ok(md) if same(&md) => {}
            _ => return false,
        }
    }
    true
}

/// Why a lock could not be taken.
#[derive(Debug)]
pub(crate) enum LockBusy {
    /// Another process held it for the whole wait.
    Held,
    Other(RepoError),
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repo() -> (tempfile::TempDir, Repo) {
        let dir = tempfile::tempdir().expect("tempdir");
        let repo = Repo::init(dir.path()).expect("init");
        (dir, repo)
    }

    /// Takes the index lock and "dies" holding it: nothing is cleaned up.
    fn die_holding_index_lock(repo: &Repo) -> PathBuf {
        let lock = repo.git_dir().join("index.lock");
        let (file, token) = repo
            .create_tokened_lock(&lock, Duration::ZERO)
            .expect("lock");
        std::mem::forget(file);
        std::mem::forget(token);
        lock
    }

    #[test]
    fn a_lock_left_by_a_dead_holder_is_removed_and_only_it() {
        let (_dir, repo) = repo();
        let lock = die_holding_index_lock(&repo);
        assert!(lock.exists());
        let stale = repo.clear_stale_locks();
        assert!(stale.found);
        assert_eq!(stale.removed, vec![lock.clone()]);
        assert!(!lock.exists());
        // The directory stays (the next lock needs it), empty.
        let left: Vec<_> = std::fs::read_dir(repo.git_dir().join("clada/locks"))
            .map(|rd| rd.flatten().map(|e| e.path()).collect())
            .unwrap_or_default();
        assert!(left.is_empty(), "{left:?}");
        // Nothing left to find the next time.
        assert_eq!(repo.clear_stale_locks(), StaleLocks::default());
    }

    #[test]
    fn a_lock_someone_else_holds_now_is_left() {
        let (_dir, repo) = repo();
        let lock = die_holding_index_lock(&repo);
        // Ours went away, and a git command took the lock since.
        std::fs::remove_file(&lock).expect("rm");
        std::fs::write(&lock, b"").expect("write");
        let stale = repo.clear_stale_locks();
        assert!(stale.found);
        assert!(stale.removed.is_empty());
        assert!(lock.exists(), "a lock that is not ours is never removed");
    }

    #[test]
    fn a_ref_lock_not_yet_linked_is_judged_by_its_content() {
        let (_dir, repo) = repo();
        let lock = repo.common_dir().join("refs/heads/main.lock");
        std::fs::create_dir_all(lock.parent().expect("parent")).expect("mkdir");
        // Written in full, half-written when the holder died (ours once it stays so), or
        // something else.
        for (content, ours) in [
            (&b"abc\n"[..], true),
            (&b"ab"[..], true),
            (&b"xyz\n"[..], false),
        ] {
            let token = repo.ref_lock_intent(&lock, Some(b"abc\n")).expect("intent");
            std::mem::forget(token);
            std::fs::write(&lock, content).expect("write");
            let stale = repo.clear_stale_locks();
            assert_eq!(stale.removed.is_empty(), !ours, "{content:?}");
            assert_eq!(lock.exists(), !ours, "{content:?}");
            let _ = std::fs::remove_file(&lock);
        }
    }

    #[test]
    fn a_token_names_its_lock_and_a_dead_holders_ref_locks_are_cleared_by_it() {
        let (_dir, repo) = repo();
        let locks = vec![
            repo.git_dir().join("HEAD.lock"),
            repo.common_dir().join("refs/heads/we%ird/na me.lock"),
        ];
        for lock in &locks {
            let (token, _) = repo.token_paths();
            let named = repo.named_token(&token, lock).expect("named");
            let name = named.file_name().expect("name").as_bytes().to_vec();
            assert!(!name.contains(&b'/'), "{name:?}");
            assert_eq!(repo.lock_of_token(&name).as_deref(), Some(lock.as_path()));
        }
        // Taken (no intent file is needed), then the holder dies.
        let (files, proof) = repo
            .announce_locks(&locks)
            .take(Duration::ZERO)
            .expect("locks");
        assert!(locks.iter().all(|l| l.exists()));
        std::mem::forget(files);
        std::mem::forget(proof);
        let intents = std::fs::read_dir(repo.git_dir().join("clada/locks"))
            .expect("dir")
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().ends_with(".intent"))
            .count();
        assert_eq!(intents, 0);
        let stale = repo.clear_stale_locks();
        assert!(stale.found);
        assert_eq!(stale.removed.len(), 2, "{stale:?}");
        assert!(locks.iter().all(|l| !l.exists()));
    }

    #[test]
    fn a_second_holder_waits_then_gives_up() {
        let (_dir, repo) = repo();
        let lock = repo.git_dir().join("index.lock");
        let first = repo
            .create_tokened_lock(&lock, Duration::ZERO)
            .expect("lock");
        let second = repo.create_tokened_lock(&lock, Duration::from_millis(20));
        assert!(matches!(second, Err(LockBusy::Held)));
        drop(first);
    }
}
