//! The redo stack: what `undo` took back, newest first, so `redo` puts it back in order, as
//! many times as `undo` ran (jj's operation log in miniature).
//!
//! `refs/clada/redo/<branch>` names the top entry. An entry is a commit (so everything it
//! names stays reachable): its tree holds `entry.json` (what was taken back and the state the
//! undo left) and, for an uncommitted apply, the apply's record under `record`; its parents are
//! the commit taken back (an AI commit, a squash's tip, a step position) and the entry below.
//!
//! The stack is valid only while nothing else happened: every entry records a fingerprint of
//! the state its undo left (where HEAD is, the pending apply record, the step-back state). An
//! undo that starts from another state (a new apply, a commit, a squash or a step since) starts
//! a new stack; a redo whose top does not match refuses and says what changed. A ref written
//! by an older git-clada (pointing straight at an AI or squash commit) reads as a one-entry
//! stack without a fingerprint.

use serde::{Deserialize, Serialize};

use super::common::HistoryError;
use crate::record::restore::{RefChange, RestorePlan};
use clada_git::{ByteSlice, Entry, EntryKind, ObjectId, Repo, TreeChange};

/// The ref naming the top of `branch`'s redo stack.
pub fn redo_ref(branch: &str) -> String {
    format!(
        "refs/clada/redo/{}",
        branch.strip_prefix("refs/heads/").unwrap_or(branch)
    )
}

/// What an undo took back, which redo puts back.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "kebab-case")]
pub enum Op {
    /// An AI commit.
    Apply { commit: String },
    /// The tip a squash made.
    Squash { commit: String },
    /// An apply that committed nothing: its record tree.
    UncommittedApply { record: String, source: String },
    /// A step-back or step-forward: the position it had moved to (the tip itself for a step
    /// that returned to it).
    Step { to: String, forward: bool },
    /// An agent's tool call nobody committed yet: its checkpoint (JSON; the entry's tree keeps
    /// its blobs) and the agent state the undo left (`refs/clada/agent/<branch>`'s tree, `None`:
    /// no state), which must still be there for redo.
    AgentCall {
        checkpoint: String,
        state: Option<String>,
    },
}

impl Op {
    /// `apply`, `squash`, `uncommitted-apply`, `step-back` or `step-forward`.
    pub fn kind(&self) -> &'static str {
        match self {
            Op::Apply { .. } => "apply",
            Op::Squash { .. } => "squash",
            Op::UncommittedApply { .. } => "uncommitted-apply",
            Op::Step { forward: false, .. } => "step-back",
            Op::Step { forward: true, .. } => "step-forward",
            Op::AgentCall { .. } => "agent-call",
        }
    }

    /// The commit the entry keeps reachable.
    fn commit(&self) -> Option<&str> {
        match self {
            Op::Apply { commit } | Op::Squash { commit } => Some(commit),
            Op::Step { to, .. } => Some(to),
            Op::UncommittedApply { .. } | Op::AgentCall { .. } => None,
        }
    }
}

/// One entry of the stack.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StackEntry {
    #[serde(flatten)]
    pub op: Op,
    /// The state the undo left (see [`fingerprint`]); `None` for a ref an older git-clada
    /// wrote.
    #[serde(default)]
    pub after: Option<String>,
    /// The entry below, if any.
    #[serde(default)]
    pub below: Option<String>,
    /// What the operation was, for lists (`AI: edit a.txt`).
    #[serde(default)]
    pub subject: String,
}

/// The refs whose values, with HEAD, make up the fingerprint of the state undo and redo move
/// between (`branch` is the branch undo works on).
fn tracked_refs(branch: &str) -> [String; 3] {
    [
        crate::record::apply::pending_ref(Some(branch)),
        super::step::POSITION_REF.to_string(),
        super::step::STATE_REF.to_string(),
    ]
}

