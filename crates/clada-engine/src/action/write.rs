//! Executors of the write actions: file_write/create/append, the text-replacing family
//! (replace_text, replace_all_text, edit), file_replace_lines, file_delete, file_move and the
//! directory actions. Result data and error texts follow clada-semantics §4–§5.

use std::path::Path;

use serde_json::json;

use super::fsx::{node_error, text_refusal, EntryKind, GitInside, MAX_TEXT_BYTES};
use super::line_edits::{count_lines, Tag};
use super::textmatch::{self, Hint};
use super::{Ctx, FileState, Outcome};
use crate::sandbox::ResolvedPath;

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Creates the parent directories of `path`.
pub(super) fn make_parents(ctx: &mut Ctx<'_>, path: &ResolvedPath) -> std::io::Result<()> {
    match path.abs.parent() {
        Some(parent) => ctx.vfs.create_dir_all(parent),
        None => Ok(()),
    }
}

/// Reads a file for a text action: Node-style error when unreadable, a clear refusal when it
/// is too large or binary.
pub(super) fn read_text(
    ctx: &Ctx<'_>,
    action: &str,
    path: &ResolvedPath,
) -> Result<Vec<u8>, String> {
    let bytes = ctx
        .vfs
        .read(&path.abs)
        .map_err(|e| node_error(&e, &path.given, "open", None))?;
    match text_refusal(&bytes) {
        Some(why) => Err(text_refusal_message(action, path, bytes.len() as u64, why)),
        None => Ok(bytes),
    }
}

/// Why a text action refuses a file of `len` bytes ([`text_refusal`]'s verdict `why`).
fn text_refusal_message(action: &str, path: &ResolvedPath, len: u64, why: &str) -> String {
    if why == "too_large" {
        format!(
            "{action}: '{}' is {:.1} MiB, over the {} MiB limit for text actions; use file_write \
             to replace it whole, or edit it outside git-clada",
            path.given,
            len as f64 / (1024.0 * 1024.0),
            MAX_TEXT_BYTES / (1024 * 1024)
        )
    } else {
        format!(
            "{action}: '{}' looks binary (it has a NUL byte in its first 8 KiB); text actions \
             only work on text files — use file_write to replace it whole",
            path.given
        )
    }
}

/// file_write (`create_only = false`) and file_create.
pub(super) fn file_write(
    ctx: &mut Ctx<'_>,
    path: &ResolvedPath,
    content: &str,
    create_only: bool,
) -> Outcome {
    let exists = ctx.vfs.exists(&path.abs);
    // An empty file holds nothing to lose: file_create fills it, as editor tools do when an
    // edit's old text is empty and the file is.
    let filled = create_only
        && exists
        && matches!(ctx.vfs.state(&path.abs), Ok(FileState::File { ref bytes, .. }) if bytes.is_empty());
    if create_only && exists && !filled {
        return Outcome::fail(format!(
            "EEXIST: file already exists, open '{}' (file_create never overwrites; use \
             file_write to replace the file, or file_replace_text to change part of it)",
            path.given
        ));
    }
    if let Err(e) = make_parents(ctx, path) {
        return Outcome::fail(node_error(&e, &path.given, "open", None));
    }
    let (bytes, notes) = ctx.shape.shape(content, !exists || filled);
    if let Err(e) = ctx.vfs.write_file(&path.abs, &bytes, false) {
        return Outcome::fail(node_error(&e, &path.given, "open", None));
    }
    ctx.lines.reset(&path.abs);
    let mut out = Outcome::ok(json!({"path": path.given, "bytesWritten": bytes.len()}));
    out.warnings = notes;
    if filled {
        out.warnings.push(format!(
            "{} existed and was empty: it was filled",
            path.given
        ));
    }
    out
}

