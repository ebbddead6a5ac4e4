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
//!   `cml.rs`, `replacer.rs`, the formats models write today: `aider.rs` (SEARCH/REPLACE),
//!   `apply_patch.rs` (Codex), `diff.rs` (unified diffs), and `tool_call.rs` (JSON from agents'
//!   tool calls, read only when forced); each registered once in [`FRONT_ENDS`];
//! - [`detect`]: block-like text in a reply where no block was read;
//! - [`input`]: a reply in memory (size limit, UTF-8 but for a unified diff's hunks, whose other
//!   bytes [`raw`] carries as escaped bytes); [`leftover`]: the pre-commit check
//!   for block markers left in source files; [`text`]: the edit distance behind every "did you
//!   mean".
//!
//! Nothing here sees the repository, the file system, the sandbox or the actions: a front end
//! maps its syntax onto an `action` property and that action's parameters, and git-clada's
//! planning does the rest. This is git-clada's reading layer as a library of its own, for any
//! tool that reads the edit formats LLMs write; see the crate's README and `examples/`.

mod aider;
mod apply_patch;
pub mod binary;
pub mod block;
mod cml;
mod csl;
pub mod detect;
mod diff;
pub mod input;
pub mod leftover;
pub(crate) mod lines;
pub mod raw;
mod replacer;
pub(crate) mod scan;
mod sham;
pub mod text;
mod tool_call;

pub use block::*;
pub use lines::{char_index_at_utf16, len16};
pub use sham::{header_id, reconstruct_markers};

use scan::Registration;

