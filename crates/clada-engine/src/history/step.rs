//! step-back / step-forward (DESIGN §7.4): walking the worktree through the current branch's
//! first-parent history, with uncommitted work parked under `refs/clada/stash/`.
//!
//! The first `step-back` parks the user's uncommitted work — index, tracked worktree changes
//! and untracked (not ignored) files — in a commit of `git stash -u` format: `W` (the tracked
//! worktree) with parents `[tip, I, U]`, `I` holding the index, `U` the untracked files (raw
//! bytes, so they come back byte for byte). `git stash apply refs/clada/stash/<tip>` could
//! read it. The untracked files are then removed, and HEAD is detached at the tip's first
//! parent; repeated, it goes one commit further back. `step-forward` goes one commit toward
//! the tip; arriving there (or at once with `--all`) it re-attaches the branch and restores
//! the parked work exactly: staged and unstaged changes, untracked files.
//!
//! All state lives in refs, so it survives restarts:
//! - `refs/clada/step/tip`: the branch's tip when stepping began (its presence means
//!   "stepped back"; `apply`, `undo` and `squash` refuse while it exists);
//! - `refs/clada/step/position`: the commit step-back left HEAD at;
//! - `refs/clada/step/branch`: a blob holding the branch name (refs can only point at
//!   objects);
//! - `refs/clada/stash/<tip>`: the parked work, when there was any;
//! - `refs/clada/step/flags`: a blob of the parked index entries' flags (intent-to-add,
//!   skip-worktree, assume-unchanged), when there were any.
//!
//! Every move is an in-place checkout of the paths that differ, done by the journaled
//! `record::restore`, which also sets and removes the state refs and takes parked untracked
//! files out of the worktree: killed at any point, a step is finished by `git clada undo`. A step refuses
//! rather than lose anything: tracked files changed while stepped back, untracked or ignored
//! files in the way, a merge commit to step across, the root commit.

use std::collections::BTreeSet;
use std::os::unix::ffi::OsStrExt;

use serde::Serialize;

use crate::record::journal::{Before, JournalPath};
use crate::record::restore::{self, PathFlags, RefChange, RestorePlan};
use crate::record::snapshot;
use clada_git::{
    BStr, BString, ByteSlice, CheckoutPlan, CommitInfo, Content, Entry, EntryKind, Head, Index,
    ObjectId, PathConflict, Repo, RepoError, Status, TreeChange,
};

use super::common::{refuse_busy, write_orig_head, HistoryError};

mod tip;
pub use tip::*;

/// The ref recording an active step-back (its presence means "stepped back").
pub const STATE_REF: &str = crate::record::STEP_STATE_REF;
/// The commit step-back left HEAD at.
pub const POSITION_REF: &str = "refs/clada/step/position";
/// A blob holding the full name of the branch stepping started on.
pub const BRANCH_REF: &str = "refs/clada/step/branch";
/// A blob holding the index flags of the parked work (JSON), when it had any: a stash
/// commit's trees cannot hold intent-to-add entries or skip-worktree bits.
pub const FLAGS_REF: &str = "refs/clada/step/flags";

/// A blob holding the positions the walk went through (JSON, the tip first, HEAD's position
/// last): `git clada undo` takes the steps back one by one.
pub const TRAIL_REF: &str = "refs/clada/step/trail";
/// The file (in git's directory) recording the last step-forward that returned to the tip
/// (JSON [`Returned`]): while nothing happened since, `git clada undo` steps back to where it
/// came from. A file, not a ref: back at the tip, the refs are exactly as before the walk.
const RETURNED_FILE: &str = "clada/returned.json";

/// The ref holding the work parked when stepping back from `tip`.
pub fn stash_ref(tip: ObjectId) -> String {
    format!("refs/clada/stash/{tip}")
}

pub use crate::record::stepped_back;