/// file_append. The file is not copied: its facts come from [`Vfs::text_info`] and the text is
/// added in place, so many appends to one file cost what their text costs.
///
/// [`Vfs::text_info`]: super::fsx::Vfs::text_info
pub(super) fn file_append(
    ctx: &mut Ctx<'_>,
    path: &ResolvedPath,
    content: &str,
    tag: &Tag,
) -> Outcome {
    const NAME: &str = "file_append";
    let info = match ctx.vfs.kind(&path.abs) {
        Ok(EntryKind::Dir) => {
            return Outcome::fail(format!(
                "EISDIR: illegal operation on a directory, open '{}'",
                path.given
            ))
        }
        Ok(_) => match ctx.vfs.text_info(&path.abs) {
            Ok(info) => Some(info),
            Err(e) => return Outcome::fail(node_error(&e, &path.given, "open", None)),
        },
        Err(_) => None,
    };
    let Some(info) = info else {
        if let Err(e) = make_parents(ctx, path) {
            return Outcome::fail(node_error(&e, &path.given, "open", None));
        }
        // A new file, shaped as file_write shapes one (final newline, .editorconfig).
        let (bytes, notes) = ctx.shape.shape(content, true);
        if let Err(e) = ctx.vfs.write_file(&path.abs, &bytes, false) {
            return Outcome::fail(node_error(&e, &path.given, "open", None));
        }
        ctx.lines.reset(&path.abs);
        let mut out = Outcome::ok(json!({
            "path": path.given,
            "bytesAppended": bytes.len(),
            "created": true,
        }));
        out.warnings = notes;
        return out;
    };
    if let Some(why) = info.refusal {
        return Outcome::fail(text_refusal_message(NAME, path, info.len, why))
            .with_code("not_text");
    }
    let mut warnings = Vec::new();
    let mut add = content.as_bytes().to_vec();
    if info.crlf && add.contains(&b'\n') {
        add = textmatch::lf_to_crlf(&add);
        warnings.push(
            "the file uses CRLF line endings, so the appended text's line breaks were written as \
             CRLF too"
                .to_string(),
        );
    }
    if info.len > 0
        && !info.ends_with_lf
        && !add.is_empty()
        && !add.starts_with(b"\n")
        && !add.starts_with(b"\r\n")
    {
        warnings.push(
            "the file did not end with a line break, so the appended text continues its last \
             line"
                .to_string(),
        );
    }
    // The rule of whole-file writes: the file ends with a line break unless configured not to.
    let ends_open = !add.is_empty() && !add.ends_with(b"\n") && !add.ends_with(b"\r");
    let rule = (ends_open && !add.contains(&0))
        .then(|| ctx.shape.final_newline())
        .flatten();
    if let Some(why) = rule {
        add.extend_from_slice(if info.crlf { b"\r\n" } else { b"\n" });
        warnings.push(format!("added a final newline ({why})"));
    }
    // The line map needs the content before the append (only its length, once it knows the
    // file).
    let lines = &mut ctx.lines;
    let recorded = ctx.vfs.with_content(&path.abs, |old| {
        lines.record_append(&path.abs, old, &add, tag)
    });
    if let Err(e) = recorded.and_then(|()| ctx.vfs.append(&path.abs, &add)) {
        return Outcome::fail(node_error(&e, &path.given, "open", None));
    }
    let mut out = Outcome::ok(json!({
        "path": path.given,
        "bytesAppended": add.len(),
        "created": false,
    }));
    out.warnings = warnings;
    out
}

/// How many occurrences a text-replacing action needs.
#[derive(Debug, Clone, Copy)]
pub(super) enum Rule {
    /// file_replace_text: exactly one.
    ExactlyOnce,
    /// file_edit: exactly `count`.
    Exactly(usize),
    /// file_replace_all_text: all of them, at least one, and exactly `count` when given.
    All(Option<usize>),
}

