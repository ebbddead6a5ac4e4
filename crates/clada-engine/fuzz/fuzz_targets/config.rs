//! Fuzz target for the configuration reader; the checks are in `config_check.rs`.

#![no_main]

#[path = "config_check.rs"]
mod config_check;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| config_check::run(data));
