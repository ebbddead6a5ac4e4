//! Explanations the reports add to what the reference parser says (or passes over): why a
//! header is malformed, which later blocks an unclosed heredoc swallowed, lines that look like
//! headers but are not. The parse itself is never changed by anything here: the notes ride
//! along in fields that are not serialised.
//!
//! Blocks indented as a whole (inside a markdown list or quote) are not read: the reference
//! rejects an indented header, and guessing how much indentation belongs to the content would
//! silently change heredoc text (YAML, Python, Makefiles). The report says what happened and
//! asks for the block unindented instead.

use super::assign::{parse_assignment, Assignment};
use super::markers::{match_header, validate_block_id, Markers};
use crate::block::{Notice, Swallowed};
use crate::lines::{trim, trim_start, Line, Lines};
use crate::text::edit_distance;

const LABEL: &str = "three-char-SHA-256";

/// How many lines after a header are searched for its `action = "…"` line.
const ACTION_LOOKAHEAD: usize = 200;

/// The leading whitespace of a line, described (`3 spaces`, `1 tab`).
fn describe_indent(indent: &str) -> String {
    let tabs = indent.chars().filter(|&c| c == '\t').count();
    let other = indent.chars().count() - tabs;
    let n = |k: usize, what: &str| format!("{k} {what}{}", if k == 1 { "" } else { "s" });
    match (other, tabs) {
        (o, 0) => n(o, "space"),
        (0, t) => n(t, "tab"),
        (o, t) => format!("{} and {}", n(o, "space"), n(t, "tab")),
    }
}

/// The id of a line that is a valid header in any spelling.
pub fn header_id(line: &str) -> Option<&str> {
    super::markers::spellings(None)
        .iter()
        .find_map(|m| match_header(m, line))
        .filter(|id| validate_block_id(id).is_ok())
}

/// The id text of a header-like line: what follows `: ` after `[@` up to `]` (or the end),
/// if it is a valid block id.
pub(crate) fn guess_id(line: &str) -> Option<&str> {
    let after = &line[line.find("[@")? + 2..];
    let after = &after[after.find(':')? + 1..];
    let id = trim(after.split(']').next().unwrap_or(after));
    validate_block_id(id).is_ok().then_some(id)
}

/// Why `line` (classified as a header of spelling `m`) does not match the header grammar.
pub(crate) fn malformed_header(m: &Markers, line: &str) -> String {
    let example = format!("{}{}]", m.canonical_prefix, guess_id(line).unwrap_or("ID"));
    let reason = header_problem(m, line);
    if trim_start(line).len() != line.len() {
        return format!(
            "{reason} (line: `{line}`); the block was not read — resend it with no indentation on any of its lines"
        );
    }
    format!(
        "{reason} (line: `{line}`); the block was not read — resend it with the header `{example}`"
    )
}

fn header_problem(m: &Markers, line: &str) -> String {
    let body = trim_start(line);
    if body.len() != line.len() {
        return format!(
            "the header is indented ({}): block markers must start at the beginning of the \
             line, and a block indented as a whole (e.g. in a markdown list) is not read, since \
             how much of the indentation belongs to its content cannot be known",
            describe_indent(&line[..line.len() - body.len()])
        );
    }
    let Some(rest) = line.get(m.header_prefix.len()..) else {
        return "the header is cut short".into();
    };
    let Some(rest) = rest.strip_prefix("[@") else {
        return format!(
            "`[@` must follow `{}` directly (one space between them)",
            m.header_prefix.trim_end()
        );
    };
    let label_len = rest
        .bytes()
        .take_while(|b| b.is_ascii_alphanumeric() || *b == b'-')
        .count();
    let label = &rest[..label_len];
    if m.flexible_label {
        if label.is_empty() {
            return "a label (letters, digits and `-`, e.g. `three-char-SHA-256`) must follow `[@`"
                .into();
        }
    } else if label != LABEL {
        let found: String = rest.chars().take_while(|&c| c != ':' && c != ']').collect();
        return format!("the label must be `{LABEL}`, not `{found}`");
    }
    let Some(id_part) = rest[label_len..].strip_prefix(": ") else {
        return "`: ` (a colon and one space) must follow the label".into();
    };
    let Some(close) = id_part.find(']') else {
        return "the header must end with `]`".into();
    };
    let after = &id_part[close + 1..];
    if !after.is_empty() {
        return if trim(after).is_empty() {
            "whitespace after the closing `]`: the header must end with `]`".into()
        } else {
            format!("unexpected text `{after}` after the closing `]`")
        };
    }
    if close == 0 {
        return "the block id between `: ` and `]` is missing".into();
    }
    "`]` may appear only once, at the end".into()
}

