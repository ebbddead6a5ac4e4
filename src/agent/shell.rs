//! A shell call's git state: the agent's own git commands (`git add`, `git mv`, `git stash`,
//! `git commit`, a branch switch) change the index, HEAD and `refs/stash` besides the
//! worktree. Before a shell call, what the index holds apart from HEAD (the staged paths, which
//! the status the before-state takes lists anyway) and `refs/stash` are recorded; after it,
//! the index entries the call changed are read from those, HEAD before and after, and the
//! index now: no second scan of the worktree.
//!
//! - Only content the agent's calls wrote is the agent's, whoever staged it: a path whose
//!   content the call did not change (the user's edit that an agent's `git add -A` staged)
//!   is in no checkpoint, and stays staged as it is.
//! - What the index held at a path before the agent first changed it there in a turn is
//!   remembered ([`StagedBefore`]); before the turn's commit ([`give_back`]) the index of the
//!   agent's paths goes back to it, so the commit takes the agent's version whoever staged
//!   it, and leaves the index as the user had it (their staged change kept on top).
//! - A path that left the index while another entered it with the same blob (`git mv a b`,
//!   or `mv` and `git add -A`) is a move of the agent's: the new path's content before the
//!   call is the old path's.
//! - HEAD moved to a descendant (the agent's own `git commit`): what the commits changed was
//!   the call's. HEAD moved elsewhere (a branch switch, a reset): what the checkout wrote is
//!   nobody's; only what differs from the new HEAD is compared.

use std::collections::BTreeMap;

use clada_git::{BString, ByteSlice, Index, ObjectId, Repo, RepoError, Status};

use super::state::{FileState, Held, Open, StagedBefore, Stored};

/// One index entry a shell call changed: what the index held there before it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct IndexChange {
    pub path: String,
    /// Whether the path was staged before the call (else the index held HEAD's version).
    pub staged: bool,
    /// What was staged there (`None`: removed from the index, or not staged).
    pub entry: Option<Stored>,
}

/// What a shell call did to git's state besides the worktree, read by its after.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct GitSeen {
    /// The index entries it changed.
    #[serde(default)]
    pub index: Vec<IndexChange>,
    /// The files it moved, `(old, new)`.
    #[serde(default)]
    pub moves: Vec<(String, String)>,
    /// `refs/stash` after it (empty: none).
    #[serde(default)]
    pub stash: String,
}

/// The worktree's files that differ from the index (changed, deleted) or are untracked, and
/// the index's entries where it differs from HEAD: one status of the worktree.
pub fn scan(repo: &Repo, index: &Index) -> Result<(Vec<BString>, Vec<FileState>), RepoError> {
    let head_tree = match repo.head()?.commit() {
        Some(c) => repo.commit_info(c)?.tree,
        None => repo.empty_tree(),
    };
    let status: Status = repo.status(head_tree, index, true)?;
    let staged = status
        .staged
        .iter()
        .map(|p| FileState {
            path: p.to_string(),
            entry: Stored::of(index.entry(p.as_bstr())),
        })
        .collect();
    let mut dirty: Vec<BString> = status
        .unstaged
        .into_iter()
        .map(|(p, _)| p)
        .chain(status.untracked)
        .collect();
    dirty.sort();
    dirty.dedup();
    Ok((dirty, staged))
}

/// `refs/stash` now (empty: none).
pub fn stash_ref(repo: &Repo) -> Result<String, RepoError> {
    Ok(repo
        .read_ref("refs/stash")?
        .map(|id| id.to_string())
        .unwrap_or_default())
}

