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
pub mod lines;
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

pub use crate::exec::hooks::Step;
pub use crate::exec::{Approval, ExecPolicy, ExecPrompt, ExecRequest, Lang};
pub use codes::CODES;
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
    /// The commit that already applied exactly this block (a reply pasted again): it is not
    /// run, and its result says so (see [`PlannedAction::key`]).
    pub already_applied: Option<String>,
    /// The line of an earlier block of this reply with the same id and the same text: this
    /// copy is not run (the change is made once), and its result says so.
    pub duplicate_of: Option<usize>,
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
            start_line: Some(self.start_line),
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

    /// What identifies this block's change, whatever the format it came in: a hash of its
    /// action and parameters as they are reported ([`block_key`]). `None` for blocks that
    /// change no file (reads, exec) or cannot run: only a change applied twice does harm.
    pub fn key(&self) -> Option<String> {
        (self.kind == Kind::Write && self.op.is_ok() && self.skip.is_none())
            .then(|| block_key(&self.reported_params()))
    }

    /// The paths this action may create, change or delete (empty for reads and exec).
    pub fn write_paths(&self) -> Vec<&ResolvedPath> {
        match &self.op {
            Ok(a) => a.write_paths(),
            Err(_) => Vec::new(),
        }
    }
}

/// The key of a block's change: SHA-1 of its reported parameters (`action` first) as JSON.
/// The same block pasted again has the same key, in any format.
pub fn block_key(params: &IndexMap<String, Value>) -> String {
    use sha1::{Digest, Sha1};
    let json = serde_json::to_vec(params).unwrap_or_default();
    Sha1::digest(&json)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
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
    /// aider's SEARCH/REPLACE.
    FileSearchReplace {
        path: ResolvedPath,
        search: String,
        replace: String,
    },
    /// Hunks of a unified diff or an apply_patch envelope.
    FilePatch(patch::Patch),
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
    pub(crate) fn edited_file(&self) -> Option<&ResolvedPath> {
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
            | Action::FileSearchReplace { path, .. }
            | Action::FileReplaceRange { path, .. } => Some(path),
            Action::FilePatch(p) if !p.moves_entry() => Some(&p.path),
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
            Action::FilePatch(p) => std::iter::once(&p.path).chain(&p.new_path).collect(),
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
    /// The stable code (docs/json-format.md): `syntax_error`, `missing_action`,
    /// `unknown_action`, `missing_param`, `invalid_type`, `invalid_block`, `not_read`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    pub message: String,
    /// The parameter at fault (seed 000's ValidationError).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub param: Option<String>,
    /// What the parameter must be, and what it was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actual: Option<String>,
    /// For `unknown_action`: the actions there are.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub available_actions: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub block_start_line: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nesl_content: Option<String>,
    /// Set when only the user can lift the refusal (a format turned off): the model is not
    /// asked to send the block again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub needs_user: Option<NeedsUser>,
}

impl ParseErrorReport {
    /// A report with the given parts and no seed-000 detail fields.
    pub fn new(
        block_id: String,
        action: Option<String>,
        error_type: ErrorType,
        code: &str,
        message: String,
        block_start_line: Option<usize>,
        nesl_content: Option<String>,
    ) -> ParseErrorReport {
        ParseErrorReport {
            block_id,
            action,
            error_type,
            code: Some(code.to_string()),
            message,
            param: None,
            expected: None,
            actual: None,
            available_actions: None,
            block_start_line,
            nesl_content,
            needs_user: None,
        }
    }
}

/// What only the user can do about a refused block (exec not approved, a path outside the
/// worktree or in `paths.deny`, a format turned off). Reports show it to the user and mark the
/// block `⏸ needs your approval`; the model is never asked to send it again.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NeedsUser {
    /// What the user can do to allow it.
    pub how: String,
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
    /// Commands the user approved for this repository (`crate::exec::approvals`): under
    /// [`ExecPolicy::Ask`] they run without asking (see [`crate::exec::policy`]).
    pub approved: Arc<std::collections::BTreeSet<String>>,
    /// Asked for each exec block under [`ExecPolicy::Ask`].
    pub prompt: Option<Arc<ExecPrompt>>,
    /// The OS sandbox exec blocks run in (`crate::exec::confine`; default: approved blocks at
    /// `workspace`, no network).
    pub confine: crate::exec::confine::Confine,
    /// How whole-file writes (file_write, file_create) are shaped: final newline,
    /// `.editorconfig`; the final-newline rule also applies to appends and to the aider and
    /// apply_patch edits (off by default here: the engine writes content exactly; the CLI
    /// turns it on from the configuration).
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
            confine: crate::exec::confine::Confine::default(),
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
    /// The stable code of a failure (docs/json-format.md); set on every failed result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
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
    /// Not run (exec in a dry run, or a block already applied).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub skipped: bool,
    /// Not run because this reply was the last one applied (in this commit, or "the last
    /// apply") and its files are as it left them; `--force` runs it anyway.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub already_applied: Option<String>,
    /// Not run because the block on this line of the reply has the same id and text (the
    /// change is made once).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duplicate_of: Option<usize>,
    /// It succeeded, but its change was rolled back with the whole reply (`--atomic`);
    /// `success` is then false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub rolled_back: bool,
    /// Refused in a way only the user can lift (`⏸ needs your approval`): what they can do.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub needs_user: Option<NeedsUser>,
    /// The block's first line in the reply, for ordering the report (not serialised: a stored
    /// report lists results in execution order).
    #[serde(skip)]
    pub start_line: Option<usize>,
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
    /// `(old, new)` root-relative paths of every successful `file_move` inside the root, in
    /// order: what a new path's content came from, so the commit can move the committed
    /// version rather than the user's uncommitted one.
    pub moves: Vec<(String, String)>,
}

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
    pub opts: &'a EngineOptions,
    pub vfs: fsx::Vfs,
    pub lines: lines::LineTracker,
    /// The exec blocks' policy state, session and time budget.
    pub exec: crate::exec::Runner,
}

