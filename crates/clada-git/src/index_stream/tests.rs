//! Unit tests of `index_stream`.

use super::*;
use std::process::Command;

#[test]
fn a_size_larger_than_the_file_is_refused_before_the_buffer_grows() {
    // An extension header claiming 3 GiB in a file of a few bytes.
    let body = [0u8; 16];
    let mut reader = &body[..];
    let mut pieces = Pieces {
        file: &mut reader,
        buf: Vec::new(),
        pos: 0,
        end: 0,
        body_left: body.len(),
        hasher: None,
    };
    assert!(!pieces.ensure(3 << 30).expect("no I/O error"));
    assert!(pieces.buf.len() < PIECE, "grew to {}", pieces.buf.len());
    assert!(pieces.ensure(16).expect("read"));
    assert_eq!(pieces.take(16), &body[..]);
}

/// Runs git in `dir` with no user or system configuration.
fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", dir.join("no-such-config"))
        .env("GIT_AUTHOR_NAME", "T")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_NAME", "T")
        .env("GIT_COMMITTER_EMAIL", "t@example.com")
        .output()
        .expect("run git");
    assert!(out.status.success(), "git {args:?}: {out:?}");
}

/// A repository of `files` files in folders of 10, committed, with `new.txt` untracked
/// beside them, then set up by `scenario`.
fn repo_of(files: usize, scenario: &[&[&str]]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    git(dir.path(), &["init", "-q"]);
    for i in 0..files {
        let sub = dir.path().join(format!("d{:03}", i / 10));
        std::fs::create_dir_all(&sub).unwrap();
        std::fs::write(sub.join(format!("f{i:04}.txt")), format!("{i}\n")).unwrap();
    }
    git(dir.path(), &["add", "-A"]);
    git(dir.path(), &["commit", "-q", "-m", "base"]);
    std::fs::write(dir.path().join("new.txt"), "new\n").unwrap();
    for args in scenario {
        git(dir.path(), args);
    }
    dir
}

fn repo_with(scenario: &[&[&str]]) -> tempfile::TempDir {
    repo_of(300, scenario)
}

fn read_streamed(path: &Path) -> Result<Streamed> {
    let mut f = std::fs::File::open(path).unwrap();
    let md = f.metadata().unwrap();
    let mtime = filetime::FileTime::from_last_modification_time(&md);
    read(&mut f, md.len(), mtime, path, None)
}

/// What the two readers must agree on: every entry, and the cache-tree. Returns what the
/// file held: (cache-tree, extended flags, untracked cache, end-of-index marker).
fn same_as_gix(path: &Path) -> [bool; 4] {
    let data = std::fs::read(path).unwrap();
    let md = std::fs::metadata(path).unwrap();
    let mtime = filetime::FileTime::from_last_modification_time(&md);
    let (whole, _) =
        gix::index::State::from_bytes(&data, mtime, gix::hash::Kind::Sha1, Default::default())
            .unwrap();
    let Streamed::Read(decoded) = read_streamed(path).unwrap() else {
        panic!("{}: left to gix", path.display());
    };
    let Decoded { state, tree, .. } = *decoded;
    assert_eq!(state.entries().len(), whole.entries().len());
    for (a, b) in state.entries().iter().zip(whole.entries()) {
        assert_eq!(a.path(&state), b.path(&whole));
        assert_eq!(
            (a.stat, a.id, a.flags, a.mode),
            (b.stat, b.id, b.flags, b.mode)
        );
    }
    assert_eq!(tree.as_ref(), whole.tree());
    assert_eq!(state.timestamp(), whole.timestamp());
    [
        whole.tree().is_some(),
        whole
            .entries()
            .iter()
            .any(|e| e.flags.contains(Flags::EXTENDED)),
        whole.untracked().is_some(),
        whole.had_end_of_index_marker(),
    ]
}

