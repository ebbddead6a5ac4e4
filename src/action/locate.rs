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

use std::borrow::Cow;
use std::collections::HashMap;

use super::hunks::{Hunk, Kind};

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

// ---------------------------------------------------------------------------------------------
// unified

/// A line of the file as a unified hunk's line is compared with it at `level`: exactly with
/// its line break; without CRs and the line break; without trailing whitespace.
fn unified_key<'b>(text: &Text<'b>, i: usize, level: Level) -> &'b [u8] {
    match level {
        Level::Exact => text.full(i),
        Level::LineEndings => strip_cr(text.with_cr(i)),
        _ => trim_end_ws(text.with_cr(i)),
    }
}

/// The old side of a hunk as [`unified_key`] gives the file's lines (the last one without a
/// line break when `\ No newline at end of file` follows it).
fn unified_want<'h>(old: &[&'h str], no_eol: bool, level: Level) -> Vec<Cow<'h, [u8]>> {
    old.iter()
        .enumerate()
        .map(|(k, want)| {
            let want = want.as_bytes();
            match level {
                Level::Exact if k + 1 == old.len() && no_eol => Cow::Borrowed(want),
                Level::Exact => {
                    let mut w = want.to_vec();
                    w.push(b'\n');
                    Cow::Owned(w)
                }
                Level::LineEndings => Cow::Borrowed(strip_cr(want)),
                _ => Cow::Borrowed(trim_end_ws(want)),
            }
        })
        .collect()
}

/// Every start of `needle` in `hay`, overlapping ones included, in one pass
/// (Knuth–Morris–Pratt); only the first with `first_only`.
pub(super) fn occurrences<T: PartialEq>(hay: &[T], needle: &[T], first_only: bool) -> Vec<usize> {
    let m = needle.len();
    let mut out = Vec::new();
    if m == 0 || m > hay.len() {
        return out;
    }
    // fail[i]: the length of the longest proper prefix of needle[..=i] that is also its suffix.
    let mut fail = vec![0usize; m];
    let mut j = 0;
    for i in 1..m {
        while j > 0 && needle[i] != needle[j] {
            j = fail[j - 1];
        }
        if needle[i] == needle[j] {
            j += 1;
        }
        fail[i] = j;
    }
    let mut j = 0;
    for (i, x) in hay.iter().enumerate() {
        while j > 0 && *x != needle[j] {
            j = fail[j - 1];
        }
        if *x == needle[j] {
            j += 1;
        }
        if j == m {
            out.push(i + 1 - m);
            if first_only {
                break;
            }
            j = fail[j - 1];
        }
    }
    out
}

/// Positions to try for a hunk, best first: the anchored ones, then nearest to `expected`
/// (forward first, as `git apply` searches), within `min ..= max`. Lazy: the first match ends
/// the search.
fn unified_order(
    expected: usize,
    min: usize,
    max: usize,
    anchored: Vec<usize>,
) -> impl Iterator<Item = usize> {
    let e = expected.clamp(min, max);
    anchored
        .into_iter()
        .filter(move |p| (min..=max).contains(p))
        .chain(std::iter::once(e))
        .chain((1..=max - min).flat_map(move |d| {
            let fwd = (e + d <= max).then_some(e + d);
            let back = (e >= min + d).then(|| e - d);
            fwd.into_iter().chain(back)
        }))
}

/// The new lines of a unified hunk placed at `pos`: context lines as the file has them, added
/// lines as the hunk has them (with the file's line break when matched by a tolerance).
fn unified_new(text: &Text<'_>, h: &Hunk, pos: usize, level: Level) -> Vec<u8> {
    let mut out = Vec::new();
    let mut k = 0;
    let added_last = h.lines.iter().rposition(|(kind, _)| *kind != Kind::Removed);
    for (j, (kind, line)) in h.lines.iter().enumerate() {
        match kind {
            Kind::Context => {
                out.extend_from_slice(text.full(pos + k));
                k += 1;
            }
            Kind::Removed => k += 1,
            Kind::Added => {
                let no_eol = h.new_no_eol && Some(j) == added_last;
                if level == Level::Exact {
                    out.extend_from_slice(line.as_bytes());
                    if !no_eol {
                        out.push(b'\n');
                    }
                } else {
                    out.extend_from_slice(strip_cr(line.as_bytes()));
                    if !no_eol {
                        out.extend_from_slice(text.eol);
                    }
                }
            }
        }
    }
    out
}

