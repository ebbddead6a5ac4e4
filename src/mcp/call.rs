//! One tool call, run on a blocking thread: its arguments become a reply for the apply
//! transaction (`apply`, `edit`, `check`), one read action run on its own (`read`, `grep`,
//! `ls`, `glob`), or a history command (`undo`, `redo`, `status`, `log`, `show`); what it did
//! becomes the [`Outcome`] the server sends back.
//!
//! Nothing is written twice: an `edit` call is JSON in the reading layer's `tool-call` format
//! (`clada_read`), so planning, the sandbox, the transaction, undo and the reports are the
//! ones every reply goes through.

use std::path::Path;
use std::sync::Arc;

use serde_json::{json, Map, Value};

use clada_engine::action::{self, ExecutionResult};
use clada_engine::exec::{ExecPrompt, ExecWatch};
use clada_engine::history;
use clada_engine::input::Reply;
use clada_engine::record::apply::{self as record_apply, ApplyError};
use clada_engine::report::ReportFormat;
use clada_engine::sandbox::Sandbox;
use clada_git::Repo;
use clada_read::{Dialect, Format};

use super::idempotency;
pub use super::outcome::Outcome;
use super::tools::{
    is_apply_option, ToolKind, READ_MAX_BYTES, READ_MAX_LINES, READ_MAX_LINE_CHARS,
};
use super::ServeOptions;

/// What a call gets from the request it serves.
pub struct Call<'a> {
    pub server: &'a ServeOptions,
    /// How an exec block is approved under the `ask` policy (an elicitation), if it can be.
    pub prompt: Option<Arc<ExecPrompt>>,
    /// Follows the exec blocks (progress) and stops them (a cancelled request).
    pub watch: Arc<ExecWatch>,
    /// The name the client gave in `clientInfo` (the agent an authorship log names).
    pub client: Option<String>,
}

/// Runs one call of a tool of kind `kind` with `args`.
pub fn run(call: &Call<'_>, kind: ToolKind, args: Map<String, Value>) -> Outcome {
    // GIT_CLADA_TRACE: the time since the last call's last phase is the server's wait for
    // this one, not part of its first phase.
    clada_base::trace::phase("mcp: between calls");
    let result = match kind {
        ToolKind::Apply | ToolKind::Edit => Ok(changing_call(call, kind, args)),
        ToolKind::Check if args.contains_key("reply") => apply_call(call, args, true),
        ToolKind::Check => edit_call(call, args, true),
        ToolKind::Read(action) => read_call(call, action, args),
        ToolKind::Undo | ToolKind::Redo | ToolKind::Status | ToolKind::Log | ToolKind::Show => {
            return history_call(call, kind, &args)
        }
    };
    let outcome = result.unwrap_or_else(|message| Outcome::fatal(&message));
    clada_base::trace::phase("mcp: report");
    outcome
}

/// `apply` or `edit`: run once per `idempotency_key` when the call carries one.
fn changing_call(call: &Call<'_>, kind: ToolKind, mut args: Map<String, Value>) -> Outcome {
    let key = match idempotency::take_key(&mut args) {
        Ok(k) => k,
        Err(message) => return Outcome::fatal(&message),
    };
    let run = |args| {
        let result = match kind {
            ToolKind::Apply => apply_call(call, args, false),
            _ => edit_call(call, args, false),
        };
        result.unwrap_or_else(|message| Outcome::fatal(&message))
    };
    let Some(key) = key else { return run(args) };
    if call.server.no_git {
        return Outcome::fatal(
            "`idempotency_key` needs a git repository to remember calls in; this server runs \
             with --no-git: call without it",
        );
    }
    let tool = if kind == ToolKind::Apply {
        "apply"
    } else {
        "edit"
    };
    idempotency::once(&call.server.root, tool, &key, args, run)
}

/// The options a call may set, taken out of its arguments.
struct CallOptions {
    message: Option<String>,
    atomic: bool,
    dialect: Dialect,
}

