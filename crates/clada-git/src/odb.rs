//! Writing objects: every blob, tree, commit and note git-clada makes goes through
//! [`Repo::put_object`], which writes loose objects the way git does (`objects/xx/…`,
//! zlib at `core.looseCompression`, written under a temporary name and renamed into place,
//! never written twice) with one compressor per thread kept for the whole command. gix's
//! writer sets up a new compressor for every object (≈ 300 KiB allocated and cleared each
//! time): most of the cost of writing the dozen small objects of an apply. A repository
//! opened with object memory (dry runs) keeps its writes in memory, as before.
//!
//! Reading: commits, trees and blobs are read through [`Repo::read_loose`] first (a squash
//! reads each member's commit, root tree and note, loose as the applies left them), with a
//! reused decompressor and a plain `read` of the file: gix stats, maps and unmaps every loose
//! object it reads and sets up a new decompressor for each, about half the cost of reading a
//! small object. Anything not loose (packed, or only in memory) is read by gix as before.
//!
//! One command's memory ([`Known`]): the ids of the objects it found or wrote, and the bytes of
//! the trees among them. An apply reads back the trees it has just written (the index's cache
//! tree, the lookups of the files it changed) and checks the same ids again; through gix each
//! such read of a loose tree is six system calls (a map and unmap among them).

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::io::Write as _;
use std::path::{Path, PathBuf};

use gix::objs::Kind;
use gix::zlib::stream::deflate::{Compress, FlushCompress};
use gix::zlib::Status;
use gix::ObjectId;

use super::{GixContext, Repo, RepoError, Result};

/// The inflating buffer: objects up to this size (commits, trees, most blobs) are inflated
/// in one call.
const SCRATCH_SIZE: usize = 64 << 10;

