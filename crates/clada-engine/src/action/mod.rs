//! Actions: the schema (as data), validation and conversion of block properties into typed
//! actions with sandboxed paths ([`plan`]), and their executors ([`execute`]). Never touches git.
//!
//! The git transaction drives this module in three calls: [`plan`] (parse result + sandbox →
//! typed actions, parse and validation errors), [`execute`] (runs them, for real or against an
//! in-memory overlay with `dry_run`, and returns the [`ExecutionResult`] report plus every
//! [`FileChange`]), and, for `--atomic`, [`restore`] (puts every `before` back).

mod codes;
pub mod comment;
pub mod disk;
mod exec;
pub mod fsx;
mod groups;
pub mod hunks;
pub mod line_edits;
mod link;
pub mod locate;
mod multi;
pub mod patch;
mod plan;
pub mod read;
pub mod schema;
mod search;
pub mod search_replace;
mod suggest;
pub mod textmatch;
mod write;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use crate::exec::clada_hooks::Step;
pub use crate::exec::{Approval, ExecPolicy, ExecPrompt, ExecRequest, Lang};
pub use codes::CODES;
pub use fsx::restore;
pub use groups::needs_tracked;
pub use plan::plan;
pub use schema::{ErrorType, Kind};

use clada_read::GroupKind;

use crate::config::editorconfig::{ShapeLookup, WriteShape};
use crate::sandbox::{PathError, ResolvedPath, Sandbox};
use textmatch::Hint;

mod types;
pub use types::*;

// ---------------------------------------------------------------------------------------------
// Execution

/// What one executor produced.
#[derive(Debug, Default)]
pub(crate) struct Outcome {
    pub success: bool,
    /// The failure's code, when the executor knows it better than [`codes::infer`].
    pub code: Option<&'static str>,
    /// Set when only the user can lift the failure: what they can do.
    pub needs_user: Option<String>,
    pub error: Option<String>,
    pub data: Option<Value>,
    pub hint: Option<Hint>,
    pub warnings: Vec<String>,
    pub skipped: bool,
}

impl Outcome {
    pub fn ok(data: Value) -> Outcome {
        Outcome {
            success: true,
            data: Some(data),
            ..Outcome::default()
        }
    }

    pub fn fail(error: impl Into<String>) -> Outcome {
        Outcome {
            success: false,
            error: Some(error.into()),
            ..Outcome::default()
        }
    }

    pub fn with_code(mut self, code: &'static str) -> Outcome {
        self.code = Some(code);
        self
    }

    pub fn with_hint(mut self, hint: Hint) -> Outcome {
        self.hint = Some(hint);
        self
    }

    pub fn with_data(mut self, data: Value) -> Outcome {
        self.data = Some(data);
        self
    }
}

/// State shared by the executors during one [`execute`].
pub(crate) struct Ctx<'a> {
    pub sandbox: &'a Sandbox,
    /// The sandbox of the checks made again just before each block runs, with a memory of
    /// the folders they looked up, forgotten after any block that may have changed one.
    recheck: Sandbox,
    pub opts: &'a EngineOptions,
    pub vfs: fsx::Vfs,
    pub lines: line_edits::LineTracker,
    /// The exec blocks' policy state, session and time budget.
    pub exec: crate::exec::Runner,
    /// How the running block's writes are shaped (final newline, `.editorconfig`), resolved
    /// for every block before the first one runs ([`write_shapes`]).
    pub shape: WriteShape,
}

