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
use crate::read::input::Reply;
use crate::read::{self, Dialect};
use crate::repo::{
    BString, ByteSlice, EntryKind, Expected, Head, Index, IndexUpdate, ObjectId, RefUpdate, Repo,
    RepoError, Status, TreeChange,
};
use crate::sandbox::{Sandbox, SandboxError};

use super::journal::{Before, Journal, JournalError, JournalPath, JournalSnapshot};
use super::message::{self, Item, Verb};
use super::restore::{self, RestoreError};
use super::snapshot;
use crate::repo::StatusPrefetch;

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
    /// Refuse a dirty worktree.
    pub no_snapshot: bool,
    /// Record the user's uncommitted work in a snapshot commit on the branch before the AI
    /// commit (the behaviour before uncommitted work stayed uncommitted).
    pub wip_commit: bool,
    /// Replaces the generated subject.
    pub message: Option<String>,
    /// `(name, email)` of the AI commit's author (`--git-author`); the committer, and the
    /// snapshot of the user's work, keep the user's identity.
    pub author: Option<(String, String)>,
    /// Engine options; `engine.dry_run` makes the whole apply a dry run.
    pub engine: EngineOptions,
    /// Path globs the sandbox refuses (config `paths.deny`).
    pub paths_deny: Vec<String>,
    /// `Co-authored-by` value (config `commit.coauthor`); else git config `clada.coauthor`.
    pub coauthor: Option<String>,
    /// `hooks.before` / `hooks.after` from the configuration (see `crate::exec::hooks`).
    pub hooks: crate::exec::hooks::Hooks,
    /// The MCP session the apply is a tool call of: a `Clada-Session` trailer on the commit.
    pub session: Option<String>,
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
    crate::base::trace::phase("open");
    // hooks.before changes the user's state, so it runs before any of it is read.
    let (before, before_ok) = match opts.engine.dry_run {
        true => (Vec::new(), true),
        false => crate::exec::hooks::run("before", &opts.hooks.before, repo.workdir(), &opts.hooks),
    };
    // The repository-sized work (reading the index, comparing it with the worktree) runs in
    // the background while the reply is parsed and the lock taken; `finish_status` redoes it
    // if the index changed in between.
    let prefetch = repo.prefetch_status();
    let parsed = read::parse(&reply.text, opts.dialect);
    let sandbox = Sandbox::new(repo.workdir(), opts.allow_outside)?
        .refuse_nested_repositories(&repo.declared_submodules())
        .deny_paths(&opts.paths_deny);
    // The replacer format's suffix rule searches the tracked files.
    let sandbox = match crate::action::needs_tracked(&parsed) {
        true => sandbox.with_tracked(repo.tracked_paths()),
        false => sandbox,
    };
    let plan = action::plan(&parsed, &sandbox);
    crate::base::trace::phase("parse+plan");
    if !before_ok {
        let mut execution = action::execute(
            &action::Plan {
                actions: Vec::new(),
                ..plan.clone()
            },
            &sandbox,
            &opts.engine,
        );
        execution.result.steps = before;
        execution
            .result
            .warnings
            .push("a hooks.before command failed, so no block of the reply was applied".into());
        execution.result.update_success();
        return Ok(uncommitted(execution));
    }

    if plan.nothing_to_do() {
        let mut execution = action::execute(&plan, &sandbox, &opts.engine);
        execution.result.steps = before;
        execution.result.update_success();
        return Ok(uncommitted(execution));
    }

    // A dry run reads the state without taking the lock, so it changes nothing, not even
    // the lock file.
    let dry = opts.engine.dry_run;
    let _lock = if dry { None } else { Some(repo.lock()?) };
    let start = Start::read(&repo, &plan, opts, prefetch)?;
    if dry {
        return dry_run(&plan, &sandbox, opts, &start.status);
    }
    let mut tx = Transaction::begin(&repo, reply, &plan, &start)?;

    let mut execution = action::execute(&plan, &sandbox, &opts.engine);
    crate::base::trace::phase("execute");
    // hooks.after (a formatter, the tests) sees the reply's result; what it changes is
    // collected with exec's changes (`has_exec`).
    let (after, _) =
        crate::exec::hooks::run("after", &opts.hooks.after, repo.workdir(), &opts.hooks);
    execution
        .result
        .steps
        .extend(before.into_iter().chain(after));
    execution.result.update_success();
    crate::base::failpoint::hit("apply:after-execute");
    execution.result.warnings.append(&mut tx.warnings);
    tx.run(&start, opts, reply, execution)
}

/// The state an apply starts from, read under the clada lock after the refusal checks.
struct Start {
    head: Head,
    head_commit: ObjectId,
    head_tree: ObjectId,
    index: Index,
    status: Status,
    identity: (crate::repo::Signature, crate::repo::Signature),
    has_exec: bool,
    /// The index file's identity when it was read, to notice a git command changing it
    /// before the apply holds git's index lock.
    index_stamp: Option<IndexStamp>,
}

