//! The model behind an agent's lines. In order: the model a payload names (Codex's and
//! Cursor's, on every event), the transcript's last `message.model` or `model` (Claude Code's
//! and Gemini CLI's; observed in public code, not documented, see agent-hooks.md §1.10; only
//! the tail is read), the model Claude Code's `SessionStart` named (documented, but it can
//! be missing and does not follow a `/model` switch, so the transcript goes first), and only
//! then the user's configured `provenance.model`. `SessionStart`'s model is kept per
//! session in `.git/clada/agent-model/` until a commit takes the session's lines.

use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use clada_git::{Repo, RepoError};

/// A session's `SessionStart` model older than this is forgotten when another is kept.
const KEPT: Duration = Duration::from_secs(30 * 24 * 3600);

/// The model of `session`'s lines: `recorded` (a payload's, or a checkpoint's), else the
/// transcript's, else the one `SessionStart` named, else what `configured` gives (read only
/// when needed).
pub fn of_session(
    repo: &Repo,
    session: &str,
    recorded: Option<String>,
    transcript: Option<&Path>,
    configured: impl FnOnce() -> Option<String>,
) -> Option<String> {
    recorded
        .or_else(|| transcript.and_then(from_transcript))
        .or_else(|| remembered(repo, session))
        .or_else(configured)
}

/// The user's configured `provenance.model` for this repository, if any (a configuration
/// that cannot be read names none: the model then stays unknown).
pub fn configured(repo: &Repo) -> Option<String> {
    clada_engine::config::load_for_repo(Some(repo))
        .ok()
        .and_then(|c| c.provenance_model.value)
}

fn kept_dir(repo: &Repo) -> PathBuf {
    repo.common_dir().join("clada").join("agent-model")
}

fn kept_file(repo: &Repo, session: &str) -> PathBuf {
    kept_dir(repo).join(repo.blob_id(session.as_bytes()).to_string())
}

/// Keeps the model `SessionStart` named for `session`, and forgets those kept long ago.
pub fn remember(repo: &Repo, session: &str, model: &str) -> Result<(), RepoError> {
    let path = kept_file(repo, session);
    clada_base::fsutil::write_atomic_creating_dir(
        &path,
        model.as_bytes(),
        clada_base::fsutil::Perm::Executable(false),
    )
    .map_err(|e| RepoError::Invalid(format!("cannot write {}: {e}", path.display())))?;
    // Tidying is best effort: a file left behind is only a few bytes.
    let now = SystemTime::now();
    for entry in std::fs::read_dir(kept_dir(repo))
        .into_iter()
        .flatten()
        .flatten()
    {
        let old = entry
            .metadata()
            .and_then(|m| m.modified())
            .is_ok_and(|t| now.duration_since(t).is_ok_and(|age| age > KEPT));
        if old {
            let _ = std::fs::remove_file(entry.path());
        }
    }
    Ok(())
}

/// The model `SessionStart` named for `session`, if it was kept.
pub fn remembered(repo: &Repo, session: &str) -> Option<String> {
    let text = std::fs::read_to_string(kept_file(repo, session)).ok()?;
    let model = text.trim();
    (!model.is_empty()).then(|| model.to_string())
}

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
