//! The foundation every layer of git-clada may use and which uses nothing of it: the process
//! outcome and exit codes (`error`), the clock, the worktree as directory handles (`beneath`),
//! lexical path arithmetic (`path`), file writes that are atomic and durable (`fsutil`),
//! replaced and removed files freed off the caller's path (`reaper`), the process's own standard
//! output and its quiet end when the reader is gone (`stdout`), fail
//! points for the crash tests (`failpoint`), the `GIT_CLADA_TRACE` phase timer (`trace`), and
//! how text from outside is shown on a terminal without the terminal obeying it (`term`),
//! and the platform seam: what differs between Linux and other systems (`platform`).
//! The edit distance behind every "did you mean" is the reading crate's (`clada_read::text`).

pub mod beneath;
pub mod clock;
pub mod error;
pub mod failpoint;
pub mod fsutil;
pub mod path;
pub mod platform;
pub mod reaper;
pub mod stdout;
pub mod term;
pub mod trace;
