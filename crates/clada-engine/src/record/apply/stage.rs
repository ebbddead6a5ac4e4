//! Phases 6–7: the index and the hooks. `pre-commit` and `commit-msg` run contained
//! ([`crate::record::githooks`]) on the index to commit, written into their private folder
//! (they may re-stage files, as formatters do, or fail); the real index stays the user's and
//! git-clada keeps holding its lock. Only after they passed is the index left behind written,
//! on another thread while the objects are made. A failing hook commits nothing; the AI's
//! changes stay in the worktree. Under `--exec deny` no hook runs and the commit says so
//! (`Clada-Hooks: skipped`).

use crate::action::{Execution, Step};
use crate::input::Reply;
use clada_git::{ByteSlice, Index, IndexUpdate, ObjectId, Repo, RepoError, TreeChange};

use super::super::{admit, message};
use super::begin::Transaction;
use super::build::{file_entry, index_updates, with_updates, Built};
use super::state::Start;
use super::{ApplyError, ApplyOptions, ApplyOutcome};

/// What `stage` made: the tree to commit, the index the hooks see (only when hooks run) and
/// the index left behind.
struct Staged {
    commit_tree: ObjectId,
    commit_index: Option<Index>,
    final_index: Index,
}

/// The index written (into git's lock, possibly still on its thread) and what it holds.
pub(super) struct Written {
    pub(super) commit_tree: ObjectId,
    /// The tracked worktree after the apply (W'), including what hooks re-staged.
    pub(super) after_tree: ObjectId,
    /// The tree of the index left behind (I').
    pub(super) after_index: ObjectId,
    pub(super) index_writer: std::thread::JoinHandle<Result<clada_git::IndexLock, RepoError>>,
    /// The commit message, as the commit-msg hook left it.
    pub(super) msg: String,
    /// Paths a hook staged that the AI commit does not change: left out (`record::admit`).
    pub(super) left_out: Vec<clada_git::BString>,
}

