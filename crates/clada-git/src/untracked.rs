//! The untracked files of the worktree, for a status that lists them (step-back parks them,
//! exec's changes are found by them). A walk of the worktree's directories that compares each
//! listing with the index's entries of that directory (found by binary search, so a directory
//! costs its own entries, not the index's), asks the ignore rules (`.gitignore`,
//! `info/exclude`, `core.excludesFile`, through gix) only about names the index does not
//! have, and does not enter ignored or nested repositories' directories. It runs beside the
//! parallel stat pass of the tracked files.
//!
//! What it lists is what git's status lists with `--untracked-files=all`: every untracked, not
//! ignored file (and symlink), sorted; a nested repository (a directory holding `.git`) as
//! the directory itself; empty directories not at all.
//!
//! Reading every directory is what such a status costs beyond git's own commands (ext4 hashes
//! a directory's names for each listing), so step-back, which lists untracked files every
//! time it parks work, can keep what the listings said in `.git/clada/untracked-cache`, like
//! git's untracked cache: per directory, its stat data, a hash of the names the index tracks
//! directly in it, and the names of the listing the index does not track. A directory whose
//! stat data (mtime, ctime, inode, device, size) and tracked names are unchanged is not read
//! again: creating, removing or renaming anything in a directory changes its mtime and
//! ctime. A listing is kept only when the directory's times are more than a second older than
//! the walk, so a change made in the same clock tick as the listing cannot hide behind equal
//! times. The ignore rules are not cached: they are asked about the kept names every time.

use std::collections::{HashMap, HashSet};
use std::os::unix::ffi::OsStrExt;

use sha1::Digest;

use gix::bstr::{BStr, BString, ByteSlice};
use gix::index::entry::Mode;

use super::index::Index;
use super::{GixContext, Repo, Result};

/// Whether a status that lists untracked files may use the listings kept in the untracked
/// cache (see the module docs), and whether it records what it read there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum UntrackedCache {
    /// Every directory is read; the cache is neither read nor written.
    Off,
    /// Kept listings are used; nothing is written (a dry run).
    Read,
    /// Kept listings are used, and the cache is brought up to date.
    Update,
}

impl Repo {
    /// Every untracked, not ignored file of the worktree (see the module docs), sorted.
    pub(crate) fn untracked_files(
        &self,
        index: &Index,
        cache: UntrackedCache,
    ) -> Result<Vec<BString>> {
        let stack = self
            .repo
            .excludes(&index.file, None, Default::default())
            .ctx("cannot read the ignore rules")?;
        let kept = match cache {
            UntrackedCache::Off => None,
            _ => Some(Kept::load(self)),
        };
        let mut walk = Walk {
            repo: self,
            index,
            stack,
            out: Vec::new(),
            kept,
            git_dirs: self.git_dirs_inside(),
        };
        walk.dir(BString::default(), Some(0..index.file.entries().len()))?;
        if let (UntrackedCache::Update, Some(kept)) = (cache, &walk.kept) {
            kept.save(self);
        }
        let mut out = walk.out;
        out.sort();
        Ok(out)
    }
}

struct Walk<'a> {
    repo: &'a Repo,
    index: &'a Index,
    stack: gix::AttributeStack<'a>,
    out: Vec<BString>,
    kept: Option<Kept>,
    /// The repository's git directories that lie in the worktree under another name than
    /// `.git` (`--separate-git-dir=.gitdata`, the dotfiles `GIT_DIR`): never entered.
    git_dirs: Vec<BString>,
}

/// What kind of thing a directory entry is (from the listing's `d_type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Dir,
    File,
    Link,
}

impl Kind {
    fn of(t: std::fs::FileType) -> Option<Kind> {
        if t.is_dir() {
            Some(Kind::Dir)
        } else if t.is_file() {
            Some(Kind::File)
        } else if t.is_symlink() {
            Some(Kind::Link)
        } else {
            None
        }
    }
}

impl Repo {
    /// The repository's git directory and common directory, as worktree-relative paths, when
    /// they lie inside the worktree under a name other than `.git` (which every walk skips by
    /// name): the walks of untracked and ignored files never enter them. Compared by their
    /// real paths, since no walk follows a symbolic link.
    pub(crate) fn git_dirs_inside(&self) -> Vec<BString> {
        let Ok(root) = std::fs::canonicalize(self.workdir()) else {
            return Vec::new();
        };
        let mut out: Vec<BString> = Vec::new();
        for d in [self.git_dir(), self.common_dir()] {
            let Ok(real) = std::fs::canonicalize(d) else {
                continue;
            };
            let Ok(rel) = real.strip_prefix(&root) else {
                continue;
            };
            let rel = BString::from(rel.as_os_str().as_bytes());
            let named_git = rel.rsplit_str("/").next() == Some(b".git".as_slice());
            if !rel.is_empty() && !named_git && !out.contains(&rel) {
                out.push(rel);
            }
        }
        out
    }
}

