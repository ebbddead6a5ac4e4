//! Fail points for the crash-safety tests: `GIT_CLADA_FAILPOINT=<name>` makes the process
//! abort at that point, as a crash or `kill -9` would (no destructors, no cleanup, locks left
//! behind), so the tests can prove every intermediate state is recoverable.
//! `GIT_CLADA_FAILPOINT=<name>#<n>` aborts at the n-th time the point is reached (1-based),
//! for points passed more than once in one run (every ref transaction passes `refs:locked`).
//! `GIT_CLADA_FAILPOINT=enospc@<name>` makes the I/O fail point `<name>` fail with "No space
//! left on device" instead, as a full disk would ([`io_error`]).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

/// The wanted point and the hit it aborts at, read once.
fn wanted() -> Option<&'static (String, usize)> {
    static WANTED: OnceLock<Option<(String, usize)>> = OnceLock::new();
    WANTED
        .get_or_init(|| {
            let value = std::env::var("GIT_CLADA_FAILPOINT").ok()?;
            Some(match value.rsplit_once('#') {
                Some((name, n)) => (name.to_string(), n.parse().unwrap_or(1)),
                None => (value, 1),
            })
        })
        .as_ref()
}

/// Aborts the process when `GIT_CLADA_FAILPOINT` names `point` (at its n-th hit).
pub fn hit(point: &str) {
    static HITS: AtomicUsize = AtomicUsize::new(0);
    let Some((name, nth)) = wanted() else {
        return;
    };
    if name != point {
        return;
    }
    if HITS.fetch_add(1, Ordering::SeqCst) + 1 == *nth {
        eprintln!("git-clada: fail point '{point}' reached, aborting");
        std::process::abort();
    }
}

/// An I/O failure at `point` when `GIT_CLADA_FAILPOINT` is `enospc@<point>`: the write there
/// fails with ENOSPC, as on a full disk, and the process carries on handling the error.
pub fn io_error(point: &str) -> std::io::Result<()> {
    match wanted() {
        Some((name, _)) if name.strip_prefix("enospc@") == Some(point) => {
            Err(std::io::Error::from_raw_os_error(libc::ENOSPC))
        }
        _ => Ok(()),
    }
}
