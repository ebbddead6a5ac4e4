//! The index file's entries, read and written by git-clada itself.
//!
//! Reading is done in pieces: the entries are decoded as the file comes in, 256 KiB at a
//! time, and the checksum is computed on the way, so the file's bytes are never held whole
//! beside the entries decoded from them. At 100,000 files that is 9 MiB less at the peak of
//! an apply (the file and its entries were both resident while gix decoded it). Writing
//! makes each entry in one piece ([`write_entries`]).
//!
//! Only the entries are decoded here, for index versions 2, 3 and 4 (4: paths compressed
//! against the previous one, what `feature.manyFiles` turns on), long paths included (4 KiB
//! and more: gix's decoder misplaces the entry after one). The extensions that follow them
//! (cache-tree, resolve-undo, untracked cache, …; a few KiB to a few hundred) are handed to
//! gix's own decoder as an index of no entries, so they mean exactly what they mean to gix;
//! the resolve-undo extension, which gix decodes but neither exposes nor writes, is also kept
//! as raw bytes so it is written back unchanged. Anything else — sparse-directory entries, an
//! entry that does not parse, a split index — is left to gix's decoder of the whole file
//! ([`Streamed::Unsupported`]), which also names what is wrong with a damaged one.
//!
//! What git-clada writes back, extension by extension (docs/architecture.md has the table):
//! the cache-tree (recomputed, or invalidated as git does), the resolve-undo data (as read),
//! and nothing else — the untracked cache, the fsmonitor bitmap (positional), the
//! end-of-index and offset-table extensions (offsets into the old file) and the split-index
//! link are dropped: git rebuilds each of them on its next write (a split index is written
//! whole, and git splits it again). Version 4 is written as version 4.

use std::io::Read;
use std::path::Path;

use gix::index::entry::{Flags, Mode, Stat};
use gix::ObjectId;
use sha1::Digest;

use super::{io_err, RepoError, Result};

/// How much of the file is read at a time.
const PIECE: usize = 256 << 10;
/// SHA-1: the only object format git-clada reads.
const HASH_LEN: usize = 20;
/// An entry's fixed part: stat data (40 bytes), id, flags.
const FIXED: usize = 40 + HASH_LEN + 2;
/// The name length that means "longer; look for the NUL".
const LONG_NAME: usize = 0x0fff;
/// The flags bits that are the name length on disk.
const NAME_LEN_BITS: u16 = 0x0fff;
/// The on-disk flag saying a second flags word follows.
const EXTENDED: u16 = 0x4000;
/// The only bits of that second word git defines (intent-to-add, skip-worktree).
const EXTENDED_KNOWN: u16 = 0x6000;
/// The longest path this reader looks for the end of (git's own limit is the file system's).
const MAX_PATH: usize = 64 << 10;
/// The resolve-undo extension's signature.
pub(super) const REUC: [u8; 4] = *b"REUC";

/// What reading the index in pieces gave.
pub(super) enum Streamed {
    /// The entries, and what of the extensions is kept.
    Read(Box<Decoded>),
    /// Not a file this reader decodes: read it whole with gix.
    Unsupported,
}

/// An index file decoded here.
pub(super) struct Decoded {
    pub state: gix::index::State,
    pub tree: Option<gix::index::extension::Tree>,
    /// The resolve-undo extension's body, as read.
    pub resolve_undo: Option<Vec<u8>>,
    /// The file was version 4 (compressed paths).
    pub v4: bool,
}

