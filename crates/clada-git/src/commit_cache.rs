//! The commit cache: the raw bytes of the commits git-clada put on a branch (AI commits,
//! snapshots, squashes and the commits a squash copies), kept together in one file,
//! `clada/commits` in the common git dir, so that a walk over hundreds of them (squash, log)
//! reads one file instead of opening and inflating one loose object per commit — the part of
//! a squash of 1,000 AI commits that plain git's `reset --soft` + `commit` never pays.
//!
//! It can never answer wrongly: a commit is found by its id, an id names exactly one
//! content, and the bytes found are hashed and compared with the id before they are used
//! (`sha1` with the CPU's SHA instructions, ~0.3 µs for an AI commit). Anything that does
//! not check out — a torn last record after a crash, a damaged file, a commit that is not
//! there — is read from the object database as before, so the file is an accelerator and
//! never a source of truth: deleting it at any time is safe. It is not read for a repository
//! whose objects are not named by SHA-1.
//!
//! Layout: a 16-byte header, then one record per commit, appended in one `write` each:
//! the body's length (u32, little-endian), the 20-byte id, and the body (the object without
//! its `commit <size>\0` header). Appends happen under the repository lock. When an append
//! takes the file past [`LIMIT`], it is rewritten (temporary file, rename) with the newest
//! records that verify, up to half of that, so the file stays bounded and a load costs at
//! most a read of about [`LIMIT`] bytes; a file larger than appends ever make it (grown by
//! something else) is not read at all.

use std::io::Write as _;
use std::os::unix::fs::OpenOptionsExt as _;
use std::path::PathBuf;

use gix::ObjectId;
use sha1::Digest as _;

use super::Repo;

/// The first bytes of the file; another header means another format: not read.
const HEADER: &[u8; 16] = b"clada-commits-1\n";
/// Past this size an append rewrites the file with its newest half.
const LIMIT: u64 = 1 << 20;
/// The largest file read: [`LIMIT`] plus one record of the largest size, with room to spare.
const MAX_FILE: u64 = 2 * LIMIT;
/// Larger commits (a squash of hundreds lists them all in its message) are not kept: walks
/// meet few of them, and they would push many small ones out.
const MAX_BODY: usize = 16 << 10;
/// Bytes of a record before its body: length and id.
const RECORD_HEAD: usize = 4 + 20;

/// The commits of the cache file, loaded once per command (see the module docs).
#[derive(Debug, Default)]
pub(crate) struct CommitCache {
    data: Vec<u8>,
    /// (id, offset of the body, length of the body), sorted by id.
    at: Vec<([u8; 20], usize, usize)>,
}

impl CommitCache {
    /// Reads the file; a missing, unreadable or foreign file is an empty cache.
    fn load(path: &std::path::Path) -> CommitCache {
        let Some(data) = read_bounded(path) else {
            return CommitCache::default();
        };
        let mut at: Vec<_> = records(&data).collect();
        at.sort_unstable_by_key(|r| r.0);
        CommitCache { data, at }
    }

    /// The body of commit `id`, if the cache holds it and it hashes to `id`.
    pub(crate) fn body(&self, id: &ObjectId) -> Option<&[u8]> {
        let key: &[u8; 20] = id.as_bytes().try_into().ok()?;
        let found = self.at.binary_search_by(|r| r.0.cmp(key)).ok()?;
        let (_, offset, len) = self.at[found];
        let body = &self.data[offset..offset + len];
        (commit_id(body) == *key).then_some(body)
    }
}

/// The file's bytes, unless it cannot be read or is larger than git-clada ever leaves it
/// (a file grown by something else is not read into memory whole).
fn read_bounded(path: &std::path::Path) -> Option<Vec<u8>> {
    use std::io::Read as _;
    let file = std::fs::File::open(path).ok()?;
    let mut data = Vec::new();
    file.take(MAX_FILE + 1).read_to_end(&mut data).ok()?;
    (data.len() as u64 <= MAX_FILE).then_some(data)
}

/// The records of `data` (after the header) in file order, up to the first that does not fit.
fn records(data: &[u8]) -> impl Iterator<Item = ([u8; 20], usize, usize)> + '_ {
    let mut pos = if data.starts_with(HEADER) {
        HEADER.len()
    } else {
        data.len()
    };
    std::iter::from_fn(move || {
        let head = data.get(pos..pos + RECORD_HEAD)?;
        let len = u32::from_le_bytes(head[..4].try_into().ok()?) as usize;
        let id: [u8; 20] = head[4..].try_into().ok()?;
        let offset = pos + RECORD_HEAD;
        let end = offset.checked_add(len).filter(|&e| e <= data.len())?;
        pos = end;
        Some((id, offset, len))
    })
}