impl Transaction<'_> {
    /// Stages, runs the hooks, writes the commit(s), moves the branch and stores the record.
    pub(super) fn commit(
        self,
        start: &mut Start,
        opts: &ApplyOptions,
        reply: &Reply,
        mut execution: Execution,
        built: Built,
        lock: clada_git::IndexLock,
    ) -> Result<ApplyOutcome, ApplyError> {
        let repo = self.repo;
        // An agent's turn committed on its own is no reply: its message is the turn's, and
        // its pending changes are what it commits, not something an earlier apply left.
        let turn = built.turn.as_ref().filter(|_| !has_blocks(&execution));
        warn_before_commit(&mut execution, &built, turn.is_some());
        if paused_for_the_user(repo, opts, &built, &mut execution)? {
            lock.commit(&start.index)?;
            let index_tree = self.index_tree;
            return self.close_uncommitted(
                start,
                opts,
                reply,
                execution,
                Some((built.after_tree, index_tree)),
            );
        }
        let (githooks, runs_hooks, skipped) = plan_hooks(repo, opts, &built, &mut execution);
        let staged = self.stage(start, &built, runs_hooks)?;
        clada_base::trace::phase("index: apply");

        let msg = commit_message(repo, opts, reply, &execution, &built, turn)?;
        let msg = message::with_uncommitted(msg, &self.journal.uncommitted);
        let skipped_configured = opts.hooks.exec_denied
            && !(opts.hooks.before.is_empty() && opts.hooks.after.is_empty());
        let msg = match skipped || skipped_configured {
            true => message::with_trailer(msg, super::super::trailer::HOOKS, "skipped"),
            false => msg,
        };

        let rule = HookIndexRule::of(&built, opts);
        let Some(written) = self.write_index(
            start,
            runs_hooks.then_some((&githooks, &rule)),
            &built,
            staged,
            lock,
            msg,
            &mut execution.result.steps,
        )?
        else {
            let why = match execution.result.steps.last() {
                Some(s) if s.name == HOOK_FILE_STEP => "a hook staged a hook file",
                _ => "a hook failed",
            };
            execution.result.warnings.push(match turn {
                Some(_) => format!("{why}, so nothing was committed; {HOOK_REFUSED_TURN}"),
                None => format!(
                    "{why}, so nothing was committed; the AI's changes are in the worktree, unstaged, and stay pending: the next apply's AI commit includes them, `git clada commit` commits them now (fix what the hook reports first), `git clada undo` takes them back"
                ),
            });
            let index_tree = self.index_tree;
            return self.close_uncommitted(
                start,
                opts,
                reply,
                execution,
                Some((built.after_tree, index_tree)),
            );
        };
        clada_base::trace::phase("write index");
        execution
            .result
            .warnings
            .extend(left_out_warning(&written.left_out));
        self.publish(start, opts, reply, execution, &built, written)
    }

    /// The tree to commit, the index the hooks see (what is committed) and the index left
    /// behind: with the user's work kept they differ (staged work stays staged, uncommitted).
    /// Without hooks nothing reads the user's index again and nothing needs the index the
    /// hooks would see, so the user's index is edited in place into the one left behind.
    fn stage(
        &self,
        start: &mut Start,
        built: &Built,
        runs_hooks: bool,
    ) -> Result<Staged, ApplyError> {
        let repo = self.repo;
        let base = |start: &mut Start| match runs_hooks {
            true => start.index.clone(),
            false => std::mem::replace(&mut start.index, Index::empty_like(repo)),
        };
        Ok(match &built.on_head {
            Ok(on_head) => {
                let tree = repo.edit_tree(start.head_tree, &on_head.commit)?;
                let commit_index = if runs_hooks {
                    let mut to_commit = on_head.commit.clone();
                    for p in &start.status.staged {
                        if !on_head.commit.iter().any(|c| &c.path == p) {
                            to_commit.push(TreeChange {
                                path: p.clone(),
                                entry: file_entry(repo, start.head_tree, p)?,
                            });
                        }
                    }
                    Some(with_updates(
                        repo,
                        &start.index,
                        &index_updates(&to_commit, &built.changes),
                    )?)
                } else {
                    None
                };
                let mut final_index = base(start);
                final_index.apply(repo, &index_updates(&on_head.index, &built.changes))?;
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
                let mut index = base(start);
                index.apply(repo, &index_updates(&all, &all))?;
                Staged {
                    commit_tree: built.after_tree,
                    commit_index: runs_hooks.then(|| index.clone()),
                    final_index: index,
                }
            }
        })
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
        hooks: Option<(&super::super::githooks::GitHooks<'_>, &HookIndexRule)>,
        built: &Built,
        staged: Staged,
        lock: clada_git::IndexLock,
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
        // The tree the index left behind holds (I'): the commit's tree when everything is
        // committed, the user's index tree plus the AI's changes when their work is kept.
        let mut final_tree = match &built.on_head {
            Ok(on_head) if start.status.is_dirty() => {
                repo.edit_tree(self.index_tree, &on_head.index)?
            }
            _ => commit_tree,
        };
        let index_writer;
        let mut left_out = Vec::new();
        if let Some((hooks, rule)) = hooks {
            let mut hook_index = commit_index.unwrap_or_else(|| final_index.clone());
            let mut retried = false;
            let after_hooks = loop {
                hook_index.set_cache_tree(repo, commit_tree, None)?;
                clada_base::failpoint::hit("apply:after-index");
                let verdict = hooks.pre_commit(&hook_index, &mut msg)?;
                steps.extend(verdict.steps);
                if verdict.passed {
                    break verdict.index.unwrap_or_else(|| hook_index.clone());
                }
                // A hook that fixed the reply's files and failed (end-of-file-fixer, a
                // formatter: the pre-commit framework's way) gets one more try with its
                // fixes staged, as its users do by hand.
                let fixes = match retried {
                    true => Vec::new(),
                    false => self.hook_fixes(built, after_tree, commit_tree)?,
                };
                if fixes.is_empty() || steps.iter().any(|s| s.needs_user.is_some()) {
                    // The user's own index stays; the AI's changes stay in the worktree.
                    lock.commit(&start.index)?;
                    return Ok(None);
                }
                retried = true;
                let note = note_retry(steps, &fixes);
                steps.extend(note);
                let indexes = [&mut hook_index, &mut final_index];
                (commit_tree, after_tree) =
                    take_fixes(repo, fixes, indexes, commit_tree, after_tree)?;
            };
            let hooked = repo.tree_of_index(commit_tree, &after_hooks)?;
            if hooked != commit_tree {
                let staged = repo.diff_trees(commit_tree, hooked)?;
                let sorted = admit::hook_index(repo, staged, &rule.ai_paths, rule.protect_hooks);
                if let Some(step) = staged_hook_files(&sorted) {
                    // A hook file staged by contained code: the user looks first.
                    steps.push(step);
                    lock.commit(&start.index)?;
                    return Ok(None);
                }
                left_out = sorted.left_out;
                (commit_tree, after_tree) = take_restaged(
                    repo,
                    sorted.take,
                    &after_hooks,
                    &mut final_index,
                    commit_tree,
                    after_tree,
                )?;
            }
            final_tree = repo.tree_of_index(commit_tree, &final_index)?;
            final_index.set_cache_tree(repo, final_tree, None)?;
            let mut lock = lock;
            lock.write(&final_index)?;
            index_writer = std::thread::spawn(move || Ok(lock));
        } else {
            final_index.set_cache_tree(repo, final_tree, None)?;
            // Written on another thread while the objects are made; joined before any ref
            // moves.
            let mut lock = lock;
            index_writer = std::thread::spawn(move || {
                lock.write(&final_index)?;
                Ok::<_, RepoError>(lock)
            });
        }
        Ok(Some(Written {
            commit_tree,
            after_tree,
            after_index: final_tree,
            index_writer,
            msg,
            left_out,
        }))
    }
}