/// Takes `message`, `atomic` and `dialect` out of `args`, checked.
fn take_options(args: &mut Map<String, Value>) -> Result<CallOptions, String> {
    let message = match args.remove("message") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) if !s.trim().is_empty() && !s.contains('\n') => Some(s),
        Some(_) => return Err("`message` must be a one-line string (the commit subject)".into()),
    };
    let atomic = match args.remove("atomic") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => b,
        Some(_) => return Err("`atomic` must be true or false".into()),
    };
    let dialect = match args.remove("dialect") {
        None | Some(Value::Null) => Dialect::Auto,
        Some(Value::String(s)) if s == "auto" => Dialect::Auto,
        Some(Value::String(s)) => match clada_read::format_by_id(&s) {
            Some(f) => Dialect::Only(f),
            None => {
                let known: Vec<&str> = clada_read::formats().map(|(f, _)| f.id).collect();
                return Err(format!(
                    "unknown dialect '{s}'; use auto or one of {}",
                    known.join(", ")
                ));
            }
        },
        Some(_) => return Err("`dialect` must be a string".into()),
    };
    Ok(CallOptions {
        message,
        atomic,
        dialect,
    })
}

/// `apply` (or `check` of a reply): the reply text through the transaction.
fn apply_call(
    call: &Call<'_>,
    mut args: Map<String, Value>,
    dry_run: bool,
) -> Result<Outcome, String> {
    let options = take_options(&mut args)?;
    let text = match args.remove("reply") {
        Some(Value::String(s)) => s,
        Some(_) => {
            return Err("`reply` must be a string: the reply text with action blocks".into())
        }
        None => return Err("`reply` is required: the reply text with action blocks".into()),
    };
    if let Some(k) = args.keys().next() {
        return Err(format!(
            "unknown argument `{k}`; {} takes reply, dialect, message{}",
            if dry_run { "check of a reply" } else { "apply" },
            if dry_run {
                " and atomic"
            } else {
                ", atomic and idempotency_key"
            }
        ));
    }
    if text.len() as u64 > clada_engine::input::MAX_REPLY_BYTES {
        return Err("the reply is larger than the 50 MiB limit".into());
    }
    let source = if dry_run { "mcp check" } else { "mcp apply" };
    let reply = clada_engine::input::text_reply(text, source.into()).map_err(|e| e.to_string())?;
    Ok(transact(call, &reply, options, dry_run))
}

/// `edit` (or `check` of edits): the arguments as a `tool-call` reply.
fn edit_call(
    call: &Call<'_>,
    mut args: Map<String, Value>,
    dry_run: bool,
) -> Result<Outcome, String> {
    // One file's `edits` are all or nothing unless the call says `atomic: false`; that is
    // the edit list's own key in the tool-call format.
    let partial_edits =
        args.contains_key("edits") && args.get("atomic") == Some(&Value::Bool(false));
    let mut options = take_options(&mut args)?;
    if partial_edits {
        args.insert("atomic".into(), Value::Bool(false));
    }
    if options.dialect != Dialect::Auto {
        return Err("`dialect` is for a `reply`; edits are JSON".into());
    }
    if args.is_empty() || (partial_edits && args.len() == 1) {
        return Err("nothing to do: give `actions` (a list of actions), or an edit `path`, `old_string`, `new_string`".into());
    }
    options.dialect = Dialect::Only(Format::TOOL_CALL);
    let text = serde_json::to_string_pretty(&Value::Object(args))
        .map_err(|e| format!("cannot read the arguments: {e}"))?;
    let reply = Reply {
        text,
        source: if dry_run { "mcp check" } else { "mcp edit" }.into(),
    };
    Ok(transact(call, &reply, options, dry_run))
}

