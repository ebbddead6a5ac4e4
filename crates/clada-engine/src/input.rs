//! Reading a reply from a file or standard input; the size limit and the decoding (UTF-8 but
//! for a unified diff's hunk lines) are the reading crate's (`clada_read::input`).

use std::path::Path;

pub use clada_read::input::*;

/// Reads `path` (or standard input for `None` / `-`); `dialect` is what it will be parsed with
/// (where bytes that are not UTF-8 may stand depends on it: [`decode_reply`]).
pub fn read_reply(path: Option<&Path>, dialect: clada_read::Dialect) -> Result<Reply, InputError> {
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
    decode_reply(bytes, source, dialect)
}
