//! Phases 3–4: beginning the transaction. The user's tracked work goes into snapshot trees
//! (blobs only, no ref moves), then the journal is written with the prior state of every path
//! the reply may write (untracked files saved as blobs, and with exec every untracked file),
//! and only then is git's index lock taken. The journal comes before the lock so that a crash
//! after the lock leaves a journal, and undo knows the lock left behind is ours; the lock
//! comes before any file is written so that a git command holding it makes the apply fail
//! with nothing changed.

use std::collections::BTreeSet;
use std::path::Path;

use crate::action;
use crate::input::Reply;
use clada_git::{BStr, BString, ByteSlice, EntryKind, ObjectId, Repo};

use super::super::journal::{Before, Journal, JournalPath};
use super::super::restore;
use super::super::snapshot;
use super::state::Start;
use super::ApplyError;

/// An apply in progress: the journal is on disk, so from here on `git clada undo` can roll
/// everything back.
pub(super) struct Transaction<'r> {
    pub(super) repo: &'r Repo,
    pub(super) journal: Journal,
    /// The tree of the tracked worktree before the apply (W) and of the index (I).
    pub(super) base_tree: ObjectId,
    pub(super) index_tree: ObjectId,
    /// git's index lock, taken before any file is written (without exec).
    pub(super) early_lock: Option<clada_git::IndexLock>,
    /// Warnings found while preparing (e.g. untracked files too large to save).
    pub(super) warnings: Vec<String>,
}

impl<'r> Transaction<'r> {
    /// Records the user's state in trees and the journal, then takes git's index lock.
    pub(super) fn begin(
        repo: &'r Repo,
        reply: &Reply,
        plan: &action::Plan,
        start: &Start,
    ) -> Result<Transaction<'r>, ApplyError> {
        let mut hasher = repo.hasher_with(&start.index)?;
        let (index_tree, base_tree) = if start.status.is_dirty() {
            let it = snapshot::index_tree(repo, start.head_tree, &start.index, &start.status)?;
            let wt = snapshot::worktree_tree(repo, it, &start.status, &mut hasher)?;
            (it, wt)
        } else {
            (start.head_tree, start.head_tree)
        };
        clada_base::failpoint::hit("apply:after-snapshot-trees");
        let mut warnings = Vec::new();
        let mut paths = journal_paths(repo, plan, base_tree)?;
        if start.has_exec {
            // Exec can touch any file: every untracked one, and every ignored file outside
            // ignored directories (a `.env`, a local config; not build output), is saved so
            // undo can put it back.
            let mut saved = start.status.untracked.clone();
            saved.extend(repo.ignored_files(&start.index, IGNORED_CAP)?);
            let extra = save_untracked(repo, &saved, &paths, &mut warnings)?;
            paths.extend(extra);
            paths.sort_by(|a, b| a.path.cmp(&b.path));
        }
        // For undo: the index flags of the paths the reply may write (the index update
        // clears them) and of intent-to-add entries (recovery helper's call).
        let index_flags = restore::flags_to_record(
            &start.index,
            paths.iter().map(|p| p.path.as_bytes().as_bstr()),
        );
        let journal = Journal {
            op: "apply".into(),
            started: now(),
            pid: std::process::id(),
            source: reply.source.clone(),
            head: start.head_commit.to_string(),
            branch: start.head.branch().map(str::to_string),
            base_tree: base_tree.to_string(),
            index_tree: index_tree.to_string(),
            snapshot: None,
            paths,
            exec: start.has_exec,
            commit: None,
            after: Vec::new(),
            kept: None,
            after_tree: None,
            after_index: None,
            index_flags,
            blocks: Vec::new(),
            reply: Some(repo.blob_id(&reply.bytes()).to_string()),
            uncommitted: Vec::new(),
            also_refs: Vec::new(),
            agent: None,
            turn: None,
            took: None,
            before_tree: None,
        };
        journal.write(repo)?;
        clada_base::trace::phase("snapshot trees+journal");
        clada_base::failpoint::hit("apply:after-journal");
        // git's index lock is taken before any file is written, so a git command holding it
        // makes the apply fail with nothing changed. It is taken after the journal so that a
        // crash from here on leaves a journal, and undo knows the lock left behind is ours.
        // Exec may run git commands that need the lock themselves, so with exec it is taken
        // after the actions ran.
        let early_lock = if start.has_exec {
            None
        } else {
            let lock = match repo.lock_index() {
                Ok(lock) => lock,
                Err(err) => {
                    Journal::remove(repo)?;
                    return Err(err.into());
                }
            };
            // A git command that finished between reading the state and taking the lock
            // (a `git commit`, say) changed what the journal records: start again.
            if let Some(what) = start.moved(repo)? {
                drop(lock);
                Journal::remove(repo)?;
                return Err(ApplyError::Refused(format!(
                    "another git command changed the repository while the reply was being prepared ({what}); nothing was changed: apply the reply again"
                )));
            }
            Some(lock)
        };
        Ok(Transaction {
            repo,
            journal,
            base_tree,
            index_tree,
            early_lock,
            warnings,
        })
    }
}

