//! The three spellings of the block markers (grammar §3, §5, §6, §14): their constants, the
//! header and end-marker grammars, block-id validation, and the diagnosis of a malformed end
//! marker.
//!
//! Everything that differs between SHAM, upper-case NESL and lower-case nesl lives here, so
//! the state machine is written once and parameterised by a [`Markers`] value.

use crate::block::Format;
use crate::lines::{len16, starts_with_ws, trim_end, trim_start};

/// The per-spelling constants and lenience switches.
#[derive(Debug)]
pub(crate) struct Markers {
    pub format: Format,
    /// Classification prefix of a header, including its trailing space.
    pub header_prefix: &'static str,
    /// Classification prefix of an end marker.
    pub end_prefix: &'static str,
    /// The heredoc delimiter is this followed by the block id.
    pub heredoc_prefix: &'static str,
    /// INVALID_BLOCK_ID is reported at column 30 when the line starts with this.
    pub canonical_prefix: &'static str,
    pub malformed_header: &'static str,
    /// nesl: any `[A-Za-z0-9-]+` label; otherwise exactly `three-char-SHA-256`.
    pub flexible_label: bool,
    /// nesl: one `'` may follow the end marker's id.
    pub end_apostrophe: bool,
    /// nesl: the §9 lenient heredoc close; otherwise the line must equal the delimiter.
    pub lenient_close: bool,
}

const LABEL: &str = "three-char-SHA-256";

pub(crate) static SHAM: Markers = Markers {
    format: Format::SHAM,
    header_prefix: "#!SHAM ",
    end_prefix: "#!END_SHAM_",
    heredoc_prefix: "EOT_SHAM_",
    canonical_prefix: "#!SHAM [@three-char-SHA-256: ",
    malformed_header: "Invalid SHAM header format",
    flexible_label: false,
    end_apostrophe: false,
    lenient_close: false,
};

pub(crate) static NESL_UPPER: Markers = Markers {
    format: Format::NESL_UPPER,
    header_prefix: "#!NESL ",
    end_prefix: "#!END_NESL_",
    heredoc_prefix: "EOT_NESL_",
    canonical_prefix: "#!NESL [@three-char-SHA-256: ",
    malformed_header: "Invalid NESL header format",
    flexible_label: false,
    end_apostrophe: false,
    lenient_close: false,
};

pub(crate) static NESL: Markers = Markers {
    format: Format::NESL,
    header_prefix: "#!nesl ",
    end_prefix: "#!end_",
    heredoc_prefix: "EOT_",
    canonical_prefix: "#!nesl [@three-char-SHA-256: ",
    malformed_header: "Invalid NESL header format",
    flexible_label: true,
    end_apostrophe: true,
    lenient_close: true,
};

static ALL: [&Markers; 3] = [&SHAM, &NESL_UPPER, &NESL];

/// The spellings whose markers are recognised at all: every one (`None`) or only the one
/// forced. A forced dialect treats the other spellings' markers as ordinary lines, as each
/// reference does; a format of another front end recognises none.
pub(crate) fn spellings(only: Option<Format>) -> &'static [&'static Markers] {
    match only {
        None => &ALL,
        Some(Format::SHAM) => std::slice::from_ref(&ALL[0]),
        Some(Format::NESL_UPPER) => std::slice::from_ref(&ALL[1]),
        Some(Format::NESL) => std::slice::from_ref(&ALL[2]),
        Some(_) => &[],
    }
}

/// Matches the header grammar (§5) on the raw line and returns the id text.
pub(crate) fn match_header<'a>(m: &Markers, line: &'a str) -> Option<&'a str> {
    let rest = line.strip_prefix(m.header_prefix)?.strip_prefix("[@")?;
    let rest = if m.flexible_label {
        let label_len = rest
            .bytes()
            .take_while(|b| b.is_ascii_alphanumeric() || *b == b'-')
            .count();
        if label_len == 0 {
            return None;
        }
        rest[label_len..].strip_prefix(": ")?
    } else {
        rest.strip_prefix(LABEL)?.strip_prefix(": ")?
    };
    let id = rest.strip_suffix(']')?;
    (!id.is_empty() && !id.contains(']')).then_some(id)
}