/// The text-replacing actions: find old_text exactly (with the CRLF tolerance), check the
/// occurrence rule, replace, or fail with a hint.
pub(super) fn replace(
    ctx: &mut Ctx<'_>,
    name: &str,
    path: &ResolvedPath,
    old: &str,
    new: &str,
    rule: Rule,
    tag: &Tag,
) -> Outcome {
    if old.is_empty() {
        return Outcome::fail(format!("{name}: old_text cannot be empty"));
    }
    let content = match read_text(ctx, name, path) {
        Ok(c) => c,
        Err(e) => return Outcome::fail(e),
    };
    let found = textmatch::locate(&content, old.as_bytes());
    let n = found.positions.len();
    let not_found = |message: String| {
        Outcome::fail(message).with_hint(textmatch::not_found_hint(&content, old, new, &path.given))
    };
    let lines = || textmatch::lines_of(&content, &found.positions);
    let ambiguous = || {
        Outcome::fail(format!(
            "{name}: old_text appears {n} times, must appear exactly once"
        ))
        .with_hint(Hint::Ambiguous {
            path: path.given.clone(),
            occurrences: n,
            lines: lines(),
        })
    };
    let mismatch = |expected: usize| {
        Outcome::fail(format!(
            "{name}: expected {expected} occurrences but found {n}"
        ))
        .with_hint(Hint::CountMismatch {
            path: path.given.clone(),
            expected,
            found: n,
            lines: lines(),
        })
    };
    match rule {
        Rule::ExactlyOnce | Rule::Exactly(1) if n == 0 => {
            return not_found(format!("{name}: old_text not found in file"))
        }
        Rule::ExactlyOnce | Rule::Exactly(1) if n > 1 => return ambiguous(),
        Rule::Exactly(c) if n == 0 => {
            return not_found(format!(
                "{name}: expected {c} occurrences but found 0 (old_text not found in file)"
            ))
        }
        Rule::Exactly(c) if n != c => return mismatch(c),
        Rule::All(Some(c)) if n != c => {
            if n == 0 {
                return not_found(format!("{name}: expected {c} occurrences but found 0"));
            }
            return mismatch(c);
        }
        Rule::All(None) if n == 0 => {
            return not_found(format!("{name}: old_text not found in file"))
        }
        _ => {}
    }
    // A CRLF file gets CRLF line breaks in new_text too, also when old_text matched as it
    // was (a single line): mixed line endings are never what the reply meant.
    let crlf_file = !found.crlf && crlf_breaks_needed(&content, new);
    let new_bytes = if found.crlf || crlf_file {
        textmatch::lf_to_crlf(new.as_bytes())
    } else {
        new.as_bytes().to_vec()
    };
    let result = textmatch::splice(&content, &found.positions, found.needle.len(), &new_bytes);
    if let Err(e) = ctx.vfs.write_file(&path.abs, &result, false) {
        return Outcome::fail(node_error(&e, &path.given, "open", None));
    }
    // Later edits first: an edit never moves the lines above it, so the pre-edit content is
    // the right reference for every position when they are recorded bottom-up.
    for &p in found.positions.iter().rev() {
        ctx.lines
            .record_bytes(&path.abs, &content, p, &found.needle, &new_bytes, tag);
    }
    let mut out = Outcome::ok(json!({"path": path.given, "replacements": n}));
    if found.crlf {
        out.warnings.push(
            "old_text matched only after converting its line breaks to CRLF (the file uses CRLF); \
             new_text was converted the same way"
                .to_string(),
        );
    }
    if crlf_file {
        out.warnings.push(CRLF_NEW_TEXT.to_string());
    }
    // Bytes are replaced as they are (an edit of a Latin-1 file stays exact); what is new is
    // UTF-8, so non-ASCII new text in such a file is said, not refused (real files mix them).
    if !new.is_ascii() && std::str::from_utf8(&content).is_err() {
        out.warnings.push(format!(
            "'{}' is not UTF-8 (an 8-bit encoding such as Latin-1) and new_text's non-ASCII \
             characters were written as UTF-8: the file now mixes two encodings",
            path.given
        ));
    }
    out
}

const CRLF_NEW_TEXT: &str =
    "the file uses CRLF line endings, so new_text's line breaks were written as CRLF too";

