//! One tool call's two halves: the state of what the tool may touch before it runs, and,
//! after it, the checkpoint of exactly what it changed (paths whose content differs from that
//! state). What changed between two calls is no call's: a human's edit between agent calls
//! is in no checkpoint and stays the human's.

use std::path::{Path, PathBuf};

use clada_git::{BString, ByteSlice, ObjectId, Repo, RepoError};

use super::observed::{head_id, written, Seen};
use super::payload::{Call, Touches};
use super::shell::GitSeen;
use super::state::{Change, Checkpoint, FileState, Held, Open, Stored};

/// Records the state before `call`.
pub fn before(repo: &Repo, held: &mut Held, call: &Call, cwd: &Path) -> Result<(), RepoError> {
    // The same call reported twice (Cursor running Claude Code's hooks too, or a retried
    // hook): the first before-state is the one taken before the tool ran; a later copy may
    // come after it.
    if known(held, call.tool_use_id.as_deref()) {
        return Ok(());
    }
    if let Some(open) = before_state(repo, call, cwd)? {
        store_before(held, open);
    }
    Ok(())
}

/// Whether the call with this id has a before-state or a checkpoint already.
fn known(held: &Held, id: Option<&str>) -> bool {
    let Some(id) = id else { return false };
    held.state.open.iter().any(|o| o.key.as_deref() == Some(id))
        || held
            .state
            .checkpoints
            .iter()
            .any(|c| c.key.as_deref() == Some(id))
}

/// The state before `call` of what it may touch (its blobs written), without the state it
/// goes into: what a hook that cannot wait for the lock sets aside (`spill`).
pub fn before_state(repo: &Repo, call: &Call, cwd: &Path) -> Result<Option<Open>, RepoError> {
    let index = repo.read_index()?;
    let mut hasher = repo.hasher_with(&index)?;
    let (mut staged, mut stash) = (Vec::new(), String::new());
    let (worktree, paths) = match &call.touches {
        Touches::Nothing => return Ok(None),
        Touches::Files(files) => (false, relative_paths(repo, files, cwd)),
        Touches::Worktree => {
            // The index and the stash too: the agent's own git commands change them.
            let (dirty, in_index) = super::shell::scan(repo, &index)?;
            (staged, stash) = (in_index, super::shell::stash_ref(repo)?);
            (true, dirty)
        }
    };
    let mut files = Vec::with_capacity(paths.len());
    for rel in paths {
        let entry = Stored::of(hasher.hash(rel.as_bstr())?.map(|(e, _)| e));
        files.push(FileState {
            path: rel.to_string(),
            entry,
        });
    }
    Ok(Some(Open {
        key: call.tool_use_id.clone(),
        session: call.session.clone(),
        tool: call.tool.clone(),
        worktree,
        files,
        head: head_id(repo)?,
        staged,
        stash,
    }))
}

/// Adds a before-state to the state (unless its call is known already).
pub fn store_before(held: &mut Held, open: Open) {
    if known(held, open.key.as_deref()) {
        return;
    }
    for f in open.files.iter().chain(&open.staged) {
        held.keep(f.entry);
    }
    held.state.open.push(open);
}

/// What `after` did with a call.
#[derive(Debug, PartialEq, Eq)]
pub enum AfterOutcome {
    /// A checkpoint with these paths was recorded.
    Recorded(Vec<String>),
    /// The tool changed nothing.
    Unchanged,
    /// The tool touches nothing git-clada records.
    NotAnEdit,
    /// No before-state was recorded for this call (its PreToolUse hook did not run): what it
    /// changed cannot be told from what others changed, so nothing is attributed.
    NoBefore,
    /// The call was recorded already (the same edit reported twice).
    Duplicate,
    /// Cursor's `afterFileEdit` whose edits, undone on the file, do not give back a file
    /// they reproduce exactly: the earlier state is unknown, so nothing is attributed.
    NotRebuilt(String),
    /// The agent lock was held past the hook's budget: what the call changed is set aside
    /// for the next hook to fold in (`spill`).
    SetAside,
}