/// The reply through the apply transaction (or, with `--no-git`, the engine on its own).
fn transact(call: &Call<'_>, reply: &Reply, options: CallOptions, dry_run: bool) -> Outcome {
    let server = call.server;
    let mut opts = server.apply.clone();
    opts.dialect = options.dialect;
    opts.message = options.message;
    opts.atomic = options.atomic;
    opts.session = Some(server.session.clone());
    if opts.provenance.tool.is_none() {
        opts.provenance.tool = call
            .client
            .as_deref()
            .map(clada_engine::authorship::ids::agent_for_client);
    }
    opts.engine.dry_run |= dry_run;
    opts.engine.prompt = call.prompt.clone();
    opts.engine.exec_watch = Some(Arc::clone(&call.watch));
    // Approvals the user added while the server runs count from the next call on.
    // (They are the user's, kept in the git directory or the user's config folder.)
    let git_dir = match server.no_git {
        true => None,
        false => match &opts.open_cache {
            // The repository the apply opens next, from the same directory.
            Some(cache) => clada_git::Repo::discover_kept(&server.cwd, cache),
            None => clada_git::Repo::discover(&server.root),
        }
        .ok()
        .map(|r| r.git_dir().to_path_buf()),
    };
    let file = clada_engine::exec::approvals::store_path(git_dir.as_deref(), &server.root);
    match file
        .map(|f| clada_engine::exec::approvals::Approvals::load(&f))
        .transpose()
    {
        Ok(a) => opts.engine.approved = Arc::new(a.map(|a| a.set()).unwrap_or_default()),
        Err(e) => return Outcome::fatal(&format!("{e:#}")),
    }
    if server.no_git {
        let parsed = clada_read::parse(&reply.text, opts.dialect);
        let sandbox = match Sandbox::new(&server.cwd, false) {
            Ok(s) => s
                .deny_paths(&opts.paths_deny)
                .allow_config_writes(opts.config_writable)
                .allow_hook_writes(opts.hooks_writable),
            Err(e) => return Outcome::fatal(&e.to_string()),
        };
        let plan = action::plan(&parsed, &sandbox);
        let mark = clada_engine::exec::notices::mark();
        let mut execution = action::execute(&plan, &sandbox, &opts.engine);
        let notices = clada_engine::exec::notices::since(&mark, &opts.engine.confine.env);
        execution.result.warnings.extend(notices);
        return Outcome::report(&execution.result, None);
    }
    clada_base::trace::phase("mcp: call set up");
    match record_apply::apply(&server.cwd, reply, &opts) {
        Ok(outcome) => Outcome::report(
            &outcome.execution.result,
            if opts.engine.dry_run {
                outcome.diff.as_deref().or(Some(""))
            } else {
                None
            },
        ),
        Err(ApplyError::Refused(msg)) => {
            Outcome::fatal(&format!("refused for safety, nothing was changed: {msg}"))
        }
        Err(ApplyError::NotRecorded(ran)) => Outcome::report(&ran.result, None),
        Err(e) => Outcome::fatal(&e.to_string()),
    }
}

/// A read tool: its one action run on its own, with no lock and no commit (it changes
/// nothing), in the sandbox an apply would use.
fn read_call(
    call: &Call<'_>,
    action: &str,
    mut args: Map<String, Value>,
) -> Result<Outcome, String> {
    if let Some(k) = args
        .keys()
        .find(|k| *k == "action" || *k == "id" || is_apply_option(k))
    {
        return Err(format!("unknown argument `{k}`"));
    }
    let paged = action == "file_read_numbered";
    if paged {
        page_to_lines(&mut args)?;
    }
    let mut one = Map::new();
    one.insert("action".into(), json!(action));
    one.extend(args);
    let text = serde_json::to_string(&Value::Object(one)).map_err(|e| e.to_string())?;
    let parsed = clada_read::parse(&text, Dialect::Only(Format::TOOL_CALL));
    let server = call.server;
    let sandbox = read_sandbox(&server.cwd, server.no_git, &server.apply.paths_deny)?;
    let plan = action::plan(&parsed, &sandbox);
    // Only the tool's own action runs here: a read tool never writes, whatever it was sent.
    if plan.actions.iter().any(|a| a.action != action) {
        return Err(format!("`{action}` is the only action this tool runs"));
    }
    let mut execution = action::execute(&plan, &sandbox, &server.apply.engine);
    if paged {
        cap_read(&mut execution.result);
    }
    Ok(Outcome::report(&execution.result, None))
}