/// An active step-back, as recorded in the refs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StepState {
    /// The branch's tip when stepping began.
    pub tip: ObjectId,
    /// Where step-back left HEAD.
    pub position: ObjectId,
    /// The branch (full name) to re-attach at the end.
    pub branch: String,
    /// The parked work (a stash-format commit), if there was any.
    pub stash: Option<ObjectId>,
    /// The index flags of the parked work.
    pub flags: Vec<PathFlags>,
}

/// Reads the step state; `None` when not stepped back.
pub fn read_state(repo: &Repo) -> Result<Option<StepState>, HistoryError> {
    let Some(tip) = repo.read_ref(STATE_REF)? else {
        return Ok(None);
    };
    let incomplete = |what: &str| {
        HistoryError::Refused(format!(
            "the step-back state is incomplete ({what} is missing); if you are back where you want to be, remove it with `git update-ref -d {STATE_REF}`"
        ))
    };
    let position = repo
        .read_ref(POSITION_REF)?
        .ok_or_else(|| incomplete(POSITION_REF))?;
    let branch_blob = repo
        .read_ref(BRANCH_REF)?
        .ok_or_else(|| incomplete(BRANCH_REF))?;
    let branch = String::from_utf8(repo.read_blob(branch_blob)?)
        .map_err(|_| incomplete("a readable branch name"))?
        .trim()
        .to_string();
    if !branch.starts_with("refs/heads/") {
        return Err(incomplete("a branch name"));
    }
    let stash = repo.read_ref(&stash_ref(tip))?;
    let flags = match repo.read_ref(FLAGS_REF)? {
        Some(blob) => serde_json::from_slice(&repo.read_blob(blob)?)
            .map_err(|_| incomplete("readable index flags"))?,
        None => Vec::new(),
    };
    Ok(Some(StepState {
        tip,
        position,
        branch,
        stash,
        flags,
    }))
}

/// What a step did (or would do, with `dryRun`).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StepReport {
    /// `step-back` or `step-forward`.
    pub operation: String,
    pub branch: String,
    pub tip: String,
    /// HEAD before and after.
    pub from: String,
    pub to: String,
    /// Subject of the commit now checked out.
    pub subject: String,
    /// First-parent commits between the new position and the tip (0: at the tip).
    pub behind: usize,
    /// True when the step ended at the tip with the branch re-attached.
    pub returned: bool,
    /// Tracked worktree paths rewritten.
    pub paths: Vec<String>,
    /// Uncommitted work parked by this step (tracked paths, then untracked files).
    pub stashed_files: Vec<String>,
    /// The stash-format commit holding the parked work, and the ref that keeps it.
    pub stash: Option<String>,
    pub stash_ref: Option<String>,
    /// Parked work put back by this step.
    pub restored_files: Vec<String>,
    pub dry_run: bool,
}

impl StepReport {
    fn new(operation: &str, branch: &str, tip: ObjectId, from: ObjectId, dry_run: bool) -> Self {
        StepReport {
            operation: operation.into(),
            branch: branch.into(),
            tip: tip.to_string(),
            from: from.to_string(),
            to: from.to_string(),
            subject: String::new(),
            behind: 0,
            returned: false,
            paths: Vec::new(),
            stashed_files: Vec::new(),
            stash: None,
            stash_ref: None,
            restored_files: Vec::new(),
            dry_run,
        }
    }
}

/// The commit before `info` on the first-parent chain, refusing at a merge or the root.
fn step_target(info: &CommitInfo) -> Result<ObjectId, HistoryError> {
    match info.parents.as_slice() {
        [] => Err(HistoryError::Refused(format!(
            "{} \"{}\" is the root commit; there is nothing before it to step back to",
            Repo::short(info.id),
            info.subject()
        ))),
        [parent] => Ok(*parent),
        _ => Err(HistoryError::Refused(format!(
            "{} \"{}\" is a merge commit; step-back walks the first-parent history one commit at a time and does not step across a merge. Look at either side with `git checkout --detach <commit>` instead",
            Repo::short(info.id),
            info.subject()
        ))),
    }
}

