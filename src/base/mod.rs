//! The foundation as the engine sees it: the `clada-base` crate (exit codes, clock, directory
//! handles, lexical paths, atomic writes, fail points, trace, terminal escaping, stdout), under its
//! layer's name so every layer imports `crate::base::…`. The edit distance is the reading
//! crate's (`crate::read::text`).

pub use clada_base::*;
