//! The hook payloads of the four agents, read with serde (unknown fields ignored: every agent
//! adds fields between versions) and reduced to one [`Call`]: the phase of the tool call, the
//! key that pairs its before and after, and what the tool may touch. The field names follow
//! `../shared/reference/agent-hooks.md` (§1 Claude Code, §2 Cursor, §3.1 Gemini CLI, §3.2
//! Codex); the fixtures in `tests/fixtures/agent-hooks/` cite the documentation they copy.
//!
//! This file holds what every agent shares (the fields read, the `Call` they become); each
//! agent's own shape — which of its event names is which phase, what each of its tools may
//! touch — is a file of its own (`claude_code.rs`, `cursor.rs`, `gemini.rs`, `codex.rs`), so a
//! new agent is a new file and a variant of `AgentKind`.

use std::path::PathBuf;

use serde::Deserialize;

mod claude_code;
mod codex;
mod cursor;
mod gemini;

pub use codex::patch_paths;

/// The agents whose hooks `git clada agent-hook` reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AgentKind {
    ClaudeCode,
    Cursor,
    Gemini,
    Codex,
}

impl AgentKind {
    /// The agent's name in the Git AI Standard's `agent_id.tool`.
    pub fn tool(self) -> &'static str {
        match self {
            AgentKind::ClaudeCode => "claude",
            AgentKind::Cursor => "cursor",
            AgentKind::Gemini => "gemini",
            AgentKind::Codex => "codex",
        }
    }
}

/// Where a hook call stands in the agent's work.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Before a tool call: record the state of what it may touch.
    Before,
    /// After a tool call (succeeded or failed): record what it changed.
    After,
    /// The agent's turn ended: commit the turn's changes.
    Stop,
    /// A session started (Claude Code's `SessionStart`): remember the model it names.
    Session,
    /// A tool call ended without running (Claude Code's `PermissionDenied`): its
    /// before-state is dropped, there is nothing to record.
    Dropped,
    /// An event git-clada has nothing to do for.
    Ignored,
}

/// What a tool call may change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Touches {
    /// These files (absolute, or relative to the payload's `cwd`).
    Files(Vec<PathBuf>),
    /// Anything in the worktree (a shell tool).
    Worktree,
    /// Nothing (a read-only or unknown tool).
    Nothing,
}

/// One hook call, reduced to what the checkpoints need.
#[derive(Debug, Clone)]
pub struct Call {
    /// The agent that sent it: the command's, except for a Claude-shaped payload carrying
    /// `cursor_version` (Cursor running Claude Code's hooks), which is Cursor's.
    pub agent: AgentKind,
    pub phase: Phase,
    /// The event's name as the agent sent it (for messages).
    pub event: String,
    /// The agent's id of the tool call (`tool_use_id`); `None` for Gemini CLI, whose calls
    /// are paired per session in arrival order.
    pub tool_use_id: Option<String>,
    /// The agent's session (conversation) id.
    pub session: String,
    pub tool: String,
    pub touches: Touches,
    pub cwd: Option<PathBuf>,
    pub transcript: Option<PathBuf>,
    /// The model, when the payload names it (Codex's and Cursor's payloads, Claude Code's
    /// `SessionStart`).
    pub model: Option<String>,
    /// Cursor's older `afterFileEdit`: the edits it made to `touches`' one file, to rebuild
    /// the file before them (there is no `preToolUse` to record it).
    pub edits: Option<Vec<FileEdit>>,
}

/// One edit of Cursor's `afterFileEdit` (agent-hooks.md §2.4).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct FileEdit {
    pub old_string: String,
    pub new_string: String,
}

impl Call {
    /// Whether the hook has nothing to do: an event git-clada ignores, a tool call of a
    /// read-only or unknown tool (nothing it may touch), or a session start naming no
    /// model. Such a hook returns before opening the repository or taking any lock.
    pub fn inert(&self) -> bool {
        match self.phase {
            Phase::Ignored => true,
            Phase::Before | Phase::After | Phase::Dropped => self.touches == Touches::Nothing,
            Phase::Session => self.model.is_none(),
            Phase::Stop => false,
        }
    }
}

/// A payload that cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum PayloadError {
    #[error("the {agent} hook payload on standard input is not JSON ({source}); is this command run by the agent's hook?")]
    NotJson {
        agent: &'static str,
        #[source]
        source: serde_json::Error,
    },
    #[error(
        "the {agent} hook payload names no event (no `hook_event_name`); pass the EVENT argument"
    )]
    NoEvent { agent: &'static str },
    #[error("the {agent} hook payload of {event} has no `{field}`")]
    Missing {
        agent: &'static str,
        event: String,
        field: &'static str,
    },
}

/// The union of the fields the four agents send that git-clada reads.
#[derive(Debug, Deserialize, Default)]
pub(crate) struct Raw {
    hook_event_name: Option<String>,
    session_id: Option<String>,
    conversation_id: Option<String>,
    transcript_path: Option<String>,
    cwd: Option<String>,
    workspace_roots: Option<Vec<String>>,
    tool_name: Option<String>,
    tool_input: Option<serde_json::Value>,
    tool_use_id: Option<String>,
    model: Option<String>,
    cursor_version: Option<String>,
    /// Cursor's older `afterFileEdit`.
    pub(crate) file_path: Option<String>,
    edits: Option<Vec<FileEdit>>,
}