/// The invalid-id explanation, with the line.
pub(crate) fn invalid_id(m: &Markers, line: &str) -> String {
    format!(
        "a block id is 2 to 8 letters or digits (line: `{line}`); the block was not read — resend it with the header `{}ID]`",
        m.canonical_prefix
    )
}

/// The `action` value among the lines after a header: the first `action = "…"` before the next
/// `#!` line.
pub(crate) fn action_after<'a>(mut lines: impl Iterator<Item = Line<'a>>) -> Option<String> {
    lines
        .by_ref()
        .take(ACTION_LOOKAHEAD)
        .map(|l| l.text)
        .take_while(|t| !trim(t).starts_with("#!"))
        .find_map(|t| match parse_assignment(t) {
            Assignment::KeyValue {
                key: "action",
                value,
                ..
            } => Some(value),
            _ => None,
        })
}

/// A line outside blocks that looks like a header but is not one (`#!Nesl`, `#! nesl`,
/// `#!NESL[@…`): `#!`, optional whitespace, SHAM or NESL in any case, and a `[@` later on.
pub(crate) fn near_miss_header(line: &str) -> bool {
    let Some(rest) = trim(line).strip_prefix("#!") else {
        return false;
    };
    let word = trim_start(rest);
    let name = word.get(..4).unwrap_or("");
    (name.eq_ignore_ascii_case("sham") || name.eq_ignore_ascii_case("nesl"))
        && word[4..].contains("[@")
}

pub(crate) fn near_miss_notice(line: &str, n: usize, following: Lines<'_>) -> Notice {
    let id = guess_id(line);
    Notice {
        line: n,
        block_id: id.map(str::to_string),
        action: action_after(following),
        message: format!(
            "line {n} looks like a block header but is not one: `{line}`; a header starts at the \
             beginning of the line with `#!SHAM`, `#!NESL` or `#!nesl` in exactly that case, then \
             one space and `[@`, e.g. `#!nesl [@three-char-SHA-256: {}]`. The block was not read \
             — resend it with a correct header",
            id.unwrap_or("ID")
        ),
    }
}

/// A heredoc that never closed: what it swallowed and what to fix.
pub(crate) struct Unclosed<'a> {
    pub markers: &'static Markers,
    pub spellings: &'static [&'static Markers],
    pub key: &'a str,
    pub delimiter: &'a str,
    pub opener_line: usize,
    /// The body text (every line after the opener) and its first line's number.
    pub body: &'a str,
}

impl Unclosed<'_> {
    /// The detail text and the swallowed block headers.
    pub(crate) fn explain(&self) -> (String, Vec<Swallowed>) {
        let mut swallowed = Vec::new();
        let mut suspect: Option<(usize, &str)> = None;
        // Any end marker after the opener: the reply went on past this block.
        let mut went_on = false;
        let lines: Vec<Line<'_>> = Lines::new(self.body).collect();
        for (k, l) in lines.iter().enumerate() {
            let n = self.opener_line + 1 + k;
            let t = trim(l.text);
            if suspect.is_none() && self.looks_like_terminator(t) {
                suspect = Some((n, l.text));
            }
            if !t.starts_with("#!") {
                continue;
            }
            went_on |= self
                .spellings
                .iter()
                .any(|m| super::markers::match_end(m, t).is_some());
            let header = self
                .spellings
                .iter()
                .find_map(|m| match_header(m, l.text))
                .filter(|id| validate_block_id(id).is_ok());
            if let Some(id) = header {
                swallowed.push(Swallowed {
                    line: n,
                    id: id.to_string(),
                    action: action_after(lines[k + 1..].iter().copied()),
                });
            }
        }
        let close = if self.markers.lenient_close {
            format!("a line ending with `{}`", self.delimiter)
        } else {
            format!("a line that is exactly `{}`", self.delimiter)
        };
        if suspect.is_none() && swallowed.is_empty() && !went_on {
            // Nothing after the opener looks like an end: the text stops inside the heredoc.
            let detail = format!(
                "the reply ends inside the heredoc of `{}` opened at line {} (no `{}` and no \
                 end marker follow): the reply was cut off — send this block again, whole",
                self.key, self.opener_line, self.delimiter
            );
            return (detail, swallowed);
        }
        let mut detail = format!(
            "the heredoc of `{}` opened at line {} was never closed (it needs {close})",
            self.key, self.opener_line
        );
        if let Some((n, text)) = suspect {
            if trim(text) == self.delimiter {
                detail.push_str(&format!(
                    "; line {n} `{text}` has the terminator with whitespace around it"
                ));
            } else {
                detail.push_str(&format!(
                    "; line {n} `{text}` looks like a misspelled terminator"
                ));
            }
        }
        detail.push_str(&format!(
            ", so everything after line {} was read as its text",
            self.opener_line
        ));
        match swallowed.len() {
            0 => detail.push_str(" — fix the terminator and resend this block"),
            k => {
                let list: Vec<String> = swallowed
                    .iter()
                    .map(|s| format!("line {} (block {})", s.line, s.id))
                    .collect();
                detail.push_str(&format!(
                    ", including {k} later block header{}: {}. Fix the terminator, then resend \
                     this block and the {}",
                    if k == 1 { "" } else { "s" },
                    list.join(", "),
                    if k == 1 {
                        "swallowed one".to_string()
                    } else {
                        format!("{k} swallowed ones")
                    }
                ));
            }
        }
        (detail, swallowed)
    }

    /// A body line that was probably meant to close the heredoc: the delimiter with whitespace
    /// around it, in another case, or with a character or two changed.
    fn looks_like_terminator(&self, t: &str) -> bool {
        let bare = trim(t).trim_matches('\'');
        if bare.is_empty() {
            return false;
        }
        // An exact line would have closed the heredoc, so equality here means whitespace or
        // quotes around the terminator.
        bare == self.delimiter
            || bare.eq_ignore_ascii_case(self.delimiter)
            || (bare.len().abs_diff(self.delimiter.len()) <= 2
                && bare.get(..3).is_some_and(|p| p.eq_ignore_ascii_case("EOT"))
                && edit_distance(bare, self.delimiter) <= 2)
    }
}

