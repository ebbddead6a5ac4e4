//! The agent's own `git stash` in a shell call. A stash takes content out of the worktree
//! without changing it, and a `stash pop` (or `apply`) brings it back; neither writes
//! anything new, so neither is a change of the agent's by itself:
//!
//! - A call that stashed: each path whose content before the call went into the new stash
//!   commit, leaving HEAD's version, is no change of the call's. Where that content was the
//!   agent's (its last checkpoint of the path wrote it), it stays recorded as the agent's in
//!   [`Stashed`]; the user's stashed content stays the user's.
//! - A call that brought back the stash that was on top before it: a path that now holds the
//!   stash's content is the agent's change only where [`Stashed`] says that content was the
//!   agent's; the user's content coming back is no change of the agent's.
//! - A stash of the agent's that is gone from the stash list without a call bringing it back
//!   (the user popped or dropped it) turns into a checkpoint left out of the turn's commit
//!   ([`reconcile`]): credited to the agent when someone commits its lines, looked at again at
//!   the end of the session's next turn.

use std::collections::BTreeMap;

use clada_git::{ByteSlice, ObjectId, Repo, RepoError};

use super::observed::{written, Seen};
use super::shell::GitSeen;
use super::state::{Change, Checkpoint, Held, Open, Stashed, Stored};

/// Sorts out what a shell call's stashing did (`seen`: its paths before and after) before its
/// checkpoint is made.
pub fn sort_out(
    repo: &Repo,
    held: &mut Held,
    open: &Open,
    git: &GitSeen,
    seen: &mut Seen,
) -> Result<(), RepoError> {
    if open.stash.is_empty() && git.stash.is_empty() {
        return Ok(());
    }
    if pushed(repo, &open.stash, &git.stash)? {
        return stashed(repo, held, open, &git.stash, seen);
    }
    if !open.stash.is_empty() {
        restored(repo, held, &open.stash, open.stash != git.stash, seen)?;
    }
    Ok(())
}

/// Whether the call pushed a new stash: the stash reflog's last move is from the stash
/// before the call to the one now.
fn pushed(repo: &Repo, before: &str, now: &str) -> Result<bool, RepoError> {
    if now.is_empty() || now == before {
        return Ok(false);
    }
    let log = repo.reflog("refs/stash")?;
    let Some(last) = log.last() else {
        return Ok(false);
    };
    let id = |s: &str| ObjectId::from_hex(s.as_bytes()).ok();
    let from = match before.is_empty() {
        true => last.old.is_null(),
        false => id(before) == Some(last.old),
    };
    Ok(from && id(now) == Some(last.new))
}

/// A path's content in stash commit `stash`: its worktree tree, else its untracked files'
/// (a `stash -u`).
fn in_stash(repo: &Repo, stash: ObjectId, path: &str) -> Result<Option<Stored>, RepoError> {
    let info = repo.commit_info(stash)?;
    if let Some(e) = Stored::of(repo.tree_entry(info.tree, path.as_bytes().as_bstr())?) {
        return Ok(Some(e));
    }
    match info.parents.get(2) {
        Some(u) => Ok(Stored::of(
            repo.tree_entry(repo.tree_of(*u)?, path.as_bytes().as_bstr())?,
        )),
        None => Ok(None),
    }
}

/// The agent's last version of each path in `session`'s checkpoints, and the user's before
/// its first change.
fn agents(held: &Held, session: &str) -> BTreeMap<String, (Option<Stored>, Option<Stored>)> {
    let mut out: BTreeMap<String, (Option<Stored>, Option<Stored>)> = BTreeMap::new();
    for cp in held
        .state
        .checkpoints
        .iter()
        .filter(|c| c.session == session)
    {
        for ch in &cp.changes {
            out.entry(ch.path.clone())
                .and_modify(|s| s.1 = ch.after)
                .or_insert((ch.before, ch.after));
        }
    }
    out
}

