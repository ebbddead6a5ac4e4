//! Fuzz target: arbitrary bytes through strict UTF-8 decoding and the block parser in every
//! dialect (SHAM/NESL spellings and the CSL, CML and replacer front ends). Besides "no panic",
//! it checks the invariants callers rely on (`check.rs`).

#![no_main]

mod check;

use clada_read::{Dialect, Format};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    check::run(
        data,
        &[
            Dialect::Auto,
            Dialect::Only(Format::SHAM),
            Dialect::Only(Format::NESL_UPPER),
            Dialect::Only(Format::NESL),
            Dialect::Only(Format::CSL),
            Dialect::Only(Format::CML),
            Dialect::Only(Format::REPLACER),
        ],
    );
});
