//! A branch switch during the agent's turn (`git checkout -b fix`, `git switch main` in its
//! shell tool). The checkpoints are kept per branch, so the call's after finds its
//! before-state on the branch it started on, not on HEAD's. Then:
//!
//! - the commits HEAD's branch took meanwhile (the agent's own `git commit` after the switch)
//!   take their lines first (`committed`);
//! - the rest of the turn so far is committed on the branch it was recorded on, as an AI
//!   commit on that branch's tip with its authorship log, without touching the worktree or
//!   the index, which now belong to the new branch ([`commit_on`]);
//! - the switching call's own changes, and every later call, are recorded on the new branch
//!   (what the checkout wrote is nobody's: `shell`);
//! - stderr names both branches and the commit.
//!
//! That commit is made outside the apply transaction (the worktree is the new branch's): no
//! git `pre-commit` hook runs, and `git clada undo` on the old branch does not take it back
//! as one operation (`git reset --keep HEAD~1` there does).

use std::collections::BTreeMap;

use clada_engine::record::apply::ApplyOptions;
use clada_engine::record::message::{self, Item, Verb};
use clada_engine::record::provenance::{self, AiVersion};
use clada_git::{BString, ByteSlice, Expected, ObjectId, RefUpdate, Repo, RepoError};

use super::calls::{self, AfterMeta, AfterOutcome};
use super::payload::Call;
use super::sides::Sides;
use super::state::{self, Held, Stored, StoredKind};

/// The branch (a full ref name; `None`: detached) whose state holds the before-state of
/// `call`, when it is not `held`'s: the call switched branches.
pub fn from_branch(
    repo: &Repo,
    held: &Held,
    call: &Call,
) -> Result<Option<Option<String>>, RepoError> {
    let id = call.tool_use_id.as_deref();
    let here = held
        .state
        .open
        .iter()
        .any(|o| calls::pairs(o, id, &call.session))
        || (held.state.checkpoints.iter()).any(|c| id.is_some() && c.key.as_deref() == id);
    if here {
        return Ok(None);
    }
    let mine = held.branch();
    for (name, _) in repo.refs_with_prefix("refs/clada/agent/")? {
        let Some(short) = name.strip_prefix("refs/clada/agent/") else {
            continue;
        };
        let branch = (short != "HEAD").then(|| format!("refs/heads/{short}"));
        if branch == mine {
            continue;
        }
        // The agent lock is held: this read is not racing a writer.
        let (_, _, other) = state::read_state(repo, branch.as_deref())?;
        if other
            .open
            .iter()
            .any(|o| calls::pairs(o, id, &call.session))
        {
            return Ok(Some(branch));
        }
    }
    Ok(None)
}

/// The after of a call that switched from branch `from`: the turn so far is committed on
/// `from` (with the options `opts` gives for its state), the call's own changes are
/// recorded on HEAD's branch, whose state is returned.
#[allow(clippy::too_many_arguments)]
pub fn after<'r>(
    repo: &'r Repo,
    held: Held<'r>,
    from: Option<String>,
    call: &Call,
    agent: &str,
    head: &clada_git::Head,
    opts: &dyn Fn(&Held) -> ApplyOptions,
    notes: &mut Vec<String>,
) -> Result<(AfterOutcome, Held<'r>), RepoError> {
    let to = head.branch().map(str::to_string);
    let head_id = head.commit().map(|c| c.to_string()).unwrap_or_default();
    let mut old = held.save_then_read(from.as_deref())?;
    let id = call.tool_use_id.as_deref();
    let Some(i) = (old.state.open.iter()).position(|o| calls::pairs(o, id, &call.session)) else {
        let new = old.save_then_read(to.as_deref())?;
        return Ok((AfterOutcome::NoBefore, new));
    };
    let mut open = old.state.open.remove(i);
    // The options of the old branch's commit: its checkpoints name the model.
    let opts = &opts(&old);
    let (seen, git) = calls::seen_after(repo, &open, &head_id)?;
    super::committed::catch_up(repo, &mut old, !opts.provenance.off)?;
    let made = commit_on(repo, &mut old, from.as_deref(), &call.session, opts, notes)?;
    // The index travels with the checkout: what the agent staged is still its own there.
    let session = call.session.as_str();
    let (staged, rest) = std::mem::take(&mut old.state.staged)
        .into_iter()
        .partition(|s| s.session == session);
    old.state.staged = rest;
    super::unreported::forget(repo, from.as_deref(), session);
    let mut new = old.save_then_read(to.as_deref())?;
    for s in staged {
        new.keep(s.entry);
        new.state.staged.push(s);
    }
    // Commits on the new branch that the old HEAD is not under are not the call's.
    let descends = match (open.head.as_str(), head.commit()) {
        ("", _) | (_, None) => false,
        (old, Some(now)) => match ObjectId::from_hex(old.as_bytes()) {
            Ok(old) => super::shell::descends(repo, now, old)?,
            Err(_) => false,
        },
    };
    if !descends {
        open.head = head_id.clone();
    }
    let meta = AfterMeta::of(call, agent, &head_id);
    let outcome = calls::checkpoint_of(repo, &mut new, open, meta, seen, git)?;
    notes.push(said(from.as_deref(), to.as_deref(), made));
    Ok((outcome, new))
}

