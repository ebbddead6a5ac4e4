//! Actions: the schema (as data), validation and conversion of block properties into typed
//! actions with sandboxed paths ([`plan`]), and their executors ([`execute`]). Never touches git.
//!
//! The git transaction drives this module in three calls: [`plan`] (parse result + sandbox →
//! typed actions, parse and validation errors), [`execute`] (runs them, for real or against an
//! in-memory overlay with `dry_run`, and returns the [`ExecutionResult`] report plus every
//! [`FileChange`]), and, for `--atomic`, [`restore`] (puts every `before` back).

pub mod comment;
mod exec;
pub mod fsx;
mod groups;
pub mod lines;
mod multi;
mod plan;
pub mod read;
pub mod schema;
mod search;
mod suggest;
pub mod textmatch;
mod write;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use crate::exec::hooks::Step;
pub use crate::exec::{Approval, ExecPolicy, ExecPrompt, ExecRequest, Lang};
pub use fsx::restore;
pub use groups::needs_tracked;
pub use plan::plan;
pub use schema::{ErrorType, Kind};

use crate::read::GroupKind;

use crate::sandbox::{PathError, ResolvedPath, Sandbox};
use textmatch::Hint;

// ---------------------------------------------------------------------------------------------
// Plan

/// Validated typed actions (paths resolved and checked) and everything that was rejected.
#[derive(Debug, Clone)]
pub struct Plan {
    /// Blocks the parser found, including those with syntax errors.
    pub total_blocks: usize,
    /// One per block that passed parsing and the schema, in document order. A block whose
    /// path the sandbox refused is here too, with `op: Err(..)`: it becomes a failed result.
    pub actions: Vec<PlannedAction>,
    /// Syntax, validation and type errors, in the original `ParseError` shape.
    pub errors: Vec<ParseErrorReport>,
}

impl Plan {
    /// Blocks whose paths the sandbox refused.
    pub fn refusals(&self) -> impl Iterator<Item = (&PlannedAction, &PathError)> {
        self.actions
            .iter()
            .filter_map(|a| a.op.as_ref().err().map(|e| (a, e)))
    }

    /// True when nothing could run (no valid action at all).
    pub fn nothing_to_do(&self) -> bool {
        self.actions
            .iter()
            .all(|a| a.op.is_err() || a.skip.is_some())
    }
}

/// One block that passed the schema.
#[derive(Debug, Clone)]
pub struct PlannedAction {
    pub block_id: String,
    /// The action name as written.
    pub action: String,
    pub kind: Kind,
    /// The parameters present in the block, converted.
    pub params: IndexMap<String, Value>,
    /// Parameters the schema does not know, as written (ignored, but echoed in reports).
    pub extra_params: IndexMap<String, Value>,
    /// 1-based lines of the block's header and end marker.
    pub start_line: usize,
    pub end_line: Option<usize>,
    /// Unknown parameters that were ignored.
    pub warnings: Vec<String>,
    /// The typed action, or why the sandbox refused one of its paths.
    pub op: Result<Action, PathError>,
    /// The block's format (reports show the line of blocks whose ids are `task-N`).
    pub format: crate::read::Format,
    /// The group (CSL TASKS, CML `<tasks>`) it belongs to: [`execute`] keeps the group's rule.
    pub group: Option<crate::read::Group>,
    /// Set when it must not run (another member of its group failed validation, or a fatal
    /// syntax error stops the reply): the reason, reported as its error.
    pub skip: Option<String>,
}

impl PlannedAction {
    /// A failed result for this action at position `seq`, to be filled in.
    fn result(&self, seq: usize) -> ActionResult {
        ActionResult {
            seq,
            block_id: self.block_id.clone(),
            line: (!self.format.is_nesl()).then_some(self.start_line),
            action: self.action.clone(),
            params: self.reported_params(),
            ..ActionResult::default()
        }
    }

    /// What a result echoes as `params`: `action` first, then every parameter of the block
    /// (unknown ones as written), as seed 000's ActionResult has them ("all SHAM properties
    /// including 'action'").
    pub fn reported_params(&self) -> IndexMap<String, Value> {
        let mut out = IndexMap::with_capacity(self.params.len() + self.extra_params.len() + 1);
        out.insert("action".to_string(), Value::String(self.action.clone()));
        out.extend(self.params.iter().map(|(k, v)| (k.clone(), v.clone())));
        out.extend(
            self.extra_params
                .iter()
                .map(|(k, v)| (k.clone(), v.clone())),
        );
        out
    }

    /// The paths this action may create, change or delete (empty for reads and exec).
    pub fn write_paths(&self) -> Vec<&ResolvedPath> {
        match &self.op {
            Ok(a) => a.write_paths(),
            Err(_) => Vec::new(),
        }
    }
}