thread_local! {
    /// The compressor of this thread and the level it was made for.
    static COMPRESSOR: RefCell<Option<(i32, Compress)>> = const { RefCell::new(None) };
    /// The decompressor of this thread.
    static DECOMPRESSOR: RefCell<Option<gix::zlib::Decompress>> = const { RefCell::new(None) };
    /// The bytes of the last loose object this thread read.
    static RAW: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
    /// Where this thread inflates loose objects first (see `inflate_loose`).
    static SCRATCH: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// A tree's entries by name (see `Repo::find_name` in `tree.rs`).
pub(crate) type NameIndex = HashMap<Vec<u8>, (gix::objs::tree::EntryMode, ObjectId)>;

/// After this many loose reads in a row found no file, the next [`LOOSE_SKIP`] reads go to gix
/// (packs first) without trying the loose file; then loose is tried again, since a squash reads
/// packed notes beside loose commits. In a packed repository that wastes 16 `openat` in 272.
const LOOSE_MISSES: u32 = 16;
const LOOSE_SKIP: u32 = 256;

/// The most tree bytes one command keeps in [`Known`].
const KNOWN_TREE_BYTES: usize = 8 << 20;

/// What one command learnt about objects, so that it does not ask the disk again: the ids it
/// found or wrote, and the bytes of the trees among them. The same command reads those trees
/// back (the index's cache tree, a second edit of the same folders) and checks the same ids
/// again (an entry's object before it goes into a tree). Nothing is forgotten while a
/// command runs: objects are not removed from under it (git prunes only unreachable loose
/// objects, and only old ones).
#[derive(Default)]
pub(crate) struct Known {
    present: HashSet<ObjectId>,
    trees: HashMap<ObjectId, Vec<u8>>,
    tree_bytes: usize,
    /// Trees looked up by name more than once, as name → entry: a walk over many commits
    /// asks the same records or notes tree for one name each (500 names in a tree of 256
    /// folders), which a scan answers in time growing with the tree.
    pub(super) names: HashMap<ObjectId, std::rc::Rc<NameIndex>>,
    /// How often each tree was looked up by name (it gets a name index at the second).
    pub(super) lookups: HashMap<ObjectId, u32>,
    /// Loose reads that found no file, in a row, and how many reads are left to go straight
    /// to gix: in a packed repository (a blame over old history) every loose try is a
    /// wasted `openat`, one per object.
    loose_misses: u32,
    loose_skip: u32,
    /// The last few tree edits (base, changes, result): an apply edits the same tree with
    /// the same changes for the commit, the worktree and the index it leaves.
    pub(super) edits: Vec<(ObjectId, Vec<super::TreeChange>, ObjectId)>,
}

impl Known {
    fn remember(&mut self, id: ObjectId, kind: Kind, data: &[u8]) {
        self.present.insert(id);
        if kind == Kind::Tree {
            self.keep_tree(id, data);
        }
    }

    /// Counts against the same budget as the trees' bytes (an index holds each name once
    /// more, plus its entry).
    pub(super) fn may_index(&mut self, bytes: usize) -> bool {
        if self.tree_bytes + 2 * bytes > KNOWN_TREE_BYTES {
            return false;
        }
        self.tree_bytes += 2 * bytes;
        true
    }

    fn keep_tree(&mut self, id: ObjectId, data: &[u8]) {
        if self.tree_bytes + data.len() <= KNOWN_TREE_BYTES && !self.trees.contains_key(&id) {
            self.tree_bytes += data.len();
            self.trees.insert(id, data.to_vec());
        }
    }
}

impl Repo {
    /// Stores an object (its id if it is already there) and returns its id.
    pub(crate) fn put_object(&self, kind: Kind, data: &[u8]) -> Result<ObjectId> {
        Ok(self.put_new_object(kind, data)?.0)
    }

    /// Stores an object and returns its id, and whether it was written now to the object
    /// database on disk (not there before, not kept in memory).
    pub(crate) fn put_new_object(&self, kind: Kind, data: &[u8]) -> Result<(ObjectId, bool)> {
        let id = gix::objs::compute_hash(self.repo.object_hash(), kind, data)
            .ctx("cannot hash an object")?;
        if self.known.borrow().present.contains(&id) {
            return Ok((id, false));
        }
        if self.repo.objects.exists_without_refresh(&id) {
            self.known.borrow_mut().remember(id, kind, data);
            return Ok((id, false));
        }
        if self.object_memory {
            use gix::objs::Write;
            let id = self
                .repo
                .write_buf(kind, data)
                .ctx("cannot write an object")?;
            self.known.borrow_mut().remember(id, kind, data);
            return Ok((id, false));
        }
        let compressed = compress(kind, data, self.loose_compression())
            .map_err(|e| RepoError::Invalid(format!("cannot compress object {id}: {e}")))?;
        let objects = self.repo.objects.store_ref().path();
        write_loose(objects, id, &compressed).map_err(|e| {
            RepoError::Invalid(format!(
                "cannot write object {id} into '{}': {e} (check that the folder and its \
                 subfolders are writable directories and the disk has room; `git fsck` checks \
                 the object store)",
                objects.display()
            ))
        })?;
        self.known.borrow_mut().remember(id, kind, data);
        if let Some(cache) = &self.object_cache {
            cache.keep(id, kind, data);
        }
        Ok((id, true))
    }

    /// Whether object `id` is there (answered from memory for what this command has seen).
    pub(crate) fn has_object(&self, id: ObjectId) -> bool {
        if self.known.borrow().present.contains(&id) {
            return true;
        }
        let there = self.repo.has_object(id);
        if there {
            self.known.borrow_mut().present.insert(id);
        }
        there
    }

    /// The bytes of tree `id`: from what this command wrote or read before, else through gix
    /// (which looks in the packs first, in memory, and then for the loose file).
    pub(crate) fn tree_data(&self, id: ObjectId) -> Result<Vec<u8>> {
        if let Some(data) = self.known.borrow().trees.get(&id) {
            return Ok(data.clone());
        }
        let data = match self.read_loose(id) {
            Some((Kind::Tree, data)) => data,
            _ => {
                self.repo
                    .find_tree(id)
                    .with_ctx(|| format!("cannot read tree {id}"))?
                    .detach()
                    .data
            }
        };
        let mut known = self.known.borrow_mut();
        known.present.insert(id);
        known.keep_tree(id, &data);
        Ok(data)
    }

    /// The kind and bytes of object `id` if it is stored loose; `None` when it is not (it may
    /// still be packed) or its file cannot be read as a loose object (gix then reports why).
    pub(crate) fn read_loose(&self, id: ObjectId) -> Option<(Kind, Vec<u8>)> {
        {
            let mut known = self.known.borrow_mut();
            if known.loose_skip > 0 {
                known.loose_skip -= 1;
                return None;
            }
        }
        let found = self.open_loose(id);
        let mut known = self.known.borrow_mut();
        if found.is_some() {
            known.loose_misses = 0;
        } else {
            known.loose_misses += 1;
            if known.loose_misses >= LOOSE_MISSES {
                known.loose_misses = 0;
                known.loose_skip = LOOSE_SKIP;
            }
        }
        drop(known);
        found.and_then(|file| self.inflate_file(file))
    }

    /// The loose file of `id`, opened for reading (`None`: there is none).
    fn open_loose(&self, id: ObjectId) -> Option<std::fs::File> {
        use std::os::fd::{AsRawFd, FromRawFd};
        let dir = self
            .objects_fd
            .get_or_init(|| {
                std::fs::File::open(self.repo.objects.store_ref().path())
                    .ok()
                    .map(std::os::fd::OwnedFd::from)
            })
            .as_ref()?;
        // `xx/<38 hex>` relative to the open objects folder: the kernel resolves two names
        // instead of the whole path, for every commit of a walk.
        let mut name = [0u8; 64];
        let hex = id.to_hex().to_string();
        let hex = hex.as_bytes();
        if hex.len() + 2 > name.len() {
            return None;
        }
        name[..2].copy_from_slice(&hex[..2]);
        name[2] = b'/';
        name[3..hex.len() + 1].copy_from_slice(&hex[2..]);
        // SAFETY: `name` is NUL-terminated (zeroed past the path); the descriptor is ours.
        let fd = unsafe {
            libc::openat(
                dir.as_raw_fd(),
                name.as_ptr().cast(),
                libc::O_RDONLY | libc::O_CLOEXEC,
            )
        };
        if fd < 0 {
            return None;
        }
        // SAFETY: `fd` was just opened and is owned by nothing else.
        Some(unsafe { std::fs::File::from_raw_fd(fd) })
    }

    /// The kind and bytes of the loose object in `file`.
    fn inflate_file(&self, mut file: std::fs::File) -> Option<(Kind, Vec<u8>)> {
        use std::io::Read;
        RAW.with(|cell| {
            let mut raw = cell.borrow_mut();
            // The buffer keeps its length (zeroed once, as it grows) and `used` says how much
            // this object filled: zeroing its whole room before every read cost more than the
            // read of a small object.
            let mut used = 0;
            // No `stat` for the size: a read that comes back short is the end of a regular
            // file. Should one ever stop short elsewhere, the stream is cut and fails to
            // inflate, and gix reads the object instead.
            loop {
                let room = raw.len();
                if room - used < 4096 {
                    raw.resize(room + room.max(8192), 0);
                }
                let spare = raw.len() - used;
                let n = match file.read(&mut raw[used..]) {
                    Ok(n) => n,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => 0,
                    Err(_) => return None,
                };
                used += n;
                if n < spare {
                    break;
                }
            }
            inflate_loose(&raw[..used]).ok()
        })
    }

    /// Stores a decoded object (a tree, a commit) in its git encoding.
    pub(crate) fn put_encoded(&self, object: &dyn gix::objs::WriteTo) -> Result<ObjectId> {
        self.put_object(object.kind(), &encode(object)?)
    }

    /// The zlib level of loose objects, as git reads it: `core.looseCompression`, else
    /// `core.compression`, else 1 (fastest).
    fn loose_compression(&self) -> i32 {
        let config = self.repo.config_snapshot();
        let level = |key: &str| config.integer(key).filter(|l| (-1..=9).contains(l));
        match level("core.looseCompression").or_else(|| level("core.compression")) {
            Some(-1) => 6,
            Some(l) => l as i32,
            None => 1,
        }
    }
}

/// The loose form of `object` (without its `<kind> <size>\0` header).
pub(crate) fn encode(object: &dyn gix::objs::WriteTo) -> Result<Vec<u8>> {
    let mut data = Vec::with_capacity(object.size() as usize);
    object
        .write_to(&mut data)
        .map_err(|e| RepoError::Invalid(format!("cannot encode an object: {e}")))?;
    Ok(data)
}

/// `gix::objs::Write` for code that writes through gix (notes): every write goes through
/// [`Repo::put_object`].
pub(crate) struct ObjectWriter<'r>(pub(crate) &'r Repo);

