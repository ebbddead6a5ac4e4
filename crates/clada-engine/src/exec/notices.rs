//! What a report says once about how the processes of its exec blocks and hooks ran (issue 51
//! §10, §11), never per block:
//!
//! - where no user namespace can be made (unprivileged user namespaces off, as on Ubuntu
//!   23.10+, or a seccomp filter refusing them, as Docker's default profile does), what the
//!   sandbox goes without there (DESIGN §5.2: loud, no opt-in) — said for every report whose
//!   blocks or hooks ran contained, and by `git clada config`;
//! - the names of the variables the environment filter kept from them (`env.rs`), so a block
//!   that missed one says why, and the user knows the `sandbox.env` line that passes it.
//!
//! Every process started for an exec block or a hook is counted on the thread that starts it
//! ([`started`]); the apply takes a [`mark`] before its work and reads [`since`] after it.

use std::cell::Cell;

thread_local! {
    /// Processes started on this thread: all of them, and those in the OS sandbox.
    static STARTED: Cell<(u64, u64)> = const { Cell::new((0, 0)) };
}

/// Counts a process started for an exec block or a hook (`contained`: in the OS sandbox).
pub(crate) fn started(contained: bool) {
    STARTED.with(|c| {
        let (all, confined) = c.get();
        c.set((all + 1, confined + u64::from(contained)));
    });
}

/// The count at one moment (see [`since`]).
#[derive(Debug, Clone, Copy)]
pub struct Mark((u64, u64));

/// The count now.
pub fn mark() -> Mark {
    Mark(STARTED.with(Cell::get))
}

thread_local! {
    /// Where the apply running on this thread started counting ([`begin`]).
    static SCOPE: Cell<Option<Mark>> = const { Cell::new(None) };
}

/// Starts counting for the apply about to run on this thread: its commit's stored report
/// ([`take`], read where the notes are written) says what its own processes went without.
pub fn begin() {
    SCOPE.with(|s| s.set(Some(mark())));
}

/// [`since`] the apply's [`begin`] or the last `take`, once: the warnings go where they are
/// taken (the stored report, or the printed one for an apply that stored none), never twice.
pub fn take(rules: &[String]) -> Vec<String> {
    let Some(from) = SCOPE.with(Cell::get) else {
        return Vec::new();
    };
    SCOPE.with(|s| s.set(Some(mark())));
    since(&from, rules)
}

/// What the sandbox goes without where no user namespace can be made, or `None` where one
/// can (or where the OS sandbox itself is unavailable: that has its own warning).
pub fn without_namespaces() -> Option<String> {
    if !super::confine::kernel_availability().available() || super::confine::view_available() {
        return None;
    }
    Some(
        "no user namespaces can be made here (unprivileged user namespaces are off, or a \
         seccomp filter refuses them), so the sandbox runs without them: the code sees your \
         other processes (no PID namespace of its own), read-only commands other than git ask \
         (no read-only view of the worktree), hooks find the git directory read-only (no \
         overlay whose changes are discarded), and nothing can be created or removed directly \
         in the worktree root (the git directory cannot be mounted read-only there)"
            .to_string(),
    )
}

/// The warnings for a report whose blocks and hooks started processes since `mark` (none
/// when they started none): the sandbox without namespaces, and the variables withheld under
/// the user's `sandbox.env` `rules`.
pub fn since(mark: &Mark, rules: &[String]) -> Vec<String> {
    let (all, confined) = STARTED.with(Cell::get);
    let (all0, confined0) = mark.0;
    let mut out = Vec::new();
    if confined > confined0 {
        out.extend(without_namespaces());
    }
    if all > all0 {
        let names = super::env::withheld(rules);
        if !names.is_empty() {
            let names: Vec<String> = names
                .iter()
                .map(|n| clada_base::term::escape(n, clada_base::term::Rule::Name).into_owned())
                .collect();
            out.push(format!(
                "exec blocks and hooks ran without these environment variables, which look \
                 like secrets: {} (the user's own sandbox.env passes one: sandbox: {{env: \
                 [NAME]}})",
                names.join(", ")
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_processes_started_since_the_mark_count() {
        let m = mark();
        assert!(since(&m, &[]).is_empty());
        started(false);
        let m2 = mark();
        assert_ne!(m.0, m2.0);
        assert!(since(&m2, &[]).is_empty());
    }
}