/// Refuses when tracked files or the index differ from `tree`: while stepped back, changes
/// would be lost by the next checkout.
fn require_unchanged(repo: &Repo, tree: ObjectId, next: &str) -> Result<(), HistoryError> {
    let index = repo.read_index()?;
    let status = repo.status(tree, &index, false)?;
    refuse_changes(&status, next)
}

/// [`require_unchanged`] from a status computed elsewhere (a prefetch).
fn refuse_changes(status: &Status, next: &str) -> Result<(), HistoryError> {
    if status.is_dirty() {
        return Err(HistoryError::Refused(format!(
            "you changed tracked files while stepped back: {}; {next} would lose those changes, so nothing was changed. Keep them with `git stash` (and `git stash pop` after `git clada step-forward --all`), or discard them with `git restore --staged --worktree .`, then step again",
            snapshot::describe_paths(&status.dirty_paths(), 8)
        )));
    }
    Ok(())
}

fn conflict_refusal(what: &str, conflicts: &[PathConflict]) -> HistoryError {
    let list: Vec<String> = conflicts
        .iter()
        .take(8)
        .map(|c| format!("'{}' ({})", c.path, c.reason))
        .collect();
    HistoryError::Refused(format!(
        "{what} would overwrite {}{}; move those away first (nothing was changed)",
        list.join(", "),
        if conflicts.len() > 8 {
            format!(" and {} more", conflicts.len() - 8)
        } else {
            String::new()
        }
    ))
}

/// `git clada step-back`.
pub fn step_back(repo: &Repo, dry_run: bool) -> Result<StepReport, HistoryError> {
    // The index is read beside taking the lock and reading the step state.
    let prefetch = repo.prefetch_index();
    let _lock = if dry_run { None } else { Some(repo.lock()?) };
    clada_base::trace::phase("step-back: lock");
    refuse_busy(repo)?;
    let state = read_state(repo)?;
    prefetch.adopt(repo);
    let step = match state {
        None => back_from_tip(repo, None, dry_run)?,
        Some(state) => back_further(repo, &state, dry_run)?,
    };
    step.run(repo)
}

/// A step, planned: its report and (unless a dry run) the journaled restore that makes it.
pub(super) struct Move {
    pub report: StepReport,
    pub plan: Option<(RestorePlan, String)>,
    /// What the step leaves recorded about a return to the tip: the return it makes, or
    /// nothing (a step back).
    returned: Option<Returned>,
}

impl Move {
    fn planned(report: StepReport, plan: RestorePlan, reflog: String) -> Move {
        Move {
            report,
            plan: Some((plan, reflog)),
            returned: None,
        }
    }

    fn dry(report: StepReport) -> Move {
        Move {
            report,
            plan: None,
            returned: None,
        }
    }

    /// Carries the step out.
    pub fn run(mut self, repo: &Repo) -> Result<StepReport, HistoryError> {
        if let Some((plan, reflog)) = self.plan.take() {
            restore::run(repo, &plan, &reflog)?;
            self.recorded(repo)?;
        }
        Ok(self.report)
    }

    /// After the restore: records the return to the tip this step made, or that none is the
    /// last operation any more.
    pub fn recorded(&self, repo: &Repo) -> Result<(), HistoryError> {
        let path = repo.git_dir().join(RETURNED_FILE);
        match &self.returned {
            Some(r) => {
                let json = serde_json::to_vec(r)
                    .map_err(|e| RepoError::Invalid(format!("cannot record the return: {e}")))?;
                if let Some(dir) = path.parent() {
                    std::fs::create_dir_all(dir)
                        .map_err(clada_git::io_err_pub("cannot create", dir))?;
                }
                clada_base::fsutil::write_atomic(
                    &path,
                    &json,
                    clada_base::fsutil::Perm::Executable(false),
                )
                .map_err(clada_git::io_err_pub("cannot write", &path))?;
            }
            None => match std::fs::remove_file(&path) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(clada_git::io_err_pub("cannot remove", &path)(e).into()),
            },
        }
        Ok(())
    }
}

