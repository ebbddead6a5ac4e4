//! Unified diffs, as `git diff` and `diff -u` write them and as models write them:
//!
//! ```text
//! diff --git a/src/app.py b/src/app.py
//! --- a/src/app.py
//! +++ b/src/app.py
//! @@ -1,3 +1,3 @@
//!  import os
//! -print("hi")
//! +print("hello")
//! ```
//!
//! A diff opens on a `diff --git` line, or on a `--- ` line followed by a `+++ ` line, and runs
//! over every file section that follows, up to the first line that belongs to none (prose, a
//! closing fence). Read: git's extended headers (`new file mode`, `deleted file mode`,
//! `old mode`/`new mode`, `rename from`/`rename to`, `similarity index`, `index`), `/dev/null`
//! for new and deleted files, `a/` `b/` prefixes (stripped when both sides have them or after
//! `diff --git`), C-quoted names, a tab and timestamp after a name (`diff -u`), hunks with
//! `\ No newline at end of file`, and CRs kept as content (a CRLF file's diff). A hunk's lines
//! (after their first character), and the section heading after its header's `@@`, may hold
//! bytes that are not UTF-8 ([`crate::raw`]: what `git diff` prints for a Latin-1 file); the
//! spans read are reported so that [`crate::parse`] refuses such bytes anywhere else.
//!
//! A hunk is read by its header's line counts, as `git apply` reads it: within them a
//! `--- x` / `+++ y` pair is a removed `-- x` and an added `++ y`, not a file header.
//! Tolerated, each a warning: hunk headers whose line counts are wrong (a hunk followed by
//! another hunk or file, or ending in context, is counted from its lines, as `git apply
//! --recount` does); `@@` headers without numbers. Wrong line numbers are the executor's
//! business (it places hunks by their context and reports the offset). Refused with the rest
//! of the diff, as `git apply` refuses them: a last hunk with fewer old lines than its header
//! promises and no context after its last change (the reply was cut off), and a corrupt
//! binary patch. Invalid blocks (and with them the diff): `Binary files … differ` (no content),
//! modes git does not write (anything but 100644, 100755, 120000, 160000), submodules, copies,
//! a type change (link ↔ file) within one section (git writes it as two).
//!
//! Symbolic links (mode 120000 on a `new file mode`, `deleted file mode`, `old`/`new mode` or
//! `index` line) are `file_patch` blocks with `symlink = "true"`: their hunk's one line is the
//! link's target, which the engine checks before it makes the link.
//!
//! Binary patches (`GIT binary patch`, [`super::binary`]) are decoded here and handed on as the
//! forward hunk's text with the `index` line's ids; the engine checks the file against them.
//!
//! Mapping: one `file_patch` block per file (`change = "create"` / `"delete"`, `new_path` for
//! a rename, `executable` for a mode change, `binary` and `index` for a binary patch), the
//! diff's blocks one all-or-nothing group, as `git apply` applies a patch.

use super::binary;
use super::lines::{Line, Lines};
use super::scan::{error, group, next_id, FrontEnd, Taken, TaskIds};
use super::{Block, ErrorCode, Format, GroupKind, ParseResult, Registration};
use indexmap::IndexMap;

impl Format {
    pub const DIFF: Format = Format {
        id: "diff",
        name: "unified diff",
        reference: false,
    };
}

pub(super) static FRONT_END: Registration = Registration::new(
    &[(
        Format::DIFF,
        "Only unified diffs: `diff --git a/… b/…` or `--- a/…` / `+++ b/…`, then `@@ -a,b +c,d @@` \
         hunks",
    )],
    |text, _| {
        Box::new(Diff {
            text,
            raw_spans: Vec::new(),
        })
    },
);

/// The unified-diff front end.
struct Diff<'a> {
    text: &'a str,
    /// Where bytes that are not UTF-8 may stand ([`crate::raw`]): the hunk lines of the diffs
    /// read, as byte ranges of the whole text.
    raw_spans: Vec<std::ops::Range<usize>>,
}