/// Size, modification time and inode of `.git/index`: git rewrites the index by renaming a
/// new file over it, so any change shows in these.
#[derive(Debug, Clone, PartialEq, Eq)]
struct IndexStamp(u64, i64, i64, u64);

fn index_stamp(repo: &Repo) -> Option<IndexStamp> {
    use std::os::unix::fs::MetadataExt;
    let md = std::fs::metadata(repo.git_dir().join("index")).ok()?;
    Some(IndexStamp(md.len(), md.mtime(), md.mtime_nsec(), md.ino()))
}

impl Start {
    /// Refusal checks, then HEAD, the index and the status.
    fn read(
        repo: &Repo,
        plan: &action::Plan,
        opts: &ApplyOptions,
        prefetch: StatusPrefetch,
    ) -> Result<Start, ApplyError> {
        refuse_if_busy(repo)?;
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
        if let Some(msg) = super::stepped_back(repo)? {
            return Err(ApplyError::Refused(msg));
        }
        let identity = repo.identity()?;
        let head_tree = repo.tree_of(head_commit)?;
        crate::base::trace::phase("checks");
        let has_exec = !opts.hooks.after.is_empty()
            || plan
                .actions
                .iter()
                .any(|a| a.action == "exec" && a.op.is_ok());
        let index_stamp = index_stamp(repo);
        // Exec may create, change or delete untracked files, so its status lists them (a
        // directory walk) for the journal to save.
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
        crate::base::trace::phase("status");
        if status.is_dirty() && opts.no_snapshot {
            return Err(ApplyError::Refused(format!(
                "uncommitted changes in {}; commit or stash them first, or apply without --no-snapshot (they then stay uncommitted, and `git clada undo` restores them exactly)",
                snapshot::describe_paths(&status.dirty_paths(), 5)
            )));
        }
        Ok(Start {
            head,
            head_commit,
            head_tree,
            index,
            status,
            identity,
            has_exec,
            index_stamp,
        })
    }

    /// Whether HEAD or the index changed since `read` (another git command, or exec).
    fn moved(&self, repo: &Repo) -> Result<Option<String>, ApplyError> {
        let now = repo.head()?.commit();
        if now != Some(self.head_commit) {
            return Ok(Some(format!(
                "HEAD moved from {} to {}",
                Repo::short(self.head_commit),
                now.map_or("nothing".into(), Repo::short)
            )));
        }
        if index_stamp(repo) != self.index_stamp {
            return Ok(Some("the index changed".into()));
        }
        Ok(None)
    }
}

/// An apply in progress: the journal is on disk, so from here on `git clada undo` can roll
/// everything back.
struct Transaction<'r> {
    repo: &'r Repo,
    journal: Journal,
    /// The tree of the tracked worktree before the apply (W) and of the index (I).
    base_tree: ObjectId,
    index_tree: ObjectId,
    /// git's index lock, taken before any file is written (without exec).
    early_lock: Option<crate::repo::IndexLock>,
    /// Warnings found while preparing (e.g. untracked files too large to save).
    warnings: Vec<String>,
}

