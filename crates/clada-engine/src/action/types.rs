//! What planning and execution produce and every higher layer reads: the plan and its
//! actions, the typed `Action`, the engine options, and the results (`ExecutionResult`,
//! `ActionResult`, `FileChange`).

use super::*;

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
    pub format: clada_read::Format,
    /// The group (CSL TASKS, CML `<tasks>`) it belongs to: [`execute`](super::execute) keeps the group's rule.
    pub group: Option<clada_read::Group>,
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
    pub(super) fn result(&self, seq: usize) -> ActionResult {
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

/// How [`execute`](super::execute) runs.
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
    /// Whether an object id names a commit of the repository's history, for read-only git
    /// (see [`crate::exec::ReachableCommit`]); `None`: an object id always asks.
    pub reachable_commit: Option<Arc<crate::exec::ReachableCommit>>,
    /// Symbolic links are links (git's `core.symlinks`, true by default); when false, a link a
    /// diff makes is a plain file holding its target, as git checks it out.
    pub symlinks: bool,
    /// Where `symlinks` is false: the worktree files (absolute) that stand for links, the ones
    /// the index has as links. A move carries that along, as `git mv` does.
    pub link_stand_ins: Arc<Vec<std::path::PathBuf>>,
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
            reachable_commit: None,
            symlinks: true,
            link_stand_ins: Arc::default(),
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

/// What [`execute`](super::execute) returns.
#[derive(Debug, Clone)]
pub struct Execution {
    pub result: ExecutionResult,
    pub changes: Vec<FileChange>,
    /// `(old, new)` root-relative paths of every successful `file_move` inside the root, in
    /// order: what a new path's content came from, so the commit can move the committed
    /// version rather than the user's uncommitted one.
    pub moves: Vec<(String, String)>,
    /// Root-relative paths of plain files that hold a symbolic link's target (written so where
    /// `core.symlinks` is false): committed as links (mode 120000), as `git apply` records them.
    pub link_files: Vec<String>,
}