/// The positions of the walk so far, the tip first (a walk begun by an older git-clada has
/// none recorded: its tip and position).
pub(super) fn read_trail(repo: &Repo, state: &StepState) -> Result<Vec<ObjectId>, HistoryError> {
    let Some(blob) = repo.read_ref(TRAIL_REF)? else {
        return Ok(vec![state.tip, state.position]);
    };
    let hex: Vec<String> = serde_json::from_slice(&repo.read_blob(blob)?).map_err(|_| {
        HistoryError::Refused(format!(
            "the step-back trail ({TRAIL_REF}) cannot be read; remove it with `git update-ref -d {TRAIL_REF}`"
        ))
    })?;
    hex.iter()
        .map(|h| crate::record::journal::parse_id(h).map_err(HistoryError::from))
        .collect()
}

/// The ref change recording `trail`.
pub(super) fn trail_change(repo: &Repo, trail: &[ObjectId]) -> Result<RefChange, HistoryError> {
    let hex: Vec<String> = trail.iter().map(|c| c.to_string()).collect();
    let json = serde_json::to_vec(&hex)
        .map_err(|e| RepoError::Invalid(format!("cannot record the step trail: {e}")))?;
    Ok(RefChange::set(
        TRAIL_REF,
        repo.write_blob(&json)?,
        "clada: step",
    ))
}

/// The first step back: park the uncommitted work, detach HEAD at the tip's parent (or at
/// `target`, an older commit of the tip's first-parent history: the redo of a step, the undo
/// of a return to the tip, whose walk had gone through `trail`).
pub(super) fn back_from_tip(
    repo: &Repo,
    target: Option<(ObjectId, Vec<ObjectId>)>,
    dry_run: bool,
) -> Result<Move, HistoryError> {
    let (branch, tip) = branch_and_tip(repo)?;
    let info = repo.commit_info(tip)?;
    let (target, trail) = match target {
        Some((target, trail)) => (target, trail),
        None => {
            let target = step_target(&info)?;
            (target, vec![tip, target])
        }
    };
    let behind = depth(repo, tip, target)?;
    clada_base::trace::phase("step-back: state");
    let index = repo.read_index()?;
    clada_base::trace::phase("step-back: read index");
    refuse_unresolved_conflicts(&index)?;
    // The untracked files to park: directories unchanged since the last step-back are not
    // read again (a dry run uses what is kept, and keeps nothing).
    let status = repo.status_with_untracked_cache(info.tree, &index, !dry_run)?;
    clada_base::trace::phase("step-back: status");

    // The parked work as trees; a dry run keeps every object it writes in memory.
    let memory;
    let build = if dry_run {
        memory = repo.with_object_memory();
        &memory
    } else {
        repo
    };
    let mut hasher = build.hasher()?;
    let i_tree = snapshot::index_tree(build, info.tree, &index, &status)?;
    let w_tree = snapshot::worktree_tree(build, i_tree, &status, &mut hasher)?;
    let (u_tree, parked) = untracked_tree(build, &status.untracked)?;
    clada_base::trace::phase("step-back: park trees");

    let target_info = repo.commit_info(target)?;
    let plan = build.plan_checkout(w_tree, target_info.tree)?;
    let parked_set: BTreeSet<&BStr> = parked.iter().map(|p| p.as_bstr()).collect();
    let conflicts: Vec<PathConflict> = build
        .checkout_conflicts(w_tree, &plan)?
        .into_iter()
        .filter(|c| !goes_away(repo, c.path.as_bstr(), &parked_set, &plan))
        .collect();
    if !conflicts.is_empty() {
        return Err(conflict_refusal("step-back", &conflicts));
    }
    clada_base::trace::phase("step-back: plan");

    let mut report = StepReport::new("step-back", &branch, tip, tip, dry_run);
    report.to = target.to_string();
    report.subject = target_info.subject().to_string();
    report.behind = behind;
    report.paths = plan.paths().iter().map(|p| p.to_string()).collect();
    report.stashed_files = status
        .dirty_paths()
        .iter()
        .chain(parked.iter())
        .map(|p| p.to_string())
        .collect();
    let has_work = status.is_dirty() || !parked.is_empty();
    if dry_run {
        return Ok(Move::dry(report));
    }

    // Park: the stash-format commits (objects only); the refs that name them are set by
    // the restore below.
    let mut refs_before = Vec::new();
    if has_work {
        let w = park_commits(repo, &branch, &info, i_tree, w_tree, u_tree)?;
        refs_before.push(RefChange::set(
            stash_ref(tip),
            w,
            "clada: step-back parked uncommitted work",
        ));
        report.stash = Some(w.to_string());
        report.stash_ref = Some(stash_ref(tip));
    }
    refs_before.extend(state_refs(repo, &index, &status, &branch, tip, target)?);
    refs_before.push(trail_change(repo, &trail)?);
    write_orig_head(repo, tip)?;
    clada_base::trace::phase("step-back: park");

    // Parking (the refs, the untracked files leaving the worktree) and the checkout are one
    // journaled restore: killed anywhere, `git clada undo` finishes the step.
    let mut plan = RestorePlan::new(
        format!("step-back to {target}"),
        target,
        None,
        target_info.tree,
        target_info.tree,
        report.paths.clone(),
    );
    plan.refs_before = refs_before;
    plan.remove_untracked = parked.iter().map(|p| p.to_string()).collect();
    plan.head_from = vec![tip.to_string()];
    clada_base::trace::phase("step-back: restore plan");
    let reflog = format!(
        "clada: step-back to {}: {}",
        Repo::short(target),
        target_info.subject()
    );
    Ok(Move::planned(report, plan, reflog))
}

