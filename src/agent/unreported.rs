//! Edits no hook reported (Codex's `apply_patch` calls that fire none, openai/codex#26751):
//! at a session's first hook of a turn its worktree is remembered (every dirty or untracked
//! file, hashed); at the end of the turn, what changed since then that no checkpoint holds —
//! a path the agent's checkpoints never named, or one that changed after its last checkpoint
//! — is named on stderr as not attributed. It is left as it is in the worktree: never
//! committed as the agent's (the turn commits the checkpoints' versions only), never lost.
//! A user's own edit during the turn is found the same way: the two cannot be told apart.
//! The baseline is a file of its own, `.git/clada/agent-turn/<id>.json` (one per branch
//! and session; only blob ids, read and written under the agent lock).

use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::repo::{ByteSlice, Repo, RepoError};

use super::state::{state_ref, FileState, Stored};
use super::turn::Sides;

/// Where the baseline of `session`'s turn on `branch` is kept.
fn baseline_file(repo: &Repo, branch: Option<&str>, session: &str) -> PathBuf {
    let key = format!("{}\0{session}", state_ref(branch));
    repo.git_dir()
        .join("clada")
        .join("agent-turn")
        .join(format!("{}.json", repo.blob_id(key.as_bytes())))
}

fn io(what: &str, path: &std::path::Path, e: std::io::Error) -> RepoError {
    RepoError::Invalid(format!("cannot {what} {}: {e}", path.display()))
}

/// Remembers the worktree for `session` unless its turn has begun already (the cost of a
/// status of the worktree, once per turn).
pub fn remember(repo: &Repo, branch: Option<&str>, session: &str) -> Result<(), RepoError> {
    let path = baseline_file(repo, branch, session);
    if path.exists() {
        return Ok(());
    }
    let files: Vec<FileState> = dirty_now(repo)?
        .into_iter()
        .map(|(path, entry)| FileState { path, entry })
        .collect();
    let json = serde_json::to_vec(&files)
        .map_err(|e| RepoError::Invalid(format!("cannot write the turn's baseline: {e}")))?;
    crate::base::fsutil::write_atomic_creating_dir(
        &path,
        &json,
        crate::base::fsutil::Perm::Executable(false),
    )
    .map_err(|e| io("write", &path, e))
}

/// Drops the baseline of `session`'s turn on `branch` (its turn there ended: the agent
/// switched branches).
pub fn forget(repo: &Repo, branch: Option<&str>, session: &str) {
    let _ = std::fs::remove_file(baseline_file(repo, branch, session));
}

/// The paths that changed during `session`'s turn with no checkpoint holding their content
/// now, given the turn's `sides`; the session's baseline is dropped (the turn ends). Empty
/// when no baseline was taken (the hooks were installed mid-turn).
pub fn at_end(
    repo: &Repo,
    branch: Option<&str>,
    session: &str,
    sides: &BTreeMap<String, Sides>,
) -> Result<Vec<String>, RepoError> {
    let path = baseline_file(repo, branch, session);
    let text = match std::fs::read(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io("read", &path, e)),
    };
    // The turn ends: its baseline goes (an unreadable one tells nothing).
    std::fs::remove_file(&path).map_err(|e| io("remove", &path, e))?;
    let Ok(files) = serde_json::from_slice::<Vec<FileState>>(&text) else {
        return Ok(Vec::new());
    };
    let before: BTreeMap<&str, Option<Stored>> =
        files.iter().map(|f| (f.path.as_str(), f.entry)).collect();
    let mut out = Vec::new();
    for (path, now) in dirty_now(repo)? {
        let unchanged = match sides.get(&path) {
            Some(s) => s.agent == now,
            None => before.get(path.as_str()) == Some(&now),
        };
        if !unchanged {
            out.push(path);
        }
    }
    Ok(out)
}

/// Every dirty or untracked file and its content now.
fn dirty_now(repo: &Repo) -> Result<Vec<(String, Option<Stored>)>, RepoError> {
    let index = repo.read_index()?;
    let mut hasher = repo.hasher_with(&index)?;
    let mut out = Vec::new();
    for p in super::shell::scan(repo, &index)?.0 {
        let entry = Stored::of(hasher.id_of(p.as_bstr())?);
        out.push((p.to_string(), entry));
    }
    Ok(out)
}
