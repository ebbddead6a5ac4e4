//! CSL, the Clada Syntax Language (seed 002, `bigfoothq/csl-parser`): marker lines
//! `<---OP attrs--->` … `<---END--->`.
//!
//! Syntax errors are fatal for the whole reply (the seed's model: the parser throws); problems
//! of one operation (a missing `file`, a bad `count`, an empty RUN) only make that operation
//! invalid. A TASKS block is an atomic group ([`GroupKind::Atomic`]).
//!
//! Mapping: WRITE → `file_write` (`append="true"` → `file_append`); RUN → `exec` (bash, `dir` →
//! `cwd`); SEARCH → `file_edit` with `count` (default 1), `count="all"` →
//! `file_replace_all_text`, the range form with `<---TO--->` → `file_replace_range`.

use indexmap::IndexMap;

use super::block::{Block, ErrorCode, Format, GroupKind, ParseError};
use super::lines::{Line, Lines};
use super::scan::{error, group, next_id, FrontEnd, Registration, Span, Taken, TaskIds};

impl Format {
    pub const CSL: Format = Format {
        id: "csl",
        name: "CSL",
        reference: false,
    };
}

pub(super) static FRONT_END: Registration = Registration::new(
    &[(
        Format::CSL,
        "Only CSL: `<---WRITE file=\"…\"--->` … `<---END--->` (seed 002)",
    )],
    |text, _| Box::new(Csl { text }),
);

/// The CSL front end: a block opens on a line starting with `<---`.
struct Csl<'a> {
    text: &'a str,
}

impl<'a> FrontEnd<'a> for Csl<'a> {
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

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Write,
    Run,
    Search,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Write => "WRITE",
            Kind::Run => "RUN",
            Kind::Search => "SEARCH",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Part {
    Content,
    Pattern,
    To,
    Replace,
}

struct Op {
    kind: Kind,
    /// 0-based index of the marker line in `lines`.
    at: usize,
    attrs: Vec<(String, String)>,
    part: Part,
    /// Byte offset of the marker line.
    offset: usize,
    content: Span,
    pattern: Span,
    to: Option<Span>,
    replace: Span,
}

/// A parsed marker line: the operation name and its attributes.
struct Marker {
    name: String,
    attrs: Vec<(String, String)>,
}

/// Reads a marker line `<---NAME attrs--->` (the whole line; nothing may follow).
fn marker(line: &str) -> Result<Marker, String> {
    let body = line
        .strip_prefix("<---")
        .ok_or_else(|| "a marker starts with `<---`".to_string())?;
    let name_len = body
        .bytes()
        .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_')
        .count();
    if name_len == 0 {
        return Err("malformed marker: no operation name after `<---` (write `<---WRITE file=\"path\"--->`, `<---RUN--->`, `<---SEARCH file=\"path\"--->` or `<---TASKS--->`)".into());
    }
    let name = body[..name_len].to_string();
    let rest = &body[name_len..];
    let Some(close) = rest.find("--->") else {
        return Err(format!(
            "malformed marker: `<---{name}` is not closed by `--->` on the same line"
        ));
    };
    if !rest[close + 4..].is_empty() {
        return Err(format!(
            "content not allowed on a marker line: `{}` follows `--->` (put it on the next line)",
            &rest[close + 4..]
        ));
    }
    let attr_text = &rest[..close];
    if !attr_text.is_empty() && !attr_text.starts_with(char::is_whitespace) {
        return Err(format!(
            "malformed marker: `{name}` must be followed by a space or `--->`"
        ));
    }
    Ok(Marker {
        name,
        attrs: attributes(attr_text)?,
    })
}

