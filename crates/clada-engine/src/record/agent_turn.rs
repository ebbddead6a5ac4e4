//! The record of an agent's turn (`crate::agent`): who made it, its tool calls, and for every
//! path the agent changed, each call's before and after. It travels in the record of the AI
//! changes a turn hands to the apply transaction (`apply::put_pending`), and so in the record
//! of the commit that takes them: undo and redo read it to take the turn back, or put it
//! back, as one operation while keeping the user's own edits (`history::undo`); `show` lists
//! its calls; the turn commit's message is written from it (`message::turn`).

use serde::{Deserialize, Serialize};

use super::agent_state::Stored;
use clada_git::ObjectId;

/// One agent turn.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Turn {
    /// The agent as `git clada agent-hook` names it (`claude-code`, `cursor`, `gemini`,
    /// `codex`).
    pub agent: String,
    /// The agent's session (its conversation id).
    pub session: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The commit's subject made from the user's prompt (`agent.subject: prompt`, the user's
    /// own configuration); `None`: the subject names what changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subject: Option<String>,
    /// The turn's tool calls that changed something, in order.
    pub calls: Vec<Call>,
    /// Every path the agent changed, with each of its calls' change of it, in order.
    pub paths: Vec<TurnPath>,
}

/// One tool call of a turn.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Call {
    /// The tool (`Edit`, `Write`, `Bash`, `apply_patch`, …).
    pub tool: String,
    /// Its `tool_use_id`, when the agent sends one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    /// The paths it changed.
    pub paths: Vec<String>,
}

/// One path of a turn and the agent's changes of it, oldest first. Between two of them the
/// path may have changed by someone else's hand (the user's edit between two calls): what a
/// step's `before` holds beyond the previous step's `after`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TurnPath {
    pub path: String,
    pub steps: Vec<Step>,
}

/// One call's change of a path: what it held before and after (`None`: no file).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Step {
    pub before: Option<Stored>,
    pub after: Option<Stored>,
}

impl Turn {
    /// Every blob the record names, each once: the record's tree keeps them reachable.
    pub fn blobs(&self) -> Vec<ObjectId> {
        let mut out: Vec<ObjectId> = self
            .paths
            .iter()
            .flat_map(|p| p.steps.iter())
            .flat_map(|s| [s.before, s.after])
            .flatten()
            .map(|s| s.id)
            .collect();
        out.sort();
        out.dedup();
        out
    }

    /// The number of tool calls, as the `Clada-Tool-Calls` trailer counts them.
    pub fn call_count(&self) -> usize {
        self.calls.len()
    }
}
