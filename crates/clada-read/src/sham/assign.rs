//! Assignment lines inside a block (grammar §7, §8.1): splitting `key = value`, recognising
//! quoted values and heredoc openers, key validity, and decoding a quoted value as a JSON
//! string literal.
//!
//! This module only looks at one line. What happens to the block (storing, duplicates, entering
//! a heredoc) is the state machine's business in `parser.rs`.

use unicode_general_category::{get_general_category, GeneralCategory as Gc};

use crate::block::ErrorCode;
use crate::lines::{len16, trim, trim_start};

/// Keys longer than this many UTF-16 units are rejected.
pub(crate) const MAX_KEY_LEN16: usize = 256;

/// An error found on the line. `pos` is a byte offset into the line; the column is computed
/// from it only when the error is reported.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct LineError {
    pub code: ErrorCode,
    pub pos: usize,
    pub len16: usize,
    pub message: &'static str,
}

/// What an assignment line turned out to be.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Assignment<'a> {
    /// The line is rejected before its key is looked at (§7: value errors hide key errors).
    Error(LineError),
    KeyValue {
        raw_key: &'a str,
        key: &'a str,
        value: String,
        /// Byte offset of the first non-whitespace character after the closing quote.
        trailing: Option<usize>,
    },
    Heredoc {
        raw_key: &'a str,
        key: &'a str,
        delimiter: &'a str,
    },
}

pub(crate) const MSG_INVALID_VALUE: &str = "Value must be a quoted string or heredoc";
const MSG_LONE_SURROGATE: &str = "Value contains an unpaired surrogate escape (\\uD800-\\uDFFF), which is not a character; write the character itself or a complete \\uD8xx\\uDCxx pair";

fn err<'a>(code: ErrorCode, pos: usize, len16: usize, message: &'static str) -> Assignment<'a> {
    Assignment::Error(LineError {
        code,
        pos,
        len16,
        message,
    })
}

/// Parses a line that contains `=` (§7, steps A1–A7).
pub(crate) fn parse_assignment(line: &str) -> Assignment<'_> {
    let Some(e) = line.find('=') else {
        // Callers only pass lines containing '='; an unexpected line is still an error, not a panic.
        return err(ErrorCode::InvalidValue, 0, len16(line), MSG_INVALID_VALUE);
    };
    let after = &line[e + 1..];
    if after.starts_with('>') {
        return err(ErrorCode::InvalidValue, e, 2, MSG_INVALID_VALUE);
    }
    // Only a `:=` used as the assignment operator is an error. The reference rejects `:=`
    // anywhere on the line, which loses values such as URLs (`url = "a:=b"`).
    if e > 0 && line.as_bytes()[e - 1] == b':' {
        return err(
            ErrorCode::InvalidAssignmentOperator,
            e - 1,
            2,
            "Invalid assignment operator ':=' - only '=' is allowed",
        );
    }
    let raw_key = &line[..e];
    let key = trim(raw_key);
    if key.is_empty() {
        return err(ErrorCode::EmptyKey, e, 1, "Assignment without key name");
    }
    let value_start = e + 1 + (after.len() - trim_start(after).len());
    let v = trim(after);
    if v.is_empty() {
        return err(ErrorCode::InvalidValue, line.len(), 1, MSG_INVALID_VALUE);
    }
    if v.starts_with('"') {
        return quoted(line, raw_key, key, v, value_start);
    }
    if let Some(delimiter) = heredoc_delimiter(v) {
        return Assignment::Heredoc {
            raw_key,
            key,
            delimiter,
        };
    }
    err(
        ErrorCode::InvalidValue,
        value_start,
        len16(v),
        MSG_INVALID_VALUE,
    )
}

fn quoted<'a>(
    line: &'a str,
    raw_key: &'a str,
    key: &'a str,
    v: &'a str,
    q: usize,
) -> Assignment<'a> {
    let bytes = v.as_bytes();
    let mut i = 1;
    let mut close = None;
    // Byte-wise is safe: '"' and '\\' never occur inside a multi-byte UTF-8 sequence, so
    // skipping one byte after a backslash can only land on a continuation byte, which is skipped.
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => {
                close = Some(i);
                break;
            }
            _ => i += 1,
        }
    }
    let Some(close) = close else {
        return err(
            ErrorCode::UnclosedQuote,
            q,
            len16(&line[q..]),
            "Unclosed quoted string",
        );
    };
    let token = &v[..=close];
    let value = match decode_json_string(token) {
        Ok(value) => value,
        Err(DecodeError::Invalid) => {
            return err(ErrorCode::InvalidValue, q, len16(token), MSG_INVALID_VALUE)
        }
        Err(DecodeError::LoneSurrogate) => {
            return err(ErrorCode::InvalidValue, q, len16(token), MSG_LONE_SURROGATE)
        }
    };
    let rest = &v[close + 1..];
    let trailing =
        (!rest.is_empty()).then(|| q + close + 1 + (rest.len() - trim_start(rest).len()));
    Assignment::KeyValue {
        raw_key,
        key,
        value,
        trailing,
    }
}