impl<'a> FrontEnd<'a> for Diff<'a> {
    fn opens_with(&self) -> &'static [u8] {
        b"d-"
    }

    fn may_open(&self, trimmed: &str) -> bool {
        trimmed.starts_with("diff --git ") || trimmed.starts_with("--- ")
    }

    fn take(&mut self, ids: &mut TaskIds, line: Line<'a>, n: usize) -> Option<Taken> {
        let text = self.text.get(line.start..).unwrap_or("");
        let mut reader = Reader {
            text,
            lines: Lines::new(text).peekable_lines(),
            raw_spans: Vec::new(),
        };
        if !reader.opens() {
            return None;
        }
        let taken = read_diff(&mut reader, n, ids.counter());
        if taken.errors.is_empty() {
            let at = line.start;
            self.raw_spans
                .extend(reader.raw_spans.iter().map(|r| r.start + at..r.end + at));
        }
        Some(taken)
    }

    fn finish(self: Box<Self>, result: &mut ParseResult) {
        result.raw_spans.extend(self.raw_spans);
    }
}

/// The lines of a diff, read one at a time with a look at the next two.
struct Reader<'a> {
    text: &'a str,
    lines: Peek<'a>,
    /// The byte ranges (of `text`) of the hunk lines read, after their first character: where
    /// bytes that are not UTF-8 may stand.
    raw_spans: Vec<std::ops::Range<usize>>,
}

/// A line iterator that can look two lines ahead and keeps every line's raw end (its CR).
struct Peek<'a> {
    inner: Lines<'a>,
    ahead: std::collections::VecDeque<Line<'a>>,
    /// Lines taken so far.
    taken: usize,
    /// Byte offset just past the last line taken.
    end: usize,
}

trait PeekableLines<'a> {
    fn peekable_lines(self) -> Peek<'a>;
}

impl<'a> PeekableLines<'a> for Lines<'a> {
    fn peekable_lines(self) -> Peek<'a> {
        Peek {
            inner: self,
            ahead: std::collections::VecDeque::new(),
            taken: 0,
            end: 0,
        }
    }
}

impl<'a> Peek<'a> {
    fn peek(&mut self, k: usize) -> Option<Line<'a>> {
        while self.ahead.len() <= k {
            let l = self.inner.next()?;
            self.ahead.push_back(l);
        }
        self.ahead.get(k).copied()
    }

    fn next(&mut self) -> Option<Line<'a>> {
        let l = self.ahead.pop_front().or_else(|| self.inner.next())?;
        self.taken += 1;
        self.end = l.end();
        Some(l)
    }
}

impl<'a> Reader<'a> {
    /// The text of the line `k` lines ahead. The empty "line" after a last line break is no
    /// line (it would read as an empty context line, or as context after a cut-off hunk).
    fn peek_text(&mut self, k: usize) -> Option<&'a str> {
        let end = self.text.len();
        self.lines
            .peek(k)
            .filter(|l| !(l.text.is_empty() && l.start >= end))
            .map(|l| l.text)
    }

    /// The line with a CR before its LF kept (content of a CRLF file's hunk).
    fn raw(&self, l: Line<'a>) -> &'a str {
        let end = l.end();
        match self.text.as_bytes().get(end) {
            Some(b'\r') if self.text.as_bytes().get(end + 1) == Some(&b'\n') => {
                self.text.get(l.start..end + 1).unwrap_or(l.text)
            }
            _ => l.text,
        }
    }

    /// Takes the next line as a line of a hunk (a CR before its LF kept); what follows its
    /// first character may hold bytes that are not UTF-8, unless it is a `\` line.
    fn body_line(&mut self) -> &'a str {
        let Some(l) = self.lines.next() else {
            return "";
        };
        let raw = self.raw(l);
        if raw.len() > 1 && !raw.starts_with('\\') {
            self.raw_spans.push(l.start + 1..l.start + raw.len());
        }
        raw
    }

    /// Takes the next line as a hunk header. The section heading after its closing `@@` (a
    /// line of the file, in the file's bytes as `git diff` prints it) is not read; it may hold
    /// bytes that are not UTF-8 too.
    fn hunk_header(&mut self) -> &'a str {
        let Some(header) = self.lines.next() else {
            return "";
        };
        if let Some(end) = header.text.get(2..).and_then(|t| t.find("@@")) {
            let from = header.start + 2 + end + 2;
            self.raw_spans.push(from..header.start + header.text.len());
        }
        header.text
    }

    /// Whether a file section starts at the next line.
    fn opens(&mut self) -> bool {
        match self.peek_text(0) {
            Some(t) if t.starts_with("diff --git ") => true,
            Some(t) if t.starts_with("--- ") => {
                self.peek_text(1).is_some_and(|n| n.starts_with("+++ "))
            }
            _ => false,
        }
    }
}