/// Records the checkpoint of `call`, paired with its before-state: by `tool_use_id`, else the
/// session's oldest open call (agents without ids, in arrival order).
pub fn after(
    repo: &Repo,
    held: &mut Held,
    call: &Call,
    agent: &str,
    head: &str,
) -> Result<AfterOutcome, RepoError> {
    if call.touches == Touches::Nothing {
        return Ok(AfterOutcome::NotAnEdit);
    }
    let found = held
        .state
        .open
        .iter()
        .position(|o| pairs(o, call.tool_use_id.as_deref(), &call.session));
    let Some(i) = found else {
        let seen = call.tool_use_id.as_ref().is_some_and(|id| {
            held.state
                .checkpoints
                .iter()
                .any(|c| c.key.as_ref() == Some(id))
        });
        return Ok(match seen {
            true => AfterOutcome::Duplicate,
            false => AfterOutcome::NoBefore,
        });
    };
    let open = held.state.open.remove(i);
    let (seen, git) = seen_after(repo, &open, head)?;
    let meta = AfterMeta::of(call, agent, head);
    checkpoint_of(repo, held, open, meta, seen, git)
}

/// Whether `open` is the before-state of the call with this id (by id; without one, the
/// session's oldest open call, in arrival order).
pub fn pairs(open: &Open, id: Option<&str>, session: &str) -> bool {
    match id {
        Some(id) => open.key.as_deref() == Some(id),
        None => open.key.is_none() && open.session == session,
    }
}

/// What a checkpoint says of its call besides the changes.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct AfterMeta {
    pub head: String,
    pub agent: String,
    pub model: Option<String>,
    pub transcript: Option<String>,
}

impl AfterMeta {
    pub fn of(call: &Call, agent: &str, head: &str) -> AfterMeta {
        AfterMeta {
            head: head.to_string(),
            agent: agent.to_string(),
            model: call.model.clone(),
            transcript: call
                .transcript
                .as_ref()
                .map(|t| t.to_string_lossy().into_owned()),
        }
    }
}

/// The paths `open`'s call may have changed, with their content before it (from `open`) and
/// now (hashed from the worktree, blobs written); for a shell call, also what it did to the
/// index, HEAD and the stash (`shell`).
pub fn seen_after(repo: &Repo, open: &Open, head: &str) -> Result<(Seen, GitSeen), RepoError> {
    let index = repo.read_index()?;
    let mut hasher = repo.hasher_with(&index)?;
    let (candidates, git) = match open.worktree {
        true => {
            let (dirty, staged) = super::shell::scan(repo, &index)?;
            super::shell::candidates(repo, open, head, &index, &dirty, &staged)?
        }
        false => (file_candidates(repo, open, head)?, GitSeen::default()),
    };
    let mut seen = Vec::with_capacity(candidates.len());
    for (rel, before) in candidates {
        let now = Stored::of(hasher.hash(rel.as_bstr())?.map(|(e, _)| e));
        seen.push((rel.to_string(), before, now));
    }
    Ok((seen, git))
}

/// The paths a file tool's call may have changed: its files, and those of a commit made
/// meanwhile (whose content before the call was the old HEAD's).
fn file_candidates(
    repo: &Repo,
    open: &Open,
    head: &str,
) -> Result<super::shell::Candidates, RepoError> {
    let mut candidates: super::shell::Candidates = open
        .files
        .iter()
        .map(|f| (BString::from(f.path.as_str()), f.entry))
        .collect();
    if !open.head.is_empty() && open.head != head {
        if let (Ok(old), Ok(new)) = (
            ObjectId::from_hex(open.head.as_bytes()),
            ObjectId::from_hex(head.as_bytes()),
        ) {
            for d in repo.diff_trees(repo.tree_of(old)?, repo.tree_of(new)?)? {
                if !candidates.iter().any(|(c, _)| *c == d.path) {
                    candidates.push((d.path, Stored::of(d.old)));
                }
            }
        }
    }
    Ok(candidates)
}