/// The call pushed `stash`: what went into it is no change of the call's; the agent's part
/// of it stays recorded as the agent's.
fn stashed(
    repo: &Repo,
    held: &mut Held,
    open: &Open,
    stash: &str,
    seen: &mut Seen,
) -> Result<(), RepoError> {
    let Ok(id) = ObjectId::from_hex(stash.as_bytes()) else {
        return Ok(());
    };
    let Some(&base) = repo.commit_info(id)?.parents.first() else {
        return Ok(());
    };
    let head_tree = repo.tree_of(base)?;
    let agents = agents(held, &open.session);
    let mut kept = Vec::new();
    let mut out = Vec::with_capacity(seen.len());
    for (path, before, now) in std::mem::take(seen) {
        let reset = now == Stored::of(repo.tree_entry(head_tree, path.as_bytes().as_bstr())?);
        let went = before != now && reset && in_stash(repo, id, &path)? == before;
        if !went {
            out.push((path, before, now));
            continue;
        }
        if let Some((user, agent)) = agents.get(&path) {
            if *agent == before && user != agent {
                kept.push(Change {
                    path: path.clone(),
                    before: *user,
                    after: before,
                    lines: written(repo, *user, before)?,
                });
            }
        }
    }
    *seen = out;
    if kept.is_empty() {
        return Ok(());
    }
    for c in &kept {
        held.keep(c.before);
        held.keep(c.after);
    }
    let like = held
        .state
        .checkpoints
        .iter()
        .rev()
        .find(|c| c.session == open.session);
    let checkpoint = Checkpoint {
        key: open.key.clone(),
        session: open.session.clone(),
        tool: "git stash (the agent's changes it holds)".into(),
        head: open.head.clone(),
        base: open.head.clone(),
        agent: like.and_then(|c| c.agent.clone()),
        model: like.and_then(|c| c.model.clone()),
        transcript: like.and_then(|c| c.transcript.clone()),
        changes: kept,
        left_out: true,
        moves: Vec::new(),
    };
    held.state.stashed.push(Stashed {
        stash: stash.to_string(),
        checkpoint,
    });
    Ok(())
}

/// The call may have brought back `stash` (the top one before it; `gone`: it left the
/// list): content coming back is the agent's only where the stash held the agent's.
fn restored(
    repo: &Repo,
    held: &mut Held,
    stash: &str,
    gone: bool,
    seen: &mut Seen,
) -> Result<(), RepoError> {
    let Ok(id) = ObjectId::from_hex(stash.as_bytes()) else {
        return Ok(());
    };
    let mut out = Vec::with_capacity(seen.len());
    for (path, before, now) in std::mem::take(seen) {
        if before == now || now.is_none() || in_stash(repo, id, &path)? != now {
            out.push((path, before, now));
            continue;
        }
        let agents = held.state.stashed.iter_mut().filter(|s| s.stash == stash);
        let mut mine = false;
        for s in agents {
            let before_len = s.checkpoint.changes.len();
            s.checkpoint
                .changes
                .retain(|c| !(c.path == path && c.after == now));
            mine |= s.checkpoint.changes.len() != before_len;
        }
        if mine {
            out.push((path, before, now));
        }
    }
    *seen = out;
    if gone {
        held.state
            .stashed
            .retain(|s| s.stash != stash || !s.checkpoint.changes.is_empty());
    }
    Ok(())
}

/// The agent's stashes that left the stash list with no call of its bringing them back:
/// their changes become checkpoints left out of the turn's commit, so whoever commits them
/// credits the agent.
pub fn reconcile(repo: &Repo, held: &mut Held) -> Result<(), RepoError> {
    if held.state.stashed.is_empty() {
        return Ok(());
    }
    let listed: Vec<String> = repo
        .reflog("refs/stash")?
        .iter()
        .map(|e| e.new.to_string())
        .collect();
    let top = super::shell::stash_ref(repo)?;
    let (gone, kept): (Vec<Stashed>, Vec<Stashed>) = std::mem::take(&mut held.state.stashed)
        .into_iter()
        .partition(|s| s.stash != top && !listed.contains(&s.stash));
    held.state.stashed = kept;
    for s in gone {
        if !s.checkpoint.changes.is_empty() {
            held.state.checkpoints.push(s.checkpoint);
        }
    }
    Ok(())
}