/// `<<'DELIM'` with a non-empty DELIM free of `'` (§7 A6). The value is already trimmed.
fn heredoc_delimiter(v: &str) -> Option<&str> {
    let inner = v.strip_prefix("<<'")?.strip_suffix('\'')?;
    (!inner.is_empty() && !inner.contains('\'')).then_some(inner)
}

/// Why a key is invalid (§8.1), as the reference words it; `None` if it is valid.
pub(crate) fn key_error(key: &str) -> Option<String> {
    let mut offset16 = 0;
    for (i, c) in key.chars().enumerate() {
        let ok = c == '_' || is_letter(c) || (i > 0 && is_number(c));
        if !ok {
            return Some(format!(
                "Key contains invalid character '{c}' at position {}",
                offset16 + 1
            ));
        }
        offset16 += c.len_utf16();
    }
    (offset16 > MAX_KEY_LEN16).then(|| format!("Key exceeds {MAX_KEY_LEN16} character limit"))
}

fn is_letter(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphabetic();
    }
    matches!(
        get_general_category(c),
        Gc::UppercaseLetter
            | Gc::LowercaseLetter
            | Gc::TitlecaseLetter
            | Gc::ModifierLetter
            | Gc::OtherLetter
    )
}

fn is_number(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_digit();
    }
    matches!(
        get_general_category(c),
        Gc::DecimalNumber | Gc::LetterNumber | Gc::OtherNumber
    )
}

#[derive(Debug, PartialEq, Eq)]
pub(crate) enum DecodeError {
    /// Bad escape, bad `\u` digits, or a raw control character.
    Invalid,
    /// A `\uD800`-`\uDFFF` escape without its partner. JSON.parse accepts it, but a Rust
    /// string cannot hold it, and replacing it with U+FFFD would silently change the value.
    LoneSurrogate,
}

/// Decodes `"…"` (quotes included) like ECMAScript `JSON.parse` on a string literal.
pub(crate) fn decode_json_string(token: &str) -> Result<String, DecodeError> {
    let inner = token
        .strip_prefix('"')
        .and_then(|t| t.strip_suffix('"'))
        .ok_or(DecodeError::Invalid)?;
    if !inner.bytes().any(|b| b == b'\\' || b < 0x20) {
        return Ok(inner.to_string());
    }
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {}
            c if (c as u32) < 0x20 => return Err(DecodeError::Invalid),
            c => {
                out.push(c);
                continue;
            }
        }
        match chars.next().ok_or(DecodeError::Invalid)? {
            '"' => out.push('"'),
            '\\' => out.push('\\'),
            '/' => out.push('/'),
            'b' => out.push('\u{8}'),
            'f' => out.push('\u{c}'),
            'n' => out.push('\n'),
            'r' => out.push('\r'),
            't' => out.push('\t'),
            'u' => {
                let unit = hex4(&mut chars)?;
                let c = match unit {
                    0xD800..=0xDBFF => {
                        // Only an immediately following `\uDC00`-`\uDFFF` completes the pair.
                        let mut look = chars.clone();
                        if look.next() != Some('\\') || look.next() != Some('u') {
                            return Err(DecodeError::LoneSurrogate);
                        }
                        let low = hex4(&mut look)?;
                        if !(0xDC00..=0xDFFF).contains(&low) {
                            return Err(DecodeError::LoneSurrogate);
                        }
                        chars = look;
                        let cp = 0x10000
                            + ((u32::from(unit) - 0xD800) << 10)
                            + (u32::from(low) - 0xDC00);
                        char::from_u32(cp).ok_or(DecodeError::Invalid)?
                    }
                    0xDC00..=0xDFFF => return Err(DecodeError::LoneSurrogate),
                    _ => char::from_u32(u32::from(unit)).ok_or(DecodeError::Invalid)?,
                };
                out.push(c);
            }
            _ => return Err(DecodeError::Invalid),
        }
    }
    Ok(out)
}

