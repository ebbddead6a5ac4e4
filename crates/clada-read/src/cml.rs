//! CML, the XML format of seed 004: `<tasks [version]>` groups and the task elements
//! `<write path [append]>`, `<edit path [count]>` (`<search>` or `<search-start>` +
//! `<search-end>`, and `<replace>`), `<move from to/>`, `<remove path/>`, `<run [dir]>`.
//!
//! Read with quick-xml from the opening tag to its matching end tag, so anything XML allows
//! (attributes in either quote, comments, entities, CDATA) is read as XML. Not well-formed XML
//! is a `MALFORMED_XML` error with its line and column; the rest of the reply still runs.
//! A `<tasks>` block is a [`GroupKind::StopOnFailure`] group.
//!
//! Mapping: write → `file_write` / `file_append`; edit → `file_edit` (count, default 1) or
//! `file_replace_range`; move → `file_move`; remove → `file_delete`; run → `exec` (bash,
//! `dir` → `cwd`). Content is the CDATA sections of the element, with `]]&gt;` read as `]]>`
//! (the seed's escape), or, without CDATA, its text with entities resolved.

use indexmap::IndexMap;
use quick_xml::events::{BytesStart, Event};
use quick_xml::Reader;

use super::block::{Block, ErrorCode, Format, GroupKind};
use super::lines::{len16, Line};
use super::scan::{error, group, next_id, props, FrontEnd, Registration, Taken, TaskIds};

impl Format {
    pub const CML: Format = Format {
        id: "cml",
        name: "CML",
        reference: false,
    };
}

pub(super) static FRONT_END: Registration = Registration::new(
    &[(
        Format::CML,
        "Only CML: `<tasks>`, `<write>`, `<edit>`, `<move>`, `<remove>`, `<run>` (seed 004)",
    )],
    |text, _| {
        Box::new(Cml {
            text,
            closers: Closers::default(),
        })
    },
);

/// The CML front end: an element opens on a line starting (after indentation) with one of
/// CML's top-level tags.
struct Cml<'a> {
    text: &'a str,
    closers: Closers,
}

impl<'a> FrontEnd<'a> for Cml<'a> {
    fn opens_with(&self) -> &'static [u8] {
        b"<"
    }

    fn may_open(&self, trimmed: &str) -> bool {
        trimmed.starts_with('<')
    }

    fn take(&mut self, ids: &mut TaskIds, line: Line<'a>, n: usize) -> Option<Taken> {
        take(self.text, line.start, n, ids.counter(), &mut self.closers)
    }
}

const TASKS: [&str; 5] = ["write", "edit", "move", "remove", "run"];

/// The element name a line opens, if it is one of CML's top-level elements.
fn opener(line: &str) -> Option<&'static str> {
    let t = line.trim_start().strip_prefix('<')?;
    ["tasks", "write", "edit", "move", "remove", "run"]
        .into_iter()
        .find(|name| {
            t.strip_prefix(name).is_some_and(|rest| {
                rest.is_empty()
                    || rest.starts_with(|c: char| c.is_whitespace() || c == '>' || c == '/')
            })
        })
}

/// One element as read: attributes, children and content.
#[derive(Debug, Default)]
struct El {
    name: String,
    attrs: IndexMap<String, String>,
    children: Vec<El>,
    /// Text outside CDATA (entities resolved).
    text: String,
    /// CDATA sections, concatenated.
    cdata: Option<String>,
    /// Byte offsets in the block's text of the start tag and one past the end tag.
    start: usize,
    end: usize,
    /// An attribute that could not be read.
    bad_attr: Option<String>,
}

impl El {
    fn new(e: &BytesStart<'_>, start: usize) -> El {
        let mut el = El {
            name: e.name().as_ref().to_string(),
            start,
            ..El::default()
        };
        for a in e.attributes() {
            match a {
                Ok(a) => {
                    let key = a.key.as_ref().to_string();
                    match a.normalized_value(quick_xml::XmlVersion::Implicit1_0) {
                        Ok(v) => {
                            el.attrs.insert(key, v.into_owned());
                        }
                        Err(err) => el.bad_attr = Some(format!("attribute {key}: {err}")),
                    }
                }
                Err(err) => el.bad_attr = Some(err.to_string()),
            }
        }
        el
    }