/// What stderr says of the switch.
fn said(from: Option<&str>, to: Option<&str>, made: Option<ObjectId>) -> String {
    let name = |b: Option<&str>| match b {
        Some(b) => format!("branch {}", b.strip_prefix("refs/heads/").unwrap_or(b)),
        None => "a detached HEAD".to_string(),
    };
    let (from, to) = (name(from), name(to));
    let done = match made {
        Some(c) => format!(
            "its turn so far is the AI commit {} on {from} (made there without running git's commit hooks, as the worktree is {to}'s now)",
            Repo::short(c)
        ),
        None => format!("nothing of its turn so far was left to commit on {from}"),
    };
    format!("the agent switched from {from} to {to} during this tool call: {done}; this call and the next ones are recorded on {to}")
}

/// Commits `session`'s checkpoints in `held` (the state of `branch`, which HEAD is not on)
/// on that branch's tip, and drops them (what `record::admit` leaves out stays recorded).
/// The commit, if one was made.
pub fn commit_on(
    repo: &Repo,
    held: &mut Held,
    branch: Option<&str>,
    session: &str,
    opts: &ApplyOptions,
    notes: &mut Vec<String>,
) -> Result<Option<ObjectId>, RepoError> {
    let mine: Vec<&state::Checkpoint> = (held.state.checkpoints.iter())
        .filter(|c| c.session == session)
        .collect();
    let Some(like) = mine.last().map(|c| (*c).clone()) else {
        return Ok(None);
    };
    let moves = super::shell::moves_of(&mine);
    let tip = match branch {
        Some(name) => repo.read_ref(name)?,
        None => None,
    };
    let tip_tree = tip.map(|t| repo.tree_of(t)).transpose()?;
    let split = super::admitted::split(repo, super::sides::sides(repo, &mine)?, tip_tree)?;
    notes.extend(split.notes);
    let drop_turn = |held: &mut Held, kept| -> Result<(), RepoError> {
        held.state.checkpoints.retain(|c| c.session != session);
        super::admitted::keep(repo, held, session, Some(&like), kept)
    };
    // A detached HEAD's turn has no branch to go on.
    let Some(name) = branch else {
        notes.push("the agent's changes made on a detached HEAD stay in the worktree, uncommitted and not attributed".into());
        drop_turn(held, Vec::new())?;
        return Ok(None);
    };
    let (Some(tip), Some(tip_tree)) = (tip, tip_tree) else {
        drop_turn(held, split.kept)?;
        return Ok(None);
    };
    let (edits, versions, items, skipped) = onto(repo, tip_tree, &split.sides, &moves)?;
    if !skipped.is_empty() {
        notes.push(format!(
            "not committed on {name}: the agent's change to {} does not merge onto that branch's tip; it stays in the worktree",
            skipped.join(", ")
        ));
    }
    if edits.is_empty() {
        drop_turn(held, split.kept)?;
        return Ok(None);
    }
    let tree = repo.edit_tree(tip_tree, &edits)?;
    let (user, committer) = repo.identity()?;
    let author = match &opts.author {
        Some((n, e)) => clada_git::Signature {
            name: n.clone(),
            email: e.clone(),
            ..user.clone()
        },
        None => user.clone(),
    };
    let short = name.strip_prefix("refs/heads/").unwrap_or(name);
    let tool = opts.provenance.tool.clone().unwrap_or_default();
    let msg = format!(
        "{}\n\nThe {tool} agent's turn on {short} until it switched branches (session {session}).\n\n{}: {}\n",
        message::subject(&items),
        clada_engine::record::trailer::VERSION,
        clada_engine::VERSION
    );
    let commit = repo.write_branch_commit(tree, &[tip], &msg, &author, &committer)?;
    let mut updates = vec![RefUpdate {
        name: name.to_string(),
        new: commit,
        expected: Expected::Value(tip),
        reflog: format!(
            "clada: the agent's turn before it switched branches: {}",
            message::subject(&items)
        ),
    }];
    if !opts.provenance.off {
        let human = format!("{} <{}>", user.name, user.email);
        let of = opts
            .provenance
            .session(None, repo.blob_id(commit.as_bytes()), &human);
        let log = provenance::commit_log(repo, commit, tip_tree, tree, &of, &versions)?;
        updates.extend(provenance::log_update(repo, commit, &log)?);
    }
    repo.update_refs(&updates)?;
    drop_turn(held, split.kept)?;
    Ok(Some(commit))
}

