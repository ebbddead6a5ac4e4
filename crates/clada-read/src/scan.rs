//! The scanner: one walk over the reply's lines that asks each front end whether a line opens
//! one of its blocks and hands it the text from there.
//!
//! There are two kinds of front end, both behind [`FrontEnd`]:
//! - a *block* front end (CSL, CML, replacer, …) says from a line's first characters whether
//!   it may open there ([`FrontEnd::may_open`]) and then reads its whole block from the text
//!   at once ([`FrontEnd::take`]), returning how many lines it took;
//! - the *line* front end (SHAM/NESL, whose grammar is the reference's line state machine; at
//!   most one per parse) reads the lines itself ([`FrontEnd::read_lines`]) up to the next line
//!   where a block front end may open — unless it is inside something that must not be cut (a
//!   heredoc) — and is told when another front end took lines from under it
//!   ([`FrontEnd::skipped`]). Handing it runs of lines, not single lines, keeps prose as cheap
//!   as in a parser of one format.
//!
//! A front end sees only the reply text: never the repository, the actions or the sandbox.
//! Blocks and errors of block front ends are collected in the order they are found and merged
//! with the line front ends' results by line at the end.

use indexmap::IndexMap;

use super::block::{Block, ErrorCode, Format, Group, GroupKind, ParseError, ParseResult};
use super::lines::{len16, Line, Lines};

/// How a front end is known to the scanner: its formats and how it is started for one parse.
/// A format's file declares it with [`Registration::new`] (or, for the two front ends that
/// take part differently, [`Registration::forced`] and [`Registration::always`]), e.g.
/// `Registration::new(&[(Format::X, "Only X: …")], |text, _| Box::new(X { text }))`.
pub(crate) struct Registration {
    /// The formats it reads, each with its `--dialect` help text.
    pub formats: &'static [(Format, &'static str)],
    part: Part,
    start: Start,
}

/// The front end for one parse of `text`, reading every one of its formats (`None`) or only
/// `Some(format)`.
pub(crate) type Start =
    for<'a> fn(text: &'a str, only: Option<Format>) -> Box<dyn FrontEnd<'a> + 'a>;

/// Which parses a front end takes part in.
#[derive(Clone, Copy)]
enum Part {
    /// Those that read every format, or one of its own.
    Auto,
    /// Only those forced to one of its formats (`--dialect`): never chosen by auto.
    Forced,
    /// Every parse, whatever the dialect.
    Always,
}

impl Registration {
    /// A front end that reads its formats in every parse that reads all formats or one of
    /// its own.
    pub const fn new(formats: &'static [(Format, &'static str)], start: Start) -> Registration {
        Registration {
            formats,
            part: Part::Auto,
            start,
        }
    }

    /// A front end read only when `--dialect` names one of its formats.
    pub const fn forced(formats: &'static [(Format, &'static str)], start: Start) -> Registration {
        Registration {
            formats,
            part: Part::Forced,
            start,
        }
    }

    /// A front end started for every parse: `start` is told which format, if any, is forced.
    pub const fn always(formats: &'static [(Format, &'static str)], start: Start) -> Registration {
        Registration {
            formats,
            part: Part::Always,
            start,
        }
    }

    /// The front end for one parse of `text` (`only`: the format `--dialect` forces), or
    /// `None` when it takes no part.
    pub fn start<'a>(
        &self,
        text: &'a str,
        only: Option<Format>,
    ) -> Option<Box<dyn FrontEnd<'a> + 'a>> {
        let own = |f: Format| self.formats.iter().any(|(g, _)| *g == f);
        let part = match (self.part, only) {
            (Part::Always, _) => true,
            (Part::Auto, None) => true,
            (Part::Auto | Part::Forced, Some(f)) => own(f),
            (Part::Forced, None) => false,
        };
        part.then(|| (self.start)(text, only))
    }
}