/// Reads the index from `file` (`len` bytes, modified at `mtime`). `trusted`: the file's
/// trailing checksum, when this exact file is one git-clada wrote and hashed itself (see
/// `index::checked_trailer`); its bytes are then not hashed again, only that trailer compared.
pub(super) fn read(
    file: &mut impl Read,
    len: u64,
    mtime: filetime::FileTime,
    path: &Path,
    trusted: Option<[u8; HASH_LEN]>,
) -> Result<Streamed> {
    let len = usize::try_from(len).map_err(|_| too_large(path))?;
    if len < 12 + HASH_LEN {
        return Err(truncated(path));
    }
    let mut pieces = Pieces {
        file,
        // Grown by `ensure`, never past what is left of the file: a small index is read into
        // a small buffer.
        buf: Vec::new(),
        pos: 0,
        end: 0,
        body_left: len - HASH_LEN,
        hasher: trusted.is_none().then(sha1::Sha1::new),
    };
    let io = |e| io_err("cannot read the index", path)(e);
    if !pieces.ensure(12).map_err(io)? {
        return Err(truncated(path));
    }
    let header = pieces.take(12);
    let version = u32::from_be_bytes([header[4], header[5], header[6], header[7]]);
    let count = u32::from_be_bytes([header[8], header[9], header[10], header[11]]) as usize;
    if &header[..4] != b"DIRC" || !(2..=4).contains(&version) {
        return Ok(Streamed::Unsupported);
    }
    let v4 = version == 4;
    let mut state = gix::index::State::new(gix::hash::Kind::Sha1);
    state.set_timestamp(mtime);
    // Room for the paths: what the file holds beyond the entries' fixed parts.
    state.return_path_backing(Vec::with_capacity(
        (len - 12).saturating_sub(count.saturating_mul(FIXED + 2)),
    ));
    let mut prev = Vec::new();
    for _ in 0..count {
        if !pieces.entry(&mut state, v4, &mut prev).map_err(io)? {
            return Ok(Streamed::Unsupported);
        }
    }
    // The extensions, behind a header of no entries, for gix to decode.
    let mut rest = Vec::with_capacity(12 + pieces.body_left + pieces.end - pieces.pos);
    rest.extend_from_slice(b"DIRC");
    rest.extend_from_slice(&version.min(3).to_be_bytes());
    rest.extend_from_slice(&0u32.to_be_bytes());
    let Some(resolve_undo) = extensions(&mut pieces, &mut rest).map_err(io)? else {
        return Ok(Streamed::Unsupported);
    };
    let hasher = pieces.hasher.take();
    let mut trailer = [0u8; HASH_LEN];
    pieces.file.read_exact(&mut trailer).map_err(|e| {
        if e.kind() == std::io::ErrorKind::UnexpectedEof {
            truncated(path)
        } else {
            io(e)
        }
    })?;
    match hasher {
        // All zeroes: written with `index.skipHash`, nothing to check.
        Some(hasher) => {
            if trailer != [0; HASH_LEN] && hasher.finalize().as_slice() != trailer {
                return Err(corrupt(path));
            }
        }
        // Not the file git-clada wrote after all (it changed while being read): read it
        // again whole, checksum and all.
        None => {
            if trusted != Some(trailer) {
                return Ok(Streamed::Unsupported);
            }
        }
    }
    // The trailer of the index gix decodes is zeroes: nothing for it to check again.
    rest.extend_from_slice(&[0; HASH_LEN]);
    // One thread: the extensions are small, and asking how many cores there are reads the
    // cgroup files on every call.
    let options = gix::index::decode::Options {
        thread_limit: Some(1),
        ..Default::default()
    };
    let Ok((mut extensions, _)) =
        gix::index::State::from_bytes(&rest, mtime, gix::hash::Kind::Sha1, options)
    else {
        return Ok(Streamed::Unsupported);
    };
    // A split index names another file holding most entries: gix reads those itself.
    if extensions.link().is_some() {
        return Ok(Streamed::Unsupported);
    }
    Ok(Streamed::Read(Box::new(Decoded {
        state,
        tree: extensions.remove_tree(),
        resolve_undo,
        v4,
    })))
}

/// One entry as it lies in the file, decoded from the bytes at its start.
enum Parsed {
    /// At least this many bytes are needed (more than were given).
    More(usize),
    /// Not an entry this reader decodes.
    Bad,
    Entry(RawEntry),
}

struct RawEntry {
    stat: Stat,
    id: ObjectId,
    /// In memory form, the name length bits cleared.
    flags: Flags,
    mode: Mode,
    /// Version 4: how many bytes of the previous path to drop before the name.
    strip: usize,
    /// Where the name (v4: the suffix) lies in the bytes given.
    name: std::ops::Range<usize>,
    /// The entry's size in the file, padding included.
    size: usize,
}

