//! The refs and the record that keep an apply undoable after its journal is gone: the apply
//! record (the journal, the index tree, the trees undo and redo move between, the saved
//! files), kept in the one tree [`RECORDS_REF`] points to, at the AI commit's id split like a
//! notes tree (`ab/cdef…`); the user's kept work under `refs/clada/work/<commit>`, and the
//! record of an apply that committed nothing under `refs/clada/pending/<branch>`. Written in
//! phase 8; read by undo and redo. Records of earlier versions, one ref each under
//! `refs/clada/apply/<commit>`, are still read.
//!
//! One ref for every record keeps the number of refs constant however many applies were made:
//! every command that lists or packs refs (git's too) would pay for one ref per apply.

use clada_git::{
    BString, ByteSlice, Entry, EntryKind, Expected, ObjectId, RefUpdate, Repo, RepoError,
    TreeChange,
};

use super::super::journal::{parse_id, Before, Journal, JournalAgent, JournalError, JournalPath};
use super::ApplyError;

/// The ref whose tree holds every apply record (journal + index tree + saved files), at the
/// AI commit's id as `ab/cdef…` (see [`record_path`]).
pub const RECORDS_REF: &str = "refs/clada/records";

/// Where an apply record was kept before [`RECORDS_REF`]: one ref per AI commit (still read).
pub fn record_ref(commit: ObjectId) -> String {
    format!("refs/clada/apply/{commit}")
}

/// The path of `commit`'s record in the tree of [`RECORDS_REF`].
fn record_path(commit: ObjectId) -> BString {
    let hex = commit.to_string();
    BString::from(format!("{}/{}", &hex[..2], &hex[2..]))
}

/// The move of [`RECORDS_REF`] that adds `record` as the record of `commit` (the new tree is
/// written; the ref moves with compare-and-swap in the apply's ref transaction).
pub(super) fn records_update(
    repo: &Repo,
    commit: ObjectId,
    record: ObjectId,
) -> Result<RefUpdate, ApplyError> {
    let old = repo.read_ref(RECORDS_REF)?;
    let tree = repo.edit_tree(
        old.unwrap_or_else(|| repo.empty_tree()),
        &[TreeChange {
            path: record_path(commit),
            entry: Some(Entry {
                kind: EntryKind::Tree,
                id: record,
            }),
        }],
    )?;
    Ok(RefUpdate {
        name: RECORDS_REF.into(),
        new: tree,
        expected: old.map_or(Expected::MustNotExist, Expected::Value),
        reflog: format!("clada: apply record of {}", Repo::short(commit)),
    })
}

/// The ref under which the user's uncommitted work before an apply is kept, as a
/// stash-format commit (`git stash apply refs/clada/work/<commit>` works on it too).
pub fn kept_ref(commit: ObjectId) -> String {
    format!("refs/clada/work/{commit}")
}

/// The ref keeping the record of the last apply that committed nothing on `branch`.
pub fn pending_ref(branch: Option<&str>) -> String {
    format!(
        "refs/clada/pending/{}",
        branch
            .map(|b| b.strip_prefix("refs/heads/").unwrap_or(b))
            .unwrap_or("HEAD")
    )
}

