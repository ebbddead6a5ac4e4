//! The user's prompt of the turn, for the turn commit's subject under `agent.subject: prompt`:
//! the last message the user typed, read from the tail of the agent's transcript. No hook
//! event beyond those installed is needed. Shapes read (observed, not documented):
//! - Claude Code's transcript: `{"type":"user","message":{"role":"user","content":…}}`,
//!   `content` a string or a list of `{"type":"text","text":…}`; a list holding only
//!   `tool_result` parts, a meta line (`isMeta`), a subagent's line (`isSidechain`) and a
//!   slash command's wrapper (`<command-…>`, `<local-command-…>`) are not the user's prompt;
//! - Gemini CLI's chat (`chats/session-….jsonl`): `{"type":"user","content":[{"text":…}]}`,
//!   its own `<session_context>` message aside;
//! - Codex's rollout: the user's message as an event,
//!   `{"type":"event_msg","payload":{"type":"item_completed","item":{"type":"UserMessage",
//!   "content":[{"type":"text","text":…}]}}}` (Codex 0.171.0), or in earlier versions
//!   `{"type":"event_msg","payload":{"type":"user_message","message":…}}` (the rollout's
//!   `response_item` user messages also hold what Codex adds, its environment context).

use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use serde_json::Value;

/// How much of the transcript's end is read.
const TAIL: u64 = 256 * 1024;

/// The user's last prompt in the transcript at `path`, if one is found in its tail.
pub fn from_transcript(path: &Path) -> Option<String> {
    let mut file = std::fs::File::open(path).ok()?;
    let len = file.metadata().ok()?.len();
    file.seek(SeekFrom::Start(len.saturating_sub(TAIL))).ok()?;
    let mut bytes = Vec::new();
    file.take(TAIL).read_to_end(&mut bytes).ok()?;
    let text = String::from_utf8_lossy(&bytes);
    text.lines().rev().find_map(prompt_of_line)
}

fn prompt_of_line(line: &str) -> Option<String> {
    let v: Value = serde_json::from_str(line).ok()?;
    let text = match v.get("type").and_then(Value::as_str)? {
        "user" => claude_user(&v)?,
        "event_msg" => codex_user(v.get("payload")?)?,
        _ => return None,
    };
    let text = text.trim();
    let wrapper = ["<command-", "<local-command-", "<session_context>"]
        .iter()
        .any(|w| text.starts_with(w));
    (!text.is_empty() && !wrapper).then(|| text.to_string())
}

/// The text of a Codex rollout event that is the user's message.
fn codex_user(payload: &Value) -> Option<String> {
    match payload.get("type").and_then(Value::as_str)? {
        "user_message" => Some(payload.get("message")?.as_str()?.to_string()),
        "item_completed" => {
            let item = payload.get("item")?;
            (item.get("type").and_then(Value::as_str) == Some("UserMessage"))
                .then(|| texts(item.get("content")?))?
        }
        _ => None,
    }
}

/// The text parts of a message's content (`{"type":"text","text":…}`, or Gemini CLI's
/// untyped `{"text":…}`), joined by lines; `None` when there are none.
fn texts(content: &Value) -> Option<String> {
    let parts: Vec<&str> = content
        .as_array()?
        .iter()
        .filter(|p| p.get("type").is_none_or(|t| t.as_str() == Some("text")))
        .filter_map(|p| p.get("text").and_then(Value::as_str))
        .collect();
    (!parts.is_empty()).then(|| parts.join("\n"))
}

/// The text of a Claude Code user line that is a prompt the user typed.
fn claude_user(v: &Value) -> Option<String> {
    let flag = |k: &str| v.get(k).and_then(Value::as_bool) == Some(true);
    if flag("isMeta") || flag("isSidechain") {
        return None;
    }
    // Claude Code nests the message; Gemini CLI's chat line is the message.
    let content = match v.get("message") {
        Some(m) => m.get("content")?,
        None => v.get("content")?,
    };
    match content.as_str() {
        Some(s) => Some(s.to_string()),
        None => texts(content),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_prompt_the_user_typed_is_found() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t.jsonl");
        std::fs::write(
            &p,
            concat!(
                "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"first ask\"}}\n",
                "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"Fix the parser\\nand its tests\"}]}}\n",
                "{\"type\":\"assistant\",\"message\":{\"model\":\"m\",\"content\":[]}}\n",
                "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"content\":\"ok\"}]}}\n",
                "{\"type\":\"user\",\"isMeta\":true,\"message\":{\"role\":\"user\",\"content\":\"caveat\"}}\n",
                "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"<local-command-stdout></local-command-stdout>\"}}\n",
                "trunc"
            ),
        )
        .unwrap();
        assert_eq!(
            from_transcript(&p).as_deref(),
            Some("Fix the parser\nand its tests")
        );
        std::fs::write(
            &p,
            "{\"type\":\"event_msg\",\"payload\":{\"type\":\"user_message\",\"message\":\"rename x\"}}\n{\"type\":\"event_msg\",\"payload\":{\"type\":\"agent_message\",\"message\":\"done\"}}\n",
        )
        .unwrap();
        assert_eq!(from_transcript(&p).as_deref(), Some("rename x"));
        // Codex 0.171.0: the user's message as a completed item; its environment context, a
        // user `response_item`, is not the prompt.
        std::fs::write(
            &p,
            concat!(
                "{\"type\":\"event_msg\",\"payload\":{\"type\":\"item_completed\",\"item\":{\"type\":\"UserMessage\",\"content\":[{\"type\":\"text\",\"text\":\"Make the change\",\"text_elements\":[]}]}}}\n",
                "{\"type\":\"response_item\",\"payload\":{\"type\":\"message\",\"role\":\"user\",\"content\":[{\"type\":\"input_text\",\"text\":\"<environment_context>\"}]}}\n"
            ),
        )
        .unwrap();
        assert_eq!(from_transcript(&p).as_deref(), Some("Make the change"));
        // Gemini CLI 0.61.0's chat: untyped text parts; its session context is no prompt.
        std::fs::write(
            &p,
            concat!(
                "{\"id\":\"a\",\"type\":\"user\",\"content\":[{\"text\":\"Rename the helper\"}]}\n",
                "{\"$set\":{\"lastUpdated\":\"2026-11-29T03:51:31.977Z\"}}\n",
                "{\"id\":\"b\",\"type\":\"gemini\",\"content\":\"\",\"model\":\"m\"}\n",
                "{\"id\":\"c\",\"type\":\"user\",\"content\":[{\"text\":\"<session_context>\\nx\"}]}\n"
            ),
        )
        .unwrap();
        assert_eq!(from_transcript(&p).as_deref(), Some("Rename the helper"));
        assert_eq!(from_transcript(&dir.path().join("none")), None);
    }
}
