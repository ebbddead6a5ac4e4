//! Reading an index file: streamed for versions 2 to 4 (`index_stream`), whole through gix
//! otherwise, and the record of the last index git-clada wrote that lets reading it back skip
//! the checksum pass.

use super::*;

/// Reads the index file at `path` (an empty index if there is none yet), with the identity
/// of the version read (from the open file, so it names exactly what was read). Versions 2
/// to 4 are decoded as they are read, in pieces (see `index_stream`); anything else is read
/// whole and decoded by gix, its checksum verified on a second thread meanwhile.
pub(crate) fn read_index_file(
    path: PathBuf,
    hash: gix::hash::Kind,
) -> Result<(Index, Option<IndexStamp>)> {
    let (decoded, stamp) = match std::fs::File::open(&path) {
        Ok(f) => {
            let (decoded, stamp) = read_open_index(f, hash, &path)?;
            (decoded, Some(stamp))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => (
            Decoded {
                state: gix::index::State::new(hash),
                tree: None,
                resolve_undo: None,
                v4: false,
            },
            None,
        ),
        Err(e) => return Err(io_err("cannot read the index", &path)(e)),
    };
    Ok((Index::from_decoded(decoded, path), stamp))
}

impl Index {
    /// The index `decoded` holds, as the file at `path`.
    pub(crate) fn from_decoded(decoded: Decoded, path: PathBuf) -> Index {
        Index {
            file: std::sync::Arc::new(gix::index::File::from_state(decoded.state, path)),
            cache_tree: decoded.tree,
            resolve_undo: decoded.resolve_undo.map(Into::into),
            v4: decoded.v4,
            mtime: None,
            origin: None,
        }
    }
}

/// The entries and kept extensions of the index file open as `f`, and its identity.
pub(crate) fn read_open_index(
    mut f: std::fs::File,
    hash: gix::hash::Kind,
    path: &std::path::Path,
) -> Result<(Decoded, IndexStamp)> {
    let md = f
        .metadata()
        .map_err(io_err("cannot read the index", path))?;
    let mtime = filetime::FileTime::from_last_modification_time(&md);
    let stamp = IndexStamp::from_metadata(&md);
    if hash == gix::hash::Kind::Sha1 {
        let trusted = checked_trailer(path, &stamp, &f);
        if let crate::index_stream::Streamed::Read(decoded) =
            crate::index_stream::read(&mut f, md.len(), mtime, path, trusted)?
        {
            return Ok((*decoded, stamp));
        }
        use std::io::Seek;
        f.rewind().map_err(io_err("cannot read the index", path))?;
    }
    Ok((read_whole(f, &md, mtime, hash, path)?, stamp))
}

/// Where git-clada records the identity and checksum of the index file it wrote last:
/// `clada/index-checked` in the git dir, for the git dir's own `index` only.
pub(super) fn checked_record_path(index: &std::path::Path) -> Option<PathBuf> {
    if index.file_name()? != "index" {
        return None;
    }
    Some(index.parent()?.join("clada").join("index-checked"))
}

/// The identity of one version of the index file, as the checked record stores it.
pub(super) fn stamp_bytes(stamp: &IndexStamp) -> Vec<u8> {
    let IndexStamp {
        dev,
        ino,
        len,
        mtime,
        ctime,
    } = *stamp;
    [dev, ino, len]
        .into_iter()
        .chain([mtime.0, mtime.1, ctime.0, ctime.1].map(|t| t as u64))
        .flat_map(u64::to_le_bytes)
        .collect()
}

/// Records that the index file just renamed into place at `index` (still open as `file`)
/// is one git-clada wrote, with checksum `digest`. Only a hint for the next read (see
/// [`checked_trailer`]): a record that cannot be written, or is torn, makes that read check
/// the file in full, so failures are ignored. Nothing is created but the record itself.
pub(super) fn record_checked(index: &std::path::Path, file: &std::fs::File, digest: [u8; 20]) {
    let (Some(record), Ok(md)) = (checked_record_path(index), file.metadata()) else {
        return;
    };
    let mut bytes = digest.to_vec();
    bytes.extend_from_slice(&stamp_bytes(&IndexStamp::from_metadata(&md)));
    // Written over the previous record, which has the same length, without truncating the
    // file first: on ext4 a truncate frees and journals the block (~0.14 ms, as measured for
    // `clada.lock`).
    use std::os::unix::fs::FileExt;
    if let Ok(f) = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(false)
        .open(record)
    {
        // Only a longer leftover (another version's record) needs cutting.
        if f.write_all_at(&bytes, 0).is_ok()
            && f.metadata().is_ok_and(|m| m.len() > bytes.len() as u64)
        {
            let _ = f.set_len(bytes.len() as u64);
        }
    }
}

/// The checksum of the index file open as `f` (whose identity is `stamp`), if it is the very
/// file git-clada wrote last — its identity is the recorded one and it still ends with the
/// recorded checksum. Its bytes were hashed as they were written, so they are not hashed
/// again on the way in; any other index (written by git or another tool, or changed in any
/// way its identity shows) has its checksum verified in full. Like git, which never verifies
/// on reads, this trusts the disk to keep what was written.
pub(super) fn checked_trailer(
    path: &std::path::Path,
    stamp: &IndexStamp,
    f: &std::fs::File,
) -> Option<[u8; 20]> {
    use std::os::unix::fs::FileExt;
    let record = std::fs::read(checked_record_path(path)?).ok()?;
    if record.len() <= 20 || record[20..] != stamp_bytes(stamp) {
        return None;
    }
    let mut tail = [0u8; 20];
    f.read_exact_at(&mut tail, stamp.len.checked_sub(20)?)
        .ok()?;
    (tail[..] == record[..20] && tail != [0; 20]).then_some(tail)
}

/// The index file decoded by gix from its bytes read whole, the checksum verified on a
/// second thread while the entries are decoded.
pub(super) fn read_whole(
    mut f: std::fs::File,
    md: &std::fs::Metadata,
    mtime: filetime::FileTime,
    hash: gix::hash::Kind,
    path: &std::path::Path,
) -> Result<Decoded> {
    let mut data = Vec::with_capacity(md.len() as usize + 1);
    {
        use std::io::Read;
        f.read_to_end(&mut data)
            .map_err(io_err("cannot read the index", path))?;
    }
    let (checked, decoded) = std::thread::scope(|s| {
        let check = s.spawn(|| verify_checksum(&data, path));
        let decoded = gix::index::State::from_bytes(
            &data,
            mtime,
            hash,
            // The cores, asked once per process: gix would ask again on every read, and std
            // reads the cgroup files each time it is asked.
            gix::index::decode::Options {
                thread_limit: Some(crate::threads::cores()),
                ..Default::default()
            },
        );
        let checked = check.join().unwrap_or_else(|_| {
            Err(RepoError::Invalid(
                "checking the index stopped unexpectedly".into(),
            ))
        });
        (checked, decoded)
    });
    checked?;
    let what = || format!("cannot read the index '{}'", path.display());
    // gix decodes a split index (and, unlike the streamed reader, misplaces the entry after a
    // path of 4 KiB or more): say how to turn it back into one file git-clada reads itself.
    let split = || {
        format!(
            "{}; it is a split index (core.splitIndex): `git config core.splitIndex false && git update-index --no-split-index` makes it one file",
            what()
        )
    };
    let split_index = data
        .windows(8)
        .any(|w| w.starts_with(b"link") && u32::from_be_bytes([w[4], w[5], w[6], w[7]]) >= 20);
    let (mut state, _) = match decoded {
        Err(_) if split_index => return Err(RepoError::Invalid(split())),
        decoded => decoded.ctx(what())?,
    };
    if state.link().is_some() {
        // A split index: most entries are in the shared index it names, which gix merges
        // in when it opens the file itself. Written back whole; git splits it again.
        let file = gix::index::File::at(path, hash, false, Default::default())
            .map_err(|_| RepoError::Invalid(split()))?;
        state = file.into();
    }
    let v4 = data.get(4..8) == Some(&4u32.to_be_bytes()[..]);
    Ok(Decoded {
        tree: state.remove_tree(),
        resolve_undo: crate::index_stream::raw_extension(&data, crate::index_stream::REUC),
        state,
        v4,
    })
}

/// Checks the index file's trailing SHA-1 (all zeroes means `index.skipHash`: nothing to check).
pub(super) fn verify_checksum(data: &[u8], path: &std::path::Path) -> Result<()> {
    use sha1::Digest;
    if data.len() < 32 {
        return Err(crate::index_stream::truncated(path));
    }
    let (body, trailer) = data.split_at(data.len() - 20);
    if trailer.iter().all(|b| *b == 0) {
        return Ok(());
    }
    if sha1::Sha1::digest(body).as_slice() != trailer {
        return Err(crate::index_stream::corrupt(path));
    }
    Ok(())
}