/// What of a hook's index an AI commit may take (`record::admit`): the paths it changes, and
/// whether a staged hook file stops it.
pub(super) struct HookIndexRule {
    pub(super) ai_paths: std::collections::BTreeSet<clada_git::BString>,
    pub(super) protect_hooks: bool,
}

impl HookIndexRule {
    /// The paths `built`'s commit changes (not those left to the user as overlapping their
    /// work); hook files protected unless the user's `paths.protect_hooks: false`.
    fn of(built: &Built, opts: &ApplyOptions) -> HookIndexRule {
        let mut ai_paths: std::collections::BTreeSet<_> =
            built.changes.iter().map(|c| c.path.clone()).collect();
        if let Ok(on_head) = &built.on_head {
            for (p, _) in &on_head.uncommitted {
                ai_paths.remove(p);
            }
        }
        HookIndexRule {
            ai_paths,
            protect_hooks: !opts.hooks_writable,
        }
    }
}

/// The name of the ⏸ step of a commit whose hooks staged a protected hook file.
const HOOK_FILE_STEP: &str = "hook staged a hook file";

/// The ⏸ step of a commit whose hooks staged protected hook files.
fn staged_hook_files(sorted: &admit::HookIndex) -> Option<Step> {
    let (path, what) = sorted.hook_files.first()?;
    let more = match sorted.hook_files.len() {
        1 => String::new(),
        n => format!(" and {} more hook files", n - 1),
    };
    Some(Step::for_user(
        HOOK_FILE_STEP,
        format!(
            "the commit's hooks staged {path} ({what}){more}, which your own next git commit runs outside any sandbox; nothing was committed"
        ),
        format!(
            "look at {path} (`git status`, `git diff -- {path}`): remove it if you did not write it, commit it yourself if you did; then `git clada commit` commits the AI's changes (or `git clada undo` takes them back)"
        ),
    ))
}

/// Takes the changes a hook staged that the AI commit may take: committed, and staged in
/// the index left behind; returns the commit's and the worktree's trees with them.
fn take_restaged(
    repo: &Repo,
    take: Vec<clada_git::TreeDiff>,
    hook_index: &Index,
    final_index: &mut Index,
    commit_tree: ObjectId,
    after_tree: ObjectId,
) -> Result<(ObjectId, ObjectId), ApplyError> {
    let mut hasher = repo.hasher_with(hook_index)?;
    let mut updates = Vec::new();
    let mut committed = Vec::new();
    let mut worktree = Vec::new();
    for d in take {
        updates.push(IndexUpdate {
            path: d.path.clone(),
            entry: d.new,
            worktree_matches: false,
        });
        committed.push(TreeChange {
            path: d.path.clone(),
            entry: d.new,
        });
        worktree.push(TreeChange {
            entry: hasher.hash(d.path.as_bstr())?.map(|(e, _)| e),
            path: d.path,
        });
    }
    final_index.apply(repo, &updates)?;
    Ok((
        repo.edit_tree(commit_tree, &committed)?,
        repo.edit_tree(after_tree, &worktree)?,
    ))
}