impl<'r> Transaction<'r> {
    /// Records the user's state in trees and the journal, then takes git's index lock.
    fn begin(
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
        crate::base::failpoint::hit("apply:after-snapshot-trees");
        let mut warnings = Vec::new();
        let mut paths = journal_paths(repo, plan, base_tree)?;
        if start.has_exec {
            // Exec can touch any file: every untracked one is saved so undo can put it back.
            let extra = save_untracked(repo, &start.status.untracked, &paths, &mut warnings)?;
            paths.extend(extra);
            paths.sort_by(|a, b| a.path.cmp(&b.path));
        }
        // For undo: the index flags of the paths the reply may write (the index update
        // clears them) and of intent-to-add entries (recovery helper's call).
        let index_flags = super::restore::flags_to_record(
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
        };
        journal.write(repo)?;
        crate::base::trace::phase("snapshot trees+journal");
        crate::base::failpoint::hit("apply:after-journal");
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

/// The AI's changes as trees.
struct Built {
    /// Every changed path relative to the user's worktree tree W (what the worktree now holds).
    changes: Vec<TreeChange>,
    /// The tracked worktree after the apply (W').
    after_tree: ObjectId,
    /// The changes to commit on top of HEAD when the user's work stays uncommitted; `Err`
    /// with the reason when it cannot be kept apart (the snapshot fallback).
    on_head: Result<Vec<TreeChange>, String>,
    items: Vec<Item>,
}

impl Transaction<'_> {
    /// Everything after the actions ran: collect, build, stage, hooks, commit, record.
    fn run(
        mut self,
        start: &Start,
        opts: &ApplyOptions,
        reply: &Reply,
        mut execution: Execution,
    ) -> Result<ApplyOutcome, ApplyError> {
        let repo = self.repo;
        let changed = self.collect_changes(start, &mut execution)?;
        let hook_failed = opts.hooks.rollback_on_failure
            && execution
                .result
                .steps
                .iter()
                .any(|s| !s.success && crate::exec::hooks::is_hook_step(s));
        if (opts.atomic && !execution.result.success) || hook_failed {
            roll_back(repo, &self.journal, &execution, &changed)?;
            Journal::remove(repo)?;
            let cause = if opts.atomic {
                "--atomic"
            } else {
                "hooks.rollback_on_failure"
            };
            crate::report::mark_rolled_back(&mut execution.result, cause);
            return Ok(uncommitted(execution));
        }
        // From here on git's index lock is held (with exec it is taken only now, as exec
        // may have run git commands itself).
        let lock = index_lock(
            self.early_lock.take(),
            repo,
            &self.journal,
            &execution,
            &changed,
        )?;
        if start.has_exec {
            if let Some(what) = start.moved(repo)? {
                // Exec ran git itself (or another git command ran meanwhile): committing on
                // top would mix the two, and rolling back would undo what exec meant to do.
                drop(lock);
                Journal::remove(repo)?;
                execution.result.warnings.push(format!(
                    "exec changed git's state ({what}), so git-clada committed nothing and left the repository exactly as the reply's actions and exec left it (see `git status`); `git clada undo` cannot take this reply back"
                ));
                return Ok(uncommitted(execution));
            }
        }
        crate::base::failpoint::hit("apply:index-locked");
        let built = self.build(start, opts, &changed, &execution)?;
        crate::base::trace::phase("ignore check+hash+tree");
        crate::base::failpoint::hit("apply:after-tree");

        if built.changes.is_empty() {
            drop(lock);
            return self.close_uncommitted(start, reply, execution, None);
        }
        if opts.no_commit {
            let updates = index_updates(&built.changes, &built.changes);
            lock.commit(&with_updates(repo, &start.index, &updates)?)?;
            let after_index = repo.edit_tree(self.index_tree, &built.changes)?;
            execution.result.steps.push(Step {
                name: "stage".into(),
                success: true,
                output: format!(
                    "--no-commit: {} path(s) staged, nothing committed; review with `git diff --cached`, take back with `git clada undo`",
                    built.changes.len()
                ),
            });
            return self.close_uncommitted(
                start,
                reply,
                execution,
                Some((built.after_tree, after_index)),
            );
        }
        self.commit(start, opts, reply, execution, built, lock)
    }

    /// Paths the reply changed: by file actions, then by exec (status before vs after). Paths
    /// git ignores are left in place but not committed, as `git add` would refuse them too.
    fn collect_changes(
        &self,
        start: &Start,
        execution: &mut Execution,
    ) -> Result<Vec<BString>, ApplyError> {
        let repo = self.repo;
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
        if start.has_exec {
            let mut hasher = repo.hasher_with(&start.index)?;
            let by_exec = exec_changes(repo, start, self.base_tree, &mut hasher)?;
            let untracked = untracked_touched(repo, &self.journal, &changed)?;
            let mut listed: Vec<String> = by_exec
                .iter()
                .filter(|p| !changed.contains(*p))
                .map(|p| p.to_string())
                .collect();
            listed.extend(
                untracked
                    .iter()
                    .map(|p| format!("{p} (untracked, not committed)")),
            );
            if !listed.is_empty() {
                execution.result.warnings.push(format!(
                    "exec changed {}: {}",
                    if listed.len() == 1 {
                        "1 path"
                    } else {
                        "these paths"
                    },
                    listed.join(", ")
                ));
            }
            for p in by_exec {
                if changed.insert(p.clone()) {
                    order.push(p);
                }
            }
        }
        let untracked_changed: Vec<BString> = order
            .iter()
            .filter(|p| {
                start.index.entry(p.as_bstr()).is_none()
                    && repo
                        .tree_entry(self.base_tree, p.as_bstr())
                        .ok()
                        .flatten()
                        .is_none()
            })
            .cloned()
            .collect();
        let ignored: BTreeSet<BString> = repo
            .ignored(&start.index, &untracked_changed)?
            .into_iter()
            .collect();
        for p in &ignored {
            let warning = crate::report::ignored_path_warning(&execution.changes, &p.to_string());
            execution.result.warnings.push(warning);
        }
        order.retain(|p| !ignored.contains(p));
        drop_refused_names(repo, &mut order, &mut execution.result.warnings);
        Ok(order)
    }

    /// The changed paths hashed into trees: W' and, where possible, the AI's changes on top
    /// of HEAD alone.
    fn build(
        &self,
        start: &Start,
        opts: &ApplyOptions,
        order: &[BString],
        execution: &Execution,
    ) -> Result<Built, ApplyError> {
        let repo = self.repo;
        let mut hasher = repo.hasher_with(&start.index)?;
        let mut changes = Vec::with_capacity(order.len());
        let mut items = Vec::with_capacity(order.len());
        for p in order {
            let entry = hasher.hash(p.as_bstr())?.map(|(e, _)| e);
            let before = file_entry(repo, self.base_tree, p)?;
            if before == entry {
                continue;
            }
            let verb = match (before, entry) {
                (None, _) => Verb::Create,
                (_, None) => Verb::Delete,
                _ => Verb::Edit,
            };
            items.push(Item::Path(verb, p.to_string()));
            changes.push(TreeChange {
                path: p.clone(),
                entry,
            });
        }
        let items = message::fold_moves(items, &execution.result);
        let after_tree = repo.edit_tree(self.base_tree, &changes)?;
        let on_head = if opts.wip_commit && start.status.is_dirty() {
            Err("--wip commit".to_string())
        } else {
            self.merge_onto_head(start, &changes)?
        };
        Ok(Built {
            changes,
            after_tree,
            on_head,
            items,
        })
    }

    /// The AI's changes as changes of HEAD's tree: for a path the user had changed too, HEAD's
    /// version plus the AI's change by a three-way merge. `Err` with the reason when a path is
    /// staged or the merge conflicts.
    fn merge_onto_head(
        &self,
        start: &Start,
        changes: &[TreeChange],
    ) -> Result<Result<Vec<TreeChange>, String>, ApplyError> {
        let repo = self.repo;
        if !start.status.is_dirty() {
            return Ok(Ok(changes.to_vec()));
        }
        let mut out = Vec::with_capacity(changes.len());
        for c in changes {
            let h = file_entry(repo, start.head_tree, &c.path)?;
            let i = file_entry(repo, self.index_tree, &c.path)?;
            let w = file_entry(repo, self.base_tree, &c.path)?;
            if i != h {
                return Ok(Err(format!("{} has staged changes", c.path)));
            }
            let entry = match (w == h, c.entry, w, h) {
                (true, e, _, _) => e,
                (false, None, _, _) => None,
                (false, Some(a), None, _) => Some(a),
                (false, Some(a), Some(w), Some(h))
                    if [a.kind, w.kind, h.kind]
                        .iter()
                        .all(|k| matches!(k, EntryKind::Blob | EntryKind::Executable)) =>
                {
                    let merged = super::merge::merge3(
                        &repo.read_blob(w.id)?,
                        &repo.read_blob(h.id)?,
                        &repo.read_blob(a.id)?,
                    );
                    let Some(bytes) = merged else {
                        return Ok(Err(format!(
                            "the AI's change to {} overlaps your uncommitted change there",
                            c.path
                        )));
                    };
                    let kind = if a.kind != w.kind { a.kind } else { h.kind };
                    Some(crate::repo::Entry {
                        kind,
                        id: repo.write_blob(&bytes)?,
                    })
                }
                _ => {
                    return Ok(Err(format!(
                        "{} changed type (a symlink or a mode change) on one side",
                        c.path
                    )))
                }
            };
            out.push(TreeChange {
                path: c.path.clone(),
                entry,
            });
        }
        Ok(Ok(out))
    }

    /// Ends an apply that commits nothing. When it changed files (untracked or ignored ones,
    /// or staged with `--no-commit`, or left by a failing hook), its record is kept under
    /// [`pending_ref`] so `git clada undo` can take it back; `after` is (W', I') when tracked
    /// files changed.
    fn close_uncommitted(
        mut self,
        start: &Start,
        reply: &Reply,
        mut execution: Execution,
        after: Option<(ObjectId, ObjectId)>,
    ) -> Result<ApplyOutcome, ApplyError> {
        let repo = self.repo;
        let index_after = after.map_or(self.index_tree, |(_, index)| index);
        self.journal.after = untracked_after(repo, &self.journal, index_after)?;
        let untracked_changed = self.journal.after.iter().any(|a| {
            self.journal
                .paths
                .iter()
                .any(|b| b.path == a.path && b.before != a.before && b.before != Before::Tracked)
        });
        if after.is_none() && !untracked_changed {
            Journal::remove(repo)?;
            if execution.changes.iter().any(|c| c.rel.is_some()) {
                execution
                    .result
                    .warnings
                    .push("the reply left every tracked file as it was: nothing to commit".into());
            }
            return Ok(uncommitted(execution));
        }
        let (after_tree, after_index) = after.unwrap_or((self.base_tree, self.index_tree));
        self.journal.after_tree = Some(after_tree.to_string());
        self.journal.after_index = Some(after_index.to_string());
        let record = record_tree(repo, &self.journal)?;
        let name = pending_ref(start.head.branch());
        let replies_blob = repo.write_blob(reply.text.as_bytes())?;
        repo.update_ref(
            &name,
            record,
            Expected::Any,
            &format!(
                "clada: uncommitted apply of {} (reply {replies_blob})",
                reply.source
            ),
        )?;
        Journal::remove(repo)?;
        if after.is_none() {
            execution.result.warnings.push(
                "the reply changed only untracked or ignored files, so there was nothing to commit; `git clada undo` puts them back".into(),
            );
        }
        Ok(uncommitted(execution))
    }

    /// Stages, runs the hooks, writes the commit(s), moves the branch and stores the record.
    fn commit(
        self,
        start: &Start,
        opts: &ApplyOptions,
        reply: &Reply,
        mut execution: Execution,
        built: Built,
        lock: crate::repo::IndexLock,
    ) -> Result<ApplyOutcome, ApplyError> {
        let repo = self.repo;
        if let Err(reason) = &built.on_head {
            if reason != "--wip commit" {
                execution.result.warnings.push(format!(
                    "your uncommitted work could not be kept apart from the AI's changes ({reason}), so it was recorded in a snapshot commit before the AI commit, as with --wip commit; `git clada undo` restores it exactly"
                ));
            }
        }
        // The index to commit from, and the one to leave behind: with the user's work kept
        // uncommitted they differ (the user's staged work stays staged, not committed).
        let staged = self.stage(start, &built)?;
        crate::base::trace::phase("index: apply");

        let coauthor = opts
            .coauthor
            .clone()
            .or_else(|| repo.config_string("clada.coauthor"));
        let reply_blob = repo.write_blob(reply.text.as_bytes())?;
        let msg = message::build(
            &execution.result,
            &built.items,
            &reply.source,
            &reply_blob.to_string(),
            opts.message.as_deref(),
            coauthor.as_deref(),
        );
        let msg = message::with_session(msg, opts.session.as_deref());

        let Some(written) = self.write_index(
            start,
            opts,
            &built,
            staged,
            lock,
            msg,
            &mut execution.result.steps,
        )?
        else {
            execution.result.warnings.push(
                "a hook failed, so nothing was committed; the AI's changes are in the worktree, unstaged (fix what the hook reports and apply again, or take them back with `git clada undo`)".into(),
            );
            let index_tree = self.index_tree;
            return self.close_uncommitted(
                start,
                reply,
                execution,
                Some((built.after_tree, index_tree)),
            );
        };
        crate::base::trace::phase("write index");
        self.publish(start, opts, reply, execution, &built, written)
    }

    /// Writes the index to commit from into git's lock and runs the pre-commit and
    /// commit-msg hooks on it (they read the index from disk, may re-stage files — formatters
    /// do — and may fail); then the index left behind goes into the lock, written on another
    /// thread while the objects are made. `None`: a hook failed and the user's own index is
    /// back in place.
    #[allow(clippy::too_many_arguments)]
    fn write_index(
        &self,
        start: &Start,
        opts: &ApplyOptions,
        built: &Built,
        staged: Staged,
        lock: crate::repo::IndexLock,
        mut msg: String,
        steps: &mut Vec<Step>,
    ) -> Result<Option<Written>, ApplyError> {
        let repo = self.repo;
        let Staged {
            mut commit_tree,
            commit_index,
            mut final_index,
        } = staged;
        let mut after_tree = built.after_tree;
        let runs_hooks = !opts.no_verify
            && (repo.hook_path("pre-commit").is_some() || repo.hook_path("commit-msg").is_some());
        // The tree the index left behind holds (I'): the commit's tree when everything is
        // committed, the user's index tree plus the AI's changes when their work is kept.
        let mut final_tree = match &built.on_head {
            Ok(on_head) if start.status.is_dirty() => repo.edit_tree(self.index_tree, on_head)?,
            _ => commit_tree,
        };
        let index_writer;
        if runs_hooks {
            let mut hook_index = commit_index;
            hook_index.set_cache_tree(repo, commit_tree, None)?;
            lock.commit(&hook_index)?;
            crate::base::failpoint::hit("apply:after-index");
            match run_pre_commit_hooks(repo, &mut msg)? {
                HookVerdict::Pass(run) => steps.extend(run),
                HookVerdict::Fail(run) => {
                    steps.extend(run);
                    // The user's own index back; the AI's changes stay in the worktree.
                    repo.lock_index()?.commit(&start.index)?;
                    return Ok(None);
                }
            }
            let after_hooks = repo.read_index()?;
            let hooked = repo.tree_of_index(commit_tree, &after_hooks)?;
            if hooked != commit_tree {
                // What the hooks re-staged is committed and stays staged in the user's index.
                let mut hasher = repo.hasher_with(&after_hooks)?;
                let mut updates = Vec::new();
                let mut worktree = Vec::new();
                for d in repo.diff_trees(commit_tree, hooked)? {
                    updates.push(IndexUpdate {
                        path: d.path.clone(),
                        entry: d.new,
                        worktree_matches: false,
                    });
                    worktree.push(TreeChange {
                        entry: hasher.hash(d.path.as_bstr())?.map(|(e, _)| e),
                        path: d.path,
                    });
                }
                final_index.apply(repo, &updates)?;
                after_tree = repo.edit_tree(after_tree, &worktree)?;
                commit_tree = hooked;
            }
            final_tree = repo.tree_of_index(commit_tree, &final_index)?;
            final_index.set_cache_tree(repo, final_tree, None)?;
            let mut lock = repo.lock_index()?;
            lock.write(&final_index)?;
            index_writer = std::thread::spawn(move || Ok(lock));
        } else {
            final_index.set_cache_tree(repo, final_tree, None)?;
            let to_write = final_index.clone();
            // Written on another thread while the objects are made; joined before any ref
            // moves.
            let mut lock = lock;
            index_writer = std::thread::spawn(move || {
                lock.write(&to_write)?;
                Ok::<_, RepoError>(lock)
            });
        }
        Ok(Some(Written {
            commit_tree,
            after_tree,
            after_index: final_tree,
            index_writer,
            msg,
        }))
    }

    /// Makes the commit, the record and the notes, and moves the branch, the record refs and
    /// the notes in one ref transaction; then git's index lock is released into place.
    fn publish(
        mut self,
        start: &Start,
        opts: &ApplyOptions,
        reply: &Reply,
        mut execution: Execution,
        built: &Built,
        written: Written,
    ) -> Result<ApplyOutcome, ApplyError> {
        let repo = self.repo;
        let Written {
            commit_tree,
            after_tree,
            after_index,
            index_writer,
            msg,
        } = written;

        let head_commit = start.head_commit;
        let identity = &start.identity;
        let (parent, snap, kept) = self.user_work_commit(start, built, reply)?;
        let author = match &opts.author {
            Some((name, email)) => crate::repo::Signature {
                name: name.clone(),
                email: email.clone(),
                ..identity.0.clone()
            },
            None => identity.0.clone(),
        };
        let commit = repo.write_commit(commit_tree, &[parent], &msg, &author, &identity.1)?;
        self.journal.commit = Some(commit.to_string());
        // Untracked after the apply means: not in the index it leaves behind.
        self.journal.after = untracked_after(repo, &self.journal, after_index)?;
        self.journal.after_tree = Some(after_tree.to_string());
        self.journal.after_index = Some(after_index.to_string());
        let record = record_tree(repo, &self.journal)?;
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
        if let Some(k) = kept {
            updates.push(RefUpdate {
                name: kept_ref(commit),
                new: k,
                expected: Expected::Any,
                reflog: "clada: your uncommitted work before the apply".into(),
            });
        }
        updates.extend(reports.write(&format!("clada: results of {short}"))?);
        updates.extend(replies.write(&format!("clada: reply of {short}"))?);
        // git's index lock stays held (the new index written into it) until the branch has
        // moved: a `git commit` cannot slip in between, and if the branch moved anyway the
        // old index is still in place.
        let index_lock = index_writer
            .join()
            .map_err(|_| RepoError::Invalid("writing the index stopped unexpectedly".into()))??;
        // The journal names the commit before the branch moves to it, so a recovery knows
        // the branch is where this apply put it (and never moves a branch that moved for
        // another reason).
        self.journal.write(repo)?;
        crate::base::trace::phase("commit+record+notes");
        crate::base::failpoint::hit("apply:before-ref");
        if let Err(err) = repo.update_refs(&updates) {
            if repo.head()?.commit() != Some(head_commit) {
                // Someone moved the branch meanwhile (a ref update that does not take
                // git's index lock): take the reply back, leave their commit alone.
                drop(index_lock);
                let changed: Vec<BString> = built.changes.iter().map(|c| c.path.clone()).collect();
                roll_back(repo, &self.journal, &execution, &changed)?;
                Journal::remove(repo)?;
                return Err(ApplyError::Refused(format!(
                    "the branch moved while the reply was being applied ({err}); the reply's changes were taken back and nothing was committed: apply the reply again"
                )));
            }
            return Err(err.into());
        }
        crate::base::trace::phase("refs");
        crate::base::failpoint::hit("apply:after-ref");
        index_lock.rename()?;
        crate::base::failpoint::hit("apply:after-index");
        // An uncommitted apply recorded earlier is part of the user's work now (its changes
        // are in this apply's "before"): undo reaches it again once this commit is undone.

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
        Journal::remove(repo)?;
        Ok(ApplyOutcome {
            execution,
            commit: Some(commit),
            snapshot: snap.map(|s| s.commit),
            diff: None,
        })
    }
    /// The tree to commit, the index the hooks see (what is committed) and the index left
    /// behind: with the user's work kept they differ (staged work stays staged, uncommitted).
    fn stage(&self, start: &Start, built: &Built) -> Result<Staged, ApplyError> {
        let repo = self.repo;
        Ok(match &built.on_head {
            Ok(on_head) => {
                let tree = repo.edit_tree(start.head_tree, on_head)?;
                let mut to_commit = on_head.clone();
                for p in &start.status.staged {
                    if !on_head.iter().any(|c| &c.path == p) {
                        to_commit.push(TreeChange {
                            path: p.clone(),
                            entry: file_entry(repo, start.head_tree, p)?,
                        });
                    }
                }
                let commit_index = with_updates(
                    repo,
                    &start.index,
                    &index_updates(&to_commit, &built.changes),
                )?;
                let final_index =
                    with_updates(repo, &start.index, &index_updates(on_head, &built.changes))?;
                Staged {
                    commit_tree: tree,
                    commit_index,
                    final_index,
                }
            }
            Err(_) => {
                let mut all = built.changes.clone();
                for p in start.status.dirty_paths() {
                    if !built.changes.iter().any(|c| c.path == p) {
                        all.push(TreeChange {
                            entry: file_entry(repo, self.base_tree, &p)?,
                            path: p,
                        });
                    }
                }
                let mut index = start.index.clone();
                index.apply(repo, &index_updates(&all, &all))?;
                Staged {
                    commit_tree: built.after_tree,
                    commit_index: index.clone(),
                    final_index: index,
                }
            }
        })
    }

    /// The commit the AI commit goes on: HEAD, or the snapshot of the user's work (fallback
    /// and `--wip commit`); with the work kept, its stash-format commit. Both are recorded in
    /// the journal.
    fn user_work_commit(
        &mut self,
        start: &Start,
        built: &Built,
        reply: &Reply,
    ) -> Result<(ObjectId, Option<snapshot::Snapshot>, Option<ObjectId>), ApplyError> {
        let repo = self.repo;
        if !start.status.is_dirty() {
            return Ok((start.head_commit, None, None));
        }
        if built.on_head.is_ok() {
            let k = kept_work_commit(repo, start, self.index_tree, self.base_tree, &reply.source)?;
            self.journal.kept = Some(k.to_string());
            return Ok((start.head_commit, None, Some(k)));
        }
        let s = snapshot::commit(
            repo,
            start.head_commit,
            self.index_tree,
            self.base_tree,
            &start.identity,
            &reply.source,
        )?;
        self.journal.snapshot = Some(JournalSnapshot {
            commit: s.commit.to_string(),
            index_tree: self.index_tree.to_string(),
        });
        Ok((s.commit, Some(s), None))
    }
}

/// A path's non-tree entry in `tree`.
fn file_entry(
    repo: &Repo,
    tree: ObjectId,
    path: &BString,
) -> Result<Option<crate::repo::Entry>, ApplyError> {
    Ok(repo
        .tree_entry(tree, path.as_bstr())?
        .filter(|e| e.kind != EntryKind::Tree))
}

/// Index updates setting each path to its entry in `changes`; the worktree file matches
/// when `worktree` (what the files now hold) has the same entry.
fn index_updates(changes: &[TreeChange], worktree: &[TreeChange]) -> Vec<IndexUpdate> {
    changes
        .iter()
        .map(|c| IndexUpdate {
            path: c.path.clone(),
            entry: c.entry,
            worktree_matches: worktree
                .iter()
                .find(|w| w.path == c.path)
                .is_some_and(|w| w.entry == c.entry),
        })
        .collect()
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

/// The user's work as a stash-format commit: tree W, parents HEAD and a commit of the index
/// tree, as `git stash` writes them.
fn kept_work_commit(
    repo: &Repo,
    start: &Start,
    index_tree: ObjectId,
    worktree_tree: ObjectId,
    source: &str,
) -> Result<ObjectId, ApplyError> {
    let head = start.head_commit;
    let subject = repo.commit_info(head)?.subject().to_string();
    let on = format!(
        "{}: {} {subject}",
        start.head.short_name(),
        Repo::short(head)
    );
    let (author, committer) = &start.identity;
    let index_commit = repo.write_commit(
        index_tree,
        &[head],
        &format!("index on {on}\n"),
        author,
        committer,
    )?;
    Ok(repo.write_commit(
        worktree_tree,
        &[head, index_commit],
        &format!(
            "WIP on {on}\n\nYour uncommitted work, recorded by git-clada before applying {source}; it stayed uncommitted.\n"
        ),
        author,
        committer,
    )?)
}

/// Every untracked (not ignored) file not yet journaled, saved as a blob, up to a size cap
/// (what exec might delete or change).
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
        let abs = repo.abs_path(p.as_bstr());
        let Ok(md) = std::fs::symlink_metadata(&abs) else {
            continue;
        };
        if md.is_file() && total + md.len() > TOTAL_CAP {
            skipped.push(rel);
            continue;
        }
        total += md.len();
        out.push(JournalPath {
            before: prior_state(repo, &abs, &md)?,
            path: rel,
        });
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

/// What a path on disk holds, saved as a blob.
fn prior_state(repo: &Repo, abs: &Path, md: &std::fs::Metadata) -> Result<Before, ApplyError> {
    use std::os::unix::ffi::OsStrExt;
    use std::os::unix::fs::PermissionsExt;
    Ok(if md.is_dir() {
        Before::Dir
    } else if md.file_type().is_symlink() {
        let target =
            std::fs::read_link(abs).map_err(crate::repo::io_err_pub("cannot read link", abs))?;
        Before::Link {
            id: repo.write_blob(target.as_os_str().as_bytes())?.to_string(),
        }
    } else {
        let data = std::fs::read(abs).map_err(crate::repo::io_err_pub("cannot read", abs))?;
        Before::Blob {
            id: repo.write_blob(&data)?.to_string(),
            executable: md.permissions().mode() & 0o111 != 0,
        }
    })
}

/// Journaled untracked files (not named by an action) that are no longer as they were.
fn untracked_touched(
    repo: &Repo,
    journal: &Journal,
    by_actions: &BTreeSet<BString>,
) -> Result<Vec<String>, ApplyError> {
    let mut out = Vec::new();
    for jp in &journal.paths {
        if !matches!(jp.before, Before::Blob { .. } | Before::Link { .. })
            || by_actions.contains(&BString::from(jp.path.as_str()))
        {
            continue;
        }
        let abs = repo.abs_path(BString::from(jp.path.as_str()).as_bstr());
        let now = match std::fs::symlink_metadata(&abs) {
            Ok(md) => Some(prior_state(repo, &abs, &md)?),
            Err(_) => None,
        };
        if now.as_ref() != Some(&jp.before) {
            out.push(jp.path.clone());
        }
    }
    Ok(out)
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
            (_, Some(md)) => prior_state(repo, &abs, md)?,
        };
        out.push(JournalPath { path: rel, before });
    }
    out.extend(untracked_parent_dirs(repo, base_tree, &seen)?);
    out.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(out)
}