/// The apply record's tree (journal, index tree, saved files), kept in [`RECORDS_REF`] so undo can restore untracked files and the staged/unstaged split.
pub(super) fn record_tree(repo: &Repo, journal: &Journal) -> Result<ObjectId, ApplyError> {
    let json = serde_json::to_vec_pretty(journal)
        .map_err(|e| RepoError::Invalid(format!("cannot serialise the apply record: {e}")))?;
    let mut changes = vec![TreeChange {
        path: "journal.json".into(),
        entry: Some(clada_git::Entry {
            kind: EntryKind::Blob,
            id: repo.write_blob(&json)?,
        }),
    }];
    if !journal.blocks.is_empty() {
        // The keys alone, so a later apply checks them without reading the whole journal.
        changes.push(TreeChange {
            path: "blocks".into(),
            entry: Some(clada_git::Entry {
                kind: EntryKind::Blob,
                id: repo.write_blob(journal.blocks.join("\n").as_bytes())?,
            }),
        });
    }
    let index_tree = parse_id(&journal.index_tree)?;
    changes.push(TreeChange {
        path: "index".into(),
        entry: Some(clada_git::Entry {
            kind: EntryKind::Tree,
            id: index_tree,
        }),
    });
    // The trees undo and redo move between; for an apply that kept the user's work
    // uncommitted (or committed nothing) no commit keeps them reachable.
    for (name, tree) in [
        ("worktree", Some(journal.base_tree.as_str())),
        ("after-index", journal.after_index.as_deref()),
        ("after-worktree", journal.after_tree.as_deref()),
        ("before-worktree", journal.before_tree.as_deref()),
        // The record of the pending AI changes the commit took: its turn and its blobs.
        ("took", journal.took.as_deref()),
    ] {
        if let Some(tree) = tree {
            changes.push(TreeChange {
                path: name.into(),
                entry: Some(clada_git::Entry {
                    kind: EntryKind::Tree,
                    id: parse_id(tree)?,
                }),
            });
        }
    }
    let saved = journal
        .paths
        .iter()
        .enumerate()
        .map(|(i, jp)| (format!("saved/{i}"), jp));
    let after = journal
        .after
        .iter()
        .enumerate()
        .map(|(i, jp)| (format!("after/{i}"), jp));
    for (name, jp) in saved.chain(after) {
        let id = match &jp.before {
            Before::Blob { id, .. } | Before::Link { id } => id,
            _ => continue,
        };
        changes.push(TreeChange {
            path: name.into(),
            entry: Some(clada_git::Entry {
                kind: EntryKind::Blob,
                id: parse_id(id)?,
            }),
        });
    }
    // The versions an agent's turn went through, for its undo and redo.
    if let Some(turn) = &journal.turn {
        for id in turn.blobs() {
            changes.push(TreeChange {
                path: BString::from(format!("turn/{id}")),
                entry: Some(clada_git::Entry {
                    kind: EntryKind::Blob,
                    id,
                }),
            });
        }
    }
    Ok(repo.edit_tree(repo.empty_tree(), &changes)?)
}

/// Reads the apply record of an AI commit: from [`RECORDS_REF`], else from the ref of
/// earlier versions.
pub fn read_record(repo: &Repo, commit: ObjectId) -> Result<Option<Journal>, ApplyError> {
    let records = repo.read_ref(RECORDS_REF)?;
    match record_tree_of(repo, records, commit)? {
        Some(tree) => record_journal(repo, tree),
        None => Ok(None),
    }
}

/// Whether an apply made `commit`: its record is in `records` (the tree [`RECORDS_REF`] points
/// to, read once by the caller for a walk) or under the ref of earlier versions. Every AI
/// commit any version of git-clada made has one, written in the same ref transaction that put
/// the commit on its branch; a commit that only carries the trailers (a `git commit -C`, an
/// amend, a cherry-pick or a rebase copies them) has none.
pub fn is_recorded(
    repo: &Repo,
    records: Option<ObjectId>,
    commit: ObjectId,
) -> Result<bool, ApplyError> {
    Ok(record_tree_of(repo, records, commit)?.is_some())
}

/// The record tree of `commit`: in `records` (the tree [`RECORDS_REF`] points to), else under
/// the ref of earlier versions.
fn record_tree_of(
    repo: &Repo,
    records: Option<ObjectId>,
    commit: ObjectId,
) -> Result<Option<ObjectId>, ApplyError> {
    if let Some(records) = records {
        if let Some(entry) = repo.tree_entry(records, record_path(commit).as_bstr())? {
            return Ok(Some(entry.id));
        }
    }
    Ok(repo.read_ref(&record_ref(commit))?)
}

