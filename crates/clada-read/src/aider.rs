//! aider's SEARCH/REPLACE blocks (`aider.coders.editblock_coder`, the `diff` and
//! `diff-fenced` edit formats):
//!
//! ````text
//! src/app.py
//! ```python
//! <<<<<<< SEARCH
//! old lines
//! =======
//! new lines
//! >>>>>>> REPLACE
//! ```
//! ````
//!
//! As aider reads them: the markers are 5 to 9 `<`, `=`, `>` (`<<<<<<< SEARCH>` too), alone on
//! their line with any whitespace around; the file name is found in the up to three lines
//! before `<<<<<<< SEARCH`, going back only over fence lines (so it may stand before the fence
//! or, `diff-fenced`, inside it; ```` ```path/to/file.py ```` counts), cleaned of `#`, `*`,
//! backticks and a trailing `:`; a block without one is for the previous block's file; the
//! REPLACE part also ends at a second `=======`; ````` fences are optional and one fence may
//! hold several blocks. aider's `strip_quoted_wrapping` is applied (a first SEARCH or REPLACE
//! line ending with the file's name, or fences wrapped around the text, are dropped, each a
//! warning).
//!
//! Stricter than aider, deliberately: a marker line is never a file name (aider takes the
//! `>>>>>>> REPLACE` line right before a second block for one), and a `<<<<<<< SEARCH` inside
//! a block is an error for the block that lacks its marker (aider reads it as text and writes
//! it into the file).
//!
//! Mapping: every block becomes `file_search_replace` (aider's matching cascade and the empty
//! SEARCH rules live there, where the file is known).

use super::lines::{Line, Lines};
use super::scan::{error, next_id, props, FrontEnd, Span, Taken, TaskIds};
use super::{Block, ErrorCode, Format, Registration};

impl Format {
    pub const AIDER: Format = Format {
        id: "aider",
        name: "aider",
        reference: false,
    };
}

pub(super) static FRONT_END: Registration = Registration::new(
    &[(
        Format::AIDER,
        "Only aider SEARCH/REPLACE blocks: the file name, then `<<<<<<< SEARCH` … `=======` … \
         `>>>>>>> REPLACE`",
    )],
    |text, _| {
        Box::new(Aider {
            text,
            current: None,
            floor: 0,
        })
    },
);

const FENCE: &str = "```";

/// The aider front end: a block opens on a `<<<<<<< SEARCH` line.
struct Aider<'a> {
    text: &'a str,
    /// The file of the previous block (a block without a file name of its own edits it).
    current: Option<String>,
    /// Where the previous block's text ended: a file name is not looked for before it.
    floor: usize,
}

impl<'a> FrontEnd<'a> for Aider<'a> {
    fn opens_with(&self) -> &'static [u8] {
        b"<"
    }

    fn may_open(&self, trimmed: &str) -> bool {
        trimmed.starts_with("<<<<<")
    }

    fn take(&mut self, ids: &mut TaskIds, line: Line<'a>, n: usize) -> Option<Taken> {
        if marker(line.text) != Some(Marker::Head) {
            return None;
        }
        let taken = self.block(ids.counter(), line, n);
        let rest = self.text.get(line.start..).unwrap_or("");
        self.floor = Lines::new(rest)
            .nth(taken.lines.saturating_sub(1))
            .map_or(self.text.len(), |l| line.start + l.end());
        Some(taken)
    }
}

/// Python's `str.isspace`, what aider's `strip()` removes.
fn py_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Marker {
    Head,
    Divider,
    Updated,
}

/// `count` (5–9) of `c` at the start of `s`, and the rest.
fn run_of(s: &str, c: char) -> Option<&str> {
    let n = s.chars().take_while(|&x| x == c).count();
    (5..=9).contains(&n).then(|| &s[n..])
}