/// A typed, checked action.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    FileWrite {
        path: ResolvedPath,
        content: String,
    },
    FileCreate {
        path: ResolvedPath,
        content: String,
    },
    FileAppend {
        path: ResolvedPath,
        content: String,
    },
    FileReplaceText {
        path: ResolvedPath,
        old_text: String,
        new_text: String,
    },
    FileReplaceAllText {
        path: ResolvedPath,
        old_text: String,
        new_text: String,
        count: Option<usize>,
    },
    FileEdit {
        path: ResolvedPath,
        old_text: String,
        new_text: String,
        count: usize,
    },
    FileReplaceLines {
        path: ResolvedPath,
        lines: String,
        new_content: String,
    },
    FileReplaceRange {
        path: ResolvedPath,
        start_text: String,
        end_text: String,
        new_text: String,
        count: usize,
    },
    FileDelete {
        path: ResolvedPath,
    },
    FileMove {
        old_path: ResolvedPath,
        new_path: ResolvedPath,
    },
    DirCreate {
        path: ResolvedPath,
    },
    DirDelete {
        path: ResolvedPath,
        recursive: bool,
    },
    FileRead {
        path: ResolvedPath,
    },
    FileReadNumbered {
        path: ResolvedPath,
        lines: Option<String>,
        delimiter: String,
    },
    FilesRead {
        paths: Vec<ResolvedPath>,
    },
    FilesReadNumbered {
        paths: Vec<ResolvedPath>,
        delimiter: String,
    },
    Ls {
        path: ResolvedPath,
    },
    Grep {
        pattern: String,
        path: ResolvedPath,
        include: Option<String>,
        /// `pattern` is a regular expression (else a plain substring).
        regex: bool,
    },
    Glob {
        pattern: String,
        base_path: ResolvedPath,
    },
    Exec {
        code: String,
        lang: Lang,
        cwd: Option<ResolvedPath>,
        timeout: Option<u64>,
        return_output: bool,
    },
    // The actions seed 001 planned.
    FileCommentLines {
        path: ResolvedPath,
        lines: String,
    },
    FileUncommentLines {
        path: ResolvedPath,
        lines: String,
    },
    FilesReplaceAllText {
        paths: Vec<ResolvedPath>,
        old_text: String,
        new_text: String,
    },
}

impl Action {
    /// The file whose text this action rewrites in place.
    fn edited_file(&self) -> Option<&ResolvedPath> {
        match self {
            Action::FileWrite { path, .. }
            | Action::FileCreate { path, .. }
            | Action::FileCommentLines { path, .. }
            | Action::FileUncommentLines { path, .. }
            | Action::FileAppend { path, .. }
            | Action::FileReplaceText { path, .. }
            | Action::FileReplaceAllText { path, .. }
            | Action::FileEdit { path, .. }
            | Action::FileReplaceLines { path, .. }
            | Action::FileReplaceRange { path, .. } => Some(path),
            _ => None,
        }
    }

    /// The file whose content this action reads or edits in place (not its directory entry):
    /// consecutive such actions on one file share the in-memory copy of it.
    pub fn content_path(&self) -> Option<&Path> {
        match self {
            Action::FileRead { path } | Action::FileReadNumbered { path, .. } => Some(&path.abs),
            _ => self.edited_file().map(|p| p.abs.as_path()),
        }
    }

    /// The paths this action may create, change or delete.
    pub fn write_paths(&self) -> Vec<&ResolvedPath> {
        match self {
            Action::FileDelete { path }
            | Action::DirCreate { path }
            | Action::DirDelete { path, .. } => vec![path],
            Action::FileMove { old_path, new_path } => vec![old_path, new_path],
            Action::FilesReplaceAllText { paths, .. } => paths.iter().collect(),
            Action::FileRead { .. }
            | Action::FileReadNumbered { .. }
            | Action::FilesRead { .. }
            | Action::FilesReadNumbered { .. }
            | Action::Ls { .. }
            | Action::Grep { .. }
            | Action::Glob { .. }
            | Action::Exec { .. } => Vec::new(),
            _ => self.edited_file().into_iter().collect(),
        }
    }
}

/// A block that could not become an action: the original `ParseError` shape
/// (clada-semantics §3), `blockId` `unknown` when the error belongs to no block.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ParseErrorReport {
    pub block_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub action: Option<String>,
    pub error_type: ErrorType,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub block_start_line: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nesl_content: Option<String>,
}

// ---------------------------------------------------------------------------------------------
// Options

