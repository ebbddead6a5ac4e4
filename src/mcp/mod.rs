//! `git clada mcp`: the engine served to agents as a Model Context Protocol server over stdio,
//! with the official Rust SDK (`rmcp`).
//!
//! - [`tools`]: the tools and their input schemas, generated from the action schema and the
//!   clap definitions;
//! - [`call`]: one tool call, on a blocking thread, through the same reading layer, sandbox,
//!   transaction, history and reports as the command line;
//! - [`idempotency`]: a call with an `idempotency_key` runs once; its retry gets the first
//!   report back;
//! - [`prompts`]: `git clada prompt`'s instructions as MCP prompts, one per dialect;
//! - [`queue`]: one server's calls that take the repository lock run one at a time, in order,
//!   with progress while they wait; a cancelled queued call never runs;
//! - [`transport`]: stdio, one message per line, with JSON-RPC's answers to what is no
//!   message (`-32700`/`-32600` with `id: null`), and to a message longer than it reads (with
//!   the request's id, read by [`overlong`] as the line streams past);
//! - this file: the protocol side — the session, listing, dispatching, and what a call needs
//!   from its request: an exec approval asked as an elicitation (when the client can show
//!   one), progress notifications while an exec block runs, and a cancelled request stopping
//!   its exec like a timeout.
//!
//! Every AI commit made through one server carries `Clada-Session: <id>` (one server process
//! is one session). A bad request gets an error answer; nothing a client sends ends the
//! server, only the end of its input does.

pub mod call;
pub mod idempotency;
pub mod outcome;
mod overlong;
pub mod prompts;
pub mod queue;
pub mod tools;
pub mod transport;

use std::borrow::Cow;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ElicitationAction,
    GetPromptRequestParams, GetPromptResponse, GetPromptResult, ListPromptsResult, ListToolsResult,
    PaginatedRequestParams, ProtocolVersion, ServerConfig,
};
use rmcp::service::{ElicitationMode, RequestContext, RoleServer};
use rmcp::{ErrorData, Peer, ServerHandler, ServiceExt};
use serde_json::{json, Value};

use clada_engine::exec::{Approval, ExecPrompt, ExecRequest, ExecWatch};
use clada_engine::record::apply::ApplyOptions;

use tools::{CommandTexts, ToolSpec};

/// How to serve.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    /// Where calls run (`-C DIR`, else the current directory): inside the repository, or the
    /// folder itself with `no_git`.
    pub cwd: PathBuf,
    /// The worktree root (where approvals are stored).
    pub root: PathBuf,
    /// A folder without git: nothing is committed, the history tools are not available.
    pub no_git: bool,
    /// The apply options the user and the configuration decided (exec policy and limits,
    /// hooks, author, denied paths, …); a call may only add its own `message`, `atomic` and
    /// `dialect`.
    pub apply: ApplyOptions,
    /// The `Clada-Session` of every commit this server makes.
    pub session: String,
    /// The help of the commands the tools stand for, from their clap definitions.
    pub texts: CommandTexts,
}

#[derive(Debug, thiserror::Error)]
pub enum McpError {
    #[error("cannot start the MCP server: {0}")]
    Start(String),
    #[error("the MCP session failed: {0}")]
    Session(String),
    #[error("{0}")]
    Usage(String),
}

/// A session id for this server: `mcp-` and 10 hex digits from the time and the process id.
pub fn new_session_id() -> String {
    use sha1::{Digest, Sha1};
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let digest = Sha1::digest(format!("{nanos} {}", std::process::id()).as_bytes());
    let hex: String = digest.iter().take(5).map(|b| format!("{b:02x}")).collect();
    format!("mcp-{hex}")
}

/// Checks a session id given with `--session`: it becomes a trailer value and a command-line
/// argument of `squash --session`, so one word of printable characters.
pub fn check_session_id(id: &str) -> Result<(), McpError> {
    let ok = !id.is_empty() && id.len() <= 64 && id.chars().all(|c| c.is_ascii_graphic());
    match ok {
        true => Ok(()),
        false => Err(McpError::Usage(format!(
            "--session '{id}': use up to 64 printable characters without spaces (letters, digits, - _ . …)"
        ))),
    }
}