/// aider's `HEAD`, `DIVIDER` and `UPDATED` patterns, matched on the stripped line.
fn marker(line: &str) -> Option<Marker> {
    let t = line.trim_matches(py_space);
    if let Some(rest) = run_of(t, '<') {
        let rest = rest.strip_prefix(" SEARCH")?;
        let rest = rest.strip_prefix('>').unwrap_or(rest);
        return rest.chars().all(py_space).then_some(Marker::Head);
    }
    if let Some(rest) = run_of(t, '=') {
        return rest.is_empty().then_some(Marker::Divider);
    }
    if let Some(rest) = run_of(t, '>') {
        let rest = rest.strip_prefix(" REPLACE")?;
        return rest.chars().all(py_space).then_some(Marker::Updated);
    }
    None
}

/// aider's `strip_filename`: a file name the line may be, cleaned.
fn strip_filename(line: &str) -> Option<String> {
    let f = line.trim_matches(py_space);
    if f == "..." || marker(line).is_some() {
        return None;
    }
    if let Some(candidate) = f.strip_prefix(FENCE) {
        return (!candidate.is_empty() && (candidate.contains('.') || candidate.contains('/')))
            .then(|| candidate.to_string());
    }
    let f = f
        .trim_end_matches(':')
        .trim_start_matches('#')
        .trim_matches(py_space)
        .trim_matches('`')
        .trim_matches('*');
    (!f.is_empty()).then(|| f.to_string())
}

/// aider's `find_filename` over the (up to three) lines before a block, nearest first: the
/// name and the line (1-based) it was found on.
fn find_filename(before: &str, n: usize) -> Option<(String, usize)> {
    let mut names: Vec<(String, usize)> = Vec::new();
    let mut lines = before.strip_suffix('\n').unwrap_or(before).rsplit('\n');
    if before.is_empty() {
        return None;
    }
    for k in 1..=3 {
        let Some(raw) = lines.next() else { break };
        let l = raw.strip_suffix('\r').unwrap_or(raw);
        if let Some(name) = strip_filename(l) {
            names.push((name, n - k));
        }
        if !l.starts_with(FENCE) {
            break;
        }
    }
    let pick = names.iter().position(|(f, _)| f.contains('.')).unwrap_or(0);
    (!names.is_empty()).then(|| names.swap_remove(pick))
}

/// aider's `strip_quoted_wrapping` for a block's text: a first line ending with the file's
/// name and fences around the text are dropped; a last empty line is dropped (so a lone empty
/// line becomes nothing).
fn unwrap_text(text: String, path: &str, part: &str, warnings: &mut Vec<String>) -> String {
    if text.is_empty() {
        return text;
    }
    let name = path.rsplit('/').next().unwrap_or(path);
    let mut lines: Vec<&str> = text
        .strip_suffix('\n')
        .unwrap_or(&text)
        .split('\n')
        .collect();
    if lines.len() > 1 && !name.is_empty() && lines[0].trim_matches(py_space).ends_with(name) {
        warnings.push(format!(
            "the first {part} line (`{}`) ends with the file's name and was dropped, as aider \
             drops it",
            lines[0]
        ));
        lines.remove(0);
    }
    if lines.first().is_some_and(|l| l.starts_with(FENCE))
        && lines.last().is_some_and(|l| l.starts_with(FENCE))
    {
        warnings.push(format!(
            "the {part} text was wrapped in ``` fences; they were dropped, as aider drops them"
        ));
        // Python's res[1:-1]: a single fence line leaves nothing.
        lines.remove(0);
        lines.pop();
    }
    // Python's "\n".join(lines) + "\n" unless it already ends with one: a text ending in
    // an empty line loses that line (aider's quirk, kept for the same result).
    let mut joined = lines.join("\n");
    if !joined.is_empty() && !joined.ends_with('\n') {
        joined.push('\n');
    }
    joined
}