/// The branch HEAD is on and its tip: step-back walks a branch's history, so a detached or
/// unborn HEAD is refused.
fn branch_and_tip(repo: &Repo) -> Result<(String, ObjectId), HistoryError> {
    match repo.head()? {
        Head::Branch { name, commit } => Ok((name, commit)),
        Head::Detached { .. } => Err(HistoryError::Refused(
            "HEAD is detached; step-back walks a branch's history: check out a branch first (`git switch <branch>`)".into(),
        )),
        Head::Unborn { .. } => Err(HistoryError::Refused(
            "the branch has no commits; there is nothing to step back to".into(),
        )),
    }
}

/// Refuses an index with unresolved conflicts: they are resolved before a step back.
fn refuse_unresolved_conflicts(index: &Index) -> Result<(), HistoryError> {
    let conflicted = index.conflicted_paths();
    if conflicted.is_empty() {
        return Ok(());
    }
    Err(HistoryError::Refused(format!(
        "the index has unresolved conflicts in {}; resolve them first",
        snapshot::describe_paths(&conflicted, 5)
    )))
}

/// While stepped back: the move from HEAD's position to `target`, a commit of the walk's
/// history (the tip itself: back on the branch with the parked work restored, recording
/// `returned`), leaving the walk's trail as `trail`.
pub(super) fn move_within(
    repo: &Repo,
    state: &StepState,
    target: ObjectId,
    trail: Vec<ObjectId>,
    returned: Option<Returned>,
    dry_run: bool,
) -> Result<Move, HistoryError> {
    let (position, chain) = current_position(repo, state)?;
    let position_info = chain
        .last()
        .ok_or_else(|| RepoError::Invalid("empty history chain".into()))?;
    require_unchanged(repo, position_info.tree, "the step")?;
    let op = if depth(repo, state.tip, target)? < chain.len() - 1 {
        "step-forward"
    } else {
        "step-back"
    };
    let mut report = StepReport::new(op, &state.branch, state.tip, position, dry_run);
    report.stash = state.stash.map(|s| s.to_string());
    report.stash_ref = state.stash.map(|_| stash_ref(state.tip));
    if target == state.tip {
        if repo.read_ref(&state.branch)? != Some(state.tip) {
            return Err(HistoryError::Refused(format!(
                "the branch {} moved while you were stepped back (it was at {}); git-clada will not re-attach it to a different commit (nothing was changed)",
                state.branch.strip_prefix("refs/heads/").unwrap_or(&state.branch),
                Repo::short(state.tip)
            )));
        }
        return return_to_tip(repo, state, position_info, report, returned);
    }
    let target_info = repo.commit_info(target)?;
    let plan = repo.plan_checkout(position_info.tree, target_info.tree)?;
    let conflicts = repo.checkout_conflicts(position_info.tree, &plan)?;
    if !conflicts.is_empty() {
        return Err(conflict_refusal(op, &conflicts));
    }
    report.to = target.to_string();
    report.subject = target_info.subject().to_string();
    report.behind = depth(repo, state.tip, target)?;
    report.paths = plan.paths().iter().map(|p| p.to_string()).collect();
    if dry_run {
        return Ok(Move::dry(report));
    }
    let (plan, reflog) = move_detached(repo, position, &target_info, &report.paths, op, &trail)?;
    Ok(Move::planned(report, plan, reflog))
}

