//! The replacer format (seed 001, `replacer_llm_instructions.md`): an optional
//! `<<<EXPLANATION>>>`, then `<<<FILE>>>` and a path, then either `<<<SEARCH>>>` … `<<<REPLACE>>>`
//! … `<<<END>>>` or `<<<OVERWRITE>>>` … `<<<END>>>`.
//!
//! Mapping: SEARCH/REPLACE → `file_replace_text` (exactly one occurrence, as the instructions
//! demand); OVERWRITE → `file_write`. A REPLACE made only of whitespace is the instructions' way
//! to delete ("must contain blank line and a space"), so it becomes an empty `new_text`, with a
//! warning. The instructions ask for "as much of the path as you know": planning resolves a
//! SEARCH path that does not exist but is the suffix of exactly one tracked file
//! (`Sandbox::resolve_suffix`).

use super::block::{Block, ErrorCode, Format};
use super::lines::{Line, Lines};
use super::scan::{error, next_id, props, FrontEnd, Registration, Span, Taken, TaskIds};

impl Format {
    pub const REPLACER: Format = Format {
        id: "replacer",
        name: "replacer",
        reference: false,
    };
}

pub(super) static FRONT_END: Registration = Registration::new(
    &[(
        Format::REPLACER,
        "Only the replacer format: `<<<FILE>>>` … `<<<END>>>` (seed 001)",
    )],
    |text, _| Box::new(Replacer { text }),
);

/// The replacer front end: a block opens on a `<<<MARKER>>>` line.
struct Replacer<'a> {
    text: &'a str,
}

impl<'a> FrontEnd<'a> for Replacer<'a> {
    fn opens_with(&self) -> &'static [u8] {
        b"<"
    }

    fn may_open(&self, trimmed: &str) -> bool {
        trimmed.starts_with('<')
    }

    fn take(&mut self, ids: &mut TaskIds, line: Line<'a>, n: usize) -> Option<Taken> {
        take(self.text.get(line.start..).unwrap_or(""), n, ids.counter())
    }
}

/// The marker a line is (`<<<NAME>>>` alone on it, surrounding whitespace allowed).
fn marker(line: &str) -> Option<&str> {
    line.trim()
        .strip_prefix("<<<")?
        .strip_suffix(">>>")
        .filter(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_uppercase()))
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    Explanation,
    File,
    Search,
    Replace,
    Overwrite,
}

/// Reads a replacer block starting on the first line of `text` (line number `n`).
fn take(text: &str, n: usize, counter: &mut usize) -> Option<Taken> {
    let first = text.split('\n').next().unwrap_or("");
    let start = match marker(first)? {
        "EXPLANATION" => State::Explanation,
        "FILE" => State::File,
        m @ ("SEARCH" | "OVERWRITE" | "REPLACE" | "END") => {
            return Some(stray(text, n, m, next_id(counter)))
        }
        _ => return None,
    };
    let id = next_id(counter);
    let mut state = start;
    let mut count = 0;
    let mut path: Vec<&str> = Vec::new();
    let (mut search, mut replace, mut overwrite) =
        (Span::default(), Span::default(), Span::default());
    let fail = |at: usize, message: String, id: &str| Taken {
        lines: at + 1,
        blocks: Vec::new(),
        errors: vec![error(
            ErrorCode::ReplacerSyntax,
            text,
            n,
            n + at,
            1,
            Some(id.to_string()),
            format!("{message}; nothing of this block (line {n}) was run"),
        )],
    };
    for (i, line) in Lines::new(text).enumerate() {
        count = i + 1;
        if i == 0 {
            continue;
        }
        let m = marker(line.text);
        state = match (state, m) {
            (State::Explanation, Some("FILE")) => State::File,
            (State::Explanation, Some(other)) if other != "EXPLANATION" => {
                return Some(fail(
                    i,
                    format!(
                        "<<<{other}>>> after <<<EXPLANATION>>>: the <<<FILE>>> line is missing"
                    ),
                    &id,
                ))
            }
            (State::Explanation, _) => State::Explanation,
            (State::File, Some("SEARCH")) => State::Search,
            (State::File, Some("OVERWRITE")) => State::Overwrite,
            (State::File, Some(other)) => {
                return Some(fail(
                    i,
                    format!(
                        "<<<{other}>>> after <<<FILE>>>: expected <<<SEARCH>>> or <<<OVERWRITE>>>"
                    ),
                    &id,
                ))
            }
            (State::File, None) => {
                if !line.text.trim().is_empty() {
                    path.push(line.text.trim());
                }
                State::File
            }
            (State::Search, Some("REPLACE")) => State::Replace,
            (State::Search, _) => {
                search.push(line);
                State::Search
            }
            (State::Replace | State::Overwrite, Some("END")) => {
                let parts = Parts {
                    path: &path,
                    search: search.text(text),
                    replace: replace.text(text),
                    overwrite: overwrite.text(text),
                    source: text.get(..line.end()).unwrap_or(text),
                };
                return Some(finish(state, &id, n, i, parts));
            }
            (State::Replace, _) => {
                replace.push(line);
                State::Replace
            }
            (State::Overwrite, _) => {
                overwrite.push(line);
                State::Overwrite
            }
        };
    }
    let last = count.saturating_sub(1);
    let expected = match state {
        State::Explanation => "<<<FILE>>>",
        State::File => "<<<SEARCH>>> or <<<OVERWRITE>>>",
        State::Search => "<<<REPLACE>>>",
        State::Replace | State::Overwrite => "<<<END>>>",
    };
    Some(fail(
        last,
        format!("block not closed: the reply ends before {expected}"),
        &id,
    ))
}