/// The prior state of every path the plan may write. Tracked paths are in `base_tree`;
/// untracked files there are saved as blobs so nothing the AI overwrites is lost.
fn journal_paths(
    repo: &Repo,
    plan: &action::Plan,
    base_tree: ObjectId,
) -> Result<Vec<JournalPath>, ApplyError> {
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    let mut queue: Vec<String> = Vec::new();
    for pa in &plan.actions {
        for rp in pa.write_paths() {
            if let Some(rel) = &rp.rel {
                if !rel.is_empty() {
                    queue.push(rel.clone());
                }
            }
        }
    }
    while let Some(rel) = queue.pop() {
        if !seen.insert(rel.clone()) {
            continue;
        }
        let b = BString::from(rel.as_str());
        let tracked = repo.tree_entry(base_tree, b.as_bstr())?;
        let md = repo.worktree_metadata(b.as_bstr())?;
        let before = match (&tracked, &md) {
            (Some(e), _) if e.kind != EntryKind::Tree => Before::Tracked,
            (_, None) => Before::Absent,
            (_, Some(md)) if md.is_dir() => {
                // A directory an action may delete: every file below it is saved too.
                let listed = repo
                    .worktree()?
                    .dir(Path::new(rel.as_str()))
                    .and_then(|d| d.list());
                if let Ok(entries) = listed {
                    for (name, _) in entries {
                        queue.push(format!("{rel}/{}", name.to_string_lossy()));
                    }
                }
                if tracked.is_some() {
                    Before::Tracked
                } else {
                    Before::Dir
                }
            }
            (_, Some(_)) => prior_state(repo, b.as_bstr())?,
        };
        out.push(JournalPath { path: rel, before });
    }
    out.extend(untracked_parent_dirs(repo, base_tree, &seen)?);
    out.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(out)
}

/// The directories that already hold the journaled paths `rels` without git tracking them
/// (empty ones, or ones with only untracked files), as `Before::Dir`: git does not record
/// them, so this is how undo knows to keep them when it removes what the apply created.
fn untracked_parent_dirs(
    repo: &Repo,
    base_tree: ObjectId,
    rels: &BTreeSet<String>,
) -> Result<Vec<JournalPath>, ApplyError> {
    let mut dirs = BTreeSet::new();
    for rel in rels {
        let mut dir = rel.as_str();
        while let Some((parent, _)) = dir.rsplit_once('/') {
            dir = parent;
            if rels.contains(dir) || !dirs.insert(dir.to_string()) {
                break;
            }
        }
    }
    let mut out = Vec::new();
    for dir in dirs {
        let b = BString::from(dir.as_str());
        let is_dir = repo
            .worktree_metadata(b.as_bstr())?
            .is_some_and(|m| m.is_dir());
        if is_dir && repo.tree_entry(base_tree, b.as_bstr())?.is_none() {
            out.push(JournalPath {
                path: dir,
                before: Before::Dir,
            });
        }
    }
    Ok(out)
}

/// How many ignored files an apply with exec saves at most.
const IGNORED_CAP: usize = 2000;

/// Every untracked file not yet journaled, saved as a blob, up to a size cap (what exec might
/// delete or change).
fn save_untracked(
    repo: &Repo,
    untracked: &[BString],
    journaled: &[JournalPath],
    warnings: &mut Vec<String>,
) -> Result<Vec<JournalPath>, ApplyError> {
    const TOTAL_CAP: u64 = 256 << 20;
    let known: BTreeSet<&str> = journaled.iter().map(|j| j.path.as_str()).collect();
    let mut total = 0u64;
    let mut skipped = Vec::new();
    let mut out = Vec::new();
    for p in untracked {
        let rel = p.to_string();
        if known.contains(rel.as_str()) {
            continue;
        }
        let Some(md) = repo.worktree_metadata(p.as_bstr())? else {
            continue;
        };
        if md.is_file() && total + md.len > TOTAL_CAP {
            skipped.push(rel);
            continue;
        }
        // A FIFO, a socket or a device cannot be saved (nor changed by an action).
        let Some(before) = saved_state(repo, p.as_bstr())? else {
            continue;
        };
        total += md.len;
        out.push(JournalPath { before, path: rel });
    }
    if !skipped.is_empty() {
        warnings.push(format!(
            "untracked files beyond {} MiB were not saved before exec, so undo cannot restore them if exec changes them: {}",
            TOTAL_CAP >> 20,
            snapshot::describe_paths(
                &skipped.iter().map(|s| BString::from(s.as_str())).collect::<Vec<_>>(),
                5
            )
        ));
    }
    Ok(out)
}

/// What the worktree path `rel` holds, saved as a blob (read through directory handles
/// opened from the root); an error for what cannot be saved (a FIFO, a socket, a device).
pub(super) fn prior_state(repo: &Repo, rel: &BStr) -> Result<Before, ApplyError> {
    match saved_state(repo, rel)? {
        Some(b) => Ok(b),
        None => Err(ApplyError::Repo(clada_git::RepoError::Invalid(format!(
            "'{rel}' is {}: git-clada saves only files, symlinks and directories before a reply changes them; move it away and apply again",
            repo.worktree_metadata(rel)?
                .map(|m| m.kind_name())
                .unwrap_or("gone")
        )))),
    }
}

/// [`prior_state`], `None` for what cannot be saved; nothing there is `Before::Absent`.
pub(super) fn saved_state(repo: &Repo, rel: &BStr) -> Result<Option<Before>, ApplyError> {
    use clada_base::beneath::Entry;
    use std::io::Read;
    use std::os::unix::ffi::OsStrExt;
    Ok(match repo.worktree_entry(rel)? {
        None => Some(Before::Absent),
        Some(Entry::Other(m)) => m.is_dir().then_some(Before::Dir),
        Some(Entry::Link(target, _)) => Some(Before::Link {
            id: repo.write_blob(target.as_os_str().as_bytes())?.to_string(),
        }),
        Some(Entry::File(mut f, m)) => {
            let mut data = Vec::with_capacity(m.len as usize);
            f.read_to_end(&mut data)
                .map_err(clada_git::io_err_pub("cannot read", &repo.abs_path(rel)))?;
            Some(Before::Blob {
                id: repo.write_blob(&data)?.to_string(),
                executable: m.is_executable(),
            })
        }
    })
}

fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}