    /// The element's content: its CDATA (with the seed's `]]&gt;` escape undone) or its text.
    fn content(&self) -> String {
        match &self.cdata {
            Some(c) => c.replace("]]&gt;", "]]>"),
            None => self.text.clone(),
        }
    }
}

/// Where the next `</name>` (or `>`) starts at or after an offset, remembered per needle so
/// that many openers without a closer cost one scan of the reply, not one each.
#[derive(Debug, Default)]
struct Closers {
    /// (needle, searched from, found at).
    seen: Vec<(String, usize, Option<usize>)>,
}

impl Closers {
    fn next(&mut self, text: &str, needle: &str, from: usize) -> Option<usize> {
        let find = |from: usize| {
            memchr::memmem::find(text.as_bytes().get(from..)?, needle.as_bytes()).map(|i| i + from)
        };
        match self.seen.iter_mut().find(|e| e.0 == needle) {
            Some(e) => {
                match e.2 {
                    Some(p) if p >= from && e.1 <= from => return Some(p),
                    None if e.1 <= from => return None,
                    _ => {}
                }
                let found = find(from);
                e.1 = from;
                e.2 = found;
                found
            }
            None => {
                let found = find(from);
                self.seen.push((needle.to_string(), from, found));
                found
            }
        }
    }
}

/// Reads a CML element whose opening tag is on the line starting at byte `start` of `text`
/// (line number `n`), and any further elements that open on the line where one ends (`</tasks>
/// <write …>`).
fn take(
    text: &str,
    start: usize,
    n: usize,
    counter: &mut usize,
    closers: &mut Closers,
) -> Option<Taken> {
    let rest = text.get(start..)?;
    let first = rest.split('\n').next().unwrap_or("");
    opener(first)?;
    let indent = first.len() - first.trim_start().len();
    let (mut taken, mut end) = take_element(text, start + indent, n, counter, closers)?;
    while let Some(at) = end {
        let line_end = text[at..].find('\n').map_or(text.len(), |i| at + i);
        let tail = &text[at..line_end];
        let trimmed = tail.trim_start();
        if opener(trimmed).is_none() {
            break;
        }
        let line = n + taken.lines - 1;
        let Some((more, more_end)) = take_element(
            text,
            at + tail.len() - trimmed.len(),
            line,
            counter,
            closers,
        ) else {
            break;
        };
        taken.blocks.extend(more.blocks);
        taken.errors.extend(more.errors);
        taken.lines += more.lines.saturating_sub(1);
        end = more_end;
    }
    Some(taken)
}