impl<'a> Ctx<'a> {
    fn new(sandbox: &'a Sandbox, opts: &'a EngineOptions) -> Ctx<'a> {
        Ctx {
            sandbox,
            recheck: sandbox.executing(),
            opts,
            vfs: fsx::Vfs::new(opts.dry_run, fsx::Disk::new(sandbox.handle()))
                .with_link_files(opts.link_stand_ins.to_vec()),
            lines: line_edits::LineTracker::default(),
            shape: WriteShape::default(),
            exec: crate::exec::Runner::new(crate::exec::Settings {
                policy: opts.exec,
                timeout: opts.exec_timeout,
                max_output: opts.exec_max_output,
                total_timeout: opts.exec_total_timeout,
                approved: Arc::clone(&opts.approved),
                prompt: opts.prompt.clone(),
                confine: opts.confine.clone(),
                watch: opts.exec_watch.clone(),
                reachable_commit: opts.reachable_commit.clone(),
            }),
        }
    }
}

/// A block that does not run: marked by planning or by its group's failure (`not_run`), or
/// already applied in an AI commit on the branch.
fn not_run(pa: &PlannedAction, i: usize, group: Option<&GroupRun>) -> Option<ActionResult> {
    if let Some(reason) = pa
        .skip
        .clone()
        .or_else(|| group.and_then(GroupRun::skip_reason))
    {
        return Some(ActionResult {
            code: Some("not_run".into()),
            error: Some(reason),
            warnings: pa.warnings.clone(),
            ..pa.result(i + 1)
        });
    }
    if let Some(line) = pa.duplicate_of {
        return Some(ActionResult {
            success: true,
            skipped: true,
            duplicate_of: Some(line),
            warnings: pa.warnings.clone(),
            ..pa.result(i + 1)
        });
    }
    pa.already_applied.as_ref().map(|commit| ActionResult {
        success: true,
        skipped: true,
        already_applied: Some(commit.clone()),
        warnings: pa.warnings.clone(),
        ..pa.result(i + 1)
    })
}

/// Runs one block (its sandbox check again first) and shapes its result: hint, warnings,
/// code.
fn run_block(ctx: &mut Ctx<'_>, pa: &PlannedAction, i: usize) -> ActionResult {
    ctx.vfs.set_writer(i);
    // A folder handle kept by the disk serves one block: whatever ran before (an exec block)
    // may have moved folders, and this block may run code that does.
    ctx.vfs.disk().forget();
    let changes = ctx.vfs.disk().changes();
    let (mut outcome, refused) = match &pa.op {
        Err(e) => (refusal(e), true),
        Ok(action) => match recheck(&ctx.recheck, action) {
            Err(e) => (refusal(&e), true),
            Ok(()) => keeping_keys(ctx, action, |ctx| run(ctx, pa, action)),
        },
    };
    ctx.vfs.disk().forget();
    // Code that ran, or an entry made, removed or moved: a folder the next checks look up
    // may no longer be where it was.
    if matches!(pa.op, Ok(Action::Exec { .. })) || ctx.vfs.disk().changes() != changes {
        ctx.recheck.forget_lookups();
    }
    if let (Ok(action), Some(error), None) = (&pa.op, &outcome.error, &outcome.hint) {
        outcome.hint = suggest::missing_path_hint(ctx, action, error);
    }
    let mut warnings = pa.warnings.clone();
    warnings.extend(outcome.warnings);
    if let (true, Ok(action)) = (outcome.success, &pa.op) {
        warnings.extend(no_op_warning(action));
    }
    let success = outcome.success;
    let error = outcome.error.filter(|e| !e.is_empty());
    let code = (!success).then(|| {
        outcome
            .code
            .unwrap_or_else(|| {
                codes::infer(
                    error.as_deref().unwrap_or_default(),
                    outcome.hint.as_ref(),
                    outcome.data.as_ref(),
                )
            })
            .to_string()
    });
    ActionResult {
        success,
        code,
        error,
        data: outcome.data,
        hint: outcome.hint,
        warnings,
        refused,
        skipped: outcome.skipped,
        needs_user: outcome.needs_user.map(|how| NeedsUser { how }),
        ..pa.result(i + 1)
    }
}