/// Validates a block id (§5.1): 2–8 ASCII alphanumerics, length counted in UTF-16.
pub(crate) fn validate_block_id(id: &str) -> Result<(), &'static str> {
    let n = len16(id);
    if !(2..=8).contains(&n) {
        // The reference's message; ids of 2 to 8 characters are accepted despite its wording.
        return Err("Block ID must be exactly 3 characters");
    }
    if !id.bytes().all(|b| b.is_ascii_alphanumeric()) {
        return Err("Block ID must contain only alphanumeric characters");
    }
    Ok(())
}

fn is_end_id(s: &str) -> bool {
    (2..=8).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_alphanumeric())
}

/// Matches the end-marker grammar (§6) on the raw line and returns the id.
pub(crate) fn match_end<'a>(m: &Markers, line: &'a str) -> Option<&'a str> {
    let mut id = line.strip_prefix(m.end_prefix)?;
    if m.end_apostrophe {
        id = id.strip_suffix('\'').unwrap_or(id);
    }
    is_end_id(id).then_some(id)
}

/// Why an end-classified line inside a block is not that block's end marker, and where.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct MalformedEnd {
    /// Byte offset in the line of the offending text.
    pub pos: usize,
    /// UTF-16 length of the offending text (at least 1).
    pub len16: usize,
    pub message: String,
}

