//! A model server of the tests' own, on 127.0.0.1, that plays a scripted turn to a real agent
//! CLI: enough of Anthropic's Messages API (Claude Code), OpenAI's Responses API (Codex) and
//! the Gemini API (Gemini CLI), streamed as server-sent events, one scripted step — a tool
//! call or the final answer — per model request. Every request it gets is recorded, so a test
//! can read what the agent sent back (its tool results) and show the log when a run fails.
//!
//! It is also the CLIs' HTTP(S) proxy (`HTTPS_PROXY`): a request for any host but this server
//! is refused and recorded as outside traffic, so a test can assert nothing left loopback.
//!
//! Which step a request gets is read from the conversation it carries (the number of model
//! turns in its history), not from a counter: a retried request gets the same step again.
//! A test may attach an action to a step (`ModelServer::start_with`), run once when that step
//! is first asked for, before it is answered: the agent's tool calls before it are done, its
//! hooks included, and the agent waits for the model — the moment a human edits a file, or
//! another session catches up.
//! std threads and `TcpListener` only; HTTP/1.1, one request per connection.
// Included by path by the tests and the benchmark that drive the agents; each uses a part.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

/// The provider API a server speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Api {
    /// `POST /v1/messages` (Claude Code).
    Anthropic,
    /// `POST …/responses` (Codex, `wire_api = "responses"`).
    Responses,
    /// `POST /v1beta/models/M:streamGenerateContent` (Gemini CLI).
    Gemini,
}

/// One model turn of the script.
#[derive(Clone, Debug)]
pub enum Step {
    /// A tool call: the tool's name and its input — a JSON object, or a string for a freeform
    /// tool (Codex's `apply_patch`, sent as a `custom_tool_call`).
    Call(String, Value),
    /// The final answer, which ends the agent's turn.
    Answer(String),
}

impl Step {
    pub fn call(tool: &str, input: Value) -> Step {
        Step::Call(tool.to_string(), input)
    }

    pub fn answer(text: &str) -> Step {
        Step::Answer(text.to_string())
    }
}

/// What a test does when a step is first asked for, before the server answers it.
pub type Action = Box<dyn FnOnce() + Send>;

/// A request the server got.
#[derive(Clone, Debug)]
pub struct Request {
    pub method: String,
    /// The request target: a path, or for a proxied request the host or URL asked for.
    pub target: String,
    /// The body as JSON (`Null` when it is none or not JSON).
    pub body: Value,
    /// Whether it was for another host (a proxy request), refused.
    pub outside: bool,
    /// When it arrived, counted from the server's start.
    pub at: Duration,
}

struct Shared {
    api: Api,
    model: String,
    script: Vec<Step>,
    requests: Mutex<Vec<Request>>,
    stop: AtomicBool,
    started: Instant,
    actions: Mutex<Vec<(usize, Action)>>,
}

/// A running server; it stops when dropped.
pub struct ModelServer {
    addr: SocketAddr,
    shared: Arc<Shared>,
}

impl ModelServer {
    /// Starts a server speaking `api` that names itself `model` and plays `script`.
    pub fn start(api: Api, model: &str, script: Vec<Step>) -> ModelServer {
        ModelServer::start_with(api, model, script, Vec::new())
    }

    /// `start`, with `actions`: each `(step, action)` runs once, when the step is first asked
    /// for, before the server answers it.
    pub fn start_with(
        api: Api,
        model: &str,
        script: Vec<Step>,
        actions: Vec<(usize, Action)>,
    ) -> ModelServer {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
        let addr = listener.local_addr().expect("local address");
        let shared = Arc::new(Shared {
            api,
            model: model.to_string(),
            script,
            requests: Mutex::new(Vec::new()),
            stop: AtomicBool::new(false),
            started: Instant::now(),
            actions: Mutex::new(actions),
        });
        let s = Arc::clone(&shared);
        std::thread::spawn(move || {
            for conn in listener.incoming() {
                if s.stop.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(conn) = conn else { continue };
                let s = Arc::clone(&s);
                std::thread::spawn(move || serve(&s, conn));
            }
        });
        ModelServer { addr, shared }
    }