/// Places unified hunks (`git apply` / `patch` rules, see the module doc).
pub fn unified(text: &Text<'_>, hunks: &[Hunk]) -> Result<Located, NotFound> {
    let mut out = Located::default();
    let mut min = 0usize;
    let mut delta: isize = 0;
    for (i, h) in hunks.iter().enumerate() {
        let old: Vec<&str> = h.old_lines().collect();
        let n = old.len();
        let base = h.old.map(|(start, _)| {
            if n == 0 {
                start
            } else {
                start.saturating_sub(1)
            }
        });
        if n == 0 {
            let pos = insertion(
                text,
                h,
                i,
                base,
                (base.unwrap_or(0) as isize + delta).max(min as isize) as usize,
            )?;
            out.edits.push(Edit {
                first: pos,
                count: 0,
                new: unified_new(text, h, pos, Level::Exact),
            });
            min = pos;
            continue;
        }
        let expected = base.map_or(min, |b| (b as isize + delta).max(0) as usize);
        let Some((pos, level)) = place_unified(text, h, &old, min, base.map(|_| expected)) else {
            let after = if i > 0 {
                format!(" after line {min}, where the hunk before it ended")
            } else {
                String::new()
            };
            return Err(not_found(
                h,
                format!(
                    "{} does not apply: its {n} context and removed lines were not found in the \
                     file{after}",
                    h.name(i)
                ),
            ));
        };
        match base {
            Some(b) if pos != b => out.warnings.push(format!(
                "{} applied at {} (offset {:+} lines from its header)",
                h.name(i),
                lines_word(pos, n),
                pos as isize - b as isize
            )),
            Some(_) => {}
            None => out.warnings.push(format!(
                "{} has no line numbers; it was placed by its context, at {}",
                h.name(i),
                lines_word(pos, n)
            )),
        }
        if level != Level::Exact {
            out.keep_last_break |= level == Level::LineEndings;
            out.warnings.push(format!(
                "{} matched {} {}; the file's own lines were kept as context",
                h.name(i),
                lines_word(pos, n),
                level.tolerance()
            ));
        }
        if let Some(b) = base {
            delta = pos as isize - b as isize;
        }
        out.edits.push(Edit {
            first: pos,
            count: n,
            new: unified_new(text, h, pos, level),
        });
        min = pos + n;
    }
    Ok(out)
}

/// Where a hunk that only adds lines goes: after its header's old line (`at`, already moved by
/// the offset before it), which it must give.
fn insertion(
    text: &Text<'_>,
    h: &Hunk,
    i: usize,
    base: Option<usize>,
    at: usize,
) -> Result<usize, NotFound> {
    let Some(base) = base else {
        return Err(not_found(
            h,
            format!(
                "{} has no context or removed lines and no line numbers, so there is no telling \
                 where its lines go: give its header (`@@ -LINE,0 +LINE,COUNT @@`) or a line of \
                 context",
                h.name(i)
            ),
        ));
    };
    if at > text.len() {
        return Err(not_found(
            h,
            format!(
                "{} adds lines after line {base}, but the file has {} lines",
                h.name(i),
                text.len()
            ),
        ));
    }
    Ok(at)
}

