//! git-clada: apply LLM action blocks (SHAM/NESL) to a git repository as exact, reviewable,
//! reversible commits.
//!
//! Data flows one way (DESIGN §10):
//!
//! ```text
//! input text ─▶ block (parse) ─▶ action (plan: schema check, typed actions, sandboxed paths)
//!            ─▶ action (execute: worktree I/O, exec) ─▶ repo (git: snapshot, tree, commit, notes)
//!            ─▶ report (human / llm / json)
//! ```
//!
//! Rules of the house: `action` never touches git; `repo` is the only module that imports gix;
//! `cli` holds no logic beyond argument handling.

pub mod action;
pub mod apply_hooks;
pub mod block;
pub mod cli;
pub mod clipboard;
pub mod clock;
pub mod config;
pub mod demo;
pub mod editorconfig;
pub mod error;
pub mod exec_policy;
pub mod failpoint;
pub mod format;
pub mod fsutil;
pub mod history;
pub mod input;
pub mod leftover;
pub mod prompt;
pub mod record;
pub mod repo;
pub mod report;
pub mod sandbox;
pub mod trace;
pub mod watch;

/// The version recorded in `Clada-Version` trailers and printed by `--version`.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