fn hex4(chars: &mut std::str::Chars<'_>) -> Result<u16, DecodeError> {
    let mut v: u16 = 0;
    for _ in 0..4 {
        let d = chars
            .next()
            .and_then(|c| c.to_digit(16))
            .ok_or(DecodeError::Invalid)?;
        // to_digit(16) < 16, and four digits fit in u16.
        v = (v << 4) | d as u16;
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kv(line: &str) -> (String, String, Option<usize>) {
        match parse_assignment(line) {
            Assignment::KeyValue {
                key,
                value,
                trailing,
                ..
            } => (key.to_string(), value, trailing),
            other => panic!("{line:?} gave {other:?}"),
        }
    }

    fn error(line: &str) -> (ErrorCode, usize, usize) {
        match parse_assignment(line) {
            Assignment::Error(e) => (e.code, e.pos, e.len16),
            other => panic!("{line:?} gave {other:?}"),
        }
    }

    #[test]
    fn json_escapes_like_json_parse() {
        let d = |s: &str| decode_json_string(s);
        assert_eq!(d(r#""a\"b\\c\/d""#).as_deref(), Ok("a\"b\\c/d"));
        assert_eq!(d(r#""\b\f\n\r\t""#).as_deref(), Ok("\u{8}\u{c}\n\r\t"));
        assert_eq!(d(r#""\u0041\u00e9\u00E9""#).as_deref(), Ok("Aéé"));
        assert_eq!(d(r#""\uD83D\uDE00""#).as_deref(), Ok("😀"));
        assert_eq!(
            d("\"\u{7f}\u{85}\u{2028}😀'=\"").as_deref(),
            Ok("\u{7f}\u{85}\u{2028}😀'=")
        );
        for bad in [
            r#""\'""#,
            r#""\x41""#,
            r#""\a""#,
            r#""\u12""#,
            r#""\u12g4""#,
            "\"\t\"",
            "\"\u{0}\"",
            "\"\u{1f}\"",
        ] {
            assert_eq!(d(bad), Err(DecodeError::Invalid), "{bad:?}");
        }
        for lone in [
            r#""\uD800""#,
            r#""\uDE00""#,
            r#""\uD83Dx""#,
            r#""\uD83D\u0041""#,
            r#""\uD83D\n""#,
        ] {
            assert_eq!(d(lone), Err(DecodeError::LoneSurrogate), "{lone:?}");
        }
    }

    #[test]
    fn key_validity() {
        for ok in ["_", "_1", "k²", "kⅫ", "用户名", "Ä", "a_B9"] {
            assert_eq!(key_error(ok), None, "{ok}");
        }
        assert_eq!(
            key_error("1a").as_deref(),
            Some("Key contains invalid character '1' at position 1")
        );
        assert_eq!(
            key_error("a-b").as_deref(),
            Some("Key contains invalid character '-' at position 2")
        );
        assert_eq!(
            key_error("e\u{301}").as_deref(),
            Some("Key contains invalid character '\u{301}' at position 2")
        );
        assert_eq!(
            key_error("𝐀😀").as_deref(),
            Some("Key contains invalid character '😀' at position 3")
        );
        assert_eq!(key_error(&"𝐀".repeat(128)), None);
        assert_eq!(
            key_error(&"𝐀".repeat(129)).as_deref(),
            Some("Key exceeds 256 character limit")
        );
        let long_bad = format!("{}-", "a".repeat(300));
        assert_eq!(
            key_error(&long_bad).as_deref(),
            Some("Key contains invalid character '-' at position 301")
        );
    }

    #[test]
    fn value_shapes() {
        assert_eq!(kv(r#"k = "v""#), ("k".into(), "v".into(), None));
        assert_eq!(
            kv("k=\"a\\\"b\"  \u{a0}"),
            ("k".into(), "a\"b".into(), None)
        );
        assert_eq!(kv(r#"k = "a" // c"#), ("k".into(), "a".into(), Some(8)));
        assert_eq!(kv(r#"url = "a:=b""#).1, "a:=b");
        assert_eq!(error("k=>\"v\""), (ErrorCode::InvalidValue, 1, 2));
        assert_eq!(
            error("k := \"v\""),
            (ErrorCode::InvalidAssignmentOperator, 2, 2)
        );
        assert_eq!(error(" = \"v\""), (ErrorCode::EmptyKey, 1, 1));
        assert_eq!(error("k = "), (ErrorCode::InvalidValue, 4, 1));
        assert_eq!(error("k = \"abc"), (ErrorCode::UnclosedQuote, 4, 4));
        assert_eq!(error("k = \"a\\\""), (ErrorCode::UnclosedQuote, 4, 4));
        assert_eq!(error("k = \"\\q\" x"), (ErrorCode::InvalidValue, 4, 4));
        assert_eq!(
            error("bad key = unquoted"),
            (ErrorCode::InvalidValue, 10, 8)
        );
        assert_eq!(error("k == \"x\""), (ErrorCode::InvalidValue, 3, 5));
        assert_eq!(error("😀 = x"), (ErrorCode::InvalidValue, 7, 1));
    }

    #[test]
    fn heredoc_openers() {
        assert!(matches!(
            parse_assignment("k = <<'EOT_SHAM_abc'  "),
            Assignment::Heredoc {
                delimiter: "EOT_SHAM_abc",
                ..
            }
        ));
        for not in [
            "k = << 'X'",
            "k = <<\"X\"",
            "k = <<X",
            "k = <<'X' x",
            "k = <<'X''",
            "k = <<''",
            "k = <<'",
        ] {
            assert_eq!(error(not).0, ErrorCode::InvalidValue, "{not}");
        }
    }
}