/// Decodes the entry at the start of `b` as git writes it (gix's `decode::entries` for
/// versions 2–3; git's `read-cache.c` for long names and version 4).
fn parse_entry(b: &[u8], v4: bool) -> Parsed {
    if b.len() < FIXED {
        return Parsed::More(FIXED);
    }
    let word = |i: usize| u32::from_be_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
    let time = |i: usize| gix::index::entry::stat::Time {
        secs: word(i),
        nsecs: word(i + 4),
    };
    let stat = Stat {
        ctime: time(0),
        mtime: time(8),
        dev: word(16),
        ino: word(20),
        uid: word(28),
        gid: word(32),
        size: word(36),
    };
    let mode = Mode::from_bits_truncate(word(24));
    let Ok(id) = ObjectId::try_from(&b[40..40 + HASH_LEN]) else {
        return Parsed::Bad;
    };
    let disk_flags = u16::from_be_bytes([b[FIXED - 2], b[FIXED - 1]]);
    let name_len = usize::from(disk_flags & NAME_LEN_BITS);
    let mut flags = u32::from(disk_flags & !NAME_LEN_BITS);
    let mut header = FIXED;
    if disk_flags & EXTENDED != 0 {
        if b.len() < FIXED + 2 {
            return Parsed::More(FIXED + 2);
        }
        let extended = u16::from_be_bytes([b[FIXED], b[FIXED + 1]]);
        if extended & !EXTENDED_KNOWN != 0 {
            return Parsed::Bad;
        }
        flags |= u32::from(extended) << 16;
        header += 2;
    }
    let mut strip = 0;
    if v4 {
        match varint(&b[header..]) {
            Varint::More => return Parsed::More(b.len() + 1),
            Varint::Bad => return Parsed::Bad,
            Varint::Value(v, used) => {
                strip = v;
                header += used;
            }
        }
    }
    // The name ends at a NUL: in version 4 always, before that for long names; otherwise
    // its length is in the flags and one to eight NULs pad the entry to a multiple of 8.
    let (name, size) = if v4 || name_len == LONG_NAME {
        match memchr::memchr(0, &b[header..]) {
            Some(n) if v4 => (header..header + n, header + n + 1),
            Some(n) if n >= LONG_NAME => (header..header + n, (header + n + 8) & !7),
            Some(_) => return Parsed::Bad,
            None if b.len() - header > MAX_PATH => return Parsed::Bad,
            None => return Parsed::More(b.len() + 1),
        }
    } else {
        let size = (header + name_len + 8) & !7;
        if b.len() < size {
            return Parsed::More(size);
        }
        if b[header..header + name_len].contains(&0) {
            return Parsed::Bad;
        }
        (header..header + name_len, size)
    };
    if b.len() < size {
        return Parsed::More(size);
    }
    Parsed::Entry(RawEntry {
        stat,
        id,
        flags: Flags::from_bits_retain(flags),
        mode,
        strip,
        name,
        size,
    })
}

enum Varint {
    More,
    Bad,
    /// The value and the bytes it took.
    Value(usize, usize),
}

/// git's offset varint (`varint.c`): seven bits a byte, most significant first, each
/// continuation adding one so that every value has one encoding.
fn varint(b: &[u8]) -> Varint {
    let mut value: usize = 0;
    for (i, &c) in b.iter().enumerate() {
        if i > 0 {
            value = match value
                .checked_add(1)
                .and_then(|v| v.checked_mul(128))
                .and_then(|v| v.checked_add(usize::from(c & 127)))
            {
                Some(v) => v,
                None => return Varint::Bad,
            };
        } else {
            value = usize::from(c & 127);
        }
        if c & 128 == 0 {
            return Varint::Value(value, i + 1);
        }
    }
    Varint::More
}

/// Appends git's offset varint of `value` to `out`.
fn put_varint(out: &mut Vec<u8>, mut value: usize) {
    let mut bytes = [0u8; 16];
    let mut pos = bytes.len() - 1;
    bytes[pos] = (value & 127) as u8;
    value >>= 7;
    while value > 0 {
        value -= 1;
        pos -= 1;
        bytes[pos] = 128 | (value & 127) as u8;
        value >>= 7;
    }
    out.extend_from_slice(&bytes[pos..]);
}

/// The file's body (everything before the trailing checksum), read in pieces and hashed as
/// it comes in; `buf[pos..end]` is what has been read and not yet decoded.
struct Pieces<'f, R> {
    file: &'f mut R,
    buf: Vec<u8>,
    pos: usize,
    end: usize,
    body_left: usize,
    /// `None`: a file git-clada wrote and hashed itself, not hashed again.
    hasher: Option<sha1::Sha1>,
}

