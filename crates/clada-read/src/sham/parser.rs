//! The line-by-line state machine (grammar §4, §8, §9): SEEKING text outside blocks, IN_BLOCK
//! reading assignments, IN_HEREDOC collecting a multi-line value.
//!
//! One pass over the input, no per-line allocation: heredoc bodies are kept as a byte range of
//! the input and copied once when they close; UTF-16 columns and the `context` window are
//! computed only for the lines that produce errors.
//!
//! Where the reference is inconsistent on broken input (grammar §15) this parser takes the
//! clearer rule; each such place says so and `test-data/parser/DIVERGENCES.md` lists them.

use indexmap::IndexMap;

use super::assign::{key_error, parse_assignment, Assignment, LineError};
use super::diagnose;
use super::markers::{
    diagnose_end, match_end, match_header, spellings, validate_block_id, Markers,
};
use crate::block::{Block, ErrorCode, ErrorNote, Format, Notice, ParseError, ParseResult};
use crate::lines::{len16, starts_with_ws, trim, trim_end, Line, LineIndex, Lines};
use crate::scan::{FrontEnd, Openers};

/// What a line is, from its trimmed text (§4). Auto mode recognises every spelling's prefixes.
enum Class {
    Empty,
    End(&'static Markers),
    Header(&'static Markers),
    Assignment,
    Unknown,
}

fn classify(line: &str, spellings: &[&'static Markers]) -> Class {
    let t = trim(line);
    if t.is_empty() {
        return Class::Empty;
    }
    if t.starts_with("#!") {
        if let Some(m) = spellings.iter().find(|m| t.starts_with(m.end_prefix)) {
            return Class::End(m);
        }
        if let Some(m) = spellings.iter().find(|m| t.starts_with(m.header_prefix)) {
            return Class::Header(m);
        }
    }
    if t.contains('=') {
        Class::Assignment
    } else {
        Class::Unknown
    }
}

/// `action = …` at the start of a line: the first line of a block's body.
fn is_action_line(line: &str) -> bool {
    line.strip_prefix("action")
        .is_some_and(|rest| rest.trim_start().starts_with('='))
}

/// Whether the line could be a header at all; lets SEEKING skip prose without trimming.
fn may_be_header(line: &str) -> bool {
    match line.as_bytes().first() {
        Some(b'#') => true,
        Some(&b) if b.is_ascii() => b.is_ascii_whitespace() || b == 0x0B,
        Some(_) => true,
        None => false,
    }
}

struct OpenBlock<'a> {
    id: &'a str,
    markers: &'static Markers,
    start_line: usize,
    properties: IndexMap<String, String>,
}

struct Heredoc<'a> {
    key: &'a str,
    /// Line of the `key = <<'…'` opener.
    opener_line: usize,
    delimiter: &'a str,
    /// False when the opener was rejected but its body is still consumed (indented key).
    store: bool,
    /// Byte range of the body lines so far in the input, and how many there are.
    body_start: usize,
    body_end: usize,
    body_lines: usize,
}

pub(super) struct Parser<'a> {
    text: &'a str,
    spellings: &'static [&'static Markers],
    block: Option<OpenBlock<'a>>,
    heredoc: Option<Heredoc<'a>>,
    blocks: Vec<Block>,
    errors: Vec<ParseError>,
    notices: Vec<Notice>,
    /// Lines outside blocks that looked like headers: (line, byte offset of the next line).
    near_misses: Vec<(usize, &'a str, usize)>,
    /// The first `action = …` line outside blocks since the last block: with a stray end
    /// marker after it, the lines of a block whose header is missing.
    headless: Option<(usize, &'a str)>,
    /// A header line was refused (malformed, a bad id) since the last block: the end marker
    /// that follows belongs to it, and its error already says what is wrong.
    refused_header: bool,
    /// Line number of the current line (1-based) and the previous line's text.
    n: usize,
    prev: &'a str,
}

impl<'a> Parser<'a> {
    /// The parser for one reply, recognising every spelling (`None`) or only `only`.
    pub(super) fn new(text: &'a str, only: Option<Format>) -> Parser<'a> {
        Parser {
            text,
            spellings: spellings(only),
            block: None,
            heredoc: None,
            blocks: Vec::new(),
            errors: Vec::new(),
            notices: Vec::new(),
            near_misses: Vec::new(),
            headless: None,
            refused_header: false,
            n: 0,
            prev: "",
        }
    }
}

/// SHAM/NESL is the scanner's line front end: it is given every line no block front end took,
/// and a block of another format can open wherever a header could (not inside a heredoc),
/// ending the open block.
impl<'a> FrontEnd<'a> for Parser<'a> {
    fn reads_lines(&self) -> bool {
        true
    }

    fn read_lines(
        &mut self,
        lines: &mut Lines<'a>,
        n: &mut usize,
        openers: &Openers,
    ) -> Option<(Line<'a>, usize)> {
        for line in lines.by_ref() {
            *n += 1;
            if self.heredoc.is_none() && openers.at(line.text).0 != 0 {
                return Some((line, *n));
            }
            self.n = *n;
            self.feed(line);
            self.prev = line.text;
        }
        None
    }

    fn line(&mut self, line: Line<'a>, n: usize) {
        self.n = n;
        self.feed(line);
        self.prev = line.text;
    }

    fn skipped(&mut self, first: usize, last: Line<'a>, last_n: usize) {
        self.n = first;
        self.close_open_block("a block of another format");
        self.prev = last.text;
        self.n = last_n;
    }

    fn finish(self: Box<Self>, result: &mut ParseResult) {
        result.absorb(self.into_result());
    }
}

impl<'a> Parser<'a> {
    fn feed(&mut self, line: Line<'a>) {
        if self.heredoc.is_some() {
            self.heredoc_line(line);
            return;
        }
        if self.block.is_none() {
            // Outside blocks only headers matter; everything else is prose, except the lines
            // of a block whose header is missing (an `action = …` line, then an end marker).
            if may_be_header(line.text) {
                match classify(line.text, self.spellings) {
                    Class::Header(m) => self.header(line.text, m),
                    Class::End(m) => self.stray_end(line.text, m),
                    _ if self.is_near_miss(line.text) => {
                        self.near_misses.push((self.n, line.text, line.end() + 1));
                        // Its notice covers the block's lines and end marker.
                        self.refused_header = true;
                        self.headless = None;
                    }
                    _ => {}
                }
            } else if self.headless.is_none() && !self.refused_header && is_action_line(line.text) {
                self.headless = Some((self.n, line.text));
            }
            return;
        }
        match classify(line.text, self.spellings) {
            Class::Empty => {}
            Class::Header(m) => self.header(line.text, m),
            Class::End(found) => self.end(line.text, found),
            Class::Assignment => self.assignment(line.text),
            Class::Unknown => {
                let message = format!(
                    "Invalid line format in block '{}': not a valid key-value assignment or empty line",
                    self.block_id().unwrap_or_default()
                );
                self.error_at(
                    ErrorCode::MalformedAssignment,
                    line.text,
                    0,
                    len16(line.text),
                    message,
                );
            }
        }
    }

    fn block_id(&self) -> Option<&'a str> {
        self.block.as_ref().map(|b| b.id)
    }

    /// Records an error on the current line at byte offset `pos` of its text.
    fn error_at(
        &mut self,
        code: ErrorCode,
        line: &str,
        pos: usize,
        length: usize,
        message: String,
    ) {
        let column = len16(line.get(..pos).unwrap_or(line)) + 1;
        self.errors.push(ParseError {
            code,
            line: self.n,
            column,
            length,
            block_id: self.block_id().map(str::to_string),
            content: line.to_string(),
            context: String::new(),
            message,
            note: None,
        });
    }

    /// Attaches an explanation to the error just recorded.
    fn note_last(&mut self, note: ErrorNote) {
        if let Some(e) = self.errors.last_mut() {
            e.note = Some(note);
        }
    }

    /// A header-like line no spelling recognises (`#!Nesl [@…`); lines with a real prefix of
    /// another spelling (plain text under a forced dialect) are left alone.
    fn is_near_miss(&self, line: &str) -> bool {
        let t = trim(line);
        diagnose::near_miss_header(line)
            && !spellings(None)
                .iter()
                .any(|m| t.starts_with(m.header_prefix))
    }

    fn header(&mut self, line: &'a str, m: &'static Markers) {
        let Some(id) = match_header(m, line) else {
            // Inside a block the reference reports a spurious UNCLOSED_BLOCK here and no
            // MALFORMED_HEADER; we report what is wrong and let the block continue.
            self.error_at(
                ErrorCode::MalformedHeader,
                line,
                0,
                len16(line),
                m.malformed_header.to_string(),
            );
            self.note_last(ErrorNote {
                detail: diagnose::malformed_header(m, line),
                block_id: diagnose::guess_id(line).map(str::to_string),
                ..ErrorNote::default()
            });
            self.refused_header = self.block.is_none();
            return;
        };
        if let Err(message) = validate_block_id(id) {
            let column = if line.starts_with(m.canonical_prefix) {
                m.canonical_prefix.len()
            } else {
                0
            };
            // As with a malformed header, a header that cannot open a block does not end the
            // open one (the reference closes it, so its later end marker is lost).
            self.error_at(
                ErrorCode::InvalidBlockId,
                line,
                column,
                len16(id),
                message.to_string(),
            );
            self.note_last(ErrorNote {
                detail: diagnose::invalid_id(m, line),
                block_id: Some(id.to_string()),
                ..ErrorNote::default()
            });
            self.refused_header = self.block.is_none();
            return;
        }
        self.close_open_block("new block");
        self.headless = None;
        self.refused_header = false;
        self.block = Some(OpenBlock {
            id,
            markers: m,
            start_line: self.n,
            properties: IndexMap::new(),
        });
    }

    /// Ends the open block (if any) at the line before this one, which starts `what`.
    fn close_open_block(&mut self, what: &str) {
        if let Some(open) = self.block.take() {
            self.errors.push(ParseError {
                code: ErrorCode::UnclosedBlock,
                line: self.n - 1,
                column: 1,
                length: 0,
                block_id: Some(open.id.to_string()),
                content: self.prev.to_string(),
                context: String::new(),
                message: format!("Block '{}' not closed before {what}", open.id),
                note: None,
            });
            self.emit(open, None);
        }
    }

    fn emit(&mut self, open: OpenBlock<'a>, end_line: Option<usize>) {
        self.blocks.push(Block {
            id: open.id.to_string(),
            properties: open.properties,
            start_line: open.start_line,
            end_line,
            format: open.markers.format,
            group: None,
            invalid: None,
            warnings: Vec::new(),
            source: None,
        });
    }

    /// An end marker outside any block: the reference drops it silently, and with it the
    /// block above whose header is missing, so the reply would seem to have applied in full.
    /// A notice (an error in the reports) names both.
    fn stray_end(&mut self, line: &'a str, m: &'static Markers) {
        if std::mem::take(&mut self.refused_header) {
            self.headless = None;
            return;
        }
        let id = match_end(m, line).unwrap_or("");
        let header = format!(
            "{}{}]",
            m.canonical_prefix,
            if id.is_empty() { "ID" } else { id }
        );
        let message = match self.headless.take() {
            Some((first, action)) => format!(
                "lines {first}-{n} are a block without a header: `{}` … `{}`; the block was not \
                 read — resend it with its header line `{header}` before `{}`",
                trim(action),
                trim(line),
                trim(action),
                n = self.n,
            ),
            None => format!(
                "line {n}: `{}` ends a block that was never opened (no header `{header}` above \
                 it); whatever that block held was not read — resend it whole",
                trim(line),
                n = self.n,
            ),
        };
        self.notices.push(Notice {
            line: self.n,
            block_id: (!id.is_empty()).then(|| id.to_string()),
            action: None,
            message,
        });
    }

    fn end(&mut self, line: &'a str, found: &'static Markers) {
        let Some(open) = self.block.as_ref() else {
            return;
        };
        let ours = std::ptr::eq(open.markers, found);
        match match_end(found, line).filter(|_| ours) {
            Some(id) if id == open.id => {
                if let Some(open) = self.block.take() {
                    self.emit(open, Some(self.n));
                }
            }
            Some(id) => {
                let message = format!("End marker '{id}' doesn't match block ID '{}'", open.id);
                self.error_at(ErrorCode::MismatchedEnd, line, 0, len16(line), message);
                if let Some(open) = self.block.take() {
                    self.emit(open, Some(self.n));
                }
            }
            None => {
                // The reference ignores such lines silently; the block then ends up unclosed
                // or closed by the wrong marker with no hint why.
                let d = diagnose_end(open.markers, found, open.id, line);
                self.error_at(ErrorCode::MalformedEnd, line, d.pos, d.len16, d.message);
            }
        }
    }

    fn line_error(&mut self, line: &str, e: LineError) {
        self.error_at(e.code, line, e.pos, e.len16, e.message.to_string());
    }

    /// Reports an invalid key (§8.2 steps 1–2). Leading whitespace is one rule for every kind
    /// of assignment line: the key is rejected and its value is not stored.
    fn check_key(&mut self, line: &str, raw_key: &str, key: &str) -> bool {
        if starts_with_ws(raw_key) {
            let first = line.chars().next().unwrap_or(' ');
            let message = format!("Key contains invalid character '{first}' at position 1");
            self.error_at(
                ErrorCode::InvalidKey,
                line,
                0,
                len16(trim_end(raw_key)),
                message,
            );
            return false;
        }
        if let Some(message) = key_error(key) {
            self.error_at(ErrorCode::InvalidKey, line, 0, len16(key), message);
            return false;
        }
        true
    }

    fn report_duplicate(&mut self, line: &str, key: &str) {
        let id = self.block_id().unwrap_or_default();
        let message = format!("Duplicate key '{key}' in block '{id}'");
        self.error_at(ErrorCode::DuplicateKey, line, 0, len16(key), message);
    }

    fn assignment(&mut self, line: &'a str) {
        match parse_assignment(line) {
            Assignment::Error(e) => self.line_error(line, e),
            Assignment::KeyValue {
                raw_key,
                key,
                value,
                trailing,
            } => {
                // A line with trailing content is still an error, but its key and value follow
                // the same rules as any other line (the reference keeps the first duplicate
                // silently and skips key checks there).
                if self.check_key(line, raw_key, key) {
                    // IndexMap::insert keeps an existing key's position: last value wins in
                    // first-insertion order, as in the reference.
                    let replaced = self
                        .block
                        .as_mut()
                        .is_some_and(|b| b.properties.insert(key.to_string(), value).is_some());
                    if replaced {
                        self.report_duplicate(line, key);
                    }
                }
                if let Some(pos) = trailing {
                    self.error_at(
                        ErrorCode::TrailingContent,
                        line,
                        pos,
                        len16(&line[pos..]),
                        "Unexpected content after quoted value".to_string(),
                    );
                }
            }
            Assignment::Heredoc {
                raw_key,
                key,
                delimiter,
            } => self.heredoc_opener(line, raw_key, key, delimiter),
        }
    }

    fn heredoc_opener(
        &mut self,
        line: &'a str,
        raw_key: &'a str,
        key: &'a str,
        delimiter: &'a str,
    ) {
        let indented = starts_with_ws(raw_key);
        let key_ok = self.check_key(line, raw_key, key);
        if key_error(key).is_some() {
            // An invalid key does not open the heredoc; its body is read as block lines (§8.4).
            return;
        }
        let Some((id, prefix, present)) = self.block.as_ref().map(|b| {
            (
                b.id,
                b.markers.heredoc_prefix,
                b.properties.contains_key(key),
            )
        }) else {
            return;
        };
        if key_ok && present {
            self.report_duplicate(line, key);
        }
        let expected_ok = delimiter.len() == prefix.len() + id.len()
            && delimiter.starts_with(prefix)
            && delimiter.ends_with(id);
        if expected_ok {
            // An indented key is reported above; its body is still consumed so it is not
            // misread as block lines, but the value is not stored.
            self.heredoc = Some(Heredoc {
                key,
                opener_line: self.n,
                delimiter,
                store: !indented,
                body_start: 0,
                body_end: 0,
                body_lines: 0,
            });
        } else {
            let message = format!("Heredoc delimiter must be '{prefix}{id}'");
            let pos = line.find(delimiter).unwrap_or(0);
            self.error_at(
                ErrorCode::InvalidHeredocDelimiter,
                line,
                pos,
                len16(delimiter),
                message,
            );
        }
    }

    fn heredoc_line(&mut self, line: Line<'a>) {
        let (Some(h), Some(open)) = (self.heredoc.as_mut(), self.block.as_mut()) else {
            return;
        };
        let closing: Option<&str> = if open.markers.lenient_close {
            // A closing line ends with the delimiter, optionally followed by `'`; checking
            // that first keeps the substring search off ordinary body lines.
            let t = line.text;
            let tail = t.strip_suffix('\'').unwrap_or(t);
            let candidate = t.ends_with(h.delimiter) || tail.ends_with(h.delimiter);
            match candidate.then(|| t.find(h.delimiter)).flatten() {
                Some(i) => {
                    let before = &line.text[..i];
                    let after = &line.text[i + h.delimiter.len()..];
                    (!before.contains("<<") && (after.is_empty() || after == "'")).then_some(before)
                }
                None => None,
            }
        } else {
            (line.text == h.delimiter).then_some("")
        };
        let Some(before) = closing else {
            if h.body_lines == 0 {
                h.body_start = line.start;
            }
            h.body_end = line.end();
            h.body_lines += 1;
            return;
        };
        let mut value = if h.body_lines == 0 {
            String::new()
        } else {
            let body = self.text.get(h.body_start..h.body_end).unwrap_or("");
            // Lines were split on `\r?\n` and are joined with `\n`.
            if body.contains('\r') {
                body.replace("\r\n", "\n")
            } else {
                body.to_string()
            }
        };
        if !before.is_empty() {
            // The text before an inline delimiter is a final body line (§9 NESL rule).
            if h.body_lines > 0 {
                value.push('\n');
            }
            value.push_str(before);
        }
        if h.store {
            open.properties.insert(h.key.to_string(), value);
        }
        self.heredoc = None;
    }

    fn into_result(mut self) -> ParseResult {
        let eof_line = self.n + 1;
        if let Some(open) = self.block.take() {
            let (code, message, note) = match self.heredoc.take() {
                Some(h) => {
                    let body = if h.body_lines == 0 {
                        ""
                    } else {
                        self.text.get(h.body_start..h.body_end).unwrap_or("")
                    };
                    let (detail, swallowed) = diagnose::Unclosed {
                        markers: open.markers,
                        spellings: self.spellings,
                        key: h.key,
                        delimiter: h.delimiter,
                        opener_line: h.opener_line,
                        body,
                    }
                    .explain();
                    (
                        ErrorCode::UnclosedHeredoc,
                        format!("Heredoc '{}' not closed before EOF", h.delimiter),
                        Some(ErrorNote {
                            detail,
                            swallowed,
                            ..ErrorNote::default()
                        }),
                    )
                }
                None => (
                    ErrorCode::UnclosedBlock,
                    format!("Block '{}' not closed before EOF", open.id),
                    None,
                ),
            };
            self.errors.push(ParseError {
                code,
                line: eof_line,
                column: 1,
                length: 0,
                block_id: Some(open.id.to_string()),
                content: String::new(),
                context: String::new(),
                message,
                note,
            });
            self.emit(open, None);
        }
        let text = self.text;
        let after = |offset: usize| Lines::new(text.get(offset..).unwrap_or(""));
        if !self.errors.is_empty() {
            let index = LineIndex::new(self.text);
            for e in &mut self.errors {
                e.context = index.context(e.line).to_string();
                // A header that opened no block: find the action its block meant to run.
                if let (Some(note), Some(start)) = (e.note.as_mut(), index.start(e.line + 1)) {
                    if note.block_id.is_some() {
                        note.action = diagnose::action_after(after(start));
                    }
                }
            }
        }
        for &(line, content, next) in &self.near_misses {
            self.notices
                .push(diagnose::near_miss_notice(content, line, after(next)));
        }
        ParseResult {
            blocks: self.blocks,
            errors: self.errors,
            notices: self.notices,
            ..ParseResult::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{parse, Dialect, Format};

    fn heredoc_value(text: &str, dialect: Dialect) -> Option<String> {
        let r = parse(text, dialect);
        r.blocks.first()?.properties.get("k").cloned()
    }

    #[test]
    fn nesl_heredoc_close_rule() {
        let nesl = |body: &str| {
            heredoc_value(
                &format!("#!nesl [@x: abc]\nk = <<'EOT_abc'\n{body}\n#!end_abc"),
                Dialect::Only(Format::NESL),
            )
        };
        assert_eq!(nesl("a\nEOT_abc").as_deref(), Some("a"));
        assert_eq!(nesl("a\nEOT_abc'").as_deref(), Some("a"));
        assert_eq!(nesl("a\ntextEOT_abc").as_deref(), Some("a\ntext"));
        assert_eq!(nesl("textEOT_abc").as_deref(), Some("text"));
        assert_eq!(nesl("a\n  EOT_abc").as_deref(), Some("a\n  "));
        // Not a close: `<<` before the delimiter, trailing space, trailing text.
        assert_eq!(
            nesl("x <<EOT_abc\nEOT_abc ").as_deref(),
            None,
            "unclosed heredoc keeps no value"
        );
        assert_eq!(nesl("EOT_abcx\nEOT_abc").as_deref(), Some("EOT_abcx"));
        assert_eq!(nesl("\n\nEOT_abc").as_deref(), Some("\n"));
        assert_eq!(nesl("EOT_abc").as_deref(), Some(""));
    }

    #[test]
    fn strict_heredoc_close_needs_the_exact_line() {
        let text = "#!SHAM [@three-char-SHA-256: abc]\nk = <<'EOT_SHAM_abc'\n  EOT_SHAM_abc\nxEOT_SHAM_abc\nEOT_SHAM_abc'\nEOT_SHAM_abc\n#!END_SHAM_abc";
        assert_eq!(
            heredoc_value(text, Dialect::Only(Format::SHAM)).as_deref(),
            Some("  EOT_SHAM_abc\nxEOT_SHAM_abc\nEOT_SHAM_abc'")
        );
        let upper = text.replace("SHAM", "NESL");
        assert_eq!(
            heredoc_value(&upper, Dialect::Only(Format::NESL_UPPER)),
            heredoc_value(text, Dialect::Only(Format::SHAM)).map(|v| v.replace("SHAM", "NESL"))
        );
    }

    #[test]
    fn heredoc_body_drops_only_the_cr_of_crlf() {
        let text = "#!nesl [@x: abc]\r\nk = <<'EOT_abc'\r\na\r\nb\r\r\n\rc\r\nEOT_abc\r\n#!end_abc";
        assert_eq!(
            heredoc_value(text, Dialect::Auto).as_deref(),
            Some("a\nb\r\n\rc")
        );
    }

    #[test]
    fn auto_mode_lets_each_header_pick_its_spelling() {
        let text = "#!SHAM [@three-char-SHA-256: s1]\n#!end_s1\n#!END_SHAM_s1\n\
                    #!NESL [@three-char-SHA-256: u1]\nk = <<'EOT_NESL_u1'\nEOT_NESL_u1\n#!END_NESL_u1\n\
                    #!nesl [@any: n1]\nk = <<'EOT_n1'\nxEOT_n1\n#!end_n1'";
        let r = parse(text, Dialect::Auto);
        let spellings: Vec<_> = r.blocks.iter().map(|b| (b.id.as_str(), b.format)).collect();
        assert_eq!(
            spellings,
            vec![
                ("s1", Format::SHAM),
                ("u1", Format::NESL_UPPER),
                ("n1", Format::NESL)
            ]
        );
        assert_eq!(r.blocks[2].properties["k"], "x");
        // `#!end_s1` is a nesl end marker inside a SHAM block.
        assert_eq!(r.errors.len(), 1);
        assert_eq!(r.errors[0].code, ErrorCode::MalformedEnd);
        assert_eq!(r.errors[0].line, 2);
        // A forced dialect sees only its own blocks.
        let only_nesl = parse(text, Dialect::Only(Format::NESL));
        assert_eq!(only_nesl.blocks.len(), 1);
        assert_eq!(only_nesl.blocks[0].id, "n1");
    }

    #[test]
    fn prose_is_skipped_without_errors() {
        let text = "# Title\n\n```sh\nk = v\n#!END_SHAM_abc\n```\n  #!SHAMX\n\u{feff}text";
        let r = parse(text, Dialect::Auto);
        assert!(r.blocks.is_empty());
        assert!(r.errors.is_empty());
    }
}