impl gix::objs::Find for ObjectWriter<'_> {
    fn try_find<'a>(
        &self,
        id: &gix::hash::oid,
        buffer: &'a mut Vec<u8>,
    ) -> gix::error::Result<Option<gix::objs::Data<'a>>> {
        let id = id.to_owned();
        let kind = match self.0.known.borrow().trees.get(&id) {
            Some(data) => {
                buffer.clear();
                buffer.extend_from_slice(data);
                Some(Kind::Tree)
            }
            None => None,
        };
        match kind {
            Some(kind) => Ok(Some(gix::objs::Data {
                kind,
                object_hash: id.kind(),
                data: buffer,
            })),
            None => self.0.repo.objects.try_find(&id, buffer),
        }
    }
}

impl gix::objs::Write for ObjectWriter<'_> {
    fn write_buf(&self, kind: Kind, from: &[u8]) -> gix::error::Result<ObjectId> {
        use gix::error::ResultExt;
        self.0
            .put_object(kind, from)
            .map_err(|e| std::io::Error::other(e.to_string()))
            .or_error()
    }

    fn write_buf_with_known_id(
        &self,
        kind: Kind,
        from: &[u8],
        _id: ObjectId,
    ) -> gix::error::Result<ObjectId> {
        self.write_buf(kind, from)
    }

    fn write_stream(
        &self,
        kind: Kind,
        size: u64,
        from: &mut dyn std::io::Read,
    ) -> gix::error::Result<ObjectId> {
        use gix::error::ResultExt;
        let mut data = Vec::with_capacity(size as usize);
        from.read_to_end(&mut data).or_error()?;
        self.write_buf(kind, &data)
    }

    fn write_stream_with_known_id(
        &self,
        kind: Kind,
        size: u64,
        from: &mut dyn std::io::Read,
        _id: ObjectId,
    ) -> gix::error::Result<ObjectId> {
        self.write_stream(kind, size, from)
    }
}

