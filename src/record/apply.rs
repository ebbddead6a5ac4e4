//! `apply` as a git transaction (DESIGN §6).
//!
//! Order of work, chosen so that every point of failure leaves a recoverable state:
//!
//! 1. parse, plan and sandbox-check the reply; nothing valid → report, git untouched;
//! 2. take the clada lock; refuse (nothing changed) during merges/rebases/…, on an unborn
//!    branch, while stepped back, with an interrupted transaction, without an identity;
//! 3. status; record the user's tracked work in snapshot trees (blobs only, no ref moves);
//! 4. write the journal (prior state of every path the reply may write, untracked files saved
//!    as blobs) — from here on `git clada undo` can roll everything back;
//! 5. execute the actions (the engine writes files atomically, one by one);
//! 6. collect the changed paths (file actions, plus what exec changed), build the new tree by
//!    editing the base tree (only changed paths hashed), write the index with them staged;
//! 7. hooks (`pre-commit`, `commit-msg`); a failing hook leaves the changes staged, no commit;
//! 8. write the snapshot and AI commits, record the commit in the journal, move the branch
//!    with compare-and-swap, store the apply record, notes, `post-commit`; drop the journal.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::action::{self, EngineOptions, Execution, FileState, Step};
use crate::block::{self, Dialect};
use crate::input::Reply;
use crate::repo::{
    BString, ByteSlice, EntryKind, Expected, Head, Index, IndexUpdate, ObjectId, RefUpdate, Repo,
    RepoError, Status, TreeChange,
};
use crate::sandbox::{Sandbox, SandboxError};

use super::journal::{Before, Journal, JournalError, JournalPath, JournalSnapshot};
use super::message::{self, Item, Verb};
use super::restore::{self, RestoreError};
use super::snapshot;

/// How to apply.
#[derive(Debug, Clone, Default)]
pub struct ApplyOptions {
    pub dialect: Dialect,
    /// Permit paths outside the worktree (never committed).
    pub allow_outside: bool,
    /// All or nothing: restore everything and commit nothing if any block fails.
    pub atomic: bool,
    /// Stage the changes but do not commit.
    pub no_commit: bool,
    /// Skip the pre-commit, commit-msg and post-commit hooks.
    pub no_verify: bool,
    /// Refuse a dirty worktree instead of snapshotting it.
    pub no_snapshot: bool,
    /// Replaces the generated subject.
    pub message: Option<String>,
    /// Engine options; `engine.dry_run` makes the whole apply a dry run.
    pub engine: EngineOptions,
}

