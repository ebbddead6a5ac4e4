//! Fuzz target: arbitrary bytes through strict UTF-8 decoding and the block parser in every
//! dialect (SHAM/NESL spellings and the CSL, CML and replacer front ends). Besides "no panic",
//! it checks the invariants callers rely on (`check.rs`).

#![no_main]

mod check;

use git_clada::block::Dialect;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    check::run(
        data,
        &[
            Dialect::Auto,
            Dialect::Sham,
            Dialect::NeslUpper,
            Dialect::Nesl,
            Dialect::Csl,
            Dialect::Cml,
            Dialect::Replacer,
        ],
    );
});