type Onto = (
    Vec<clada_git::TreeChange>,
    Vec<AiVersion>,
    Vec<Item>,
    Vec<String>,
);

/// The agent's changes (`sides`: the user's version and the agent's) put onto `tip_tree`:
/// the agent's version where the tip holds the user's, else a three-way merge; a path that
/// does not merge is skipped (named).
fn onto(
    repo: &Repo,
    tip_tree: ObjectId,
    sides: &BTreeMap<String, Sides>,
    moves: &[(String, String)],
) -> Result<Onto, RepoError> {
    let (mut edits, mut versions, mut items, mut skipped) = (vec![], vec![], vec![], vec![]);
    for (path, s) in sides {
        let at = BString::from(path.as_str());
        let tip = Stored::of(repo.tree_entry(tip_tree, at.as_bstr())?);
        if tip == s.agent {
            continue;
        }
        let entry = match tip == s.user {
            true => s.agent,
            false => match merged(repo, s.user, tip, s.agent)? {
                Some(m) => Some(m),
                None => {
                    skipped.push(path.clone());
                    continue;
                }
            },
        };
        let verb = match (tip, entry) {
            (None, _) => Verb::Create,
            (_, None) => Verb::Delete,
            _ => Verb::Edit,
        };
        items.push(Item::Path(verb, path.clone()));
        edits.push(clada_git::TreeChange {
            path: at.clone(),
            entry: entry.map(Stored::entry),
        });
        versions.push(AiVersion {
            path: at,
            ai: s.agent.map(Stored::entry),
            before_reply: None,
            moved_from: (moves.iter())
                .find(|(_, new)| new == path)
                .map(|(old, _)| BString::from(old.as_str())),
        });
    }
    Ok((edits, versions, items, skipped))
}

/// The agent's change (`user` → `agent`) merged onto `tip`; `None` when it does not merge
/// (a conflict, binary content, a side missing).
fn merged(
    repo: &Repo,
    user: Option<Stored>,
    tip: Option<Stored>,
    agent: Option<Stored>,
) -> Result<Option<Stored>, RepoError> {
    let text = |s: Option<Stored>| s.filter(|s| s.kind != StoredKind::Link);
    let (Some(u), Some(t), Some(a)) = (text(user), text(tip), text(agent)) else {
        return Ok(None);
    };
    let (u, tb, ab) = (
        repo.read_blob(u.id)?,
        repo.read_blob(t.id)?,
        repo.read_blob(a.id)?,
    );
    Ok(match clada_engine::record::merge::merge3(&u, &tb, &ab) {
        Some(m) => Some(Stored {
            kind: a.kind,
            id: repo.write_blob(&m)?,
        }),
        None => None,
    })
}