/// `key="value"` / `key='value'` pairs; `\"`, `\'` and `\\` are escapes inside values.
fn attributes(s: &str) -> Result<Vec<(String, String)>, String> {
    let mut out: Vec<(String, String)> = Vec::new();
    let mut it = s.char_indices().peekable();
    loop {
        while it.peek().is_some_and(|(_, c)| c.is_whitespace()) {
            it.next();
        }
        let Some(&(start, _)) = it.peek() else {
            break;
        };
        let mut end = start;
        while let Some(&(i, c)) = it.peek() {
            if c.is_whitespace() || c == '=' {
                break;
            }
            end = i + c.len_utf8();
            it.next();
        }
        let name = &s[start..end];
        if name.is_empty() {
            return Err("invalid attribute syntax: `=` without a name".into());
        }
        while it.peek().is_some_and(|(_, c)| c.is_whitespace()) {
            it.next();
        }
        if it.next().map(|(_, c)| c) != Some('=') {
            return Err(format!("expected `=` after attribute name `{name}`"));
        }
        while it.peek().is_some_and(|(_, c)| c.is_whitespace()) {
            it.next();
        }
        let quote = match it.next() {
            Some((_, q @ ('"' | '\''))) => q,
            Some(_) => {
                return Err(format!(
                    "unquoted value for attribute `{name}` (write {name}=\"…\")"
                ))
            }
            None => return Err(format!("missing value for attribute `{name}`")),
        };
        let mut value = String::new();
        let mut closed = false;
        while let Some((_, c)) = it.next() {
            if c == '\\' {
                match it.peek() {
                    Some(&(_, n)) if n == quote || n == '\\' => {
                        value.push(n);
                        it.next();
                    }
                    _ => value.push(c),
                }
            } else if c == quote {
                closed = true;
                break;
            } else {
                value.push(c);
            }
        }
        if !closed {
            return Err(format!("unterminated quoted value of attribute `{name}`"));
        }
        if out.iter().any(|(k, _)| k == name) {
            return Err(format!("duplicate attribute: {name}"));
        }
        out.push((name.to_string(), value));
    }
    Ok(out)
}

/// Reads a CSL block starting at the first line of `text` (line number `n`).
fn take(text: &str, n: usize, counter: &mut usize) -> Option<Taken> {
    if !text.starts_with("<---") {
        return None;
    }
    let mut p = Parser {
        text,
        n,
        count: 0,
        blocks: Vec::new(),
        counter,
        tasks: None,
    };
    Some(match p.run() {
        Ok(lines) => Taken {
            lines,
            blocks: p.blocks,
            errors: Vec::new(),
        },
        Err((at, message)) => {
            // An operation this parser does not know still ends at its END marker: skip to
            // it, so its content is not read as more errors.
            let lines = if message.starts_with("unterminated") {
                // Everything after an unterminated operation is its content.
                p.count
            } else if message.starts_with("unknown operation") {
                Lines::new(text)
                    .skip(at + 1)
                    .position(|l| l.text == "<---END--->")
                    .map_or(at + 1, |k| at + k + 2)
            } else {
                at + 1
            };
            let error = p.fatal(at, message);
            Taken {
                lines,
                blocks: Vec::new(),
                errors: vec![error],
            }
        }
    })
}

struct Tasks {
    at: usize,
    id: String,
    members: Vec<Block>,
}

struct Parser<'a, 'c> {
    text: &'a str,
    n: usize,
    /// Lines read so far.
    count: usize,
    blocks: Vec<Block>,
    counter: &'c mut usize,
    tasks: Option<Tasks>,
}

