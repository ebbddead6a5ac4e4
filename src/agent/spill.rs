//! Hooks that cannot wait: a tool-call hook that finds the agent lock held longer than its
//! budget (another hook's turn commit running git's commit hooks, say) records its call
//! anyway, without the lock and without moving any ref. It writes what it saw — the
//! before-state of the call, or the content after it of every path the call may have changed
//! (blobs in the object store, so nothing depends on the worktree later) — to a file of its
//! own under `.git/clada/agent-pending/`, and returns. The next hook that holds the lock folds
//! those files into the state, oldest first, before its own work, and removes them once the
//! state is saved. So a call's before-state always precedes its after, and what each hook saw
//! is what counts, whenever it is folded in.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use clada_git::{Repo, RepoError};

use super::calls::{self, AfterMeta, AfterOutcome};
use super::observed::Seen;
use super::payload::Call;
use super::shell::GitSeen;
use super::state::{self, Held, Open};

/// How long a tool-call hook waits for the agent lock before it sets its call aside:
/// `GIT_CLADA_AGENT_LOCK_BUDGET_MS`, default 1 s (the agent waits for the hook).
pub fn budget() -> std::time::Duration {
    let ms = std::env::var("GIT_CLADA_AGENT_LOCK_BUDGET_MS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1000);
    std::time::Duration::from_millis(ms)
}

/// One hook's record, set aside.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "phase", rename_all = "snake_case")]
enum Spilled {
    Before {
        branch: Option<String>,
        open: Open,
    },
    After {
        branch: Option<String>,
        key: Option<String>,
        session: String,
        meta: AfterMeta,
        seen: Seen,
        #[serde(default)]
        git: GitSeen,
    },
}

fn dir(repo: &Repo) -> PathBuf {
    repo.git_dir().join("clada").join("agent-pending")
}

/// Sets aside the state before `call`.
pub fn before(repo: &Repo, branch: Option<&str>, call: &Call, cwd: &Path) -> Result<(), RepoError> {
    let Some(open) = calls::before_state(repo, call, cwd)? else {
        return Ok(());
    };
    write(
        repo,
        &Spilled::Before {
            branch: branch.map(str::to_string),
            open,
        },
    )
}

/// Sets aside what `call` changed: its before-state is found in the saved state or in an
/// earlier set-aside file (read without the lock: the before-state was written before this
/// call's tool ran, so it is there).
pub fn after(
    repo: &Repo,
    branch: Option<&str>,
    call: &Call,
    agent: &str,
    head: &str,
) -> Result<AfterOutcome, RepoError> {
    if call.edits.is_some() {
        // Cursor's afterFileEdit rebuilds its before-state from the file as it is now, which
        // must happen under the lock: it waits like a turn's end.
        return Err(RepoError::Invalid(
            "another git-clada agent hook holds the agent lock; Cursor's afterFileEdit is not set aside".into(),
        ));
    }
    let id = call.tool_use_id.as_deref();
    let (_, _, saved) = state::read_state(repo, branch)?;
    let open = saved
        .open
        .into_iter()
        .find(|o| calls::pairs(o, id, &call.session))
        .or_else(|| {
            pending(repo).into_iter().find_map(|(_, s)| match s {
                Spilled::Before { open, .. } if calls::pairs(&open, id, &call.session) => {
                    Some(open)
                }
                _ => None,
            })
        });
    let Some(open) = open else {
        return Ok(AfterOutcome::NoBefore);
    };
    let (seen, git) = calls::seen_after(repo, &open, head)?;
    write(
        repo,
        &Spilled::After {
            branch: branch.map(str::to_string),
            key: open.key.clone(),
            session: open.session.clone(),
            meta: AfterMeta::of(call, agent, head),
            seen,
            git,
        },
    )?;
    Ok(AfterOutcome::SetAside)
}

/// Folds the set-aside records of `branch` into `held`, oldest first; the files to remove
/// once `held` is saved.
pub fn fold(repo: &Repo, held: &mut Held, branch: Option<&str>) -> Result<Vec<PathBuf>, RepoError> {
    let mut done = Vec::new();
    for (path, spilled) in pending(repo) {
        match spilled {
            Spilled::Before { branch: b, open } if b.as_deref() == branch => {
                calls::store_before(held, open);
            }
            Spilled::After {
                branch: b,
                key,
                session,
                meta,
                seen,
                git,
            } if b.as_deref() == branch => {
                let found = held
                    .state
                    .open
                    .iter()
                    .position(|o| calls::pairs(o, key.as_deref(), &session));
                if let Some(i) = found {
                    let open = held.state.open.remove(i);
                    calls::checkpoint_of(repo, held, open, meta, seen, git)?;
                }
            }
            _ => continue,
        }
        done.push(path);
    }
    Ok(done)
}

/// Removes folded files (after the state holding them was saved).
pub fn remove(done: &[PathBuf]) {
    for p in done {
        let _ = std::fs::remove_file(p);
    }
}

/// Whether any record is set aside.
pub fn any(repo: &Repo) -> bool {
    std::fs::read_dir(dir(repo)).is_ok_and(|mut d| {
        d.any(|e| {
            e.is_ok_and(|e| {
                Path::new(&e.file_name())
                    .extension()
                    .is_some_and(|x| x == "json")
            })
        })
    })
}

/// The set-aside records, oldest first. One that cannot be read (they are written whole, so
/// it was damaged, or written by another version) is renamed `….json.unreadable`, kept for
/// the user to look at but never read again.
fn pending(repo: &Repo) -> Vec<(PathBuf, Spilled)> {
    let Ok(entries) = std::fs::read_dir(dir(repo)) else {
        return Vec::new();
    };
    let mut paths: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .filter_map(|p| {
            let read = std::fs::read(&p).map(|bytes| serde_json::from_slice(&bytes));
            match read {
                Ok(Ok(s)) => Some((p, s)),
                Ok(Err(_)) => {
                    let mut aside = p.clone().into_os_string();
                    aside.push(".unreadable");
                    let _ = std::fs::rename(&p, aside);
                    None
                }
                Err(_) => None,
            }
        })
        .collect()
}

fn write(repo: &Repo, spilled: &Spilled) -> Result<(), RepoError> {
    let dir = dir(repo);
    let json = serde_json::to_vec(spilled)
        .map_err(|e| RepoError::Invalid(format!("cannot set the hook's record aside: {e}")))?;
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    // Named by time, so folding goes oldest first; the pid keeps two hooks of one instant apart.
    let path = dir.join(format!("{nanos:024}-{}.json", std::process::id()));
    let perm = clada_base::fsutil::Perm::Executable(false);
    clada_base::fsutil::write_atomic_creating_dir(&path, &json, perm)
        .map_err(|e| RepoError::Invalid(format!("cannot write {}: {e}", path.display())))
}