#[test]
fn the_index_read_in_pieces_is_the_index_gix_decodes() {
    let scenarios: &[&[&[&str]]] = &[
        &[],
        // The cache-tree, as `git commit` leaves it, and as `git reset` leaves it.
        &[&["reset", "-q"]],
        &[&["write-tree"]],
        // Version 3: intent-to-add and skip-worktree flags.
        &[
            &["update-index", "--skip-worktree", "d001/f0010.txt"],
            &["add", "-N", "new.txt"],
        ],
        // Extensions git-clada does not decode itself: untracked cache, resolve-undo
        // comes with merges, end-of-index and the offset table locate parts of the file.
        &[
            &["config", "core.untrackedCache", "true"],
            &["status", "--porcelain"],
        ],
        &[
            &["config", "index.recordEndOfIndexEntries", "true"],
            &["config", "index.recordOffsetTable", "true"],
            &["config", "index.threads", "2"],
            &["update-index", "--really-refresh"],
            &["add", "-A"],
        ],
        // `index.skipHash`: no checksum to verify.
        &[&["config", "index.skipHash", "true"], &["add", "-A"]],
    ];
    let mut seen = [false; 4];
    for scenario in scenarios {
        let dir = repo_with(scenario);
        let held = same_as_gix(&dir.path().join(".git/index"));
        for (s, h) in seen.iter_mut().zip(held) {
            *s |= h;
        }
    }
    assert_eq!(seen, [true; 4], "every kind of content was met");
    // An index of several pieces (4,000 entries: ~330 KiB, pieces of 256 KiB).
    let dir = repo_of(4_000, &[&["reset", "-q"]]);
    let path = dir.path().join(".git/index");
    assert!(std::fs::metadata(&path).unwrap().len() > PIECE as u64);
    same_as_gix(&path);
}

#[test]
fn version_4_is_read_here_and_split_indexes_are_left_to_gix() {
    let dir = repo_with(&[
        &["update-index", "--skip-worktree", "d001/f0010.txt"],
        &["update-index", "--index-version", "4"],
    ]);
    same_as_gix(&dir.path().join(".git/index"));
    let dir = repo_with(&[&["update-index", "--split-index"]]);
    let got = read_streamed(&dir.path().join(".git/index")).unwrap();
    assert!(matches!(got, Streamed::Unsupported));
}

/// A path of 4 KiB or more has the long-name mark instead of its length; the entry after
/// it starts past the NUL and its padding (gix's decoder misplaces it).
#[test]
fn long_paths_are_read_in_every_version() {
    for version in ["2", "4"] {
        let dir = repo_with(&[]);
        let mut long = String::from("L");
        while long.len() < 3_900 {
            long.push('/');
            long.push_str(&"x".repeat(200));
        }
        std::fs::create_dir_all(dir.path().join(&long)).unwrap();
        let file = format!("{long}/{}", "y".repeat(4_095 - long.len() - 1));
        assert_eq!(file.len(), 4_095);
        // Too long as an absolute path: written relative to the worktree.
        let wrote = Command::new("sh")
            .args(["-c", "echo long > \"$1\"", "sh", &file])
            .current_dir(dir.path())
            .status()
            .unwrap();
        assert!(wrote.success());
        git(dir.path(), &["add", "-A"]);
        git(dir.path(), &["update-index", "--index-version", version]);
        let path = dir.path().join(".git/index");
        let Streamed::Read(decoded) = read_streamed(&path).unwrap() else {
            panic!("version {version}: left to gix");
        };
        let paths: Vec<_> = decoded
            .state
            .entries()
            .iter()
            .map(|e| e.path(&decoded.state).to_string())
            .collect();
        assert!(paths.contains(&file), "version {version}");
        assert!(paths.contains(&"new.txt".to_string()), "version {version}");
        // Written back (in the same version) it is the same file, checksum aside.
        let mut out = Vec::new();
        let v4 = version == "4";
        write_entries(&decoded.state, decoded.tree.as_ref(), None, v4, &mut out).unwrap();
        let data = std::fs::read(&path).unwrap();
        let offset = extensions_offset(&data).unwrap();
        assert_eq!(out[..offset], data[..offset], "version {version}");
    }
}

