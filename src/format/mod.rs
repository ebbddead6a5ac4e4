//! The other front ends: CSL (seed 002), CML (seed 004) and the replacer format (seed 001).
//!
//! Each one recognises its opening marker on a line where a SHAM/NESL header could stand, reads
//! its block from there, and turns it into the same [`Block`]s the SHAM parser yields (an
//! `action` property plus that action's parameters), so planning, the sandbox, the executor,
//! the transaction and the reports are shared and know nothing of the format except its name.
//! The SHAM parser drives the scan ([`crate::block::parse`]) and hands each such line to
//! [`Foreign::take`]; a reply may mix formats, `--dialect` limits it to one.
//!
//! Blocks of these formats get stable ids `task-N`, numbered from 1 in document order across
//! all of them (a CSL TASKS block is one N and its members are `task-N.M`, as the seeds number
//! them). What a format cannot express as an existing action's parameters is a validation error
//! on the block ([`Block::invalid`]); syntax errors are [`ParseError`]s with their own codes.
//! [`detect`] finds text that looks like a block of some format but is none.

mod cml;
mod csl;
pub mod detect;
mod replacer;

use indexmap::IndexMap;

use crate::block::lines::{len16, Line};
use crate::block::{Block, ErrorCode, Group, ParseError, ParseResult, Spelling};

/// The state of the other front ends during one parse: which formats are on, the next task
/// number, and what they found.
pub(crate) struct Foreign {
    formats: &'static [Spelling],
    next_task: usize,
    blocks: Vec<Block>,
    errors: Vec<ParseError>,
    closers: cml::Closers,
}

/// What a front end read from one opening line.
pub(crate) struct Taken {
    /// Lines consumed, the opening line included (at least 1).
    pub lines: usize,
    pub blocks: Vec<Block>,
    pub errors: Vec<ParseError>,
}

impl Foreign {
    pub fn new(formats: &'static [Spelling]) -> Foreign {
        Foreign {
            formats,
            next_task: 1,
            blocks: Vec::new(),
            errors: Vec::new(),
            closers: cml::Closers::default(),
        }
    }

    /// Cheap test: every opening marker of these formats starts with `<` (after indentation
    /// for CML).
    pub fn may_open(&self, line: &str) -> bool {
        !self.formats.is_empty() && line.trim_start().starts_with('<')
    }

    /// If `line` (line number `n`) opens a block of an enabled format, reads it and returns
    /// how many lines it took.
    pub fn take(&mut self, text: &str, line: Line<'_>, n: usize) -> Option<usize> {
        let rest = text.get(line.start..).unwrap_or("");
        let mut taken = None;
        for f in self.formats {
            taken = match f {
                Spelling::Csl => csl::take(rest, n, &mut self.next_task),
                Spelling::Cml => {
                    cml::take(text, line.start, n, &mut self.next_task, &mut self.closers)
                }
                Spelling::Replacer => replacer::take(rest, n, &mut self.next_task),
                _ => None,
            };
            if taken.is_some() {
                break;
            }
        }
        let t = taken?;
        self.blocks.extend(t.blocks);
        self.errors.extend(t.errors);
        Some(t.lines.max(1))
    }

    /// Adds what the front ends found to the SHAM parser's result, in line order.
    pub fn merge_into(self, result: &mut ParseResult) {
        if self.blocks.is_empty() && self.errors.is_empty() {
            return;
        }
        result.blocks.extend(self.blocks);
        result.blocks.sort_by_key(|b| b.start_line);
        result.errors.extend(self.errors);
        result.errors.sort_by_key(|e| e.line);
    }
}

/// The next `task-N` id.
fn next_id(counter: &mut usize) -> String {
    let id = format!("task-{counter}");
    *counter += 1;
    id
}