/// The journal stored in a record tree.
pub fn record_journal(repo: &Repo, tree: ObjectId) -> Result<Option<Journal>, ApplyError> {
    let Some(entry) = repo.tree_entry(tree, b"journal.json".as_bstr())? else {
        return Ok(None);
    };
    let data = repo.read_blob(entry.id)?;
    let journal = serde_json::from_slice(&data).map_err(|source| JournalError::Corrupt {
        path: std::path::PathBuf::from(format!("record {tree}")),
        source,
    })?;
    Ok(Some(journal))
}

/// Marks every planned block as already applied when this very reply was the last thing
/// applied on this branch — the AI commit at HEAD, or the apply that committed nothing since
/// (its pending record) — and every path that apply changed is still as it left it: a reply
/// pasted twice does not insert an "anchor + new code" edit twice, nor run its exec blocks
/// again. Anything else runs: the same block in a later reply is a new intent (a value set,
/// changed and set again; a file created, deleted and created again), and so is a reply
/// pasted again after its files changed. MCP calls and `--dialect tool-call` never come here
/// (each call is a new intent), nor does `watch` (it keeps its own set of applied blocks).
pub(super) fn mark_repeated_reply(
    repo: &Repo,
    plan: &mut crate::action::Plan,
    head: ObjectId,
    branch: Option<&str>,
    reply_text: &str,
) -> Result<(), ApplyError> {
    if plan.actions.is_empty() {
        return Ok(());
    }
    let reply = repo
        .blob_id(&clada_read::raw::encode(reply_text))
        .to_string();
    let Some((journal, commit, label)) = last_apply(repo, head, branch)? else {
        return Ok(());
    };
    // The reply of an AI commit is its `Clada-Reply` trailer (records of earlier versions
    // lack the journal's own field).
    let same = match commit {
        Some(c) => repo
            .commit_info(c)?
            .trailer(crate::record::trailer::REPLY)
            .is_some_and(|r| r.trim() == reply),
        None => journal.reply.as_deref() == Some(reply.as_str()),
    };
    if !same || !unchanged_since(repo, &journal, commit)? {
        return Ok(());
    }
    for pa in &mut plan.actions {
        if pa.skip.is_none() {
            pa.already_applied = Some(label.clone());
        }
    }
    Ok(())
}

/// The last apply on this branch: the one at `head` that committed nothing (its pending
/// record), else the nearest AI commit with a record among the last [`APPLIED_DEPTH`]
/// first-parent commits (human commits made since do not count: they are not applies). Its
/// journal, its commit and how reports name it.
#[allow(clippy::type_complexity)]
fn last_apply(
    repo: &Repo,
    head: ObjectId,
    branch: Option<&str>,
) -> Result<Option<(Journal, Option<ObjectId>, String)>, ApplyError> {
    if let Some(tree) = repo.read_ref(&pending_ref(branch))? {
        if let Some(j) = record_journal(repo, tree)?.filter(|j| j.head_id().ok() == Some(head)) {
            return Ok(Some((
                j,
                None,
                "the last apply (it committed nothing)".into(),
            )));
        }
    }
    let records = repo.read_ref(RECORDS_REF)?;
    let mut commit = Some(head);
    for _ in 0..APPLIED_DEPTH {
        let Some(c) = commit else { break };
        if let Some(tree) = record_tree_of(repo, records, c)? {
            return Ok(record_journal(repo, tree)?.map(|j| (j, Some(c), c.to_string())));
        }
        commit = repo.commit_info(c)?.parents.first().copied();
    }
    Ok(None)
}

/// How many first-parent commits back from HEAD the last apply is looked for.
const APPLIED_DEPTH: usize = 200;

/// Whether every tracked path the apply of `journal` changed still holds what it left there.
fn unchanged_since(
    repo: &Repo,
    journal: &Journal,
    commit: Option<ObjectId>,
) -> Result<bool, ApplyError> {
    let after = match (journal.after_tree.as_deref(), commit) {
        (Some(t), _) => parse_id(t)?,
        // Records of earlier versions: the commit's tree is what the apply left.
        (None, Some(c)) => repo.commit_info(c)?.tree,
        (None, None) => return Ok(false),
    };
    let mut hasher = repo.hasher()?;
    for d in repo.diff_trees(parse_id(&journal.base_tree)?, after)? {
        let left = d.new.filter(|e| e.kind != EntryKind::Tree);
        if hasher.hash(d.path.as_bstr())?.map(|(e, _)| e) != left {
            return Ok(false);
        }
    }
    Ok(true)
}