impl<'a> Parser<'a, '_> {
    fn fatal(&mut self, at: usize, message: String) -> ParseError {
        let id = match self.tasks.as_ref() {
            Some(t) => t.id.clone(),
            None => next_id(self.counter),
        };
        let id = Some(id);
        error(
            ErrorCode::CslSyntax,
            self.text,
            self.n,
            self.n + at,
            1,
            id,
            format!(
                "CSL syntax error: {message}. CSL syntax errors stop the whole reply (nothing \
                 was run); fix the marker and send the reply again"
            ),
        )
    }

    /// Reads up to the end of the block; returns the number of lines taken, or the 0-based
    /// line of a syntax error and its message.
    fn run(&mut self) -> Result<usize, (usize, String)> {
        let mut op: Option<Op> = None;
        for (i, line) in Lines::new(self.text).enumerate() {
            self.count = i + 1;
            let done = if op.is_some() {
                self.op_line(&mut op, i, line)?
            } else {
                self.marker_line(&mut op, i, line)?
            };
            if let Some(lines) = done {
                return Ok(lines);
            }
        }
        let last = self.count.saturating_sub(1);
        match (op, &self.tasks) {
            (Some(o), _) => Err((
                o.at,
                format!(
                    "unterminated {} operation: no `<---END--->` before the end of the reply",
                    o.kind.name()
                ),
            )),
            (None, Some(t)) => Err((
                t.at,
                "unterminated TASKS operation: no `<---END--->` before the end of the reply".into(),
            )),
            (None, None) => Ok(last + 1),
        }
    }

    /// A line (0-based `i`) inside the open operation: content, or a marker that moves it on.
    /// `Some(lines)` when the block is complete after this line.
    fn op_line(
        &mut self,
        op: &mut Option<Op>,
        i: usize,
        line: Line<'_>,
    ) -> Result<Option<usize>, (usize, String)> {
        let t = line.text;
        let Some(o) = op.as_mut() else {
            return Ok(None);
        };
        // Inside content only the markers that move this operation on are markers.
        let next = match (o.part, t) {
            (Part::Pattern, "<---TO--->") => Some(Part::To),
            (Part::Pattern | Part::To, "<---REPLACE--->") => Some(Part::Replace),
            (Part::Content | Part::Pattern | Part::Replace, "<---END--->") => None,
            _ => {
                if t.starts_with("<---") {
                    if let Some(m) = transition_with_extra(o.part, t) {
                        return Err((i, m));
                    }
                }
                match o.part {
                    Part::Content => o.content.push(line),
                    Part::Pattern => o.pattern.push(line),
                    Part::To => o.to.get_or_insert_with(Span::default).push(line),
                    Part::Replace => o.replace.push(line),
                }
                return Ok(None);
            }
        };
        match next {
            Some(Part::To) => {
                o.part = Part::To;
                o.to = Some(Span::default());
            }
            Some(part) => o.part = part,
            None => {
                if o.kind == Kind::Search && o.part == Part::Pattern {
                    return Err((
                        i,
                        "SEARCH needs `<---REPLACE--->` before `<---END--->`".into(),
                    ));
                }
                let Some(done) = op.take() else {
                    return Ok(None);
                };
                let block = self.block(done, i, line.end());
                match self.tasks.as_mut() {
                    Some(t) => t.members.push(block),
                    None => {
                        self.blocks.push(block);
                        return Ok(Some(i + 1));
                    }
                }
            }
        }
        Ok(None)
    }

    /// A line (0-based `i`) outside an operation: the first line, or a line inside TASKS.
    /// `Some(lines)` when the block is complete after this line.
    fn marker_line(
        &mut self,
        op: &mut Option<Op>,
        i: usize,
        line: Line<'_>,
    ) -> Result<Option<usize>, (usize, String)> {
        let t = line.text;
        if self.tasks.is_some() && !t.starts_with("<---") {
            return Ok(None);
        }
        let m = marker(t).map_err(|e| (i, e))?;
        match m.name.as_str() {
            "WRITE" | "RUN" | "SEARCH" => {
                let kind = match m.name.as_str() {
                    "WRITE" => Kind::Write,
                    "RUN" => Kind::Run,
                    _ => Kind::Search,
                };
                *op = Some(Op {
                    kind,
                    at: i,
                    attrs: m.attrs,
                    part: if kind == Kind::Search {
                        Part::Pattern
                    } else {
                        Part::Content
                    },
                    offset: line.start,
                    content: Span::default(),
                    pattern: Span::default(),
                    to: None,
                    replace: Span::default(),
                });
                Ok(None)
            }
            "TASKS" => {
                if self.tasks.is_some() {
                    return Err((i, "TASKS cannot be nested".into()));
                }
                let id = next_id(self.counter);
                self.tasks = Some(Tasks {
                    at: i,
                    id,
                    members: Vec::new(),
                });
                Ok(None)
            }
            "END" => {
                let Some(t) = self.tasks.take() else {
                    return Err((i, "END marker without an open operation".into()));
                };
                if !m.attrs.is_empty() {
                    return Err((i, "END marker cannot have attributes".into()));
                }
                let mut members = t.members;
                group(&mut members, &t.id, GroupKind::Atomic, "TASKS group");
                self.blocks.extend(members);
                Ok(Some(i + 1))
            }
            "TO" | "REPLACE" => Err((i, format!("{} marker outside a SEARCH operation", m.name))),
            other => Err((
                i,
                format!(
                    "unknown operation `{other}` (CSL has WRITE, RUN, SEARCH and TASKS; \
                     names are case-sensitive)"
                ),
            )),
        }
    }

    /// The block for a finished operation (its END marker on 0-based line `end`, which ends at
    /// byte `end_offset`).
    fn block(&mut self, o: Op, end: usize, end_offset: usize) -> Block {
        let text = self.text;
        let id = match self.tasks.as_ref() {
            Some(t) => format!("{}.{}", t.id, t.members.len() + 1),
            None => next_id(self.counter),
        };
        let attrs: IndexMap<String, String> = o.attrs.into_iter().collect();
        let mut warnings = Vec::new();
        let mut invalid: Vec<String> = Vec::new();
        let known: &[&str] = match o.kind {
            Kind::Write => &["file", "append"],
            Kind::Run => &["dir"],
            Kind::Search => &["file", "count"],
        };
        for k in attrs.keys().filter(|k| !known.contains(&k.as_str())) {
            warnings.push(format!(
                "unknown attribute '{k}' on {} ignored",
                o.kind.name()
            ));
        }
        let file = attrs.get("file").cloned();
        let mut props: IndexMap<String, String> = IndexMap::new();
        match o.kind {
            Kind::Write => {
                let action = match attrs.get("append").map(String::as_str) {
                    None | Some("false") => "file_write",
                    Some("true") => "file_append",
                    Some(other) => {
                        invalid.push(format!(
                            "Invalid value for 'append': must be \"true\" or \"false\", not \"{other}\""
                        ));
                        "file_write"
                    }
                };
                props.insert("action".into(), action.into());
                if let Some(f) = &file {
                    props.insert("path".into(), f.clone());
                }
                props.insert("content".into(), o.content.text(text));
            }
            Kind::Run => {
                let code = o.content.text(text);
                if code.is_empty() {
                    invalid.push("Empty RUN content: put the command between the markers".into());
                }
                props.insert("action".into(), "exec".into());
                props.insert("lang".into(), "bash".into());
                props.insert("code".into(), code);
                if let Some(d) = attrs.get("dir") {
                    props.insert("cwd".into(), d.clone());
                }
            }
            Kind::Search => {
                let pattern = o.pattern.text(text);
                if pattern.is_empty() {
                    invalid.push("Empty SEARCH pattern".into());
                }
                let count = attrs.get("count").map(String::as_str);
                let count_ok = match count {
                    None | Some("all") => true,
                    Some(c) => c.parse::<usize>().is_ok_and(|n| n > 0),
                };
                if !count_ok {
                    invalid.push(format!(
                        "Invalid value for 'count': must be positive integer or 'all', not \"{}\"",
                        count.unwrap_or_default()
                    ));
                }
                let new_text = o.replace.text(text);
                match &o.to {
                    Some(to) => {
                        let to = to.text(text);
                        if to.is_empty() {
                            invalid.push("Empty TO pattern".into());
                        }
                        if count == Some("all") {
                            invalid.push(
                                "count=\"all\" is not supported with <---TO--->: give the number of ranges"
                                    .into(),
                            );
                        }
                        props.insert("action".into(), "file_replace_range".into());
                        if let Some(f) = &file {
                            props.insert("path".into(), f.clone());
                        }
                        props.insert("start_text".into(), pattern);
                        props.insert("end_text".into(), to);
                        props.insert("new_text".into(), new_text);
                        props.insert("count".into(), count.unwrap_or("1").to_string());
                    }
                    None if count == Some("all") => {
                        props.insert("action".into(), "file_replace_all_text".into());
                        if let Some(f) = &file {
                            props.insert("path".into(), f.clone());
                        }
                        props.insert("old_text".into(), pattern);
                        props.insert("new_text".into(), new_text);
                    }
                    None => {
                        props.insert("action".into(), "file_edit".into());
                        if let Some(f) = &file {
                            props.insert("path".into(), f.clone());
                        }
                        props.insert("old_text".into(), pattern);
                        props.insert("new_text".into(), new_text);
                        props.insert("count".into(), count.unwrap_or("1").to_string());
                    }
                }
            }
        }
        if file.is_none() && o.kind != Kind::Run {
            invalid.insert(0, "Missing required attribute 'file'".into());
        }
        let mut b = Block::foreign(Format::CSL, id, props, self.n + o.at, self.n + end);
        b.warnings = warnings;
        b.invalid = (!invalid.is_empty()).then(|| invalid.join("; "));
        b.source = text.get(o.offset..end_offset).map(str::to_string);
        b
    }
}

/// A line inside content that is a marker this part accepts, but with something wrong: the
/// seed's "content not allowed on marker line" and "END marker cannot have attributes".
fn transition_with_extra(part: Part, line: &str) -> Option<String> {
    let accepted: &[&str] = match part {
        Part::Content | Part::Replace => &["END"],
        Part::Pattern => &["TO", "REPLACE", "END"],
        Part::To => &["REPLACE"],
    };
    for name in accepted {
        let exact = format!("<---{name}--->");
        if line.starts_with(&exact) && line.len() > exact.len() {
            return Some(format!(
                "content not allowed on a marker line: `{}` follows `{exact}`",
                &line[exact.len()..]
            ));
        }
        let with_attrs = format!("<---{name} ");
        if line.starts_with(&with_attrs) && line.ends_with("--->") {
            return Some(format!("{name} marker cannot have attributes"));
        }
    }
    None
}
