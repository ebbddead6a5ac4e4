//! git-clada's own standard output, and what happens when its reader goes away: like git, the
//! process ends quietly, killed by `SIGPIPE` (the shell sees 141), instead of a panic or an
//! error message about a pipe nobody reads any more.
//!
//! Why a writer and not the default `SIGPIPE` disposition. Rust starts every program with
//! `SIGPIPE` ignored, and it stays ignored for the whole run here: git-clada also writes to
//! pipes of its children (git hooks, `git` subprocesses, exec blocks, the MCP transport), and
//! with the default disposition a child that closes its end early would kill an apply in the
//! middle of its transaction. Ignored, such a write is an `EPIPE` error its caller handles.
//! Only when git-clada's *own* stdout is found closed — which every command meets only when it
//! prints, after its work is done — does [`closed`] restore the default and raise the signal.
//! A command that prints while work remains (installing hooks one by one, `watch` between its
//! steps of delivering a report) uses [`say`] instead: a closed stdout is noted, the work goes
//! on to its end, and [`end_if_closed`] then ends the process the same way.

use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};

/// Set by [`say`] when it found stdout closed.
static CLOSED: AtomicBool = AtomicBool::new(false);

/// Writes `text` to stdout and flushes it. A closed stdout ends the process as git's does
/// ([`closed`]); any other error is returned.
pub fn print(text: &str) -> io::Result<()> {
    let mut out = io::stdout().lock();
    or_closed(out.write_all(text.as_bytes()).and_then(|()| out.flush()))
}

/// Writes `text` to stdout and flushes it, while the command still has work to do: a closed
/// stdout is noted for [`end_if_closed`] and the text dropped; any other error is returned.
pub fn say(text: &str) -> io::Result<()> {
    if CLOSED.load(Ordering::Relaxed) {
        return Ok(());
    }
    let mut out = io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if is_closed(&e) => {
            CLOSED.store(true, Ordering::Relaxed);
            Ok(())
        }
        r => r,
    }
}

/// Ends the process as [`closed`] does if [`say`] found stdout closed; returns otherwise.
pub fn end_if_closed() {
    if CLOSED.load(Ordering::Relaxed) {
        closed()
    }
}

/// `result` of a write to stdout, with a closed stdout ending the process ([`closed`]).
pub fn or_closed<T>(result: io::Result<T>) -> io::Result<T> {
    match result {
        Err(e) if is_closed(&e) => closed(),
        r => r,
    }
}

/// Whether `err` says that the reader of the pipe is gone.
pub fn is_closed(err: &io::Error) -> bool {
    err.kind() == io::ErrorKind::BrokenPipe
}

/// Ends the process as git ends when its stdout is closed: killed by `SIGPIPE`, so that a
/// shell's `pipefail` sees 141 and nothing is printed. Where the signal is blocked (a parent
/// can hand on a blocked mask), exit 141 all the same.
pub fn closed() -> ! {
    #[cfg(unix)]
    // SAFETY: `signal` and `raise` take plain integers and touch no memory of ours; resetting
    // the disposition is what must not happen earlier (see the module's doc), and here the
    // process is about to end anyway.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
        libc::raise(libc::SIGPIPE);
    }
    std::process::exit(141)
}
