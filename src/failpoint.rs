//! Fail points for the crash-safety tests: `GIT_CLADA_FAILPOINT=<name>` makes the process
//! abort at that point, as a crash or `kill -9` would (no destructors, no cleanup, locks left
//! behind), so the tests can prove every intermediate state is recoverable.

/// Aborts the process when `GIT_CLADA_FAILPOINT` equals `point`.
pub fn hit(point: &str) {
    if let Some(wanted) = std::env::var_os("GIT_CLADA_FAILPOINT") {
        if wanted == point {
            eprintln!("git-clada: fail point '{point}' reached, aborting");
            std::process::abort();
        }
    }
}
