//! Edits no hook reported (Codex's `apply_patch` calls that fire none, openai/codex#26751):
//! at a session's first hook of a turn its worktree is remembered (every dirty or untracked
//! file, hashed). At each later tool call's before hook ([`at_hook`]), what changed since the
//! session's last hook that no checkpoint holds is named on stderr at once: on a shell call,
//! every path (from the status its before-state takes anyway), on any other tool, the paths
//! the agent's checkpoints hold (hashed one by one: no scan of the worktree). At the end of
//! the turn ([`at_end`]), what changed since the turn began with no checkpoint holding it —
//! a path the agent's checkpoints never named, or one that changed after its last
//! checkpoint — is named, unless a hook named it already as it is. It is left as it is in
//! the worktree: never committed as the agent's (the turn commits the checkpoints' versions
//! only), never lost. A user's own edit during the turn is found the same way: the two
//! cannot be told apart. The baseline is a file of its own, `.git/clada/agent-turn/<id>.json`
//! (one per branch and session; only blob ids, read and written under the agent lock).

use std::collections::BTreeMap;
use std::path::PathBuf;

use clada_git::{BString, ByteSlice, Repo, RepoError};

use super::sides::Sides;
use super::state::{state_ref, FileState, Held, Open, Stored};

/// The turn's baseline: the worktree's dirty files when it began, and what was named since.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
struct Baseline {
    files: Vec<FileState>,
    /// Paths a hook named as changed with no hook reporting it, as they were then.
    #[serde(default)]
    named: Vec<FileState>,
}

impl Baseline {
    fn parse(text: &[u8]) -> Option<Baseline> {
        serde_json::from_slice(text).ok().or_else(|| {
            // Written by an older git-clada: the files alone.
            serde_json::from_slice(text).ok().map(|files| Baseline {
                files,
                named: vec![],
            })
        })
    }
}

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

fn write(path: &std::path::Path, baseline: &Baseline) -> Result<(), RepoError> {
    let json = serde_json::to_vec(baseline)
        .map_err(|e| RepoError::Invalid(format!("cannot write the turn's baseline: {e}")))?;
    clada_base::fsutil::write_atomic_creating_dir(
        path,
        &json,
        clada_base::fsutil::Perm::Executable(false),
    )
    .map_err(|e| io("write", path, e))
}

/// Remembers the worktree for `session` unless its turn has begun already (the cost of a
/// status of the worktree, once per turn). Whether it began now.
pub fn remember(repo: &Repo, branch: Option<&str>, session: &str) -> Result<bool, RepoError> {
    let path = baseline_file(repo, branch, session);
    if path.exists() {
        return Ok(false);
    }
    let files: Vec<FileState> = dirty_now(repo)?
        .into_iter()
        .map(|(path, entry)| FileState { path, entry })
        .collect();
    write(
        &path,
        &Baseline {
            files,
            named: vec![],
        },
    )?;
    Ok(true)
}

/// Drops the baseline of `session`'s turn on `branch` (its turn there ended: the agent
/// switched branches).
pub fn forget(repo: &Repo, branch: Option<&str>, session: &str) {
    let _ = std::fs::remove_file(baseline_file(repo, branch, session));
}

