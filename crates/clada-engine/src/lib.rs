//! git-clada's engine: everything between a reply's blocks and the AI commit, with no front
//! end in it (no argument parsing, async runtime, MCP, clipboard or terminal signals: those are
//! the `git-clada` package's `cli`, `loops`, `mcp` and `agent`).
//!
//! ```text
//! blocks (clada-read) ─▶ action   plan: schema check, typed actions, sandboxed paths
//!                     ─▶ action   execute: worktree I/O; exec through `exec`'s policy
//!                     ─▶ record   the transaction: snapshot, journal, tree, hooks, AI commit,
//!                                 notes (git through clada-git)
//!                     ─▶ report   human / llm / json
//! around it: history (undo, redo, squash, step, log), config, authorship (who wrote which
//! lines), input (a reply read from a file or standard input), summary (a parse, for people).
//! ```
//!
//! Rules of the house (`docs/architecture.md`, checked by `tests/cli/layers.rs`): a module
//! imports only from layers below it; `action` and `exec` never touch git; only `clada-git`
//! imports gix; nothing here imports a front end.

pub mod action;
pub mod authorship;
pub mod config;
pub mod exec;
pub mod history;
pub mod input;
pub mod record;
pub mod report;
pub mod sandbox;
pub mod summary;

/// The version recorded in `Clada-Version` trailers and printed by `--version`.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