/// The state as undo and redo see it: where HEAD is (attached or not), the pending apply
/// record and the step-back state. Any clada operation or commit changes it.
pub fn fingerprint(repo: &Repo, branch: &str) -> Result<String, HistoryError> {
    let head = repo.head()?;
    let mut out = format!(
        "HEAD={} on={}",
        head.commit().map(|c| c.to_string()).unwrap_or_default(),
        head.branch().unwrap_or("-")
    );
    for name in tracked_refs(branch) {
        let v = repo.read_ref(&name)?;
        out.push_str(&format!(
            " {name}={}",
            v.map(|c| c.to_string()).unwrap_or_default()
        ));
    }
    Ok(out)
}

/// The fingerprint the state will have once `plan` ran: HEAD where it says (attached when it
/// names a branch), the tracked refs as its ref changes leave them.
pub fn fingerprint_after(
    repo: &Repo,
    branch: &str,
    plan: &RestorePlan,
) -> Result<String, HistoryError> {
    let mut out = format!(
        "HEAD={} on={}",
        plan.head,
        plan.branch.as_deref().unwrap_or("-")
    );
    for name in tracked_refs(branch) {
        let mut v = repo.read_ref(&name)?.map(|c| c.to_string());
        for change in plan.refs_before.iter().chain(&plan.refs_after) {
            if change.name == name {
                v = change.target.clone();
            }
        }
        out.push_str(&format!(" {name}={}", v.unwrap_or_default()));
    }
    Ok(out)
}

/// The top entry of `branch`'s stack and its id.
pub fn top(repo: &Repo, branch: &str) -> Result<Option<(ObjectId, StackEntry)>, HistoryError> {
    let Some(id) = repo.read_ref(&redo_ref(branch))? else {
        return Ok(None);
    };
    Ok(Some((id, read(repo, id)?)))
}

/// Reads an entry; a commit an older git-clada named directly is a one-entry stack.
pub fn read(repo: &Repo, id: ObjectId) -> Result<StackEntry, HistoryError> {
    let info = repo.commit_info(id)?;
    if let Some(e) = repo.tree_entry(info.tree, b"entry.json".as_bstr())? {
        if info.message.starts_with("clada redo entry") {
            let data = repo.read_blob(e.id)?;
            return serde_json::from_slice(&data).map_err(|err| {
                HistoryError::Refused(format!(
                    "the redo stack entry {} cannot be read ({err}); remove it with `git update-ref -d {}`",
                    Repo::short(id),
                    "refs/clada/redo/<branch>"
                ))
            });
        }
    }
    let squash = repo.read_ref(&super::common::squash_ref(id))?.is_some();
    let commit = id.to_string();
    Ok(StackEntry {
        op: if squash {
            Op::Squash { commit }
        } else {
            Op::Apply { commit }
        },
        after: None,
        below: None,
        subject: info.subject().to_string(),
    })
}

/// The whole stack, top first (at most `max` entries).
pub fn list(repo: &Repo, branch: &str, max: usize) -> Result<Vec<StackEntry>, HistoryError> {
    let mut out = Vec::new();
    let mut next = repo.read_ref(&redo_ref(branch))?;
    while let Some(id) = next {
        if out.len() == max {
            break;
        }
        let e = read(repo, id)?;
        next = e
            .below
            .as_deref()
            .map(crate::record::journal::parse_id)
            .transpose()?;
        out.push(e);
    }
    Ok(out)
}

