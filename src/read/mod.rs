//! Reading replies: the layer that turns reply text into format-neutral [`Block`]s and
//! [`ParseError`]s, with one front end per format.
//!
//! ```text
//! reply text ─▶ scan (one walk over the lines) ─▶ front ends ─▶ ParseResult { blocks, errors, notices }
//! ```
//!
//! - [`block`]: the neutral result types every front end produces and everything above reads;
//! - [`scan`](self::scan): the scanner and the [`scan::FrontEnd`] trait;
//! - one room per format: `sham/` (SHAM, NESL, nesl: the reference grammar, exact), `csl.rs`,
//!   `cml.rs`, `replacer.rs`, `tool_call.rs` (JSON from agents' tool calls, read only when
//!   forced); each registered once in [`FRONT_ENDS`];
//! - [`detect`]: block-like text in a reply where no block was read;
//! - [`input`]: reading the reply (size limit, strict UTF-8); [`leftover`]: the pre-commit check
//!   for block markers left in source files; [`summary`]: the human rendering of a parse.
//!
//! Nothing here sees the repository, the sandbox or the actions: a front end maps its syntax
//! onto an `action` property and that action's parameters, and planning (`crate::action`)
//! does the rest.

pub mod block;
mod cml;
mod csl;
pub mod detect;
pub mod input;
pub mod leftover;
pub(crate) mod lines;
mod replacer;
pub(crate) mod scan;
mod sham;
mod summary;
mod tool_call;

pub use block::*;
pub use lines::{char_index_at_utf16, len16};
pub use sham::{header_id, reconstruct_markers};
pub use summary::summary;

use scan::Registration;

/// Every front end, in the order the scanner asks them. Adding a format is one file and one
/// line here.
const FRONT_ENDS: &[&Registration] = &[
    &sham::FRONT_END,
    &csl::FRONT_END,
    &cml::FRONT_END,
    &replacer::FRONT_END,
    &tool_call::FRONT_END,
];

/// Every format that can be read, in registration order, with its `--dialect` help text.
pub fn formats() -> impl Iterator<Item = (Format, &'static str)> {
    FRONT_ENDS.iter().flat_map(|r| r.formats.iter().copied())
}

/// The format whose `id` is `id` (`csl`, `nesl-upper`, …).
pub fn format_by_id(id: &str) -> Option<Format> {
    formats().map(|(f, _)| f).find(|f| f.id == id)
}

/// Parses reply text. Never fails: every problem is a [`ParseError`].
///
/// Linear in the input: one pass over the lines, allocation only for what the result holds.
/// Each block is read by the front end its opening marker belongs to, unless `dialect` forces
/// one format. A reply in which no block of any format was read gets a notice for each
/// block-like line ([`detect`]).
pub fn parse(text: &str, dialect: Dialect) -> ParseResult {
    let only = match dialect {
        Dialect::Auto => None,
        Dialect::Only(f) => Some(f),
    };
    let front_ends = FRONT_ENDS
        .iter()
        .filter_map(|r| (r.start)(text, only))
        .collect();
    let mut result = scan::scan(text, front_ends);
    if result.blocks.is_empty() && result.errors.is_empty() {
        result.notices.extend(detect::block_like(text, dialect));
    }
    result
}