/// The ⏸ step of an apply whose reply changed a file a git hook calls by path
/// (`record::called`), remembered for `git clada status`; `None` when it changed none. What an
/// earlier apply left pending is not this reply's.
fn changed_called(
    repo: &Repo,
    opts: &ApplyOptions,
    built: &Built,
) -> Result<Option<Step>, ApplyError> {
    let Some(protected) = &opts.hooks.policy.protected else {
        return Ok(None);
    };
    let changed: Vec<String> = built
        .changes
        .iter()
        .filter(|c| !built.pending.contains(&c.path))
        .map(|c| c.path.to_string())
        .collect();
    let hits = crate::record::called::among(&protected.called, &changed);
    if hits.is_empty() {
        return Ok(None);
    }
    crate::record::called::remember(repo, &hits)?;
    let said =
        crate::record::called::describe(hits.iter().map(|c| (c.rel.as_str(), c.from.as_str())));
    let first = &hits[0].rel;
    Ok(Some(Step::for_user(
        "commit",
        format!("{said}; nothing was committed, and the hooks did not run"),
        format!(
            "read the change (`git diff {first}`): your own next `git commit` runs it outside \
             any sandbox. Then `git clada commit` commits the AI's pending changes, or `git clada \
             status --ack {first}` marks it reviewed (`git clada status` says it until then); \
             `git clada undo` takes the reply back"
        ),
    )))
}

/// The blocks and steps that changed the protected set (each put back), named: `block x01,
/// hooks.after: make fmt`; `None` when none did.
fn changed_protected(result: &crate::action::ExecutionResult) -> Option<String> {
    let mut named: Vec<String> = result
        .results
        .iter()
        .filter(|r| !r.refused && r.code.as_deref() == Some("protected_hook"))
        .map(|r| format!("block {}", r.block_id))
        .collect();
    named.extend(
        result
            .steps
            .iter()
            .filter(|s| s.protected)
            .map(|s| s.name.clone()),
    );
    (!named.is_empty()).then(|| named.join(", "))
}

/// Names in the report every path whose AI change stayed out of the commit (⏸: the
/// user's to review).
pub(super) fn warn_uncommitted(execution: &mut Execution, on_head: &super::build::OnHead) {
    for (path, reason) in &on_head.uncommitted {
        execution.result.warnings.push(format!(
            "⏸ not committed: {reason}; the AI's change is in the worktree: review it with `git diff {path}` and commit it yourself, or `git clada undo` (your version comes back exactly)"
        ));
    }
}

/// Records in the steps that a failing pre-commit hook rewrote `fixes` and the commit is
/// tried once more: the failed run did its job (it fixed files), the retry decides.
fn note_retry(steps: &mut [Step], fixes: &[HookFix]) -> Vec<Step> {
    if let Some(failed) = steps.iter_mut().rev().find(|s| !s.success) {
        failed.success = true;
        failed.name.push_str(" (rewrote files, retried)");
    }
    let names: Vec<String> = fixes.iter().map(|f| f.path.to_string()).collect();
    vec![Step::new(
        "hook pre-commit: retry",
        true,
        format!(
            "the pre-commit hook rewrote {} and failed; its changes were staged and the commit tried once more (the AI commit holds the files as the hook left them: nothing needs resending)",
            names.join(", ")
        ),
    )]
}

/// Stages a pre-commit hook's fixes in both indexes; returns the commit's and the worktree's
/// trees with them.
fn take_fixes(
    repo: &Repo,
    fixes: Vec<HookFix>,
    indexes: [&mut Index; 2],
    commit_tree: ObjectId,
    after_tree: ObjectId,
) -> Result<(ObjectId, ObjectId), ApplyError> {
    let updates: Vec<IndexUpdate> = fixes
        .iter()
        .map(|f| IndexUpdate {
            path: f.path.clone(),
            entry: f.commit,
            worktree_matches: f.commit == f.worktree,
        })
        .collect();
    for index in indexes {
        index.apply(repo, &updates)?;
    }
    let (committed, worktree): (Vec<TreeChange>, Vec<TreeChange>) = fixes
        .into_iter()
        .map(|f| {
            let c = TreeChange {
                path: f.path.clone(),
                entry: f.commit,
            };
            let w = TreeChange {
                path: f.path,
                entry: f.worktree,
            };
            (c, w)
        })
        .unzip();
    Ok((
        repo.edit_tree(commit_tree, &committed)?,
        repo.edit_tree(after_tree, &worktree)?,
    ))
}

