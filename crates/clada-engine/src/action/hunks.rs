//! The `hunks` parameter of `file_patch`: hunks in the unified-diff style (`@@ -12,3 +12,4 @@`,
//! as `git diff` writes them) or in the apply_patch style (`@@` or `@@ anchor`, as Codex's
//! `apply_patch` chunks are written), read into [`Hunk`]s.
//!
//! The front ends that read unified diffs and apply_patch envelopes write this parameter, and
//! a SHAM/NESL block may write it by hand; either way it is checked here, where a mistake is a
//! failed result naming the line of the parameter.

/// Which rules the hunks follow (the `style` parameter).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// `git diff` hunks: line numbers in the headers, exact context.
    Unified,
    /// Codex apply_patch chunks: an optional anchor line, located forward from the previous
    /// chunk with apply_patch's whitespace and punctuation tolerances.
    ApplyPatch,
}

impl Style {
    pub fn parse(s: &str) -> Style {
        if s == "apply_patch" {
            Style::ApplyPatch
        } else {
            Style::Unified
        }
    }
}

/// One line of a hunk body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Context,
    Removed,
    Added,
}

/// One hunk.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Hunk {
    /// 1-based line of its `@@` header in the parameter (of its first line when it has none).
    pub at: usize,
    /// The header as written (`@@ -3,4 +3,5 @@`), for messages.
    pub header: String,
    /// Unified: the old side's start line and line count, when the header gives them.
    pub old: Option<(usize, Option<usize>)>,
    /// Unified: the new side's start line and line count.
    pub new: Option<(usize, Option<usize>)>,
    /// apply_patch: the `@@ text` line, found before the chunk's lines are looked for.
    pub anchor: Option<String>,
    pub lines: Vec<(Kind, String)>,
    /// `\ No newline at end of file` after the old side's last line.
    pub old_no_eol: bool,
    /// The same for the new side.
    pub new_no_eol: bool,
    /// apply_patch: `*** End of File`, the old lines end the file.
    pub eof: bool,
}

impl Hunk {
    /// The lines the file has before the change (context and removed).
    pub fn old_lines(&self) -> impl Iterator<Item = &str> {
        self.lines
            .iter()
            .filter(|(k, _)| *k != Kind::Added)
            .map(|(_, l)| l.as_str())
    }

    /// The lines it has after (context and added).
    pub fn new_lines(&self) -> impl Iterator<Item = &str> {
        self.lines
            .iter()
            .filter(|(k, _)| *k != Kind::Removed)
            .map(|(_, l)| l.as_str())
    }

    pub fn old_count(&self) -> usize {
        self.old_lines().count()
    }

    pub fn new_count(&self) -> usize {
        self.new_lines().count()
    }

    /// Context lines before its first change.
    pub fn leading_context(&self) -> usize {
        self.lines
            .iter()
            .take_while(|(k, _)| *k == Kind::Context)
            .count()
    }

    /// Context lines after its last change.
    pub fn trailing_context(&self) -> usize {
        self.lines
            .iter()
            .rev()
            .take_while(|(k, _)| *k == Kind::Context)
            .count()
    }

    /// How it is named in messages: `hunk 2 (@@ -3,4 +3,5 @@)`, or `hunk 2` when its header
    /// says nothing more (a bare `@@`; an apply_patch `@@ anchor`, which messages quote).
    pub fn name(&self, index: usize) -> String {
        if self.header.is_empty() || self.header == "@@" || self.anchor.is_some() {
            format!("hunk {}", index + 1)
        } else {
            format!("hunk {} ({})", index + 1, self.header)
        }
    }
}

/// `@@ -a[,b] +c[,d] @@`: the numbers, or `None` for a header without them (`@@`, `@@ @@`).
type Numbers = Option<((usize, Option<usize>), (usize, Option<usize>))>;

fn range(s: &str, sign: char) -> Option<(usize, Option<usize>)> {
    let s = s.strip_prefix(sign)?;
    let (start, count) = match s.split_once(',') {
        Some((a, b)) => (a, Some(b.parse().ok()?)),
        None => (s, None),
    };
    Some((start.parse().ok()?, count))
}

/// Reads a unified hunk header; `Err` says what is wrong with it.
fn unified_header(line: &str) -> Result<Numbers, String> {
    let rest = line.trim_start_matches('@').trim_start();
    if rest.is_empty() || rest.starts_with("@@") {
        return Ok(None);
    }
    let mut words = rest.split_whitespace();
    let (Some(old), Some(new)) = (words.next(), words.next()) else {
        return Err(format!(
            "`{line}` is not a hunk header (`@@ -12,3 +12,4 @@`)"
        ));
    };
    match (range(old, '-'), range(new, '+')) {
        (Some(o), Some(n)) => Ok(Some((o, n))),
        _ => Err(format!(
            "`{line}` is not a hunk header: write `@@ -OLD_START,OLD_COUNT +NEW_START,NEW_COUNT @@`"
        )),
    }
}