/// A SEARCH, OVERWRITE, REPLACE or END marker (`m`) on line `n` with no `<<<FILE>>>` before
/// it: an error, and its lines up to its END are taken so their text is not read as anything
/// else.
fn stray(text: &str, n: usize, m: &str, id: String) -> Taken {
    let err = error(
        ErrorCode::ReplacerSyntax,
        text,
        n,
        n,
        1,
        Some(id),
        format!(
            "<<<{m}>>> without a <<<FILE>>> before it: every replacer edit names its \
             file (`<<<FILE>>>`, the path on the next line, then `<<<SEARCH>>>` or \
             `<<<OVERWRITE>>>`); nothing from this line up to its <<<END>>> was run"
        ),
    );
    // Skip to its END, but not past any other marker (a reply of stray markers stays linear).
    let end = Lines::new(text)
        .enumerate()
        .skip(1)
        .find(|(_, l)| marker(l.text).is_some())
        .map_or(0, |(i, l)| {
            if marker(l.text) == Some("END") {
                i
            } else {
                i - 1
            }
        });
    Taken {
        lines: end + 1,
        blocks: Vec::new(),
        errors: vec![err],
    }
}

/// What a closed block holds.
struct Parts<'a> {
    path: &'a [&'a str],
    search: String,
    replace: String,
    overwrite: String,
    /// The block as written.
    source: &'a str,
}

fn finish(state: State, id: &str, n: usize, end: usize, parts: Parts<'_>) -> Taken {
    let Parts {
        path,
        search,
        replace,
        overwrite,
        source,
    } = parts;
    let mut invalid = Vec::new();
    let mut warnings = Vec::new();
    let file = match path {
        [one] => one.to_string(),
        [] => {
            invalid.push("no path after <<<FILE>>>".to_string());
            String::new()
        }
        many => {
            invalid.push(format!(
                "{} lines after <<<FILE>>> ({}): give exactly one path",
                many.len(),
                many.join(", ")
            ));
            String::new()
        }
    };
    let p = if state == State::Overwrite {
        props([
            ("action", "file_write"),
            ("path", &file),
            ("content", &overwrite),
        ])
    } else {
        let old = search;
        if old.is_empty() {
            invalid.push("empty <<<SEARCH>>> text".to_string());
        }
        let mut new = replace;
        if !new.is_empty() && new.trim().is_empty() {
            warnings.push(
                "the REPLACE text was only whitespace, read as a deletion (the replacer \
                 instructions' way to delete)"
                    .to_string(),
            );
            new.clear();
        }
        props([
            ("action", "file_replace_text"),
            ("path", &file),
            ("old_text", &old),
            ("new_text", &new),
        ])
    };
    let mut b = Block::foreign(Format::REPLACER, id.to_string(), p, n, n + end);
    b.invalid = (!invalid.is_empty()).then(|| invalid.join("; "));
    b.warnings = warnings;
    b.source = Some(source.to_string());
    Taken {
        lines: end + 1,
        blocks: vec![b],
        errors: Vec::new(),
    }
}