/// Whether `new` has bare LF line breaks that a CRLF file needs converted.
fn crlf_breaks_needed(content: &[u8], new: &str) -> bool {
    textmatch::uses_crlf(content) && textmatch::lf_to_crlf(new.as_bytes()) != new.as_bytes()
}

/// `file_replace_range`: each range runs from an occurrence of `start` to the first
/// occurrence of `end` after it (inclusive); the next range is searched after that (lazy,
/// non-overlapping). Exactly `count` ranges must exist. The CRLF tolerance is the one of the
/// other text actions: both texts are translated together when only that matches.
pub(super) fn replace_range(
    ctx: &mut Ctx<'_>,
    path: &ResolvedPath,
    [start, end]: [&str; 2],
    new: &str,
    count: usize,
    tag: &Tag,
) -> Outcome {
    const NAME: &str = "file_replace_range";
    if start.is_empty() || end.is_empty() {
        return Outcome::fail(format!("{NAME}: start_text and end_text cannot be empty"));
    }
    let content = match read_text(ctx, NAME, path) {
        Ok(c) => c,
        Err(e) => return Outcome::fail(e),
    };
    let ranges = |s: &[u8], e: &[u8]| -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        let mut pos = 0;
        while let Some(a) = memchr::memmem::find(&content[pos..], s).map(|i| i + pos) {
            let Some(b) = memchr::memmem::find(&content[a + s.len()..], e) else {
                break;
            };
            let stop = a + s.len() + b + e.len();
            out.push((a, stop));
            pos = stop;
        }
        out
    };
    let mut found = ranges(start.as_bytes(), end.as_bytes());
    let mut crlf = false;
    if found.is_empty() && textmatch::uses_crlf(&content) {
        let (s, e) = (
            textmatch::lf_to_crlf(start.as_bytes()),
            textmatch::lf_to_crlf(end.as_bytes()),
        );
        if (s != start.as_bytes() || e != end.as_bytes()) && !ranges(&s, &e).is_empty() {
            found = ranges(&s, &e);
            crlf = true;
        }
    }
    let n = found.len();
    if n == 0 {
        let why = if textmatch::locate(&content, start.as_bytes())
            .positions
            .is_empty()
        {
            "start_text not found in file"
        } else {
            "end_text not found after start_text"
        };
        let text = if why.starts_with("start") { start } else { end };
        return Outcome::fail(format!("{NAME}: {why}")).with_hint(textmatch::not_found_hint(
            &content,
            text,
            new,
            &path.given,
        ));
    }
    let starts: Vec<usize> = found.iter().map(|r| r.0).collect();
    if n != count {
        return Outcome::fail(format!("{NAME}: expected {count} ranges but found {n}")).with_hint(
            Hint::CountMismatch {
                path: path.given.clone(),
                expected: count,
                found: n,
                lines: textmatch::lines_of(&content, &starts),
            },
        );
    }
    let crlf_file = !crlf && crlf_breaks_needed(&content, new);
    let new_bytes = if crlf || crlf_file {
        textmatch::lf_to_crlf(new.as_bytes())
    } else {
        new.as_bytes().to_vec()
    };
    let mut result = Vec::with_capacity(content.len() + new_bytes.len() * n);
    let mut at = 0;
    for &(a, b) in &found {
        result.extend_from_slice(&content[at..a]);
        result.extend_from_slice(&new_bytes);
        at = b;
    }
    result.extend_from_slice(&content[at..]);
    if let Err(e) = ctx.vfs.write_file(&path.abs, &result, false) {
        return Outcome::fail(node_error(&e, &path.given, "open", None));
    }
    for &(a, b) in found.iter().rev() {
        ctx.lines
            .record_bytes(&path.abs, &content, a, &content[a..b], &new_bytes, tag);
    }
    let mut out = Outcome::ok(json!({"path": path.given, "replacements": n}));
    if crlf {
        out.warnings.push(
            "start_text/end_text matched only after converting their line breaks to CRLF (the \
             file uses CRLF); new_text was converted the same way"
                .to_string(),
        );
    }
    if crlf_file {
        out.warnings.push(CRLF_NEW_TEXT.to_string());
    }
    out
}