    /// `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub fn requests(&self) -> Vec<Request> {
        self.shared.requests.lock().expect("request log").clone()
    }

    /// The model requests (those a step answered), in arrival order.
    pub fn model_requests(&self) -> Vec<Request> {
        self.requests()
            .into_iter()
            .filter(|r| !r.outside && is_turn_request(self.shared.api, r))
            .collect()
    }

    /// What each tool call returned to the model, as the last model request carried them.
    pub fn tool_results(&self) -> Vec<String> {
        let last = self.model_requests().into_iter().last();
        last.map(|r| tool_results(self.shared.api, &r.body))
            .unwrap_or_default()
    }

    /// Requests for other hosts (refused): what would have left loopback.
    pub fn outside(&self) -> Vec<String> {
        self.requests()
            .into_iter()
            .filter(|r| r.outside)
            .map(|r| format!("{} {}", r.method, r.target))
            .collect()
    }

    /// Every request, one line each, with the step it got and the last tool result it
    /// carried (for a failing test's message).
    pub fn log(&self) -> String {
        let api = self.shared.api;
        let mut out = String::new();
        for r in self.requests() {
            out.push_str(&format!(
                "{:>7.3}s {} {}",
                r.at.as_secs_f64(),
                r.method,
                r.target
            ));
            if !r.outside && is_turn_request(api, &r) {
                let i = step_index(api, &r.body);
                let step = match step(&self.shared, i) {
                    Step::Call(name, _) => format!("call {name}"),
                    Step::Answer(_) => "the answer".to_string(),
                };
                out.push_str(&format!(" -> step {i} ({step})"));
                if let Some(last) = tool_results(api, &r.body).last() {
                    let cut: String = last.chars().take(300).collect();
                    out.push_str(&format!("; last tool result: {cut:?}"));
                }
            }
            out.push('\n');
        }
        out
    }
}

impl Drop for ModelServer {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::SeqCst);
        // Wakes the accept loop so it sees the flag.
        let _ = TcpStream::connect(self.addr);
    }
}

fn is_turn_request(api: Api, r: &Request) -> bool {
    match api {
        Api::Anthropic => {
            r.target.starts_with("/v1/messages") && !r.target.contains("count_tokens")
        }
        Api::Responses => r.target.ends_with("/responses"),
        Api::Gemini => r.target.contains(":streamGenerateContent"),
    }
}

/// Reads one request, answers it, and closes the connection.
fn serve(s: &Shared, conn: TcpStream) {
    let _ = conn.set_read_timeout(Some(Duration::from_secs(30)));
    let Ok(read_half) = conn.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(read_half);
    let Some(Head {
        method,
        target,
        headers,
    }) = read_head(&mut reader)
    else {
        return;
    };
    let body = read_body(&mut reader, &headers);
    let outside =
        method == "CONNECT" || target.starts_with("http://") || target.starts_with("https://");
    let parsed = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let request = Request {
        method: method.clone(),
        target: target.clone(),
        body: parsed.clone(),
        outside,
        at: s.started.elapsed(),
    };
    let turn = !outside && is_turn_request(s.api, &request);
    s.requests.lock().expect("request log").push(request);
    if turn {
        let index = step_index(s.api, &parsed);
        let action = {
            let mut actions = s.actions.lock().expect("actions");
            let at = actions.iter().position(|(i, _)| *i == index);
            at.map(|at| actions.remove(at).1)
        };
        if let Some(action) = action {
            action();
        }
    }
    let mut out = conn;
    if s.stop.load(Ordering::SeqCst) {
        return;
    }
    if outside {
        let _ = write_plain(
            &mut out,
            403,
            "text/plain",
            b"the test's model server reaches no other host\n",
        );
        return;
    }
    let _ = match s.api {
        Api::Anthropic => anthropic(s, &mut out, &target, &parsed),
        Api::Responses => responses(s, &mut out, &target, &parsed),
        Api::Gemini => gemini(s, &mut out, &target, &parsed),
    };
}

/// A request's line and headers (names lowercased).
struct Head {
    method: String,
    target: String,
    headers: Vec<(String, String)>,
}

fn read_head(reader: &mut impl BufRead) -> Option<Head> {
    let mut line = String::new();
    reader.read_line(&mut line).ok()?;
    let mut parts = line.split_whitespace();
    let method = parts.next()?.to_string();
    let target = parts.next()?.to_string();
    let mut headers = Vec::new();
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h).ok()? == 0 {
            break;
        }
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            headers.push((k.trim().to_ascii_lowercase(), v.trim().to_string()));
        }
    }
    Some(Head {
        method,
        target,
        headers,
    })
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

