//! The checks of the fuzz target `config` (shared with `tests/cli/config_limits.rs`, which replays
//! the seeds and generated inputs through them, so the body compiles and runs in every test
//! run): arbitrary bytes as `.clada.yml` (untrusted and trusted) and as the user's file, merged
//! as `git clada config` merges them, and as the `--timeout` / `--max-output` values. Nothing
//! may panic (a `Duration` or `Instant` overflow was one); an error names a line inside the
//! text; an accepted configuration's limits are within range, so a deadline computed from them
//! cannot overflow.

use std::time::{Duration, Instant};

use clada_engine::config::{self, Config};

/// Runs every check on `data`.
pub fn run(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let lines = text.split('\n').count();
    for (repo, trusted, user) in [
        (Some(text), false, None),
        (Some(text), true, None),
        (None, false, Some(text)),
        (Some(text), false, Some(text)),
    ] {
        match Config::from_texts(repo, trusted, user) {
            Ok(cfg) => {
                for d in [Some(cfg.timeout.value), cfg.total_timeout.value]
                    .into_iter()
                    .flatten()
                    .chain(cfg.hooks_before.value.iter().filter_map(|h| h.timeout))
                    .chain(cfg.hooks_after.value.iter().filter_map(|h| h.timeout))
                {
                    assert!(!d.is_zero() && d <= config::MAX_DURATION, "{d:?}");
                    let _ = Instant::now() + d;
                }
                assert!(cfg.max_output.value > 0 && cfg.max_output.value <= config::MAX_SIZE);
                let _ = cfg.entries();
                let _ = cfg.untrusted_warning();
            }
            Err(e) => {
                if let Some(line) = e.line {
                    assert!(line >= 1 && line <= lines + 1, "line {line} of {lines}");
                }
                let _ = e.to_string();
            }
        }
    }
    if let Ok(d) = config::duration_arg(text) {
        assert!(!d.is_zero() && d <= config::MAX_DURATION);
        let _ = Instant::now() + d + Duration::from_millis(500);
    }
    if let Ok(n) = config::size_arg(text) {
        assert!(n > 0 && n <= config::MAX_SIZE);
    }
}