/// The place of a hunk with old lines `old`, not before `min`: the first position, at the
/// strictest level that has one, in the order `git apply` tries them (from `expected` when the
/// header has numbers, else forward from `min`).
fn place_unified(
    text: &Text<'_>,
    h: &Hunk,
    old: &[&str],
    min: usize,
    expected: Option<usize>,
) -> Option<(usize, Level)> {
    let n = old.len();
    if n > text.len() || min > text.len() - n {
        return None;
    }
    let max = text.len() - n;
    let mut anchored = Vec::new();
    if h.trailing_context() == 0 {
        anchored.push(max);
    }
    if h.old.is_some_and(|(start, _)| start <= 1) {
        anchored.push(0);
    }
    let order = || -> Box<dyn Iterator<Item = usize>> {
        match expected {
            Some(e) => Box::new(unified_order(e, min, max, anchored.clone())),
            None => Box::new(min..=max),
        }
    };
    [Level::Exact, Level::LineEndings, Level::Trailing]
        .into_iter()
        .find_map(|level| {
            let want = unified_want(old, h.old_no_eol, level);
            // Position by position in `git apply`'s order while that is cheap (a mismatch
            // usually shows on the first line); then every match at once, in linear time.
            let budget = DIRECT_WORK * (text.len() + n);
            let mut work = 0usize;
            for p in order() {
                let same = want
                    .iter()
                    .enumerate()
                    .take_while(|(k, w)| unified_key(text, p + k, level) == w.as_ref())
                    .count();
                if same == n {
                    return Some((p, level));
                }
                work += same + 1;
                if work > budget {
                    let hay: Vec<&[u8]> = (0..text.len())
                        .map(|i| unified_key(text, i, level))
                        .collect();
                    let want: Vec<&[u8]> = want.iter().map(|w| w.as_ref()).collect();
                    let found = occurrences(&hay, &want, false);
                    return order()
                        .find(|p| found.binary_search(p).is_ok())
                        .map(|p| (p, level));
                }
            }
            None
        })
}

fn not_found(h: &Hunk, message: String) -> NotFound {
    let join =
        |it: &mut dyn Iterator<Item = &str>| -> String { it.map(|l| format!("{l}\n")).collect() };
    NotFound {
        message,
        old_text: join(&mut h.old_lines()),
        new_text: join(&mut h.new_lines()),
    }
}

// ---------------------------------------------------------------------------------------------
// apply_patch

/// apply_patch's last resort: surrounding whitespace trimmed, typographic dashes, quotes and
/// odd spaces read as their ASCII forms.
fn normalise(s: &str) -> String {
    s.trim()
        .chars()
        .map(|c| match c {
            '\u{2010}'..='\u{2015}' | '\u{2212}' => '-',
            '\u{2018}'..='\u{201B}' => '\'',
            '\u{201C}'..='\u{201F}' => '"',
            '\u{00A0}' | '\u{2002}'..='\u{200A}' | '\u{202F}' | '\u{205F}' | '\u{3000}' => ' ',
            other => other,
        })
        .collect()
}

/// A line as apply_patch compares it at `level`.
fn key(l: &str, level: Level) -> Cow<'_, str> {
    match level {
        Level::Exact | Level::LineEndings => Cow::Borrowed(l),
        Level::Trailing => Cow::Borrowed(l.trim_end()),
        Level::Surrounding => Cow::Borrowed(l.trim()),
        Level::Punctuation => Cow::Owned(normalise(l)),
    }
}

const LEVELS: [Level; 4] = [
    Level::Exact,
    Level::Trailing,
    Level::Surrounding,
    Level::Punctuation,
];

/// Line comparisons a search makes position by position, per line of the file and the
/// chunk, before it turns to a linear-time search.
const DIRECT_WORK: usize = 8;

/// The file's lines as apply_patch compares them. A chunk is looked for position by position
/// (a mismatch usually shows on its first line or two); when that costs more than a few
/// comparisons per line (a long chunk that nearly matches at many places), the search goes on
/// in linear time (Knuth–Morris–Pratt over the lines), so a long chunk that is nowhere in a
/// long file is refused in time proportional to their sizes, not to their product.
struct Seeker<'t> {
    lines: &'t [&'t str],
}

