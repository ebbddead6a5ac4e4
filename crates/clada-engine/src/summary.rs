//! The human-readable rendering of a parse result (`git clada parse --format human`): one
//! line per block (id, line span, spelling, keys) and, per error, its position, code and
//! message with the offending line and a `^^^` marker under the offending text.

use std::fmt::Write as _;

use clada_base::term::{escape, Rule};
use clada_read::block::{ErrorCode, ParseResult};
use clada_read::char_index_at_utf16;

/// Renders `result` for people. Pure: no colour, no terminal queries. Block ids, keys and
/// the offending lines come from the reply, so they are escaped for a terminal
/// (`clada_base::term`) wherever the text goes.
pub fn summary(result: &ParseResult) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} {}, {} {}",
        result.blocks.len(),
        plural(result.blocks.len(), "block", "blocks"),
        result.errors.len(),
        plural(result.errors.len(), "error", "errors"),
    );
    for b in &result.blocks {
        let span = match b.end_line {
            Some(end) => format!("lines {}-{}", b.start_line, end),
            None => format!("from line {}, not closed", b.start_line),
        };
        let keys: Vec<&str> = b.properties.keys().map(String::as_str).collect();
        let keys = if keys.is_empty() {
            "(no keys)".to_string()
        } else {
            keys.join(", ")
        };
        let _ = writeln!(
            out,
            "block {} ({span}, {}): {}",
            escape(&b.id, Rule::Name),
            b.format.name,
            escape(&keys, Rule::Name)
        );
    }
    for e in &result.errors {
        let _ = writeln!(
            out,
            "error {}:{} {}: {}",
            e.line,
            e.column,
            code_name(e.code),
            escape(&e.message, Rule::Content)
        );
        if e.content.is_empty() && e.length == 0 {
            // End-of-input errors (and a block left open before an empty line) have no text
            // to point at; the message says where.
            continue;
        }
        let gutter = e.line.to_string();
        let _ = writeln!(out, "  {gutter} | {}", printable(&e.content));
        let _ = writeln!(
            out,
            "  {} | {}",
            " ".repeat(gutter.len()),
            marker(&e.content, e.column, e.length)
        );
    }
    out
}

fn plural<'s>(n: usize, one: &'s str, many: &'s str) -> &'s str {
    if n == 1 {
        one
    } else {
        many
    }
}

fn code_name(code: ErrorCode) -> String {
    serde_json::to_value(code)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_else(|| format!("{code:?}"))
}

/// The offending line as shown: escaped as content (tabs kept, and mirrored in the marker).
fn printable(s: &str) -> std::borrow::Cow<'_, str> {
    escape(s, Rule::Content)
}

/// How many characters `c` takes in [`printable`]'s text (an escaped character several).
fn shown_width(c: char) -> usize {
    escape(c.encode_utf8(&mut [0; 4]), Rule::Content)
        .chars()
        .count()
}

/// Spaces up to the UTF-16 `column` (1-based) of `content`, then one `^` per char covered by
/// `length` UTF-16 units (at least one).
fn marker(content: &str, column: usize, length: usize) -> String {
    let start = char_index_at_utf16(content, column.saturating_sub(1));
    let end_units = column.saturating_sub(1) + length;
    let end = if length == 0 {
        start + 1
    } else {
        // A length ending inside a surrogate pair still covers that char.
        let idx = char_index_at_utf16(content, end_units);
        let covered: usize = content.chars().take(idx).map(char::len_utf16).sum();
        let idx = if covered < end_units { idx + 1 } else { idx };
        idx.max(start + 1)
    };
    let chars: Vec<char> = content.chars().collect();
    let mut m = String::new();
    // Each char as wide as it is shown; past the end of the line (an error at its end), one
    // column per position.
    for i in 0..end {
        match (i < start, chars.get(i).copied()) {
            (true, Some('\t')) => m.push('\t'),
            (true, Some(c)) => m.extend(std::iter::repeat_n(' ', shown_width(c))),
            (true, None) => m.push(' '),
            (false, Some(c)) => m.extend(std::iter::repeat_n('^', shown_width(c))),
            (false, None) => m.push('^'),
        }
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marker_uses_char_positions_from_utf16_columns() {
        assert_eq!(marker("k = oops", 5, 4), "    ^^^^");
        assert_eq!(marker("😀 = x", 6, 1), "    ^");
        assert_eq!(marker("a😀b", 2, 2), " ^");
        assert_eq!(marker("\tk = x", 7, 1), "\t     ^");
        assert_eq!(marker("abc", 4, 1), "   ^");
        assert_eq!(marker("abc", 1, 0), "^");
    }

    #[test]
    fn full_summary() {
        let text =
            "intro\n#!SHAM [@three-char-SHA-256: abc]\npath = \"a\"\n😀k = \"v\"\n#!END_SHAM_abc\n\
                    #!nesl [@x: q1]\n\tk = x\n";
        let out = summary(&clada_read::parse(text, clada_read::Dialect::Auto));
        let expected = "\
2 blocks, 3 errors
block abc (lines 2-5, SHAM): path
block q1 (from line 6, not closed, nesl): (no keys)
error 4:1 INVALID_KEY: Key contains invalid character '😀' at position 1
  4 | 😀k = \"v\"
    | ^^
error 7:6 INVALID_VALUE: Value must be a quoted string or heredoc
  7 | \tk = x
    | \t    ^
error 9:1 UNCLOSED_BLOCK: Block 'q1' not closed before EOF
";
        assert_eq!(out, expected);
    }

    #[test]
    fn printable_escapes_control_chars_and_the_marker_follows() {
        assert_eq!(printable("a\rb\tc"), "a\\rb\tc");
        let line = "x = \u{1b}]0;t\u{7}\u{202e}y";
        assert_eq!(printable(line), "x = \\x1b]0;t\\x07\\u{202e}y");
        // The marker under `t` and the BEL after it, past the escaped ESC.
        assert_eq!(marker(line, 9, 2), "           ^^^^^");
    }
}