/// `offset` (the first line, from 1) and `limit` (how many lines) as the action's `lines`.
fn page_to_lines(args: &mut Map<String, Value>) -> Result<(), String> {
    let number = |name: &str, v: Value| -> Result<usize, String> {
        v.as_u64()
            .filter(|n| *n >= 1)
            .and_then(|n| usize::try_from(n).ok())
            .ok_or_else(|| format!("`{name}` must be a whole number from 1"))
    };
    let offset = args.remove("offset").filter(|v| !v.is_null());
    let limit = args.remove("limit").filter(|v| !v.is_null());
    if offset.is_none() && limit.is_none() {
        return Ok(());
    }
    if args.get("lines").is_some_and(|v| !v.is_null()) {
        return Err("give either `lines` or `offset`/`limit`, not both".into());
    }
    let first = offset
        .map(|v| number("offset", v))
        .transpose()?
        .unwrap_or(1);
    let lines = match limit.map(|v| number("limit", v)).transpose()? {
        Some(n) => format!("{first}-{}", first.saturating_add(n - 1)),
        None => format!("{first}-"),
    };
    args.insert("lines".into(), json!(lines));
    Ok(())
}

/// Cuts a `read` result to one page ([`READ_MAX_LINES`] lines, [`READ_MAX_BYTES`], lines of at
/// most [`READ_MAX_LINE_CHARS`]) and says, in a warning, how to read on.
fn cap_read(result: &mut ExecutionResult) {
    let Some(r) = result.results.first_mut().filter(|r| r.success) else {
        return;
    };
    let path = r
        .params
        .get("path")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    let Some(content) = r
        .data
        .as_ref()
        .and_then(|d| d.get("content"))
        .and_then(Value::as_str)
    else {
        return;
    };
    let (page, next, long) = one_page(content);
    if next.is_none() && long.is_empty() {
        return;
    }
    let mut said = Vec::new();
    if !long.is_empty() {
        said.push(format!(
            "{} longer than {READ_MAX_LINE_CHARS} characters {} cut (marked …)",
            clada_engine::report::at_lines(&long),
            if long.len() == 1 { "was" } else { "were" }
        ));
    }
    if let Some(next) = next {
        let args = format!(
            r#"{{"path": {}, "offset": {next}}}"#,
            serde_json::to_string(&path).unwrap_or_default()
        );
        said.push(format!(
            "the file goes on after line {}: one read returns at most {READ_MAX_LINES} lines \
             or {READ_MAX_BYTES} bytes; read on with {args}",
            next - 1
        ));
    }
    if let Some(d) = r.data.as_mut() {
        d["content"] = json!(page);
    }
    r.warnings.extend(said);
}

/// The first page of numbered `content`: its text, the number of the first line left out
/// (`None`: all shown) and the lines cut for their length.
fn one_page(content: &str) -> (String, Option<usize>, Vec<usize>) {
    let number = |line: &str| -> Option<usize> {
        let t = line.trim_start();
        let end = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
        t[..end].parse().ok()
    };
    let mut page = String::new();
    let mut long = Vec::new();
    for (i, line) in content.split('\n').enumerate() {
        let cut = line
            .char_indices()
            .nth(READ_MAX_LINE_CHARS)
            .map(|(at, _)| &line[..at]);
        let shown = cut.unwrap_or(line);
        if i == READ_MAX_LINES || page.len() + shown.len() + 4 > READ_MAX_BYTES {
            return (page, number(line), long);
        }
        if i > 0 {
            page.push('\n');
        }
        page.push_str(shown);
        if cut.is_some() {
            page.push_str(" …");
            long.extend(number(line));
        }
    }
    (page, None, long)
}