/// Leaves out of the commit the paths git refuses (`.git` look-alikes, a symlinked
/// `.gitmodules`): the sandbox refuses them in file actions, but an exec can create them. They
/// stay on disk; a warning says why they were not committed.
fn drop_refused_names(repo: &Repo, order: &mut Vec<BString>, warnings: &mut Vec<String>) {
    order.retain(|p| {
        let is_link = std::fs::symlink_metadata(repo.abs_path(p.as_bstr()))
            .is_ok_and(|m| m.file_type().is_symlink());
        match crate::sandbox::gitname::refused_path(&p.to_str_lossy(), is_link) {
            Some(why) => {
                warnings.push(why);
                false
            }
            None => true,
        }
    });
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
        let is_dir =
            std::fs::symlink_metadata(repo.abs_path(b.as_bstr())).is_ok_and(|m| m.is_dir());
        if is_dir && repo.tree_entry(base_tree, b.as_bstr())?.is_none() {
            out.push(JournalPath {
                path: dir,
                before: Before::Dir,
            });
        }
    }
    Ok(out)
}

/// The state now of every journaled path that `tree` (the index the apply leaves) does not
/// track.
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
            Ok(md) => prior_state(repo, &abs, &md)?,
        };
        out.push(JournalPath {
            path: jp.path.clone(),
            before,
        });
    }
    Ok(out)
}