/// Reads `input` as `agent`'s payload; `event` overrides `hook_event_name`.
pub fn parse(agent: AgentKind, event: Option<&str>, input: &[u8]) -> Result<Call, PayloadError> {
    let name = agent_name(agent);
    let raw: Raw = serde_json::from_slice(input).map_err(|source| PayloadError::NotJson {
        agent: name,
        source,
    })?;
    let event = event
        .map(str::to_string)
        .or_else(|| raw.hook_event_name.clone())
        .ok_or(PayloadError::NoEvent { agent: name })?;
    // Cursor can load Claude Code's settings (agent-hooks.md §2.1): its edits then arrive
    // Claude-shaped, carrying `cursor_version`, and may arrive twice (once as Cursor's own
    // hook). They are Cursor's; `calls` records a call reported twice once.
    let agent = match (agent, &raw.cursor_version) {
        (AgentKind::ClaudeCode, Some(_)) => AgentKind::Cursor,
        _ => agent,
    };
    let phase = phase_of(agent, &event);
    let session = raw
        .session_id
        .clone()
        .or_else(|| raw.conversation_id.clone())
        .unwrap_or_default();
    if session.is_empty() && phase != Phase::Ignored {
        return Err(PayloadError::Missing {
            agent: name,
            event,
            field: "session_id",
        });
    }
    let tool = raw.tool_name.clone().unwrap_or_default();
    let touches = match phase {
        Phase::Before | Phase::After | Phase::Dropped => {
            touches(agent, &tool, raw.tool_input.as_ref(), &raw)
        }
        _ => Touches::Nothing,
    };
    let cwd = raw
        .cwd
        .clone()
        .or_else(|| {
            raw.workspace_roots
                .as_ref()
                .and_then(|r| r.first().cloned())
        })
        .map(PathBuf::from);
    let edits = match (agent, event.as_str()) {
        (AgentKind::Cursor, "afterFileEdit") => Some(raw.edits.clone().unwrap_or_default()),
        _ => None,
    };
    Ok(Call {
        agent,
        phase,
        event,
        tool_use_id: raw
            .tool_use_id
            .clone()
            .filter(|_| agent != AgentKind::Gemini),
        session,
        tool,
        touches,
        cwd,
        transcript: raw.transcript_path.clone().map(PathBuf::from),
        model: raw.model.clone().filter(|m| !m.is_empty()),
        edits,
    })
}

/// The agent's name as the command line spells it.
pub fn agent_name(agent: AgentKind) -> &'static str {
    match agent {
        AgentKind::ClaudeCode => "claude-code",
        AgentKind::Cursor => "cursor",
        AgentKind::Gemini => "gemini",
        AgentKind::Codex => "codex",
    }
}

/// The phase an agent's event name stands for.
fn phase_of(agent: AgentKind, event: &str) -> Phase {
    match agent {
        AgentKind::ClaudeCode => claude_code::phase(event),
        AgentKind::Cursor => cursor::phase(event),
        AgentKind::Gemini => gemini::phase(event),
        AgentKind::Codex => codex::phase(event),
    }
}

/// What `tool` may change, from its input.
fn touches(agent: AgentKind, tool: &str, input: Option<&serde_json::Value>, raw: &Raw) -> Touches {
    let input = ToolInput { input, raw };
    match agent {
        AgentKind::ClaudeCode => claude_code::touches(tool, &input),
        AgentKind::Cursor => cursor::touches(tool, &input),
        AgentKind::Gemini => gemini::touches(tool, &input),
        AgentKind::Codex => codex::touches(tool, &input),
    }
}

/// A tool call's input as the agents' files read it.
struct ToolInput<'a> {
    input: Option<&'a serde_json::Value>,
    raw: &'a Raw,
}