/// How [`execute`] runs.
#[derive(Clone)]
pub struct EngineOptions {
    /// Change nothing on disk: run against an in-memory overlay; exec is skipped.
    pub dry_run: bool,
    pub exec: ExecPolicy,
    /// Used for exec blocks without a `timeout` (default 30 s).
    pub exec_timeout: Duration,
    /// Cap per output stream of an exec block (default 10 MiB).
    pub exec_max_output: usize,
    /// Time for all exec blocks of one run together (`--total-timeout`); none by default.
    pub exec_total_timeout: Option<Duration>,
    /// Commands approved for this repository (`.clada/allowed-commands.json`): under
    /// [`ExecPolicy::Ask`] they run without asking (see [`crate::exec::policy`]).
    pub approved: Arc<std::collections::BTreeSet<String>>,
    /// Asked for each exec block under [`ExecPolicy::Ask`].
    pub prompt: Option<Arc<ExecPrompt>>,
    /// How whole-file writes (file_write, file_create) are shaped: final newline,
    /// `.editorconfig` (off by default here: the engine writes content exactly; the CLI turns
    /// it on from the configuration).
    pub whole_file: crate::config::editorconfig::WholeFile,
    /// Follows and stops the exec blocks from another thread (see [`crate::exec::ExecWatch`]).
    pub exec_watch: Option<Arc<crate::exec::ExecWatch>>,
}

impl Default for EngineOptions {
    fn default() -> Self {
        EngineOptions {
            dry_run: false,
            exec: ExecPolicy::Deny,
            exec_timeout: Duration::from_secs(30),
            exec_max_output: 10 * 1024 * 1024,
            exec_total_timeout: None,
            approved: Arc::default(),
            prompt: None,
            whole_file: crate::config::editorconfig::WholeFile::default(),
            exec_watch: None,
        }
    }
}

impl std::fmt::Debug for EngineOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EngineOptions")
            .field("dry_run", &self.dry_run)
            .field("exec", &self.exec)
            .field("exec_timeout", &self.exec_timeout)
            .field("exec_max_output", &self.exec_max_output)
            .field("exec_total_timeout", &self.exec_total_timeout)
            .field("approved", &self.approved)
            .field("prompt", &self.prompt.is_some())
            .field("whole_file", &self.whole_file)
            .finish()
    }
}

// ---------------------------------------------------------------------------------------------
// Results

/// The report of one apply: the seeds' `ExecutionResult`, extended (docs/json-format.md).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct ExecutionResult {
    /// Every result succeeded, no parse error, no fatal error, every step succeeded.
    pub success: bool,
    pub total_blocks: usize,
    /// Number of results (blocks that reached execution, refused ones included).
    pub executed_actions: usize,
    pub results: Vec<ActionResult>,
    pub parse_errors: Vec<ParseErrorReport>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub git_commit: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub snapshot_commit: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fatal_error: Option<String>,
    /// Warnings about the whole apply (per-block warnings are on the results).
    #[serde(default)]
    pub warnings: Vec<String>,
    /// Steps of the surrounding transaction (hooks, commit), filled in by the caller.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub steps: Vec<Step>,
    /// True when nothing was changed on disk (`--dry-run`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub dry_run: bool,
    /// True when every change was rolled back (`--atomic` after a failure): no result took
    /// effect.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub rolled_back: bool,
}

impl ExecutionResult {
    /// Recomputes `success` from the parts (call after filling in steps or a fatal error).
    pub fn update_success(&mut self) {
        self.success = self.fatal_error.is_none()
            && self.parse_errors.is_empty()
            && self.results.iter().all(|r| r.success)
            && self.steps.iter().all(|s| s.success);
    }

    /// Results that failed because the sandbox refused a path.
    pub fn refused(&self) -> impl Iterator<Item = &ActionResult> {
        self.results.iter().filter(|r| r.refused)
    }
}

/// One block's outcome.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct ActionResult {
    /// 1-based execution order.
    pub seq: usize,
    pub block_id: String,
    /// The block's first line, for blocks of the formats whose ids do not say where they are
    /// (CSL, CML, replacer: `task-N`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    pub action: String,
    /// `action`, then the block's parameters, converted (`count` is a number, booleans are
    /// booleans); unknown parameters as written.
    pub params: IndexMap<String, Value>,
    pub success: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hint: Option<Hint>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// The sandbox refused one of the block's paths (its error starts with the code).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub refused: bool,
    /// Not run (exec in a dry run).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub skipped: bool,
    /// It succeeded, but its change was rolled back with the whole reply (`--atomic`);
    /// `success` is then false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub rolled_back: bool,
}

/// The state of one path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileState {
    Absent,
    File { bytes: Vec<u8>, executable: bool },
    Symlink { target: PathBuf },
    Dir,
}

/// One path a file action created, modified, deleted or moved (both sides of a move), with
/// its state before the first action touched it and after the last one. Directories created or
/// removed appear as `Dir` states (git does not track them; `restore` needs them).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileChange {
    /// Absolute.
    pub path: PathBuf,
    /// `/`-separated, relative to the sandbox root; `None` outside it (never committed).
    pub rel: Option<String>,
    pub before: FileState,
    pub after: FileState,
}

