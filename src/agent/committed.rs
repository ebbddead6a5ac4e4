//! Whoever commits the agent's lines: when the agent (through its shell tool) or the user
//! commits lines the open checkpoints attribute to the agent, that commit gets its authorship
//! log (`refs/notes/ai`, written as `record::provenance` writes an AI commit's) naming the
//! agent, its session and model, with exactly the committed lines the checkpoints attribute
//! to it: the agent's written lines carried into the committed version, and only where the
//! commit changes them (a human's line in the same commit, or a line the human changed after
//! the agent wrote it, is not the agent's). The checkpoints the commit took leave the state,
//! so the end of the turn does not commit them again.
//!
//! Two triggers run [`catch_up`], both idempotent (a commit that has a note, anyone's, is
//! left alone): git-clada's `post-commit` hook ([`after_commit`]) and, without it, every
//! agent hook, which sees HEAD moved past the HEAD its checkpoints started from and annotates
//! the first-parent commits in between (at most [`WALK_LIMIT`]).

use std::collections::BTreeMap;
use std::path::Path;

use clada_engine::authorship::{carry, ids, Log, Metadata};
use clada_engine::record::provenance::{self, AI_NOTES_REF};
use clada_git::{CommitInfo, EntryKind, ObjectId, Repo, RepoError};

use super::observed::{head_id, WALK_LIMIT};
use super::sides::{sides, Sides};
use super::state::{self, Change, Checkpoint, Held, Stored};

/// For git's `post-commit` hook: annotates the commits that took the agent's lines and drops
/// their checkpoints. Nothing when no agent state is recorded on the branch.
pub fn after_commit(repo: &Repo, write_logs: bool) -> Result<Vec<ObjectId>, RepoError> {
    let head = repo.head()?;
    if repo.read_ref(&state::state_ref(head.branch()))?.is_none() {
        return Ok(Vec::new());
    }
    let mut held = Held::read(repo, head.branch())?;
    super::stash::reconcile(repo, &mut held)?;
    let done = catch_up(repo, &mut held, write_logs)?;
    held.save()?;
    Ok(done)
}

/// Annotates every commit on HEAD's first-parent chain made since the checkpoints' calls
/// started (oldest first) with the lines the checkpoints attribute to the agent, and drops
/// the checkpoints those commits took. Returns the commits that got a log.
pub fn catch_up(
    repo: &Repo,
    held: &mut Held,
    write_logs: bool,
) -> Result<Vec<ObjectId>, RepoError> {
    let head = head_id(repo)?;
    let cps = &held.state.checkpoints;
    if head.is_empty() || cps.iter().all(|c| c.base() == head || c.base().is_empty()) {
        return Ok(Vec::new());
    }
    let Ok(tip) = ObjectId::from_hex(head.as_bytes()) else {
        return Ok(Vec::new());
    };
    let chain = repo.first_parent_chain(tip, WALK_LIMIT + 1)?;
    let at = |id: &str| {
        let id = ObjectId::from_hex(id.as_bytes()).ok()?;
        chain.iter().position(|c| c.id == id)
    };
    let Some(oldest) = cps.iter().filter_map(|c| at(c.base())).max() else {
        return Ok(Vec::new());
    };
    let mut written = Vec::new();
    for pos in (0..oldest).rev() {
        let commit = &chain[pos];
        if commit.parents.len() != 1 || repo.note_at(AI_NOTES_REF, commit.id)?.is_some() {
            continue;
        }
        // The checkpoints of calls that started at this commit's parent or before.
        let mine: Vec<usize> = (0..held.state.checkpoints.len())
            .filter(|&i| at(held.state.checkpoints[i].base()).is_some_and(|b| b > pos))
            .collect();
        if mine.is_empty() {
            continue;
        }
        if annotate(repo, held, &mine, commit, write_logs)? {
            written.push(commit.id);
        }
    }
    prune(held);
    Ok(written)
}