/// The SHA-1 id of a commit whose body is `body`.
fn commit_id(body: &[u8]) -> [u8; 20] {
    let mut hasher = sha1::Sha1::new();
    hasher.update(format!("commit {}\0", body.len()).as_bytes());
    hasher.update(body);
    hasher.finalize().into()
}

impl Repo {
    fn commit_cache_path(&self) -> PathBuf {
        self.common_dir().join("clada").join("commits")
    }

    /// The commit cache, read on first use.
    pub(crate) fn commit_cache(&self) -> &CommitCache {
        self.commit_cache.get_or_init(|| {
            if self.repo.object_hash() != gix::hash::Kind::Sha1 {
                return CommitCache::default();
            }
            CommitCache::load(&self.commit_cache_path())
        })
    }

    /// Adds commit `id` (whose body is `body`) to the cache file. The cache only speeds reads
    /// up, so a failure to write it is not an error: the commit is then read from the object
    /// database like any other.
    pub(crate) fn keep_commit(&self, id: ObjectId, body: &[u8]) {
        if self.object_memory
            || body.len() > MAX_BODY
            || self.repo.object_hash() != gix::hash::Kind::Sha1
        {
            return;
        }
        let Ok(len) = u32::try_from(body.len()) else {
            return;
        };
        let mut record = Vec::with_capacity(HEADER.len() + RECORD_HEAD + body.len());
        record.extend_from_slice(&len.to_le_bytes());
        record.extend_from_slice(id.as_bytes());
        record.extend_from_slice(body);
        let path = self.commit_cache_path();
        let _ = append(&path, &mut record);
    }
}

/// Appends `record` to the file at `path` (creating it with its header if it is missing) in
/// one write, and rewrites the file with its newest records when it grew past [`LIMIT`].
fn append(path: &std::path::Path, record: &mut Vec<u8>) -> std::io::Result<()> {
    let opened = std::fs::OpenOptions::new().append(true).open(path);
    let mut file = match opened {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir)?;
            }
            record.splice(0..0, HEADER.iter().copied());
            let mut file = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o644)
                .open(path)?;
            return file.write_all(record);
        }
        Err(e) => return Err(e),
    };
    file.write_all(record)?;
    let end = std::io::Seek::stream_position(&mut file)?;
    if end > LIMIT {
        drop(file);
        compact(path, record)?;
    }
    Ok(())
}