impl Aider<'_> {
    /// Reads the block whose `<<<<<<< SEARCH` is `line` (line `n`).
    fn block(&mut self, counter: &mut usize, line: Line<'_>, n: usize) -> Taken {
        let id = next_id(counter);
        let text = self.text.get(line.start..).unwrap_or("");
        let before = self
            .text
            .get(self.floor.min(line.start)..line.start)
            .unwrap_or("");
        let found = find_filename(before, n);
        let fail = |at: usize, lines: usize, message: String| Taken {
            lines,
            blocks: Vec::new(),
            errors: vec![error(
                ErrorCode::AiderSyntax,
                text,
                n,
                n + at,
                1,
                Some(id.clone()),
                format!("{message}; nothing of this block (line {n}) was run"),
            )],
        };
        let path = match found
            .as_ref()
            .map(|(f, _)| f.clone())
            .or(self.current.clone())
        {
            Some(p) => p,
            None => {
                let end = block_end(text);
                return fail(
                    0,
                    end,
                    "Bad/missing filename. The filename must be alone on the line before the \
                     opening fence ```: write the file's path on the line before `<<<<<<< SEARCH` \
                     (or before its ``` fence)"
                        .to_string(),
                );
            }
        };
        self.current = Some(path.clone());
        let mut search = Span::default();
        let mut replace = Span::default();
        let mut in_replace = false;
        let mut warnings = Vec::new();
        let mut last = 0;
        for (i, l) in Lines::new(text).enumerate().skip(1) {
            last = i;
            match (marker(l.text), in_replace) {
                (Some(Marker::Head), _) => {
                    let want = if in_replace {
                        "`>>>>>>> REPLACE`"
                    } else {
                        "`=======`"
                    };
                    return fail(
                        i,
                        i,
                        format!(
                            "`<<<<<<< SEARCH` on line {} before this block's {want}: the block \
                             is not closed (aider would read the next block into it)",
                            n + i
                        ),
                    );
                }
                (Some(Marker::Divider), false) => in_replace = true,
                (Some(Marker::Divider | Marker::Updated), true) => {
                    if marker(l.text) == Some(Marker::Divider) {
                        warnings.push(
                            "the REPLACE part ends at a second `=======` instead of \
                             `>>>>>>> REPLACE` (aider accepts that)"
                                .to_string(),
                        );
                    }
                    let source_start = found
                        .as_ref()
                        .and_then(|(_, at)| line_start(self.text, line.start, n - at))
                        .unwrap_or(line.start);
                    let parts = Parts {
                        path: &path,
                        search: search.text(text),
                        replace: replace.text(text),
                        source: self
                            .text
                            .get(source_start..line.start + l.end())
                            .unwrap_or(""),
                        warnings,
                    };
                    return finish(&id, n, i, parts);
                }
                (Some(Marker::Updated), false) => {
                    return fail(
                        i,
                        i + 1,
                        "`>>>>>>> REPLACE` before `=======`: a block is `<<<<<<< SEARCH`, the \
                         lines to find, `=======`, the lines to put there, `>>>>>>> REPLACE`"
                            .to_string(),
                    )
                }
                (None, false) => search.push(l),
                (None, true) => replace.push(l),
            }
        }
        let expected = if in_replace {
            "Expected `>>>>>>> REPLACE` or `=======`"
        } else {
            "Expected `=======`"
        };
        fail(
            last,
            last + 1,
            format!("{expected}: the reply ends inside this block"),
        )
    }
}

/// The byte offset of the line `back` lines before the line starting at `at`.
fn line_start(text: &str, at: usize, back: usize) -> Option<usize> {
    let before = text.get(..at)?;
    let mut pos = before.len();
    for _ in 0..back {
        let trimmed = before.get(..pos.checked_sub(1)?)?;
        pos = trimmed.rfind('\n').map_or(0, |i| i + 1);
    }
    Some(pos)
}

/// Lines of a block without a file name, up to its `>>>>>>> REPLACE` (or the next
/// `<<<<<<< SEARCH`, or the end), so that its text is not read as something else.
fn block_end(text: &str) -> usize {
    for (i, l) in Lines::new(text).enumerate().skip(1) {
        match marker(l.text) {
            Some(Marker::Updated) => return i + 1,
            Some(Marker::Head) => return i,
            _ => {}
        }
    }
    Lines::new(text).count()
}

/// What a closed block holds.
struct Parts<'a> {
    path: &'a str,
    search: String,
    replace: String,
    source: &'a str,
    warnings: Vec<String>,
}

