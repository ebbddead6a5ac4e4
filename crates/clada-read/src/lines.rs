//! Text primitives the block grammar is defined in terms of: splitting the input into lines
//! (LF, optionally preceded by one CR), the ECMAScript whitespace set used by every "trim",
//! UTF-16 lengths for reported columns, and the 5-line `context` window.
//!
//! The reference is JavaScript, so "whitespace" and "length" mean what they mean there. Rust's
//! `char::is_whitespace` and `str::len` mean something else, hence these helpers.

/// ECMAScript `WhiteSpace` + `LineTerminator`: the set `String.prototype.trim` removes.
///
/// Differs from `char::is_whitespace`: U+FEFF (BOM) is included, U+0085 (NEL) is not.
pub(crate) fn is_js_ws(c: char) -> bool {
    matches!(
        c,
        '\u{0009}'..='\u{000D}'
            | '\u{0020}'
            | '\u{00A0}'
            | '\u{1680}'
            | '\u{2000}'..='\u{200A}'
            | '\u{2028}'
            | '\u{2029}'
            | '\u{202F}'
            | '\u{205F}'
            | '\u{3000}'
            | '\u{FEFF}'
    )
}

/// `String.prototype.trim`.
pub(crate) fn trim(s: &str) -> &str {
    s.trim_matches(is_js_ws)
}

/// `String.prototype.trimStart`.
pub(crate) fn trim_start(s: &str) -> &str {
    s.trim_start_matches(is_js_ws)
}

/// `String.prototype.trimEnd`.
pub(crate) fn trim_end(s: &str) -> &str {
    s.trim_end_matches(is_js_ws)
}

/// Whether `s` begins with a JS whitespace character.
pub(crate) fn starts_with_ws(s: &str) -> bool {
    s.chars().next().is_some_and(is_js_ws)
}

/// Length in UTF-16 code units, what JavaScript's `.length` reports.
///
/// Every char contributes one unit per UTF-8 lead byte, plus one more for the four-byte
/// (astral) ones, so counting bytes is enough and avoids decoding.
pub fn len16(s: &str) -> usize {
    s.bytes()
        .map(|b| usize::from((b & 0xC0) != 0x80) + usize::from(b >= 0xF0))
        .sum()
}

/// The char index at which UTF-16 offset `units` falls (clamped to the char count). An offset
/// pointing into the middle of a surrogate pair maps to that char.
pub fn char_index_at_utf16(s: &str, units: usize) -> usize {
    let mut seen = 0;
    for (i, c) in s.chars().enumerate() {
        if seen >= units {
            return i;
        }
        seen += c.len_utf16();
        if seen > units {
            return i;
        }
    }
    s.chars().count()
}

/// One line of the input after the §2 split.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Line<'a> {
    /// The line text without its LF and without one CR directly before that LF.
    pub text: &'a str,
    /// Byte offset of the line's first byte in the input.
    pub start: usize,
}

impl Line<'_> {
    /// Byte offset one past `text` in the input.
    pub fn end(&self) -> usize {
        self.start + self.text.len()
    }
}

/// Iterates the lines of the input: split on LF, drop one CR before each LF. An input ending
/// in LF yields a final empty line and the empty input yields one empty line, as in the
/// reference (`text.split(/\r?\n/)`).
pub(crate) struct Lines<'a> {
    text: &'a str,
    pos: usize,
    done: bool,
    newlines: memchr::Memchr<'a>,
}

impl<'a> Lines<'a> {
    pub fn new(text: &'a str) -> Self {
        Lines {
            text,
            pos: 0,
            done: false,
            // One SIMD scan over the whole input instead of a fresh search per line.
            newlines: memchr::memchr_iter(b'\n', text.as_bytes()),
        }
    }
}

impl<'a> Iterator for Lines<'a> {
    type Item = Line<'a>;

    fn next(&mut self) -> Option<Line<'a>> {
        if self.done {
            return None;
        }
        let start = self.pos;
        let text = match self.newlines.next() {
            Some(lf) => {
                self.pos = lf + 1;
                // LF is ASCII, so both ends are char boundaries. Only a CR that stood
                // directly before an LF belongs to the line break.
                let piece = self.text.get(start..lf).unwrap_or("");
                piece.strip_suffix('\r').unwrap_or(piece)
            }
            None => {
                self.done = true;
                self.text.get(start..).unwrap_or("")
            }
        };
        Some(Line { text, start })
    }
}

/// Byte offsets of every line start, split on LF only (the split the reference's context
/// window uses, so CRs stay in context lines). Built once, only when there are errors.
pub(crate) struct LineIndex<'a> {
    text: &'a str,
    starts: Vec<usize>,
}

