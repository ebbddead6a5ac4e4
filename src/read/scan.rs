//! The scanner: one walk over the reply's lines that asks each front end whether a line opens
//! one of its blocks and hands it the text from there.
//!
//! There are two kinds of front end, both behind [`FrontEnd`]:
//! - a *block* front end (CSL, CML, replacer, …) says from a line's first characters whether
//!   it may open there ([`FrontEnd::may_open`]) and then reads its whole block from the text
//!   at once ([`FrontEnd::take`]), returning how many lines it took;
//! - a *line* front end (SHAM/NESL, whose grammar is the reference's line state machine) is
//!   given every line no block front end took ([`FrontEnd::line`]), is told when another front
//!   end took lines from under it ([`FrontEnd::skipped`]), and while it is inside something
//!   that must not be cut ([`FrontEnd::holds`], a heredoc) no other front end is asked.
//!
//! A front end sees only the reply text: never the repository, the actions or the sandbox.
//! Blocks and errors of block front ends are collected in the order they are found and merged
//! with the line front ends' results by line at the end.

use indexmap::IndexMap;

use super::lines::{len16, Line, Lines};
use super::{Block, ErrorCode, Group, GroupKind, ParseError, ParseResult};

/// One front end during one parse (made by its [`super::Registration`]).
pub(crate) trait FrontEnd<'a> {
    /// Inside something no other front end may interrupt (a SHAM heredoc).
    fn holds(&self) -> bool {
        false
    }

    /// Cheap test on the line without its leading whitespace: may a block open here?
    fn may_open(&self, _trimmed: &str) -> bool {
        false
    }

    /// Reads the block(s) opening at `line` (line number `n`, 1-based), or `None` when the
    /// line opens none after all.
    fn take(&mut self, _ids: &mut TaskIds, _line: Line<'a>, _n: usize) -> Option<Taken> {
        None
    }

    /// A line no block front end took.
    fn line(&mut self, _line: Line<'a>, _n: usize) {}

    /// Another front end took lines `first..=last_n` (`last` is the last of them).
    fn skipped(&mut self, _first: usize, _last: Line<'a>, _last_n: usize) {}

    /// Adds what this front end found to `result` (block front ends report through `take`).
    fn finish(self: Box<Self>, _result: &mut ParseResult) {}
}

/// A front end started for one parse, or `None` when it takes no part in it.
pub(crate) type Started<'a> = Option<Box<dyn FrontEnd<'a> + 'a>>;

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
pub(crate) fn scan<'a>(
    text: &'a str,
    mut front_ends: Vec<Box<dyn FrontEnd<'a> + 'a>>,
) -> ParseResult {
    let mut ids = TaskIds(1);
    let mut found_blocks: Vec<Block> = Vec::new();
    let mut found_errors: Vec<ParseError> = Vec::new();
    let mut lines = Lines::new(text);
    let mut n = 0;
    while let Some(line) = lines.next() {
        n += 1;
        if let Some((who, taken)) = open_here(&mut front_ends, &mut ids, line, n) {
            let first = n;
            let mut last = line;
            for _ in 1..taken.lines.max(1) {
                if let Some(l) = lines.next() {
                    n += 1;
                    last = l;
                }
            }
            for (i, fe) in front_ends.iter_mut().enumerate() {
                if i != who {
                    fe.skipped(first, last, n);
                }
            }
            found_blocks.extend(taken.blocks);
            found_errors.extend(taken.errors);
            continue;
        }
        for fe in front_ends.iter_mut() {
            fe.line(line, n);
        }
    }
    let mut result = ParseResult::default();
    for fe in front_ends {
        fe.finish(&mut result);
    }
    if !found_blocks.is_empty() || !found_errors.is_empty() {
        result.blocks.extend(found_blocks);
        result.blocks.sort_by_key(|b| b.start_line);
        result.errors.extend(found_errors);
        result.errors.sort_by_key(|e| e.line);
    }
    result
}

/// The first front end that reads a block opening at `line`, unless one holds the line.
fn open_here<'a>(
    front_ends: &mut [Box<dyn FrontEnd<'a> + 'a>],
    ids: &mut TaskIds,
    line: Line<'a>,
    n: usize,
) -> Option<(usize, Taken)> {
    if front_ends.iter().any(|fe| fe.holds()) {
        return None;
    }
    let trimmed = line.text.trim_start();
    front_ends
        .iter_mut()
        .enumerate()
        .filter(|(_, fe)| fe.may_open(trimmed))
        .find_map(|(i, fe)| fe.take(ids, line, n).map(|t| (i, t)))
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