/// A line spec that failed to parse.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpecError {
    Invalid,
    Reversed,
}

/// `"4"` or `"23-43"` (whitespace around numbers allowed), 1-based inclusive.
pub(crate) fn parse_line_spec(spec: &str) -> Result<(usize, usize), SpecError> {
    let num = |s: &str| -> Result<usize, SpecError> {
        let t = s.trim();
        if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) {
            return Err(SpecError::Invalid);
        }
        match t.parse::<usize>() {
            Ok(n) if n >= 1 => Ok(n),
            _ => Err(SpecError::Invalid),
        }
    };
    if spec.trim().is_empty() {
        return Err(SpecError::Invalid);
    }
    if spec.contains('-') {
        let parts: Vec<&str> = spec.split('-').collect();
        if parts.len() != 2 {
            return Err(SpecError::Invalid);
        }
        let (a, b) = (num(parts[0])?, num(parts[1])?);
        if a > b {
            return Err(SpecError::Reversed);
        }
        Ok((a, b))
    } else {
        let n = num(spec)?;
        Ok((n, n))
    }
}

pub(crate) fn spec_error(action: &str, spec: &str, e: SpecError) -> String {
    match e {
        SpecError::Invalid => format!("{action}: Invalid line specification '{spec}'"),
        SpecError::Reversed => {
            format!("{action}: Invalid line range '{spec}' (start must be <= end)")
        }
    }
}

/// Lines with their terminators (`\n` or `\r\n`, empty for a last line without one); a final
/// line break does not start another line.
fn split_keep(text: &[u8]) -> Vec<(&[u8], &[u8])> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, &b) in text.iter().enumerate() {
        if b == b'\n' {
            let end = if i > start && text[i - 1] == b'\r' {
                i - 1
            } else {
                i
            };
            out.push((&text[start..end], &text[end..=i]));
            start = i + 1;
        }
    }
    if start < text.len() {
        out.push((&text[start..], &text[text.len()..]));
    }
    out
}

pub(super) fn replace_lines(
    ctx: &mut Ctx<'_>,
    path: &ResolvedPath,
    spec: &str,
    new_content: &str,
    tag: &Tag,
) -> Outcome {
    let edit = |lines: &[String]| Ok((new_content.to_string(), lines.len()));
    edit_lines(
        ctx,
        "file_replace_lines",
        path,
        spec,
        tag,
        "lines_replaced",
        &edit,
    )
}

/// What a line edit makes of the current lines of its range (each without its line break):
/// the new text and the count its result reports, or why it cannot.
pub(super) type LineEdit<'a> = dyn Fn(&[String]) -> Result<(String, usize), String> + 'a;

