//! Locating hunks in a file and building the patched text, for `file_patch`: the rules of the
//! tools that defined the two hunk styles, with every tolerance they (or we) use reported.
//!
//! - unified (`git apply`, GNU `patch`): a hunk's context and removed lines must match exactly;
//!   it is looked for at its header's line (moved by the offset the previous hunk needed), then
//!   at the nearest lines around it, forward first (as `git apply` searches); a hunk without
//!   context after its change is tried at the end of the file first and one that starts at line
//!   1 at the beginning (git's anchoring). Tolerances beyond git's, each a warning: any offset
//!   (git's too, but reported), line endings (CRLF vs LF, the file's missing last line break),
//!   trailing whitespace. Context lines keep the file's bytes.
//! - apply_patch (Codex): an `@@ anchor` line is found first, then the chunk's old lines, forward
//!   from the previous chunk: exactly, then ignoring trailing whitespace, then surrounding
//!   whitespace, then with typographic punctuation normalised (each a warning); a chunk marked
//!   `*** End of File` only at the end; a chunk with no old lines goes to the end of the file
//!   (before a last blank line), as apply_patch does. Removed lines go, added lines come in, and
//!   context lines stay as the file has them.
//!
//! A file's last line break is kept as it was (so it is by a unified hunk unless its
//! `\ No newline at end of file` markers say otherwise); `patch.rs` adds the one apply_patch
//! adds where the configuration wants it. Searches compare position by position while that is
//! cheap and turn to a linear-time search (Knuth–Morris–Pratt over lines, [`occurrences`])
//! when a long chunk nearly matches at many places, so no input makes them quadratic. Pure
//! functions: no I/O.
//!
//! Here: the text, the results and the comparison levels both styles share, and the assembly
//! of the patched text; `unified.rs` places unified hunks, `apply_patch.rs` apply_patch chunks,
//! `search.rs` holds the linear-time search both fall back on.

mod apply_patch;
mod search;
mod unified;

use super::hunks::Hunk;

pub use apply_patch::apply_patch;
pub(super) use search::occurrences;
pub use unified::unified;

/// One line of the file.
#[derive(Debug, Clone, Copy)]
struct Line {
    start: usize,
    /// End of the text without a CR before the LF.
    text_end: usize,
    /// End including the line break.
    end: usize,
}

/// A file's text split into lines.
pub struct Text<'a> {
    bytes: &'a [u8],
    lines: Vec<Line>,
    /// The line break new lines get: the file's dominant one.
    eol: &'static [u8],
}

impl<'a> Text<'a> {
    pub fn new(bytes: &'a [u8]) -> Text<'a> {
        let mut lines = Vec::new();
        let mut start = 0;
        for i in memchr::memchr_iter(b'\n', bytes) {
            let text_end = if i > start && bytes[i - 1] == b'\r' {
                i - 1
            } else {
                i
            };
            lines.push(Line {
                start,
                text_end,
                end: i + 1,
            });
            start = i + 1;
        }
        if start < bytes.len() {
            lines.push(Line {
                start,
                text_end: bytes.len(),
                end: bytes.len(),
            });
        }
        let eol: &[u8] = if super::textmatch::uses_crlf(bytes) {
            b"\r\n"
        } else {
            b"\n"
        };
        Text { bytes, lines, eol }
    }

    pub fn len(&self) -> usize {
        self.lines.len()
    }

    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// Line `i` without its line break (and without a CR before it).
    fn text(&self, i: usize) -> &'a [u8] {
        let l = self.lines[i];
        &self.bytes[l.start..l.text_end]
    }

    /// Line `i` with its line break.
    fn full(&self, i: usize) -> &'a [u8] {
        let l = self.lines[i];
        &self.bytes[l.start..l.end]
    }

    /// Line `i` without its LF (a CR before it kept).
    fn with_cr(&self, i: usize) -> &'a [u8] {
        let l = self.lines[i];
        let end = if l.end > l.start && self.bytes[l.end - 1] == b'\n' {
            l.end - 1
        } else {
            l.end
        };
        &self.bytes[l.start..end]
    }

    /// Byte offset where line `i` starts (the end of the text for `i == len`).
    pub fn offset(&self, i: usize) -> usize {
        self.lines.get(i).map_or(self.bytes.len(), |l| l.start)
    }

    /// The line break new lines get: the file's dominant one.
    pub fn eol(&self) -> &'static [u8] {
        self.eol
    }

    /// Whether the text ends without a line break (and is not empty).
    pub fn unterminated(&self) -> bool {
        !self.bytes.is_empty() && !self.bytes.ends_with(b"\n")
    }
}

/// Lines `first .. first + count` of the file are replaced by `new`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    pub first: usize,
    pub count: usize,
    pub new: Vec<u8>,
}

/// Where every hunk goes, and what was tolerated to put it there.
#[derive(Debug, Default)]
pub struct Located {
    pub edits: Vec<Edit>,
    pub warnings: Vec<String>,
    /// The file's missing last line break is kept (apply_patch style, or a unified hunk that
    /// matched only by ignoring line endings).
    pub keep_last_break: bool,
}

