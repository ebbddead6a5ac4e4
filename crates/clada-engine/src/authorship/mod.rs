//! Line-level AI attribution in the open Git AI Standard v3.0.0 (`authorship/3.0.0`, stored
//! by `record::provenance` as notes under `refs/notes/ai`): the log format (`log.rs`: a strict
//! parser and the writer), its line ranges (`ranges.rs`), the standard's ids and agent names
//! (`ids.rs`), and the line arithmetic that turns a change into attested lines and carries
//! them through later versions (`carry.rs`, `squash.rs`). No git here: callers hand in file
//! contents.

pub mod carry;
pub mod ids;
pub mod log;
pub mod ranges;
pub mod squash;

pub use log::{AgentId, Attestation, FileLog, Log, LogError, Metadata, Session};
pub use ranges::LineSet;
