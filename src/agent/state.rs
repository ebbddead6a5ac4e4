//! The checkpoint state as the hooks write it: kept in `record::agent_state` (below
//! `history`, whose `undo` of one agent tool call reads it), re-exported here for the
//! writers of this layer.

pub use clada_engine::record::agent_state::*;