/// Reads the CML element whose opening tag starts at byte `from` of `text`, on line `n`.
/// Returns what it took and, when it was read to its end tag, the byte offset after it. A
/// failed element takes every line up to the end tag it was read to, so nothing inside it
/// (an example `<remove>` in its content) is ever read as a block.
fn take_element(
    text: &str,
    from: usize,
    n: usize,
    counter: &mut usize,
    closers: &mut Closers,
) -> Option<(Taken, Option<usize>)> {
    let line_begin = text[..from].rfind('\n').map_or(0, |i| i + 1);
    let lead = &text[line_begin..from];
    let first = text[from..].split('\n').next().unwrap_or("");
    let name = opener(first)?;
    let xml_all = &text[from..];
    let line_of = |pos: usize| {
        n + memchr::memchr_iter(b'\n', &xml_all.as_bytes()[..pos.min(xml_all.len())]).count()
    };
    let lines_through = |pos: usize| line_of(pos) - n + 1;
    // The element is read from its opening tag up to a `</name>` (the next one, and further
    // ones while the text ends inside it: the element, a CDATA section or a comment still
    // open), or up to the first `>` when there is none (a self-closing element).
    let close = format!("</{name}>");
    let mut end = match closers.next(text, &close, from) {
        Some(c) => c + close.len(),
        None => closers.next(text, ">", from).map_or(text.len(), |g| g + 1),
    };
    let outcome = loop {
        let window = &text[from..end];
        match read(window) {
            Err((pos, _, cut)) if (cut || pos >= window.len()) && end < text.len() => {
                match closers.next(text, &close, end) {
                    Some(c) => end = c + close.len(),
                    None => break read(window),
                }
            }
            other => break other,
        }
    };
    let (pos, message, cut) = match outcome {
        Ok(root) => {
            let taken = lines_through(root.end.saturating_sub(1));
            let blocks = tasks(&root, xml_all, &line_of, counter);
            let after = from + root.end;
            return Some((
                Taken {
                    lines: taken,
                    blocks,
                    errors: Vec::new(),
                },
                Some(after),
            ));
        }
        Err((pos, message, cut)) => (pos, message, cut),
    };
    let id = next_id(counter);
    let unclosed = pos >= end - from;
    let line = line_of(pos);
    let line_start = xml_all[..pos.min(xml_all.len())]
        .rfind('\n')
        .map_or(0, |i| i + 1);
    let column = len16(&xml_all[line_start..pos.min(xml_all.len())])
        + 1
        + if line == n { len16(lead) } else { 0 };
    // Where the broken block ends: a <tasks> block that never closes takes everything up to
    // the next <tasks> (or the end), so none of its tasks runs on its own; another element
    // never closed only its first line; one whose text ends inside a CDATA section, a comment
    // or a tag everything it was read up to, so no line of its content is read again as a
    // block; a <tasks> block at its end tag; another element at the line of the error.
    let taken = if unclosed && name == "tasks" {
        match closers.next(text, "<tasks", from + "<tasks".len()) {
            Some(next) => lines_through(next - from).saturating_sub(1).max(1),
            None => lines_through(xml_all.len()),
        }
    } else if unclosed {
        1
    } else if cut {
        lines_through(end - from - 1)
    } else if name == "tasks" {
        xml_all[pos..].find(&close).map_or(lines_through(pos), |i| {
            lines_through(pos + i + close.len() - 1)
        })
    } else {
        lines_through(pos)
    };
    let err = error(
        ErrorCode::MalformedXml,
        &text[line_begin..],
        n,
        line,
        column,
        Some(id),
        format!(
            "malformed_xml: {message} (line {line}, column {column}) in the <{name}> \
             element that starts on line {n}; nothing in it was run"
        ),
    );
    Some((
        Taken {
            lines: taken,
            blocks: Vec::new(),
            errors: vec![err],
        },
        None,
    ))
}

/// How deep CML elements may nest. CML needs three levels (`<tasks>`, a task, its parts);
/// the limit keeps a hostile reply of 200,000 nested elements from exhausting the stack.
const MAX_DEPTH: usize = 64;

/// Why an element could not be read: the byte offset, the message, and whether the text
/// simply ended inside it (a CDATA section, a comment, a tag or the element itself still
/// open), so a longer window up to a later end tag may read it.
type ReadError = (usize, String, bool);

/// Reads the element at the start of `xml` up to its end tag.
fn read(xml: &str) -> Result<El, ReadError> {
    use quick_xml::errors::{Error, SyntaxError};
    let mut reader = Reader::from_str(xml);
    let mut stack: Vec<El> = Vec::new();
    loop {
        let before = reader.buffer_position() as usize;
        let event = reader.read_event().map_err(|e| {
            let cut = matches!(
                e,
                Error::Syntax(
                    SyntaxError::UnclosedCData
                        | SyntaxError::UnclosedComment
                        | SyntaxError::UnclosedTag
                        | SyntaxError::UnclosedPI
                        | SyntaxError::UnclosedDoctype
                        | SyntaxError::InvalidBangMarkup
                        | SyntaxError::UnclosedSingleQuotedAttributeValue
                        | SyntaxError::UnclosedDoubleQuotedAttributeValue
                )
            );
            (reader.error_position() as usize, e.to_string(), cut)
        })?;
        let after = reader.buffer_position() as usize;
        let done = match event {
            Event::Start(e) => {
                if stack.len() >= MAX_DEPTH {
                    return Err((
                        before,
                        format!(
                            "elements nested more than {MAX_DEPTH} levels deep (CML needs \
                             three: <tasks>, a task, its parts)"
                        ),
                        false,
                    ));
                }
                stack.push(El::new(&e, before));
                None
            }
            Event::Empty(e) => {
                let mut el = El::new(&e, before);
                el.end = after;
                Some(el)
            }
            Event::End(_) => stack.pop().map(|mut el| {
                el.end = after;
                el
            }),
            Event::Text(t) => {
                if let Some(top) = stack.last_mut() {
                    top.text.push_str(&t.into_inner());
                }
                None
            }
            Event::CData(c) => {
                if let Some(top) = stack.last_mut() {
                    top.cdata
                        .get_or_insert_with(String::new)
                        .push_str(&c.into_inner());
                }
                None
            }
            Event::GeneralRef(r) => {
                let resolved = match r.resolve_char_ref() {
                    Ok(Some(c)) => c.to_string(),
                    Ok(None) => match r.into_inner().as_ref() {
                        "lt" => "<".into(),
                        "gt" => ">".into(),
                        "amp" => "&".into(),
                        "quot" => "\"".into(),
                        "apos" => "'".into(),
                        other => return Err((before, format!("unknown entity &{other};"), false)),
                    },
                    Err(e) => return Err((before, e.to_string(), false)),
                };
                if let Some(top) = stack.last_mut() {
                    top.text.push_str(&resolved);
                }
                None
            }
            Event::Eof => {
                let open = stack.first().map(|e| e.name.as_str()).unwrap_or("element");
                return Err((
                    xml.len(),
                    format!("<{open}> is never closed (no matching </{open}> after it)"),
                    true,
                ));
            }
            Event::Comment(_) | Event::Decl(_) | Event::PI(_) | Event::DocType(_) => None,
        };
        if let Some(el) = done {
            match stack.last_mut() {
                Some(parent) => parent.children.push(el),
                None => return Ok(el),
            }
        }
    }
}