/// The tree the index is compared with at paths that were not staged before the call:
/// HEAD's before it when HEAD moved only by commits made on top of it (their changes were
/// the call's), else HEAD's now (what a checkout or reset wrote is nobody's).
fn base_tree(repo: &Repo, before: &str, now: &str) -> Result<Option<ObjectId>, RepoError> {
    let id = |s: &str| ObjectId::from_hex(s.as_bytes()).ok();
    let (Some(old), new) = (id(before), id(now)) else {
        return Ok(match id(now) {
            Some(n) => Some(repo.tree_of(n)?),
            None => None,
        });
    };
    let Some(new) = new else {
        return Ok(None);
    };
    if old == new || !descends(repo, new, old)? {
        return Ok(Some(repo.tree_of(new)?));
    }
    Ok(Some(repo.tree_of(old)?))
}

/// Whether `old` is on `tip`'s first-parent chain (as far as `committed` looks).
pub fn descends(repo: &Repo, tip: ObjectId, old: ObjectId) -> Result<bool, RepoError> {
    let chain = repo.first_parent_chain(tip, super::observed::WALK_LIMIT + 1)?;
    Ok(chain.iter().any(|c| c.id == old))
}

/// Paths a call may have changed, each with its content before the call.
pub type Candidates = Vec<(BString, Option<Stored>)>;

/// The paths a shell call may have changed, with their content before it (from `open`, the
/// index before it and the base tree), and what it did to the index: the candidates of its
/// checkpoint besides the worktree's dirty files now (`dirty`).
pub fn candidates(
    repo: &Repo,
    open: &Open,
    head: &str,
    index: &Index,
    dirty: &[BString],
    staged_now: &[FileState],
) -> Result<(Candidates, GitSeen), RepoError> {
    let base = base_tree(repo, &open.head, head)?;
    let staged_before: BTreeMap<&str, Option<Stored>> = open
        .staged
        .iter()
        .map(|f| (f.path.as_str(), f.entry))
        .collect();
    let at_base = |p: &BString| -> Result<Option<Stored>, RepoError> {
        Ok(match base {
            Some(t) => Stored::of(repo.tree_entry(t, p.as_bstr())?),
            None => None,
        })
    };
    let index_before = |p: &BString| -> Result<Option<Stored>, RepoError> {
        match staged_before.get(p.to_str().unwrap_or_default()) {
            Some(e) => Ok(*e),
            None => at_base(p),
        }
    };
    // Where the index may have changed: what was staged, what is staged, and what the
    // commits made during the call changed.
    let mut maybe: Vec<BString> = open
        .staged
        .iter()
        .chain(staged_now)
        .map(|f| BString::from(f.path.as_str()))
        .collect();
    if let (Some(b), Ok(new)) = (base, ObjectId::from_hex(head.as_bytes())) {
        let now_tree = repo.tree_of(new)?;
        if b != now_tree {
            maybe.extend(repo.diff_trees(b, now_tree)?.into_iter().map(|d| d.path));
        }
    }
    maybe.sort();
    maybe.dedup();
    let mut git = GitSeen {
        stash: stash_ref(repo)?,
        ..GitSeen::default()
    };
    let mut out: Candidates = Vec::new();
    let dirty_before: BTreeMap<&str, Option<Stored>> = (open.files.iter())
        .map(|f| (f.path.as_str(), f.entry))
        .collect();
    let before_of = |p: &BString| -> Result<Option<Stored>, RepoError> {
        match dirty_before.get(p.to_str().unwrap_or_default()) {
            Some(e) => Ok(*e),
            None => index_before(p),
        }
    };
    for p in &maybe {
        let was = index_before(p)?;
        let now = Stored::of(index.entry(p.as_bstr()));
        if was == now {
            continue;
        }
        let key = p.to_string();
        git.index.push(IndexChange {
            staged: staged_before.contains_key(key.as_str()),
            entry: staged_before.get(key.as_str()).copied().flatten(),
            path: key,
        });
        out.push((p.clone(), before_of(p)?));
    }
    git.moves = moves(&git.index, index, index_before);
    let mut known: std::collections::BTreeSet<BString> =
        out.iter().map(|(p, _)| p.clone()).collect();
    for f in &open.files {
        let p = BString::from(f.path.as_str());
        if known.insert(p.clone()) {
            out.push((p, f.entry));
        }
    }
    for p in dirty {
        if known.insert(p.clone()) {
            out.push((p.clone(), index_before(p)?));
        }
    }
    Ok((out, git))
}