impl<'t> Seeker<'t> {
    fn new(lines: &'t [&'t str]) -> Seeker<'t> {
        Seeker { lines }
    }

    /// The first position in `from ..= last` where `pattern` matches at `level`.
    fn first(&self, pattern: &[&str], from: usize, last: usize, level: Level) -> Option<usize> {
        let lines = self.lines;
        let want: Vec<Cow<'_, str>> = pattern.iter().map(|p| key(p, level)).collect();
        let budget = DIRECT_WORK * (lines.len() + pattern.len());
        let mut work = 0usize;
        let mut i = from;
        while i <= last {
            let same = want
                .iter()
                .enumerate()
                .take_while(|(k, w)| key(lines[i + k], level) == **w)
                .count();
            if same == want.len() {
                return Some(i);
            }
            work += same + 1;
            i += 1;
            if work > budget {
                return self.linear(&want, i, last, level);
            }
        }
        None
    }

    /// [`Seeker::first`] in linear time: the lines become numbers (the pattern's distinct
    /// keys; a file line that is none of them can never match), then [`occurrences`].
    fn linear(
        &self,
        want: &[Cow<'_, str>],
        from: usize,
        last: usize,
        level: Level,
    ) -> Option<usize> {
        if from > last {
            return None;
        }
        let mut ids: HashMap<&str, u32> = HashMap::new();
        let pattern: Vec<u32> = want
            .iter()
            .map(|w| {
                let next = ids.len() as u32;
                *ids.entry(w.as_ref()).or_insert(next)
            })
            .collect();
        let hay: Vec<u32> = self.lines[from..last + want.len()]
            .iter()
            .map(|l| ids.get(key(l, level).as_ref()).copied().unwrap_or(u32::MAX))
            .collect();
        occurrences(&hay, &pattern, true).first().map(|i| from + i)
    }

    /// apply_patch's `seek_sequence`: the first place at or after `start` where `pattern`
    /// occurs, trying each level in turn over the whole range; with `eof`, only at the end of
    /// the file.
    fn seek(&self, pattern: &[&str], start: usize, eof: bool) -> Option<(usize, Level)> {
        if pattern.is_empty() {
            return Some((start, Level::Exact));
        }
        if pattern.len() > self.lines.len() {
            return None;
        }
        let last = self.lines.len() - pattern.len();
        // With `eof`, only at the end, and never before the previous chunk's end.
        let from = if eof { last.max(start) } else { start };
        LEVELS
            .into_iter()
            .find_map(|level| self.first(pattern, from, last, level).map(|i| (i, level)))
    }
}

/// The line after a chunk's `@@ anchor` line, found from `cursor` on.
fn find_anchor(
    seeker: &Seeker<'_>,
    anchor: &str,
    cursor: usize,
    name: &str,
    warnings: &mut Vec<String>,
) -> Result<usize, NotFound> {
    let Some((at, level)) = seeker.seek(&[anchor], cursor, false) else {
        let after = if cursor > 0 {
            format!(" after line {cursor}, where the chunk before it ended")
        } else {
            String::new()
        };
        return Err(NotFound {
            message: format!(
                "{name}: its context line `@@ {anchor}` was not found in the file{after}"
            ),
            old_text: format!("{anchor}\n"),
            new_text: String::new(),
        });
    };
    if level != Level::Exact {
        warnings.push(format!(
            "{name}: its context line `@@ {anchor}` matched line {} {}",
            at + 1,
            level.tolerance()
        ));
    }
    Ok(at + 1)
}

/// The file's lines as apply_patch sees them: text without line breaks, UTF-8.
fn patch_lines<'t>(text: &Text<'t>) -> Result<Vec<&'t str>, usize> {
    (0..text.len())
        .map(|i| std::str::from_utf8(text.text(i)).map_err(|_| i + 1))
        .collect()
}