impl<R: Read> Pieces<'_, R> {
    /// Makes `n` bytes available at `buf[pos..end]`; `false` when the body ends first. The
    /// buffer is zeroed only when it grows: reading into a freshly zeroed piece each time cost
    /// ~0.5 ms at 100,000 entries.
    fn ensure(&mut self, n: usize) -> std::io::Result<bool> {
        if self.end - self.pos >= n {
            return Ok(true);
        }
        // A size read from the file (an extension's header) may claim more than the file
        // holds: answer before growing the buffer to it (a damaged index claiming 3 GiB made
        // every read allocate that much; the fuzz target found it).
        if n > self.end - self.pos + self.body_left {
            return Ok(false);
        }
        self.buf.copy_within(self.pos..self.end, 0);
        self.end -= self.pos;
        self.pos = 0;
        let size = PIECE.max(n).min(self.end + self.body_left);
        if self.buf.len() < size {
            self.buf.resize(size, 0);
        }
        while self.end < n {
            if self.body_left == 0 {
                return Ok(false);
            }
            let want = (self.buf.len() - self.end).min(self.body_left);
            let got = self.file.read(&mut self.buf[self.end..self.end + want])?;
            if got == 0 {
                return Err(std::io::ErrorKind::UnexpectedEof.into());
            }
            if let Some(hasher) = &mut self.hasher {
                hasher.update(&self.buf[self.end..self.end + got]);
            }
            self.end += got;
            self.body_left -= got;
        }
        Ok(true)
    }

    /// The next `n` bytes (made available by [`Self::ensure`]).
    fn take(&mut self, n: usize) -> &[u8] {
        let at = self.pos;
        self.pos += n;
        &self.buf[at..at + n]
    }

    /// Decodes one entry and appends it to `state` (`prev`: the previous entry's path, for
    /// version 4's compression); `false` for what this reader leaves to gix.
    fn entry(
        &mut self,
        state: &mut gix::index::State,
        v4: bool,
        prev: &mut Vec<u8>,
    ) -> std::io::Result<bool> {
        let mut need = FIXED;
        let e = loop {
            if !self.ensure(need)? {
                return Ok(false);
            }
            match parse_entry(&self.buf[self.pos..self.end], v4) {
                Parsed::More(n) => need = n,
                Parsed::Bad => return Ok(false),
                Parsed::Entry(e) => break e,
            }
        };
        // Sparse-directory entries make a sparse index, which only gix's decoder marks so.
        if e.mode == Mode::DIR {
            return Ok(false);
        }
        let name = &self.buf[self.pos + e.name.start..self.pos + e.name.end];
        let path: &[u8] = if v4 {
            let Some(keep) = prev.len().checked_sub(e.strip) else {
                return Ok(false);
            };
            prev.truncate(keep);
            prev.extend_from_slice(name);
            prev
        } else {
            name
        };
        state.dangerously_push_entry(e.stat, e.id, e.flags, e.mode, path.into());
        self.pos += e.size;
        Ok(true)
    }
}

/// Where the extensions of the index file `data` begin (after its entries), without
/// decoding more than the entries' sizes; `None` if the entries do not parse.
pub(super) fn extensions_offset(data: &[u8]) -> Option<usize> {
    let body = data.get(..data.len().checked_sub(HASH_LEN)?)?;
    let header = body.get(..12)?;
    let version = u32::from_be_bytes([header[4], header[5], header[6], header[7]]);
    let count = u32::from_be_bytes([header[8], header[9], header[10], header[11]]);
    if &header[..4] != b"DIRC" || !(2..=4).contains(&version) {
        return None;
    }
    let mut at = 12;
    for _ in 0..count {
        match parse_entry(body.get(at..)?, version == 4) {
            Parsed::Entry(e) => at += e.size,
            Parsed::More(_) | Parsed::Bad => return None,
        }
    }
    Some(at)
}

/// The body of the extension `signature` in the index file `data` (entries and all).
pub(super) fn raw_extension(data: &[u8], signature: [u8; 4]) -> Option<Vec<u8>> {
    let mut at = extensions_offset(data)?;
    let end = data.len() - HASH_LEN;
    while at + 8 <= end {
        let head = &data[at..at + 8];
        let size = u32::from_be_bytes([head[4], head[5], head[6], head[7]]) as usize;
        let body = data.get(at + 8..(at + 8).checked_add(size)?.min(end))?;
        if head[..4] == signature {
            return Some(body.to_vec());
        }
        at += 8 + size;
    }
    None
}