/// Versions of `<tasks version="…">` this build knows: the 0.x and 1.x protocol.
fn known_version(v: &str) -> bool {
    let major = v.split('.').next().unwrap_or("");
    matches!(major, "0" | "1")
        && v.split('.')
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
}

fn tasks(
    root: &El,
    xml: &str,
    line_of: &dyn Fn(usize) -> usize,
    counter: &mut usize,
) -> Vec<Block> {
    if root.name != "tasks" {
        return vec![task(root, next_id(counter), xml, line_of, None)];
    }
    let version = root.attrs.get("version");
    if let Some(v) = version.filter(|v| !known_version(v)) {
        let mut b = Block::foreign(
            Format::CML,
            next_id(counter),
            IndexMap::new(),
            line_of(root.start),
            line_of(root.end.saturating_sub(1)),
        );
        b.invalid = Some(format!(
            "unknown CML version \"{v}\" on <tasks>: this build reads versions 0.x and 1.x, so \
             none of the block's tasks was run (seed 004: an unknown version aborts the block)"
        ));
        b.source = xml.get(root.start..root.end).map(str::to_string);
        return vec![b];
    }
    let mut blocks = Vec::new();
    let mut skipped = Vec::new();
    for child in &root.children {
        if version.is_some() && !TASKS.contains(&child.name.as_str()) {
            skipped.push(format!(
                "unknown element <{}> on line {} skipped (versioned <tasks> block)",
                child.name,
                line_of(child.start)
            ));
            continue;
        }
        blocks.push(task(child, next_id(counter), xml, line_of, Some(())));
    }
    if let Some(first) = blocks.first_mut() {
        first.warnings.extend(skipped);
        let id = first.id.clone();
        group(&mut blocks, &id, GroupKind::StopOnFailure, "<tasks> block");
    }
    blocks
}

