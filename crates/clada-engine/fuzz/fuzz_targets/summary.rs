//! Fuzz target for the human summary of a parse (`git clada parse --format human`): any reply,
//! read in auto mode, summarised; nothing may panic (columns are counted in UTF-16 units, lines
//! and error spans come from the reading crate's result).

#![no_main]

use clada_read::Dialect;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = clada_read::decode(data) {
        let _ = clada_engine::summary::summary(&clada_read::parse(text, Dialect::Auto));
    }
});
