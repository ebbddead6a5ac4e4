//! git's binary patches (`git diff --binary`), decoded as `git apply` decodes them:
//!
//! ```text
//! GIT binary patch
//! literal 6148
//! zcmeHKJx{|h5S?w3RxH8pNvQ…
//! (more lines)
//!
//! literal 0
//! HcmV?d00001
//!
//! ```
//!
//! After `GIT binary patch` come a forward hunk (from the old file to the new one) and, when the
//! patch is reversible, a reverse hunk; each is `literal N` (the new content) or `delta N` (git's
//! copy/insert delta against the old content), N the size once inflated, then lines of base85
//! data each led by a character giving its byte count (`A`–`Z` 1–26, `a`–`z` 27–52), ended by
//! an empty line. The bytes are zlib data that inflates to exactly N bytes.
//!
//! Pure functions over text and bytes: the reading layer checks that a patch decodes (a corrupt
//! one is refused with the rest of its diff, as with `git apply`), and the engine decodes the
//! forward hunk again to apply it to the file it has read ([`apply_delta`]), after checking the
//! file against the diff's `index` line.

/// Binary hunks larger than this once inflated (or delta results larger than this) are refused:
/// a reply is at most 50 MiB, and zlib can make a small text claim a huge size.
pub const MAX_BINARY_BYTES: usize = 256 * 1024 * 1024;

/// How a binary hunk gives the new content.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// The whole new content.
    Literal,
    /// git's delta against the old content.
    Delta,
}

/// One decoded hunk: its method and its inflated bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BinaryHunk {
    pub method: Method,
    pub data: Vec<u8>,
}

/// git's base85 alphabet (`base85.c`).
const ALPHABET: &[u8; 85] =
    b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~";

const fn decode_table() -> [u8; 256] {
    let mut t = [0xFFu8; 256];
    let mut i = 0;
    while i < 85 {
        t[ALPHABET[i] as usize] = i as u8;
        i += 1;
    }
    t
}

const DE85: [u8; 256] = decode_table();

/// `decode_85`: `len` bytes from the base85 text `s` (5 characters per 4 bytes).
fn decode_85(s: &[u8], len: usize, out: &mut Vec<u8>) -> Result<(), String> {
    let mut left = len;
    for group in s.chunks(5) {
        if left == 0 {
            break;
        }
        let mut acc: u64 = 0;
        for &c in group {
            let d = DE85[c as usize];
            if d == 0xFF {
                return Err(format!("invalid base85 character `{}`", c as char));
            }
            acc = acc * 85 + u64::from(d);
        }
        if group.len() != 5 || acc > u64::from(u32::MAX) {
            return Err(format!(
                "invalid base85 sequence `{}`",
                String::from_utf8_lossy(group)
            ));
        }
        let bytes = (acc as u32).to_be_bytes();
        let n = left.min(4);
        out.extend_from_slice(&bytes[..n]);
        left -= n;
    }
    Ok(())
}

/// The byte count a data line's first character gives.
fn line_length(c: u8) -> Option<usize> {
    match c {
        b'A'..=b'Z' => Some(usize::from(c - b'A') + 1),
        b'a'..=b'z' => Some(usize::from(c - b'a') + 27),
        _ => None,
    }
}

/// The bytes of a hunk's data lines (before inflating), as `git apply` checks them: each line
/// is its length character and a multiple of 5 base85 characters holding that many bytes.
/// `Err` holds the index of the bad line.
pub fn decode_lines<'l>(
    lines: impl IntoIterator<Item = &'l str>,
) -> Result<Vec<u8>, (usize, String)> {
    let mut out = Vec::new();
    for (k, line) in lines.into_iter().enumerate() {
        let line = line.strip_suffix('\r').unwrap_or(line).as_bytes();
        let corrupt = |why: &str| (k, format!("corrupt binary patch: {why}"));
        if line.len() < 6 || (line.len() - 1) % 5 != 0 {
            return Err(corrupt(
                "a data line is a length character and groups of 5 base85 characters",
            ));
        }
        let len =
            line_length(line[0]).ok_or_else(|| corrupt("a data line starts with A-Z or a-z"))?;
        let max = (line.len() - 1) / 5 * 4;
        // Filler at the end of a line never exceeds 3 bytes.
        if max < len || len + 4 <= max {
            return Err(corrupt(
                "the length character does not match the data on the line",
            ));
        }
        decode_85(&line[1..], len, &mut out).map_err(|e| corrupt(&e))?;
    }
    Ok(out)
}