#[test]
fn varints_round_trip_as_git_encodes_them() {
    for v in [
        0usize,
        1,
        127,
        128,
        129,
        16_383,
        16_384,
        16_511,
        1 << 20,
        usize::MAX >> 8,
    ] {
        let mut out = Vec::new();
        put_varint(&mut out, v);
        match varint(&out) {
            Varint::Value(got, used) => assert_eq!((got, used), (v, out.len())),
            _ => panic!("{v}"),
        }
    }
    // git's encoding of 128 is 0x80 0x00 (each continuation adds one).
    let mut out = Vec::new();
    put_varint(&mut out, 128);
    assert_eq!(out, [0x80, 0x00]);
}

#[test]
fn a_damaged_index_is_refused_or_left_to_gix_never_misread() {
    let dir = repo_with(&[]);
    let path = dir.path().join(".git/index");
    let good = std::fs::read(&path).unwrap();
    // A flipped bit in an entry: the checksum says so.
    let mut flipped = good.clone();
    flipped[200] ^= 0x10;
    std::fs::write(&path, &flipped).unwrap();
    let err = read_streamed(&path).err().expect("refused");
    assert!(err.to_string().contains("bad checksum"), "{err}");
    // Cut short anywhere: refused as truncated or corrupt, or left to gix (which fails).
    for cut in [10, 40, 100, good.len() / 2, good.len() - 21, good.len() - 1] {
        std::fs::write(&path, &good[..cut]).unwrap();
        match read_streamed(&path) {
            Err(e) => assert!(
                e.to_string().contains("truncated") || e.to_string().contains("corrupt"),
                "cut at {cut}: {e}"
            ),
            Ok(Streamed::Unsupported) => {}
            Ok(Streamed::Read(..)) => panic!("cut at {cut}: read as if whole"),
        }
    }
}

#[test]
fn entries_are_written_byte_for_byte_as_gix_writes_them() {
    let gix_bytes = |state: &gix::index::State| {
        let mut out = Vec::new();
        state
            .write_to(
                &mut out,
                gix::index::write::Options {
                    extensions: gix::index::write::Extensions::Given {
                        tree_cache: true,
                        end_of_index_entry: false,
                    },
                    ..Default::default()
                },
            )
            .unwrap();
        out
    };
    let ours = |state: &gix::index::State| {
        let mut out = Vec::new();
        write_entries(state, state.tree(), None, false, &mut out).unwrap();
        out
    };
    let scenarios: &[(usize, &[&[&str]])] = &[
        (300, &[&["reset", "-q"]]),
        (
            300,
            &[
                &["update-index", "--skip-worktree", "d001/f0010.txt"],
                &["add", "-N", "new.txt"],
                &["update-index", "--assume-unchanged", "d002/f0020.txt"],
            ],
        ),
        (4_000, &[]),
    ];
    for (files, scenario) in scenarios {
        let dir = repo_of(*files, scenario);
        let data = std::fs::read(dir.path().join(".git/index")).unwrap();
        let (mut state, _) = gix::index::State::from_bytes(
            &data,
            filetime::FileTime::zero(),
            gix::hash::Kind::Sha1,
            Default::default(),
        )
        .unwrap();
        assert!(ours(&state) == gix_bytes(&state), "{scenario:?}");
        // Entries marked removed are left out, and a long path keeps the long-name mark.
        state.entries_mut()[5].flags.insert(Flags::REMOVE);
        let long = "x/".repeat(2_100) + "f";
        state.dangerously_push_entry(
            Stat::default(),
            ObjectId::null(gix::hash::Kind::Sha1),
            Flags::empty(),
            Mode::FILE,
            long.as_str().into(),
        );
        assert!(ours(&state) == gix_bytes(&state), "{scenario:?}, edited");
    }
}
