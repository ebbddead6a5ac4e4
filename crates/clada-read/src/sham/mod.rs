//! The SHAM/NESL front end: SHAM, upper-case NESL and lower-case nesl action blocks.
//!
//! `reference/sham-grammar.md` is the specification; the parser reproduces nesl-js on every
//! valid input, with its exact error codes, positions (UTF-16 columns and lengths) and
//! messages, and says more than it on broken input (`test-data/parser/DIVERGENCES.md`). Its
//! grammar is a line state machine, so it is the scanner's *line* front end (see
//! [`crate::scan`]): it sees every line no block front end took.
//!
//! - `parser.rs`: the state machine (SEEKING, IN_BLOCK, IN_HEREDOC);
//! - `markers.rs`: everything that differs between the three spellings;
//! - `assign.rs`: one `key = value` line;
//! - `diagnose.rs`: the explanations the reports add (near-miss headers, swallowed blocks).

mod assign;
mod diagnose;
mod markers;
mod parser;

pub use diagnose::header_id;

use super::block::Format;
use super::scan::Registration;

impl Format {
    /// `#!SHAM [@three-char-SHA-256: id]` (nesl-js 29e495b).
    pub const SHAM: Format = Format {
        id: "sham",
        name: "SHAM",
        reference: true,
    };
    /// `#!NESL [@three-char-SHA-256: id]` (nesl-js 2414d99, the clada test data).
    pub const NESL_UPPER: Format = Format {
        id: "nesl-upper",
        name: "NESL",
        reference: true,
    };
    /// `#!nesl [@LABEL: id]` (nesl-js e56a0a0).
    pub const NESL: Format = Format {
        id: "nesl",
        name: "nesl",
        reference: true,
    };
}

pub(super) static FRONT_END: Registration = Registration::always(
    &[
        (
            Format::SHAM,
            "Only `#!SHAM [@three-char-SHA-256: id]` … `#!END_SHAM_id`",
        ),
        (
            Format::NESL_UPPER,
            "Only `#!NESL [@three-char-SHA-256: id]` … `#!END_NESL_id`",
        ),
        (Format::NESL, "Only `#!nesl [@LABEL: id]` … `#!end_id`"),
    ],
    // Always part of a parse: under another format's dialect it recognises no header but
    // still reports near-miss headers, as the reports expect.
    |text, only| Box::new(parser::Parser::new(text, only)),
);

/// The markers of a SHAM/NESL block with id `block_id`, to write it back out: (header, end
/// marker, heredoc delimiter); `None` for blocks of the other formats (they keep their source).
pub fn reconstruct_markers(block_id: &str, format: Format) -> Option<(String, String, String)> {
    match format {
        Format::SHAM => Some((
            format!("#!SHAM [@three-char-SHA-256: {block_id}]"),
            format!("#!END_SHAM_{block_id}"),
            format!("EOT_SHAM_{block_id}"),
        )),
        Format::NESL_UPPER => Some((
            format!("#!NESL [@three-char-SHA-256: {block_id}]"),
            format!("#!END_NESL_{block_id}"),
            format!("EOT_NESL_{block_id}"),
        )),
        Format::NESL => Some((
            format!("#!nesl [@three-char-SHA-256: {block_id}]"),
            format!("#!end_{block_id}"),
            format!("EOT_{block_id}"),
        )),
        _ => None,
    }
}
