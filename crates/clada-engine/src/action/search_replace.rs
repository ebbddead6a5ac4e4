//! `file_search_replace`: aider's SEARCH/REPLACE edit with aider's matching cascade
//! (`aider.coders.editblock_coder`: `do_replace`, `replace_most_similar_chunk`).
//!
//! The search text is looked for as whole lines: exactly; then with a uniform difference in
//! leading whitespace (the replacement is re-indented the same way); then without a spurious
//! blank first line; then with `...` lines eliding unchanged code. Each tolerance used is a
//! warning. Where aider silently changes the first of several matches, this action refuses the
//! block with the occurrences (DESIGN §4: never pick one of several matches). An empty (or
//! whitespace-only) search appends the replacement to the file, or creates the file.
//!
//! Matching runs on the text with CRLF read as LF (aider reads files in text mode); lines
//! outside the match keep their bytes and new lines get the file's dominant line break. A file
//! without a last line break gets one, as aider writes every file it edits (a warning says
//! so), unless the final-newline rule of whole-file writes says otherwise for the path
//! (`files.final_newline: false`, `.editorconfig` `insert_final_newline = false`): then the
//! missing one is kept. An empty SEARCH appends REPLACE as aider does, continuing an
//! unterminated last line.

use serde_json::json;

use super::fsx::node_error;
use super::line_edits::Tag;
use super::locate::{occurrences, Text};
use super::textmatch::{self, Hint};
use super::write::read_text;
use super::{Ctx, Outcome};
use crate::sandbox::ResolvedPath;

const NAME: &str = "file_search_replace";
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Python's `str.isspace` (what aider's `strip`/`lstrip` remove): Unicode whitespace and the
/// ASCII separators U+001C..U+001F.
fn py_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

fn blank(s: &str) -> bool {
    s.chars().all(py_space)
}

fn lstrip(s: &str) -> &str {
    s.trim_start_matches(py_space)
}

/// Leading whitespace, in characters.
fn leading(s: &str) -> usize {
    s.chars().take_while(|&c| py_space(c)).count()
}

/// The first `n` characters of `s`.
fn first_chars(s: &str, n: usize) -> &str {
    s.char_indices().nth(n).map_or(s, |(i, _)| &s[..i])
}

/// `s` without its first `n` characters.
fn skip_chars(s: &str, n: usize) -> &str {
    s.char_indices().nth(n).map_or("", |(i, _)| &s[i..])
}

/// Lines with their `\n` (aider's `prep`: a text not ending in one gets one first).
fn prep(text: &str) -> Vec<&str> {
    text.split_inclusive('\n').collect()
}

/// Where the search text went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Found {
    /// Lines `first .. first + count` of the text become `new`.
    Lines {
        first: usize,
        count: usize,
        new: String,
        tolerances: Vec<String>,
    },
    /// The whole text after the `...` pieces were replaced (`pieces` of them).
    Whole { text: String, pieces: usize },
}

/// Why it went nowhere.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Miss {
    NotFound,
    /// 1-based first lines of the matches.
    Ambiguous(Vec<usize>),
}

/// Every window of `whole` equal to `part`, in linear time (a long SEARCH against a long file
/// that nearly matches at many places stays fast).
fn perfect(whole: &[&str], part: &[&str]) -> Vec<usize> {
    occurrences(whole, part, false)
}

/// aider's `match_but_for_leading_whitespace`: the prefix the window's lines have beyond the
/// part's, when it is the same on every non-blank line.
fn offset_prefix<'w>(window: &[&'w str], part: &[String]) -> Option<&'w str> {
    if !window.iter().zip(part).all(|(w, p)| lstrip(w) == lstrip(p)) {
        return None;
    }
    let mut add: Option<&str> = None;
    for (w, p) in window.iter().zip(part) {
        if blank(w) {
            continue;
        }
        // Python's w[:len(w) - len(p)], a negative end counting from the end.
        let end = w.chars().count() as isize - p.chars().count() as isize;
        let n = if end >= 0 {
            end as usize
        } else {
            (w.chars().count() as isize + end).max(0) as usize
        };
        let prefix = first_chars(w, n);
        match add {
            None => add = Some(prefix),
            Some(a) if a == prefix => {}
            Some(_) => return None,
        }
    }
    add
}