/// Writes the index file's header, `state`'s entries, `tree` as the cache-tree extension and
/// `resolve_undo` as the resolve-undo extension, byte for byte as gix does with the
/// end-of-index marker turned off (the marker is optional and only helps readers that split
/// the work by it); `v4` compresses the paths as git's version 4 does. An index holding
/// sparse-directory entries gets the (empty) sparse-directory extension git requires. One
/// write per entry instead of gix's dozen: writing a 100,000-entry index spent most of its
/// time in those calls.
pub(super) fn write_entries(
    state: &gix::index::State,
    tree: Option<&gix::index::extension::Tree>,
    resolve_undo: Option<&[u8]>,
    v4: bool,
    out: &mut impl std::io::Write,
) -> std::io::Result<()> {
    let entries = state.entries();
    let live = entries
        .iter()
        .filter(|e| !e.flags.contains(Flags::REMOVE))
        .count();
    let live = u32::try_from(live).map_err(|_| std::io::Error::other("too many index entries"))?;
    // git's rule (`CE_EXTENDED_FLAGS`): the second flags word, and version 3, only for an
    // entry that has one of its flags — an entry whose intent-to-add or skip-worktree bit
    // was cleared keeps gix's `EXTENDED` mark, which must not make the file version 3.
    let extended = |e: &gix::index::Entry| {
        e.flags
            .intersects(Flags::INTENT_TO_ADD | Flags::SKIP_WORKTREE)
    };
    let version: u32 = if v4 {
        4
    } else if entries.iter().any(extended) {
        3
    } else {
        2
    };
    let mut head = [0u8; 12];
    head[..4].copy_from_slice(b"DIRC");
    head[4..8].copy_from_slice(&version.to_be_bytes());
    head[8..].copy_from_slice(&live.to_be_bytes());
    out.write_all(&head)?;
    let mut record = Vec::with_capacity(256);
    let mut prev: &[u8] = &[];
    for e in entries {
        if e.flags.contains(Flags::REMOVE) {
            continue;
        }
        record.clear();
        let stat = &e.stat;
        for word in [
            stat.ctime.secs,
            stat.ctime.nsecs,
            stat.mtime.secs,
            stat.mtime.nsecs,
            stat.dev,
            stat.ino,
            e.mode.bits(),
            stat.uid,
            stat.gid,
            stat.size,
        ] {
            record.extend_from_slice(&word.to_be_bytes());
        }
        record.extend_from_slice(e.id.as_bytes());
        let path = e.path(state);
        let name_len = path.len().min(LONG_NAME) as u16;
        // The stage and assume-valid bits are the on-disk flags' top bits, beside the
        // extended mark.
        let mut disk_flags = (e.flags.bits() & 0xb000) as u16 | name_len;
        if extended(e) {
            disk_flags |= EXTENDED;
        }
        record.extend_from_slice(&disk_flags.to_be_bytes());
        if extended(e) {
            let extended =
                ((e.flags & (Flags::INTENT_TO_ADD | Flags::SKIP_WORKTREE)).bits() >> 16) as u16;
            record.extend_from_slice(&extended.to_be_bytes());
        }
        if v4 {
            let common = prev
                .iter()
                .zip(path.iter())
                .take_while(|(a, b)| a == b)
                .count();
            put_varint(&mut record, prev.len() - common);
            record.extend_from_slice(&path[common..]);
            record.push(0);
            prev = path;
        } else {
            record.extend_from_slice(path);
            // The name's NUL, and more up to a multiple of eight bytes.
            let size = (record.len() + 8) & !7;
            record.resize(size, 0);
        }
        out.write_all(&record)?;
    }
    write_extensions(tree, resolve_undo, out)?;
    if entries.iter().any(|e| e.mode == Mode::DIR) {
        out.write_all(b"sdir\0\0\0\0")?;
    }
    Ok(())
}

/// Writes the cache-tree and resolve-undo extensions (in git's order) after the entries.
pub(super) fn write_extensions(
    tree: Option<&gix::index::extension::Tree>,
    resolve_undo: Option<&[u8]>,
    out: &mut impl std::io::Write,
) -> std::io::Result<()> {
    if let Some(tree) = tree {
        tree.write_to(&mut *out)?;
    }
    if let Some(body) = resolve_undo {
        let size = u32::try_from(body.len())
            .map_err(|_| std::io::Error::other("resolve-undo extension too large"))?;
        out.write_all(&REUC)?;
        out.write_all(&size.to_be_bytes())?;
        out.write_all(body)?;
    }
    Ok(())
}

