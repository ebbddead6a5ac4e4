//! History operations built on `repo` and `record`: undo/redo, squash, step-back/step-forward,
//! and the read-only views (status, log, show). The commands that change history act on the
//! current branch's first-parent history only, never rewrite published commits or cross
//! merges, and each records what it did (a ref under `refs/clada/`, `ORIG_HEAD`, a reflog
//! entry) so it can itself be undone.
//!
//! This module holds what they share: the refusal checks of DESIGN §7.1 and an opt-in phase
//! timer (`GIT_CLADA_TRACE=1`) for finding out where the time of a slow command goes.

pub mod log;
pub mod render;
pub mod squash;
pub mod step;
pub mod undo;

use std::time::Instant;

use crate::record::apply::{refuse_if_busy, ApplyError};
use crate::repo::Repo;

/// The error of every history command. `Refused` means nothing was changed (exit 3).
pub use undo::UndoError as HistoryError;

/// Refuses while git-clada or git has something unfinished: an interrupted apply, undo or
/// redo; a merge, rebase, cherry-pick, revert, bisect or `git am` in progress.
pub(crate) fn refuse_busy(repo: &Repo) -> Result<(), HistoryError> {
    match refuse_if_busy(repo) {
        Ok(()) => Ok(()),
        Err(ApplyError::Refused(msg)) => Err(HistoryError::Refused(msg)),
        Err(e) => Err(e.into()),
    }
}

/// Refuses while stepped back (step-forward first).
pub(crate) fn refuse_stepped_back(repo: &Repo) -> Result<(), HistoryError> {
    match step::stepped_back(repo)? {
        Some(msg) => Err(HistoryError::Refused(msg)),
        None => Ok(()),
    }
}

/// Unix seconds now.
pub(crate) fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

/// Phase timer: with `GIT_CLADA_TRACE` set (to anything but `0` or empty), every
/// [`Trace::phase`] prints the time since the previous phase to stderr. Off, it costs a
/// clock read per phase.
pub struct Trace {
    on: bool,
    what: &'static str,
    start: Instant,
    last: Instant,
}

impl Trace {
    pub fn new(what: &'static str) -> Trace {
        let on = std::env::var_os("GIT_CLADA_TRACE").is_some_and(|v| !v.is_empty() && v != "0");
        let now = Instant::now();
        Trace {
            on,
            what,
            start: now,
            last: now,
        }
    }

    /// Ends the phase called `name`.
    pub fn phase(&mut self, name: &str) {
        if !self.on {
            return;
        }
        let now = Instant::now();
        eprintln!(
            "trace: {} {name}: {:.2} ms (total {:.2} ms)",
            self.what,
            (now - self.last).as_secs_f64() * 1000.0,
            (now - self.start).as_secs_f64() * 1000.0
        );
        self.last = now;
    }
}