/// The body, by `Content-Length` or chunked; empty when it cannot be read.
fn read_body(reader: &mut impl BufRead, headers: &[(String, String)]) -> Vec<u8> {
    let mut body = Vec::new();
    if let Some(n) = header(headers, "content-length").and_then(|v| v.parse::<usize>().ok()) {
        body.resize(n, 0);
        if reader.read_exact(&mut body).is_err() {
            body.clear();
        }
    } else if header(headers, "transfer-encoding").is_some_and(|v| v.contains("chunked")) {
        loop {
            let mut size = String::new();
            if reader.read_line(&mut size).unwrap_or(0) == 0 {
                break;
            }
            let n =
                usize::from_str_radix(size.trim().split(';').next().unwrap_or(""), 16).unwrap_or(0);
            let mut chunk = vec![0; n + 2];
            if n == 0 || reader.read_exact(&mut chunk).is_err() {
                break;
            }
            body.extend_from_slice(&chunk[..n]);
        }
    }
    body
}

fn write_plain(out: &mut TcpStream, status: u16, kind: &str, body: &[u8]) -> std::io::Result<()> {
    let reason = match status {
        200 => "OK",
        403 => "Forbidden",
        _ => "Not Found",
    };
    write!(
        out,
        "HTTP/1.1 {status} {reason}\r\ncontent-type: {kind}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
        body.len()
    )?;
    out.write_all(body)?;
    out.flush()
}

fn write_json(out: &mut TcpStream, value: &Value) -> std::io::Result<()> {
    write_plain(out, 200, "application/json", value.to_string().as_bytes())
}

/// A server-sent event stream; it ends when the connection closes.
fn write_sse(out: &mut TcpStream, events: &[(Option<&str>, Value)]) -> std::io::Result<()> {
    out.write_all(
        b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\nconnection: close\r\n\r\n",
    )?;
    for (name, data) in events {
        if let Some(name) = name {
            writeln!(out, "event: {name}")?;
        }
        write!(out, "data: {data}\n\n")?;
        out.flush()?;
    }
    Ok(())
}

fn step(s: &Shared, index: usize) -> Step {
    s.script
        .get(index)
        .cloned()
        .unwrap_or_else(|| Step::answer("The script has no more steps."))
}

/// The step a model request gets: the number of model turns its conversation holds.
fn step_index(api: Api, body: &Value) -> usize {
    match api {
        Api::Anthropic => count(body, "messages", |m| m["role"] == "assistant"),
        Api::Responses => count(body, "input", |i| {
            i["type"] == "function_call" || i["type"] == "custom_tool_call"
        }),
        Api::Gemini => count(body, "contents", |c| c["role"] == "model"),
    }
}

fn count(items: &Value, key: &str, pred: impl Fn(&Value) -> bool) -> usize {
    items[key]
        .as_array()
        .map(|a| a.iter().filter(|v| pred(v)).count())
        .unwrap_or(0)
}

