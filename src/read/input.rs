//! Reading a reply from a file or standard input; the size limit and the strict decoding are
//! the reading crate's (`clada_read::input`).

use std::path::Path;

pub use clada_read::input::*;

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
    decode_reply(bytes, source)
}