/// The names of a directory's listing that matter to the walk: all but `.git` and the files
/// the index tracks directly in it.
type Listing = Vec<(Vec<u8>, Kind)>;

impl Walk<'_> {
    /// Lists the directory `rel` (`""`: the worktree root); `tracked` is the range of index
    /// entries below it (`None`: an untracked directory).
    fn dir(&mut self, rel: BString, tracked: Option<std::ops::Range<usize>>) -> Result<()> {
        let abs = if rel.is_empty() {
            self.repo.workdir().to_path_buf()
        } else {
            self.repo.abs_path(rel.as_bstr())
        };
        let prefix_len = if rel.is_empty() { 0 } else { rel.len() + 1 };
        let index = self.index;
        let (files, dirs, tracked_key) = match &tracked {
            Some(range) => children(index, range.clone(), prefix_len),
            None => (
                HashSet::new(),
                HashSet::new(),
                sha1::Sha1::new().finalize().into(),
            ),
        };
        let Some(listing) = self.listing(&rel, &abs, &files, tracked_key) else {
            // Gone or unreadable: nothing of it can be listed (git says the same).
            return Ok(());
        };
        for (name, kind) in listing {
            let mut path = rel.clone();
            if !path.is_empty() {
                path.push(b'/');
            }
            path.extend_from_slice(&name);
            match kind {
                Kind::Dir => {
                    if self.git_dirs.contains(&path) || self.excluded(path.as_bstr(), true)? {
                        continue;
                    }
                    if dirs.contains(name.as_slice()) {
                        let mut sub = path.clone();
                        sub.push(b'/');
                        let range = index.file.prefixed_entries_range(sub.as_bstr());
                        self.dir(path, range)?;
                    } else if abs
                        .join(std::ffi::OsStr::from_bytes(&name))
                        .join(".git")
                        .symlink_metadata()
                        .is_ok()
                    {
                        // A repository of its own: listed as the directory, not entered.
                        self.out.push(path);
                    } else {
                        self.dir(path, None)?;
                    }
                }
                Kind::File | Kind::Link => {
                    if !self.excluded(path.as_bstr(), false)? {
                        self.out.push(path);
                    }
                }
            }
        }
        Ok(())
    }

    /// The listing of directory `rel` (at `abs`) less `.git` and the tracked `files`: kept
    /// from an earlier walk when the directory has not changed since, else read. `None` when
    /// it cannot be read.
    fn listing(
        &mut self,
        rel: &BString,
        abs: &std::path::Path,
        files: &HashSet<&[u8]>,
        tracked_key: [u8; 20],
    ) -> Option<Listing> {
        let stamp = match &mut self.kept {
            Some(kept) => {
                let stamp = DirStamp::of(&std::fs::metadata(abs).ok()?);
                if let Some(listing) = kept.reuse(rel, stamp, tracked_key) {
                    return Some(listing);
                }
                Some(stamp)
            }
            None => None,
        };
        let mut listing = Vec::new();
        for entry in std::fs::read_dir(abs).ok()?.flatten() {
            let name = entry.file_name();
            let name = name.as_bytes();
            if name == b".git" || files.contains(name) {
                continue;
            }
            if let Some(kind) = entry.file_type().ok().and_then(Kind::of) {
                listing.push((name.to_vec(), kind));
            }
        }
        if let (Some(kept), Some(stamp)) = (&mut self.kept, stamp) {
            kept.record(rel, stamp, tracked_key, &listing);
        }
        Some(listing)
    }

    /// Whether the ignore rules exclude `path` (a directory when `dir`).
    fn excluded(&mut self, path: &BStr, dir: bool) -> Result<bool> {
        let p = gix::path::from_bstr(path).ctx(format!("invalid path '{path}'"))?;
        let mode = if dir { Mode::DIR } else { Mode::FILE };
        let platform = self
            .stack
            .at_path(&*p, Some(mode))
            .ctx(format!("cannot check whether '{path}' is ignored"))?;
        Ok(platform.is_excluded())
    }
}