/// Copies the extensions (what follows the entries, up to the checksum) into `out`, all but
/// the two that locate parts of the file by offset (end-of-index, index-entry-offsets), which
/// would point into the file gix is not given. Returns the resolve-undo extension's body, if
/// any; `None` if they do not parse.
#[allow(clippy::option_option)]
fn extensions<R: Read>(
    pieces: &mut Pieces<'_, R>,
    out: &mut Vec<u8>,
) -> std::io::Result<Option<Option<Vec<u8>>>> {
    let mut resolve_undo = None;
    while pieces.end > pieces.pos || pieces.body_left > 0 {
        if !pieces.ensure(8)? {
            return Ok(None);
        }
        let head = pieces.take(8);
        let (signature, size) = (
            [head[0], head[1], head[2], head[3]],
            u32::from_be_bytes([head[4], head[5], head[6], head[7]]) as usize,
        );
        if !pieces.ensure(size)? {
            return Ok(None);
        }
        let data = pieces.take(size);
        if &signature == b"EOIE" || &signature == b"IEOT" {
            continue;
        }
        if signature == REUC {
            resolve_undo = Some(data.to_vec());
        }
        out.extend_from_slice(&signature);
        out.extend_from_slice(&(size as u32).to_be_bytes());
        out.extend_from_slice(data);
    }
    Ok(Some(resolve_undo))
}

/// Reads `data` as an index file through this module's decoder and, when it decodes, writes
/// the entries back and reads them again: the fuzz target `index_decode` and its replay test
/// call this. Nothing may panic; what was decoded must survive the round trip (paths, ids,
/// modes, stat data and the flags git keeps on disk). Returns the number of entries read, or
/// `None` for a file this decoder refuses or leaves to gix.
pub fn fuzz_round_trip(data: &[u8]) -> Option<usize> {
    let path = Path::new("index");
    let mtime = filetime::FileTime::zero();
    let mut reader = data;
    let decoded = match read(&mut reader, data.len() as u64, mtime, path, None) {
        Ok(Streamed::Read(decoded)) => decoded,
        _ => {
            // The raw walk over a file this reader did not take must not panic either.
            let _ = raw_extension(data, REUC);
            return None;
        }
    };
    let mut out = Vec::new();
    let written = write_entries(
        &decoded.state,
        decoded.tree.as_ref(),
        decoded.resolve_undo.as_deref(),
        decoded.v4,
        &mut out,
    );
    let Ok(()) = written else {
        return Some(decoded.state.entries().len());
    };
    out.extend_from_slice(&sha1::Sha1::digest(&out));
    let mut again = out.as_slice();
    let Ok(Streamed::Read(back)) = read(&mut again, out.len() as u64, mtime, path, None) else {
        panic!("an index written from decoded entries does not read back");
    };
    let (a, b) = (&decoded.state, &back.state);
    assert_eq!(a.entries().len(), b.entries().len());
    let kept =
        Flags::ASSUME_VALID | Flags::STAGE_MASK | Flags::INTENT_TO_ADD | Flags::SKIP_WORKTREE;
    for (x, y) in a.entries().iter().zip(b.entries()) {
        assert_eq!(x.path(a), y.path(b));
        assert_eq!((x.id, x.mode, x.stat), (y.id, y.mode, y.stat));
        assert_eq!(x.flags & kept, y.flags & kept);
    }
    assert_eq!(decoded.resolve_undo, back.resolve_undo);
    Some(a.entries().len())
}

/// The refusal of an index whose checksum does not match its bytes.
pub(super) fn corrupt(path: &Path) -> RepoError {
    RepoError::Invalid(format!(
        "the index '{}' is corrupt (bad checksum); rebuild it with `git reset` (your files are untouched)",
        path.display()
    ))
}

/// The refusal of an index shorter than its own contents say.
pub(super) fn truncated(path: &Path) -> RepoError {
    RepoError::Invalid(format!(
        "the index '{}' is truncated; restore it with `git reset` (your files are untouched)",
        path.display()
    ))
}

fn too_large(path: &Path) -> RepoError {
    RepoError::Invalid(format!(
        "the index '{}' is too large to read here",
        path.display()
    ))
}

#[cfg(test)]
mod tests;
