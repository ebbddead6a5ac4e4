//! Fuzz target for one front end: the tool-call format (JSON from an agent's tool call), forced
//! (it never takes part in auto mode). Same invariants as `parse` (`check.rs`).

#![no_main]

mod check;

use clada_read::{Dialect, Format};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    check::run(data, &[Dialect::Only(Format::TOOL_CALL), Dialect::Auto]);
});
