//! Bytes that are not UTF-8, carried through text: what `git diff` prints for a Latin-1 file
//! (without `--binary`) holds them in its hunks' lines, and `git apply` applies those bytes.
//!
//! Reading keeps `String`s: each byte of a reply that is not part of valid UTF-8 (always
//! 0x80–0xFF) becomes one of the last 128 code points of Plane 16's private use area,
//! U+10FF80 + (byte − 0x80) — an *escaped byte* — and [`encode`] turns them back into the
//! bytes. The mapping is exact both ways as long as the text holds none of those code points
//! of its own: a reply that does is refused ([`reserved_at`]), and so is a file that does when
//! it is patched with escaped bytes (its text would be ambiguous). Decoding per line and
//! decoding the whole text give the same result (LF is ASCII and never part of a multi-byte
//! sequence), so a file's lines decoded here match a hunk's lines decoded with the reply.
//!
//! Where escaped bytes may stand is the parse's business ([`crate::parse`]): only in the lines
//! of a unified diff's hunks (and the ignored section heading after a hunk header's `@@`);
//! anywhere else the reply is refused as not UTF-8, as every other format reads UTF-8 only.

use std::borrow::Cow;
use std::ops::Range;

/// The code point of the escaped byte 0x80.
const FIRST: u32 = 0x10_FF80;

/// The escaped form of `byte` (0x80–0xFF).
pub fn escape(byte: u8) -> char {
    char::from_u32(FIRST + u32::from(byte.wrapping_sub(0x80) & 0x7F)).unwrap_or('\u{FFFD}')
}

/// The byte `c` stands for, when it is an escaped byte.
pub fn byte_of(c: char) -> Option<u8> {
    let v = u32::from(c);
    (v >= FIRST).then(|| 0x80 + (v - FIRST) as u8)
}

/// Whether the UTF-8 bytes at `i` of `b` are an escaped byte (`F4 8F BE|BF xx`).
fn escaped_at(b: &[u8], i: usize) -> bool {
    b.get(i) == Some(&0xF4)
        && b.get(i + 1) == Some(&0x8F)
        && matches!(b.get(i + 2), Some(0xBE | 0xBF))
}

/// Byte offsets of the escaped bytes in `text`, in order.
pub fn positions(text: &str) -> impl Iterator<Item = usize> + '_ {
    let b = text.as_bytes();
    memchr::memchr_iter(0xF4, b).filter(move |&i| escaped_at(b, i))
}

/// Whether `text` holds an escaped byte.
pub fn has_escapes(text: &str) -> bool {
    positions(text).next().is_some()
}

/// The first reserved code point (U+10FF80–U+10FFFF) in the valid UTF-8 parts of `bytes`: its
/// offset and the character. Such a text cannot be escaped without ambiguity.
pub fn reserved_at(bytes: &[u8]) -> Option<(usize, char)> {
    let char_at = |i: usize| {
        let four = bytes.get(i..i + 4)?;
        std::str::from_utf8(four).ok()?.chars().next()
    };
    memchr::memchr_iter(0xF4, bytes)
        .filter(|&i| escaped_at(bytes, i))
        .find_map(|i| Some((i, char_at(i)?)))
}

/// `bytes` as text, every byte that is not part of valid UTF-8 escaped. Borrowed when the
/// bytes are UTF-8.
pub fn decode(bytes: &[u8]) -> Cow<'_, str> {
    let mut rest = bytes;
    let mut out = String::new();
    loop {
        match std::str::from_utf8(rest) {
            Ok(s) if out.is_empty() && rest.len() == bytes.len() => return Cow::Borrowed(s),
            Ok(s) => {
                out.push_str(s);
                return Cow::Owned(out);
            }
            Err(e) => {
                let (good, bad) = rest.split_at(e.valid_up_to());
                out.push_str(std::str::from_utf8(good).unwrap_or_default());
                let n = e.error_len().unwrap_or(bad.len());
                for &b in &bad[..n] {
                    out.push(escape(b));
                }
                rest = &bad[n..];
            }
        }
    }
}