/// Replaces a line range (`"4"` / `"23-43"`, numbered as the file was before the reply, see
/// [`super::lines`]) with what `edit` makes of it: file_replace_lines, file_comment_lines,
/// file_uncomment_lines. The result's data is `{path, <count_key>: count}`.
pub(super) fn edit_lines(
    ctx: &mut Ctx<'_>,
    name: &str,
    path: &ResolvedPath,
    spec: &str,
    tag: &Tag,
    count_key: &str,
    edit: &LineEdit<'_>,
) -> Outcome {
    let content = match read_text(ctx, name, path) {
        Ok(c) => c,
        Err(e) => return Outcome::fail(e),
    };
    if content.is_empty() {
        return Outcome::fail(format!(
            "{name}: Line range {spec} is out of bounds (file has 0 lines)"
        ));
    }
    let (start, end) = match parse_line_spec(spec) {
        Ok(r) => r,
        Err(e) => return Outcome::fail(spec_error(name, spec, e)),
    };
    let base = ctx.lines.base_lines(&path.abs, &content);
    let current_count = count_lines(&content);
    if end > base {
        let had = if base == current_count {
            format!("file has {base} lines")
        } else {
            format!(
                "file had {base} lines before this reply's edits; line numbers refer to that \
                 version"
            )
        };
        return Outcome::fail(format!(
            "{name}: Line range {spec} is out of bounds ({had})"
        ));
    }
    let mapped = match ctx.lines.map(&path.abs, &content, start, end) {
        Ok(m) => m,
        Err(conflicts) => return Outcome::fail(overlap_error(name, spec, &conflicts)),
    };
    let (cs, ce) = (mapped.start, mapped.start + (end - start));

    let (bom, body) = match content.strip_prefix(BOM) {
        Some(rest) => (BOM, rest),
        None => (&b""[..], &content[..]),
    };
    let lines = split_keep(body);
    if ce > lines.len() {
        return Outcome::fail(format!(
            "{name}: Line range {spec} is out of bounds (file has {} lines)",
            lines.len()
        ));
    }
    let eol: &[u8] = if textmatch::uses_crlf(body) {
        b"\r\n"
    } else {
        b"\n"
    };
    let last_term = lines[ce - 1].1;
    let current: Vec<String> = lines[cs - 1..ce]
        .iter()
        .map(|(text, _)| String::from_utf8_lossy(text).into_owned())
        .collect();
    let (new_content, count) = match edit(&current) {
        Ok(x) => x,
        Err(e) => return Outcome::fail(format!("{name}: {e}")),
    };
    let new_text = new_content.replace("\r\n", "\n").replace('\r', "\n");
    let new_lines: Vec<&str> = new_text.split('\n').collect();
    let mut out = Vec::with_capacity(content.len() + new_content.len());
    out.extend_from_slice(bom);
    for (text, term) in &lines[..cs - 1] {
        out.extend_from_slice(text);
        out.extend_from_slice(term);
    }
    for (i, l) in new_lines.iter().enumerate() {
        out.extend_from_slice(l.as_bytes());
        if i + 1 < new_lines.len() {
            out.extend_from_slice(eol);
        } else {
            out.extend_from_slice(last_term);
        }
    }
    for (text, term) in &lines[ce..] {
        out.extend_from_slice(text);
        out.extend_from_slice(term);
    }
    if let Err(e) = ctx.vfs.write_file(&path.abs, &out, false) {
        return Outcome::fail(node_error(&e, &path.given, "open", None));
    }
    ctx.lines.record_lines(
        &path.abs,
        &content,
        cs,
        end - start + 1,
        new_lines.len(),
        tag,
    );
    let mut data = json!({"path": path.given});
    data[count_key] = json!(count);
    let mut result = Outcome::default();
    if cs != start {
        shifted_note(&mut data, (start, end), (cs, ce), &mapped.shifted_by);
    }
    result.success = true;
    result.data = Some(data);
    result
}

/// Why a line range cannot apply: an earlier block of the reply already changed part of it.
fn overlap_error(name: &str, spec: &str, conflicts: &[super::line_edits::Conflict]) -> String {
    let who: Vec<String> = conflicts
        .iter()
        .map(|c| match c.covered {
            Some((a, b)) if a == b => {
                format!(
                    "line {a} was already changed by block {} ({})",
                    c.tag.block_id, c.tag.action
                )
            }
            Some((a, b)) => format!(
                "lines {a}-{b} were already changed by block {} ({})",
                c.tag.block_id, c.tag.action
            ),
            None => format!(
                "block {} ({}) inserted lines inside this range",
                c.tag.block_id, c.tag.action
            ),
        })
        .collect();
    format!(
        "{name}: lines {spec} overlap an earlier edit of this reply: {}. Line numbers of \
         every file_replace_lines, file_comment_lines and file_uncomment_lines block \
         refer to the file before the reply, so overlapping edits cannot both apply — \
         merge them into one block",
        who.join("; ")
    )
}