/// The keys of the blocks whose change an apply made: its successful write blocks that ran.
pub(super) fn applied_keys(result: &crate::action::ExecutionResult) -> Vec<String> {
    result
        .results
        .iter()
        .filter(|r| r.success && !r.skipped && !r.rolled_back)
        .filter(|r| {
            crate::action::schema::schema()
                .get(&r.action)
                .is_some_and(|d| d.kind == crate::action::Kind::Write)
        })
        .map(|r| crate::action::block_key(&r.params))
        .collect()
}

/// The AI's changes an earlier apply left pending on `branch` (a failing hook stopped its
/// commit) while HEAD has not moved since: each path it changed that still differs in the
/// worktree (`worktree_tree`, W now) from before that apply (as the AI left it, or as the user
/// fixed what the hook reported), with the entry it had before. They belong in the next AI
/// commit, not among the user's uncommitted work.
///
/// Also returns that apply's record (its tree and journal) when it has such changes: the
/// commit that takes them records it (`Journal::took`), so one undo takes both back.
#[allow(clippy::type_complexity)]
pub(super) fn pending_changes(
    repo: &Repo,
    branch: Option<&str>,
    head: ObjectId,
    hasher: &mut clada_git::Hasher,
) -> Result<
    (
        std::collections::BTreeMap<clada_git::BString, Pending>,
        Option<(ObjectId, Journal)>,
    ),
    ApplyError,
> {
    let mut out = std::collections::BTreeMap::new();
    let Some(tree) = repo.read_ref(&pending_ref(branch))? else {
        return Ok((out, None));
    };
    let Some(journal) = record_journal(repo, tree)? else {
        return Ok((out, None));
    };
    let (Some(after), true) = (&journal.after_tree, journal.head_id().ok() == Some(head)) else {
        return Ok((out, None));
    };
    for d in repo.diff_trees(parse_id(&journal.base_tree)?, parse_id(after)?)? {
        // Left to the user (it overlapped their own change), never committed for them.
        if journal.uncommitted.iter().any(|u| d.path == u.as_str()) {
            continue;
        }
        let (old, new) = (
            d.old.filter(|e| e.kind != EntryKind::Tree),
            d.new.filter(|e| e.kind != EntryKind::Tree),
        );
        // What the worktree holds now: a new file the hook stopped is untracked, so only
        // the file itself says whether the AI's change is still there.
        let now = hasher.hash(d.path.as_bstr())?.map(|(e, _)| e);
        if old != new && now != old {
            out.insert(
                d.path,
                Pending {
                    before: old,
                    now,
                    ai: new,
                },
            );
        }
    }
    let taken = (!out.is_empty()).then_some((tree, journal));
    Ok((out, taken))
}

/// An AI change an earlier apply left pending: the path's entry before that apply, and what
/// the worktree holds now.
#[derive(Debug, Clone, Copy)]
pub(super) struct Pending {
    pub(super) before: Option<clada_git::Entry>,
    pub(super) now: Option<clada_git::Entry>,
    /// What that apply left there (the user may have fixed it since).
    pub(super) ai: Option<clada_git::Entry>,
}