/// Runs `f` (the action) and, when it changed a protected key of a file it writes
/// (`package.json`'s `scripts.lint` a hook runs: `sandbox::protected`), puts the file back and
/// refuses it as `protected_hook`; the second value says whether it was refused.
fn keeping_keys(
    ctx: &mut Ctx<'_>,
    action: &Action,
    f: impl FnOnce(&mut Ctx<'_>) -> Outcome,
) -> (Outcome, bool) {
    let keyed: Vec<(PathBuf, String, Vec<crate::sandbox::protected::Key>)> = action
        .write_paths()
        .into_iter()
        .filter_map(|p| {
            let rel = p.rel.clone()?;
            let keys: Vec<_> = ctx
                .sandbox
                .protected_keys(&rel)
                .into_iter()
                .cloned()
                .collect();
            (!keys.is_empty()).then(|| (p.abs.clone(), rel, keys))
        })
        .collect();
    let before: Vec<Option<Vec<u8>>> = keyed
        .iter()
        .map(|(abs, ..)| ctx.vfs.read(abs).ok())
        .collect();
    let outcome = f(ctx);
    if !outcome.success {
        return (outcome, false);
    }
    for ((abs, rel, keys), before) in keyed.iter().zip(before) {
        let after = ctx.vfs.read(abs).ok();
        let refs: Vec<&crate::sandbox::protected::Key> = keys.iter().collect();
        let changed =
            crate::sandbox::protected::changed_keys(&refs, before.as_deref(), after.as_deref());
        if changed.is_empty() {
            continue;
        }
        let put_back = match &before {
            Some(b) => ctx.vfs.write_file(abs, b, false),
            None => ctx.vfs.remove_file(abs),
        };
        let named: Vec<String> = changed
            .iter()
            .map(|k| format!("{} ({})", k.name(), k.what))
            .collect();
        let e = PathError {
            code: crate::sandbox::PathErrorCode::ProtectedHook,
            path: rel.clone(),
            message: format!(
                "'{rel}' holds what a git hook runs on the user's own next commit, outside any \
                 sandbox: {}; a reply never changes it — say what should change and let the user \
                 edit it{}",
                named.join(", "),
                match put_back {
                    Ok(()) => String::new(),
                    Err(e) => format!(" (the file could not be put back: {e})"),
                }
            ),
            user_action: Some(
                "edit it yourself if the change is wanted (a reply never changes what your git \
                 hooks run), or set paths.protect_hooks: false in your own configuration"
                    .to_string(),
            ),
        };
        return (refusal(&e), true);
    }
    (outcome, false)
}

/// Runs the plan's actions in order. Failures do not stop later actions. Never panics on
/// filesystem errors: every problem is a failed result.
pub fn execute(plan: &Plan, sandbox: &Sandbox, opts: &EngineOptions) -> Execution {
    let mut ctx = Ctx::new(sandbox, opts);
    let shapes = write_shapes(plan, sandbox, opts);
    // Consecutive edits of one file are made in memory and the file written once after them
    // (fsx::Held); anything else first gets the disk up to date.
    ctx.vfs.set_holding(true);
    let mut results = Vec::with_capacity(plan.actions.len());
    let mut group: Option<GroupRun> = None;
    for (i, pa) in plan.actions.iter().enumerate() {
        let gid = pa.group.as_ref().map(|g| g.id.as_str());
        if group.as_ref().map(|g| g.id.as_str()) != gid {
            ctx.vfs.end_group();
            group = pa.group.as_ref().map(|g| GroupRun {
                id: g.id.clone(),
                kind: g.kind,
                noun: g.noun,
                first: results.len(),
                failed: None,
                ran_exec: false,
            });
            if group.as_ref().is_some_and(|g| g.kind == GroupKind::Atomic) {
                flush_held(&mut ctx, plan, &mut results);
                ctx.vfs.begin_group();
            }
        }
        if let Some(not_run) = not_run(pa, i, group.as_ref()) {
            results.push(not_run);
            continue;
        }
        let held = ctx.vfs.held_path();
        if held.is_some() && held != pa.op.as_ref().ok().and_then(Action::content_path) {
            flush_held(&mut ctx, plan, &mut results);
        }
        ctx.shape = shapes[i];
        let result = run_block(&mut ctx, pa, i);
        let success = result.success;
        results.push(result);
        if let Some(g) = group.as_mut() {
            g.ran_exec |= pa.action == "exec";
            if !success && g.failed.is_none() {
                g.failed = Some(pa.block_id.clone());
                if g.kind == GroupKind::Atomic {
                    roll_back_group(&mut ctx, g, &mut results);
                }
            }
        }
    }
    ctx.vfs.end_group();
    flush_held(&mut ctx, plan, &mut results);
    empty_dir_warnings(&ctx, plan, &mut results);
    let changes = ctx.vfs.changes(sandbox);
    let link_files = ctx.vfs.link_files(sandbox);
    let mut result = ExecutionResult {
        success: false,
        total_blocks: plan.total_blocks,
        executed_actions: results.len(),
        results,
        parse_errors: plan.errors.clone(),
        dry_run: opts.dry_run,
        ..ExecutionResult::default()
    };
    result.update_success();
    let moves = moves_of(plan, &result.results);
    Execution {
        result,
        changes,
        moves,
        link_files,
    }
}

/// How each block's writes are shaped, looked up while nothing has changed the worktree (a
/// reply's own `.editorconfig` edits take effect from its next apply, as they did when the
/// lookup read the disk mid-reply: the edits are in memory until the end). Only the actions
/// that shape what they write look: whole-file writes and appends, aider's SEARCH/REPLACE,
/// apply_patch's hunks (the final-newline rule).
fn write_shapes(plan: &Plan, sandbox: &Sandbox, opts: &EngineOptions) -> Vec<WriteShape> {
    let mut lookup = ShapeLookup::default();
    let mut at = |path: &ResolvedPath| lookup.shape(&path.abs, sandbox.root(), opts.whole_file);
    plan.actions
        .iter()
        .map(|pa| match &pa.op {
            Ok(
                Action::FileWrite { path, .. }
                | Action::FileCreate { path, .. }
                | Action::FileAppend { path, .. }
                | Action::FileSearchReplace { path, .. },
            ) => at(path),
            Ok(Action::FilePatch(p)) if p.style == hunks::Style::ApplyPatch => {
                at(p.new_path.as_ref().unwrap_or(&p.path))
            }
            _ => WriteShape::default(),
        })
        .collect()
}

/// `(old, new)` root-relative paths of the successful `file_move`s inside the root.
fn moves_of(plan: &Plan, results: &[ActionResult]) -> Vec<(String, String)> {
    plan.actions
        .iter()
        .zip(results)
        .filter(|(_, r)| r.success)
        .filter_map(|(pa, _)| match &pa.op {
            Ok(Action::FileMove { old_path, new_path }) if old_path.abs != new_path.abs => {
                Some((old_path.rel.clone()?, new_path.rel.clone()?))
            }
            _ => None,
        })
        .collect()
}

/// A `dir_create` whose directory is still empty once the reply ran: git tracks no empty
/// directory, so nothing of it will be committed.
fn empty_dir_warnings(ctx: &Ctx<'_>, plan: &Plan, results: &mut [ActionResult]) {
    for (pa, r) in plan.actions.iter().zip(results.iter_mut()) {
        let Ok(Action::DirCreate { path }) = &pa.op else {
            continue;
        };
        if r.success && ctx.vfs.list_dir(&path.abs).is_ok_and(|e| e.is_empty()) {
            r.warnings.push(format!(
                "'{}' is an empty directory: git does not track empty directories, so it is not committed (put a file in it, e.g. a .gitkeep, if it must exist in the repository)",
                path.given
            ));
        }
    }
}

/// The warning of a text edit whose new text is its old text: it changes nothing.
fn no_op_warning(action: &Action) -> Option<String> {
    let same = match action {
        Action::FileReplaceText {
            old_text, new_text, ..
        }
        | Action::FileReplaceAllText {
            old_text, new_text, ..
        }
        | Action::FileEdit {
            old_text, new_text, ..
        } => old_text == new_text,
        Action::FilesReplaceAllText {
            old_text, new_text, ..
        } => old_text == new_text,
        _ => false,
    };
    same.then(|| {
        "new_text is the same as old_text: this block changed nothing (send the text you want instead, or leave the block out)".to_string()
    })
}

/// A group of blocks (CSL TASKS, CML `<tasks>`, an apply_patch envelope, a diff) while it runs.
struct GroupRun {
    id: String,
    kind: GroupKind,
    /// What reports call it (`TASKS group`, `<tasks> block`, `patch`, `diff`).
    noun: &'static str,
    /// Index of its first result.
    first: usize,
    /// The member that failed.
    failed: Option<String>,
    ran_exec: bool,
}

impl GroupRun {
    /// Why a member does not run: an earlier one failed.
    fn skip_reason(&self) -> Option<String> {
        let failed = self.failed.as_ref()?;
        Some(match self.kind {
            GroupKind::Atomic => format!(
                "not run: {failed} of the same {} ({}) failed, so the group was rolled back",
                self.noun, self.id
            ),
            GroupKind::StopOnFailure => format!(
                "not run: {failed}, earlier in the same {noun}, failed, and a {noun} stops at its \
                 first failure",
                noun = self.noun
            ),
        })
    }
}

/// The failure of a block whose path the sandbox refused: its code, and what the user can do
/// when only they can lift it.
fn refusal(e: &PathError) -> Outcome {
    Outcome {
        code: Some(e.code.as_str()),
        needs_user: e.user_action.clone(),
        ..Outcome::fail(e.to_string())
    }
}

/// A member of an atomic group failed: its earlier members' changes are undone and their
/// results say so.
fn roll_back_group(ctx: &mut Ctx<'_>, g: &GroupRun, results: &mut [ActionResult]) {
    let undone = ctx.vfs.rollback_group();
    let failed = g.failed.as_deref().unwrap_or_default();
    let exec_note = if g.ran_exec {
        " (what its RUN commands changed is not undone)"
    } else {
        ""
    };
    for r in results.get_mut(g.first..).into_iter().flatten() {
        if !r.success {
            continue;
        }
        r.success = false;
        r.rolled_back = true;
        r.code = Some("rolled_back".into());
        r.error = Some(match &undone {
            Ok(()) => format!(
                "not applied: {failed} of the same {} ({}) failed, so the group's changes were \
                 rolled back{exec_note}",
                g.noun, g.id
            ),
            Err(e) => format!(
                "{failed} of the same {} ({}) failed, and rolling back the group's changes \
                 failed too: {e}; check the files this block changed",
                g.noun, g.id
            ),
        });
    }
}

/// Writes the file held in memory; if that fails, every action whose change it held fails
/// with the reason (their changes are not on disk).
fn flush_held(ctx: &mut Ctx<'_>, plan: &Plan, results: &mut [ActionResult]) {
    let Err(e) = ctx.vfs.flush() else {
        return;
    };
    let given = e
        .writers
        .first()
        .and_then(|&i| plan.actions.get(i))
        .and_then(|pa| pa.write_paths().first().map(|p| p.given.clone()))
        .unwrap_or_else(|| e.path.display().to_string());
    let reason = fsx::node_error(&e.error, &given, "open", None);
    let ids: Vec<&str> = e
        .writers
        .iter()
        .filter_map(|&i| plan.actions.get(i).map(|pa| pa.block_id.as_str()))
        .collect();
    let why = format!(
        "{reason} (the file could not be written after block(s) {} edited it, so none of \
         their changes to it were saved)",
        ids.join(", ")
    );
    for &i in &e.writers {
        if let Some(r) = results.get_mut(i) {
            r.success = false;
            r.data = None;
            r.code =
                Some(codes::infer(&reason, None, None).replace("action_failed", "write_failed"));
            r.error = Some(why.clone());
        }
    }
}

/// Paths were checked when the plan was made; earlier actions (a move, an exec) can have
/// changed what they resolve to since, so they are checked again right before use.
fn recheck(sandbox: &Sandbox, action: &Action) -> Result<(), PathError> {
    use crate::sandbox::Access;
    let check = |p: &ResolvedPath, access: Access| -> Result<(), PathError> {
        let now = sandbox.resolve(&p.given, access)?;
        if now.abs != p.abs {
            return Err(PathError {
                code: crate::sandbox::PathErrorCode::SymlinkEscape,
                path: p.given.clone(),
                user_action: None,
                message: format!(
                    "'{}' resolved to '{}' when the reply was checked but to '{}' now (an \
                     earlier block changed a symlink or directory on the way); re-send the \
                     block with the real path",
                    p.given,
                    p.abs.display(),
                    now.abs.display()
                ),
            });
        }
        Ok(())
    };
    // An exec can have checked out a submodule since.
    for p in action.write_paths() {
        sandbox.check_write(p)?;
    }
    match action {
        Action::FileDelete { path }
        | Action::DirCreate { path }
        | Action::DirDelete { path, .. } => check(path, Access::Entry),
        Action::FileMove { old_path, new_path } => {
            check(old_path, Access::Entry)?;
            check(new_path, Access::Entry)?;
            sandbox.check_move(old_path, new_path)
        }
        Action::FilePatch(p) => {
            let access = if p.moves_entry() {
                Access::Entry
            } else {
                Access::Follow
            };
            check(&p.path, access)?;
            match &p.new_path {
                // A link's patch checks its new target from the new place when it runs.
                Some(n) if p.symlink => check(n, Access::Entry),
                Some(n) => {
                    check(n, Access::Entry)?;
                    sandbox.check_move(&p.path, n)
                }
                None => Ok(()),
            }
        }
        Action::FilesRead { paths }
        | Action::FilesReadNumbered { paths, .. }
        | Action::FilesReplaceAllText { paths, .. } => {
            paths.iter().try_for_each(|p| check(p, Access::Follow))
        }
        Action::Exec { cwd, .. } => cwd.iter().try_for_each(|p| check(p, Access::Follow)),
        Action::FileWrite { path, .. }
        | Action::FileCommentLines { path, .. }
        | Action::FileUncommentLines { path, .. }
        | Action::FileCreate { path, .. }
        | Action::FileAppend { path, .. }
        | Action::FileReplaceText { path, .. }
        | Action::FileReplaceAllText { path, .. }
        | Action::FileEdit { path, .. }
        | Action::FileReplaceLines { path, .. }
        | Action::FileSearchReplace { path, .. }
        | Action::FileReplaceRange { path, .. }
        | Action::FileRead { path }
        | Action::FileReadNumbered { path, .. }
        | Action::Ls { path }
        | Action::Grep { path, .. } => check(path, Access::Follow),
        Action::Glob { base_path, .. } => check(base_path, Access::Follow),
    }
}

fn run(ctx: &mut Ctx<'_>, pa: &PlannedAction, action: &Action) -> Outcome {
    let tag = line_edits::Tag {
        block_id: pa.block_id.clone(),
        action: pa.action.clone(),
    };
    match action {
        Action::FileWrite { path, content } => write::file_write(ctx, path, content, false),
        Action::FileCreate { path, content } => write::file_write(ctx, path, content, true),
        Action::FileAppend { path, content } => write::file_append(ctx, path, content, &tag),
        Action::FileReplaceText {
            path,
            old_text,
            new_text,
        } => write::replace(
            ctx,
            "file_replace_text",
            path,
            old_text,
            new_text,
            write::Rule::ExactlyOnce,
            &tag,
        ),
        Action::FileReplaceAllText {
            path,
            old_text,
            new_text,
            count,
        } => write::replace(
            ctx,
            "file_replace_all_text",
            path,
            old_text,
            new_text,
            write::Rule::All(*count),
            &tag,
        ),
        Action::FileEdit {
            path,
            old_text,
            new_text,
            count,
        } => write::replace(
            ctx,
            "file_edit",
            path,
            old_text,
            new_text,
            write::Rule::Exactly(*count),
            &tag,
        ),
        Action::FileReplaceLines {
            path,
            lines,
            new_content,
        } => write::replace_lines(ctx, path, lines, new_content, &tag),
        Action::FileSearchReplace {
            path,
            search,
            replace,
        } => search_replace::run(ctx, path, search, replace, &tag),
        Action::FilePatch(p) => file_patch(ctx, p, &tag),
        Action::FileReplaceRange {
            path,
            start_text,
            end_text,
            new_text,
            count,
        } => write::replace_range(ctx, path, [start_text, end_text], new_text, *count, &tag),
        Action::FileDelete { path } => write::file_delete(ctx, path),
        Action::FileMove { old_path, new_path } => write::file_move(ctx, old_path, new_path),
        Action::DirCreate { path } => write::dir_create(ctx, path),
        Action::DirDelete { path, recursive } => write::dir_delete(ctx, path, *recursive),
        Action::FileRead { path } => read::file_read(ctx, path),
        Action::FileReadNumbered {
            path,
            lines,
            delimiter,
        } => read::file_read_numbered(ctx, path, lines.as_deref(), delimiter),
        Action::FilesRead { paths } => read::files_read(ctx, paths),
        Action::FilesReadNumbered { paths, delimiter } => {
            read::files_read_numbered(ctx, paths, delimiter)
        }
        Action::Ls { path } => search::ls(ctx, path),
        Action::Grep {
            pattern,
            path,
            include,
            regex,
        } => search::grep(ctx, pattern, path, include.as_deref(), *regex),
        Action::Glob { pattern, base_path } => search::glob(ctx, pattern, base_path),
        Action::Exec {
            code,
            lang,
            cwd,
            timeout,
            return_output: _,
        } => exec::run_block(
            ctx,
            &pa.block_id,
            code,
            *lang,
            exec_start(pa, cwd.as_ref()),
            *timeout,
        ),
        Action::FileCommentLines { path, lines } => {
            comment::toggle_lines(ctx, path, lines, &tag, comment::Toggle::Comment)
        }
        Action::FileUncommentLines { path, lines } => {
            comment::toggle_lines(ctx, path, lines, &tag, comment::Toggle::Uncomment)
        }
        Action::FilesReplaceAllText {
            paths,
            old_text,
            new_text,
        } => multi::files_replace_all_text(ctx, paths, old_text, new_text, &tag),
    }
}

/// A `file_patch`: a link's patch is its own room (`link`): it replaces the entry, never
/// writes through it.
fn file_patch(ctx: &mut Ctx<'_>, p: &patch::Patch, tag: &line_edits::Tag) -> Outcome {
    match hunks::parse(&p.hunks, p.style) {
        Err(e) => Outcome::fail(format!("file_patch: hunks {e}")),
        Ok(h) if link::is_link_patch(ctx, p, &h) => link::run(ctx, p, &h),
        Ok(h) => patch::run(ctx, p, &h, tag),
    }
}

/// Where an exec block starts. Exec sessions (a block without `cwd` starts where the previous
/// one ended) are SHAM/NESL's; CSL `RUN` and CML `<run>` start a fresh shell at the root or
/// their `dir`, as seeds 002 and 004 specify.
fn exec_start<'a>(pa: &PlannedAction, cwd: Option<&'a ResolvedPath>) -> exec::Start<'a> {
    match (cwd, pa.format.is_nesl()) {
        (Some(c), _) => exec::Start::Dir(c),
        (None, true) => exec::Start::Session,
        (None, false) => exec::Start::Root,
    }
}
