//! Fuzz target for one front end: the CML format forced, and auto mode (where it meets the
//! other formats). Same invariants as `parse` (`check.rs`).

#![no_main]

mod check;

use clada_read::{Dialect, Format};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    check::run(data, &[Dialect::Only(Format::CML), Dialect::Auto]);
});