/// zlib data that must inflate to exactly `size` bytes.
pub fn inflate(data: &[u8], size: usize) -> Result<Vec<u8>, String> {
    if size > MAX_BINARY_BYTES {
        return Err(format!(
            "the binary hunk claims {size} bytes, over the {} MiB limit",
            MAX_BINARY_BYTES / (1024 * 1024)
        ));
    }
    // One byte of room more than promised, so that more data than promised shows.
    let mut out = vec![0u8; size + 1];
    let mut z = zlib_rs::Inflate::new(true, 15);
    let status = z.decompress(data, &mut out, zlib_rs::InflateFlush::Finish);
    let got = usize::try_from(z.total_out()).unwrap_or(usize::MAX);
    match status {
        Ok(zlib_rs::Status::StreamEnd) if got == size => {
            out.truncate(size);
            Ok(out)
        }
        Ok(zlib_rs::Status::StreamEnd) => Err(format!(
            "the binary hunk inflates to {got} bytes, not the {size} its header says"
        )),
        Ok(_) => Err(format!(
            "the binary hunk's zlib data is cut short or larger than the {size} bytes its header \
             says"
        )),
        Err(e) => Err(format!("the binary hunk's zlib data is corrupt ({e:?})")),
    }
}

/// The header of a hunk (`literal N` / `delta N`), or `None` when the line is not one.
pub fn hunk_header(line: &str) -> Option<(Method, usize)> {
    let line = line.strip_suffix('\r').unwrap_or(line);
    let (method, n) = if let Some(n) = line.strip_prefix("literal ") {
        (Method::Literal, n)
    } else {
        (Method::Delta, line.strip_prefix("delta ")?)
    };
    Some((method, n.parse().ok()?))
}

/// One hunk: its header line and data lines (without the empty line that ends it). `Err`
/// holds the index of the line at fault: 0 for the header, `k + 1` for data line `k`.
pub fn decode_hunk(header: &str, data: &[&str]) -> Result<BinaryHunk, (usize, String)> {
    let (method, size) = hunk_header(header).ok_or_else(|| {
        (
            0,
            format!("unrecognized binary patch: `{header}` is not `literal N` or `delta N`"),
        )
    })?;
    let raw = decode_lines(data.iter().copied()).map_err(|(k, e)| (k + 1, e))?;
    let data = inflate(&raw, size).map_err(|e| (0, e))?;
    Ok(BinaryHunk { method, data })
}

/// The forward hunk of a `binary` parameter: `literal N` or `delta N` and its data lines.
pub fn decode_parameter(text: &str) -> Result<BinaryHunk, String> {
    let mut lines = text.lines().filter(|l| !l.trim().is_empty());
    let header = lines.next().unwrap_or("");
    let data: Vec<&str> = lines.collect();
    decode_hunk(header, &data).map_err(|(k, e)| format!("line {}: {e}", k + 1))
}

/// A size in a delta's header (7 bits a byte, low first).
fn delta_size(delta: &[u8], at: &mut usize) -> Option<usize> {
    let mut size = 0usize;
    let mut shift = 0u32;
    loop {
        let b = *delta.get(*at)?;
        *at += 1;
        size |= usize::from(b & 0x7F).checked_shl(shift)?;
        shift += 7;
        if b & 0x80 == 0 || shift > 63 {
            return Some(size);
        }
    }
}