/// One file of the diff, as read.
#[derive(Debug, Default)]
struct FileDiff {
    /// Index of its first and last line in the diff, and the byte range of its text.
    first: usize,
    last: usize,
    start_byte: usize,
    end_byte: usize,
    git: Option<(String, String)>,
    old: Option<String>,
    new: Option<String>,
    /// `--- /dev/null` / `+++ /dev/null` were given.
    old_null: bool,
    new_null: bool,
    new_file: bool,
    deleted: bool,
    old_mode: Option<String>,
    new_mode: Option<String>,
    /// Every mode given, with the header line that gave it (`new mode`, …), to check them.
    modes: Vec<(&'static str, String)>,
    rename_from: Option<String>,
    rename_to: Option<String>,
    copy: bool,
    /// The two ids of the `index OLD..NEW` line.
    index: Option<(String, String)>,
    /// The mode after the ids (`index OLD..NEW MODE`: the file's mode when it stays).
    index_mode: Option<String>,
    /// `Binary files … differ`: a binary change without its content.
    binary_without_data: bool,
    /// `GIT binary patch`: the forward hunk (`literal N` / `delta N` and its data lines).
    binary: Option<String>,
    hunks: String,
    hunk_count: usize,
    /// The last hunk read, for the cut-off check.
    last_hunk: Option<HunkEnd>,
    warnings: Vec<String>,
}

/// How the last hunk of a file section ended.
#[derive(Debug, Default, Clone, Copy)]
struct HunkEnd {
    /// Index of its header line in the diff.
    at: usize,
    /// Old lines its header promises (`None` for a bare `@@`).
    promised_old: Option<usize>,
    old: usize,
    /// Its lines after the header.
    lines: usize,
    /// Context lines after its last change.
    trailing_context: usize,
}

impl HunkEnd {
    /// How the hunk whose header is line `at` ended, with `old` old lines read into `body`.
    fn of(at: usize, promised_old: Option<usize>, old: usize, body: &[String]) -> HunkEnd {
        let change = |l: &&String| matches!(l.chars().next(), Some('-' | '+'));
        HunkEnd {
            at,
            promised_old,
            old,
            lines: body.len(),
            trailing_context: body
                .iter()
                .rev()
                .filter(|l| !l.starts_with('\\'))
                .take_while(|l| !change(l))
                .count(),
        }
    }
}

/// A syntax error: the index of its line in the diff and the message.
type Bad = (usize, String);

fn read_diff(r: &mut Reader<'_>, n: usize, counter: &mut usize) -> Taken {
    let mut files = Vec::new();
    let result = loop {
        if !r.opens() {
            break Ok(());
        }
        match file(r) {
            Ok(f) => files.push(f),
            Err(e) => break Err(e),
        }
    };
    let result = result.and_then(|()| cut_off(files.last(), n));
    let taken = r.lines.taken.max(1);
    match result {
        Err((at, message)) => Taken {
            lines: taken,
            blocks: Vec::new(),
            errors: vec![error(
                ErrorCode::DiffSyntax,
                r.text,
                n,
                n + at,
                1,
                Some(next_id(counter)),
                format!(
                    "{message}; nothing of this diff (line {n}) was run, as `git apply` applies \
                     nothing of a patch it cannot read"
                ),
            )],
        },
        Ok(()) => {
            let git = files.iter().any(|f| f.git.is_some());
            let mut blocks: Vec<Block> = files
                .into_iter()
                .map(|f| block(r.text, f, n, git, counter))
                .collect();
            if let Some(gid) = blocks.first().map(|b| b.id.clone()) {
                group(&mut blocks, &gid, GroupKind::Atomic, "diff");
            }
            Taken {
                lines: taken,
                blocks,
                errors: Vec::new(),
            }
        }
    }
}

/// A diff whose last hunk has fewer old lines than its header promises and no context after
/// its last change was cut off (a reply that ended mid-hunk): refused, as `git apply` and GNU
/// `patch` refuse it. A hunk followed by another hunk or file, or ending in context, is a
/// miscounted one and is recounted instead.
fn cut_off(last: Option<&FileDiff>, n: usize) -> Result<(), Bad> {
    let Some(h) = last.and_then(|f| f.last_hunk) else {
        return Ok(());
    };
    match h.promised_old {
        Some(promised) if h.old < promised && h.trailing_context == 0 => Err((
            h.at + h.lines,
            format!(
                "the reply was cut off after line {} of this hunk: its header (line {}) promises \
                 {promised} old lines, the hunk has {} and no context after its last change; \
                 send the rest of the diff",
                h.lines,
                n + h.at,
                h.old
            ),
        )),
        _ => Ok(()),
    }
}

/// Reads one file section.
fn file(r: &mut Reader<'_>) -> Result<FileDiff, Bad> {
    let mut f = FileDiff {
        first: r.lines.taken,
        start_byte: r.lines.peek(0).map_or(0, |l| l.start),
        ..FileDiff::default()
    };
    if let Some(t) = r.peek_text(0).filter(|t| t.starts_with("diff --git ")) {
        f.git = Some(git_names(&t["diff --git ".len()..]).ok_or_else(|| {
            (
                r.lines.taken,
                format!("cannot read the file names of `{t}` (`diff --git a/PATH b/PATH`)"),
            )
        })?);
        r.lines.next();
        extended_headers(r, &mut f)?;
    }
    if r.peek_text(0).is_some_and(|t| t.starts_with("--- "))
        && r.peek_text(1).is_some_and(|t| t.starts_with("+++ "))
    {
        let at = r.lines.taken;
        let old = r.lines.next().map(|l| l.text).unwrap_or_default();
        let new = r.lines.next().map(|l| l.text).unwrap_or_default();
        let name = |s: &str| {
            header_name(s).ok_or_else(|| (at, format!("cannot read the file name in `{s}`")))
        };
        let (o, nw) = (name(&old[4..])?, name(&new[4..])?);
        f.old_null = o == "/dev/null";
        f.new_null = nw == "/dev/null";
        f.old = (!f.old_null).then_some(o);
        f.new = (!f.new_null).then_some(nw);
    }
    f.last = r.lines.taken.saturating_sub(1);
    while r.peek_text(0).is_some_and(|t| t.starts_with("@@")) {
        hunk(r, &mut f)?;
        f.last = r.lines.taken - 1;
    }
    f.end_byte = r.lines.end;
    Ok(f)
}

/// git's extended header lines after `diff --git`.
fn extended_headers(r: &mut Reader<'_>, f: &mut FileDiff) -> Result<(), Bad> {
    while let Some(t) = r.peek_text(0) {
        let value = |p: &str| t.strip_prefix(p).map(|v| v.trim().to_string());
        let mode = |f: &mut FileDiff, label: &'static str, v: &str| {
            f.modes.push((label, v.to_string()));
            Some(v.to_string())
        };
        if let Some(v) = value("new file mode ") {
            f.new_file = true;
            f.new_mode = mode(f, "new file mode", &v);
        } else if let Some(v) = value("deleted file mode ") {
            f.deleted = true;
            f.old_mode = mode(f, "deleted file mode", &v);
        } else if let Some(v) = value("old mode ") {
            f.old_mode = mode(f, "old mode", &v);
        } else if let Some(v) = value("new mode ") {
            f.new_mode = mode(f, "new mode", &v);
        } else if let Some(v) = value("rename from ") {
            f.rename_from = Some(unquote(&v).unwrap_or(v));
        } else if let Some(v) = value("rename to ") {
            f.rename_to = Some(unquote(&v).unwrap_or(v));
        } else if t.starts_with("copy from ") || t.starts_with("copy to ") {
            f.copy = true;
        } else if let Some(v) = value("index ") {
            // `index OLD..NEW` or `index OLD..NEW MODE`.
            let mut words = v.split_whitespace();
            let ids = words.next().unwrap_or("");
            f.index = ids
                .split_once("..")
                .map(|(a, b)| (a.to_string(), b.to_string()));
            if let Some(m) = words.next() {
                f.index_mode = mode(f, "index", m);
            }
        } else if t.starts_with("similarity index ") || t.starts_with("dissimilarity index ") {
        } else if t.starts_with("Binary files ") {
            f.binary_without_data = true;
        } else if t.trim_end() == "GIT binary patch" {
            r.lines.next();
            f.binary = Some(binary_patch(r)?);
            continue;
        } else {
            break;
        }
        r.lines.next();
    }
    Ok(())
}