/// Objects whose loose form (header and data) is at most this many bytes are written at the
/// fastest levels (0 and 1, git's default) as one stored deflate block. Such a file takes one
/// 4 KiB block on disk whether compressed or not, and a compressor's reset clears ~200 KiB of
/// tables: 10% of the instructions of a 10-block apply went to 12 resets. git reads, packs
/// and checks stored objects as any (`core.compression=0` writes them).
const STORED_MAX: usize = 4000;

/// The loose form of an object: zlib of `"<kind> <size>\0" + data`.
fn compress(kind: Kind, data: &[u8], level: i32) -> std::io::Result<Vec<u8>> {
    let header = gix::objs::encode::loose_header(kind, data.len() as u64);
    if level <= 1 {
        if let Some(z) = stored_zlib(&header, data) {
            return Ok(z);
        }
    }
    COMPRESSOR.with(|cell| {
        let mut slot = cell.borrow_mut();
        let compressor = match &mut *slot {
            Some((l, c)) if *l == level => {
                c.reset();
                c
            }
            other => {
                let made = gix::zlib::Compression::new(level).unwrap_or_default();
                &mut other.insert((level, Compress::new(made))).1
            }
        };
        let mut out = Vec::with_capacity(64 + data.len() + data.len() / 64);
        deflate(compressor, &header, FlushCompress::None, &mut out)?;
        deflate(compressor, data, FlushCompress::Finish, &mut out)?;
        Ok(out)
    })
}