/// git's `patch_delta`: `base` rebuilt by the copy and insert instructions of `delta`.
pub fn apply_delta(base: &[u8], delta: &[u8]) -> Result<Vec<u8>, String> {
    let wild =
        || "the binary delta does not fit the file (git: delta replay has gone wild)".to_string();
    let mut at = 0;
    let src = delta_size(delta, &mut at).ok_or_else(wild)?;
    if src != base.len() {
        return Err(format!(
            "the binary delta was made for a file of {src} bytes; this one has {}",
            base.len()
        ));
    }
    let size = delta_size(delta, &mut at).ok_or_else(wild)?;
    if size > MAX_BINARY_BYTES {
        return Err(format!(
            "the binary delta makes {size} bytes, over the limit"
        ));
    }
    let mut out = Vec::with_capacity(size);
    while at < delta.len() {
        let cmd = delta[at];
        at += 1;
        if cmd & 0x80 != 0 {
            let mut param = |bit: u8, shift: u32| -> Result<usize, String> {
                if cmd & bit == 0 {
                    return Ok(0);
                }
                let b = *delta.get(at).ok_or_else(wild)?;
                at += 1;
                Ok(usize::from(b) << shift)
            };
            let off = param(0x01, 0)? | param(0x02, 8)? | param(0x04, 16)? | param(0x08, 24)?;
            let mut len = param(0x10, 0)? | param(0x20, 8)? | param(0x40, 16)?;
            if len == 0 {
                len = 0x10000;
            }
            let piece = off
                .checked_add(len)
                .and_then(|end| base.get(off..end))
                .filter(|_| out.len() + len <= size)
                .ok_or_else(wild)?;
            out.extend_from_slice(piece);
        } else if cmd != 0 {
            let len = usize::from(cmd);
            let piece = delta
                .get(at..at + len)
                .filter(|_| out.len() + len <= size)
                .ok_or_else(wild)?;
            out.extend_from_slice(piece);
            at += len;
        } else {
            return Err("the binary delta has the opcode 0, which git never writes".to_string());
        }
    }
    if out.len() != size {
        return Err(wild());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// git's `encode_85`, for the tests.
    fn encode_85(data: &[u8]) -> String {
        let mut out = String::new();
        for chunk in data.chunks(4) {
            let mut b = [0u8; 4];
            b[..chunk.len()].copy_from_slice(chunk);
            let mut acc = u32::from_be_bytes(b);
            let mut five = [0u8; 5];
            for c in five.iter_mut().rev() {
                *c = ALPHABET[(acc % 85) as usize];
                acc /= 85;
            }
            out.push_str(std::str::from_utf8(&five).unwrap());
        }
        out
    }

    #[test]
    fn base85_round_trips_with_partial_groups() {
        let data = b"hello, binary world!\x00\x01\xff";
        let line = format!(
            "{}{}",
            (b'A' + data.len() as u8 - 1) as char,
            encode_85(data)
        );
        assert_eq!(decode_lines([line.as_str()]).unwrap(), data);
        // A length character that promises more than the line holds.
        let bad = format!("z{}", encode_85(data));
        assert_eq!(
            decode_lines([line.as_str(), bad.as_str()]).unwrap_err().0,
            1
        );
    }

    #[test]
    fn git_literal_zero_is_empty() {
        // What `git diff --binary` writes for an empty side.
        assert_eq!(
            decode_hunk("literal 0", &["HcmV?d00001"]).unwrap(),
            BinaryHunk {
                method: Method::Literal,
                data: Vec::new()
            }
        );
        assert!(decode_hunk("literal 1", &["HcmV?d00001"]).is_err());
    }

    #[test]
    fn deltas_copy_and_insert() {
        let base = b"0123456789";
        // src 10, dst 7: copy 4 bytes from offset 2, insert "xyz".
        let delta = [10, 7, 0x80 | 0x01 | 0x10, 2, 4, 3, b'x', b'y', b'z'];
        assert_eq!(apply_delta(base, &delta).unwrap(), b"2345xyz");
        assert!(apply_delta(b"short", &delta).is_err());
        // Copy past the end of the base.
        assert!(apply_delta(base, &[10, 4, 0x80 | 0x01 | 0x10, 8, 4]).is_err());
        assert!(apply_delta(base, &[10, 1, 0]).is_err());
    }
}
