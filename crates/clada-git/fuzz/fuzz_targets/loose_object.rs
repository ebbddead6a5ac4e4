//! Fuzz target for the loose-object writer (`clada_git` `odb::compress`): arbitrary bytes,
//! written as a loose object at the level the first byte picks (stored blocks at 0 and 1 for
//! small objects, zlib above), must inflate back to exactly themselves
//! (`clada_git::fuzz_loose_round_trip`). git's side of the format is the differential test
//! `odb::tests::stored_small_objects_are_read_and_checked_by_git`.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&first, rest)) = data.split_first() else {
        return;
    };
    let level = i32::from(first % 10);
    if let Err(e) = clada_git::fuzz_loose_round_trip(rest, level) {
        panic!("{e}");
    }
});