/// What [`execute`] returns.
#[derive(Debug, Clone)]
pub struct Execution {
    pub result: ExecutionResult,
    pub changes: Vec<FileChange>,
}

// ---------------------------------------------------------------------------------------------
// Execution

/// What one executor produced.
#[derive(Debug, Default)]
pub(crate) struct Outcome {
    pub success: bool,
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
    pub opts: &'a EngineOptions,
    pub vfs: fsx::Vfs,
    pub lines: lines::LineTracker,
    /// The exec blocks' policy state, session and time budget.
    pub exec: crate::exec::Runner,
}

/// Runs the plan's actions in order. Failures do not stop later actions. Never panics on
/// filesystem errors: every problem is a failed result.
pub fn execute(plan: &Plan, sandbox: &Sandbox, opts: &EngineOptions) -> Execution {
    let mut ctx = Ctx {
        sandbox,
        opts,
        vfs: fsx::Vfs::new(opts.dry_run),
        lines: lines::LineTracker::default(),
        exec: crate::exec::Runner::new(crate::exec::Settings {
            policy: opts.exec,
            timeout: opts.exec_timeout,
            max_output: opts.exec_max_output,
            total_timeout: opts.exec_total_timeout,
            approved: Arc::clone(&opts.approved),
            prompt: opts.prompt.clone(),
            watch: opts.exec_watch.clone(),
        }),
    };
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
                first: results.len(),
                failed: None,
                ran_exec: false,
            });
            if group.as_ref().is_some_and(|g| g.kind == GroupKind::Atomic) {
                flush_held(&mut ctx, plan, &mut results);
                ctx.vfs.begin_group();
            }
        }
        let skip = pa
            .skip
            .clone()
            .or_else(|| group.as_ref().and_then(GroupRun::skip_reason));
        if let Some(reason) = skip {
            results.push(ActionResult {
                error: Some(reason),
                warnings: pa.warnings.clone(),
                ..pa.result(i + 1)
            });
            continue;
        }
        let held = ctx.vfs.held_path();
        if held.is_some() && held != pa.op.as_ref().ok().and_then(Action::content_path) {
            flush_held(&mut ctx, plan, &mut results);
        }
        ctx.vfs.set_writer(i);
        let (mut outcome, refused) = match &pa.op {
            Err(e) => (Outcome::fail(e.to_string()), true),
            Ok(action) => match recheck(sandbox, action) {
                Err(e) => (Outcome::fail(e.to_string()), true),
                Ok(()) => (run(&mut ctx, pa, action), false),
            },
        };
        if let (Ok(action), Some(error), None) = (&pa.op, &outcome.error, &outcome.hint) {
            outcome.hint = suggest::missing_path_hint(&ctx, action, error);
        }
        let mut warnings = pa.warnings.clone();
        warnings.extend(outcome.warnings);
        let success = outcome.success;
        results.push(ActionResult {
            success: outcome.success,
            error: outcome.error.filter(|e| !e.is_empty()),
            data: outcome.data,
            hint: outcome.hint,
            warnings,
            refused,
            skipped: outcome.skipped,
            ..pa.result(i + 1)
        });
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
    let changes = ctx.vfs.changes(sandbox);
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
    Execution { result, changes }
}

/// An atomic group (CSL TASKS) while it runs.
struct GroupRun {
    id: String,
    kind: GroupKind,
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
                "not run: {failed} of the same TASKS group ({}) failed, so the group was rolled back",
                self.id
            ),
            GroupKind::StopOnFailure => format!(
                "not run: {failed}, earlier in the same <tasks> block, failed, and a <tasks> \
                 block stops at its first failure"
            ),
        })
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
        r.error = Some(match &undone {
            Ok(()) => format!(
                "not applied: {failed} of the same TASKS group ({}) failed, so the group's \
                 changes were rolled back{exec_note}",
                g.id
            ),
            Err(e) => format!(
                "{failed} of the same TASKS group ({}) failed, and rolling back the group's \
                 changes failed too: {e}; check the files this block changed",
                g.id
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
        sandbox.check_nested(p)?;
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
        | Action::FileReplaceRange { path, .. }
        | Action::FileRead { path }
        | Action::FileReadNumbered { path, .. }
        | Action::Ls { path }
        | Action::Grep { path, .. } => check(path, Access::Follow),
        Action::Glob { base_path, .. } => check(base_path, Access::Follow),
    }
}

fn run(ctx: &mut Ctx<'_>, pa: &PlannedAction, action: &Action) -> Outcome {
    let tag = lines::Tag {
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
        } => exec::run_block(ctx, &pa.block_id, code, *lang, cwd.as_ref(), *timeout),
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