/// Reads the `hunks` parameter. An empty parameter is no hunk.
pub fn parse(text: &str, style: Style) -> Result<Vec<Hunk>, String> {
    let mut hunks: Vec<Hunk> = Vec::new();
    let body = text.strip_suffix('\n').unwrap_or(text);
    if body.is_empty() {
        return Ok(hunks);
    }
    // The side(s) the last line belongs to, for a `\ No newline` line after it.
    let mut last: Option<Kind> = None;
    for (i, raw) in body.split('\n').enumerate() {
        let n = i + 1;
        let line = match style {
            Style::ApplyPatch => raw.strip_suffix('\r').unwrap_or(raw),
            Style::Unified => raw,
        };
        if line.starts_with("@@") {
            let mut h = Hunk {
                at: n,
                header: line.trim_end_matches('\r').to_string(),
                ..Hunk::default()
            };
            match style {
                Style::Unified => {
                    if let Some((o, nw)) =
                        unified_header(line.trim_end()).map_err(|e| format!("line {n}: {e}"))?
                    {
                        h.old = Some(o);
                        h.new = Some(nw);
                    }
                }
                Style::ApplyPatch => {
                    // apply_patch looks for the line without its trailing whitespace.
                    h.anchor = line.strip_prefix("@@ ").map(|a| a.trim_end().to_string());
                    if h.anchor.is_none() && line != "@@" {
                        return Err(format!(
                            "line {n}: `{line}` is not a chunk header: write `@@` or `@@ ` and a \
                             line of the file to find first"
                        ));
                    }
                }
            }
            hunks.push(h);
            last = None;
            continue;
        }
        if hunks.is_empty() {
            if style == Style::Unified {
                return Err(format!(
                    "line {n}: `{line}` before the first hunk header: every hunk starts with a \
                     line `@@ -OLD_START,OLD_COUNT +NEW_START,NEW_COUNT @@`"
                ));
            }
            // apply_patch: the first chunk may leave out its `@@` line.
            hunks.push(Hunk {
                at: n,
                ..Hunk::default()
            });
        }
        let Some(current) = hunks.last_mut() else {
            continue;
        };
        if current.eof {
            return Err(format!(
                "line {n}: `{line}` after `*** End of File`: start a new chunk with `@@`"
            ));
        }
        if style == Style::ApplyPatch && line == "*** End of File" {
            current.eof = true;
            continue;
        }
        if style == Style::Unified && line.starts_with('\\') {
            match last {
                Some(Kind::Context) => {
                    current.old_no_eol = true;
                    current.new_no_eol = true;
                }
                Some(Kind::Removed) => current.old_no_eol = true,
                Some(Kind::Added) => current.new_no_eol = true,
                None => {
                    return Err(format!(
                        "line {n}: `{line}` does not follow a line of the hunk"
                    ))
                }
            }
            continue;
        }
        let (kind, content) = match line.chars().next() {
            None => (Kind::Context, ""),
            Some(' ') => (Kind::Context, &line[1..]),
            Some('-') => (Kind::Removed, &line[1..]),
            Some('+') => (Kind::Added, &line[1..]),
            Some(_) => {
                return Err(format!(
                    "line {n}: `{line}`: every line of a hunk starts with ' ' (context), '-' \
                     (removed) or '+' (added)"
                ))
            }
        };
        if (kind != Kind::Added && current.old_no_eol)
            || (kind != Kind::Removed && current.new_no_eol)
        {
            return Err(format!(
                "line {n}: `{line}` after `\\ No newline at end of file`: that marker ends its \
                 side of the hunk"
            ));
        }
        current.lines.push((kind, content.to_string()));
        last = Some(kind);
    }
    for (i, h) in hunks.iter().enumerate() {
        if h.lines.is_empty() {
            return Err(format!("line {}: {} has no lines", h.at, h.name(i)));
        }
    }
    Ok(hunks)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unified_hunks_with_numbers_no_newline_markers_and_empty_context() {
        let h = parse(
            "@@ -1,3 +1,3 @@ fn main\n a\n-b\n+c\n\n@@ -9 +9 @@\n-x\n\\ No newline at end of file\n+y\n\\ No newline at end of file\n",
            Style::Unified,
        )
        .unwrap();
        assert_eq!(h.len(), 2);
        assert_eq!(h[0].old, Some((1, Some(3))));
        assert_eq!(h[0].old_count(), 3);
        assert_eq!(h[0].lines[3], (Kind::Context, String::new()));
        assert_eq!(h[1].old, Some((9, None)));
        assert!(h[1].old_no_eol && h[1].new_no_eol);
        assert_eq!(h[0].leading_context(), 1);
        assert_eq!(h[1].trailing_context(), 0);
    }

    #[test]
    fn apply_patch_chunks_with_anchors_and_end_of_file() {
        let h = parse(
            " a\n-b\n+c\n@@ def f():\n-x\n+y\n*** End of File\n",
            Style::ApplyPatch,
        )
        .unwrap();
        assert_eq!(h.len(), 2);
        assert_eq!(h[0].anchor, None);
        assert_eq!(h[1].anchor.as_deref(), Some("def f():"));
        assert!(h[1].eof);
        let h = parse("@@   p  \t\n x\n", Style::ApplyPatch).unwrap();
        assert_eq!(
            h[0].anchor.as_deref(),
            Some("  p"),
            "trailing whitespace is not looked for"
        );
    }

    #[test]
    fn mistakes_name_their_line() {
        let e = parse("@@ -1 +1 @@\n a\nbad\n", Style::Unified).unwrap_err();
        assert!(e.starts_with("line 3:"), "{e}");
        let e = parse(" a\n", Style::Unified).unwrap_err();
        assert!(e.contains("before the first hunk header"), "{e}");
        let e = parse("@@ -x +1 @@\n a\n", Style::Unified).unwrap_err();
        assert!(e.contains("not a hunk header"), "{e}");
        let e = parse("@@\n", Style::ApplyPatch).unwrap_err();
        assert!(e.contains("has no lines"), "{e}");
        assert!(parse("", Style::Unified).unwrap().is_empty());
    }
}