/// How many first-parent steps `target` is behind `tip`, refusing when it is not on the tip's
/// first-parent history.
pub(super) fn depth(repo: &Repo, tip: ObjectId, target: ObjectId) -> Result<usize, HistoryError> {
    let mut next = Some(tip);
    let mut n = 0;
    while let Some(id) = next {
        if id == target {
            return Ok(n);
        }
        next = match repo.commit_info(id)?.parents.as_slice() {
            [p] => Some(*p),
            _ => None,
        };
        n += 1;
    }
    Err(HistoryError::Refused(format!(
        "{} is not on the first-parent history of {}; the step cannot be taken (nothing was changed)",
        Repo::short(target),
        Repo::short(tip)
    )))
}

/// The stash-format commits of the parked work (index, untracked files, worktree), as
/// `git stash` writes them; returns the worktree commit.
fn park_commits(
    repo: &Repo,
    branch: &str,
    info: &CommitInfo,
    i_tree: ObjectId,
    w_tree: ObjectId,
    u_tree: Option<ObjectId>,
) -> Result<ObjectId, HistoryError> {
    let tip = info.id;
    let (author, committer) = repo.identity()?;
    let short = branch.strip_prefix("refs/heads/").unwrap_or(branch);
    let on = format!("{short}: {} {}", Repo::short(tip), info.subject());
    let i = repo.write_commit(
        i_tree,
        &[tip],
        &format!("index on {on}\n"),
        &author,
        &committer,
    )?;
    let mut parents = vec![tip, i];
    if let Some(u_tree) = u_tree {
        parents.push(repo.write_commit(
            u_tree,
            &[],
            &format!("untracked files on {on}\n"),
            &author,
            &committer,
        )?);
    }
    Ok(repo.write_commit(
        w_tree,
        &parents,
        &format!("WIP on {on}\n\nParked by `git clada step-back`; `git clada step-forward --all` restores it.\n"),
        &author,
        &committer,
    )?)
}

/// The refs that make up the step-back state (index flags, branch, position, and the tip
/// last: its presence is what "stepped back" means).
fn state_refs(
    repo: &Repo,
    index: &Index,
    status: &Status,
    branch: &str,
    tip: ObjectId,
    target: ObjectId,
) -> Result<Vec<RefChange>, HistoryError> {
    let mut refs = Vec::new();
    let flags = crate::record::restore::flags_to_record(
        index,
        status.dirty_paths().iter().map(|p| p.as_bstr()),
    );
    if !flags.is_empty() {
        let json = serde_json::to_vec(&flags)
            .map_err(|e| RepoError::Invalid(format!("cannot record the index flags: {e}")))?;
        refs.push(RefChange::set(
            FLAGS_REF,
            repo.write_blob(&json)?,
            "clada: step-back",
        ));
    }
    let branch_blob = repo.write_blob(branch.as_bytes())?;
    refs.push(RefChange::set(BRANCH_REF, branch_blob, "clada: step-back"));
    refs.push(RefChange::set(POSITION_REF, target, "clada: step-back"));
    refs.push(RefChange::set(STATE_REF, tip, "clada: step-back"));
    Ok(refs)
}