/// aider's `replace_part_with_missing_leading_whitespace`, counting every match.
fn whitespace(whole: &[&str], part: &[&str], replace: &[&str]) -> Result<Option<Found>, Miss> {
    let widths: Vec<usize> = part
        .iter()
        .chain(replace)
        .filter(|l| !blank(l))
        .map(|l| leading(l))
        .collect();
    let cut = widths.iter().copied().min().unwrap_or(0);
    let outdent = |lines: &[&str]| -> Vec<String> {
        lines
            .iter()
            .map(|l| {
                if blank(l) {
                    l.to_string()
                } else {
                    skip_chars(l, cut).to_string()
                }
            })
            .collect()
    };
    let part = outdent(part);
    let replace = outdent(replace);
    if part.len() > whole.len() {
        return Ok(None);
    }
    // Only where the lines match without their indentation (found in linear time) can the
    // indentation be the one difference.
    let stripped: Vec<&str> = whole.iter().map(|l| lstrip(l)).collect();
    let part_stripped: Vec<&str> = part.iter().map(|l| lstrip(l)).collect();
    let hits: Vec<(usize, &str)> = occurrences(&stripped, &part_stripped, false)
        .into_iter()
        .filter_map(|i| offset_prefix(&whole[i..i + part.len()], &part).map(|a| (i, a)))
        .collect();
    match hits.as_slice() {
        [] => Ok(None),
        [(i, add)] => {
            let new = replace
                .iter()
                .map(|r| {
                    if blank(r) {
                        r.clone()
                    } else {
                        format!("{add}{r}")
                    }
                })
                .collect();
            Ok(Some(Found::Lines {
                first: *i,
                count: part.len(),
                new,
                tolerances: vec![format!(
                    "the SEARCH lines matched lines {}-{} only after adjusting their leading \
                     whitespace (aider's indentation tolerance); the REPLACE lines were indented \
                     the same way",
                    i + 1,
                    i + part.len()
                )],
            }))
        }
        many => Err(Miss::Ambiguous(many.iter().map(|(i, _)| i + 1).collect())),
    }
}

/// aider's `perfect_or_whitespace`.
fn perfect_or_whitespace(
    whole: &[&str],
    part: &[&str],
    replace: &[&str],
) -> Result<Option<Found>, Miss> {
    match perfect(whole, part).as_slice() {
        [] => whitespace(whole, part, replace),
        [i] => Ok(Some(Found::Lines {
            first: *i,
            count: part.len(),
            new: replace.concat(),
            tolerances: Vec::new(),
        })),
        many => Err(Miss::Ambiguous(many.iter().map(|i| i + 1).collect())),
    }
}