/// Places apply_patch chunks (Codex's rules, see the module doc). `Err(Ok(line))` is a file
/// that is not UTF-8 at that line.
pub fn apply_patch(text: &Text<'_>, hunks: &[Hunk]) -> Result<Located, Result<NotFound, usize>> {
    let lines = patch_lines(text).map_err(Err)?;
    let seeker = Seeker::new(&lines);
    let mut out = Located {
        keep_last_break: true,
        ..Located::default()
    };
    let mut cursor = 0usize;
    for (i, h) in hunks.iter().enumerate() {
        if let Some(anchor) = &h.anchor {
            cursor =
                find_anchor(&seeker, anchor, cursor, &h.name(i), &mut out.warnings).map_err(Ok)?;
        }
        let mut old: Vec<&str> = h.old_lines().collect();
        let new: Vec<&str> = h.new_lines().collect();
        if old.is_empty() {
            let at = if lines.last() == Some(&"") {
                lines.len() - 1
            } else {
                lines.len()
            };
            if !h.eof {
                out.warnings.push(format!(
                    "{} has no context or removed lines, so (as apply_patch does) its lines were \
                     added at the end of the file; give a line of context to place them elsewhere",
                    h.name(i)
                ));
            }
            out.edits.push(Edit {
                first: at,
                count: 0,
                new: joined(&new, text.eol),
            });
            continue;
        }
        let mut found = seeker.seek(&old, cursor, h.eof);
        let mut chunk: Vec<(Kind, &str)> = h.lines.iter().map(|(k, l)| (*k, l.as_str())).collect();
        if found.is_none() && old.last() == Some(&"") {
            // apply_patch's retry without a last empty old line (the file's final line break
            // written as a line), and without a last empty new line if there is one.
            old.pop();
            drop_last_empty(&mut chunk);
            found = seeker.seek(&old, cursor, h.eof);
        }
        let Some((at, level)) = found else {
            let place = if h.eof {
                " at the end of the file (the chunk is marked `*** End of File`)".to_string()
            } else if cursor > 0 {
                format!(" after line {cursor}")
            } else {
                String::new()
            };
            return Err(Ok(not_found(
                h,
                format!(
                    "{} was not found in the file{place}: its {} context and removed lines must \
                     match lines of the file in order",
                    h.name(i),
                    old.len()
                ),
            )));
        };
        if level != Level::Exact {
            out.warnings.push(format!(
                "{} matched {} {}; the file's context lines were kept as they are",
                h.name(i),
                lines_word(at, old.len()),
                level.tolerance()
            ));
        } else if !h.eof {
            let last = lines.len() - old.len();
            if let Some(again) = seeker.first(&old, at + 1, last, Level::Exact) {
                out.warnings.push(format!(
                    "{}'s lines also occur at {}; the first occurrence ({}) was changed, as \
                     apply_patch changes the first after the chunk before it (an `@@` line \
                     naming a line above the one you mean picks another)",
                    h.name(i),
                    lines_word(again, old.len()),
                    lines_word(at, old.len())
                ));
            }
        }
        out.edits.push(Edit {
            first: at,
            count: old.len(),
            new: chunk_new(text, &chunk, at),
        });
        cursor = at + old.len();
    }
    out.edits.sort_by_key(|e| e.first);
    Ok(out)
}

/// apply_patch's retry of a chunk whose old lines end with an empty one: that line leaves the
/// old side, and the new side's last line leaves it too if it is empty (each side on its own,
/// as Codex cuts its two lists: a context line kept on one side becomes a removed or added
/// line).
fn drop_last_empty(chunk: &mut Vec<(Kind, &str)>) {
    let last_old = chunk.iter().rposition(|(k, _)| *k != Kind::Added);
    let last_new = chunk.iter().rposition(|(k, _)| *k != Kind::Removed);
    let new_goes = last_new.is_some_and(|j| chunk[j].1.is_empty());
    match (last_old, last_new) {
        (Some(o), Some(n)) if o == n && new_goes => {
            chunk.remove(o);
        }
        (Some(o), n) => {
            let removed = chunk[o].0 != Kind::Context;
            if removed {
                chunk.remove(o);
            } else {
                chunk[o].0 = Kind::Added;
            }
            // The new side's last line, where it is now.
            let n = n.map(|n| if removed && n > o { n - 1 } else { n });
            if let Some(n) = n.filter(|_| new_goes) {
                if chunk[n].0 == Kind::Context {
                    chunk[n].0 = Kind::Removed;
                } else {
                    chunk.remove(n);
                }
            }
        }
        (None, _) => {}
    }
}

/// The new lines of a chunk placed at `at`, as apply_patch writes them: context lines as the
/// file has them, removed lines gone, added lines with the file's line break.
fn chunk_new(text: &Text<'_>, chunk: &[(Kind, &str)], at: usize) -> Vec<u8> {
    let mut out = Vec::new();
    let mut k = at;
    for (kind, l) in chunk {
        match kind {
            Kind::Context => {
                let full = text.full(k);
                out.extend_from_slice(full);
                if !full.ends_with(b"\n") {
                    out.extend_from_slice(text.eol);
                }
                k += 1;
            }
            Kind::Removed => k += 1,
            Kind::Added => {
                out.extend_from_slice(l.as_bytes());
                out.extend_from_slice(text.eol);
            }
        }
    }
    out
}

fn joined(lines: &[&str], eol: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    for l in lines {
        out.extend_from_slice(l.as_bytes());
        out.extend_from_slice(eol);
    }
    out
}

// ---------------------------------------------------------------------------------------------
// assembly

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