/// The hunks after `GIT binary patch` (already taken): the forward hunk, which is required, and
/// the reverse one, which is optional; both must decode (as `git apply` checks them). Returns
/// the forward hunk's text (its `literal N` / `delta N` line and data lines).
fn binary_patch(r: &mut Reader<'_>) -> Result<String, Bad> {
    let mut forward = None;
    for _ in 0..2 {
        let at = r.lines.taken;
        let Some(header) = r.peek_text(0).filter(|t| binary::hunk_header(t).is_some()) else {
            break;
        };
        r.lines.next();
        let mut data: Vec<&str> = Vec::new();
        // Data lines up to the empty line that ends the hunk (or, when a reply dropped it, up
        // to a closing fence, the next file or the end).
        while let Some(t) = r.peek_text(0) {
            if t.trim_end().is_empty() {
                r.lines.next();
                break;
            }
            if t.starts_with("```") || t.starts_with("diff --git ") {
                break;
            }
            data.push(t);
            r.lines.next();
        }
        let hunk = binary::decode_hunk(header, &data).map_err(|(k, e)| (at + k, e))?;
        if forward.is_none() {
            let mut text = format!("{}\n", header.trim_end());
            for l in &data {
                text.push_str(l.trim_end());
                text.push('\n');
            }
            forward = Some((text, hunk));
        }
    }
    match forward {
        Some((text, _)) => Ok(text),
        None => Err((
            r.lines.taken.saturating_sub(1),
            "`GIT binary patch` is not followed by a `literal N` or `delta N` hunk (git: \
             unrecognized binary patch)"
                .to_string(),
        )),
    }
}