/// The moves among the index changes: a path that left the index while another entered it
/// with the blob it had.
fn moves(
    changes: &[IndexChange],
    index: &Index,
    index_before: impl Fn(&BString) -> Result<Option<Stored>, RepoError>,
) -> Vec<(String, String)> {
    let mut left: Vec<(String, Stored)> = Vec::new();
    let mut entered: Vec<(String, Stored)> = Vec::new();
    for c in changes {
        let p = BString::from(c.path.as_str());
        let was = index_before(&p).ok().flatten();
        let now = Stored::of(index.entry(p.as_bstr()));
        match (was, now) {
            (Some(w), None) => left.push((c.path.clone(), w)),
            (None, Some(n)) => entered.push((c.path.clone(), n)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    for (new, n) in entered {
        if let Some(i) = left.iter().position(|(_, w)| w.id == n.id) {
            let (old, _) = left.remove(i);
            out.push((old, new));
        }
    }
    out
}

/// Remembers, for `session`, the index before the agent's first change of each path in its
/// turn (a later change keeps the first).
pub fn remember(held: &mut Held, session: &str, git: &GitSeen) {
    for c in &git.index {
        let known = held
            .state
            .staged
            .iter()
            .any(|s| s.session == session && s.path == c.path);
        if known {
            continue;
        }
        held.keep(c.entry);
        held.state.staged.push(StagedBefore {
            session: session.to_string(),
            path: c.path.clone(),
            staged: c.staged,
            entry: c.entry,
        });
    }
}

/// Before `session`'s turn is committed: the index of each of its agent's paths goes back to
/// what the user had there (HEAD's version, or what they had staged), so the agent's own
/// staging (`git add`, `git mv`) is taken as part of its change; the session's remembered
/// index is then dropped. The user's paths an agent's `git add -A` staged are not the
/// agent's: they stay staged as they are.
pub fn give_back(repo: &Repo, held: &mut Held, session: &str) -> Result<(), RepoError> {
    let mine: Vec<StagedBefore> = held
        .state
        .staged
        .iter()
        .filter(|s| s.session == session)
        .cloned()
        .collect();
    if mine.is_empty() {
        return Ok(());
    }
    held.state.staged.retain(|s| s.session != session);
    let agents = |p: &str| {
        held.state
            .checkpoints
            .iter()
            .filter(|c| c.session == session)
            .any(|c| c.changes.iter().any(|ch| ch.path == p))
    };
    let head_tree = match repo.head()?.commit() {
        Some(c) => repo.tree_of(c)?,
        None => repo.empty_tree(),
    };
    let lock = repo.lock_index()?;
    let mut index = repo.read_index()?;
    let mut updates = Vec::new();
    for s in mine.iter().filter(|s| agents(&s.path)) {
        let path = BString::from(s.path.as_str());
        let users = match s.staged {
            true => s.entry.map(Stored::entry),
            false => repo
                .tree_entry(head_tree, path.as_bstr())?
                .filter(|e| e.kind != clada_git::EntryKind::Tree),
        };
        if index.entry(path.as_bstr()) != users {
            updates.push(clada_git::IndexUpdate {
                path,
                entry: users,
                worktree_matches: false,
            });
        }
    }
    if updates.is_empty() {
        return Ok(());
    }
    index.apply(repo, &updates)?;
    lock.commit(&index)
}

/// The moves of a turn's checkpoints, `(old, new)`, for its commit's log.
pub fn moves_of(checkpoints: &[&super::state::Checkpoint]) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for (old, new) in checkpoints.iter().flat_map(|c| &c.moves) {
        // A file moved twice counts from where it first was.
        match out.iter_mut().find(|(_, n)| n == old) {
            Some(m) => m.1 = new.clone(),
            None => out.push((old.clone(), new.clone())),
        }
    }
    out
}
