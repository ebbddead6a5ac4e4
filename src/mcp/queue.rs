//! One server's calls that change the repository (or read it under its lock: `apply`, `edit`,
//! `check`, `undo`, `redo`) run one at a time, in the order they came. Without the queue, a
//! second call waited 3 s for git-clada's repository lock, which the first call of the same
//! server held, and failed blaming "another git-clada (pid …)" — its own.
//!
//! A queued call whose request asked for progress gets `notifications/progress` while it
//! waits, naming the call it waits for (and that call's running exec block); a queued call
//! its client cancels is dropped without running.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rmcp::model::{ProgressNotificationParam, ProgressToken};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::Peer;
use serde_json::json;
use tokio::sync::OwnedMutexGuard;

use clada_engine::exec::ExecWatch;

/// How often a waiting (or running) call is reported.
pub const PROGRESS_EVERY: Duration = Duration::from_secs(2);

/// The queue of one server.
#[derive(Default)]
pub struct Queue {
    turn: Arc<tokio::sync::Mutex<()>>,
    running: Mutex<Option<Running>>,
}

/// The call that has the turn.
#[derive(Clone)]
struct Running {
    /// `edit (request 7)`.
    what: String,
    since: Instant,
    watch: Arc<ExecWatch>,
}

/// The turn of one call: the next call waits until it is dropped.
pub struct Turn {
    queue: Arc<Queue>,
    _guard: OwnedMutexGuard<()>,
}

impl Drop for Turn {
    fn drop(&mut self) {
        if let Ok(mut r) = self.queue.running.lock() {
            *r = None;
        }
    }
}

/// Where a call sends its progress: the request's token, and the start every notification
/// counts from (progress only grows, waiting and running alike).
#[derive(Clone)]
pub struct Progress {
    peer: Peer<RoleServer>,
    token: ProgressToken,
    pub start: Instant,
}

impl Progress {
    /// The call's progress, when its request asked for it.
    pub fn of(context: &RequestContext<RoleServer>, start: Instant) -> Option<Progress> {
        context.meta.get_progress_token().map(|token| Progress {
            peer: context.peer.clone(),
            token,
            start,
        })
    }

    pub async fn say(&self, message: String) {
        let param = json!({
            "progressToken": self.token,
            "progress": self.start.elapsed().as_secs_f64(),
            "message": message,
        });
        if let Ok(p) = serde_json::from_value::<ProgressNotificationParam>(param) {
            let _ = self.peer.notify_progress(p).await;
        }
    }
}

impl Queue {
    /// Waits for the call's turn; `None` when its request was cancelled first (it never runs).
    pub async fn wait(
        self: &Arc<Self>,
        context: &RequestContext<RoleServer>,
        what: String,
        watch: &Arc<ExecWatch>,
        progress: Option<&Progress>,
    ) -> Option<Turn> {
        let guard = match Arc::clone(&self.turn).try_lock_owned() {
            Ok(g) => g,
            Err(_) => {
                let lock = Arc::clone(&self.turn).lock_owned();
                tokio::pin!(lock);
                loop {
                    if let Some(p) = progress {
                        p.say(self.waiting_for()).await;
                    }
                    tokio::select! {
                        g = &mut lock => break g,
                        _ = context.ct.cancelled() => return None,
                        _ = tokio::time::sleep(PROGRESS_EVERY) => {}
                    }
                }
            }
        };
        // Cancelled at the moment the turn came: not run either.
        if context.ct.is_cancelled() {
            return None;
        }
        if let Ok(mut r) = self.running.lock() {
            *r = Some(Running {
                what,
                since: Instant::now(),
                watch: Arc::clone(watch),
            });
        }
        Some(Turn {
            queue: Arc::clone(self),
            _guard: guard,
        })
    }

    /// `queued behind edit (request 3), running for 4 s: block task-1 (bash) running for 4 s`.
    fn waiting_for(&self) -> String {
        let running = self.running.lock().ok().and_then(|r| r.clone());
        let Some(r) = running else {
            return "queued: waiting for the call before it to finish".to_string();
        };
        let block = match r.watch.running() {
            Some(b) => format!(
                ": block {} ({}) running for {} s",
                b.block_id,
                format!("{:?}", b.lang).to_lowercase(),
                b.since.elapsed().as_secs()
            ),
            None => String::new(),
        };
        format!(
            "queued behind {}, running for {} s{block}; this call runs when it ends",
            r.what,
            r.since.elapsed().as_secs()
        )
    }
}