impl<'a> LineIndex<'a> {
    pub fn new(text: &'a str) -> Self {
        let mut starts = vec![0];
        starts.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1));
        LineIndex { text, starts }
    }

    /// Byte offset where 1-based line `line` starts, if there is such a line.
    pub fn start(&self, line: usize) -> Option<usize> {
        self.starts.get(line.checked_sub(1)?).copied()
    }

    /// Number of lines (always `N`, the count of the §2 split).
    pub fn count(&self) -> usize {
        self.starts.len()
    }

    /// The reference's context: the whole input for ≤ 5 lines, else the 5 lines around `line`
    /// (1-based, may be N+1), shifted to stay inside the input, joined with `\n`.
    pub fn context(&self, line: usize) -> &'a str {
        let total = self.count();
        if total <= 5 {
            return self.text;
        }
        let t = line.saturating_sub(1);
        let mut first = t.saturating_sub(2);
        let mut last = first + 4;
        if t >= 2 && t + 2 >= total {
            last = total - 1;
            first = total - 5;
        } else if t < 2 {
            first = 0;
            last = 4;
        }
        // Lines [first, last] are contiguous in the input: from the start of `first` to just
        // before the LF that ends `last`.
        let begin = self.starts[first];
        let end = match self.starts.get(last + 1) {
            Some(next) => next - 1,
            None => self.text.len(),
        };
        self.text.get(begin..end).unwrap_or("")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn js_whitespace_set_includes_bom_excludes_nel() {
        for c in [
            '\t', '\n', '\u{b}', '\u{c}', '\r', ' ', '\u{a0}', '\u{1680}', '\u{2000}', '\u{200a}',
            '\u{2028}', '\u{2029}', '\u{202f}', '\u{205f}', '\u{3000}', '\u{feff}',
        ] {
            assert!(is_js_ws(c), "{:?} should be whitespace", c);
        }
        for c in [
            '\u{85}', '\u{200b}', '\u{180e}', 'a', '\u{0}', '\u{1f}', '\u{2060}',
        ] {
            assert!(!is_js_ws(c), "{:?} should not be whitespace", c);
        }
        assert_eq!(trim("\u{feff} x \u{a0}"), "x");
        assert_eq!(trim("\u{85}x\u{85}"), "\u{85}x\u{85}");
        assert_eq!(trim_start("\t x "), "x ");
        assert_eq!(trim_end("\t x \r"), "\t x");
    }

    #[test]
    fn utf16_lengths_count_astral_chars_twice() {
        assert_eq!(len16(""), 0);
        assert_eq!(len16("abc"), 3);
        assert_eq!(len16("é"), 1);
        assert_eq!(len16("用户"), 2);
        assert_eq!(len16("😀"), 2);
        assert_eq!(len16("a😀b𝐀"), 6);
        assert_eq!(len16("\u{feff}"), 1);
    }

    #[test]
    fn utf16_column_to_char_index() {
        let s = "a😀b";
        assert_eq!(char_index_at_utf16(s, 0), 0);
        assert_eq!(char_index_at_utf16(s, 1), 1);
        assert_eq!(char_index_at_utf16(s, 2), 1);
        assert_eq!(char_index_at_utf16(s, 3), 2);
        assert_eq!(char_index_at_utf16(s, 4), 3);
        assert_eq!(char_index_at_utf16(s, 99), 3);
    }

    fn texts(s: &str) -> Vec<&str> {
        Lines::new(s).map(|l| l.text).collect()
    }

    #[test]
    fn line_split_drops_one_cr_before_lf_only() {
        assert_eq!(texts(""), vec![""]);
        assert_eq!(texts("a"), vec!["a"]);
        assert_eq!(texts("a\n"), vec!["a", ""]);
        assert_eq!(texts("a\r\nb"), vec!["a", "b"]);
        assert_eq!(texts("a\r\r\nb\r"), vec!["a\r", "b\r"]);
        assert_eq!(texts("a\rb"), vec!["a\rb"]);
        let starts: Vec<usize> = Lines::new("ab\r\ncd\n").map(|l| l.start).collect();
        assert_eq!(starts, vec![0, 4, 7]);
    }

    #[test]
    fn context_window_shifts_at_both_ends() {
        let five = "1\n2\n3\n4\n5";
        assert_eq!(LineIndex::new(five).context(1), five);
        assert_eq!(LineIndex::new(five).context(6), five);
        let text = "1\n2\n3\n4\n5\n6\n7\n8";
        let idx = LineIndex::new(text);
        assert_eq!(idx.count(), 8);
        assert_eq!(idx.context(1), "1\n2\n3\n4\n5");
        assert_eq!(idx.context(2), "1\n2\n3\n4\n5");
        assert_eq!(idx.context(3), "1\n2\n3\n4\n5");
        assert_eq!(idx.context(4), "2\n3\n4\n5\n6");
        assert_eq!(idx.context(6), "4\n5\n6\n7\n8");
        assert_eq!(idx.context(7), "4\n5\n6\n7\n8");
        assert_eq!(idx.context(9), "4\n5\n6\n7\n8");
    }

    #[test]
    fn context_keeps_carriage_returns() {
        let text = "1\r\n2\r\n3\r\n4\r\n5\r\n6\r\n";
        let idx = LineIndex::new(text);
        assert_eq!(idx.count(), 7);
        assert_eq!(idx.context(8), "3\r\n4\r\n5\r\n6\r\n");
        assert_eq!(idx.context(1), "1\r\n2\r\n3\r\n4\r\n5\r");
    }
}
