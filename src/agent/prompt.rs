//! The user's prompt of the turn, for the turn commit's subject under `agent.subject: prompt`:
//! the last message the user typed, read from the tail of the agent's transcript. No hook
//! event beyond those installed is needed. Shapes read (observed, not documented):
//! - Claude Code's transcript: `{"type":"user","message":{"role":"user","content":…}}`,
//!   `content` a string or a list of `{"type":"text","text":…}`; a list holding only
//!   `tool_result` parts, a meta line (`isMeta`), a subagent's line (`isSidechain`) and a
//!   slash command's wrapper (`<command-…>`, `<local-command-…>`) are not the user's prompt;
//! - Codex's rollout: `{"type":"event_msg","payload":{"type":"user_message","message":…}}`.

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
        "event_msg" => {
            let p = v.get("payload")?;
            (p.get("type").and_then(Value::as_str) == Some("user_message"))
                .then(|| p.get("message").and_then(Value::as_str))??
                .to_string()
        }
        _ => return None,
    };
    let text = text.trim();
    let wrapper = text.starts_with("<command-") || text.starts_with("<local-command-");
    (!text.is_empty() && !wrapper).then(|| text.to_string())
}

/// The text of a Claude Code user line that is a prompt the user typed.
fn claude_user(v: &Value) -> Option<String> {
    let flag = |k: &str| v.get(k).and_then(Value::as_bool) == Some(true);
    if flag("isMeta") || flag("isSidechain") {
        return None;
    }
    let content = v.get("message")?.get("content")?;
    if let Some(s) = content.as_str() {
        return Some(s.to_string());
    }
    let parts: Vec<&str> = content
        .as_array()?
        .iter()
        .filter(|p| p.get("type").and_then(Value::as_str) == Some("text"))
        .filter_map(|p| p.get("text").and_then(Value::as_str))
        .collect();
    (!parts.is_empty()).then(|| parts.join("\n"))
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
        assert_eq!(from_transcript(&dir.path().join("none")), None);
    }
}