/// A reply path a failing pre-commit hook rewrote: what the commit takes and what the
/// worktree now holds.
struct HookFix {
    path: clada_git::BString,
    commit: Option<clada_git::Entry>,
    worktree: Option<clada_git::Entry>,
}

impl Transaction<'_> {
    /// The reply's paths a pre-commit hook rewrote in the worktree (compared with `after_tree`,
    /// the worktree the apply left), with what the commit takes: the hook's version, or, where
    /// the user's uncommitted work stayed out of the commit, the hook's change merged onto the
    /// committed version. Empty when nothing was rewritten or a fix cannot be kept apart.
    fn hook_fixes(
        &self,
        built: &Built,
        after_tree: ObjectId,
        commit_tree: ObjectId,
    ) -> Result<Vec<HookFix>, ApplyError> {
        let repo = self.repo;
        let mut hasher = repo.hasher()?;
        let mut out = Vec::new();
        for c in &built.changes {
            let left = file_entry(repo, after_tree, &c.path)?;
            let now = hasher.hash(c.path.as_bstr())?.map(|(e, _)| e);
            if now == left {
                continue;
            }
            let committed = file_entry(repo, commit_tree, &c.path)?;
            let commit = match (committed == left, committed, left, now) {
                (true, ..) => now,
                (false, Some(cm), Some(l), Some(n)) => {
                    let merged = super::super::merge::merge3(
                        &repo.read_blob(l.id)?,
                        &repo.read_blob(cm.id)?,
                        &repo.read_blob(n.id)?,
                    );
                    match merged {
                        Some(bytes) => Some(clada_git::Entry {
                            kind: n.kind,
                            id: repo.write_blob(&bytes)?,
                        }),
                        None => return Ok(Vec::new()),
                    }
                }
                _ => return Ok(Vec::new()),
            };
            out.push(HookFix {
                path: c.path.clone(),
                commit,
                worktree: now,
            });
        }
        Ok(out)
    }
}

/// Whether the AI's changes (the reply's, exec's, `hooks.after`'s) touch a hook file: then
/// this commit's hooks run contained even with `hooks.sandbox: off`.
pub(super) fn changed_hook_files(repo: &Repo, opts: &ApplyOptions, built: &Built) -> bool {
    let paths: Vec<String> = built.changes.iter().map(|c| c.path.to_string()).collect();
    super::super::githooks::touches_hook_files(
        repo,
        &opts.hooks.policy,
        paths.iter().map(String::as_str),
    )
}

/// The AI commit's message before the trailers the transaction adds: an agent's turn's
/// (`turn`), else the reply's.
fn commit_message(
    repo: &Repo,
    opts: &ApplyOptions,
    reply: &Reply,
    execution: &Execution,
    built: &Built,
    turn: Option<&crate::record::agent_turn::Turn>,
) -> Result<String, ApplyError> {
    let coauthor = opts
        .coauthor
        .clone()
        .or_else(|| repo.config_string("clada.coauthor"));
    Ok(match turn {
        // `-m`, else the user's prompt (`agent.subject: prompt`), else the file list.
        Some(turn) => message::turn(
            turn,
            &built.items,
            opts.message.as_deref().or(turn.subject.as_deref()),
            coauthor.as_deref(),
        ),
        None => {
            let reply_blob = repo.write_blob(&reply.bytes())?;
            // `-m`, else what the reply says it does, else the file list.
            let described = message::described(&reply.text);
            let msg = message::build(
                &execution.result,
                &built.items,
                &reply.source,
                &reply_blob.to_string(),
                opts.message.as_deref().or(described.as_deref()),
                coauthor.as_deref(),
            );
            message::with_session(msg, opts.session.as_deref())
        }
    })
}

/// What became of an agent's turn a git hook refused to commit.
pub const HOOK_REFUSED_TURN: &str = "the agent's changes stay in the worktree as pending AI changes, uncommitted: once you fix what the hook reports, `git clada commit` commits them (`git clada undo` takes them back)";