/// A hunk that could not be placed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotFound {
    pub message: String,
    /// What was looked for and what it was to become (for the hint).
    pub old_text: String,
    pub new_text: String,
}

/// How strictly lines are compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Level {
    Exact,
    /// Unified: ignoring CRs and the line break (CRLF vs LF, the last line's break).
    LineEndings,
    /// Trailing whitespace ignored (apply_patch's `rstrip`).
    Trailing,
    /// apply_patch: leading and trailing whitespace ignored.
    Surrounding,
    /// apply_patch: trimmed, and typographic dashes, quotes and spaces read as ASCII.
    Punctuation,
}

impl Level {
    fn tolerance(self) -> &'static str {
        match self {
            Level::Exact => "",
            Level::LineEndings => {
                "only when ignoring line endings (CRLF vs LF, or the line break at the end of the \
                 file)"
            }
            Level::Trailing => "only when ignoring trailing whitespace",
            Level::Surrounding => "only when ignoring leading and trailing whitespace",
            Level::Punctuation => {
                "only when ignoring surrounding whitespace and reading typographic dashes, quotes \
                 and spaces as their ASCII forms"
            }
        }
    }
}

fn trim_end_ws(b: &[u8]) -> &[u8] {
    let n = b
        .iter()
        .rposition(|c| !matches!(c, b' ' | b'\t' | b'\r' | 0x0b | 0x0c))
        .map_or(0, |p| p + 1);
    &b[..n]
}

fn strip_cr(b: &[u8]) -> &[u8] {
    b.strip_suffix(b"\r").unwrap_or(b)
}

/// 1-based line range for messages.
fn lines_word(first: usize, count: usize) -> String {
    match count {
        0 | 1 => format!("line {}", first + 1),
        n => format!("lines {}-{}", first + 1, first + n),
    }
}

pub(super) fn not_found(h: &Hunk, message: String) -> NotFound {
    let join =
        |it: &mut dyn Iterator<Item = &str>| -> String { it.map(|l| format!("{l}\n")).collect() };
    NotFound {
        message,
        old_text: join(&mut h.old_lines()),
        new_text: join(&mut h.new_lines()),
    }
}