/// The bytes of `text`, escaped bytes turned back into themselves. Borrowed when there are
/// none.
pub fn encode(text: &str) -> Cow<'_, [u8]> {
    if !has_escapes(text) {
        return Cow::Borrowed(text.as_bytes());
    }
    let mut out = Vec::with_capacity(text.len());
    let mut buf = [0u8; 4];
    for c in text.chars() {
        match byte_of(c) {
            Some(b) => out.push(b),
            None => out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes()),
        }
    }
    Cow::Owned(out)
}

/// `text` with each escaped byte shown as `\xNN`, for messages.
pub fn shown(text: &str) -> Cow<'_, str> {
    if !has_escapes(text) {
        return Cow::Borrowed(text);
    }
    Cow::Owned(
        text.chars()
            .map(|c| match byte_of(c) {
                Some(b) => format!("\\x{b:02X}"),
                None => c.to_string(),
            })
            .collect(),
    )
}

/// The first escaped byte of `text` that lies in none of `allowed` (sorted, disjoint byte
/// ranges): its offset in `text`.
pub fn outside(text: &str, allowed: &[Range<usize>]) -> Option<usize> {
    positions(text).find(|&i| {
        let k = allowed.partition_point(|r| r.end <= i);
        allowed.get(k).is_none_or(|r| r.start > i)
    })
}

/// Where the escaped byte at `at` of `text` was in the bytes read: its offset there, the byte
/// and its 1-based line.
pub fn origin(text: &str, at: usize) -> (usize, u8, usize) {
    let before = positions(text).take_while(|&i| i < at).count();
    let byte = text
        .get(at..)
        .and_then(|t| t.chars().next())
        .and_then(byte_of)
        .unwrap_or(0);
    let line = 1 + memchr::memchr_iter(b'\n', &text.as_bytes()[..at]).count();
    (at - 3 * before, byte, line)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_byte_that_is_not_utf8_round_trips() {
        let mut bytes: Vec<u8> =
            b"caf\xe9 na\xefve \xff\xfe ok \xe2\x82 \xc3\xa9 \xf0\x9f\x98\x80\n".to_vec();
        bytes.extend(0x80..=0xFFu8);
        let text = decode(&bytes);
        assert!(matches!(text, Cow::Owned(_)));
        assert!(
            text.contains("é") && text.contains('😀'),
            "valid UTF-8 stays"
        );
        assert_eq!(encode(&text), bytes);
        assert_eq!(byte_of(escape(0xE9)), Some(0xE9));
        assert_eq!(escape(0x80), '\u{10FF80}');
        assert_eq!(escape(0xFF), '\u{10FFFF}');
        assert!(matches!(decode(b"plain"), Cow::Borrowed("plain")));
        assert!(matches!(encode("plain"), Cow::Borrowed(b"plain")));
    }

    #[test]
    fn decoding_line_by_line_is_decoding_the_whole() {
        let bytes = b"a\xe2\x82\nb\xe9\r\n\xc3\n\xa9x\n";
        let whole = decode(bytes);
        let lines: String = bytes
            .split_inclusive(|&b| b == b'\n')
            .map(|l| decode(l).into_owned())
            .collect();
        assert_eq!(whole, lines);
    }

    #[test]
    fn reserved_code_points_and_positions_are_found() {
        let text = "ok\n\u{10FF80}x";
        assert_eq!(reserved_at(text.as_bytes()), Some((3, '\u{10FF80}')));
        assert_eq!(reserved_at("\u{10FF7F} \u{10000}".as_bytes()), None);
        // An escaped byte in decoded text is found; raw bytes F4 8F BE alone are not valid.
        assert_eq!(reserved_at(b"\xf4\x8f\xbe"), None);
        let t = decode(b"a\xe9\nb\xff");
        assert_eq!(positions(&t).collect::<Vec<_>>(), [1, 7]);
        assert_eq!(origin(&t, 7), (4, 0xFF, 2));
        assert_eq!(outside(&t, &[0..6, 12..13]), Some(7));
        assert_eq!(outside(&t, &[0..6, 7..11]), None);
        assert_eq!(shown(&t), "a\\xE9\nb\\xFF");
    }
}