/// Where HEAD stands in an active step-back: a detached commit on the tip's first-parent
/// chain (normally the recorded position), or the branch itself at the tip (the user
/// switched back by hand). Returns the position and the chain from the tip down to it.
pub(super) fn current_position(
    repo: &Repo,
    state: &StepState,
) -> Result<(ObjectId, Vec<CommitInfo>), HistoryError> {
    let short_branch = state
        .branch
        .strip_prefix("refs/heads/")
        .unwrap_or(&state.branch);
    let position = match repo.head()? {
        Head::Detached { commit } => commit,
        Head::Branch { name, commit } if name == state.branch && commit == state.tip => commit,
        _ => {
            return Err(HistoryError::Refused(format!(
                "HEAD left the history git-clada stepped back through (step-back left it at {} on {short_branch}). If you made commits since, keep them with `git branch <name>` first; then `git checkout --detach {}` and step again",
                Repo::short(state.position),
                state.position
            )))
        }
    };
    // Walk from the tip to the position (normally a few commits).
    let mut chain = Vec::new();
    let mut next = Some(state.tip);
    while let Some(id) = next {
        let info = repo.commit_info(id)?;
        next = match info.parents.as_slice() {
            [p] => Some(*p),
            _ => None,
        };
        let found = id == position;
        chain.push(info);
        if found {
            return Ok((position, chain));
        }
    }
    Err(HistoryError::Refused(format!(
        "HEAD ({}) is not on the first-parent history of {short_branch} that step-back walks. If you made commits there, keep them with `git branch <name>` first; then `git checkout --detach {}` to go back to where step-back left you, and step again",
        Repo::short(position),
        state.position
    )))
}

/// A further step back while already stepped back.
fn back_further(repo: &Repo, state: &StepState, dry_run: bool) -> Result<Move, HistoryError> {
    let (position, chain) = current_position(repo, state)?;
    if position == state.tip {
        return Err(HistoryError::Refused(format!(
            "you are back on the tip of {} but the step-back state remains; run `git clada step-forward --all` to restore the parked work first",
            state.branch.strip_prefix("refs/heads/").unwrap_or(&state.branch)
        )));
    }
    let info = chain
        .last()
        .ok_or_else(|| RepoError::Invalid("empty history chain".into()))?;
    // Lost work is the more important news than "cannot go further".
    require_unchanged(repo, info.tree, "stepping back")?;
    let target = step_target(info)?;
    let target_info = repo.commit_info(target)?;
    let plan = repo.plan_checkout(info.tree, target_info.tree)?;
    let conflicts = repo.checkout_conflicts(info.tree, &plan)?;
    if !conflicts.is_empty() {
        return Err(conflict_refusal("step-back", &conflicts));
    }
    let mut report = StepReport::new("step-back", &state.branch, state.tip, position, dry_run);
    report.to = target.to_string();
    report.subject = target_info.subject().to_string();
    report.behind = chain.len();
    report.paths = plan.paths().iter().map(|p| p.to_string()).collect();
    report.stash = state.stash.map(|s| s.to_string());
    report.stash_ref = state.stash.map(|_| stash_ref(state.tip));
    if dry_run {
        return Ok(Move::dry(report));
    }
    let mut trail = read_trail(repo, state)?;
    trail.push(target);
    let (plan, reflog) = move_detached(
        repo,
        position,
        &target_info,
        &report.paths,
        "step-back",
        &trail,
    )?;
    Ok(Move::planned(report, plan, reflog))
}

