//! Unit tests of `index`.

use super::*;

/// An index of `n` entries in folders of 100, every entry a different object id.
fn index_of(n: usize) -> Index {
    let mut state = gix::index::State::new(gix::hash::Kind::Sha1);
    for i in 0..n {
        let mut id = [0u8; 20];
        id[..8].copy_from_slice(&(i as u64).to_be_bytes());
        state.dangerously_push_entry(
            gix::index::entry::Stat {
                size: i as u32,
                ..Default::default()
            },
            ObjectId::from_bytes_or_panic(&id),
            Flags::empty(),
            gix::index::entry::Mode::FILE,
            format!("d{:04}/f{i:06}.rs", i / 100).as_str().into(),
        );
    }
    state.sort_entries();
    Index {
        file: std::sync::Arc::new(gix::index::File::from_state(state, PathBuf::from("index"))),
        cache_tree: None,
        resolve_undo: None,
        v4: false,
        mtime: None,
        origin: None,
    }
}

#[test]
fn only_the_index_git_clada_wrote_itself_is_read_back_without_hashing() {
    let dir = tempfile::tempdir().unwrap();
    let repo = Repo::init(dir.path()).unwrap();
    std::fs::create_dir_all(repo.git_dir().join("clada")).unwrap();
    let index = index_of(2_000);
    let lock = repo.lock_index().unwrap();
    lock.commit(&index).unwrap();
    let path = repo.git_dir().join("index");
    let record_path = repo.git_dir().join("clada").join("index-checked");
    let record = std::fs::read(&record_path).expect("the write is recorded");
    let bytes = std::fs::read(&path).unwrap();
    assert_eq!(record[..20], bytes[bytes.len() - 20..], "with its checksum");
    let stamp = IndexStamp::of(&path).unwrap();
    assert_eq!(record[20..], stamp_bytes(&stamp), "{stamp:?}");
    let open = || std::fs::File::open(&path).unwrap();
    assert_eq!(
        checked_trailer(&path, &stamp, &open()).map(|t| t.to_vec()),
        Some(bytes[bytes.len() - 20..].to_vec())
    );
    let (back, _) = read_index_file(path.clone(), gix::hash::Kind::Sha1).unwrap();
    assert_eq!(back.len(), 2_000);

    // The same bytes written by anyone else (another inode, other times): checked in
    // full, so a flipped bit is refused.
    let mut damaged = bytes.clone();
    damaged[500] ^= 1;
    std::fs::write(&path, &damaged).unwrap();
    let stamp = IndexStamp::of(&path).unwrap();
    assert_eq!(checked_trailer(&path, &stamp, &open()), None);
    let err = read_index_file(path.clone(), gix::hash::Kind::Sha1)
        .err()
        .expect("refused");
    assert!(err.to_string().contains("bad checksum"), "{err}");

    // A record naming this very file but another checksum: checked in full too.
    let mut forged = vec![7u8; 20];
    forged.extend_from_slice(&stamp_bytes(&stamp));
    std::fs::write(&record_path, &forged).unwrap();
    assert_eq!(checked_trailer(&path, &stamp, &open()), None);
    assert!(read_index_file(path.clone(), gix::hash::Kind::Sha1).is_err());

    // A record naming this file and its checksum is what skips the hashing: with it,
    // the damaged body is read as it stands, as git itself reads every index.
    let mut trusted = damaged[damaged.len() - 20..].to_vec();
    trusted.extend_from_slice(&stamp_bytes(&stamp));
    std::fs::write(&record_path, &trusted).unwrap();
    assert!(checked_trailer(&path, &stamp, &open()).is_some());
    assert!(read_index_file(path.clone(), gix::hash::Kind::Sha1).is_ok());

    // A longer leftover record is cut to this one by the next write.
    std::fs::write(&record_path, vec![1u8; 200]).unwrap();
    let lock = repo.lock_index().unwrap();
    lock.commit(&index).unwrap();
    let stamp = IndexStamp::of(&path).unwrap();
    assert!(checked_trailer(&path, &stamp, &open()).is_some());
    let bytes = std::fs::read(&path).unwrap();
    let mut trusted = bytes[bytes.len() - 20..].to_vec();
    trusted.extend_from_slice(&stamp_bytes(&stamp));
    assert_eq!(std::fs::read(&record_path).unwrap(), trusted);

    // Torn or missing record, or an index not at the git dir's `index`: no trust.
    std::fs::write(&record_path, &trusted[..30]).unwrap();
    assert_eq!(checked_trailer(&path, &stamp, &open()), None);
    std::fs::remove_file(&record_path).unwrap();
    assert_eq!(checked_trailer(&path, &stamp, &open()), None);
    assert_eq!(checked_record_path(&dir.path().join("other.index")), None);
}

/// A writer that fails once `left` bytes have been written.
struct Failing {
    left: usize,
}

impl std::io::Write for Failing {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if buf.len() > self.left {
            return Err(std::io::Error::other("disk full"));
        }
        self.left -= buf.len();
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn the_pipelined_index_is_byte_for_byte_the_one_written_on_one_thread() {
    for n in [0, 1, 1_500, 40_000] {
        let index = index_of(n);
        let (mut one, mut two) = (Vec::new(), Vec::new());
        index.serialize_with(&mut one, false).unwrap();
        index.serialize_with(&mut two, true).unwrap();
        assert_eq!(one.len(), two.len(), "{n} entries");
        assert!(one == two, "{n} entries: the bytes differ");
        verify_checksum(&two, std::path::Path::new("index")).unwrap();
        let back = gix::index::State::from_bytes(
            &two,
            filetime::FileTime::zero(),
            gix::hash::Kind::Sha1,
            Default::default(),
        )
        .unwrap()
        .0;
        assert_eq!(back.entries().len(), n);
    }
}

#[test]
fn a_failing_write_is_an_error_either_way_never_a_hang() {
    let index = index_of(40_000);
    for pipelined in [false, true] {
        let err = index
            .serialize_with(Failing { left: 300 << 10 }, pipelined)
            .unwrap_err();
        assert!(err.to_string().contains("disk full"), "{pipelined}: {err}");
    }
}