/// What an apply did.
#[derive(Debug)]
pub struct ApplyOutcome {
    /// The report, with the git fields (`gitCommit`, `snapshotCommit`, `steps`, `warnings`)
    /// filled in.
    pub execution: Execution,
    pub commit: Option<ObjectId>,
    pub snapshot: Option<ObjectId>,
    /// With `--dry-run`: the diff that would be committed.
    pub diff: Option<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum ApplyError {
    /// Refused for safety; nothing was changed (exit 3).
    #[error("{0}")]
    Refused(String),
    #[error(transparent)]
    Repo(#[from] RepoError),
    #[error(transparent)]
    Journal(#[from] JournalError),
    #[error(transparent)]
    Restore(#[from] RestoreError),
    #[error(transparent)]
    Sandbox(#[from] SandboxError),
}

/// The ref that keeps an apply's record (journal + index tree + saved files) reachable.
pub fn record_ref(commit: ObjectId) -> String {
    format!("refs/clada/apply/{commit}")
}

/// Refusal checks shared by every command that changes the worktree: an interrupted
/// transaction, a git operation in progress.
pub fn refuse_if_busy(repo: &Repo) -> Result<(), ApplyError> {
    if let Some(j) = Journal::read(repo)? {
        return Err(ApplyError::Refused(format!(
            "an earlier `git clada apply` of {} was interrupted (pid {}); run `git clada undo` to roll it back first",
            j.source, j.pid
        )));
    }
    if restore::pending(repo)?.is_some() {
        return Err(ApplyError::Refused(
            "an earlier `git clada undo`/`redo` was interrupted; run `git clada undo` again to finish it".into(),
        ));
    }
    if let Some(op) = repo.in_progress() {
        return Err(ApplyError::Refused(op.describe().to_string()));
    }
    Ok(())
}

/// Applies `reply` to the repository containing `cwd`.
pub fn apply(cwd: &Path, reply: &Reply, opts: &ApplyOptions) -> Result<ApplyOutcome, ApplyError> {
    let repo = Repo::discover(cwd)?;
    crate::trace::phase("open");
    // The repository-sized work (reading the index, comparing it with the worktree) runs in
    // the background while the reply is parsed and the lock taken; `finish_status` redoes it
    // if the index changed in between.
    let prefetch = repo.prefetch_status();
    let parsed = block::parse(&reply.text, opts.dialect);
    let sandbox = Sandbox::new(repo.workdir(), opts.allow_outside)?;
    let plan = action::plan(&parsed, &sandbox);
    let dry = opts.engine.dry_run;
    crate::trace::phase("parse+plan");

    if plan.nothing_to_do() {
        return Ok(uncommitted(action::execute(&plan, &sandbox, &opts.engine)));
    }

    // A dry run reads the state without taking the lock, so it changes nothing, not even
    // the lock file.
    let _lock = if dry { None } else { Some(repo.lock()?) };
    crate::trace::phase("checks: lock");
    refuse_if_busy(&repo)?;
    crate::trace::phase("checks: busy");
    let head = repo.head()?;
    let head_commit = match &head {
        Head::Unborn { name } => {
            return Err(ApplyError::Refused(format!(
                "the branch {} has no commit yet; make a first commit (e.g. `git commit --allow-empty -m init`) and apply again",
                name.strip_prefix("refs/heads/").unwrap_or(name)
            )))
        }
        Head::Branch { commit, .. } | Head::Detached { commit } => *commit,
    };
    if let Some(msg) = crate::history::step::stepped_back(&repo)? {
        return Err(ApplyError::Refused(msg));
    }
    crate::trace::phase("checks: head+step");
    let identity = repo.identity()?;
    crate::trace::phase("checks: identity");
    let head_tree = repo.tree_of(head_commit)?;
    crate::trace::phase("checks");
    let has_exec = plan
        .actions
        .iter()
        .any(|a| a.action == "exec" && a.op.is_ok());
    // Exec may create files, so its status includes untracked ones (a directory walk).
    let (index, status) = if has_exec {
        let index = repo.read_index()?;
        let status = repo.status(head_tree, &index, true)?;
        (index, status)
    } else {
        repo.finish_status(prefetch, head_tree)?
    };
    let conflicted = index.conflicted_paths();
    if !conflicted.is_empty() {
        return Err(ApplyError::Refused(format!(
            "the index has unresolved conflicts in {}; resolve them and `git add` the files first",
            snapshot::describe_paths(&conflicted, 5)
        )));
    }
    crate::trace::phase("status");
    if status.is_dirty() && opts.no_snapshot {
        return Err(ApplyError::Refused(format!(
            "uncommitted changes in {}; commit or stash them first, or apply without --no-snapshot (git-clada then records them in a snapshot commit that `git clada undo` restores)",
            snapshot::describe_paths(&status.dirty_paths(), 5)
        )));
    }

    if dry {
        return dry_run(&plan, &sandbox, opts, &status);
    }

    let mut hasher = repo.hasher_with(&index)?;
    // The user's tracked work as trees (blobs are written, no ref moves); the snapshot
    // commit itself is only made when there is something to commit on top of it.
    let (index_tree, base_tree) = if status.is_dirty() {
        let it = snapshot::index_tree(&repo, head_tree, &index, &status)?;
        let wt = snapshot::worktree_tree(&repo, it, &status, &mut hasher)?;
        (it, wt)
    } else {
        (head_tree, head_tree)
    };
    crate::failpoint::hit("apply:after-snapshot-trees");

    let mut journal = Journal {
        op: "apply".into(),
        started: now(),
        pid: std::process::id(),
        source: reply.source.clone(),
        head: head_commit.to_string(),
        branch: head.branch().map(str::to_string),
        base_tree: base_tree.to_string(),
        index_tree: index_tree.to_string(),
        snapshot: None,
        paths: journal_paths(&repo, &plan, base_tree)?,
        exec: has_exec,
        commit: None,
        after: Vec::new(),
        index_flags: Vec::new(),
    };
    journal.write(&repo)?;
    crate::trace::phase("snapshot trees+journal");
    crate::failpoint::hit("apply:after-journal");
    // git's index lock is taken before any file is written, so a git command holding it
    // makes the apply fail with nothing changed. It is taken after the journal so that a
    // crash from here on leaves a journal, and undo knows the lock left behind is ours.
    // Exec may run git commands that need the lock themselves, so with exec it is taken
    // after the actions ran.
    let early_lock = if has_exec {
        None
    } else {
        match repo.lock_index() {
            Ok(lock) => Some(lock),
            Err(err) => {
                Journal::remove(&repo)?;
                return Err(err.into());
            }
        }
    };

    let mut execution = action::execute(&plan, &sandbox, &opts.engine);
    crate::trace::phase("execute");
    crate::failpoint::hit("apply:after-execute");

    // Paths changed by file actions, then by exec (status before vs after).
    let mut changed: BTreeSet<BString> = BTreeSet::new();
    let mut order: Vec<BString> = Vec::new();
    for c in &execution.changes {
        let Some(rel) = &c.rel else { continue };
        let is_file = |s: &FileState| !matches!(s, FileState::Absent | FileState::Dir);
        if !is_file(&c.before) && !is_file(&c.after) {
            continue;
        }
        let rel = BString::from(rel.as_str());
        if changed.insert(rel.clone()) {
            order.push(rel);
        }
    }
    if has_exec {
        for p in exec_changes(&repo, head_tree, base_tree, &index, &status, &mut hasher)? {
            if changed.insert(p.clone()) {
                order.push(p);
            }
        }
    }

    if opts.atomic && !execution.result.success {
        roll_back(&repo, &journal, &execution, &order)?;
        Journal::remove(&repo)?;
        execution.result.warnings.push(
            "--atomic: a block failed, so every change of this reply was undone and nothing was committed".into(),
        );
        return Ok(uncommitted(execution));
    }

    // Files an action wrote that git ignores are left in place but not committed, as
    // `git add` would refuse them too.
    let untracked_changed: Vec<BString> = order
        .iter()
        .filter(|p| {
            index.entry(p.as_bstr()).is_none()
                && repo
                    .tree_entry(base_tree, p.as_bstr())
                    .ok()
                    .flatten()
                    .is_none()
        })
        .cloned()
        .collect();
    let ignored: BTreeSet<BString> = repo
        .ignored(&index, &untracked_changed)?
        .into_iter()
        .collect();
    for p in &ignored {
        execution.result.warnings.push(format!(
            "{p} is ignored by .gitignore: written, but not committed (git add -f it yourself if you want it tracked)"
        ));
    }
    order.retain(|p| !ignored.contains(p));

    // The new tree: the base tree with every changed path hashed from the worktree.
    let mut tree_changes = Vec::with_capacity(order.len());
    let mut items = Vec::with_capacity(order.len());
    for p in &order {
        let entry = hasher.hash(p.as_bstr())?.map(|(e, _)| e);
        let before = repo
            .tree_entry(base_tree, p.as_bstr())?
            .filter(|e| e.kind != EntryKind::Tree);
        if before == entry {
            continue;
        }
        let verb = match (before, entry) {
            (None, _) => Verb::Create,
            (_, None) => Verb::Delete,
            _ => Verb::Edit,
        };
        items.push(Item::Path(verb, p.to_string()));
        tree_changes.push(TreeChange {
            path: p.clone(),
            entry,
        });
    }
    let items = message::fold_moves(items, &execution.result);
    let new_tree = repo.edit_tree(base_tree, &tree_changes)?;
    // For undo: the index flags the commit's index update clears (recovery helper's call).
    let recorded_flags =
        restore::flags_to_record(&index, tree_changes.iter().map(|c| c.path.as_bstr()));
    crate::trace::phase("ignore check+hash+tree");
    crate::failpoint::hit("apply:after-tree");

    if new_tree == base_tree {
        Journal::remove(&repo)?;
        if !order.is_empty() || execution.changes.iter().any(|c| c.rel.is_some()) {
            execution
                .result
                .warnings
                .push("the reply left every tracked file as it was: nothing to commit".into());
        }
        return Ok(uncommitted(execution));
    }

    // Two index states: everything staged (what is committed), and the user's own index with
    // only the AI's paths staged (what is left when nothing is committed).
    let ai_updates: Vec<IndexUpdate> = tree_changes
        .iter()
        .map(|c| IndexUpdate {
            path: c.path.clone(),
            entry: c.entry,
            worktree_matches: true,
        })
        .collect();
    if opts.no_commit {
        let lock = index_lock(early_lock, &repo, &journal, &execution, &order)?;
        lock.commit(&with_updates(&repo, &index, &ai_updates)?)?;
        Journal::remove(&repo)?;
        execution.result.steps.push(Step {
            name: "stage".into(),
            success: true,
            output: format!(
                "--no-commit: {} path(s) staged, nothing committed; review with `git diff --cached`",
                tree_changes.len()
            ),
        });
        return Ok(uncommitted(execution));
    }

    let mut full_updates = ai_updates.clone();
    let ai_paths: BTreeSet<&BString> = tree_changes.iter().map(|c| &c.path).collect();
    for p in status.dirty_paths() {
        if ai_paths.contains(&p) {
            continue;
        }
        let entry = repo
            .tree_entry(base_tree, p.as_bstr())?
            .filter(|e| e.kind != EntryKind::Tree);
        full_updates.push(IndexUpdate {
            path: p,
            entry,
            worktree_matches: true,
        });
    }
    // Whether a pre-commit or commit-msg hook will run: they read the staged index from
    // disk, may re-stage files, and may fail, which needs the user's own index back.
    let runs_hooks = !opts.no_verify
        && (repo.hook_path("pre-commit").is_some() || repo.hook_path("commit-msg").is_some());
    let (mut full_index, index) = if runs_hooks {
        (index.clone(), index)
    } else {
        (index, Index::empty_like(&repo))
    };
    crate::trace::phase("index: prepare");
    full_index.apply(&repo, &full_updates)?;
    crate::trace::phase("index: apply");
    // Everything is staged now, so the index holds exactly the new tree.
    full_index.set_cache_tree(&repo, new_tree, None)?;
    crate::trace::phase("index: cache-tree");
    // The index lock is held until the new index is in place; the branch moves only after.
    // Hooks read the index from disk, so with hooks it is written now; without, it is written
    // on another thread while the commit, record and notes objects are made, and joined
    // before any ref moves.
    let lock = index_lock(early_lock, &repo, &journal, &execution, &order)?;
    crate::failpoint::hit("apply:index-locked");
    let mut index_writer = None;
    if runs_hooks {
        lock.commit(&full_index)?;
        crate::failpoint::hit("apply:after-index");
    } else {
        index_writer = Some(std::thread::spawn(move || lock.commit(&full_index)));
    }

    crate::trace::phase("write index");
    let coauthor = repo.config_string("clada.coauthor");
    let reply_blob = repo.write_blob(reply.text.as_bytes())?;
    let mut msg = message::build(
        &execution.result,
        &items,
        &reply.source,
        &reply_blob.to_string(),
        opts.message.as_deref(),
        coauthor.as_deref(),
    );
    let mut commit_tree = new_tree;

    if runs_hooks {
        match run_pre_commit_hooks(&repo, &mut msg)? {
            HookVerdict::Pass(steps) => execution.result.steps.extend(steps),
            HookVerdict::Fail(steps) => {
                execution.result.steps.extend(steps);
                repo.lock_index()?
                    .commit(&with_updates(&repo, &index, &ai_updates)?)?;
                Journal::remove(&repo)?;
                execution.result.warnings.push(
                    "a hook failed, so nothing was committed; the AI's changes are applied and staged (fix the problem and `git commit`, or `git restore --staged --worktree` the paths)".into(),
                );
                return Ok(uncommitted(execution));
            }
        }
        // A hook may have re-staged files (formatters do): commit what the index holds.
        let after = repo.read_index()?;
        commit_tree = repo.tree_of_index(new_tree, &after)?;
    }

    let mut parent = head_commit;
    let mut snap = None;
    if status.is_dirty() {
        let s = snapshot::commit(
            &repo,
            head_commit,
            index_tree,
            base_tree,
            &identity,
            &reply.source,
        )?;
        parent = s.commit;
        journal.snapshot = Some(JournalSnapshot {
            commit: s.commit.to_string(),
            index_tree: index_tree.to_string(),
        });
        snap = Some(s);
    }
    let commit = repo.write_commit(commit_tree, &[parent], &msg, &identity.0, &identity.1)?;
    journal.commit = Some(commit.to_string());
    journal.after = untracked_after(&repo, &journal, commit_tree)?;
    journal.index_flags = recorded_flags;
    let record = record_tree(&repo, &journal)?;
    let subject = msg.lines().next().unwrap_or_default().to_string();
    execution.result.git_commit = Some(commit.to_string());
    execution.result.snapshot_commit = snap.map(|s| s.commit.to_string());
    execution.result.steps.push(Step {
        name: "commit".into(),
        success: true,
        output: format!("{} {subject}", Repo::short(commit)),
    });
    execution.result.update_success();
    let mut reports = repo.note_book(crate::repo::NOTES_REF)?;
    reports.stage(commit, crate::report::json(&execution.result).as_bytes())?;
    let mut replies = repo.note_book(super::REPLY_NOTES_REF)?;
    replies.stage(commit, reply.text.as_bytes())?;
    let short = Repo::short(commit);
    // The branch, the apply record and both notes move in one transaction: all or none.
    let mut updates = vec![
        RefUpdate {
            name: "HEAD".into(),
            new: commit,
            expected: Expected::Value(head_commit),
            reflog: format!("clada: apply {}: {subject}", reply.source),
        },
        RefUpdate {
            name: record_ref(commit),
            new: record,
            expected: Expected::Any,
            reflog: "clada: apply record".into(),
        },
    ];
    updates.extend(reports.write(&format!("clada: results of {short}"))?);
    updates.extend(replies.write(&format!("clada: reply of {short}"))?);
    if let Some(writer) = index_writer {
        writer
            .join()
            .map_err(|_| RepoError::Invalid("writing the index stopped unexpectedly".into()))??;
        crate::failpoint::hit("apply:after-index");
    }
    // The journal on disk needs no update for this step: rolling back restores its HEAD
    // whether or not the move below happened.
    crate::trace::phase("commit+record+notes");
    crate::failpoint::hit("apply:before-ref");
    repo.update_refs(&updates)?;
    crate::trace::phase("refs");
    crate::failpoint::hit("apply:after-ref");

    if !opts.no_verify {
        if let Some(run) = repo.run_hook("post-commit", &[])? {
            if !run.success {
                execution.result.warnings.push(format!(
                    "the post-commit hook failed (exit {}); the commit stands",
                    run.exit_code.map_or("signal".into(), |c| c.to_string())
                ));
            }
        }
    }
    Journal::remove(&repo)?;
    Ok(ApplyOutcome {
        execution,
        commit: Some(commit),
        snapshot: snap.map(|s| s.commit),
        diff: None,
    })
}

/// `index` with `updates` applied (the user's index with only the AI's paths staged).
fn with_updates(repo: &Repo, index: &Index, updates: &[IndexUpdate]) -> Result<Index, ApplyError> {
    let mut out = index.clone();
    out.apply(repo, updates)?;
    Ok(out)
}

/// The outcome of an apply that committed nothing (its report finalised).
fn uncommitted(mut execution: Execution) -> ApplyOutcome {
    execution.result.update_success();
    ApplyOutcome {
        execution,
        commit: None,
        snapshot: None,
        diff: None,
    }
}

fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
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
        let abs = repo.abs_path(b.as_bstr());
        let md = std::fs::symlink_metadata(&abs).ok();
        let before = match (&tracked, &md) {
            (Some(e), _) if e.kind != EntryKind::Tree => Before::Tracked,
            (_, None) => Before::Absent,
            (_, Some(md)) if md.is_dir() => {
                // A directory an action may delete: every file below it is saved too.
                if let Ok(rd) = std::fs::read_dir(&abs) {
                    for ent in rd.flatten() {
                        let name = ent.file_name();
                        queue.push(format!("{rel}/{}", name.to_string_lossy()));
                    }
                }
                if tracked.is_some() {
                    Before::Tracked
                } else {
                    Before::Dir
                }
            }
            (_, Some(md)) if md.file_type().is_symlink() => {
                use std::os::unix::ffi::OsStrExt;
                let target = std::fs::read_link(&abs)
                    .map_err(crate::repo::io_err_pub("cannot read link", &abs))?;
                Before::Link {
                    id: repo.write_blob(target.as_os_str().as_bytes())?.to_string(),
                }
            }
            (_, Some(md)) => {
                use std::os::unix::fs::PermissionsExt;
                let data =
                    std::fs::read(&abs).map_err(crate::repo::io_err_pub("cannot read", &abs))?;
                Before::Blob {
                    id: repo.write_blob(&data)?.to_string(),
                    executable: md.permissions().mode() & 0o111 != 0,
                }
            }
        };
        out.push(JournalPath { path: rel, before });
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(out)
}

/// The state now of every journaled path that `tree` (the AI commit) does not track.
fn untracked_after(
    repo: &Repo,
    journal: &Journal,
    tree: ObjectId,
) -> Result<Vec<JournalPath>, ApplyError> {
    let mut out = Vec::new();
    for jp in &journal.paths {
        let rel = BString::from(jp.path.as_str());
        if repo
            .tree_entry(tree, rel.as_bstr())?
            .is_some_and(|e| e.kind != EntryKind::Tree)
        {
            continue;
        }
        let abs = repo.abs_path(rel.as_bstr());
        let before = match std::fs::symlink_metadata(&abs) {
            Err(_) => Before::Absent,
            Ok(md) if md.is_dir() => Before::Dir,
            Ok(md) if md.file_type().is_symlink() => {
                use std::os::unix::ffi::OsStrExt;
                let target = std::fs::read_link(&abs)
                    .map_err(crate::repo::io_err_pub("cannot read link", &abs))?;
                Before::Link {
                    id: repo.write_blob(target.as_os_str().as_bytes())?.to_string(),
                }
            }
            Ok(md) => {
                use std::os::unix::fs::PermissionsExt;
                let data =
                    std::fs::read(&abs).map_err(crate::repo::io_err_pub("cannot read", &abs))?;
                Before::Blob {
                    id: repo.write_blob(&data)?.to_string(),
                    executable: md.permissions().mode() & 0o111 != 0,
                }
            }
        };
        out.push(JournalPath {
            path: jp.path.clone(),
            before,
        });
    }
    Ok(out)
}

/// Tracked paths exec changed (compared with the base tree) and untracked files it created.
fn exec_changes(
    repo: &Repo,
    head_tree: ObjectId,
    base_tree: ObjectId,
    index: &Index,
    before: &Status,
    hasher: &mut crate::repo::Hasher<'_>,
) -> Result<Vec<BString>, ApplyError> {
    let after = repo.status(head_tree, index, true)?;
    let before_dirty: BTreeSet<BString> = before.dirty_paths().into_iter().collect();
    let before_untracked: BTreeSet<&BString> = before.untracked.iter().collect();
    let mut out = Vec::new();
    for p in after.dirty_paths() {
        if !before_dirty.contains(&p) {
            out.push(p);
            continue;
        }
        let now = hasher.hash(p.as_bstr())?.map(|(e, _)| e);
        let was = repo.tree_entry(base_tree, p.as_bstr())?;
        if now != was {
            out.push(p);
        }
    }
    for p in &after.untracked {
        if !before_untracked.contains(p) {
            out.push(p.clone());
        }
    }
    Ok(out)
}

/// git's index lock: the one taken before the actions ran, or (the exec case) taken now. When
/// another git command holds it now, the reply's changes are rolled back so the failure leaves
/// nothing behind.
fn index_lock(
    early: Option<crate::repo::IndexLock>,
    repo: &Repo,
    journal: &Journal,
    execution: &Execution,
    changed: &[BString],
) -> Result<crate::repo::IndexLock, ApplyError> {
    if let Some(lock) = early {
        return Ok(lock);
    }
    let err = match repo.lock_index() {
        Ok(lock) => return Ok(lock),
        Err(err) => err,
    };
    roll_back(repo, journal, execution, changed)?;
    Journal::remove(repo)?;
    Err(ApplyError::Repo(RepoError::Invalid(format!(
        "{err} (the reply's changes were rolled back; nothing was committed)"
    ))))
}

/// Puts every path the reply changed back as it was (`--atomic`).
fn roll_back(
    repo: &Repo,
    journal: &Journal,
    execution: &Execution,
    changed: &[BString],
) -> Result<(), ApplyError> {
    // File actions restore themselves precisely (also outside the worktree) …
    action::restore(&execution.changes).map_err(|e| {
        ApplyError::Repo(RepoError::Invalid(format!(
            "--atomic: cannot restore the files changed by the reply: {e}; `git clada undo` can finish the job"
        )))
    })?;
    // … and what exec changed goes back to the recorded state.
    let file_paths: BTreeSet<String> = execution
        .changes
        .iter()
        .filter_map(|c| c.rel.clone())
        .collect();
    let exec_paths: Vec<String> = changed
        .iter()
        .map(|p| p.to_string())
        .filter(|p| !file_paths.contains(p))
        .collect();
    if exec_paths.is_empty() {
        return Ok(());
    }
    let base_tree = super::journal::parse_id(&journal.base_tree)?;
    let mut hasher = repo.hasher()?;
    let mut writes = Vec::new();
    let mut deletes = Vec::new();
    for p in exec_paths {
        let b = BString::from(p);
        match repo.tree_entry(base_tree, b.as_bstr())? {
            Some(e) if e.kind != EntryKind::Tree => writes.push((b, e)),
            _ => deletes.push(b),
        }
    }
    repo.execute_checkout(&crate::repo::CheckoutPlan { writes, deletes }, &mut hasher)?;
    Ok(())
}

/// The apply record's tree (journal, index tree, saved files), kept under
/// `refs/clada/apply/<commit>` so undo can restore untracked files and the staged/unstaged split.
fn record_tree(repo: &Repo, journal: &Journal) -> Result<ObjectId, ApplyError> {
    let json = serde_json::to_vec_pretty(journal)
        .map_err(|e| RepoError::Invalid(format!("cannot serialise the apply record: {e}")))?;
    let mut changes = vec![TreeChange {
        path: "journal.json".into(),
        entry: Some(crate::repo::Entry {
            kind: EntryKind::Blob,
            id: repo.write_blob(&json)?,
        }),
    }];
    let index_tree = super::journal::parse_id(&journal.index_tree)?;
    changes.push(TreeChange {
        path: "index".into(),
        entry: Some(crate::repo::Entry {
            kind: EntryKind::Tree,
            id: index_tree,
        }),
    });
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
            entry: Some(crate::repo::Entry {
                kind: EntryKind::Blob,
                id: super::journal::parse_id(id)?,
            }),
        });
    }
    Ok(repo.edit_tree(repo.empty_tree(), &changes)?)
}

/// Reads the apply record of an AI commit.
pub fn read_record(repo: &Repo, commit: ObjectId) -> Result<Option<Journal>, ApplyError> {
    let Some(tree) = repo.read_ref(&record_ref(commit))? else {
        return Ok(None);
    };
    let Some(entry) = repo.tree_entry(tree, b"journal.json".as_bstr())? else {
        return Ok(None);
    };
    let data = repo.read_blob(entry.id)?;
    let journal = serde_json::from_slice(&data).map_err(|source| JournalError::Corrupt {
        path: std::path::PathBuf::from(record_ref(commit)),
        source,
    })?;
    Ok(Some(journal))
}

enum HookVerdict {
    Pass(Vec<Step>),
    Fail(Vec<Step>),
}

/// `pre-commit`, then `commit-msg` on the message (which it may rewrite).
fn run_pre_commit_hooks(repo: &Repo, msg: &mut String) -> Result<HookVerdict, ApplyError> {
    let mut steps = Vec::new();
    if let Some(run) = repo.run_hook("pre-commit", &[])? {
        let ok = run.success;
        steps.push(hook_step(run));
        if !ok {
            return Ok(HookVerdict::Fail(steps));
        }
    }
    if repo.hook_path("commit-msg").is_some() {
        let path = repo.git_dir().join("COMMIT_EDITMSG");
        std::fs::write(&path, msg.as_bytes())
            .map_err(crate::repo::io_err_pub("cannot write", &path))?;
        let arg = path.to_string_lossy().into_owned();
        if let Some(run) = repo.run_hook("commit-msg", &[&arg])? {
            let ok = run.success;
            steps.push(hook_step(run));
            if !ok {
                return Ok(HookVerdict::Fail(steps));
            }
        }
        let edited = std::fs::read_to_string(&path)
            .map_err(crate::repo::io_err_pub("cannot read", &path))?;
        let edited = edited.trim_end();
        if !edited.is_empty() {
            *msg = format!("{edited}\n");
        }
    }
    Ok(HookVerdict::Pass(steps))
}

fn hook_step(run: crate::repo::HookRun) -> Step {
    let mut output = run.output.trim_end().to_string();
    if !run.success {
        let status = run
            .exit_code
            .map_or("killed by a signal".to_string(), |c| format!("exit {c}"));
        if output.is_empty() {
            output = format!("hook {} failed ({status})", run.name);
        } else {
            output = format!("hook {} failed ({status}):\n{output}", run.name);
        }
    }
    Step {
        name: format!("hook {}", run.name),
        success: run.success,
        output,
    }
}

/// `--dry-run`: the engine runs against an in-memory overlay; the report and the diff that
/// would be committed come back, and nothing on disk (not even `.git`) changes.
fn dry_run(
    plan: &action::Plan,
    sandbox: &Sandbox,
    opts: &ApplyOptions,
    status: &Status,
) -> Result<ApplyOutcome, ApplyError> {
    let mut execution = action::execute(plan, sandbox, &opts.engine);
    let mut diff = String::new();
    let mut seen = BTreeMap::new();
    for c in &execution.changes {
        if let Some(rel) = &c.rel {
            seen.insert(rel.clone(), (c.before.clone(), c.after.clone()));
        }
    }
    for (rel, (before, after)) in &seen {
        diff.push_str(&unified_diff(rel, before, after));
    }
    if status.is_dirty() {
        execution.result.warnings.push(format!(
            "your uncommitted changes ({}) would first be recorded in a snapshot commit",
            snapshot::describe_paths(&status.dirty_paths(), 5)
        ));
    }
    execution
        .result
        .warnings
        .push("dry run: nothing was changed".into());
    Ok(ApplyOutcome {
        diff: Some(diff),
        ..uncommitted(execution)
    })
}

fn unified_diff(rel: &str, before: &FileState, after: &FileState) -> String {
    let text = |s: &FileState| -> Option<String> {
        match s {
            FileState::File { bytes, .. } => Some(String::from_utf8_lossy(bytes).into_owned()),
            FileState::Symlink { target } => Some(format!("{}\n", target.display())),
            _ => None,
        }
    };
    let (a, b) = (text(before), text(after));
    if a == b {
        return String::new();
    }
    let old_name = if a.is_some() {
        format!("a/{rel}")
    } else {
        "/dev/null".into()
    };
    let new_name = if b.is_some() {
        format!("b/{rel}")
    } else {
        "/dev/null".into()
    };
    let a = a.unwrap_or_default();
    let b = b.unwrap_or_default();
    let diff = similar::TextDiff::from_lines(&a, &b);
    let mut out = format!("diff --git a/{rel} b/{rel}\n");
    out.push_str(
        &diff
            .unified_diff()
            .context_radius(3)
            .header(&old_name, &new_name)
            .to_string(),
    );
    out
}
