//! The server's stdio transport: one JSON-RPC message per line in, one per line out.
//!
//! rmcp's own stdio transport drops a line that is not JSON without a word and answers a
//! message that is no request with an error carrying no `id`; a client waiting on an id then
//! waits forever. This one answers as JSON-RPC 2.0 says, and keeps serving:
//! - a line that is not JSON: `-32700` (parse error) with `"id": null`;
//! - a batch (a JSON array; MCP has none since 2025-06-18): `-32600` with `"id": null`;
//! - a longer line than the server reads: `-32600` naming the limit, with the request's `id`
//!   when the line has one (read as the line streams past, `overlong.rs`), else `null`;
//! - an object that is no message: `-32600` with its `id` when it has a usable one, else
//!   `null`; a notification that is no message (no `id`) gets no answer, as none ever does.
//!
//! Before the client's `initialize` request, a notification or a response (which rmcp would
//! take as a failed handshake) is dropped; a request goes on, and rmcp answers it with an
//! error.

use std::sync::Arc;

use rmcp::model::{ClientRequest, JsonRpcMessage};
use rmcp::service::{RoleServer, RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::Mutex;

use super::overlong::{Found, IdScan};

/// JSON-RPC's parse error: the line is not JSON.
pub const PARSE_ERROR: i64 = -32700;
/// JSON-RPC's invalid request: JSON, but not one message.
pub const INVALID_REQUEST: i64 = -32600;

/// A line-delimited JSON-RPC transport over a reader and a writer (stdin and stdout).
pub struct Lines<R, W> {
    read: BufReader<R>,
    /// The line read so far (kept across a cancelled `receive`).
    line: Vec<u8>,
    /// Dropping the rest of a line that was too long, reading its id on the way.
    discarding: Option<Overlong>,
    max_line: usize,
    write: Arc<Mutex<W>>,
    /// The client's `initialize` request was seen.
    started: bool,
}

/// What one bounded read of a line gave.
enum Read {
    Line,
    /// A line too long to keep, answered with this id.
    TooLong(Value),
    End,
}

/// A line too long to keep, while its rest is dropped.
struct Overlong {
    scan: IdScan,
    /// Its error was sent (as soon as its id, or that it has none, was known).
    answered: bool,
}

impl Overlong {
    /// Reads `part` of the line (`last`: the line ends with it); the id to answer with, once
    /// it is known and not yet answered.
    fn read(&mut self, part: &[u8], last: bool) -> Option<Value> {
        if self.answered {
            return None;
        }
        self.scan.feed(part.strip_suffix(b"\n").unwrap_or(part));
        if last {
            self.scan.end();
        }
        if *self.scan.found() == Found::Scanning {
            return None;
        }
        self.answered = true;
        Some(self.scan.id())
    }
}

impl<R: AsyncRead + Unpin + Send, W: AsyncWrite + Unpin + Send + 'static> Lines<R, W> {
    pub fn new(read: R, write: W, max_line: usize) -> Self {
        Lines {
            read: BufReader::new(read),
            line: Vec::new(),
            discarding: None,
            max_line,
            write: Arc::new(Mutex::new(write)),
            started: false,
        }
    }

    /// Reads up to the next line break into `self.line`, never holding more than `max_line`
    /// bytes. Cancellation-safe: what was read stays in `self.line` for the next call.
    async fn read_line(&mut self) -> Read {
        loop {
            let Ok(available) = self.read.fill_buf().await else {
                return Read::End;
            };
            if available.is_empty() {
                // The input ended inside a line too long to keep: answered now if it was not.
                if let Some(id) = self.discarding.take().and_then(|mut o| o.read(b"", true)) {
                    return Read::TooLong(id);
                }
                return Read::End;
            }
            let newline = available.iter().position(|b| *b == b'\n');
            let take = newline.map_or(available.len(), |i| i + 1);
            let mut step = None;
            if self.discarding.is_none() && self.line.len().saturating_add(take) > self.max_line {
                let mut over = Overlong {
                    scan: IdScan::default(),
                    answered: false,
                };
                over.scan.feed(&self.line);
                self.line.clear();
                self.discarding = Some(over);
            }
            if let Some(over) = &mut self.discarding {
                step = over
                    .read(&available[..take], newline.is_some())
                    .map(Read::TooLong);
                if newline.is_some() {
                    self.discarding = None;
                }
            } else {
                self.line.extend_from_slice(&available[..take]);
                if newline.is_some() {
                    step = Some(Read::Line);
                }
            }
            self.read.consume(take);
            if let Some(s) = step {
                return s;
            }
        }
    }

    /// Sends an error answer on a task of its own, so a cancelled `receive` cannot cut it.
    fn answer(&self, id: Value, code: i64, message: String) {
        let write = Arc::clone(&self.write);
        let msg = json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}});
        tokio::spawn(async move {
            let mut bytes = msg.to_string().into_bytes();
            bytes.push(b'\n');
            let mut w = write.lock().await;
            let _ = w.write_all(&bytes).await;
            let _ = w.flush().await;
        });
    }

    /// The message on `self.line`, or `None` after answering (or dropping) what it was.
    fn message(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        let raw = std::mem::take(&mut self.line);
        let line = raw.strip_suffix(b"\n").unwrap_or(&raw);
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
        if line.iter().all(u8::is_ascii_whitespace) {
            return None;
        }
        let value: Value = match serde_json::from_slice(line) {
            Ok(v) => v,
            Err(e) => {
                self.answer(Value::Null, PARSE_ERROR, format!("Parse error: the line is not JSON ({e}); send one JSON-RPC message per line"));
                return None;
            }
        };
        if value.is_array() {
            self.answer(
                Value::Null,
                INVALID_REQUEST,
                "Invalid Request: a batch (a JSON array) is not supported; send one message per line".into(),
            );
            return None;
        }
        let id = value
            .get("id")
            .filter(|v| v.is_string() || v.is_i64() || v.is_u64())
            .cloned();
        let notification = value.get("id").is_none();
        match serde_json::from_value::<RxJsonRpcMessage<RoleServer>>(value) {
            Ok(msg) => Some(msg),
            Err(e) => {
                if !notification {
                    self.answer(
                        id.unwrap_or(Value::Null),
                        INVALID_REQUEST,
                        format!("Invalid Request: not a JSON-RPC 2.0 message ({e})"),
                    );
                }
                None
            }
        }
    }
}

impl<R, W> Transport<RoleServer> for Lines<R, W>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl std::future::Future<Output = Result<(), Self::Error>> + Send + 'static {
        let write = Arc::clone(&self.write);
        async move {
            let mut bytes = serde_json::to_vec(&item)?;
            bytes.push(b'\n');
            let mut w = write.lock().await;
            w.write_all(&bytes).await?;
            w.flush().await
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            match self.read_line().await {
                Read::Line => {}
                Read::TooLong(id) => {
                    let max = self.max_line;
                    self.answer(
                        id,
                        INVALID_REQUEST,
                        format!(
                            "Invalid Request: the message is longer than the {max} bytes ({} MiB) \
                             the server reads; send a smaller one (a long reply in several calls)",
                            max >> 20
                        ),
                    );
                    continue;
                }
                Read::End => return None,
            }
            let Some(msg) = self.message() else {
                continue;
            };
            if self.started {
                return Some(msg);
            }
            if let JsonRpcMessage::Request(r) = &msg {
                self.started = matches!(r.request, ClientRequest::InitializeRequest(_));
                return Some(msg);
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.write.lock().await.flush().await
    }
}