/// Serves MCP on stdin/stdout until the client closes its end.
pub fn serve(opts: ServeOptions) -> Result<(), McpError> {
    if !opts.no_git {
        clada_git::Repo::discover(&opts.cwd).map_err(|e| {
            McpError::Start(format!(
                "{e} (run it inside a git repository, pass -C DIR, or use --no-git for a plain folder)"
            ))
        })?;
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| McpError::Start(format!("cannot start the async runtime: {e}")))?;
    let server = Server::new(opts);
    runtime.block_on(async move {
        let stdio =
            transport::Lines::new(tokio::io::stdin(), tokio::io::stdout(), MAX_MESSAGE_BYTES);
        let running = server
            .serve(stdio)
            .await
            .map_err(|e| McpError::Session(e.to_string()))?;
        running
            .waiting()
            .await
            .map_err(|e| McpError::Session(e.to_string()))?;
        Ok(())
    })
}

/// The longest message read (one line of JSON): room for a reply at the 50 MiB limit with its
/// escapes. A longer line is dropped unread and answered with an error; the connection stays
/// open.
const MAX_MESSAGE_BYTES: usize = 128 * 1024 * 1024;

/// The handler: the options and the tools, shared by every request.
#[derive(Clone)]
struct Server {
    opts: Arc<ServeOptions>,
    tools: Arc<Vec<ToolSpec>>,
    listed: Arc<Value>,
    queue: Arc<queue::Queue>,
}

/// The JSON Schema of the report, the `outputSchema` of the tools that return it.
const REPORT_SCHEMA: &str = include_str!("execution_result.schema.json");

impl Server {
    fn new(opts: ServeOptions) -> Server {
        let tools = tools::tools(&opts.texts);
        let output: Value = serde_json::from_str(REPORT_SCHEMA).unwrap_or_else(|_| json!({}));
        let listed: Vec<Value> = tools
            .iter()
            .map(|t| {
                let mut v = json!({
                    "name": t.name,
                    "title": format!("git-clada {}", t.name),
                    "description": t.description,
                    "inputSchema": t.input_schema,
                    "annotations": {
                        "readOnlyHint": t.kind.read_only(),
                        "destructiveHint": !t.kind.read_only(),
                        "openWorldHint": false,
                    },
                });
                if t.kind.declares_report() {
                    v["outputSchema"] = output.clone();
                }
                v
            })
            .collect();
        Server {
            opts: Arc::new(opts),
            tools: Arc::new(tools),
            listed: Arc::new(json!({ "tools": listed })),
            queue: Arc::default(),
        }
    }

    fn instructions(&self) -> String {
        let root = self.opts.root.display();
        if self.opts.no_git {
            return format!(
                "git-clada edits the files of the folder {root} (no git: nothing is committed \
                 or can be undone). Look with read, grep, ls and glob; change files with edit \
                 (JSON) or apply (a reply with action blocks); check shows what a call would do."
            );
        }
        format!(
            "git-clada edits the git repository at {root}: every edit or apply call is one \
             AI commit (session {}) that `undo` takes back exactly, and the user's uncommitted \
             work is never touched. Look with read, grep, ls and glob; change files with edit \
             (JSON actions, or path/old_string/new_string) or apply (a reply with action \
             blocks); check shows the report and diff a call would produce without changing \
             anything. A result marked as an error says which action failed and how to fix it; \
             resend only those.",
            self.opts.session
        )
    }
}

/// What the client sees of an internal failure (a panic in a call): a tool error, never the
/// end of the server.
fn internal(message: impl std::fmt::Display) -> call::Outcome {
    call::Outcome::fatal(&format!("internal error in git-clada: {message}"))
}

