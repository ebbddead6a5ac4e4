//! The foundation every layer may use and which uses nothing of the crate: the process outcome
//! and exit codes (`error`), the clock, the worktree as directory handles (`beneath`), file
//! writes that are atomic and durable (`fsutil`),
//! fail points for the crash tests (`failpoint`), the edit distance behind every "did you
//! mean" (`text`), the `GIT_CLADA_TRACE` phase timer (`trace`), and how text from outside is
//! shown on a terminal without the terminal obeying it (`term`).

pub mod beneath;
pub mod clock;
pub mod error;
pub mod failpoint;
pub mod fsutil;
pub mod term;
pub mod text;
pub mod trace;