/// Tracked paths exec changed (compared with the user's worktree tree W, so a dirty file exec
/// reverted counts too) and files it created. A path the index does not track that existed
/// before (an untracked file, one the user stopped tracking with `git rm --cached`) is never
/// committed for exec: its prior content is in the journal, and undo puts it back.
fn exec_changes(
    repo: &Repo,
    start: &Start,
    base_tree: ObjectId,
    hasher: &mut crate::repo::Hasher<'_>,
) -> Result<Vec<BString>, ApplyError> {
    let after = repo.status(start.head_tree, &start.index, true)?;
    let before_untracked: BTreeSet<&BString> = start.status.untracked.iter().collect();
    let mut candidates: BTreeSet<BString> = start.status.dirty_paths().into_iter().collect();
    candidates.extend(after.dirty_paths());
    let mut out = Vec::new();
    for p in candidates {
        if before_untracked.contains(&p) {
            continue;
        }
        let now = hasher.hash(p.as_bstr())?.map(|(e, _)| e);
        let was = file_entry(repo, base_tree, &p)?;
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
    // The trees undo and redo move between; for an apply that kept the user's work
    // uncommitted (or committed nothing) no commit keeps them reachable.
    for (name, tree) in [
        ("worktree", Some(journal.base_tree.as_str())),
        ("after-index", journal.after_index.as_deref()),
        ("after-worktree", journal.after_tree.as_deref()),
    ] {
        if let Some(tree) = tree {
            changes.push(TreeChange {
                path: name.into(),
                entry: Some(crate::repo::Entry {
                    kind: EntryKind::Tree,
                    id: super::journal::parse_id(tree)?,
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
    record_journal(repo, tree)
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

/// What `stage` made: the tree to commit, the index the hooks see and the index left behind.
struct Staged {
    commit_tree: ObjectId,
    commit_index: Index,
    final_index: Index,
}

/// The index written (into git's lock, possibly still on its thread) and what it holds.
struct Written {
    commit_tree: ObjectId,
    /// The tracked worktree after the apply (W'), including what hooks re-staged.
    after_tree: ObjectId,
    /// The tree of the index left behind (I').
    after_index: ObjectId,
    index_writer: std::thread::JoinHandle<Result<crate::repo::IndexLock, RepoError>>,
    /// The commit message, as the commit-msg hook left it.
    msg: String,
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
            "your uncommitted changes ({}) stay uncommitted (where the AI changes a file you changed too, both changes are kept)",
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