/// The checkpoint of `open`'s call from what was `seen` after it (and, for a shell call, what
/// it did to git's state: `git`).
pub fn checkpoint_of(
    repo: &Repo,
    held: &mut Held,
    open: Open,
    meta: AfterMeta,
    mut seen: Seen,
    git: GitSeen,
) -> Result<AfterOutcome, RepoError> {
    if open.worktree {
        super::stash::sort_out(repo, held, &open, &git, &mut seen)?;
        super::shell::remember(held, &open.session, &git);
    }
    let before_of = |path: &str| seen.iter().find(|(p, ..)| p == path).and_then(|s| s.1);
    let mut changes = Vec::new();
    for (path, before, now) in &seen {
        if now == before {
            continue;
        }
        held.keep(*now);
        held.keep(*before);
        // A moved file's lines are counted from the file it was.
        let from = match git.moves.iter().find(|(_, new)| new == path) {
            Some((old, _)) => before_of(old),
            None => *before,
        };
        changes.push(Change {
            path: path.clone(),
            before: *before,
            after: *now,
            lines: written(repo, from, *now)?,
        });
    }
    let moves = git
        .moves
        .into_iter()
        .filter(|(old, new)| {
            [old, new]
                .iter()
                .all(|p| changes.iter().any(|c| c.path == **p))
        })
        .collect();
    push(
        held,
        Checkpoint {
            key: open.key,
            session: open.session,
            tool: open.tool,
            head: meta.head,
            base: open.head,
            agent: Some(meta.agent),
            model: meta.model,
            transcript: meta.transcript,
            changes,
            left_out: false,
            moves,
        },
    )
}

/// Adds `cp` to the turn, unless it changed nothing or is a checkpoint of the session
/// already (the same edit reported by two hooks: Cursor's `postToolUse` and `afterFileEdit`,
/// or Cursor's own and Claude-shaped hooks with different ids).
pub(super) fn push(held: &mut Held, mut cp: Checkpoint) -> Result<AfterOutcome, RepoError> {
    if cp.changes.is_empty() {
        return Ok(AfterOutcome::Unchanged);
    }
    cp.changes.sort_by(|a, b| a.path.cmp(&b.path));
    let same = |a: &Checkpoint| {
        a.session == cp.session
            && a.changes.len() == cp.changes.len()
            && a.changes
                .iter()
                .zip(&cp.changes)
                .all(|(x, y)| x.path == y.path && x.before == y.before && x.after == y.after)
    };
    if held.state.checkpoints.iter().any(same) {
        return Ok(AfterOutcome::Duplicate);
    }
    let paths = cp.changes.iter().map(|c| c.path.clone()).collect();
    held.state.checkpoints.push(cp);
    Ok(AfterOutcome::Recorded(paths))
}

/// The repository-relative form of each path (absolute, or relative to `cwd`); paths outside
/// the worktree or inside a git directory are left out (git-clada records nothing there).
pub fn relative_paths(repo: &Repo, files: &[PathBuf], cwd: &Path) -> Vec<BString> {
    let root = canonical(repo.workdir());
    let mut out = Vec::new();
    for f in files {
        let abs = match f.is_absolute() {
            true => f.clone(),
            false => cwd.join(f),
        };
        let abs = canonical(&abs);
        let Ok(rel) = abs.strip_prefix(&root) else {
            continue;
        };
        let parts: Vec<String> = rel
            .components()
            .filter_map(|c| match c {
                std::path::Component::Normal(n) => Some(n.to_string_lossy().into_owned()),
                _ => None,
            })
            .collect();
        if parts.is_empty() || parts.iter().any(|p| p == ".git") {
            continue;
        }
        let rel = BString::from(parts.join("/"));
        if !out.contains(&rel) {
            out.push(rel);
        }
    }
    out
}

/// `path` with its existing part resolved (a file about to be created does not exist yet;
/// its folder may not either): links and `..` resolved as the agent's write will.
fn canonical(path: &Path) -> PathBuf {
    let mut rest = Vec::new();
    let mut cur = path.to_path_buf();
    loop {
        if let Ok(c) = std::fs::canonicalize(&cur) {
            let mut out = c;
            for r in rest.iter().rev() {
                out.push(r);
            }
            return out;
        }
        match (cur.file_name().map(|n| n.to_os_string()), cur.parent()) {
            (Some(name), Some(parent)) => {
                rest.push(name);
                cur = parent.to_path_buf();
            }
            _ => return path.to_path_buf(),
        }
    }
}