/// aider's `try_dotdotdots`: `None` when neither text has `...` lines, `Err` when they do but
/// the pieces do not apply.
fn dotdotdots(whole: &str, part: &str, replace: &str) -> Option<Result<Found, Miss>> {
    let dots = regex::Regex::new(r"(?m)^\s*\.\.\.\n").ok()?;
    let split = |s: &'_ str| -> (Vec<String>, Vec<String>) {
        let mut pieces = Vec::new();
        let mut seps = Vec::new();
        let mut at = 0;
        for m in dots.find_iter(s) {
            pieces.push(s[at..m.start()].to_string());
            seps.push(m.as_str().to_string());
            at = m.end();
        }
        pieces.push(s[at..].to_string());
        (pieces, seps)
    };
    let (part_pieces, part_seps) = split(part);
    let (replace_pieces, replace_seps) = split(replace);
    if part_pieces.len() != replace_pieces.len() {
        return Some(Err(Miss::NotFound));
    }
    if part_pieces.len() == 1 {
        return None;
    }
    if part_seps != replace_seps {
        return Some(Err(Miss::NotFound));
    }
    let mut whole = whole.to_string();
    let mut pieces = 0;
    for (p, r) in part_pieces.iter().zip(&replace_pieces) {
        if p.is_empty() && r.is_empty() {
            continue;
        }
        if p.is_empty() {
            if !whole.ends_with('\n') {
                whole.push('\n');
            }
            whole.push_str(r);
            pieces += 1;
            continue;
        }
        let hits: Vec<usize> = whole.match_indices(p.as_str()).map(|(i, _)| i).collect();
        match hits.as_slice() {
            [] => return Some(Err(Miss::NotFound)),
            [at] => {
                whole.replace_range(*at..*at + p.len(), r);
                pieces += 1;
            }
            many => {
                let lines = textmatch::lines_of(whole.as_bytes(), many);
                return Some(Err(Miss::Ambiguous(lines)));
            }
        }
    }
    Some(Ok(Found::Whole {
        text: whole,
        pieces,
    }))
}

/// aider's `replace_most_similar_chunk` on `whole` (LF line breaks), counting matches: the
/// search text `part` (not blank) and its replacement.
pub fn cascade(whole: &str, part: &str, replace: &str) -> Result<Found, Miss> {
    let with_nl = |s: &str| {
        if s.is_empty() || s.ends_with('\n') {
            s.to_string()
        } else {
            format!("{s}\n")
        }
    };
    let (whole, part, replace) = (with_nl(whole), with_nl(part), with_nl(replace));
    let (w, p, r) = (prep(&whole), prep(&part), prep(&replace));
    // aider goes on to its next tolerance when a step leaves the file empty (an empty result
    // is false to it); the first such result is kept for when none leaves anything.
    let empties = |f: &Found| match f {
        Found::Lines {
            first, count, new, ..
        } => *first == 0 && *count == w.len() && new.is_empty(),
        Found::Whole { text, .. } => text.is_empty(),
    };
    let mut emptied = None;
    if let Some(found) = perfect_or_whitespace(&w, &p, &r)? {
        if !empties(&found) {
            return Ok(found);
        }
        emptied = Some(found);
    }
    if p.len() > 2 && blank(p[0]) {
        if let Some(mut found) = perfect_or_whitespace(&w, &p[1..], &r)? {
            if let Found::Lines { tolerances, .. } = &mut found {
                tolerances.insert(
                    0,
                    "the blank first line of SEARCH was ignored (aider's tolerance for a \
                     spurious leading blank line)"
                        .to_string(),
                );
            }
            if !empties(&found) {
                return Ok(found);
            }
            emptied.get_or_insert(found);
        }
    }
    match (dotdotdots(&whole, &part, &replace), emptied) {
        (Some(Ok(found)), emptied) if !empties(&found) || emptied.is_none() => Ok(found),
        (_, Some(found)) => Ok(found),
        (Some(found), None) => found,
        (None, None) => Err(Miss::NotFound),
    }
}

/// The file's text as aider reads it: CRLF as LF; UTF-8, or for a file that is not UTF-8
/// (Latin-1, Windows-1252) each byte as the character of the same number, so ASCII SEARCH
/// text matches the same bytes (aider with `--encoding`). `latin1` says which.
fn normalised(body: &[u8]) -> (String, bool) {
    let (s, latin1) = match std::str::from_utf8(body) {
        Ok(s) => (std::borrow::Cow::Borrowed(s), false),
        Err(_) => (body.iter().map(|&b| b as char).collect(), true),
    };
    let s = match s.contains("\r\n") {
        true => s.replace("\r\n", "\n"),
        false => s.into_owned(),
    };
    (s, latin1)
}