/// The note (in `data`: `lineNumbering`, `currentLines`, `lineNote`) of a range the reply's
/// earlier blocks moved: informational, since the block used the documented numbering (the
/// file before the reply). It names the blocks whose net line change moved it.
fn shifted_note(
    data: &mut serde_json::Value,
    (start, end): (usize, usize),
    (cs, ce): (usize, usize),
    shifted_by: &[(Tag, isize)],
) {
    let now = if cs == ce {
        cs.to_string()
    } else {
        format!("{cs}-{ce}")
    };
    let orig = if start == end {
        format!("line {start}")
    } else {
        format!("lines {start}-{end}")
    };
    data["lineNumbering"] = json!("original");
    data["currentLines"] = json!(now);
    let by: Vec<String> = shifted_by
        .iter()
        .map(|(t, n)| {
            format!(
                "{} ({n:+} line{})",
                t.block_id,
                if n.abs() == 1 { "" } else { "s" }
            )
        })
        .collect();
    data["lineNote"] = json!(format!(
        "{orig} of the file before this reply {} now at {} {now}, moved by block {}; the edit was made there, as the numbering rule says",
        if start == end { "is" } else { "are" },
        if cs == ce { "line" } else { "lines" },
        by.join(", block ")
    ));
}

/// Removes the directories that removing `gone` emptied (see [`super::fsx::Vfs::prune_emptied`]).
/// A failure here is no failure of the action: its entry is gone either way.
pub(super) fn prune_after(ctx: &mut Ctx<'_>, gone: &Path) {
    if let Some(parent) = gone.parent() {
        let _ = ctx.vfs.prune_emptied(parent, ctx.sandbox.root());
    }
}

pub(super) fn file_delete(ctx: &mut Ctx<'_>, path: &ResolvedPath) -> Outcome {
    if let Err(e) = ctx.vfs.remove_file(&path.abs) {
        return Outcome::fail(node_error(&e, &path.given, "unlink", None));
    }
    ctx.lines.reset(&path.abs);
    prune_after(ctx, &path.abs);
    Outcome::ok(json!({"path": path.given}))
}

pub(super) fn file_move(ctx: &mut Ctx<'_>, from: &ResolvedPath, to: &ResolvedPath) -> Outcome {
    if !ctx.vfs.exists(&from.abs) {
        return Outcome::fail(format!(
            "file_move: Source file not found '{}' (ENOENT)",
            from.given
        ));
    }
    let overwrote = from.abs != to.abs
        && matches!(
            ctx.vfs.kind(&to.abs),
            Ok(EntryKind::File { .. }) | Ok(EntryKind::Symlink)
        );
    if from.abs != to.abs && to.abs.starts_with(&from.abs) {
        return move_into_own_folder(ctx, from, to);
    }
    if from.abs != to.abs {
        if let Err(e) = make_parents(ctx, to) {
            return Outcome::fail(node_error(&e, &from.given, "rename", Some(&to.given)));
        }
        if let Err(e) = ctx.vfs.rename(&from.abs, &to.abs) {
            if let Some(git) = GitInside::find(&e) {
                return Outcome::fail(git_inside(ctx, "move", &from.given, git));
            }
            return Outcome::fail(node_error(&e, &from.given, "rename", Some(&to.given)));
        }
        ctx.lines.rename(&from.abs, &to.abs);
        prune_after(ctx, &from.abs);
    }
    let mut data = json!({"old_path": from.given, "new_path": to.given});
    if overwrote {
        data["overwrote"] = json!(true);
    }
    Outcome::ok(data)
}