/// At the before hook of `open`'s call: the paths changed since the session's last hook
/// with no hook reporting them, named once (remembered as named). A shell call's
/// before-state lists every dirty file, so every path is looked at; another tool's, only the
/// paths the session's checkpoints hold. Nothing while another call of the session that
/// may change any file is still running (its change is not reported yet).
pub fn at_hook(
    repo: &Repo,
    held: &Held,
    branch: Option<&str>,
    open: &Open,
) -> Result<Vec<String>, RepoError> {
    let session = open.session.as_str();
    let running = held
        .state
        .open
        .iter()
        .filter(|o| o.session == session && o.key != open.key);
    let mut busy: Vec<&str> = Vec::new();
    for o in running {
        if o.worktree {
            return Ok(Vec::new());
        }
        busy.extend(o.files.iter().map(|f| f.path.as_str()));
    }
    let path = baseline_file(repo, branch, session);
    let Some(mut baseline) = std::fs::read(&path).ok().and_then(|t| Baseline::parse(&t)) else {
        return Ok(Vec::new());
    };
    let sides = sides_of(repo, held, session)?;
    let index = repo.read_index()?;
    let mut hasher = repo.hasher_with(&index)?;
    // Each path to look at, with its content now.
    let mut now: BTreeMap<String, Option<Stored>> = BTreeMap::new();
    if open.worktree {
        for f in &open.files {
            now.insert(f.path.clone(), f.entry);
        }
    }
    let looked: Vec<&String> = sides
        .keys()
        .chain(baseline.named.iter().map(|f| &f.path))
        .collect();
    for p in looked {
        if now.contains_key(p) {
            continue;
        }
        let entry = match open.worktree {
            // Not dirty now: it holds what the index holds.
            true => Stored::of(index.entry(p.as_bytes().as_bstr())),
            false => Stored::of(hasher.id_of(BString::from(p.as_str()).as_bstr())?),
        };
        now.insert(p.clone(), entry);
    }
    if open.worktree {
        // Dirty when the turn began and clean now.
        for f in &baseline.files {
            if !now.contains_key(&f.path) {
                let entry = Stored::of(index.entry(f.path.as_bytes().as_bstr()));
                now.insert(f.path.clone(), entry);
            }
        }
    }
    let mut out = Vec::new();
    for (p, entry) in now {
        if busy.contains(&p.as_str()) {
            continue;
        }
        // As a checkpoint left it, as a hook named it already, or (no checkpoint holding
        // it) as it was when the turn began.
        let named = baseline.named.iter().find(|f| f.path == p).map(|f| f.entry);
        let expected = match (sides.get(&p), baseline.files.iter().find(|f| f.path == p)) {
            (Some(s), _) => s.agent,
            (None, Some(f)) => f.entry,
            (None, None) => Stored::of(index.entry(p.as_bytes().as_bstr())),
        };
        if entry != expected && named != Some(entry) {
            baseline.named.retain(|f| f.path != p);
            baseline.named.push(FileState {
                path: p.clone(),
                entry,
            });
            out.push(p);
        }
    }
    if !out.is_empty() {
        write(&path, &baseline)?;
    }
    Ok(out)
}

/// The sides of `session`'s turn so far (its checkpoints that are tool calls).
fn sides_of(repo: &Repo, held: &Held, session: &str) -> Result<BTreeMap<String, Sides>, RepoError> {
    let mine: Vec<&super::state::Checkpoint> = (held.state.checkpoints.iter())
        .filter(|c| c.session == session && !c.left_out)
        .collect();
    super::sides::sides(repo, &mine)
}

/// What a hook says of edits no hook reported.
pub fn said(paths: &[String], when: &str) -> String {
    format!(
        "changed {when} with no hook reporting it (a tool call that fired no hook, such as Codex's apply_patch in openai/codex#26751, or your own edit), so not attributed to the agent and left uncommitted in the worktree: {}",
        paths.join(", ")
    )
}

/// The paths that changed during `session`'s turn with no checkpoint holding their content
/// now, given the turn's `sides`, except those a hook named already as they are; the
/// session's baseline is dropped (the turn ends). Empty when no baseline was taken (the
/// hooks were installed mid-turn).
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
    let Some(baseline) = Baseline::parse(&text) else {
        return Ok(Vec::new());
    };
    let before: BTreeMap<&str, Option<Stored>> = (baseline.files.iter())
        .map(|f| (f.path.as_str(), f.entry))
        .collect();
    let named: BTreeMap<&str, Option<Stored>> = (baseline.named.iter())
        .map(|f| (f.path.as_str(), f.entry))
        .collect();
    let mut out = Vec::new();
    for (path, now) in dirty_now(repo)? {
        let unchanged = match sides.get(&path) {
            Some(s) => s.agent == now,
            None => before.get(path.as_str()) == Some(&now),
        };
        if !unchanged && named.get(path.as_str()) != Some(&now) {
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