/// A zlib stream (RFC 1950) of `head` + `tail` in one stored deflate block (RFC 1951 §3.2.4),
/// when they are at most [`STORED_MAX`] bytes together (`None`: compress them instead).
fn stored_zlib(head: &[u8], tail: &[u8]) -> Option<Vec<u8>> {
    let total = head.len() + tail.len();
    if total > STORED_MAX {
        return None;
    }
    let len = u16::try_from(total).ok()?;
    let mut out = Vec::with_capacity(usize::from(len) + 11);
    // CMF 0x78 (deflate, 32 KiB window), FLG 0x01 (fastest; 0x7801 is a multiple of 31).
    out.extend_from_slice(&[0x78, 0x01]);
    // BFINAL = 1, BTYPE = 00 (stored), the rest of the byte padding.
    out.push(0x01);
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(&(!len).to_le_bytes());
    out.extend_from_slice(head);
    out.extend_from_slice(tail);
    out.extend_from_slice(&adler32(adler32(1, head), tail).to_be_bytes());
    Some(out)
}

/// The Adler-32 checksum (RFC 1950 §8.2) of `data`, continued from `adler`.
fn adler32(adler: u32, data: &[u8]) -> u32 {
    const MOD: u32 = 65_521;
    let (mut a, mut b) = (adler & 0xffff, adler >> 16);
    // 5,552 bytes is the most that cannot overflow `b` before the reduction (zlib's NMAX).
    for chunk in data.chunks(5552) {
        for &byte in chunk {
            a += u32::from(byte);
            b += a;
        }
        a %= MOD;
        b %= MOD;
    }
    (b << 16) | a
}

/// What a loose object written at `level` inflates to, or why it does not: the fuzz target's
/// round trip (`crates/clada-git/fuzz/fuzz_targets/loose_object.rs`).
#[doc(hidden)]
pub fn fuzz_loose_round_trip(data: &[u8], level: i32) -> std::result::Result<(), String> {
    let z = compress(Kind::Blob, data, level).map_err(|e| e.to_string())?;
    let (kind, back) = inflate_loose(&z).map_err(|e| e.to_string())?;
    if kind != Kind::Blob || back != data {
        return Err(format!(
            "{} bytes at level {level} did not read back",
            data.len()
        ));
    }
    Ok(())
}

/// Feeds `input` to the compressor, appending what comes out to `out` (grown as needed).
fn deflate(
    c: &mut Compress,
    mut input: &[u8],
    flush: FlushCompress,
    out: &mut Vec<u8>,
) -> std::io::Result<()> {
    loop {
        if out.capacity() - out.len() < 64 {
            out.reserve(out.capacity().max(256));
        }
        let (before_in, before_out) = (c.total_in(), c.total_out());
        let len = out.len();
        out.resize(out.capacity(), 0);
        let status = c
            .compress(input, &mut out[len..], flush)
            .map_err(|e| std::io::Error::other(e.to_string()));
        let produced = (c.total_out() - before_out) as usize;
        out.truncate(len + produced);
        let status = status?;
        input = &input[(c.total_in() - before_in) as usize..];
        match status {
            Status::StreamEnd => return Ok(()),
            _ if flush == FlushCompress::None && input.is_empty() => return Ok(()),
            _ if produced == 0 && input.is_empty() && out.capacity() - out.len() >= 64 => {
                // Finishing wants more room than it had: go round with a bigger buffer.
                out.reserve(out.capacity());
            }
            _ => {}
        }
    }
}