/// Whether the reply had blocks (run or not): an apply of a reply, not an agent's turn
/// committed on its own.
pub(super) fn has_blocks(execution: &Execution) -> bool {
    !execution.result.results.is_empty() || !execution.result.parse_errors.is_empty()
}

/// The warnings every commit of `built` carries: the user's work left uncommitted, and what
/// an earlier apply left pending that this commit takes (not for an agent's `turn`, whose
/// pending changes are its own).
fn warn_before_commit(execution: &mut Execution, built: &Built, turn: bool) {
    if let Ok(on_head) = &built.on_head {
        warn_uncommitted(execution, on_head);
    }
    if !built.pending.is_empty() && !turn {
        let paths: Vec<String> = built.pending.iter().map(|p| p.to_string()).collect();
        execution.result.warnings.push(format!(
            "this commit also holds the AI's changes an earlier apply left pending when a hook stopped its commit: {}",
            paths.join(", ")
        ));
    }
}

/// Whether the user looks before anything is committed (said in `execution`): a contained
/// step changed the protected set (put back), or the reply changed a file the user's own
/// next commit runs (the contained hooks do not run it now).
fn paused_for_the_user(
    repo: &Repo,
    opts: &ApplyOptions,
    built: &Built,
    execution: &mut Execution,
) -> Result<bool, ApplyError> {
    if let Some(what) = changed_protected(&execution.result) {
        execution.result.warnings.push(format!(
            "⏸ nothing was committed: {what} changed what your own next `git commit` or \
             `git status` runs (it was put back); the AI's changes are in the worktree and \
             stay pending: `git clada commit` commits them once you have looked, `git clada \
             undo` takes them back"
        ));
        return Ok(true);
    }
    if let Some(step) = changed_called(repo, opts, built)? {
        execution.result.steps.push(step);
        return Ok(true);
    }
    Ok(false)
}

/// The repository's git hooks for this commit, whether they run, and whether they were
/// skipped (exec deny), each said in `execution`; contained even under the user's
/// `hooks.sandbox: off` when the commit changes a hook file.
fn plan_hooks<'a>(
    repo: &'a Repo,
    opts: &'a ApplyOptions,
    built: &Built,
    execution: &mut Execution,
) -> (super::super::githooks::GitHooks<'a>, bool, bool) {
    let paths: Vec<String> = built.changes.iter().map(|c| c.path.to_string()).collect();
    let hook_files =
        super::super::githooks::hook_files_among(repo, paths.iter().map(String::as_str));
    if let Some((path, what)) = hook_files.first() {
        execution.result.warnings.push(format!(
            "this commit changes {path} ({what}), which your own next git commit runs outside \
             any sandbox: read it before you commit yourself (git clada show){}",
            if hook_files.len() > 1 {
                format!(", and {} more such files", hook_files.len() - 1)
            } else {
                String::new()
            }
        ));
    }
    let contain = opts.hooks.policy.unconfined.is_some() && !hook_files.is_empty();
    let githooks = super::super::githooks::GitHooks::new(repo, &opts.hooks.policy, contain);
    let has_hooks = !opts.no_verify && githooks.any_before_commit();
    let runs_hooks = has_hooks && !opts.hooks.exec_denied;
    if runs_hooks {
        execution
            .result
            .warnings
            .extend(super::super::githooks::unconfined_warning(
                &opts.hooks.policy,
                contain,
            ));
    }
    let skipped = has_hooks && opts.hooks.exec_denied;
    if skipped {
        execution.result.warnings.push(
            "the repository's pre-commit/commit-msg hooks did not run: the exec policy is \
             deny, and hooks may run code the reply changed; the commit says so \
             (Clada-Hooks: skipped)"
                .into(),
        );
    }
    (githooks, runs_hooks, skipped)
}

/// The warning naming the paths a commit's hooks staged that the AI commit left out.
fn left_out_warning(left_out: &[clada_git::BString]) -> Option<String> {
    if left_out.is_empty() {
        return None;
    }
    let paths: Vec<String> = left_out.iter().map(|p| p.to_string()).collect();
    let one = paths.len() == 1;
    Some(format!(
        "the commit's hooks staged {} this AI commit does not change, so {} left out of it (as you had {} in the index and the worktree): {}",
        if one { "a path" } else { "paths" },
        if one { "it was" } else { "they were" },
        if one { "it" } else { "them" },
        paths.join(", ")
    ))
}
