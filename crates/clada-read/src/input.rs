//! A reply in memory, with the size limit of DESIGN §6.1 and its decoding: UTF-8, but for the
//! lines of a unified diff's hunks, whose other bytes are carried as escaped bytes
//! ([`crate::raw`]) and written as they are.

use std::borrow::Cow;
use std::io::Read;
use std::path::PathBuf;

use super::Dialect;

/// Replies larger than this are refused (DESIGN §6.1).
pub const MAX_REPLY_BYTES: u64 = 50 * 1024 * 1024;

/// A reply read into memory.
#[derive(Debug, Clone)]
pub struct Reply {
    /// The text, with the bytes that are not UTF-8 escaped ([`crate::raw`]).
    pub text: String,
    /// Where it came from: the file name as given, or `stdin`.
    pub source: String,
}

impl Reply {
    /// The reply's bytes as they were read (escaped bytes turned back): what is stored.
    pub fn bytes(&self) -> Cow<'_, [u8]> {
        super::raw::encode(&self.text)
    }
}

#[derive(Debug, thiserror::Error)]
pub enum InputError {
    #[error("cannot read '{path}': {source}")]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot read standard input: {0}")]
    Stdin(#[source] std::io::Error),
    #[error(
        "{source_name} is larger than the 50 MiB limit for a reply; split it into several replies"
    )]
    TooLarge { source_name: String },
    #[error("{source_name}: {err}")]
    Utf8 {
        source_name: String,
        err: super::block::InvalidUtf8,
    },
    #[error(
        "{source_name}: U+{:X} at byte offset {offset} (line {line}) is one of the code points \
         U+10FF80–U+10FFFF (private use) that git-clada keeps for bytes that are not UTF-8; a \
         reply may not hold them: remove it",
        u32::from(*ch)
    )]
    Reserved {
        source_name: String,
        offset: usize,
        line: usize,
        ch: char,
    },
}

/// A reply from bytes already read: the size limit, then UTF-8. Bytes that are not UTF-8 are
/// accepted only where a parse with `dialect` reads them as a unified diff's hunk lines
/// ([`crate::parse`]); anywhere else the error names the first one's offset and line. A reply
/// holding the code points escaped bytes are written as is refused.
pub fn decode_reply(bytes: Vec<u8>, source: String, dialect: Dialect) -> Result<Reply, InputError> {
    if bytes.len() as u64 > MAX_REPLY_BYTES {
        return Err(InputError::TooLarge {
            source_name: source,
        });
    }
    let source = no_reserved(&bytes, source)?;
    let text = match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => {
            let text = super::raw::decode(e.as_bytes()).into_owned();
            if let Some(err) = super::stray_byte(&text, dialect) {
                return Err(InputError::Utf8 {
                    source_name: source,
                    err,
                });
            }
            text
        }
    };
    Ok(Reply { text, source })
}

/// A reply from text already decoded (the clipboard, an MCP call): refused when it holds the
/// code points escaped bytes are written as, which would otherwise be taken for bytes.
pub fn text_reply(text: String, source: String) -> Result<Reply, InputError> {
    let source = no_reserved(text.as_bytes(), source)?;
    Ok(Reply { text, source })
}

/// Refuses `bytes` when they hold a code point escaped bytes are written as.
fn no_reserved(bytes: &[u8], source: String) -> Result<String, InputError> {
    match super::raw::reserved_at(bytes) {
        None => Ok(source),
        Some((offset, ch)) => Err(InputError::Reserved {
            source_name: source,
            offset,
            line: 1 + memchr::memchr_iter(b'\n', &bytes[..offset]).count(),
            ch,
        }),
    }
}

/// Reads at most one byte more than the limit, so an oversized input is detected without
/// reading all of it.
pub fn read_limited(reader: impl Read) -> std::io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    reader.take(MAX_REPLY_BYTES + 1).read_to_end(&mut bytes)?;
    Ok(bytes)
}