/// An `<edit>`'s parameters: `<search>` → file_edit, `<search-start>`/`<search-end>` →
/// file_replace_range; what is missing or conflicting goes to `invalid`.
fn edit_props(el: &El, path: &str, invalid: &mut Vec<String>) -> IndexMap<String, String> {
    let count = el.attrs.get("count").cloned().unwrap_or_else(|| "1".into());
    if !count.parse::<usize>().is_ok_and(|c| c > 0) {
        invalid.push(format!(
            "invalid_count: count=\"{count}\" must be a positive integer"
        ));
    }
    let child = |name: &str| el.children.iter().find(|c| c.name == name);
    let (search, start, end, replace) = (
        child("search"),
        child("search-start"),
        child("search-end"),
        child("replace"),
    );
    for c in &el.children {
        if !["search", "search-start", "search-end", "replace"].contains(&c.name.as_str()) {
            invalid.push(format!("unknown element <{}> in <edit>", c.name));
        }
    }
    let new_text = match replace {
        Some(r) => r.content(),
        None => {
            invalid.push("missing_replace_element: <edit> needs a <replace>".into());
            String::new()
        }
    };
    match (search, start, end) {
        (Some(s), None, None) => {
            let old = s.content();
            if old.is_empty() {
                invalid.push("empty_search: <search> is empty".into());
            }
            props([
                ("action", "file_edit"),
                ("path", path),
                ("old_text", &old),
                ("new_text", &new_text),
                ("count", &count),
            ])
        }
        (None, Some(s), Some(e)) => {
            let (s, e) = (s.content(), e.content());
            if s.is_empty() || e.is_empty() {
                invalid
                    .push("empty_search: <search-start> and <search-end> must not be empty".into());
            }
            props([
                ("action", "file_replace_range"),
                ("path", path),
                ("start_text", &s),
                ("end_text", &e),
                ("new_text", &new_text),
                ("count", &count),
            ])
        }
        (None, None, None) => {
            invalid.push(
                "missing_search_element: <edit> needs <search> or <search-start> and <search-end>"
                    .into(),
            );
            props([("action", "file_edit"), ("path", path)])
        }
        _ => {
            invalid.push("conflicting_search_modes: use either <search> or both <search-start> and <search-end>".into());
            props([("action", "file_edit"), ("path", path)])
        }
    }
}

/// One task element as a block.
fn task(
    el: &El,
    id: String,
    xml: &str,
    line_of: &dyn Fn(usize) -> usize,
    in_tasks: Option<()>,
) -> Block {
    let mut invalid: Vec<String> = Vec::new();
    let attr = |k: &str| el.attrs.get(k).cloned();
    let need = |k: &str, invalid: &mut Vec<String>| -> String {
        match el.attrs.get(k) {
            Some(v) if !v.is_empty() => v.clone(),
            Some(_) => {
                invalid.push(format!("Empty {k} attribute on <{}>", el.name));
                String::new()
            }
            None => {
                invalid.push(format!(
                    "Missing required attribute: {k} (on <{}>)",
                    el.name
                ));
                String::new()
            }
        }
    };
    let p: IndexMap<String, String> = match el.name.as_str() {
        "write" => {
            let path = need("path", &mut invalid);
            let action = match attr("append").as_deref() {
                None | Some("false") => "file_write",
                Some("true") => "file_append",
                Some(other) => {
                    invalid.push(format!(
                        "invalid append=\"{other}\": must be \"true\" or \"false\""
                    ));
                    "file_write"
                }
            };
            let content = el.content();
            let content = content.strip_prefix('\u{feff}').unwrap_or(&content);
            props([("action", action), ("path", &path), ("content", content)])
        }
        "edit" => {
            let path = need("path", &mut invalid);
            edit_props(el, &path, &mut invalid)
        }
        "move" => {
            let from = need("from", &mut invalid);
            let to = need("to", &mut invalid);
            props([
                ("action", "file_move"),
                ("old_path", &from),
                ("new_path", &to),
            ])
        }
        "remove" => {
            let path = need("path", &mut invalid);
            props([("action", "file_delete"), ("path", &path)])
        }
        "run" => {
            let code = match &el.cdata {
                Some(_) => el.content(),
                None => el.text.trim().to_string(),
            };
            if code.is_empty() {
                invalid.push("empty <run>: put the command inside it".into());
            }
            let mut p = props([("action", "exec"), ("lang", "bash"), ("code", &code)]);
            if let Some(d) = attr("dir") {
                p.insert("cwd".into(), d);
            }
            p
        }
        other => {
            invalid.push(format!(
                "unknown element <{other}>: CML tasks are <write>, <edit>, <move>, <remove> and <run>{}",
                if in_tasks.is_some() {
                    " (give <tasks> a version=\"1.0\" attribute to have unknown elements skipped)"
                } else {
                    ""
                }
            ));
            IndexMap::new()
        }
    };
    if let Some(bad) = &el.bad_attr {
        invalid.insert(0, format!("malformed attribute: {bad}"));
    }
    let mut b = Block::foreign(
        Format::CML,
        id,
        p,
        line_of(el.start),
        line_of(el.end.saturating_sub(1)),
    );
    b.invalid = (!invalid.is_empty()).then(|| invalid.join("; "));
    b.source = xml.get(el.start..el.end).map(str::to_string);
    b
}