/// Every front end, in the order the scanner asks them. Adding a format is one file and one
/// line here.
const FRONT_ENDS: &[&Registration] = &[
    &sham::FRONT_END,
    &csl::FRONT_END,
    &cml::FRONT_END,
    &replacer::FRONT_END,
    &tool_call::FRONT_END,
    &aider::FRONT_END,
    &apply_patch::FRONT_END,
    &diff::FRONT_END,
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
///
/// A byte order mark at the start of the reply (an editor's UTF-8 signature) is not part of
/// its first line.
///
/// Bytes that are not UTF-8, escaped by [`input::decode_reply`] ([`raw`]), may stand only in
/// the lines of a unified diff's hunks: anywhere else the reply is not read (one fatal
/// `NOT_UTF8` error, no block), as every other format and prose are UTF-8 only.
pub fn parse(text: &str, dialect: Dialect) -> ParseResult {
    let bom = text.starts_with('\u{feff}');
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut result = scan_with(text, dialect);
    if let Some(at) = stray(text, &mut result) {
        return not_utf8(text, at, bom);
    }
    if result.blocks.is_empty() && result.errors.is_empty() {
        result.notices.extend(detect::block_like(text, dialect));
    }
    if let Dialect::Only(f) = dialect {
        // The SHAM/NESL spellings keep the reference parser's output exactly; a tool call is
        // JSON, not reply text, and is read only when forced (no second parse for it).
        if !result.blocks.is_empty() && !f.is_nesl() && f != Format::TOOL_CALL {
            warn_unread(text, f, &mut result);
        }
    }
    result
}

/// The offset of the first escaped byte of `text` outside the spans `result`'s diffs allow.
fn stray(text: &str, result: &mut ParseResult) -> Option<usize> {
    if !raw::has_escapes(text) {
        return None;
    }
    result.raw_spans.sort_by_key(|r| r.start);
    raw::outside(text, &result.raw_spans)
}

/// The reply's refusal for the escaped byte at `at`: where it was in the bytes read.
fn not_utf8(text: &str, at: usize, bom: bool) -> ParseResult {
    let err = stray_error(text, at, bom);
    let line = err.line;
    let before = text.get(..at).unwrap_or_default();
    let column = len16(&before[before.rfind('\n').map_or(0, |i| i + 1)..]) + 1;
    let mut e = scan::error(
        ErrorCode::NotUtf8,
        text,
        1,
        line,
        column,
        None,
        err.to_string(),
    );
    e.content = raw::shown(&e.content).into_owned();
    e.context = raw::shown(&e.context).into_owned();
    ParseResult {
        errors: vec![e],
        ..ParseResult::default()
    }
}

fn stray_error(text: &str, at: usize, bom: bool) -> InvalidUtf8 {
    let (offset, byte, line) = raw::origin(text, at);
    InvalidUtf8 {
        offset: offset + if bom { 3 } else { 0 },
        byte,
        line,
    }
}

/// The first byte of `text` that is not UTF-8 (escaped, [`raw`]) where a parse with `dialect`
/// allows none ([`parse`]): what a reply read from bytes is refused with.
pub fn stray_byte(text: &str, dialect: Dialect) -> Option<InvalidUtf8> {
    let bom = text.starts_with('\u{feff}');
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut result = scan_with(text, dialect);
    stray(text, &mut result).map(|at| stray_error(text, at, bom))
}

fn scan_with(text: &str, dialect: Dialect) -> ParseResult {
    let only = match dialect {
        Dialect::Auto => None,
        Dialect::Only(f) => Some(f),
    };
    let front_ends = FRONT_ENDS
        .iter()
        .filter_map(|r| r.start(text, only))
        .collect();
    scan::scan(text, front_ends)
}

/// With `--dialect`, blocks of the other formats are not read; the first block read says how
/// many there were (and where), so a mixed reply is not half applied in silence.
fn warn_unread(text: &str, only: Format, result: &mut ParseResult) {
    let read = &result.blocks;
    let overlaps = |b: &Block| {
        let end = b.end_line.unwrap_or(b.start_line);
        read.iter()
            .any(|r| r.start_line <= end && b.start_line <= r.end_line.unwrap_or(r.start_line))
    };
    let all = scan_with(text, Dialect::Auto);
    let others: Vec<&Block> = all
        .blocks
        .iter()
        .filter(|b| b.format != only && !overlaps(b))
        .collect();
    let Some(first) = others.first() else {
        return;
    };
    let mut formats: Vec<&str> = Vec::new();
    for b in &others {
        if !formats.contains(&b.format.name) {
            formats.push(b.format.name);
        }
    }
    let message = format!(
        "--dialect {}: {} block{} of other formats in this reply {} not read ({}, the first at \
         line {}); run without --dialect to read every format",
        only.id,
        others.len(),
        if others.len() == 1 { "" } else { "s" },
        if others.len() == 1 { "was" } else { "were" },
        formats.join(", "),
        first.start_line
    );
    if let Some(b) = result.blocks.first_mut() {
        b.warnings.push(message);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_leading_byte_order_mark_is_skipped() {
        for reply in [
            "\u{feff}a.py\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n",
            "\u{feff}#!nesl [@three-char-SHA-256: abc]\naction = \"file_delete\"\npath = \"a\"\n#!end_abc\n",
            "\u{feff}--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n",
        ] {
            let r = parse(reply, Dialect::Auto);
            assert_eq!(r.blocks.len(), 1, "{reply:?}: {:?}", r.errors);
            assert!(r.errors.is_empty() && r.notices.is_empty(), "{reply:?}");
        }
    }

    #[test]
    fn a_forced_dialect_warns_about_the_blocks_it_left() {
        let reply = "a.py\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n\n--- a/b\n+++ b/b\n@@ -1 +1 @@\n-a\n+b\n";
        let r = parse(reply, Dialect::Only(Format::AIDER));
        assert_eq!(r.blocks.len(), 1);
        assert_eq!(
            r.blocks[0].warnings,
            [
                "--dialect aider: 1 block of other formats in this reply was not read (unified \
              diff, the first at line 8); run without --dialect to read every format"
            ]
        );
        // Nothing else in the reply: no warning.
        let r = parse(
            "a.py\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n",
            Dialect::Only(Format::AIDER),
        );
        assert!(r.blocks[0].warnings.is_empty());
    }

    /// Which front ends a parse starts: every one but the tool call's when no format is
    /// forced; under `--dialect` the one that owns the format, and the SHAM/NESL one, which
    /// reports near-miss headers whatever the dialect.
    #[test]
    fn a_parse_starts_the_front_ends_its_dialect_asks_for() {
        let owner = |f: Format| {
            FRONT_ENDS
                .iter()
                .position(|r| r.formats.iter().any(|(g, _)| *g == f))
        };
        let started = |only: Option<Format>| -> Vec<usize> {
            FRONT_ENDS
                .iter()
                .enumerate()
                .filter_map(|(i, r)| r.start("", only).map(|_| i))
                .collect()
        };
        let sham = owner(Format::SHAM);
        let tool_call = owner(Format::TOOL_CALL);
        let all: Vec<usize> = (0..FRONT_ENDS.len())
            .filter(|i| Some(*i) != tool_call)
            .collect();
        assert_eq!(started(None), all);
        for (f, _) in formats() {
            let mut want: Vec<usize> = sham.into_iter().chain(owner(f)).collect();
            want.dedup();
            assert_eq!(started(Some(f)), want, "--dialect {}", f.id);
        }
    }
}
