//! The index decoder's fuzz target (`crates/clada-git/fuzz/fuzz_targets/index_decode.rs`), replayed without a
//! fuzzer: every seed (index files git wrote in the states `index_differential` builds), every
//! one-byte change of each with the checksum turned off (an all-zero trailer is
//! `index.skipHash`, so the change reaches the decoder instead of the checksum), every
//! truncation, and every input the fuzzer once crashed on (`test-data/index/regressions/`).
//! Nothing may panic, and what decodes must round-trip (`repo::fuzz_index_round_trip`).

use std::path::Path;

use clada_git::fuzz_index_round_trip as round_trip;

fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            out.push((name, std::fs::read(e.path()).expect("read seed")));
        }
    }
    out.sort();
    out
}

fn seeds() -> Vec<(String, Vec<u8>)> {
    files(&Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/clada-git/fuzz/seeds-index"))
}

#[test]
fn the_seeds_decode_here_and_round_trip() {
    let seeds = seeds();
    assert!(seeds.len() >= 9, "the seeds are there");
    for (name, data) in &seeds {
        let read = round_trip(data);
        // A sparse index (directory entries) and a conflict-free walk are the only ones
        // left to gix's decoder.
        if name == "sparse-index" {
            assert_eq!(read, None, "{name}");
        } else {
            assert!(read.is_some_and(|n| n > 0), "{name}: {read:?}");
        }
    }
}

#[test]
fn every_one_byte_change_and_truncation_is_read_or_refused_never_a_panic() {
    let mut decoded = 0;
    for (name, data) in seeds() {
        let body = data.len() - 20;
        // Every byte of the header and first entries, then every 11th (a debug build decodes
        // a few thousand files a second).
        for at in (0..body).filter(|at| *at < 256 || at % 11 == 0) {
            for change in [0x01u8, 0x80, 0xff] {
                let mut m = data.clone();
                m[at] ^= change;
                m[body..].fill(0);
                decoded += usize::from(round_trip(&m).is_some());
            }
            let mut zeroed = data.clone();
            zeroed[at] = 0;
            zeroed[body..].fill(0);
            round_trip(&zeroed);
        }
        for len in (0..data.len()).filter(|len| *len < 256 || len % 7 == 0) {
            let mut cut = data[..len].to_vec();
            if len >= 20 {
                let n = cut.len();
                cut[n - 20..].fill(0);
            }
            round_trip(&cut);
        }
        // The file itself, checksum off.
        let mut off = data.clone();
        off[body..].fill(0);
        assert_eq!(round_trip(&off).is_some(), name != "sparse-index", "{name}");
    }
    assert!(
        decoded > 500,
        "the changes reach the decoder ({decoded} decoded)"
    );
}

#[test]
fn the_fuzzers_finds_stay_fixed() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("test-data/index/regressions");
    for (_, data) in files(&dir) {
        round_trip(&data);
    }
}