/// The patched text: `edits` (sorted, not overlapping) applied to `text`. With
/// `keep_last_break`, a text that did not end with a line break still does not.
pub fn assemble(text: &Text<'_>, edits: &[Edit], keep_last_break: bool) -> Vec<u8> {
    let mut out =
        Vec::with_capacity(text.bytes.len() + edits.iter().map(|e| e.new.len()).sum::<usize>());
    let mut next = 0usize;
    let copy = |out: &mut Vec<u8>, from: usize, to: usize| {
        out.extend_from_slice(&text.bytes[text.offset(from)..text.offset(to)]);
    };
    for e in edits {
        if e.first > next {
            copy(&mut out, next, e.first);
        }
        if !e.new.is_empty() && !out.is_empty() && !out.ends_with(b"\n") {
            // The file's unterminated last line is no longer last.
            out.extend_from_slice(text.eol);
        }
        out.extend_from_slice(&e.new);
        next = next.max(e.first + e.count);
    }
    if next < text.len() {
        if !out.is_empty() && !out.ends_with(b"\n") {
            out.extend_from_slice(text.eol);
        }
        copy(&mut out, next, text.len());
    }
    if keep_last_break && text.unterminated() {
        if out.ends_with(b"\r\n") {
            out.truncate(out.len() - 2);
        } else if out.ends_with(b"\n") {
            out.truncate(out.len() - 1);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::hunks::{parse, Style};
    use super::*;

    fn unified_apply(file: &str, hunks: &str) -> Result<(String, Vec<String>), String> {
        let t = Text::new(file.as_bytes());
        let h = parse(hunks, Style::Unified)?;
        let l = unified(&t, &h).map_err(|e| e.message)?;
        let out = assemble(&t, &l.edits, l.keep_last_break);
        Ok((String::from_utf8(out).unwrap(), l.warnings))
    }

    fn codex_apply(file: &str, hunks: &str) -> Result<(String, Vec<String>), String> {
        let t = Text::new(file.as_bytes());
        let h = parse(hunks, Style::ApplyPatch)?;
        let l = apply_patch(&t, &h).map_err(|e| format!("{e:?}"))?;
        let out = assemble(&t, &l.edits, l.keep_last_break);
        Ok((String::from_utf8(out).unwrap(), l.warnings))
    }

    #[test]
    fn unified_exact_and_offset() {
        let file = "a\nb\nc\nd\ne\n";
        let (out, w) = unified_apply(file, "@@ -2,2 +2,2 @@\n b\n-c\n+C\n").unwrap();
        assert_eq!(out, "a\nb\nC\nd\ne\n");
        assert!(w.is_empty(), "{w:?}");
        let (out, w) = unified_apply(file, "@@ -1,2 +1,2 @@\n d\n-e\n+E\n").unwrap();
        assert_eq!(out, "a\nb\nc\nd\nE\n");
        assert!(w[0].contains("offset +3"), "{w:?}");
    }

    #[test]
    fn unified_no_newline_markers_and_crlf() {
        let (out, w) = unified_apply(
            "a\nb",
            "@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n",
        )
        .unwrap();
        assert_eq!(out, "a\nc\n");
        assert!(w.is_empty());
        // LF hunk on a CRLF file: matched ignoring line endings, CRLF kept.
        let (out, w) = unified_apply("a\r\nb\r\n", "@@ -1,2 +1,2 @@\n a\n-b\n+c\n").unwrap();
        assert_eq!(out, "a\r\nc\r\n");
        assert!(w[0].contains("line endings"), "{w:?}");
        // The hunk as git diff writes it for a CRLF file: exact.
        let (out, w) = unified_apply("a\r\nb\r\n", "@@ -1,2 +1,2 @@\n a\r\n-b\r\n+c\r\n").unwrap();
        assert_eq!(out, "a\r\nc\r\n");
        assert!(w.is_empty(), "{w:?}");
    }

    #[test]
    fn unified_prefers_the_end_for_a_hunk_without_trailing_context() {
        let (out, _) = unified_apply("x\ny\nx\n", "@@ -1,1 +1,2 @@\n x\n+z\n").unwrap();
        assert_eq!(out, "x\ny\nx\nz\n");
    }

    #[test]
    fn apply_patch_cascade_and_pure_additions() {
        let (out, w) = codex_apply("a  \nb\n", "@@\n-a\n+A\n").unwrap();
        assert_eq!(out, "A\nb\n");
        assert!(w[0].contains("trailing whitespace"), "{w:?}");
        let (out, w) = codex_apply("a\nb\nc\n", "@@ b\n+X\n").unwrap();
        assert_eq!(out, "a\nb\nc\nX\n");
        assert!(w[0].contains("end of the file"), "{w:?}");
        let (out, _) = codex_apply("x\ny\nx\n", "@@\n-x\n+Z\n*** End of File\n").unwrap();
        assert_eq!(out, "x\ny\nZ\n");
        let (out, _) = codex_apply("a\nb", "@@\n a\n-b\n+c\n").unwrap();
        assert_eq!(out, "a\nc", "the missing last line break is kept");
        let (out, _) = codex_apply("a\r\nb\r\n", "@@\n a\n-b\n+c\n+d\n").unwrap();
        assert_eq!(out, "a\r\nc\r\nd\r\n");
        assert!(codex_apply("a\n", "@@ nope\n-a\n+b\n").is_err());
    }

    #[test]
    fn occurrences_finds_every_match_in_one_pass() {
        assert_eq!(occurrences(&[1, 1, 1, 2], &[1, 1], false), [0, 1]);
        assert_eq!(occurrences(&[1, 2, 1, 2, 1], &[1, 2, 1], false), [0, 2]);
        assert_eq!(occurrences(&[1, 2, 1, 2, 1], &[1, 2, 1], true), [0]);
        assert!(occurrences(&[1, 2], &[1, 2, 3], false).is_empty());
        assert!(occurrences::<u8>(&[1], &[], false).is_empty());
    }

    #[test]
    fn long_near_misses_are_placed_as_before() {
        // Runs of 99 equal lines: a chunk of 100 of them is nowhere, one of 99 at each run;
        // the search turns linear well before the end and must agree with the direct one.
        let mut file = String::new();
        for r in 0..60 {
            file.push_str(&"    pass\n".repeat(99));
            file.push_str(&format!("# end {r}\n"));
        }
        let chunk = |n: usize, tail: &str| format!("@@\n{}{tail}", "-    pass\n".repeat(n));
        assert!(codex_apply(&file, &chunk(100, "+x\n")).is_err());
        let (out, _) = codex_apply(&file, &chunk(99, " # end 30\n+x\n")).unwrap();
        assert!(out.contains("# end 29\n# end 30\nx\n    pass\n"));
        assert_eq!(out.lines().count(), 6000 - 98);
        let diff = format!("@@ -1,100 +1,1 @@\n{}+x\n", "-    pass\n".repeat(100));
        assert!(unified_apply(&file, &diff).is_err());
        // Its header says line 1: git's order goes through thirty runs before the place.
        let diff = format!(
            "@@ -1,100 +1,2 @@\n{}-# end 30\n+# end 30\n+x\n",
            "-    pass\n".repeat(99)
        );
        let (out, w) = unified_apply(&file, &diff).unwrap();
        assert!(out.contains("# end 29\n# end 30\nx\n    pass\n"));
        assert!(w[0].contains("offset +3000"), "{w:?}");
    }

    #[test]
    fn punctuation_is_normalised_last() {
        let (out, w) = codex_apply("x \u{2013} y\n", "@@\n-x - y\n+z\n").unwrap();
        assert_eq!(out, "z\n");
        assert!(w[0].contains("typographic"), "{w:?}");
    }
}