/// The entry an undo pushes: `op`, with the state `plan` leaves, on top of the current stack
/// when that stack is still valid (its top is the state the undo starts from), else alone.
/// Returns the ref change that makes it the top, for the undo's journaled restore.
pub fn push(
    repo: &Repo,
    branch: &str,
    op: Op,
    subject: &str,
    plan: &RestorePlan,
) -> Result<RefChange, HistoryError> {
    let now = fingerprint(repo, branch)?;
    let below = match top(repo, branch)? {
        Some((id, e)) if e.after.as_deref() == Some(now.as_str()) => Some(id),
        _ => None,
    };
    let entry = StackEntry {
        op,
        after: Some(fingerprint_after(repo, branch, plan)?),
        below: below.map(|b| b.to_string()),
        subject: subject.to_string(),
    };
    let json = serde_json::to_vec_pretty(&entry)
        .map_err(|e| HistoryError::Refused(format!("cannot record the redo entry: {e}")))?;
    let mut changes = vec![TreeChange {
        path: "entry.json".into(),
        entry: Some(Entry {
            kind: EntryKind::Blob,
            id: repo.write_blob(&json)?,
        }),
    }];
    if let Op::UncommittedApply { record, .. } = &entry.op {
        changes.push(TreeChange {
            path: "record".into(),
            entry: Some(Entry {
                kind: EntryKind::Tree,
                id: crate::record::journal::parse_id(record)?,
            }),
        });
    }
    if let Op::AgentCall { checkpoint, .. } = &entry.op {
        // The call's versions of its files, which redo writes back.
        let cp: crate::record::agent_state::Checkpoint = serde_json::from_str(checkpoint)
            .map_err(|e| HistoryError::Refused(format!("cannot record the redo entry: {e}")))?;
        for s in cp
            .changes
            .iter()
            .flat_map(|c| [c.before, c.after])
            .flatten()
        {
            changes.push(TreeChange {
                path: format!("o/{}", s.id).into(),
                entry: Some(s.entry()),
            });
        }
        changes.sort_by(|a, b| a.path.cmp(&b.path));
        changes.dedup_by(|a, b| a.path == b.path);
    }
    let tree = repo.edit_tree(repo.empty_tree(), &changes)?;
    let mut parents = Vec::new();
    if let Some(c) = entry.op.commit() {
        parents.push(crate::record::journal::parse_id(c)?);
    }
    parents.extend(below);
    let (author, committer) = repo.identity()?;
    let id = repo.write_commit(
        tree,
        &parents,
        &format!(
            "clada redo entry: {} {subject}\n\nWhat `git clada undo` took back; `git clada redo` puts it back.\n",
            entry.op.kind()
        ),
        &author,
        &committer,
    )?;
    Ok(RefChange::set(
        redo_ref(branch),
        id,
        "clada: undo (kept for redo)",
    ))
}

/// The ref change that pops `entry` off the stack (for the redo's journaled restore).
pub fn pop(branch: &str, entry: &StackEntry) -> Result<RefChange, HistoryError> {
    Ok(match &entry.below {
        Some(below) => RefChange::set(
            redo_ref(branch),
            crate::record::journal::parse_id(below)?,
            "clada: redo",
        ),
        None => RefChange::delete(redo_ref(branch)),
    })
}

/// Refuses a redo whose top entry no longer matches the state: says what happened since.
pub fn require_current(repo: &Repo, branch: &str, entry: &StackEntry) -> Result<(), HistoryError> {
    let Some(after) = &entry.after else {
        return Ok(());
    };
    let now = fingerprint(repo, branch)?;
    if &now == after {
        return Ok(());
    }
    let field = |s: &str, key: &str| -> String {
        s.split(' ')
            .find_map(|kv| kv.strip_prefix(key).and_then(|v| v.strip_prefix('=')))
            .unwrap_or_default()
            .to_string()
    };
    let short = |hex: String| {
        if hex.is_empty() {
            "nothing".to_string()
        } else {
            hex.get(..7).unwrap_or(&hex).to_string()
        }
    };
    let pending = crate::record::apply::pending_ref(Some(branch));
    let what = if field(&now, "HEAD") != field(after, "HEAD") {
        format!(
            "HEAD moved from {} to {} (a commit, an apply, a squash or a step since)",
            short(field(after, "HEAD")),
            short(field(&now, "HEAD"))
        )
    } else if field(&now, &pending) != field(after, &pending) {
        "an apply that committed nothing ran since".to_string()
    } else if field(&now, "on") != field(after, "on") {
        "HEAD was switched to another branch or detached since".to_string()
    } else {
        "a step-back or step-forward ran since".to_string()
    };
    Err(HistoryError::Refused(format!(
        "there is nothing to redo: the last undo ({} \"{}\") is no longer the last operation: {what}. redo only puts back what undo took back while nothing else happened (nothing was changed)",
        entry.op.kind(),
        entry.subject
    )))
}