/// The kind and payload of a loose object file's bytes (`zlib("<kind> <size>\0" + data)`).
fn inflate_loose(raw: &[u8]) -> std::io::Result<(Kind, Vec<u8>)> {
    use gix::zlib::FlushDecompress;
    let bad = |what: &str| std::io::Error::other(format!("not a loose object: {what}"));
    DECOMPRESSOR.with(|cell| {
        let mut slot = cell.borrow_mut();
        let d = match &mut *slot {
            Some(d) => {
                d.reset();
                d
            }
            none => none.insert(gix::zlib::Decompress::new()),
        };
        SCRATCH.with(|scratch| {
            let mut out = scratch.borrow_mut();
            // Room for what a small object inflates to (text shrinks to about a third), up to
            // the most kept: the buffer only grows, so its zeroing is paid once.
            let room = raw.len().saturating_mul(8).clamp(4096, SCRATCH_SIZE);
            if out.len() < room {
                out.resize(room, 0);
            }
            // One call into a roomy buffer: zlib's fast path needs room to write into, and
            // a small first call (the header alone) ran its slow path for every object.
            let status = d
                .decompress(raw, &mut out[..], FlushDecompress::None)
                .map_err(|e| bad(&e.to_string()))?;
            let (used, got) = (d.total_in() as usize, d.total_out() as usize);
            let (kind, size, header_len) =
                gix::objs::decode::loose_header(&out[..got]).map_err(|e| bad(&e.to_string()))?;
            let size = usize::try_from(size).map_err(|_| bad("too large"))?;
            let body = &out[header_len.min(got)..got];
            let mut data = Vec::with_capacity(size);
            data.extend_from_slice(&body[..body.len().min(size)]);
            if data.len() < size && status != Status::StreamEnd {
                let start = data.len();
                data.resize(size, 0);
                d.decompress(&raw[used..], &mut data[start..], FlushDecompress::Finish)
                    .map_err(|e| bad(&e.to_string()))?;
            }
            if d.total_out() as usize != header_len + size || data.len() != size {
                return Err(bad("its size does not match its header"));
            }
            Ok((kind, data))
        })
    })
}

/// Writes `objects/xx/<rest>` under a temporary name in the same folder and renames it into
/// place (another writer of the same object renames the same bytes).
fn write_loose(objects: &Path, id: ObjectId, compressed: &[u8]) -> std::io::Result<()> {
    let hex = id.to_hex().to_string();
    let dir = objects.join(&hex[..2]);
    let tmp = temp_name(&dir);
    let mut file = match create(&tmp) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            match std::fs::create_dir(&dir) {
                Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => return Err(e),
                _ => {}
            }
            create(&tmp)?
        }
        other => other?,
    };
    let written = file.write_all(compressed);
    drop(file);
    if let Err(e) = written.and_then(|()| std::fs::rename(&tmp, dir.join(&hex[2..]))) {
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    Ok(())
}

fn create(path: &Path) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o444)
        .open(path)
}

/// `tmp_obj_<pid>_<n>` in `dir`: git's prefix, so `git gc` and `git count-objects` know it
/// as a leftover should the process die before the rename.
fn temp_name(dir: &Path) -> PathBuf {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    dir.join(format!("tmp_obj_{}_{n}", std::process::id()))
}

/// The repository's objects as gix's [`gix::objs::Find`], read the way [`Repo::tree_data`]
/// reads: from this command's memory, then loose, then through gix. gix's notes reader loads
/// the subtrees of a notes tree through it (a squash asks one notes tree for 500 commits).
pub(crate) struct LooseFirst<'r>(pub(crate) &'r Repo);