/// The names of the files and directories `index` has directly in a directory whose entries
/// are `range` (each of their paths starts with the directory's `prefix_len` bytes), and the
/// key of the file names for the untracked cache. A subdirectory's entries are skipped by a
/// binary search, not one by one.
fn children(
    index: &Index,
    range: std::ops::Range<usize>,
    prefix_len: usize,
) -> (HashSet<&[u8]>, HashSet<&[u8]>, [u8; 20]) {
    let file = &*index.file;
    let entries = file.entries();
    let mut files = HashSet::new();
    let mut dirs = HashSet::new();
    // In index order, so the same names always give the same key.
    let mut key = sha1::Sha1::new();
    let mut i = range.start;
    while i < range.end {
        let path: &[u8] = entries[i].path(file).as_ref();
        let rest = &path[prefix_len.min(path.len())..];
        match rest.find_byte(b'/') {
            None => {
                files.insert(rest);
                key.update(rest);
                key.update([0]);
                i += 1;
            }
            Some(slash) => {
                dirs.insert(&rest[..slash]);
                let sub = &path[..prefix_len + slash + 1];
                i = match file.prefixed_entries_range(sub.as_bstr()) {
                    Some(r) if r.end > i => r.end,
                    _ => i + 1,
                };
            }
        }
    }
    (files, dirs, key.finalize().into())
}

/// A directory's identity and times: any change to its listing changes them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct DirStamp {
    mtime: (i64, i64),
    ctime: (i64, i64),
    ino: u64,
    dev: u64,
    size: u64,
}

impl DirStamp {
    fn of(md: &std::fs::Metadata) -> DirStamp {
        use std::os::unix::fs::MetadataExt;
        DirStamp {
            mtime: (md.mtime(), md.mtime_nsec()),
            ctime: (md.ctime(), md.ctime_nsec()),
            ino: md.ino(),
            dev: md.dev(),
            size: md.size(),
        }
    }

    /// Whether the directory last changed before `cutoff` (seconds): a listing read now is
    /// then complete, and any later change gives it newer times.
    fn settled(&self, cutoff: i64) -> bool {
        self.mtime.0 < cutoff && self.ctime.0 < cutoff
    }
}

/// One directory's kept listing.
#[derive(Debug, Clone)]
struct Record {
    stamp: DirStamp,
    /// The hash of the file names the index tracked directly in it (see `children`).
    tracked: [u8; 20],
    listing: Listing,
}

/// The untracked cache of one walk: the records read from the file, and the ones this walk
/// confirmed or made (what is saved).
struct Kept {
    old: HashMap<BString, Record>,
    new: Vec<(BString, Record)>,
    changed: bool,
    /// Listings of directories changed in this second or the one before are not kept.
    cutoff: i64,
}

/// The cache file's first bytes; a file of another version is ignored (and replaced).
const MAGIC: &[u8] = b"git-clada untracked cache 1\n";

impl Kept {
    fn path(repo: &Repo) -> std::path::PathBuf {
        repo.git_dir().join("clada").join("untracked-cache")
    }

    /// The records of the cache file; none when it is missing, damaged, or written for
    /// another worktree path.
    fn load(repo: &Repo) -> Kept {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() as i64);
        let old = std::fs::read(Self::path(repo))
            .ok()
            .and_then(|data| decode(&data, repo.workdir().as_os_str().as_bytes()))
            .unwrap_or_default();
        Kept {
            old,
            new: Vec::new(),
            changed: false,
            cutoff: now - 1,
        }
    }

    /// The kept listing of `rel`, when its directory and tracked names are as they were.
    fn reuse(&mut self, rel: &BString, stamp: DirStamp, tracked: [u8; 20]) -> Option<Listing> {
        let rec = self.old.remove(rel)?;
        if rec.stamp != stamp || rec.tracked != tracked || !stamp.settled(self.cutoff) {
            self.changed = true;
            return None;
        }
        let listing = rec.listing.clone();
        self.new.push((rel.clone(), rec));
        Some(listing)
    }

    /// Keeps a listing just read, when its directory is settled.
    fn record(&mut self, rel: &BString, stamp: DirStamp, tracked: [u8; 20], listing: &Listing) {
        if !stamp.settled(self.cutoff) {
            return;
        }
        self.changed = true;
        self.new.push((
            rel.clone(),
            Record {
                stamp,
                tracked,
                listing: listing.clone(),
            },
        ));
    }

    /// Writes the records of this walk, when they differ from the file's. A cache that cannot
    /// be written is only slower next time, so failures are ignored; the fixed temporary
    /// name means a killed write leaves at most one stray file, replaced by the next.
    fn save(&self, repo: &Repo) {
        if !self.changed && self.old.is_empty() {
            return;
        }
        let path = Self::path(repo);
        let tmp = path.with_extension("tmp");
        let data = encode(&self.new, repo.workdir().as_os_str().as_bytes());
        let write = || std::fs::write(&tmp, &data).and_then(|()| std::fs::rename(&tmp, &path));
        // The folder exists after the first operation that keeps state: no mkdir each time.
        let written = write().or_else(|e| match (e.kind(), path.parent()) {
            (std::io::ErrorKind::NotFound, Some(dir)) => {
                std::fs::create_dir_all(dir).and_then(|()| write())
            }
            _ => Err(e),
        });
        if written.is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
    }
}

fn put(out: &mut Vec<u8>, bytes: &[u8]) {
    out.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
    out.extend_from_slice(bytes);
}