/// Diagnoses a line classified END (by the prefix of `found`) that does not match the end
/// grammar of the open block's spelling `block`. The reference drops such lines silently, so
/// a forgotten space or quote leaves the block open with no hint why.
pub(crate) fn diagnose_end(
    block: &Markers,
    found: &Markers,
    block_id: &str,
    line: &str,
) -> MalformedEnd {
    let expected = format!("{}{}", block.end_prefix, block_id);
    let build = |pos: usize, text: &str, what: &str| {
        MalformedEnd {
        pos,
        len16: len16(text).max(1),
        message: format!(
            "Malformed end marker in block '{block_id}': {what}; expected '{expected}' alone on its line"
        ),
    }
    };
    if starts_with_ws(line) {
        let indent = &line[..line.len() - trim_start(line).len()];
        return build(
            0,
            indent,
            "the end marker must start at the beginning of the line",
        );
    }
    // A line classified END with no indentation starts with the found prefix.
    let prefix_len = found.end_prefix.len();
    if !std::ptr::eq(block, found) {
        return build(
            0,
            &line[..prefix_len.min(line.len())],
            &format!(
                "'{}' ends a {} block, but this block was opened with a {} header",
                found.end_prefix, found.format.name, block.format.name
            ),
        );
    }
    let after = line.get(prefix_len..).unwrap_or("");
    let id_len = after
        .bytes()
        .take_while(|b| b.is_ascii_alphanumeric())
        .count();
    let id = &after[..id_len];
    let rest = &after[id_len..];
    if id.is_empty() {
        return if rest.is_empty() {
            build(0, line, "the block id is missing")
        } else {
            build(prefix_len, rest, "the block id is missing")
        };
    }
    if rest.is_empty() || starts_with_ws(rest) {
        if !(2..=8).contains(&id_len) {
            let what = format!("'{id}' is not a block id (2 to 8 letters or digits)");
            return build(prefix_len, id, &what);
        }
        let pos = prefix_len + id_len;
        let trailing = &line[pos..];
        if trim_end(trailing).is_empty() {
            return build(
                pos,
                trailing,
                "trailing whitespace (or a stray carriage return) after the end marker",
            );
        }
        let text_pos = pos + (trailing.len() - trim_start(trailing).len());
        return build(
            text_pos,
            &line[text_pos..],
            "unexpected text after the end marker",
        );
    }
    let pos = prefix_len + id_len;
    build(pos, &line[pos..], "unexpected text after the block id")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_grammar_per_spelling() {
        assert_eq!(
            match_header(&SHAM, "#!SHAM [@three-char-SHA-256: abc]"),
            Some("abc")
        );
        assert_eq!(
            match_header(&SHAM, "#!SHAM [@three-char-SHA-256:  abc]"),
            Some(" abc")
        );
        assert_eq!(match_header(&SHAM, "#!SHAM [@sha: abc]"), None);
        assert_eq!(
            match_header(&SHAM, "#!SHAM [@three-char-SHA-256: abc] "),
            None
        );
        assert_eq!(match_header(&SHAM, "#!SHAM [@three-char-SHA-256: ]"), None);
        assert_eq!(
            match_header(&NESL_UPPER, "#!NESL [@three-char-SHA-256: ab]"),
            Some("ab")
        );
        assert_eq!(match_header(&NESL, "#!nesl [@A-1: x y]"), Some("x y"));
        assert_eq!(match_header(&NESL, "#!nesl [@: abc]"), None);
        assert_eq!(match_header(&NESL, "#!nesl [@a_b: abc]"), None);
        assert_eq!(match_header(&NESL, "#!nesl [@x: abc]]"), None);
        assert_eq!(match_header(&NESL, "#!nesl [@x:abc]"), None);
    }

    #[test]
    fn block_id_validation_counts_utf16() {
        assert!(validate_block_id("ab").is_ok());
        assert!(validate_block_id("abcdefgh").is_ok());
        assert!(validate_block_id("a").is_err());
        assert!(validate_block_id("abcdefghi").is_err());
        assert_eq!(
            validate_block_id("😀"),
            Err("Block ID must contain only alphanumeric characters")
        );
        assert_eq!(
            validate_block_id("é"),
            Err("Block ID must be exactly 3 characters")
        );
    }

    #[test]
    fn end_grammar_apostrophe_only_in_nesl() {
        assert_eq!(match_end(&NESL, "#!end_abc'"), Some("abc"));
        assert_eq!(match_end(&NESL, "#!end_abc''"), None);
        assert_eq!(match_end(&SHAM, "#!END_SHAM_abc'"), None);
        assert_eq!(match_end(&SHAM, "#!END_SHAM_abcdefgh"), Some("abcdefgh"));
        assert_eq!(match_end(&SHAM, "#!END_SHAM_abcdefghi"), None);
        assert_eq!(match_end(&SHAM, "#!END_SHAM_abc\r"), None);
    }

    #[test]
    fn malformed_end_diagnosis_points_at_the_problem() {
        let d = diagnose_end(&SHAM, &SHAM, "abc", "  #!END_SHAM_abc");
        assert_eq!((d.pos, d.len16), (0, 2));
        assert!(d.message.contains("beginning of the line"), "{}", d.message);
        assert!(d.message.contains("expected '#!END_SHAM_abc'"));
        let d = diagnose_end(&SHAM, &SHAM, "abc", "#!END_SHAM_abc x");
        assert_eq!((d.pos, d.len16), (15, 1));
        let d = diagnose_end(&SHAM, &SHAM, "abc", "#!END_SHAM_abc \r");
        assert_eq!((d.pos, d.len16), (14, 2));
        assert!(d.message.contains("trailing whitespace"));
        let d = diagnose_end(&SHAM, &SHAM, "abc", "#!END_SHAM_abcdefghi");
        assert_eq!((d.pos, d.len16), (11, 9));
        let d = diagnose_end(&SHAM, &SHAM, "abc", "#!END_SHAM_abc'");
        assert_eq!((d.pos, d.len16), (14, 1));
        let d = diagnose_end(&SHAM, &NESL, "abc", "#!end_abc");
        assert_eq!((d.pos, d.len16), (0, 6));
        assert!(d.message.contains("SHAM header"), "{}", d.message);
        let d = diagnose_end(&NESL, &NESL, "abc", "#!end_'");
        assert_eq!((d.pos, d.len16), (6, 1));
        assert!(d.message.contains("block id is missing"), "{}", d.message);
    }
}