/// One front end during one parse (made by its [`Registration`]).
pub(crate) trait FrontEnd<'a> {
    /// The first byte, after indentation, of every line where this front end may open a block
    /// (unused for the line front end). The scanner asks [`FrontEnd::may_open`] only on such
    /// lines, so prose costs a table look-up, not a call per front end. The default is every
    /// byte: a front end that does not narrow it is asked on every line (slower, never blind).
    fn opens_with(&self) -> &'static [u8] {
        &ANY_BYTE
    }

    /// The line front end: reads lines from `lines` (`n` is the number of the last line read)
    /// until one, outside anything it holds, on which `openers` says a block may open; returns
    /// that line unread (with its number), or `None` at the end of the text. Block front ends
    /// return `None` without reading.
    fn read_lines(
        &mut self,
        _lines: &mut Lines<'a>,
        _n: &mut usize,
        _openers: &Openers,
    ) -> Option<(Line<'a>, usize)> {
        None
    }

    /// Whether this is the line front end (it implements [`FrontEnd::read_lines`]).
    fn reads_lines(&self) -> bool {
        false
    }

    /// A line [`FrontEnd::read_lines`] stopped at that no block front end took after all.
    fn line(&mut self, _line: Line<'a>, _n: usize) {}

    /// Cheap test on the line without its leading whitespace: may a block open here?
    fn may_open(&self, _trimmed: &str) -> bool {
        false
    }

    /// Reads the block(s) opening at `line` (line number `n`, 1-based), or `None` when the
    /// line opens none after all.
    fn take(&mut self, _ids: &mut TaskIds, _line: Line<'a>, _n: usize) -> Option<Taken> {
        None
    }

    /// Another front end took lines `first..=last_n` (`last` is the last of them).
    fn skipped(&mut self, _first: usize, _last: Line<'a>, _last_n: usize) {}

    /// Adds what this front end found to `result` (block front ends report through `take`).
    fn finish(self: Box<Self>, _result: &mut ParseResult) {}
}

/// The block front ends that may open on a line, by the line's first byte after indentation
/// (a bit per block front end).
pub(crate) struct Openers([u64; 256]);

impl Openers {
    /// The candidates for `line` and the line without its indentation.
    #[inline]
    pub fn at<'t>(&self, line: &'t str) -> (u64, &'t str) {
        let Some(&first) = line.as_bytes().first() else {
            return (0, line);
        };
        // Most lines start with a letter: no trimming.
        if first.is_ascii() && !first.is_ascii_whitespace() && first != 0x0B {
            return (self.0[first as usize], line);
        }
        let t = line.trim_start();
        match t.as_bytes().first() {
            Some(&b) => (self.0[b as usize], t),
            None => (0, t),
        }
    }
}

/// What a block front end read from one opening line.
pub(crate) struct Taken {
    /// Lines consumed, the opening line included (at least 1).
    pub lines: usize,
    pub blocks: Vec<Block>,
    pub errors: Vec<ParseError>,
}

/// The `task-N` ids the formats without ids of their own share, numbered from 1 in document
/// order across all of them.
pub(crate) struct TaskIds(usize);

impl TaskIds {
    /// The counter itself, for front ends that number members of a group (`task-N.M`).
    pub fn counter(&mut self) -> &mut usize {
        &mut self.0
    }
}

/// Walks `text` once with `front_ends` (asked in this order) and returns their merged result.
pub(crate) fn scan<'a>(text: &'a str, front_ends: Vec<Box<dyn FrontEnd<'a> + 'a>>) -> ParseResult {
    let mut scanner = Scanner::new(front_ends);
    let mut lines = Lines::new(text);
    let mut n = 0;
    while let Some((line, at)) = scanner.next_candidate(&mut lines, &mut n) {
        match scanner.open_here(line, at) {
            Some(taken) => {
                let mut last = line;
                for _ in 1..taken.lines.max(1) {
                    if let Some(l) = lines.next() {
                        n += 1;
                        last = l;
                    }
                }
                scanner.taken(taken, at, last, n);
            }
            None => {
                if let Some(fe) = scanner.line_front_end.as_mut() {
                    fe.line(line, at);
                }
            }
        }
    }
    scanner.finish()
}

/// The scanner's state during one parse.
struct Scanner<'a> {
    line_front_end: Option<Box<dyn FrontEnd<'a> + 'a>>,
    block_front_ends: Vec<Box<dyn FrontEnd<'a> + 'a>>,
    openers: Openers,
    ids: TaskIds,
    blocks: Vec<Block>,
    errors: Vec<ParseError>,
}

/// Every byte value, the default of [`FrontEnd::opens_with`].
pub(crate) const ANY_BYTE: [u8; 256] = {
    let mut all = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        all[i] = i as u8;
        i += 1;
    }
    all
};