/// `@@ -a,b +c,d @@`: the numbers (count 1 when left out), or `None` for a bare `@@`.
type Numbers = Option<(usize, usize, usize, usize)>;

fn hunk_numbers(line: &str) -> Result<Numbers, ()> {
    let rest = line.trim_start_matches('@').trim_start();
    if rest.is_empty() || rest.starts_with("@@") {
        return Ok(None);
    }
    let mut words = rest.split_whitespace();
    let range = |w: Option<&str>, sign: char| -> Option<(usize, usize)> {
        let w = w?.strip_prefix(sign)?;
        Some(match w.split_once(',') {
            Some((a, b)) => (a.parse().ok()?, b.parse().ok()?),
            None => (w.parse().ok()?, 1),
        })
    };
    match (range(words.next(), '-'), range(words.next(), '+')) {
        (Some((a, b)), Some((c, d))) => Ok(Some((a, b, c, d))),
        _ => Err(()),
    }
}

/// Whether a line can be part of a hunk's body.
fn body_line(t: &str) -> bool {
    matches!(t.chars().next(), Some(' ' | '-' | '+' | '\\'))
}

/// Whether the next lines start the next file section or hunk.
fn next_section(r: &mut Reader<'_>) -> bool {
    match r.peek_text(0) {
        Some(t) if t.starts_with("@@") || t.starts_with("diff --git ") => true,
        Some(t) if t.starts_with("--- ") => r.peek_text(1).is_some_and(|n| n.starts_with("+++ ")),
        _ => false,
    }
}

/// Whether the lines from the next one on, read as hunk lines, make up exactly the `old` and
/// `new` lines the header still promises and end there (at the end, a line that cannot be part
/// of a hunk, or the next hunk or file): then a `--- ` / `+++ ` pair among them is content.
fn content_by_counts(r: &mut Reader<'_>, old: usize, new: usize) -> bool {
    let (mut o, mut n) = (0usize, 0usize);
    let mut k = 0;
    while o < old || n < new {
        match r.peek_text(k) {
            Some(t) if (body_line(t) || t.is_empty()) && !t.starts_with("@@") => {
                count(t, &mut o, &mut n);
                k += 1;
            }
            _ => return false,
        }
    }
    while r.peek_text(k).is_some_and(|t| t.starts_with('\\')) {
        k += 1;
    }
    let ends = match r.peek_text(k) {
        None => true,
        Some(t) => !body_line(t) || t == "-- " || t.starts_with("--- ") || t.starts_with("@@"),
    };
    (o, n) == (old, new) && ends
}

