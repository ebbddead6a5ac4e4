//! Reading a reply from a file or standard input, with the size limit of DESIGN §6.1 and
//! strict UTF-8 decoding.

use std::io::Read;
use std::path::{Path, PathBuf};

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

/// Reads `path` (or standard input for `None` / `-`).
pub fn read_reply(path: Option<&Path>) -> Result<Reply, InputError> {
    let (bytes, source) = match path {
        Some(p) if p != Path::new("-") => {
            let file = std::fs::File::open(p).map_err(|source| InputError::Read {
                path: p.to_path_buf(),
                source,
            })?;
            let bytes = read_limited(file).map_err(|source| InputError::Read {
                path: p.to_path_buf(),
                source,
            })?;
            (bytes, p.display().to_string())
        }
        _ => (
            read_limited(std::io::stdin().lock()).map_err(InputError::Stdin)?,
            "stdin".to_string(),
        ),
    };
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
fn read_limited(reader: impl Read) -> std::io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    reader.take(MAX_REPLY_BYTES + 1).read_to_end(&mut bytes)?;
    Ok(bytes)
}