#[cfg(test)]
mod tests {
    use super::super::markers::{NESL, SHAM};
    use super::*;

    #[test]
    fn header_problems_are_named() {
        let p = |m, l| header_problem(m, l);
        assert!(p(&SHAM, "   #!SHAM [@three-char-SHA-256: abc]").contains("indented (3 spaces)"));
        let cases: [(&Markers, &str, &str); 6] = [
            (
                &SHAM,
                "#!SHAM [@sha256: abc]",
                "the label must be `three-char-SHA-256`, not `sha256`",
            ),
            (
                &SHAM,
                "#!SHAM [@three-char-SHA-256: abc",
                "the header must end with `]`",
            ),
            (
                &SHAM,
                "#!SHAM [@three-char-SHA-256: abc] ",
                "whitespace after the closing `]`: the header must end with `]`",
            ),
            (
                &SHAM,
                "#!SHAM [@three-char-SHA-256:abc]",
                "`: ` (a colon and one space) must follow the label",
            ),
            (
                &NESL,
                "#!nesl abc",
                "`[@` must follow `#!nesl` directly (one space between them)",
            ),
            (
                &NESL,
                "#!nesl [@x: ]",
                "the block id between `: ` and `]` is missing",
            ),
        ];
        for (m, line, want) in cases {
            assert_eq!(p(m, line), want, "{line}");
        }
    }

    #[test]
    fn near_misses() {
        assert!(near_miss_header("#!Nesl [@three-char-SHA-256: abc]"));
        assert!(near_miss_header("#! nesl [@three-char-SHA-256: abc]"));
        assert!(near_miss_header("#!NESL[@three-char-SHA-256: abc]"));
        assert!(near_miss_header("  #!sham [@x: abc]"));
        assert!(!near_miss_header("#!nesly"));
        assert!(!near_miss_header("#!/bin/sh"));
        assert!(!near_miss_header("#!NESL"));
        assert_eq!(guess_id("#!Nesl [@three-char-SHA-256: k9x]"), Some("k9x"));
        assert_eq!(guess_id("#!Nesl [@x: a b]"), None);
    }

    #[test]
    fn terminator_suspects() {
        let u = Unclosed {
            markers: &SHAM,
            spellings: &[],
            key: "content",
            delimiter: "EOT_SHAM_abc",
            opener_line: 1,
            body: "",
        };
        assert!(u.looks_like_terminator("EOT_SHAM_ab"));
        assert!(u.looks_like_terminator("eot_sham_abc"));
        assert!(u.looks_like_terminator("EOT_SHAM_abc"));
        assert!(u.looks_like_terminator("'EOT_SHAM_abd'"));
        assert!(!u.looks_like_terminator("EOT_NESL_xyz"));
        assert!(!u.looks_like_terminator("fn main() {"));
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }
}
