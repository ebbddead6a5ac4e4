//! The reading layer as the engine sees it: the `clada-read` crate (every front end, the
//! neutral `Block`, the scanner; no git, no file system) and the two pieces of it that are the
//! engine's own: reading a reply from a file or standard input (`input`) and the human summary
//! of `git clada parse` (`summary`), which prints through `base::term`.

pub use clada_read::*;

pub mod input;
mod summary;

pub use summary::summary;