/// The cache file: magic, worktree path, records, and a SHA-1 of all that.
fn encode(records: &[(BString, Record)], workdir: &[u8]) -> Vec<u8> {
    let mut out = MAGIC.to_vec();
    put(&mut out, workdir);
    out.extend_from_slice(&(records.len() as u32).to_le_bytes());
    for (rel, rec) in records {
        put(&mut out, rel);
        let s = rec.stamp;
        for n in [s.mtime.0, s.mtime.1, s.ctime.0, s.ctime.1] {
            out.extend_from_slice(&n.to_le_bytes());
        }
        for n in [s.ino, s.dev, s.size] {
            out.extend_from_slice(&n.to_le_bytes());
        }
        out.extend_from_slice(&rec.tracked);
        out.extend_from_slice(&(rec.listing.len() as u32).to_le_bytes());
        for (name, kind) in &rec.listing {
            out.push(match kind {
                Kind::Dir => b'd',
                Kind::File => b'f',
                Kind::Link => b'l',
            });
            put(&mut out, name);
        }
    }
    let sum: [u8; 20] = sha1::Sha1::digest(&out).into();
    out.extend_from_slice(&sum);
    out
}

/// Reads what [`encode`] wrote; `None` for anything else.
fn decode(data: &[u8], workdir: &[u8]) -> Option<HashMap<BString, Record>> {
    let (body, sum) = data.split_at(data.len().checked_sub(20)?);
    if sha1::Sha1::digest(body).as_slice() != sum {
        return None;
    }
    let mut r = Reader(body.strip_prefix(MAGIC)?);
    if r.bytes()? != workdir {
        return None;
    }
    let n = r.u32()?;
    let mut out = HashMap::with_capacity(n as usize);
    for _ in 0..n {
        let rel = BString::from(r.bytes()?);
        let stamp = DirStamp {
            mtime: (r.i64()?, r.i64()?),
            ctime: (r.i64()?, r.i64()?),
            ino: r.i64()? as u64,
            dev: r.i64()? as u64,
            size: r.i64()? as u64,
        };
        let tracked: [u8; 20] = r.take(20)?.try_into().ok()?;
        let count = r.u32()?;
        let mut listing = Vec::with_capacity(count.min(1 << 16) as usize);
        for _ in 0..count {
            let kind = match r.take(1)?[0] {
                b'd' => Kind::Dir,
                b'f' => Kind::File,
                b'l' => Kind::Link,
                _ => return None,
            };
            listing.push((r.bytes()?.to_vec(), kind));
        }
        out.insert(
            rel,
            Record {
                stamp,
                tracked,
                listing,
            },
        );
    }
    r.0.is_empty().then_some(out)
}

/// A cursor over the cache file's bytes.
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if self.0.len() < n {
            return None;
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Some(head)
    }

    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }

    fn i64(&mut self) -> Option<i64> {
        Some(i64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }

    fn bytes(&mut self) -> Option<&'a [u8]> {
        let n = self.u32()? as usize;
        self.take(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(names: &[(&str, Kind)]) -> Record {
        Record {
            stamp: DirStamp {
                mtime: (1, 2),
                ctime: (3, 4),
                ino: 5,
                dev: 6,
                size: 7,
            },
            tracked: [9; 20],
            listing: names
                .iter()
                .map(|(n, k)| (n.as_bytes().to_vec(), *k))
                .collect(),
        }
    }

    #[test]
    fn the_cache_file_reads_back_what_was_written_and_nothing_else() {
        let records = vec![
            (
                BString::from(""),
                record(&[("src", Kind::Dir), ("l", Kind::Link)]),
            ),
            (BString::from("src"), record(&[("new.txt", Kind::File)])),
        ];
        let data = encode(&records, b"/work/tree");
        let back = decode(&data, b"/work/tree").expect("decodes");
        assert_eq!(back.len(), 2);
        assert_eq!(back[&BString::from("src")].listing, records[1].1.listing);
        assert_eq!(back[&BString::from("")].stamp, records[0].1.stamp);
        assert_eq!(back[&BString::from("")].tracked, [9; 20]);
        // Another worktree's, truncated, or altered: not used.
        assert!(decode(&data, b"/other/tree").is_none());
        assert!(decode(&data[..data.len() - 1], b"/work/tree").is_none());
        let mut altered = data.clone();
        altered[MAGIC.len() + 6] ^= 1;
        assert!(decode(&altered, b"/work/tree").is_none());
        assert!(decode(b"", b"/work/tree").is_none());
    }

    #[test]
    fn only_directories_that_settled_before_the_cutoff_count() {
        let stamp = record(&[]).stamp;
        assert!(stamp.settled(4));
        assert!(!stamp.settled(3), "ctime 3 is not before a cutoff of 3");
    }
}