impl<'a> Scanner<'a> {
    fn new(front_ends: Vec<Box<dyn FrontEnd<'a> + 'a>>) -> Scanner<'a> {
        let (mut line_front_ends, block_front_ends): (Vec<_>, Vec<_>) =
            front_ends.into_iter().partition(|fe| fe.reads_lines());
        debug_assert!(line_front_ends.len() <= 1, "at most one line front end");
        let mut openers = [0u64; 256];
        for (i, fe) in block_front_ends.iter().enumerate().take(64) {
            for &b in fe.opens_with() {
                openers[b as usize] |= 1 << i;
            }
        }
        Scanner {
            line_front_end: line_front_ends.pop(),
            block_front_ends,
            openers: Openers(openers),
            ids: TaskIds(1),
            blocks: Vec::new(),
            errors: Vec::new(),
        }
    }

    /// The next line where a block may open: the line front end reads the lines before it.
    fn next_candidate(
        &mut self,
        lines: &mut Lines<'a>,
        n: &mut usize,
    ) -> Option<(Line<'a>, usize)> {
        if let Some(fe) = self.line_front_end.as_mut() {
            return fe.read_lines(lines, n, &self.openers);
        }
        for line in lines.by_ref() {
            *n += 1;
            if self.openers.at(line.text).0 != 0 {
                return Some((line, *n));
            }
        }
        None
    }

    /// What the first block front end that opens at `line` read.
    fn open_here(&mut self, line: Line<'a>, n: usize) -> Option<Taken> {
        let (mut candidates, trimmed) = self.openers.at(line.text);
        while candidates != 0 {
            let i = candidates.trailing_zeros() as usize;
            candidates &= candidates - 1;
            let fe = &mut self.block_front_ends[i];
            if fe.may_open(trimmed) {
                if let Some(t) = fe.take(&mut self.ids, line, n) {
                    return Some(t);
                }
            }
        }
        None
    }

    /// A block front end took lines `first..=last_n`: tell the line front end, keep its finds.
    fn taken(&mut self, taken: Taken, first: usize, last: Line<'a>, last_n: usize) {
        if let Some(fe) = self.line_front_end.as_mut() {
            fe.skipped(first, last, last_n);
        }
        self.blocks.extend(taken.blocks);
        self.errors.extend(taken.errors);
    }

    /// Every front end's result, merged by line.
    fn finish(self) -> ParseResult {
        let mut result = ParseResult::default();
        for fe in self.line_front_end.into_iter().chain(self.block_front_ends) {
            fe.finish(&mut result);
        }
        if !self.blocks.is_empty() || !self.errors.is_empty() {
            result.blocks.extend(self.blocks);
            result.blocks.sort_by_key(|b| b.start_line);
            result.errors.extend(self.errors);
            result.errors.sort_by_key(|e| e.line);
        }
        result
    }
}

/// The next `task-N` id.
pub(crate) fn next_id(counter: &mut usize) -> String {
    let id = format!("task-{counter}");
    *counter += 1;
    id
}

/// Properties from `(key, value)` pairs.
pub(crate) fn props<const N: usize>(pairs: [(&str, &str); N]) -> IndexMap<String, String> {
    pairs
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// A syntax error at line `line` (1-based), column `column` (1-based, UTF-16), with the text
/// of that line and up to two lines either side as context.
pub(crate) fn error(
    code: ErrorCode,
    text: &str,
    first_line: usize,
    line: usize,
    column: usize,
    block_id: Option<String>,
    message: String,
) -> ParseError {
    let rel = line.saturating_sub(first_line);
    // Split on LF only, as the SHAM parser's context is: CRs stay in the context lines.
    let all: Vec<&str> = text.split('\n').take(rel + 3).collect();
    let raw = all.get(rel).copied().unwrap_or("");
    let content = raw.strip_suffix('\r').unwrap_or(raw).to_string();
    let from = rel.saturating_sub(2);
    let context = all.get(from..).map(|c| c.join("\n")).unwrap_or_default();
    let column = column.clamp(1, len16(&content) + 1);
    ParseError {
        code,
        line,
        column,
        length: len16(&content).saturating_sub(column.saturating_sub(1)),
        block_id,
        content,
        context,
        message,
        note: None,
    }
}

/// Consecutive lines of one part of a block, kept as a byte range of the input and copied
/// once when the block is done (no per-line allocation; the SHAM heredoc does the same).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Span {
    start: usize,
    end: usize,
    lines: usize,
}

impl Span {
    pub fn push(&mut self, line: Line<'_>) {
        if self.lines == 0 {
            self.start = line.start;
        }
        self.end = line.end();
        self.lines += 1;
    }

    /// The lines joined by `\n` (the CR of each CRLF dropped).
    pub fn text(&self, input: &str) -> String {
        if self.lines == 0 {
            return String::new();
        }
        let body = input.get(self.start..self.end).unwrap_or("");
        if body.contains('\r') {
            body.replace("\r\n", "\n")
        } else {
            body.to_string()
        }
    }
}

/// Marks `blocks` as the members of one group, which reports call `noun`.
pub(crate) fn group(blocks: &mut [Block], id: &str, kind: GroupKind, noun: &'static str) {
    for b in blocks {
        b.group = Some(Group {
            id: id.to_string(),
            kind,
            noun,
        });
    }
}