fn from_json<T: serde::de::DeserializeOwned>(v: Value) -> Result<T, ErrorData> {
    serde_json::from_value(v).map_err(|e| ErrorData::internal_error(e.to_string(), None))
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        serde_json::from_value(json!({
            "protocolVersion": ProtocolVersion::V_2025_11_25,
            "capabilities": {"tools": {"listChanged": false}, "prompts": {"listChanged": false}},
            "serverInfo": {
                "name": "git-clada",
                "title": "git-clada",
                "version": clada_engine::VERSION,
            },
            "instructions": self.instructions(),
        }))
        .unwrap_or_default()
    }

    /// The revisions with a session (the `initialize` handshake): the session is what the
    /// `Clada-Session` trailer names, and an exec approval is asked within it.
    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Borrowed(ProtocolVersion::known_up_to(&ProtocolVersion::V_2025_11_25))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        from_json((*self.listed).clone())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let Some(tool) = self.tools.iter().find(|t| t.name == request.name) else {
            let names: Vec<&str> = self.tools.iter().map(|t| t.name).collect();
            return Err(ErrorData::invalid_params(
                format!(
                    "unknown tool '{}'; the tools are {}",
                    request.name,
                    names.join(", ")
                ),
                None,
            ));
        };
        let kind = tool.kind;
        let args = request.arguments.unwrap_or_default();
        let watch = Arc::new(ExecWatch::default());
        let progress = queue::Progress::of(&context, Instant::now());
        // Calls that take the repository lock wait for the one before them.
        let _turn = match kind.queued() {
            true => {
                let what = format!("{} (request {})", request.name, context.id);
                let turn = self
                    .queue
                    .wait(&context, what, &watch, progress.as_ref())
                    .await;
                match turn {
                    Some(t) => Some(t),
                    // Its response is dropped (the request was cancelled); it never ran.
                    None => {
                        return Err(ErrorData::internal_error(
                            "cancelled while queued; not run",
                            None,
                        ))
                    }
                }
            }
            false => None,
        };
        let handle = tokio::runtime::Handle::current();
        let prompt = elicitation_prompt(&context.peer, &handle);
        let _follow = Follow::start(&context, &watch, progress);
        let opts = Arc::clone(&self.opts);
        let job_watch = Arc::clone(&watch);
        let client = context.peer.peer_info().map(|i| i.client_info.name.clone());
        let job = tokio::task::spawn_blocking(move || {
            let call = call::Call {
                server: &opts,
                prompt,
                watch: job_watch,
                client,
            };
            call::run(&call, kind, args)
        });
        let outcome = job.await.unwrap_or_else(internal);
        let mut result = json!({
            "content": [{"type": "text", "text": outcome.text}],
            "isError": outcome.is_error,
        });
        if let Some(s) = outcome.structured {
            result["structuredContent"] = s;
        }
        let result: CallToolResult = from_json(result)?;
        Ok(result.into())
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        from_json(prompts::list())
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        let value = prompts::get(&request.name, request.arguments.as_ref())
            .map_err(|why| ErrorData::invalid_params(why, None))?;
        let result: GetPromptResult = from_json(value)?;
        Ok(result.into())
    }
}

/// While a call runs: stops its exec blocks when the request is cancelled, and sends a
/// progress notification when an exec block starts and every few seconds while it runs
/// (when the request asked for progress). Both end with the call.
struct Follow {
    tasks: Vec<tokio::task::JoinHandle<()>>,
}

impl Follow {
    fn start(
        context: &RequestContext<RoleServer>,
        watch: &Arc<ExecWatch>,
        progress: Option<queue::Progress>,
    ) -> Follow {
        let mut tasks = Vec::new();
        let ct = context.ct.clone();
        let w = Arc::clone(watch);
        tasks.push(tokio::spawn(async move {
            ct.cancelled().await;
            w.cancel();
        }));
        if let Some(p) = progress {
            tasks.push(tokio::spawn(exec_progress(p, Arc::clone(watch))));
        }
        Follow { tasks }
    }
}