/// Why a SEARCH/REPLACE edit of a file that is not UTF-8 is refused: only ASCII text can be
/// matched against and written into bytes of an unknown 8-bit encoding without mixing two.
fn non_utf8_refusal(search: &str, replace: &str, path: &ResolvedPath) -> Option<String> {
    let which = match (search.is_ascii(), replace.is_ascii()) {
        (true, true) => return None,
        (false, _) => "SEARCH",
        (true, false) => "REPLACE",
    };
    Some(format!(
        "{NAME}: '{}' is not UTF-8 (an 8-bit encoding such as Latin-1) and {which} holds \
         non-ASCII text, which would mix two encodings in one file: write that text as ASCII, \
         or replace the file whole with file_write",
        path.given
    ))
}

/// Whether the lines a match took in a file that is not UTF-8 are ASCII (whitespace
/// tolerances can match a Latin-1 no-break space).
fn ascii_match(body: &[u8], found: &Found) -> bool {
    match found {
        Found::Lines { first, count, .. } => {
            let text = Text::new(body);
            let end = text.offset((first + count).min(text.len()));
            body[text.offset(*first)..end].is_ascii()
        }
        Found::Whole { .. } => true,
    }
}

/// `text` (LF line breaks) with the file's line break.
fn with_eol(text: &str, crlf: bool) -> Vec<u8> {
    if crlf {
        textmatch::lf_to_crlf(text.as_bytes())
    } else {
        text.as_bytes().to_vec()
    }
}

/// The executor.
pub(super) fn run(
    ctx: &mut Ctx<'_>,
    path: &ResolvedPath,
    search: &str,
    replace: &str,
    tag: &Tag,
) -> Outcome {
    if !ctx.vfs.exists(&path.abs) {
        if !blank(search) {
            return Outcome::fail(format!(
                "ENOENT: no such file or directory, open '{}' (an empty SEARCH section creates a \
                 file; this one has SEARCH text, so the file must exist)",
                path.given
            ));
        }
        return create(ctx, path, replace);
    }
    let content = match read_text(ctx, NAME, path) {
        Ok(c) => c,
        Err(e) => return Outcome::fail(e),
    };
    let (bom, body) = match content.strip_prefix(BOM) {
        Some(rest) => (BOM, rest),
        None => (&b""[..], &content[..]),
    };
    let crlf = textmatch::uses_crlf(body);
    if blank(search) {
        return append(ctx, path, &content, replace, crlf, tag);
    }
    let (whole, latin1) = normalised(body);
    if let Some(why) = latin1
        .then(|| non_utf8_refusal(search, replace, path))
        .flatten()
    {
        return Outcome::fail(why);
    }
    let found = match cascade(&whole, search, replace) {
        Ok(f) => f,
        Err(miss) => return missed(miss, &content, search, replace, path),
    };
    if latin1 && !ascii_match(body, &found) {
        return Outcome::fail(format!(
            "{NAME}: '{}' is not UTF-8, and the lines SEARCH matched hold non-ASCII bytes \
             (matched with aider's whitespace tolerance): make SEARCH match the lines exactly, \
             or replace the file whole with file_write",
            path.given
        ));
    }
    let rebuilt = matches!(found, Found::Whole { .. });
    let (mut out, replacements, mut warnings) = spliced(body, found, crlf);
    if latin1 && rebuilt {
        // `...` pieces rebuild the whole text from its characters: back to the file's own
        // bytes, one each (every character came from one byte, or is ASCII).
        out = String::from_utf8_lossy(&out)
            .chars()
            .map(|c| c as u8)
            .collect();
    }
    let unterminated = !body.is_empty() && !body.ends_with(b"\n");
    let rule = (unterminated && !out.is_empty())
        .then(|| ctx.shape.final_newline())
        .flatten();
    if let Some(why) = rule {
        if !out.ends_with(b"\n") {
            out.extend_from_slice(if crlf { b"\r\n" } else { b"\n" });
        }
        warnings.push(format!(
            "the file did not end with a line break; one was added, as aider ends every file it \
             edits with one ({why}; set it to false to keep a missing one)"
        ));
    }
    if out.is_empty() {
        warnings.push(
            "the edit removed every line: the file is now empty (aider counts an empty result as \
             a failed edit; git-clada applies it)"
                .to_string(),
        );
    }
    let data = json!({"path": path.given, "replacements": replacements});
    out.splice(0..0, bom.iter().copied());
    if let Err(e) = ctx.vfs.write_file(&path.abs, &out, false) {
        return Outcome::fail(node_error(&e, &path.given, "open", None));
    }
    ctx.lines.record_change(&path.abs, &content, &out, tag);
    let mut result = Outcome::ok(data);
    result.warnings = warnings;
    if crlf {
        result.warnings.push(
            "the file uses CRLF line endings: SEARCH was matched with them read as LF, and the \
             new lines were written with CRLF"
                .to_string(),
        );
    }
    result
}