/// The restore that detaches HEAD at `target`, rewriting `paths`, and records the new position
/// and the walk's `trail`; and its reflog message.
pub(super) fn move_detached(
    repo: &Repo,
    from: ObjectId,
    target: &CommitInfo,
    paths: &[String],
    op: &str,
    trail: &[ObjectId],
) -> Result<(RestorePlan, String), HistoryError> {
    write_orig_head(repo, from)?;
    let mut plan = RestorePlan::new(
        format!("{op} to {}", target.id),
        target.id,
        None,
        target.tree,
        target.tree,
        paths.to_vec(),
    );
    plan.refs_after = vec![RefChange::set(
        POSITION_REF,
        target.id,
        format!("clada: {op}"),
    )];
    plan.refs_after.push(trail_change(repo, trail)?);
    plan.head_from = vec![from.to_string()];
    let reflog = format!(
        "clada: {op} to {}: {}",
        Repo::short(target.id),
        target.subject()
    );
    Ok((plan, reflog))
}

/// `git clada step-forward [--all]`.
pub fn step_forward(repo: &Repo, all: bool, dry_run: bool) -> Result<StepReport, HistoryError> {
    // The index read and the stat pass of the worktree check (the part that grows with the
    // repository) start at once, beside taking the lock and reading the step state; the
    // result is recomputed if the index changes meanwhile (see `finish_status`).
    let prefetch = repo.prefetch_status();
    let _lock = if dry_run { None } else { Some(repo.lock()?) };
    refuse_busy(repo)?;
    forward(repo, all, dry_run, prefetch)?.run(repo)
}

/// A step forward, planned.
fn forward(
    repo: &Repo,
    all: bool,
    dry_run: bool,
    prefetch: clada_git::StatusPrefetch,
) -> Result<Move, HistoryError> {
    let Some(state) = read_state(repo)? else {
        return Err(HistoryError::Refused(
            "you are not stepped back, so there is nothing to step forward to (`git clada step-back` first)".into(),
        ));
    };
    let (position, chain) = current_position(repo, &state)?;
    let short_branch = state
        .branch
        .strip_prefix("refs/heads/")
        .unwrap_or(&state.branch)
        .to_string();
    if repo.read_ref(&state.branch)? != Some(state.tip) {
        return Err(HistoryError::Refused(format!(
            "the branch {short_branch} moved while you were stepped back (it was at {}); git-clada will not re-attach it to a different commit. Put it back with `git branch -f {short_branch} {}`, or check it out yourself and restore the parked work with `git stash apply --index {}`",
            Repo::short(state.tip),
            state.tip,
            stash_ref(state.tip)
        )));
    }
    let position_info = chain
        .last()
        .ok_or_else(|| RepoError::Invalid("empty history chain".into()))?;
    let (_, status) = repo.finish_status(prefetch, position_info.tree, &[])?;
    refuse_changes(&status, "stepping forward")?;
    clada_base::trace::phase("step-forward: checks");
    let mut report = StepReport::new("step-forward", &state.branch, state.tip, position, dry_run);
    report.stash = state.stash.map(|s| s.to_string());
    report.stash_ref = state.stash.map(|_| stash_ref(state.tip));
    if !all && chain.len() > 2 {
        let next = &chain[chain.len() - 2];
        let plan = repo.plan_checkout(position_info.tree, next.tree)?;
        let conflicts = repo.checkout_conflicts(position_info.tree, &plan)?;
        if !conflicts.is_empty() {
            return Err(conflict_refusal("step-forward", &conflicts));
        }
        report.to = next.id.to_string();
        report.subject = next.subject().to_string();
        report.behind = chain.len() - 2;
        report.paths = plan.paths().iter().map(|p| p.to_string()).collect();
        if dry_run {
            return Ok(Move::dry(report));
        }
        let mut trail = read_trail(repo, &state)?;
        trail.push(next.id);
        let (plan, reflog) =
            move_detached(repo, position, next, &report.paths, "step-forward", &trail)?;
        return Ok(Move::planned(report, plan, reflog));
    }
    let mut returned = Returned::new(repo, &state)?;
    returned.trail.push(state.tip.to_string());
    return_to_tip(repo, &state, position_info, report, Some(returned))
}