impl Drop for Follow {
    fn drop(&mut self) {
        for t in &self.tasks {
            t.abort();
        }
    }
}

/// Sends `notifications/progress` for the exec blocks of one call: when one starts, then
/// every [`queue::PROGRESS_EVERY`] while it runs.
async fn exec_progress(progress: queue::Progress, watch: Arc<ExecWatch>) {
    // The block last reported (its id and start) and when.
    let mut reported: Option<(String, Instant, Instant)> = None;
    loop {
        tokio::time::sleep(Duration::from_millis(100)).await;
        let Some(running) = watch.running() else {
            continue;
        };
        let send = match &reported {
            Some((id, since, sent)) if *id == running.block_id && *since == running.since => {
                sent.elapsed() >= queue::PROGRESS_EVERY
            }
            _ => true,
        };
        if !send {
            continue;
        }
        let lang = format!("{:?}", running.lang).to_lowercase();
        let message = match running.since.elapsed().as_secs() {
            0 => format!("block {}: {lang} code started", running.block_id),
            s => format!("block {}: {lang} code running for {s} s", running.block_id),
        };
        progress.say(message).await;
        reported = Some((running.block_id, running.since, Instant::now()));
    }
}

/// The exec approval of a call: an elicitation the client shows the user, when it can show
/// one; `None` otherwise, and then an exec block that needs approval is refused with how to
/// approve it.
fn elicitation_prompt(
    peer: &Peer<RoleServer>,
    handle: &tokio::runtime::Handle,
) -> Option<Arc<ExecPrompt>> {
    if !peer
        .supported_elicitation_modes()
        .contains(&ElicitationMode::Form)
    {
        return None;
    }
    let peer = peer.clone();
    let handle = handle.clone();
    Some(Arc::new(move |req: &ExecRequest| {
        // Code whose worktree files cannot be read with certainty gets no "always".
        let (question, answers) = match req.no_always {
            Some(_) => (
                "Run it? yes: this once; no: do not run it.",
                json!(["yes", "no"]),
            ),
            None => (
                "Run it? yes: this once; always: this and the later exec blocks of this call; no: do not run it.",
                json!(["yes", "no", "always"]),
            ),
        };
        let params = json!({
            "mode": "form",
            // For the user, not the model: shown escaped, as on a terminal.
            "message": format!("git-clada: {}\n{question}", req.approval_text(None)),
            "requestedSchema": {
                "type": "object",
                "properties": {
                    "answer": {
                        "type": "string",
                        "title": "Run this code?",
                        "enum": answers,
                    }
                },
                "required": ["answer"],
            },
        });
        let Ok(params) = serde_json::from_value(params) else {
            return Approval::No;
        };
        // On the call's blocking thread: wait for the user's answer.
        match handle.block_on(peer.create_elicitation(params)) {
            Ok(r) if r.action == ElicitationAction::Accept => {
                match r
                    .content
                    .as_ref()
                    .and_then(|c| c.get("answer"))
                    .and_then(Value::as_str)
                {
                    Some("yes") => Approval::Yes,
                    Some("always") => Approval::Always,
                    _ => Approval::No,
                }
            }
            _ => Approval::No,
        }
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_report_schema_is_json_and_the_session_ids_are_checked() {
        let schema: Value = serde_json::from_str(REPORT_SCHEMA).unwrap();
        assert_eq!(schema["type"], "object");
        assert!(schema["required"]
            .as_array()
            .unwrap()
            .contains(&json!("results")));
        let id = new_session_id();
        assert!(id.starts_with("mcp-") && id.len() == 14, "{id}");
        assert!(check_session_id(&id).is_ok());
        assert!(check_session_id("alpha-1").is_ok());
        for bad in ["", "two words", "line\nbreak", &"x".repeat(65)] {
            assert!(check_session_id(bad).is_err(), "{bad:?}");
        }
    }
}
