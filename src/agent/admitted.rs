//! What of an agent's turn enters its AI commit, by `record::admit`'s rule (the one the
//! apply and a hook's index follow too): the turn's paths, once the user's edits made after
//! the agent's last change of each are carried into the user's side, without an ignored
//! file, without the user's untracked file, and without the agent's hunks that touch the
//! user's edit. What is left out stays in the worktree as it is; Stop says what and why.
//! The user's untracked file and the hunks left out stay recorded as the agent's (a
//! checkpoint marked `left_out`), so whoever commits them credits the agent; the untracked
//! paths go into the turn's record, so undo takes them back as an apply's undo does.

use std::collections::BTreeMap;

use clada_engine::record::admit::{self, LeftOut};
use clada_engine::record::journal::{Before, JournalPath};
use clada_git::{BString, ByteSlice, ObjectId, Repo, RepoError};

use super::observed::written;
use super::sides::Sides;
use super::state::{Change, Checkpoint, Held, Stored, StoredKind};

/// A turn's paths sorted by what enters its commit.
#[derive(Debug, Default)]
pub struct Split {
    /// The paths the commit takes: the user's side (with the user's later edits, and the
    /// agent's hunks touching them) and the agent's.
    pub sides: BTreeMap<String, Sides>,
    /// The agent's changes left out that stay recorded as its own.
    pub kept: Vec<Change>,
    /// The untracked paths left out: their state before the agent's changes and now, for
    /// the turn's record.
    pub untracked: Vec<(JournalPath, JournalPath)>,
    /// What the end of the turn says about them.
    pub notes: Vec<String>,
}

/// Sorts the turn's `sides` (from its checkpoints) by what enters its commit. `tracked`:
/// the tree of a commit the turn goes on other than HEAD's (the branch the agent switched
/// away from), whose paths count as tracked too: the index now is the new branch's, and a
/// file the agent's `git mv` took out of it was tracked there, not the user's untracked one.
pub fn split(
    repo: &Repo,
    sides: BTreeMap<String, Sides>,
    tracked: Option<ObjectId>,
) -> Result<Split, RepoError> {
    let index = repo.read_index()?;
    let mut hasher = repo.hasher_with(&index)?;
    let paths: Vec<(BString, bool)> = sides
        .iter()
        .map(|(p, s)| (BString::from(p.as_str()), !s.created))
        .collect();
    let mut out_of = admit::agent_paths(repo, &index, &paths)?;
    if let Some(tree) = tracked {
        let mut in_tree = Vec::new();
        for path in out_of.keys() {
            if repo.tree_entry(tree, path.as_bstr())?.is_some() {
                in_tree.push(path.clone());
            }
        }
        for path in in_tree {
            out_of.remove(&path);
        }
    }
    let mut split = Split::default();
    let mut ignored = Vec::new();
    let mut users = Vec::new();
    let mut touching = Vec::new();
    for (path, mut s) in sides {
        let now = Stored::of(hasher.hash(path.as_bytes().as_bstr())?.map(|(e, _)| e));
        let (user, agent) = (s.user, s.agent);
        let mut left = Vec::new();
        let mut touched = None;
        if now != s.agent {
            touched = carry_later_edit(repo, &path, &mut s, now, &mut left)?;
        }
        if s.user == s.agent && left.is_empty() {
            // Nothing of the agent's is left in the file (taken back, by undo or by hand).
            continue;
        }
        if let Some(why) = out_of.get(path.as_bytes().as_bstr()) {
            // Undo puts back the user's side: their own later edits kept.
            split
                .untracked
                .push((state(&path, s.user), state(&path, now)));
            if *why == LeftOut::UsersUntracked && agent.is_some() {
                split.kept.push(change(repo, &path, user, agent)?);
            }
            match why {
                LeftOut::Ignored => ignored.push(path),
                LeftOut::UsersUntracked => users.push(path),
            }
            continue;
        }
        split.kept.extend(left);
        touching.extend(touched);
        if s.user != s.agent {
            split.sides.insert(path, s);
        }
    }
    split.notes = notes(&ignored, &users, &touching);
    Ok(split)
}

