//! git-clada: apply LLM replies (SHAM/NESL and the other action-block formats) to a git
//! repository as exact, reviewable, reversible commits.
//!
//! Data flows one way (DESIGN §10; `docs/architecture.md` is the map):
//!
//! ```text
//! reply text ─▶ read (one scanner, a front end per format) ─▶ blocks
//!            ─▶ action (plan: schema check, typed actions, sandboxed paths)
//!            ─▶ action (execute: worktree I/O; exec through `exec`'s policy)
//!            ─▶ record (git via repo: snapshot, tree, AI commit, notes, journal)
//!            ─▶ report (human / llm / json)
//! around it: history (undo/redo/squash/step/log), loops (prompt, watch, clipboard, demo),
//! config, and cli (argument handling only).
//! ```
//!
//! The layers, lowest first — a module may import only from layers below it (a test reads the
//! `use crate::…` lines and checks them against the order in `docs/architecture.md`):
//! `base`, `read`, `sandbox`, `repo`, `config`, `exec`, `action`, `report`, `record`,
//! `history`, `loops`, `cli`.
//!
//! Rules of the house: `action` and `exec` never touch git; `repo` is the only module that
//! imports gix; front ends (`read`) never see the repository or the actions; `cli` holds no
//! logic beyond argument handling.

pub mod action;
pub mod agent;
pub mod authorship;
pub mod base;
pub mod cli;
pub mod config;
pub mod exec;
pub mod history;
pub mod loops;
pub mod read;
pub mod record;
/// The git layer is the `clada-git` crate, the only one that depends on gix.
pub use clada_git as repo;
pub mod report;
pub mod sandbox;

/// The version recorded in `Clada-Version` trailers and printed by `--version`.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