/// Reads one hunk into `f.hunks`, counting its lines by its header when they agree with it,
/// else counting them as `git apply --recount` does.
fn hunk(r: &mut Reader<'_>, f: &mut FileDiff) -> Result<(), Bad> {
    let at = r.lines.taken;
    let header_line = r.hunk_header();
    let shown = super::raw::shown(header_line);
    let header_line: &str = &shown;
    let numbers = hunk_numbers(header_line).map_err(|()| {
        (
            at,
            format!(
                "`{header_line}` is not a hunk header: write `@@ -OLD_START,OLD_COUNT \
                 +NEW_START,NEW_COUNT @@`"
            ),
        )
    })?;
    let mut body: Vec<String> = Vec::new();
    let (mut old, mut new) = (0usize, 0usize);
    let want = numbers.map(|(_, b, _, d)| (b, d));
    // By the header's counts while they last. A `--- x` / `+++ y` pair among them is a removed
    // `-- x` and an added `++ y` when the counts say so (as `git apply` reads it), a file header
    // when they do not (a hunk whose counts are too high, followed by the next file).
    if let Some((b, d)) = want {
        while old < b || new < d {
            if next_section(r) && !content_by_counts(r, b - old, d - new) {
                break;
            }
            let Some(t) = r.peek_text(0) else { break };
            if !(body_line(t) || t.is_empty()) {
                break;
            }
            let l = r.body_line();
            count(l, &mut old, &mut new);
            body.push(l.to_string());
        }
    }
    // `\ No newline` markers after the counted lines, then whatever lines the header missed.
    loop {
        if next_section(r) {
            break;
        }
        let Some(t) = r.peek_text(0) else { break };
        let extra = if t.starts_with('\\') {
            true
        } else if want.is_some_and(|(b, d)| old >= b && new >= d) && !body_line(t) {
            false
        } else if want.is_some_and(|(b, d)| old >= b && new >= d) && (t == "-- " || t.is_empty()) {
            // Counted in full: a blank line, or `git format-patch`'s `-- ` signature line,
            // ends the hunk.
            false
        } else if t.is_empty() || t == "\r" {
            // Empty lines are empty context lines only when the hunk goes on after them: the
            // whole run is looked at once and taken at once (a reply of many blank lines stays
            // linear).
            let run = (1..)
                .map_while(|k| r.peek_text(k))
                .take_while(|x| x.is_empty() || *x == "\r")
                .count()
                + 1;
            let goes_on = r
                .peek_text(run)
                .is_some_and(|x| body_line(x) && !x.starts_with("--- ") && !x.starts_with("@@"));
            if goes_on {
                for _ in 1..run {
                    let l = r.body_line();
                    count(l, &mut old, &mut new);
                    body.push(l.to_string());
                }
            }
            goes_on
        } else {
            body_line(t)
        };
        if !extra {
            break;
        }
        let l = r.body_line();
        count(l, &mut old, &mut new);
        body.push(l.to_string());
    }
    if body.iter().all(|l| l.starts_with('\\')) {
        return Err((at, format!("the hunk `{header_line}` has no lines")));
    }
    f.last_hunk = Some(HunkEnd::of(at, want.map(|(b, _)| b), old, &body));
    let header = match numbers {
        Some((a, b, c, d)) => {
            if (b, d) != (old, new) {
                f.warnings.push(format!(
                    "the hunk header `{header_line}` counts {b} old and {d} new lines, but the \
                     hunk has {old} and {new}; its lines were counted (as `git apply --recount` \
                     does)"
                ));
            }
            format!("@@ -{a},{old} +{c},{new} @@")
        }
        None => "@@".to_string(),
    };
    f.hunks.push_str(&header);
    f.hunks.push('\n');
    for l in body {
        if l == "\r" {
            f.warnings.push(format!(
                "a line of the hunk `{header_line}` is empty but for a CR (`git apply` calls \
                 that a corrupt patch); it was read as an empty context line"
            ));
        }
        if l.is_empty() || l == "\r" {
            // An empty context line (its space stripped, as editors and models do).
            f.hunks.push(' ');
        }
        f.hunks.push_str(&l);
        f.hunks.push('\n');
    }
    f.hunk_count += 1;
    Ok(())
}

fn count(l: &str, old: &mut usize, new: &mut usize) {
    match l.chars().next() {
        Some('-') => *old += 1,
        Some('+') => *new += 1,
        Some('\\') => {}
        _ => {
            *old += 1;
            *new += 1;
        }
    }
}

