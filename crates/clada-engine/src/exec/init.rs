//! The block's init (DESIGN §5.2, issue 37 §1): git-clada re-executes itself
//! (`/proc/self/exe __clada-init …`, as bubblewrap does) as a small init between itself and
//! every process it starts for a reply or the configuration, so that *every* descendant — a
//! `setsid` or double-forked one included — ends with the block, and the report names what was
//! left running.
//!
//! - With namespaces: the init unshares a PID namespace (after a user namespace where it needs
//!   one), and its first child is that namespace's PID 1: it mounts a fresh `/proc` where it
//!   can, starts the program, reaps every orphan, and when the program exits lists what is
//!   left, kills it all (`kill(-1)` from PID 1 reaches the whole namespace and nothing else)
//!   and reports. Should the init die (a timeout's signal, git-clada's death), the kernel
//!   ends the namespace.
//! - Without (unprivileged user namespaces off, as on Ubuntu 24.04 or under Docker's seccomp
//!   profile): the init is a per-block `PR_SET_CHILD_SUBREAPER` — never git-clada itself, which
//!   parents clipboard servers and an MCP server's children — that walks `/proc` for its
//!   descendants and kills them through pidfds, so a reused process id is never hit. On
//!   SIGTERM (a timeout) it kills the tree the same way before it exits.
//!
//! The init applies the Landlock ruleset (handed over as an inherited descriptor) in the
//! program's child only, after dropping the capabilities `harden` drops there: mounting
//! `/proc`, making the PID namespace as root and reading `/proc` need the init unconfined by
//! them. Its own two descriptors are close-on-exec, so the program inherits none but stdin,
//! stdout and stderr. The seccomp filter and the mounts of `confine` are in place before the
//! init starts.
//!
//! It reports over a pipe, one line each: `status exit N` or `status signal N`, `left NAME`
//! per process killed, or `error KIND MESSAGE` when the program could not be started.

/// The private subcommand (argv\[1\]) that makes git-clada this init; never in `--help`.
pub const ARG: &str = "__clada-init";

use std::sync::atomic::{AtomicBool, Ordering};

static REGISTERED: AtomicBool = AtomicBool::new(false);

/// Called by the git-clada binary at start: its `/proc/self/exe` is the init. A library user
/// without it keeps the process-group containment of `spawn`.
pub fn register() {
    REGISTERED.store(true, Ordering::SeqCst);
}

/// Whether spawns go through the init.
pub(crate) fn available() -> bool {
    clada_base::platform::LINUX && REGISTERED.load(Ordering::SeqCst)
}

/// Set (in debug builds only) to make the init and the sandbox act as if the kernel refused
/// namespaces: how the tests exercise the fallbacks on a machine that has them.
pub(crate) fn namespaces_refused_for_tests() -> bool {
    cfg!(debug_assertions) && std::env::var_os("CLADA_TEST_NO_NAMESPACES").is_some()
}

/// What the init reported.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Report {
    /// `(exit code, signal)` of the program, when it ran.
    pub status: Option<(Option<i32>, Option<i32>)>,
    /// The names of the processes left running and killed, in the order found.
    pub left: Vec<String>,
    /// `(kind, message)` when the program could not be started (`notfound` or `other`).
    pub error: Option<(String, String)>,
}

impl Report {
    pub(crate) fn parse(text: &str) -> Report {
        let mut r = Report::default();
        for line in text.lines() {
            let mut parts = line.splitn(3, ' ');
            match (parts.next(), parts.next(), parts.next()) {
                (Some("status"), Some("exit"), Some(n)) => {
                    r.status = Some((n.parse().ok(), None));
                }
                (Some("status"), Some("signal"), Some(n)) => {
                    r.status = Some((None, n.parse().ok()));
                }
                (Some("left"), Some(name), rest) => {
                    let name = match rest {
                        Some(more) => format!("{name} {more}"),
                        None => name.to_string(),
                    };
                    r.left.push(name);
                }
                (Some("error"), Some(kind), msg) => {
                    r.error = Some((kind.to_string(), msg.unwrap_or_default().to_string()));
                }
                _ => {}
            }
        }
        r
    }
}

clada_base::linux! {
    #[path = "init_linux.rs"]
    mod sys;
}

clada_base::linux! {
    pub use sys::main;
}

clada_base::portable! {
    pub fn main(_: Vec<std::ffi::OsString>) -> ! {
        eprintln!("git-clada: {ARG} exists only on Linux");
        std::process::exit(127)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_report_reads_back() {
        let r = Report::parse("left sleep\nleft my prog\nstatus exit 3\n");
        assert_eq!(r.status, Some((Some(3), None)));
        assert_eq!(r.left, ["sleep", "my prog"]);
        let r = Report::parse("error notfound no such file\n");
        assert_eq!(
            r.error,
            Some(("notfound".to_string(), "no such file".to_string()))
        );
        assert_eq!(
            Report::parse("status signal 9").status,
            Some((None, Some(9)))
        );
    }
}
