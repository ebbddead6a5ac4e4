//! Phase timing for performance work: with `GIT_CLADA_TRACE=1`, each [`phase`] call prints the
//! time since the previous one (and since start) to stderr. Costs one relaxed check otherwise.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::Instant;

static ENABLED: OnceLock<bool> = OnceLock::new();
static LAST: Mutex<Option<(Instant, Instant)>> = Mutex::new(None);
static WARNED: AtomicBool = AtomicBool::new(false);

fn enabled() -> bool {
    *ENABLED.get_or_init(|| std::env::var_os("GIT_CLADA_TRACE").is_some_and(|v| v != "0"))
}

/// Marks the end of phase `name`.
pub fn phase(name: &str) {
    if !enabled() {
        return;
    }
    let now = Instant::now();
    let Ok(mut last) = LAST.lock() else {
        if !WARNED.swap(true, Ordering::Relaxed) {
            eprintln!("trace: timing state unavailable");
        }
        return;
    };
    let (start, prev) = last.unwrap_or((now, now));
    eprintln!(
        "trace: {name:<28} {:>8.2} ms  (total {:>8.2} ms)",
        now.duration_since(prev).as_secs_f64() * 1e3,
        now.duration_since(start).as_secs_f64() * 1e3
    );
    *last = Some((start, now));
}
