//! The model behind a Claude Code session: the transcript's last `message.model` (observed in
//! public code, not documented; see agent-hooks.md §1.10). Only the transcript's tail is read.

use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

/// How much of the transcript's end is read.
const TAIL: u64 = 64 * 1024;

/// The newest model named in the transcript at `path`, if any (`<synthetic>` skipped).
pub fn from_transcript(path: &Path) -> Option<String> {
    let mut file = std::fs::File::open(path).ok()?;
    let len = file.metadata().ok()?.len();
    file.seek(SeekFrom::Start(len.saturating_sub(TAIL))).ok()?;
    let mut bytes = Vec::new();
    file.take(TAIL).read_to_end(&mut bytes).ok()?;
    let text = String::from_utf8_lossy(&bytes);
    text.lines().rev().find_map(model_of_line)
}

fn model_of_line(line: &str) -> Option<String> {
    let v: serde_json::Value = serde_json::from_str(line).ok()?;
    let model = v
        .get("message")
        .and_then(|m| m.get("model"))
        .or_else(|| v.get("model"))?
        .as_str()?;
    (!model.is_empty() && model != "<synthetic>").then(|| model.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn last_model_wins_and_synthetic_is_skipped() {
        let dir = std::env::temp_dir().join(format!("clada-model-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("t.jsonl");
        std::fs::write(
            &p,
            "{\"type\":\"assistant\",\"message\":{\"model\":\"claude-a\"}}\n{\"type\":\"assistant\",\"message\":{\"model\":\"claude-b\"}}\n{\"type\":\"assistant\",\"message\":{\"model\":\"<synthetic>\"}}\ntrunc",
        )
        .unwrap();
        assert_eq!(from_transcript(&p).as_deref(), Some("claude-b"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