impl gix::objs::Find for LooseFirst<'_> {
    fn try_find<'a>(
        &self,
        id: &gix::oid,
        buffer: &'a mut Vec<u8>,
    ) -> gix::error::Result<Option<gix::objs::Data<'a>>> {
        let repo = self.0;
        let known = repo.known.borrow().trees.get(id).cloned();
        let found = match known {
            Some(data) => Some((Kind::Tree, data)),
            None => repo.read_loose(id.to_owned()),
        };
        let Some((kind, data)) = found else {
            return repo.repo.objects.try_find(id, buffer);
        };
        if kind == Kind::Tree {
            repo.known.borrow_mut().remember(id.to_owned(), kind, &data);
        }
        *buffer = data;
        Ok(Some(gix::objs::Data {
            kind,
            object_hash: repo.repo.object_hash(),
            data: buffer,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loose_objects_read_back_whatever_their_size() {
        for size in [0usize, 1, 40, 63, 64, 100, 70_000, 1_000_000] {
            let data: Vec<u8> = (0..size).map(|i| (i * 13 % 253) as u8).collect();
            let z = compress(Kind::Commit, &data, 1).unwrap();
            let (kind, back) = inflate_loose(&z).unwrap();
            assert_eq!(kind, Kind::Commit);
            assert_eq!(back, data, "size {size}");
            // Cut short or with a lying header: an error, never wrong bytes.
            assert!(inflate_loose(&z[..z.len() / 2]).is_err(), "size {size}");
        }
        let lying = compress(Kind::Blob, b"", 1).unwrap();
        let mut header_says_more = gix::objs::encode::loose_header(Kind::Blob, 5).to_vec();
        header_says_more.extend_from_slice(b"abc");
        let z = {
            let mut slot = Compress::new(gix::zlib::Compression::new(1).unwrap());
            let mut out = Vec::new();
            deflate(
                &mut slot,
                &header_says_more,
                FlushCompress::Finish,
                &mut out,
            )
            .unwrap();
            out
        };
        assert!(inflate_loose(&z).is_err());
        assert!(inflate_loose(&lying).is_ok());
        assert!(inflate_loose(b"not zlib at all").is_err());
    }

    #[test]
    fn compressed_objects_inflate_to_the_loose_form() {
        for size in [
            0usize, 1, 100, 3_989, 3_990, 3_991, 5_553, 70_000, 1_000_000,
        ] {
            let data: Vec<u8> = (0..size).map(|i| (i * 7 % 251) as u8).collect();
            for level in [0, 1, 6, 9] {
                let z = compress(Kind::Blob, &data, level).unwrap();
                let mut back = Vec::new();
                let mut inflate = gix::zlib::Inflate::default();
                let mut buf = vec![0u8; data.len() + 64];
                let (_, _, produced) = inflate.once(&z, &mut buf).unwrap();
                back.extend_from_slice(&buf[..produced]);
                let header = gix::objs::encode::loose_header(Kind::Blob, size as u64);
                assert_eq!(&back[..header.len()], &header[..]);
                assert_eq!(
                    &back[header.len()..],
                    &data[..],
                    "size {size} level {level}"
                );
            }
        }
    }

    #[test]
    fn adler32_is_zlibs() {
        // RFC 1950's reference values (as zlib's adler32 gives them).
        assert_eq!(adler32(1, b""), 1);
        assert_eq!(adler32(1, b"Wikipedia"), 0x11E6_0398);
        let long: Vec<u8> = (0..100_000u32).map(|i| (i * 31 % 256) as u8).collect();
        let (head, tail) = long.split_at(12_345);
        assert_eq!(adler32(adler32(1, head), tail), adler32(1, &long));
        assert_eq!(adler32(1, &[0xff; 20_000]), slow_adler(&[0xff; 20_000]));
    }

    fn slow_adler(data: &[u8]) -> u32 {
        let (mut a, mut b) = (1u64, 0u64);
        for &x in data {
            a = (a + u64::from(x)) % 65_521;
            b = (b + a) % 65_521;
        }
        ((b << 16) | a) as u32
    }

    #[test]
    fn stored_small_objects_are_read_and_checked_by_git() {
        let dir = tempfile::tempdir().expect("temp dir");
        let repo = Repo::init(dir.path()).expect("init");
        let mut ids = Vec::new();
        for size in [0usize, 1, 200, 3_980, 3_989, 3_990, 3_991, 9_000] {
            let data: Vec<u8> = (0..size).map(|i| b'a' + (i % 26) as u8).collect();
            let id = repo.put_object(Kind::Blob, &data).expect("write");
            let raw = std::fs::read(loose_file(&repo, id)).expect("loose file");
            // Stored up to the limit (the block's header byte after zlib's two), compressed above.
            let header = gix::objs::encode::loose_header(Kind::Blob, size as u64);
            assert_eq!(
                raw[2] == 0x01,
                header.len() + size <= STORED_MAX,
                "size {size}"
            );
            let out = std::process::Command::new("git")
                .args(["cat-file", "blob", &id.to_string()])
                .current_dir(dir.path())
                .output()
                .expect("git");
            assert!(out.status.success() && out.stdout == data, "size {size}");
            ids.push(id);
        }
        let fsck = std::process::Command::new("git")
            .args(["fsck", "--full", "--strict"])
            .current_dir(dir.path())
            .output()
            .expect("git fsck");
        assert!(
            fsck.status.success(),
            "{}",
            String::from_utf8_lossy(&fsck.stderr)
        );
        let said = String::from_utf8_lossy(&fsck.stderr);
        assert!(
            !said.contains("error") && !said.contains("warning"),
            "{said}"
        );
    }

    fn loose_file(repo: &Repo, id: ObjectId) -> std::path::PathBuf {
        let hex = id.to_hex().to_string();
        repo.git_dir()
            .join("objects")
            .join(&hex[..2])
            .join(&hex[2..])
    }

    #[test]
    fn loose_objects_on_disk_read_back_through_the_objects_folder() {
        let dir = tempfile::tempdir().expect("temp dir");
        let repo = Repo::init(dir.path()).expect("init");
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        let mut ids = Vec::new();
        // Incompressible contents, so the larger files take several reads to come in.
        for size in [0usize, 1, 4_000, 8_192, 70_000, 1_000_000] {
            let data: Vec<u8> = (0..size)
                .map(|_| {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    seed as u8
                })
                .collect();
            let id = repo.put_object(Kind::Blob, &data).expect("write");
            let (kind, back) = repo.read_loose(id).expect("read back");
            assert_eq!(kind, Kind::Blob);
            assert!(back == data, "size {size}");
            ids.push(id);
        }
        // Not stored: nothing, for gix to report.
        let missing = ObjectId::from_hex(b"0123456789abcdef0123456789abcdef01234567").unwrap();
        assert!(repo.read_loose(missing).is_none());
        // Cut short on disk: nothing (never wrong bytes), and gix says what is wrong.
        let last = ids[ids.len() - 1].to_hex().to_string();
        let path = repo
            .repo
            .objects
            .store_ref()
            .path()
            .join(&last[..2])
            .join(&last[2..]);
        let bytes = std::fs::read(&path).unwrap();
        let mut perms = std::fs::metadata(&path).unwrap().permissions();
        #[allow(clippy::permissions_set_readonly_false)]
        perms.set_readonly(false);
        std::fs::set_permissions(&path, perms).unwrap();
        std::fs::write(&path, &bytes[..bytes.len() / 3]).unwrap();
        assert!(repo.read_loose(ids[ids.len() - 1]).is_none());
        assert!(repo.read_blob(ids[ids.len() - 1]).is_err());
    }
}