/// `file_move` of a file into a folder of its own name (`bench` → `bench/bench`): the file's
/// bytes are held in memory while its name becomes the folder. A kill in between loses
/// nothing: the journal holds the file's prior state, so undo puts it back.
fn move_into_own_folder(ctx: &mut Ctx<'_>, from: &ResolvedPath, to: &ResolvedPath) -> Outcome {
    let (bytes, executable) = match ctx.vfs.state(&from.abs) {
        Ok(FileState::File { bytes, executable }) => (bytes, executable),
        Ok(_) => {
            return Outcome::fail(format!(
                "file_move: cannot move '{}' into '{}', which is inside it (EINVAL); only a \
                 regular file can become a folder of its own name",
                from.given, to.given
            ))
        }
        Err(e) => return Outcome::fail(node_error(&e, &from.given, "rename", Some(&to.given))),
    };
    let moved = ctx
        .vfs
        .remove_file(&from.abs)
        .and_then(|()| make_parents(ctx, to))
        .and_then(|()| ctx.vfs.write_file(&to.abs, &bytes, executable));
    if let Err(e) = moved {
        return Outcome::fail(node_error(&e, &from.given, "rename", Some(&to.given)));
    }
    ctx.lines.rename(&from.abs, &to.abs);
    Outcome::ok(json!({"old_path": from.given, "new_path": to.given}))
}

/// The refusal of a recursive delete or a move of a tree that holds a `.git` entry.
fn git_inside(ctx: &Ctx<'_>, verb: &str, given: &str, git: &Path) -> String {
    let shown = ctx
        .sandbox
        .rel(git)
        .unwrap_or_else(|| git.display().to_string());
    format!(
        "git_dir: '{given}' contains the git directory '{shown}' (a nested repository or \
         submodule); git-clada never deletes or moves git's data — {verb} the other entries one \
         by one, or handle the nested repository yourself"
    )
}

pub(super) fn dir_create(ctx: &mut Ctx<'_>, path: &ResolvedPath) -> Outcome {
    match ctx.vfs.kind(&path.abs) {
        Ok(EntryKind::Dir) => {
            return Outcome::ok(json!({"path": path.given, "created": false}));
        }
        Ok(_) => {
            return Outcome::fail(format!(
                "EEXIST: file already exists, mkdir '{}' (a file is in the way)",
                path.given
            ))
        }
        Err(_) => {}
    }
    if let Err(e) = ctx.vfs.create_dir_all(&path.abs) {
        return Outcome::fail(node_error(&e, &path.given, "mkdir", None));
    }
    Outcome::ok(json!({"path": path.given, "created": true}))
}

pub(super) fn dir_delete(ctx: &mut Ctx<'_>, path: &ResolvedPath, recursive: bool) -> Outcome {
    match ctx.vfs.remove_dir(&path.abs, recursive) {
        Ok(removed) => {
            prune_after(ctx, &path.abs);
            let mut data = json!({"path": path.given});
            if recursive {
                data["removedEntries"] = json!(removed.len());
            }
            Outcome::ok(data)
        }
        Err(e) if e.kind() == std::io::ErrorKind::Other => {
            Outcome::fail(format!("dir_delete: {e}"))
        }
        Err(e) if e.raw_os_error() == Some(libc::ENOTEMPTY) => Outcome::fail(format!(
            "{} (add recursive = \"true\" to delete it with everything inside)",
            node_error(&e, &path.given, "rmdir", None)
        )),
        Err(e) => Outcome::fail(node_error(&e, &path.given, "rmdir", None)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_specs() {
        assert_eq!(parse_line_spec("4"), Ok((4, 4)));
        assert_eq!(parse_line_spec(" 2 - 3 "), Ok((2, 3)));
        assert_eq!(parse_line_spec("5-3"), Err(SpecError::Reversed));
        for bad in ["", "abc", "0", "-1", "1-2-3", "-1-5", "2abc", "1-"] {
            assert_eq!(parse_line_spec(bad), Err(SpecError::Invalid), "{bad}");
        }
    }

    #[test]
    fn split_keeps_terminators() {
        let v = split_keep(b"a\r\nb\nc");
        assert_eq!(
            v,
            vec![
                (&b"a"[..], &b"\r\n"[..]),
                (&b"b"[..], &b"\n"[..]),
                (&b"c"[..], &b""[..])
            ]
        );
        assert_eq!(split_keep(b"a\n").len(), 1);
    }
}