/// Properties from `(key, value)` pairs.
fn props<const N: usize>(pairs: [(&str, &str); N]) -> IndexMap<String, String> {
    pairs
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// A syntax error at line `line` (1-based), column `column` (1-based, UTF-16), with the text
/// of that line and up to two lines either side as context.
fn error(
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
struct Span {
    start: usize,
    end: usize,
    lines: usize,
}

impl Span {
    fn push(&mut self, line: Line<'_>) {
        if self.lines == 0 {
            self.start = line.start;
        }
        self.end = line.end();
        self.lines += 1;
    }

    /// The lines joined by `\n` (the CR of each CRLF dropped).
    fn text(&self, input: &str) -> String {
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

/// Marks `blocks` as the members of one group.
fn group(blocks: &mut [Block], id: &str, kind: crate::block::GroupKind) {
    for b in blocks {
        b.group = Some(Group {
            id: id.to_string(),
            kind,
        });
    }
}

/// The replacer format's path rule: a SEARCH block's path that does not exist but is the
/// suffix of exactly one tracked file means that file (the block is returned changed, with a
/// warning naming the resolved path); several such files are an error listing them. Blocks of
/// other formats, and paths that exist, come back unchanged.
pub fn resolve_suffix<'b>(
    block: &'b Block,
    sandbox: &crate::sandbox::Sandbox,
) -> Result<std::borrow::Cow<'b, Block>, String> {
    use std::borrow::Cow;
    let given = match block.properties.get("path") {
        Some(p)
            if block.spelling == Spelling::Replacer
                && block.invalid.is_none()
                && block.properties.get("action").map(String::as_str)
                    == Some("file_replace_text") =>
        {
            p
        }
        _ => return Ok(Cow::Borrowed(block)),
    };
    let exists = sandbox
        .resolve(given, crate::sandbox::Access::Follow)
        .map(|r| std::fs::symlink_metadata(&r.abs).is_ok())
        .unwrap_or(true);
    if exists || std::path::Path::new(given).is_absolute() {
        return Ok(Cow::Borrowed(block));
    }
    match sandbox.suffix_candidates(given).as_slice() {
        [] => Ok(Cow::Borrowed(block)),
        [one] => {
            let mut b = block.clone();
            b.properties.insert("path".into(), one.clone());
            b.warnings.push(format!(
                "path '{given}' does not exist; used '{one}', the only tracked file whose path \
                 ends with it"
            ));
            Ok(Cow::Owned(b))
        }
        many => Err(format!(
            "path '{given}' does not exist and {} tracked files end with it: {}; give more of \
             the path",
            many.len(),
            many.join(", ")
        )),
    }
}

/// Whether planning `parsed` may need the tracked file list (it has replacer blocks).
pub fn needs_tracked(parsed: &ParseResult) -> bool {
    parsed
        .blocks
        .iter()
        .any(|b| b.spelling == Spelling::Replacer)
}

/// Applies the groups' validation rules to the planned actions, given the members that did
/// not become actions (`rejected`: group id, member id, line): every member of an atomic group
/// with a rejected or refused member is skipped; in a stop-on-failure group, the members after
/// the first rejected one are.
pub(crate) fn skip_for_groups(
    actions: &mut [crate::action::PlannedAction],
    rejected: &[(String, String, usize)],
) {
    use crate::block::GroupKind;
    let refused: Vec<(String, String, usize)> = actions
        .iter()
        .filter(|a| a.op.is_err())
        .filter_map(|a| {
            a.group
                .as_ref()
                .map(|g| (g.id.clone(), a.block_id.clone(), a.start_line))
        })
        .collect();
    for a in actions.iter_mut() {
        let Some(g) = a.group.clone() else { continue };
        let same = |r: &&(String, String, usize)| r.0 == g.id;
        match g.kind {
            GroupKind::Atomic => {
                let bad = rejected
                    .iter()
                    .chain(&refused)
                    .filter(same)
                    .find(|r| r.1 != a.block_id);
                if let Some((_, id, _)) = bad {
                    a.skip = Some(format!(
                        "not run: {id} of the same TASKS group ({}) is invalid, and a TASKS group \
                         runs all or nothing",
                        g.id
                    ));
                }
            }
            GroupKind::StopOnFailure => {
                let first = rejected
                    .iter()
                    .filter(same)
                    .filter(|r| r.2 < a.start_line)
                    .min_by_key(|r| r.2);
                if let Some((_, id, _)) = first {
                    a.skip = Some(format!(
                        "not run: {id}, earlier in the same <tasks> block, is invalid, and a \
                         <tasks> block stops at its first failure"
                    ));
                }
            }
        }
    }
}