/// The sandbox of an apply in `cwd`: the worktree with its submodules guarded and the
/// configured paths denied (or, with `--no-git`, the folder itself).
fn read_sandbox(cwd: &Path, no_git: bool, deny: &[String]) -> Result<Sandbox, String> {
    if no_git {
        return Ok(Sandbox::new(cwd, false)
            .map_err(|e| e.to_string())?
            .deny_paths(deny));
    }
    let repo = Repo::discover(cwd).map_err(|e| e.to_string())?;
    Ok(Sandbox::new(repo.workdir(), false)
        .map_err(|e| e.to_string())?
        .refuse_nested_repositories(&repo.declared_submodules())
        .deny_paths(deny))
}

/// `undo`, `redo`, `status`, `log`, `show`.
fn history_call(call: &Call<'_>, kind: ToolKind, args: &Map<String, Value>) -> Outcome {
    if call.server.no_git {
        return Outcome::error(
            "not available: the server was started with --no-git, so nothing is recorded in git"
                .into(),
        );
    }
    let allowed: &[&str] = match kind {
        ToolKind::Undo => &["dry_run", "list"],
        ToolKind::Redo => &["dry_run"],
        ToolKind::Log => &["max_count"],
        ToolKind::Show => &["rev"],
        _ => &[],
    };
    if let Some(k) = args.keys().find(|k| !allowed.contains(&k.as_str())) {
        return Outcome::error(format!("unknown argument `{k}`"));
    }
    let repo = match Repo::discover(&call.server.cwd) {
        Ok(r) => r,
        Err(e) => return Outcome::error(format!("git-clada: {e}")),
    };
    for name in ["dry_run", "list"] {
        if args
            .get(name)
            .is_some_and(|v| !v.is_boolean() && !v.is_null())
        {
            return Outcome::error(format!("`{name}` must be true or false"));
        }
    }
    let dry_run = args
        .get("dry_run")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    use history::render;
    // A tool's result goes to the client as it is: the model must see exactly what is there.
    let exact = clada_base::term::Shown::Exact;
    let flag = |name: &str| args.get(name).and_then(Value::as_bool).unwrap_or(false);
    match kind {
        // `list`: what undo and redo would take back and put back, nothing changed.
        ToolKind::Undo if flag("list") => Outcome::history(history::undo::list(&repo, 50), |r| {
            render::stack_list(r, exact)
        }),
        ToolKind::Undo => Outcome::history(history::undo::undo(&repo, dry_run), |r| {
            render::undo_report(r)
        }),
        ToolKind::Redo => Outcome::history(history::undo::redo(&repo, dry_run), |r| {
            render::undo_report(r)
        }),
        ToolKind::Status => Outcome::history(history::log::status(&repo), |r| {
            render::status_report(r, exact)
        }),
        ToolKind::Log => {
            let max = match args.get("max_count") {
                None | Some(Value::Null) => None,
                Some(v) => match v.as_u64() {
                    Some(n) => Some(usize::try_from(n).unwrap_or(usize::MAX)),
                    None => return Outcome::error("`max_count` must be a whole number".into()),
                },
            };
            Outcome::history(history::log::log(&repo, max, history::now()), |r| {
                render::log_report(r)
            })
        }
        ToolKind::Show => {
            let rev = match args.get("rev") {
                None | Some(Value::Null) => "HEAD",
                Some(Value::String(s)) => s.as_str(),
                Some(_) => return Outcome::error("`rev` must be a string".into()),
            };
            Outcome::history(history::log::show(&repo, rev), |s| {
                render::show_report(s, ReportFormat::Llm, false, exact)
            })
        }
        _ => Outcome::error("not a history tool".into()),
    }
}