/// The failed result for a SEARCH that matched no place, or several.
fn missed(miss: Miss, content: &[u8], search: &str, replace: &str, path: &ResolvedPath) -> Outcome {
    match miss {
        Miss::Ambiguous(lines) => Outcome::fail(format!(
            "{NAME}: the SEARCH lines occur {} times in '{}' (at lines {}); aider would change \
             the first, git-clada changes none: add a line before or after them that makes the \
             SEARCH section unique",
            lines.len(),
            path.given,
            lines
                .iter()
                .map(usize::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ))
        .with_hint(Hint::Ambiguous {
            path: path.given.clone(),
            occurrences: lines.len(),
            lines,
        }),
        Miss::NotFound => Outcome::fail(format!(
            "SearchReplaceNoExactMatch: this SEARCH block failed to exactly match lines in '{}'. \
             The SEARCH section must exactly match an existing block of lines including all \
             white space, comments, indentation, docstrings, etc.",
            path.given
        ))
        .with_hint(textmatch::not_found_hint(
            content,
            search,
            replace,
            &path.given,
        )),
    }
}

/// The file's new text (without its BOM) from what the cascade found in `body`: lines outside
/// the match keep their bytes, new lines get the file's line break, a missing last line break
/// stays missing. Returns it with the number of replacements and the tolerances used.
fn spliced(body: &[u8], found: Found, crlf: bool) -> (Vec<u8>, usize, Vec<String>) {
    let text = Text::new(body);
    match found {
        Found::Lines {
            first,
            count,
            new,
            tolerances,
        } => {
            let mut new = with_eol(&new, crlf);
            if first + count >= text.len() && text.unterminated() {
                trim_last_break(&mut new);
            }
            let mut out = Vec::with_capacity(body.len() + new.len());
            out.extend_from_slice(&body[..text.offset(first)]);
            out.extend_from_slice(&new);
            out.extend_from_slice(&body[text.offset((first + count).min(text.len()))..]);
            (out, 1, tolerances)
        }
        Found::Whole { text: new, pieces } => {
            let mut out = with_eol(&new, crlf);
            if text.unterminated() {
                trim_last_break(&mut out);
            }
            let warning = format!(
                "SEARCH and REPLACE use `...` lines for unchanged code; each of the {pieces} \
                 pieces between them was replaced where it occurs (aider's `...` tolerance)"
            );
            (out, pieces, vec![warning])
        }
    }
}

fn trim_last_break(b: &mut Vec<u8>) {
    if b.ends_with(b"\r\n") {
        b.truncate(b.len() - 2);
    } else if b.ends_with(b"\n") {
        b.truncate(b.len() - 1);
    }
}

/// An empty SEARCH on a missing file: the file is created with REPLACE.
fn create(ctx: &mut Ctx<'_>, path: &ResolvedPath, replace: &str) -> Outcome {
    // A whole-file write like file_create's (parents made, the configured final-newline and
    // .editorconfig shaping applied).
    let mut out = super::write::file_write(ctx, path, replace, true);
    if let Some(data) = out.data.as_mut() {
        data["created"] = json!(true);
    }
    if out.success && replace.is_empty() {
        out.warnings
            .push("SEARCH and REPLACE are both empty: the file was created empty".to_string());
    }
    out
}

/// An empty SEARCH on an existing file: REPLACE is appended, as aider does.
fn append(
    ctx: &mut Ctx<'_>,
    path: &ResolvedPath,
    content: &[u8],
    replace: &str,
    crlf: bool,
    tag: &Tag,
) -> Outcome {
    let add = with_eol(replace, crlf);
    let mut out = content.to_vec();
    out.extend_from_slice(&add);
    if let Err(e) = ctx.vfs.write_file(&path.abs, &out, false) {
        return Outcome::fail(node_error(&e, &path.given, "open", None));
    }
    ctx.lines.record_change(&path.abs, content, &out, tag);
    let mut result = Outcome::ok(json!({"path": path.given, "bytesAppended": add.len()}));
    result.warnings.push(
        "the SEARCH section is empty, so REPLACE was appended to the end of the file (as aider \
         does)"
            .to_string(),
    );
    if !content.is_empty() && !content.ends_with(b"\n") && !add.is_empty() {
        result.warnings.push(
            "the file did not end with a line break, so the appended text continues its last \
             line"
                .to_string(),
        );
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(f: Result<Found, Miss>) -> (usize, usize, String, usize) {
        match f {
            Ok(Found::Lines {
                first,
                count,
                new,
                tolerances,
            }) => (first, count, new, tolerances.len()),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn exact_then_indentation_then_blank_line() {
        let file = "def f():\n    x = 1\n    return x\n";
        assert_eq!(
            lines(cascade(file, "    x = 1\n", "    x = 2\n")),
            (1, 1, "    x = 2\n".into(), 0)
        );
        // Outdented SEARCH and REPLACE: the file's indentation is put back.
        assert_eq!(
            lines(cascade(file, "x = 1\nreturn x\n", "x = 2\nreturn x\n")),
            (1, 2, "    x = 2\n    return x\n".into(), 1)
        );
        assert_eq!(
            lines(cascade(file, "\n    x = 1\n    return x\n", "    y\n")),
            (1, 2, "    y\n".into(), 1)
        );
    }

    #[test]
    fn several_matches_are_refused() {
        assert_eq!(
            cascade("a\nb\na\n", "a\n", "c\n"),
            Err(Miss::Ambiguous(vec![1, 3]))
        );
        assert_eq!(
            cascade("  a\n    a\n", "a\n", "c\n"),
            Err(Miss::Ambiguous(vec![1, 2]))
        );
        assert_eq!(cascade("a\n", "zzz\n", "c\n"), Err(Miss::NotFound));
    }

    #[test]
    fn dots_elide_unchanged_code() {
        let file = "a\nb\nc\nd\n";
        let got = cascade(file, "a\n...\nd\n", "A\n...\nD\n").unwrap();
        assert_eq!(
            got,
            Found::Whole {
                text: "A\nb\nc\nD\n".into(),
                pieces: 2
            }
        );
        assert_eq!(
            cascade(file, "a\n...\nd\n", "A\nd\n"),
            Err(Miss::NotFound),
            "unpaired dots"
        );
    }

    #[test]
    fn a_step_that_would_empty_the_file_gives_way_to_the_next_as_in_aider() {
        // The whole file matched with its blank first line would leave nothing: aider takes
        // that for a miss and matches without the blank line, keeping it.
        assert_eq!(
            lines(cascade("\nx\ny\n", "\nx\ny\n", "")),
            (1, 2, String::new(), 1)
        );
        // Nothing else matches: the emptying match stands.
        assert_eq!(
            lines(cascade("x\ny\n", "x\ny\n", "")),
            (0, 2, String::new(), 0)
        );
    }

    #[test]
    fn python_slicing_of_a_deeper_search() {
        // The SEARCH is indented more than the file: aider outdents both texts first.
        assert_eq!(
            lines(cascade("x\n", "  x\n", "  y\n")),
            (0, 1, "y\n".into(), 1)
        );
    }
}
