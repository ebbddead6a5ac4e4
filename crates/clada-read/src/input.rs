//! A reply in memory, with the size limit of DESIGN §6.1 and
//! strict UTF-8 decoding.

use std::io::Read;
use std::path::PathBuf;

/// Replies larger than this are refused (DESIGN §6.1).
pub const MAX_REPLY_BYTES: u64 = 50 * 1024 * 1024;

/// A reply read into memory.
#[derive(Debug, Clone)]
pub struct Reply {
    pub text: String,
    /// Where it came from: the file name as given, or `stdin`.
    pub source: String,
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
}

/// A reply from bytes already read: the size limit, then strict UTF-8 (the error names the
/// first invalid byte's offset and line).
pub fn decode_reply(bytes: Vec<u8>, source: String) -> Result<Reply, InputError> {
    if bytes.len() as u64 > MAX_REPLY_BYTES {
        return Err(InputError::TooLarge {
            source_name: source,
        });
    }
    let text = match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => {
            let err =
                super::block::decode(e.as_bytes())
                    .err()
                    .unwrap_or(super::block::InvalidUtf8 {
                        offset: 0,
                        byte: 0,
                        line: 1,
                    });
            return Err(InputError::Utf8 {
                source_name: source,
                err,
            });
        }
    };
    Ok(Reply { text, source })
}

/// Reads at most one byte more than the limit, so an oversized input is detected without
/// reading all of it.
pub fn read_limited(reader: impl Read) -> std::io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    reader.take(MAX_REPLY_BYTES + 1).read_to_end(&mut bytes)?;
    Ok(bytes)
}