/// Rewrites the file with its newest records that verify, once each, at most half of
/// [`LIMIT`].
fn compact(path: &std::path::Path, last: &[u8]) -> std::io::Result<()> {
    // A file grown past what appends make (by something else): started again with the record
    // just appended.
    let data = read_bounded(path).unwrap_or_else(|| [HEADER.as_slice(), last].concat());
    let all: Vec<_> = records(&data).collect();
    let mut kept = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut size = 0usize;
    for &(id, offset, len) in all.iter().rev() {
        if size + RECORD_HEAD + len > (LIMIT / 2) as usize {
            break;
        }
        if commit_id(&data[offset..offset + len]) == id && seen.insert(id) {
            size += RECORD_HEAD + len;
            kept.push(offset - RECORD_HEAD..offset + len);
        }
    }
    let mut out = Vec::with_capacity(HEADER.len() + size);
    out.extend_from_slice(HEADER);
    for range in kept.into_iter().rev() {
        out.extend_from_slice(&data[range]);
    }
    // One fixed temporary name: a crash between the write and the rename leaves at most this
    // one file behind, reused by the next compaction. Two compactions at once (two worktrees)
    // may mix their bytes in it; every record is checked against its id when read, so that
    // costs only cache misses.
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, &out)?;
    std::fs::rename(&tmp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(n: usize) -> Vec<u8> {
        format!(
            "tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\nauthor A <a@x> {n} +0000\ncommitter A <a@x> {n} +0000\n\nAI: edit {n}\n"
        )
        .into_bytes()
    }

    fn id_of(body: &[u8]) -> ObjectId {
        ObjectId::from_bytes_or_panic(&commit_id(body))
    }

    fn record(body: &[u8]) -> Vec<u8> {
        let mut r = (body.len() as u32).to_le_bytes().to_vec();
        r.extend_from_slice(&commit_id(body));
        r.extend_from_slice(body);
        r
    }

    #[test]
    fn branch_commits_are_read_back_from_the_cache_and_others_from_the_objects() {
        let dir = tempfile::tempdir().unwrap();
        let repo = Repo::init(dir.path()).unwrap();
        let who = super::super::commit::Signature {
            name: "A".into(),
            email: "a@x".into(),
            seconds: 1_700_000_000,
            offset: 0,
        };
        let tree = repo.empty_tree();
        let kept = repo
            .write_branch_commit(tree, &[], "AI: one\n\nClada-Version: 1\n", &who, &who)
            .unwrap();
        let plain = repo
            .write_commit(tree, &[kept], "notes\n", &who, &who)
            .unwrap();
        // Written again (same bytes): not a second record.
        repo.write_branch_commit(tree, &[], "AI: one\n\nClada-Version: 1\n", &who, &who)
            .unwrap();
        let file = std::fs::read(repo.commit_cache_path()).unwrap();
        assert_eq!(records(&file).count(), 1);

        let fresh = Repo::open(dir.path()).unwrap();
        let from_objects = fresh.commit_info(kept).unwrap();
        assert_eq!(fresh.walk_commit_info(kept).unwrap(), from_objects);
        assert_eq!(
            fresh.walk_commit_info(plain).unwrap(),
            fresh.commit_info(plain).unwrap()
        );

        // With its loose object gone, the kept commit is still read (from the cache); the
        // other one is not, and the walk says so.
        for id in [kept, plain] {
            let hex = id.to_hex().to_string();
            let objects = repo.common_dir().join("objects");
            std::fs::remove_file(objects.join(&hex[..2]).join(&hex[2..])).unwrap();
        }
        let fresh = Repo::open(dir.path()).unwrap();
        assert_eq!(fresh.walk_commit_info(kept).unwrap(), from_objects);
        assert!(fresh.walk_commit_info(plain).is_err());
    }

    #[test]
    fn commits_appended_are_found_by_id_and_others_are_not() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("clada").join("commits");
        for n in 0..50 {
            append(&path, &mut record(&body(n))).unwrap();
        }
        let cache = CommitCache::load(&path);
        for n in 0..50 {
            assert_eq!(cache.body(&id_of(&body(n))), Some(&body(n)[..]));
        }
        assert_eq!(cache.body(&id_of(&body(50))), None);
        assert!(std::fs::read(&path).unwrap().starts_with(HEADER));
    }

    #[test]
    fn damaged_torn_or_foreign_files_answer_nothing_wrong() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("commits");
        for n in 0..3 {
            append(&path, &mut record(&body(n))).unwrap();
        }
        let whole = std::fs::read(&path).unwrap();

        // A flipped byte in the second body: that commit is not served, the others are.
        let mut damaged = whole.clone();
        let second = HEADER.len() + record(&body(0)).len() + RECORD_HEAD + 7;
        damaged[second] ^= 0x20;
        std::fs::write(&path, &damaged).unwrap();
        let cache = CommitCache::load(&path);
        assert_eq!(cache.body(&id_of(&body(0))), Some(&body(0)[..]));
        assert_eq!(cache.body(&id_of(&body(1))), None);
        assert_eq!(cache.body(&id_of(&body(2))), Some(&body(2)[..]));

        // A record cut short by a crash: the ones before it are still served.
        std::fs::write(&path, &whole[..whole.len() - 5]).unwrap();
        let cache = CommitCache::load(&path);
        assert_eq!(cache.body(&id_of(&body(1))), Some(&body(1)[..]));
        assert_eq!(cache.body(&id_of(&body(2))), None);

        // Grown past anything git-clada leaves: not read, and the next append starts the
        // file again.
        let mut huge = whole.clone();
        huge.resize(MAX_FILE as usize + 1, 0);
        std::fs::write(&path, &huge).unwrap();
        assert_eq!(CommitCache::load(&path).body(&id_of(&body(0))), None);
        append(&path, &mut record(&body(7))).unwrap();
        assert!(std::fs::metadata(&path).unwrap().len() < 1000);
        assert_eq!(
            CommitCache::load(&path).body(&id_of(&body(7))),
            Some(&body(7)[..])
        );

        // Another format: nothing is read from it.
        let mut foreign = whole.clone();
        foreign[0] = b'X';
        std::fs::write(&path, &foreign).unwrap();
        assert_eq!(CommitCache::load(&path).body(&id_of(&body(0))), None);
    }

    #[test]
    fn the_file_stays_bounded_and_keeps_the_newest_commits() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("commits");
        let count = 12_000;
        for n in 0..count {
            append(&path, &mut record(&body(n))).unwrap();
        }
        let size = std::fs::metadata(&path).unwrap().len();
        assert!(size <= LIMIT, "{size} bytes");
        let cache = CommitCache::load(&path);
        assert_eq!(
            cache.body(&id_of(&body(count - 1))),
            Some(&body(count - 1)[..])
        );
        assert_eq!(cache.body(&id_of(&body(0))), None);
        // What is kept is a run of the newest: no gap.
        let oldest = (0..count)
            .find(|&n| cache.body(&id_of(&body(n))).is_some())
            .unwrap();
        assert!((oldest..count).all(|n| cache.body(&id_of(&body(n))).is_some()));
        assert!(count - oldest > 4_000, "only {} kept", count - oldest);
    }
}
