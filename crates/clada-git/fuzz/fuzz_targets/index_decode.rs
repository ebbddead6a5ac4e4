//! Fuzz target for the index decoder (`repo::index_stream`): arbitrary bytes are read as an
//! index file; nothing may panic, and whatever decodes is written back and must read back the
//! same (`clada_git::fuzz_index_round_trip`). Seeds: `seeds-index/`, index files git
//! wrote in the states the differential test builds (`tests/cli/index_differential.rs`).

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = clada_git::fuzz_index_round_trip(data);
});