fn finish(id: &str, n: usize, end: usize, parts: Parts<'_>) -> Taken {
    let Parts {
        path,
        search,
        replace,
        source,
        mut warnings,
    } = parts;
    let with_nl = |s: String| if s.is_empty() { s } else { s + "\n" };
    let search = unwrap_text(with_nl(search), path, "SEARCH", &mut warnings);
    let replace = unwrap_text(with_nl(replace), path, "REPLACE", &mut warnings);
    let p = props([
        ("action", "file_search_replace"),
        ("path", path),
        ("search", &search),
        ("replace", &replace),
    ]);
    let mut b = Block::foreign(Format::AIDER, id.to_string(), p, n, n + end);
    b.warnings = warnings;
    b.source = Some(source.to_string());
    Taken {
        lines: end + 1,
        blocks: vec![b],
        errors: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{parse, Dialect};

    fn blocks(reply: &str) -> Vec<(String, String, String)> {
        parse(reply, Dialect::Auto)
            .blocks
            .iter()
            .map(|b| {
                let p = |k: &str| b.properties.get(k).cloned().unwrap_or_default();
                (p("path"), p("search"), p("replace"))
            })
            .collect()
    }

    #[test]
    fn markers_as_aider_matches_them() {
        assert_eq!(marker("<<<<<<< SEARCH"), Some(Marker::Head));
        assert_eq!(marker("  <<<<< SEARCH>  "), Some(Marker::Head));
        assert_eq!(marker("<<<< SEARCH"), None);
        assert_eq!(marker("<<<<<<<<<< SEARCH"), None);
        assert_eq!(marker("========="), Some(Marker::Divider));
        assert_eq!(marker("====== x"), None);
        assert_eq!(marker(">>>>>>> REPLACE "), Some(Marker::Updated));
    }

    #[test]
    fn file_names_before_or_inside_the_fence() {
        let r = "Change:\n\nsrc/a.py\n```python\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n```\n";
        assert_eq!(
            blocks(r),
            [("src/a.py".into(), "x = 1\n".into(), "x = 2\n".into())]
        );
        let r = "```python\n**src/b.py**:\n<<<<<<< SEARCH\n=======\nnew\n>>>>>>> REPLACE\n```\n";
        assert_eq!(blocks(r), [("src/b.py".into(), "".into(), "new\n".into())]);
        let r = "```src/c.rs\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n<<<<<<< SEARCH\nc\n=======\nd\n>>>>>>> REPLACE\n```\n";
        let got = blocks(r);
        assert_eq!(got.len(), 2);
        assert_eq!(got[1].0, "src/c.rs", "the marker line is no file name");
    }

    #[test]
    fn errors_without_file_name_or_markers() {
        let r = parse(
            "<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n",
            Dialect::Auto,
        );
        assert!(r.blocks.is_empty());
        assert!(
            r.errors[0].message.contains("Bad/missing filename"),
            "{:?}",
            r.errors
        );
        let r = parse("a.py\n<<<<<<< SEARCH\na\n=======\nb\n", Dialect::Auto);
        assert!(r.errors[0].message.contains("Expected `>>>>>>> REPLACE`"));
        let r = parse(
            "a.py\n<<<<<<< SEARCH\na\n=======\nb\n<<<<<<< SEARCH\nc\n=======\nd\n>>>>>>> REPLACE\n",
            Dialect::Auto,
        );
        assert_eq!(r.errors.len(), 1);
        assert_eq!(r.blocks.len(), 1);
        assert_eq!(r.blocks[0].properties["search"], "c\n");
        assert_eq!(r.blocks[0].properties["path"], "a.py");
    }

    #[test]
    fn wrapping_is_unwrapped_with_warnings() {
        let r = parse(
            "a.py\n<<<<<<< SEARCH\n# a.py\nx\n=======\n\n>>>>>>> REPLACE\n",
            Dialect::Auto,
        );
        let b = &r.blocks[0];
        assert_eq!(b.properties["search"], "x\n");
        assert_eq!(b.properties["replace"], "", "a lone empty line is nothing");
        assert_eq!(b.warnings.len(), 1);
    }
}