/// A C-quoted name (`"a/with\ttab"`), as git writes unusual names.
fn unquote(s: &str) -> Option<String> {
    let inner = s.strip_prefix('"')?.strip_suffix('"')?;
    let mut bytes = Vec::new();
    let mut it = inner.bytes().peekable();
    while let Some(b) = it.next() {
        if b != b'\\' {
            bytes.push(b);
            continue;
        }
        match it.next()? {
            b'n' => bytes.push(b'\n'),
            b't' => bytes.push(b'\t'),
            b'r' => bytes.push(b'\r'),
            b'a' => bytes.push(7),
            b'b' => bytes.push(8),
            b'f' => bytes.push(12),
            b'v' => bytes.push(11),
            d @ b'0'..=b'7' => {
                let mut v = u32::from(d - b'0');
                for _ in 0..2 {
                    let x = it.next()?;
                    v = v * 8 + u32::from(x.checked_sub(b'0').filter(|x| *x < 8)?);
                }
                bytes.push(u8::try_from(v).ok()?);
            }
            other => bytes.push(other),
        }
    }
    String::from_utf8(bytes).ok()
}

/// The index just after the closing quote of the C-quoted name `s` starts with.
fn quoted_end(s: &str) -> Option<usize> {
    let b = s.as_bytes();
    let mut i = 1;
    loop {
        match b.get(i)? {
            b'\\' => i += 2,
            b'"' => return Some(i + 1),
            _ => i += 1,
        }
    }
}

/// The name in a `---`/`+++` line: quoted, or up to a tab (`diff -u` puts a date after it).
fn header_name(s: &str) -> Option<String> {
    let s = s.trim_start();
    if s.starts_with('"') {
        return unquote(&s[..quoted_end(s)?]);
    }
    let name = s.split('\t').next().unwrap_or(s).trim_end();
    (!name.is_empty()).then(|| name.to_string())
}

/// The two names of `diff --git a/X b/Y` (prefixes kept). For unquoted names with spaces, the
/// split that gives two equal names wins (a rename has its own headers).
fn git_names(s: &str) -> Option<(String, String)> {
    let s = s.trim_end();
    if s.starts_with('"') {
        let old = header_name(s)?;
        let rest = s[quoted_end(s)?..].trim_start();
        let new = if rest.starts_with('"') {
            header_name(rest)?
        } else {
            rest.to_string()
        };
        return Some((old, new));
    }
    if let Some(i) = s.find(" \"") {
        return Some((s[..i].to_string(), unquote(&s[i + 1..])?));
    }
    // Equal halves: `a/P b/P`.
    let half = s.len().checked_sub(1)? / 2;
    // The middle byte must be the space (an ASCII byte, so both halves are whole characters).
    if s.len() % 2 == 1 && s.as_bytes().get(half) == Some(&b' ') {
        let (a, b) = (&s[..half], &s[half + 1..]);
        if a.get(2..) == b.get(2..) {
            return Some((a.to_string(), b.to_string()));
        }
    }
    let i = s.rfind(" b/").or_else(|| s.find(' '))?;
    Some((s[..i].to_string(), s[i + 1..].to_string()))
}

fn strip(name: &str, prefix: &str) -> String {
    name.strip_prefix(prefix).unwrap_or(name).to_string()
}

/// Why a file section cannot be applied, if it cannot: a binary change without its content,
/// an invalid mode, a symbolic link or submodule, a copy.
fn refusals(f: &FileDiff, path: &str) -> Vec<String> {
    let mut out = Vec::new();
    if f.binary_without_data {
        out.push(format!(
            "`Binary files … differ`: the diff was made without `--binary`, so it does not hold \
             the new content of '{path}'; make it with `git diff --binary`, or leave this file out"
        ));
    }
    // The modes git writes; anything else is refused (`git apply` reads 104755 as 100755 and
    // 10075 as a submodule: neither is what a reply means).
    if let Some((label, m)) = f
        .modes
        .iter()
        .find(|(_, m)| !matches!(m.as_str(), "100644" | "100755" | "120000" | "160000"))
    {
        out.push(format!(
            "invalid mode on the line `{label} {m}`: git records a file as 100644 (regular) or \
             100755 (executable); write one of those"
        ));
    }
    let modes = [
        f.old_mode.as_deref(),
        f.new_mode.as_deref(),
        f.index_mode.as_deref(),
    ];
    if modes.into_iter().flatten().any(|m| m == "160000") {
        out.push(
            "a submodule (mode 160000): git-clada patches files and symbolic links only"
                .to_string(),
        );
    }
    let link = |m: Option<&str>| m == Some("120000");
    if let (Some(o), Some(n)) = (f.old_mode.as_deref(), f.new_mode.as_deref()) {
        if link(Some(o)) != link(Some(n)) {
            out.push(format!(
                "a type change between a symbolic link and a file (mode {o} to {n}) in one \
                 section: git writes it as the deletion of one and the creation of the other, \
                 two sections of the diff; write it so"
            ));
        }
    }
    if f.copy {
        out.push(
            "a copy (`copy from`/`copy to`): git-clada does not apply copies; write the new file \
             as a new-file diff"
                .to_string(),
        );
    }
    out
}

