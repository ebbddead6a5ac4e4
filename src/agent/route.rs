//! Which repositories a hook call is recorded in. An agent session may run in a folder that
//! is no repository (a parent folder holding several) or reach out of its own (an absolute
//! path into a sibling): each path goes to the repository that holds it, and one session
//! may span several.
//!
//! - A file tool's call goes to the repository of each file it names (the innermost one
//!   holding the file, found from the file's nearest existing folder), with only that
//!   repository's files.
//! - A shell call, and the end of a turn, go to the repository of the session's folder (if
//!   any) and every repository the session touched before. Nothing else below the session's
//!   folder is scanned; a shell call in a folder that is no repository takes the
//!   before-state of those repositories only, and says so.
//! - The repositories a session touched outside its folder's own are remembered in a small
//!   file of the user's, `$XDG_STATE_HOME/git-clada/agent-sessions/<id>.json` (default
//!   `~/.local/state/…`; `<id>` the hash of the session id): a parent folder has no git
//!   directory to keep it in, and no repository can be found from it without a scan. A
//!   session that never leaves its folder's repository writes none.

use std::path::{Path, PathBuf};

use clada_git::{Repo, RepoError};

use super::payload::{Call, Phase, Touches};

/// One repository a hook call is recorded in, with the part of the call that is its.
pub struct Target {
    pub repo: Repo,
    pub call: Call,
    /// The repository of the session's folder (not one reached from it).
    pub home: bool,
}

/// The repositories `call` (run in `dir`) is recorded in; what the user should know about
/// the routing goes to `notes`.
pub fn targets(call: &Call, dir: &Path, notes: &mut Vec<String>) -> Result<Vec<Target>, RepoError> {
    let home = discover(dir)?;
    let home_dir = home.as_ref().map(|r| r.workdir().to_path_buf());
    let mut out: Vec<Target> = Vec::new();
    let files = match (&call.touches, call.phase) {
        (Touches::Files(files), Phase::Before | Phase::After | Phase::Dropped) => Some(files),
        _ => None,
    };
    let Some(files) = files else {
        // A shell call or the end of a turn: the folder's repository and the session's.
        let known = remembered(&call.session);
        if let Some(repo) = home {
            out.push(Target {
                repo,
                call: call.clone(),
                home: true,
            });
        }
        for w in known {
            if Some(&w) == home_dir.as_ref() {
                continue;
            }
            let Ok(repo) = Repo::discover(&w) else {
                continue;
            };
            if repo.workdir() != w {
                continue;
            }
            out.push(Target {
                repo,
                call: call.clone(),
                home: false,
            });
        }
        if home_dir.is_none() && !out.is_empty() && call.phase == Phase::Before {
            let names: Vec<String> = out
                .iter()
                .map(|t| t.repo.workdir().display().to_string())
                .collect();
            notes.push(format!(
                "this shell call runs in {}, which is in no git repository: only the repositories this agent session has touched are compared before and after it ({}); an edit it makes anywhere else is not recorded",
                dir.display(),
                names.join(", ")
            ));
        }
        return Ok(out);
    };
    for f in files {
        let abs = match f.is_absolute() {
            true => f.clone(),
            false => dir.join(f),
        };
        let Some(repo) = holding(&abs)? else {
            continue;
        };
        match out.iter_mut().find(|t| t.repo.workdir() == repo.workdir()) {
            Some(t) => {
                if let Touches::Files(mine) = &mut t.call.touches {
                    mine.push(abs);
                }
            }
            None => {
                let mut mine = call.clone();
                mine.touches = Touches::Files(vec![abs]);
                let home = Some(repo.workdir()) == home_dir.as_deref();
                out.push(Target {
                    repo,
                    call: mine,
                    home,
                });
            }
        }
    }
    let away: Vec<PathBuf> = (out.iter())
        .filter(|t| !t.home)
        .map(|t| t.repo.workdir().to_path_buf())
        .collect();
    remember(&call.session, &away);
    Ok(out)
}

/// The repository holding `dir`, if any.
fn discover(dir: &Path) -> Result<Option<Repo>, RepoError> {
    match Repo::discover(dir) {
        Ok(r) => Ok(Some(r)),
        Err(RepoError::NotARepo(_)) => Ok(None),
        // A bare repository, or one git-clada cannot open: nothing to record there.
        Err(RepoError::Bare(_)) => Ok(None),
        Err(e) => Err(e),
    }
}

/// The repository holding the file at `abs` (which may not exist yet), from its nearest
/// existing folder.
fn holding(abs: &Path) -> Result<Option<Repo>, RepoError> {
    let mut dir = abs.parent();
    while let Some(d) = dir {
        if d.is_dir() {
            return discover(d);
        }
        dir = d.parent();
    }
    Ok(None)
}

/// The file that remembers `session`'s repositories; `None` without a home.
fn memory_file(session: &str) -> Option<PathBuf> {
    let base = match std::env::var_os("XDG_STATE_HOME").filter(|v| !v.is_empty()) {
        Some(s) => PathBuf::from(s),
        None => PathBuf::from(std::env::var_os("HOME").filter(|v| !v.is_empty())?)
            .join(".local")
            .join("state"),
    };
    let id = clada_engine::authorship::ids::session_id("agent-hook", session);
    Some(
        base.join("git-clada")
            .join("agent-sessions")
            .join(format!("{id}.json")),
    )
}

/// The worktrees `session` touched outside its folder's repository.
fn remembered(session: &str) -> Vec<PathBuf> {
    let Some(file) = memory_file(session) else {
        return Vec::new();
    };
    std::fs::read(&file)
        .ok()
        .and_then(|b| serde_json::from_slice::<Vec<PathBuf>>(&b).ok())
        .unwrap_or_default()
        .into_iter()
        .filter(|p| p.is_absolute())
        .collect()
}

/// Adds `worktrees` to what `session` touched (nothing written when it knew them all). The
/// memory is a convenience: when it cannot be written, a later shell call or end of turn in
/// a folder that is no repository does not see those repositories (it never fails a hook).
fn remember(session: &str, worktrees: &[PathBuf]) {
    if worktrees.is_empty() {
        return;
    }
    let Some(file) = memory_file(session) else {
        return;
    };
    let mut known = remembered(session);
    let before = known.len();
    for w in worktrees {
        if !known.contains(w) {
            known.push(w.clone());
        }
    }
    if known.len() == before {
        return;
    }
    if before == 0 {
        prune(&file);
    }
    if let Ok(json) = serde_json::to_vec(&known) {
        let perm = clada_base::fsutil::Perm::Executable(false);
        let _ = clada_base::fsutil::write_atomic_creating_dir(&file, &json, perm);
    }
}

/// Removes the memories of sessions untouched for 30 days (when a new one is made).
fn prune(file: &Path) {
    let Some(dir) = file.parent() else { return };
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let month = std::time::Duration::from_secs(30 * 24 * 3600);
    for e in entries.flatten() {
        let old = e
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age > month);
        if old && e.path().extension().is_some_and(|x| x == "json") {
            let _ = std::fs::remove_file(e.path());
        }
    }
}
