//! History operations built on `repo` and `record`: undo/redo, squash, step-back/step-forward,
//! and the read-only views (status, log, show). The commands that change history act on the
//! current branch's first-parent history only, never rewrite published commits or cross
//! merges, and each records what it did (a ref under `refs/clada/`, `ORIG_HEAD`, a reflog
//! entry) so it can itself be undone.
//!
//! What they share lives in `common.rs`, beneath all of them (the error type, the refusal
//! checks of DESIGN §7.1, the current branch, `ORIG_HEAD`, operation refs, the phase timer);
//! `recorded.rs` says which commits git-clada made (by its records, never by trailers alone);
//! `log.rs` reads what the others record and `render.rs` prints every report; `repair.rs`
//! puts right a cache-tree an earlier version wrote wrong; `agent_undo.rs` takes back one agent
//! tool call still uncommitted (the checkpoints `agent/` records).

mod agent_undo;
pub mod blame;
mod common;
pub mod log;
pub mod provenance;
mod recorded;
pub mod render;
pub mod repair;
pub mod squash;
pub mod stack;
pub mod stats;
pub mod stats_page;
pub mod step;
mod step_undo;
pub mod undo;

pub use common::{now, HistoryError};