/// The block for one file section.
fn block(text: &str, f: FileDiff, n: usize, git: bool, counter: &mut usize) -> Block {
    let id = next_id(counter);
    let mut invalid = Vec::new();
    let mut warnings = f.warnings.clone();
    // Prefixes: always after `diff --git`; otherwise when both sides have theirs.
    let both = f.old.as_deref().is_none_or(|o| o.starts_with("a/"))
        && f.new.as_deref().is_none_or(|o| o.starts_with("b/"))
        && (f.old.is_some() || f.new.is_some());
    let strip_ab = git || both;
    let clean = |name: &Option<String>, p: &str| {
        name.as_deref()
            .map(|x| if strip_ab { strip(x, p) } else { x.to_string() })
    };
    let (git_old, git_new) = match &f.git {
        Some((a, b)) => (Some(strip(a, "a/")), Some(strip(b, "b/"))),
        None => (None, None),
    };
    let old = f
        .rename_from
        .clone()
        .or_else(|| clean(&f.old, "a/"))
        .or_else(|| (!f.old_null).then(|| git_old.clone()).flatten());
    let new = f
        .rename_to
        .clone()
        .or_else(|| clean(&f.new, "b/"))
        .or_else(|| (!f.new_null).then(|| git_new.clone()).flatten());
    let create = f.new_file || (f.old_null && !f.new_null);
    let delete = f.deleted || (f.new_null && !f.old_null);
    let mut props: IndexMap<String, String> = IndexMap::new();
    props.insert("action".into(), "file_patch".into());
    let path = if create { new.clone() } else { old.clone() };
    props.insert("path".into(), path.clone().unwrap_or_default());
    props.insert("hunks".into(), f.hunks.clone());
    if create {
        props.insert("change".into(), "create".into());
    } else if delete {
        props.insert("change".into(), "delete".into());
    } else if let (Some(o), Some(nw)) = (&old, &new) {
        if o != nw {
            if git || f.rename_to.is_some() {
                props.insert("new_path".into(), nw.clone());
            } else {
                // `--- file.orig` / `+++ file`: the new name is the file (as `patch` picks).
                props.insert("path".into(), nw.clone());
                warnings.push(format!(
                    "the diff names '{o}' on its --- line and '{nw}' on its +++ line, without \
                     `diff --git` rename headers; '{nw}' was patched"
                ));
            }
        }
    }
    let mode = f
        .new_mode
        .as_deref()
        .filter(|m| Some(*m) != f.old_mode.as_deref());
    // A symbolic link (mode 120000): its one line, without a line break, is the target.
    let link = [
        f.old_mode.as_deref(),
        f.new_mode.as_deref(),
        f.index_mode.as_deref(),
    ]
    .into_iter()
    .flatten()
    .any(|m| m == "120000");
    if link {
        props.insert("symlink".into(), "true".into());
    } else if let Some(m) = mode.filter(|_| !delete) {
        let exec = m == "100755";
        if !create || exec {
            props.insert("executable".into(), exec.to_string());
        }
    }
    if path.is_none() {
        invalid.push("the diff names no file for this section".to_string());
    }
    invalid.extend(refusals(&f, path.as_deref().unwrap_or_default()));
    if let Some(data) = &f.binary {
        props.insert("binary".into(), data.clone());
        if let Some((a, b)) = &f.index {
            props.insert("index".into(), format!("{a}..{b}"));
        }
    }
    let changes = f.hunk_count > 0
        || create
        || delete
        || f.binary.is_some()
        || props.contains_key("new_path")
        || props.contains_key("executable");
    if !changes && !f.binary_without_data {
        invalid.push("the section has no hunks: it changes nothing".to_string());
    }
    let mut b = Block::foreign(Format::DIFF, id, props, n + f.first, n + f.last);
    b.invalid = (!invalid.is_empty()).then(|| invalid.join("; "));
    b.warnings = warnings;
    b.source = text.get(f.start_byte..f.end_byte).map(str::to_string);
    b
}

#[cfg(test)]
mod tests;