/// AI changes an agent made with its own tools, as [`put_pending`] records them: on `head`
/// (of `branch`, a full ref name), the tracked worktree's tree before (`base_tree`) and after
/// (`after_tree`) — differing only at the agent's paths — and the index's tree.
pub struct AgentChanges {
    pub head: ObjectId,
    pub branch: Option<String>,
    pub source: String,
    pub base_tree: ObjectId,
    pub after_tree: ObjectId,
    pub index_tree: ObjectId,
    pub agent: JournalAgent,
    /// The agent's untracked paths left out of the commit (`record::admit`: ignored files,
    /// the user's untracked files): each one's state before the agent's changes and after
    /// them, as an apply's record keeps the untracked paths it wrote (`paths`, `after`), so
    /// undo can put them back.
    pub untracked: Vec<(JournalPath, JournalPath)>,
    /// The turn that made them: its calls and each path's changes.
    pub turn: Option<crate::record::agent_turn::Turn>,
}

/// Hands AI changes made outside an apply (an agent's own edit tools, `crate::agent`) to the
/// transaction as the record of an apply that committed nothing: `base_tree` → `after_tree`
/// (trees of the tracked worktree that differ only at the AI's paths) on `head`, so the next
/// apply or `git clada commit` commits them as AI changes — the user's own uncommitted work
/// kept out, as for changes a failing hook left pending — and `git clada undo` can take them
/// back. The record before it on the branch stays under `previous`. Returns the record and
/// the ref's value before, for [`restore_pending`].
pub fn put_pending(
    repo: &Repo,
    changes: &AgentChanges,
) -> Result<(ObjectId, Option<ObjectId>), ApplyError> {
    let AgentChanges {
        head,
        branch,
        source,
        base_tree,
        after_tree,
        index_tree,
        agent,
        untracked,
        turn,
    } = changes;
    let branch = branch.as_deref();
    let journal = Journal {
        op: "apply".into(),
        started: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() as i64),
        pid: std::process::id(),
        source: source.to_string(),
        head: head.to_string(),
        branch: branch.map(str::to_string),
        base_tree: base_tree.to_string(),
        index_tree: index_tree.to_string(),
        snapshot: None,
        paths: untracked.iter().map(|(before, _)| before.clone()).collect(),
        exec: false,
        commit: None,
        after: untracked.iter().map(|(_, after)| after.clone()).collect(),
        index_flags: Vec::new(),
        kept: None,
        after_tree: Some(after_tree.to_string()),
        after_index: Some(index_tree.to_string()),
        blocks: Vec::new(),
        reply: None,
        uncommitted: Vec::new(),
        also_refs: Vec::new(),
        agent: Some(agent.clone()),
        turn: turn.clone(),
        took: None,
        before_tree: None,
    };
    let record = record_tree(repo, &journal)?;
    let name = pending_ref(branch);
    let previous = repo.read_ref(&name)?;
    let record = match previous {
        Some(p) => repo.edit_tree(
            record,
            &[TreeChange {
                path: "previous".into(),
                entry: Some(Entry {
                    kind: EntryKind::Tree,
                    id: p,
                }),
            }],
        )?,
        None => record,
    };
    repo.update_refs(&[RefUpdate {
        name,
        new: record,
        expected: previous.map_or(Expected::MustNotExist, Expected::Value),
        reflog: format!("clada: uncommitted AI changes of {source}"),
    }])?;
    Ok((record, previous))
}

/// The pending record before the one recorded in `tree` (kept under `previous` by
/// [`put_pending`]), if any.
pub fn previous_pending(repo: &Repo, tree: ObjectId) -> Result<Option<ObjectId>, ApplyError> {
    Ok(repo
        .tree_entry(tree, b"previous".as_bstr())?
        .filter(|e| e.kind == EntryKind::Tree)
        .map(|e| e.id))
}

/// Sets the pending record of `branch` back to `previous` (what [`put_pending`] returned),
/// when the changes it handed over were not taken.
pub fn restore_pending(
    repo: &Repo,
    branch: Option<&str>,
    previous: Option<ObjectId>,
) -> Result<(), ApplyError> {
    let name = pending_ref(branch);
    match previous {
        Some(p) => repo.update_refs(&[RefUpdate {
            name,
            new: p,
            expected: Expected::Any,
            reflog: "clada: pending AI changes not taken".into(),
        }])?,
        None => repo.delete_ref(&name, Expected::Any)?,
    }
    Ok(())
}