/// Carries into `s.user` the edit made since the agent's last change of `path` (`s.agent`
/// → `now`), as an edit between two of its calls is, leaving the agent's hunks that touch
/// it on the user's side; those are kept as the agent's in `kept` and named (returned).
/// Where the edit cannot be told from the agent's (binary content, a side missing), the
/// path is left to the user whole, unattributed, as before.
fn carry_later_edit(
    repo: &Repo,
    path: &str,
    s: &mut Sides,
    now: Option<Stored>,
    kept: &mut Vec<Change>,
) -> Result<Option<String>, RepoError> {
    let text = |x: Option<Stored>| x.filter(|x| x.kind != StoredKind::Link);
    let (Some(a), Some(n)) = (text(s.agent), text(now)) else {
        s.user = now;
        s.agent = now;
        return Ok(None);
    };
    let created = s.user.is_none();
    let user = match text(s.user) {
        Some(u) => repo.read_blob(u.id)?,
        None if created => Vec::new(),
        None => {
            s.user = now;
            s.agent = now;
            return Ok(None);
        }
    };
    let Some(carried) = admit::users_edit(&repo.read_blob(a.id)?, &repo.read_blob(n.id)?, &user)
    else {
        s.user = now;
        s.agent = now;
        return Ok(None);
    };
    // A mode the user changed since is theirs; one the agent changed is taken back.
    let kind = match (n.kind != a.kind, s.user) {
        (false, Some(u)) => u.kind,
        _ => n.kind,
    };
    s.user = match carried.user.is_empty() && created {
        true => None,
        false => Some(Stored {
            kind,
            id: repo.write_blob(&carried.user)?,
        }),
    };
    if s.user == Some(n) {
        // Nothing of the agent's is left to commit here.
        s.agent = now;
    }
    let Some(left) = carried.left else {
        return Ok(None);
    };
    // The agent's version without the hunks left out: against its version, exactly those.
    let without = match left.without.is_empty() && created {
        true => None,
        false => Some(Stored {
            kind: a.kind,
            id: repo.write_blob(&left.without)?,
        }),
    };
    kept.push(change(repo, path, without, Some(a))?);
    Ok(Some(admit::describe_lines(path, &left.lines)))
}

fn change(
    repo: &Repo,
    path: &str,
    before: Option<Stored>,
    after: Option<Stored>,
) -> Result<Change, RepoError> {
    Ok(Change {
        path: path.to_string(),
        before,
        after,
        lines: written(repo, before, after)?,
    })
}

/// A path's state as an apply's record keeps an untracked path's.
fn state(path: &str, s: Option<Stored>) -> JournalPath {
    let before = match s {
        None => Before::Absent,
        Some(Stored {
            kind: StoredKind::Link,
            id,
        }) => Before::Link { id: id.to_string() },
        Some(Stored { kind, id }) => Before::Blob {
            id: id.to_string(),
            executable: kind == StoredKind::Executable,
        },
    };
    JournalPath {
        path: path.to_string(),
        before,
    }
}

/// What the end of the turn says of what its commit left out.
fn notes(ignored: &[String], users: &[String], touching: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    if !ignored.is_empty() {
        out.push(format!(
            "written by the agent, but not committed: ignored by git (`git add -f` it yourself if it belongs in the repository; `git clada undo` takes it back with the turn): {}",
            ignored.join(", ")
        ));
    }
    if !users.is_empty() {
        out.push(format!(
            "not committed, your untracked file (git had no copy of it before the agent's change): {} — your own lines in it never enter an AI commit; the agent's lines stay recorded and are credited to it when you commit the file",
            users.join(", ")
        ));
    }
    if !touching.is_empty() {
        out.push(format!(
            "not committed: the agent's change at {} touches your edit made after it (no unchanged line between), so it stays in the worktree, uncommitted; it stays recorded as the agent's and is credited to it when you commit it, and the agent's other changes are in the commit",
            touching.join("; ")
        ));
    }
    out
}

/// Keeps the changes `kept` of `session` as the agent's after its turn's commit, in a
/// checkpoint that starts at HEAD now (so a later commit of them is seen as made since).
pub fn keep(
    repo: &Repo,
    held: &mut Held,
    session: &str,
    like: Option<&Checkpoint>,
    kept: Vec<Change>,
) -> Result<(), RepoError> {
    if kept.is_empty() {
        return Ok(());
    }
    for c in &kept {
        held.keep(c.before);
        held.keep(c.after);
    }
    let head = super::observed::head_id(repo)?;
    held.state.checkpoints.push(Checkpoint {
        key: None,
        session: session.to_string(),
        tool: "left out of the turn's commit".into(),
        head: head.clone(),
        base: head,
        agent: like.and_then(|c| c.agent.clone()),
        model: like.and_then(|c| c.model.clone()),
        transcript: like.and_then(|c| c.transcript.clone()),
        changes: kept,
        left_out: true,
        moves: Vec::new(),
    });
    Ok(())
}