impl<'a> Ctx<'a> {
    fn new(sandbox: &'a Sandbox, opts: &'a EngineOptions) -> Ctx<'a> {
        Ctx {
            sandbox,
            opts,
            vfs: fsx::Vfs::new(opts.dry_run, fsx::Disk::new(sandbox.handle())),
            lines: lines::LineTracker::default(),
            exec: crate::exec::Runner::new(crate::exec::Settings {
                policy: opts.exec,
                timeout: opts.exec_timeout,
                max_output: opts.exec_max_output,
                total_timeout: opts.exec_total_timeout,
                approved: Arc::clone(&opts.approved),
                prompt: opts.prompt.clone(),
                confine: opts.confine.clone(),
                watch: opts.exec_watch.clone(),
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
    let (mut outcome, refused) = match &pa.op {
        Err(e) => (refusal(e), true),
        Ok(action) => match recheck(ctx.sandbox, action) {
            Err(e) => (refusal(&e), true),
            Ok(()) => (run(ctx, pa, action), false),
        },
    };
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

/// Runs the plan's actions in order. Failures do not stop later actions. Never panics on
/// filesystem errors: every problem is a failed result.
pub fn execute(plan: &Plan, sandbox: &Sandbox, opts: &EngineOptions) -> Execution {
    let mut ctx = Ctx::new(sandbox, opts);
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
    }
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
        Action::FileSearchReplace {
            path,
            search,
            replace,
        } => search_replace::run(ctx, path, search, replace, &tag),
        Action::FilePatch(p) => patch::run(ctx, p, &tag),
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
        } => {
            // Exec sessions (a block without `cwd` starts where the previous one ended) are
            // SHAM/NESL's; CSL `RUN` and CML `<run>` start a fresh shell at the root or their
            // `dir`, as seeds 002 and 004 specify.
            let cwd = match (cwd, pa.format.is_nesl()) {
                (Some(c), _) => exec::Start::Dir(c),
                (None, true) => exec::Start::Session,
                (None, false) => exec::Start::Root,
            };
            exec::run_block(ctx, &pa.block_id, code, *lang, cwd, *timeout)
        }
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