fn anthropic(s: &Shared, out: &mut TcpStream, target: &str, body: &Value) -> std::io::Result<()> {
    if !target.starts_with("/v1/messages") {
        return write_plain(out, 404, "text/plain", b"");
    }
    if target.contains("count_tokens") {
        return write_json(out, &json!({"input_tokens": 1}));
    }
    let index = step_index(Api::Anthropic, body);
    let (block, input, stop) = match step(s, index) {
        Step::Call(name, input) => (
            json!({"type": "tool_use", "id": format!("toolu_{index:02}"), "name": name, "input": {}}),
            json!({"type": "input_json_delta", "partial_json": input.to_string()}),
            "tool_use",
        ),
        Step::Answer(text) => (
            json!({"type": "text", "text": ""}),
            json!({"type": "text_delta", "text": text}),
            "end_turn",
        ),
    };
    let usage = json!({"input_tokens": 10, "output_tokens": 5});
    let message = json!({"id": format!("msg_{index:02}"), "type": "message", "role": "assistant",
        "model": s.model, "content": [], "stop_reason": null, "stop_sequence": null, "usage": usage});
    if body["stream"] != true {
        let mut whole = message.clone();
        let mut content = block.clone();
        match &input["partial_json"] {
            Value::String(j) => content["input"] = serde_json::from_str(j).unwrap_or(Value::Null),
            _ => content["text"] = input["text"].clone(),
        }
        whole["content"] = json!([content]);
        whole["stop_reason"] = json!(stop);
        return write_json(out, &whole);
    }
    write_sse(
        out,
        &[
            (
                Some("message_start"),
                json!({"type": "message_start", "message": message}),
            ),
            (
                Some("content_block_start"),
                json!({"type": "content_block_start", "index": 0, "content_block": block}),
            ),
            (
                Some("content_block_delta"),
                json!({"type": "content_block_delta", "index": 0, "delta": input}),
            ),
            (
                Some("content_block_stop"),
                json!({"type": "content_block_stop", "index": 0}),
            ),
            (
                Some("message_delta"),
                json!({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": null}, "usage": {"output_tokens": 5}}),
            ),
            (Some("message_stop"), json!({"type": "message_stop"})),
        ],
    )
}

fn responses(s: &Shared, out: &mut TcpStream, target: &str, body: &Value) -> std::io::Result<()> {
    if !target.ends_with("/responses") {
        return write_plain(out, 404, "text/plain", b"");
    }
    let index = step_index(Api::Responses, body);
    let call_id = format!("call_{index:02}");
    let item = match step(s, index) {
        Step::Call(name, Value::String(raw)) => {
            json!({"type": "custom_tool_call", "id": format!("ctc_{index:02}"),
            "status": "completed", "call_id": call_id, "name": name, "input": raw})
        }
        Step::Call(name, args) => json!({"type": "function_call", "id": format!("fc_{index:02}"),
            "status": "completed", "call_id": call_id, "name": name, "arguments": args.to_string()}),
        Step::Answer(text) => {
            json!({"type": "message", "id": format!("msg_{index:02}"), "status": "completed",
            "role": "assistant", "content": [{"type": "output_text", "text": text, "annotations": []}]})
        }
    };
    let id = format!("resp_{index:02}");
    let usage = json!({"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 5,
        "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 15});
    write_sse(
        out,
        &[
            (
                Some("response.created"),
                json!({"type": "response.created", "response": {"id": id, "model": s.model}}),
            ),
            (
                Some("response.output_item.added"),
                json!({"type": "response.output_item.added", "output_index": 0, "item": item}),
            ),
            (
                Some("response.output_item.done"),
                json!({"type": "response.output_item.done", "output_index": 0, "item": item}),
            ),
            (
                Some("response.completed"),
                json!({"type": "response.completed", "response": {"id": id, "model": s.model, "usage": usage}}),
            ),
        ],
    )
}

fn gemini(s: &Shared, out: &mut TcpStream, target: &str, body: &Value) -> std::io::Result<()> {
    let usage = json!({"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15});
    let reply = |parts: Value| {
        json!({"candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}],
            "usageMetadata": usage, "modelVersion": s.model})
    };
    if target.contains(":countTokens") {
        return write_json(out, &json!({"totalTokens": 1}));
    }
    if target.contains(":generateContent") {
        // The model router's classifier asks for JSON of its own schema; the answer fits
        // both of its strategies (a choice, or a complexity score).
        let choice = json!({"reasoning": "a scripted turn", "model_choice": "flash",
            "complexity_reasoning": "a scripted turn", "complexity_score": 1});
        return write_json(out, &reply(json!([{"text": choice.to_string()}])));
    }
    if !target.contains(":streamGenerateContent") {
        return write_plain(out, 404, "text/plain", b"");
    }
    let index = step_index(Api::Gemini, body);
    let parts = match step(s, index) {
        Step::Call(name, args) => json!([{"functionCall": {"name": name, "args": args}}]),
        Step::Answer(text) => json!([{"text": text}]),
    };
    write_sse(out, &[(None, reply(parts))])
}

/// The tool results a model request carries back, in order, as text.
fn tool_results(api: Api, body: &Value) -> Vec<String> {
    let text = |v: &Value| match v {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts
            .iter()
            .map(|p| {
                p["text"]
                    .as_str()
                    .map(str::to_string)
                    .unwrap_or_else(|| p.to_string())
            })
            .collect::<Vec<_>>()
            .join(""),
        other => other.to_string(),
    };
    let mut out = Vec::new();
    match api {
        Api::Anthropic => {
            for m in body["messages"].as_array().into_iter().flatten() {
                for c in m["content"].as_array().into_iter().flatten() {
                    if c["type"] == "tool_result" {
                        out.push(text(&c["content"]));
                    }
                }
            }
        }
        Api::Responses => {
            for i in body["input"].as_array().into_iter().flatten() {
                if i["type"] == "function_call_output" || i["type"] == "custom_tool_call_output" {
                    out.push(text(&i["output"]));
                }
            }
        }
        Api::Gemini => {
            for c in body["contents"].as_array().into_iter().flatten() {
                for p in c["parts"].as_array().into_iter().flatten() {
                    if let Some(r) = p.get("functionResponse") {
                        out.push(r["response"].to_string());
                    }
                }
            }
        }
    }
    out
}