impl ToolInput<'_> {
    /// A string field of the input.
    fn text(&self, key: &str) -> Option<&str> {
        self.input.and_then(|i| i.get(key)).and_then(|v| v.as_str())
    }

    /// The one file the first of `keys` names.
    fn file(&self, keys: &[&str]) -> Touches {
        match keys.iter().find_map(|k| self.text(k)) {
            Some(p) => Touches::Files(vec![PathBuf::from(p)]),
            // An edit tool whose path is not where the documentation puts it: the whole
            // worktree is compared instead, so the edit is not missed.
            None => Touches::Worktree,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claude_edit_before() {
        let call = parse(
            AgentKind::ClaudeCode,
            None,
            br#"{"session_id":"s1","hook_event_name":"PreToolUse","tool_name":"Edit","tool_input":{"file_path":"/r/a.txt","old_string":"x","new_string":"y"},"tool_use_id":"t1","new_field":1}"#,
        )
        .unwrap();
        assert_eq!(call.phase, Phase::Before);
        assert_eq!(call.tool_use_id.as_deref(), Some("t1"));
        assert_eq!(
            call.touches,
            Touches::Files(vec![PathBuf::from("/r/a.txt")])
        );
    }

    #[test]
    fn claude_shaped_payload_from_cursor_is_cursors() {
        let call = parse(
            AgentKind::ClaudeCode,
            None,
            br#"{"session_id":"s1","hook_event_name":"PostToolUse","tool_name":"Write","tool_input":{"file_path":"/r/a"},"cursor_version":"1.7"}"#,
        )
        .unwrap();
        assert_eq!(call.agent, AgentKind::Cursor);
        assert_eq!(call.phase, Phase::After);
        assert_eq!(call.touches, Touches::Files(vec![PathBuf::from("/r/a")]));
    }

    #[test]
    fn cursor_after_file_edit_carries_its_edits() {
        let call = parse(
            AgentKind::Cursor,
            None,
            br#"{"conversation_id":"c","hook_event_name":"afterFileEdit","file_path":"/r/a","edits":[{"old_string":"x","new_string":"y"}]}"#,
        )
        .unwrap();
        assert_eq!(call.phase, Phase::After);
        assert_eq!(call.touches, Touches::Files(vec![PathBuf::from("/r/a")]));
        let edit = FileEdit {
            old_string: "x".into(),
            new_string: "y".into(),
        };
        assert_eq!(call.edits, Some(vec![edit]));
    }

    #[test]
    fn gemini_calls_have_no_id() {
        let call = parse(
            AgentKind::Gemini,
            None,
            br#"{"session_id":"g","hook_event_name":"AfterTool","tool_name":"run_shell_command","tool_input":{"command":"ls"},"tool_use_id":"x"}"#,
        )
        .unwrap();
        assert_eq!(call.tool_use_id, None);
        assert_eq!(call.touches, Touches::Worktree);
    }

    #[test]
    fn codex_patch_paths() {
        let text = "*** Begin Patch\n*** Update File: src/a.rs\n*** Move to: src/b.rs\n@@\n-x\n+y\n*** Add File: c.txt\n+hi\n*** Delete File: d.txt\n*** End Patch\n";
        assert_eq!(
            patch_paths(text),
            ["src/a.rs", "src/b.rs", "c.txt", "d.txt"]
                .map(PathBuf::from)
                .to_vec()
        );
    }

    #[test]
    fn a_failed_call_ends_like_a_successful_one_and_a_denied_one_is_dropped() {
        let failed = parse(
            AgentKind::ClaudeCode,
            None,
            br#"{"session_id":"s","hook_event_name":"PostToolUseFailure","tool_name":"Bash","tool_input":{"command":"false"},"tool_use_id":"t","error":"Exit code 1"}"#,
        )
        .unwrap();
        assert_eq!(
            (failed.phase, failed.touches),
            (Phase::After, Touches::Worktree)
        );
        let cursor = parse(
            AgentKind::Cursor,
            None,
            br#"{"conversation_id":"c","hook_event_name":"postToolUseFailure","tool_name":"Shell","tool_input":{"command":"false"},"tool_use_id":"t"}"#,
        )
        .unwrap();
        assert_eq!(cursor.phase, Phase::After);
        let denied = parse(
            AgentKind::ClaudeCode,
            None,
            br#"{"session_id":"s","hook_event_name":"PermissionDenied","tool_name":"Edit","tool_input":{"file_path":"/r/a"},"tool_use_id":"t","reason":"no"}"#,
        )
        .unwrap();
        assert_eq!(denied.phase, Phase::Dropped);
        assert!(!denied.inert());
    }

    #[test]
    fn read_only_calls_and_a_session_start_without_a_model_are_inert() {
        let read = parse(
            AgentKind::ClaudeCode,
            None,
            br#"{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":"/r/a"},"tool_use_id":"t"}"#,
        )
        .unwrap();
        assert!(read.inert());
        let gemini = parse(
            AgentKind::Gemini,
            None,
            br#"{"session_id":"g","hook_event_name":"BeforeTool","tool_name":"search_file_content","tool_input":{"pattern":"x"}}"#,
        )
        .unwrap();
        assert!(gemini.inert());
        let start = |body: &[u8]| parse(AgentKind::ClaudeCode, None, body).unwrap();
        let named = start(br#"{"session_id":"s","hook_event_name":"SessionStart","source":"startup","model":"claude-x"}"#);
        assert_eq!(
            (named.phase, named.model.as_deref()),
            (Phase::Session, Some("claude-x"))
        );
        assert!(!named.inert());
        assert!(
            start(br#"{"session_id":"s","hook_event_name":"SessionStart","source":"clear"}"#)
                .inert()
        );
    }

    #[test]
    fn malformed_and_eventless_payloads_are_errors() {
        assert!(matches!(
            parse(AgentKind::ClaudeCode, None, b"{not json"),
            Err(PayloadError::NotJson { .. })
        ));
        assert!(matches!(
            parse(AgentKind::ClaudeCode, None, br#"{"session_id":"s"}"#),
            Err(PayloadError::NoEvent { .. })
        ));
    }
}