/// The log of `commit` from the checkpoints `mine` (indexes into the state), written unless
/// logs are off; then the paths it took leave those checkpoints. Whether a log was written.
fn annotate(
    repo: &Repo,
    held: &mut Held,
    mine: &[usize],
    commit: &CommitInfo,
    write_logs: bool,
) -> Result<bool, RepoError> {
    let parent_tree = repo.tree_of(commit.parents[0])?;
    let diffs = repo.diff_trees(parent_tree, commit.tree)?;
    let mut sessions: Vec<String> = Vec::new();
    for &i in mine {
        let s = &held.state.checkpoints[i].session;
        if !sessions.contains(s) {
            sessions.push(s.clone());
        }
    }
    let mut log = Log {
        files: Vec::new(),
        meta: Metadata::new(&commit.id.to_string()),
    };
    let human = format!("{} <{}>", commit.committer.name, commit.committer.email);
    let mut taken: Vec<(String, BTreeMap<String, Sides>)> = Vec::new();
    for session in sessions {
        let cps: Vec<&Checkpoint> = mine
            .iter()
            .map(|&i| &held.state.checkpoints[i])
            .filter(|c| c.session == session)
            .collect();
        let by_path = sides(repo, &cps)?;
        let of = session_of(repo, &cps, &session, commit.id, &human);
        let key = format!("{}::{}", of.id, ids::trace_id(commit.id.as_bytes()));
        let mut any = false;
        for d in &diffs {
            let Ok(path) = std::str::from_utf8(&d.path) else {
                continue; // a log is UTF-8 text; such a path stays unattributed
            };
            let Some(side) = by_path.get(path) else {
                continue;
            };
            let (Some(new), Some(agent)) = (text(repo, d.new)?, stored_text(repo, side.agent)?)
            else {
                continue;
            };
            let user = stored_text(repo, side.user)?;
            let agent_wrote = carry::written_lines(user.as_deref(), &agent);
            let carried = carry::carry_set(&agent_wrote, &carry::carry(&agent, &new));
            let old = text(repo, d.old)?;
            let lines = carried.intersect(&carry::written_lines(old.as_deref(), &new));
            if !lines.is_empty() {
                log.attest(path, &key, &lines);
                any = true;
            }
        }
        if any {
            log.meta.sessions.insert(of.id, of.record);
        }
        taken.push((session, by_path));
    }
    let wrote = write_logs && !log.is_empty();
    if wrote {
        if let Some(update) = provenance::log_update(repo, commit.id, &log)? {
            repo.update_refs(&[update])?;
        }
    }
    for (session, by_path) in taken {
        take(repo, held, mine, &session, &by_path, commit)?;
    }
    Ok(wrote)
}

/// The session record of the agent behind `cps`: its tool, the session id as conversation,
/// the model as `model::of_session` finds it (the configured `provenance.model` last), else
/// unknown.
fn session_of(
    repo: &Repo,
    cps: &[&Checkpoint],
    session: &str,
    commit: ObjectId,
    human: &str,
) -> provenance::SessionOf {
    let tool = cps.iter().rev().find_map(|c| c.agent.clone());
    let recorded = cps.iter().rev().find_map(|c| c.model.clone());
    let transcript = cps.iter().rev().find_map(|c| c.transcript.as_deref());
    let model =
        super::model::of_session(repo, session, recorded, transcript.map(Path::new), || {
            super::model::configured(repo)
        });
    let agent = provenance::Agent {
        tool: Some(tool.unwrap_or_else(|| "unknown".into())),
        model,
        conversation: Some(session.to_string()),
        ..Default::default()
    };
    agent.session(None, repo.blob_id(commit.as_bytes()), human)
}

/// Drops from the checkpoints `mine` of `session` the paths `commit` changed. Where the
/// commit holds only part of the agent's version (some hunks staged) and the worktree still
/// holds the agent's version, the rest stays as one change from the committed version, so
/// the end of the turn commits it.
fn take(
    repo: &Repo,
    held: &mut Held,
    mine: &[usize],
    session: &str,
    by_path: &BTreeMap<String, Sides>,
    commit: &CommitInfo,
) -> Result<(), RepoError> {
    let index = repo.read_index()?;
    let mut hasher = repo.hasher_with(&index)?;
    let mut rest: Vec<Change> = Vec::new();
    for (path, side) in by_path {
        let committed = Stored::of(repo.tree_entry(commit.tree, path.as_bytes().into())?);
        let parent =
            Stored::of(repo.tree_entry(repo.tree_of(commit.parents[0])?, path.as_bytes().into())?);
        if committed == parent {
            continue; // the commit did not take this path
        }
        let now = Stored::of(hasher.hash(path.as_bytes().into())?.map(|(e, _)| e));
        if committed != side.agent && now == side.agent {
            let (before, after) = (
                stored_text(repo, committed)?,
                stored_text(repo, side.agent)?,
            );
            let lines = match after {
                Some(a) => carry::written_lines(before.as_deref(), &a).to_string(),
                None => String::new(),
            };
            rest.push(Change {
                path: path.clone(),
                before: committed,
                after: side.agent,
                lines,
            });
        }
        for &i in mine {
            let cp = &mut held.state.checkpoints[i];
            if cp.session == session {
                cp.changes.retain(|c| c.path != *path);
            }
        }
    }
    if let Some(&last) = mine
        .iter()
        .rev()
        .find(|&&i| held.state.checkpoints[i].session == session)
    {
        for c in &rest {
            held.keep(c.before);
            held.keep(c.after);
        }
        held.state.checkpoints[last].changes.extend(rest);
    }
    Ok(())
}

/// Drops the checkpoints left with no change.
pub fn prune(held: &mut Held) {
    held.state.checkpoints.retain(|c| !c.changes.is_empty());
}

fn text(repo: &Repo, entry: Option<clada_git::Entry>) -> Result<Option<Vec<u8>>, RepoError> {
    match entry {
        Some(e) if matches!(e.kind, EntryKind::Blob | EntryKind::Executable) => {
            Ok(Some(repo.read_blob(e.id)?))
        }
        _ => Ok(None),
    }
}

fn stored_text(repo: &Repo, s: Option<Stored>) -> Result<Option<Vec<u8>>, RepoError> {
    text(repo, s.map(Stored::entry))
}
