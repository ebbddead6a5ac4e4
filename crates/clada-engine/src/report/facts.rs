//! Facts every report format states the same way, derived from the [`ExecutionResult`] alone
//! (so a stored result says them too): a reply whose changes were all rolled back, a hook that
//! stopped the commit, a failed step's output capped for reading, an ignored path's fate.

use std::borrow::Cow;

use crate::action::{ExecutionResult, FileChange, FileState, Step};

/// Marks a result whose changes were all undone after `cause` (`--atomic`) saw a failure:
/// every result that had succeeded says it was not applied and why, and is no longer a
/// success. The roll-back itself is the caller's.
pub fn mark_rolled_back(result: &mut ExecutionResult, cause: &str) {
    let because = rollback_cause(result);
    for r in result.results.iter_mut().filter(|r| r.success) {
        r.success = false;
        r.rolled_back = true;
        r.code = Some("rolled_back".into());
        r.error = Some(format!(
            "not applied: {cause} rolled back every change of the reply because {because}"
        ));
    }
    result.rolled_back = true;
    result.warnings.push(format!(
        "{cause}: {because}, so every change of this reply was rolled back and nothing was committed"
    ));
    result.update_success();
}

/// Why a reply's changes were rolled back, from the result: the blocks that failed on their
/// own, else the step that failed, else recording the commit (a full disk: every block ran,
/// none failed).
pub(crate) fn rollback_cause(result: &ExecutionResult) -> String {
    match failed_blocks(result).as_slice() {
        [] => match result.steps.iter().find(|s| !s.success) {
            Some(step) => format!("{} failed", step.name),
            None => "recording the commit failed".to_string(),
        },
        [one] => format!("block {one} failed"),
        many => format!("blocks {} failed", many.join(", ")),
    }
}

/// Ids of the blocks that failed on their own (not by a roll-back), parse errors included, in
/// report order, each once.
pub(crate) fn failed_blocks(result: &ExecutionResult) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let ids = result
        .results
        .iter()
        .filter(|r| !r.success && !r.rolled_back)
        .map(|r| &r.block_id)
        .chain(result.parse_errors.iter().map(|e| &e.block_id));
    for id in ids {
        if !out.contains(id) {
            out.push(id.clone());
        }
    }
    out
}

/// What a commit holds when no block succeeded: the changes failed exec blocks made before
/// they failed (or, with none, those made while the reply ran, e.g. by `hooks.after`), as a
/// phrase: `what exec block e1x changed before it failed`.
pub(crate) fn committed_by_failures(result: &ExecutionResult) -> String {
    let ran: Vec<&str> = result
        .results
        .iter()
        .filter(|r| !r.success && r.action == "exec" && r.data.is_some() && !r.skipped)
        .map(|r| r.block_id.as_str())
        .collect();
    match ran.as_slice() {
        [] => "what changed while the reply ran (see the warnings)".to_string(),
        [one] => format!("what exec block {one} changed before it failed"),
        many => format!(
            "what exec blocks {} changed before they failed",
            many.join(", ")
        ),
    }
}

/// The failed hook step that kept the changes from being committed, if any.
pub(crate) fn failed_hook(result: &ExecutionResult) -> Option<&Step> {
    if result.git_commit.is_some() {
        return None;
    }
    result
        .steps
        .iter()
        .find(|s| !s.success && s.name.starts_with("hook "))
}

/// `the pre-commit hook`.
pub(crate) fn hook_name(step: &Step) -> String {
    format!(
        "the {} hook",
        step.name.strip_prefix("hook ").unwrap_or(&step.name)
    )
}

/// The statement a failed hook adds to the JSON warnings (the other formats say it in their
/// summary and closing lines).
fn hook_warning(step: &Step) -> String {
    match &step.needs_user {
        Some(_) => format!(
            "{} could not do its work in the sandbox, so the changes were NOT committed (they are in the files); only the user can allow what it needed (`needsUser.how` of the step)",
            hook_name(step)
        ),
        None => format!(
            "{} failed, so the changes were NOT committed (they are in the files); fix what the hook reports (its output is in `steps`)",
            hook_name(step)
        ),
    }
}

/// Most lines of a failed step's output shown.
pub const STEP_OUTPUT_LINES: usize = 40;
/// Most bytes of a failed step's output shown.
pub const STEP_OUTPUT_BYTES: usize = 4096;

/// A failed step's output for reading: its first line (the status) and the last
/// [`STEP_OUTPUT_LINES`] lines within [`STEP_OUTPUT_BYTES`], saying what was cut. The end is
/// kept because that is where tools print their verdict.
pub fn capped_output(output: &str) -> Cow<'_, str> {
    let mut lines = output.lines();
    let Some(first) = lines.next() else {
        return Cow::Borrowed(output);
    };
    let rest: Vec<&str> = lines.collect();
    let mut start = rest.len().saturating_sub(STEP_OUTPUT_LINES);
    let mut bytes: usize = rest[start..].iter().map(|l| l.len() + 1).sum();
    while bytes > STEP_OUTPUT_BYTES && start + 1 < rest.len() {
        bytes -= rest[start].len() + 1;
        start += 1;
    }
    let mut kept: Vec<&str> = rest[start..].to_vec();
    let mut cut_line = false;
    if bytes > STEP_OUTPUT_BYTES {
        if let Some(last) = kept.last_mut() {
            let mut at = last.len() - STEP_OUTPUT_BYTES.min(last.len());
            while !last.is_char_boundary(at) {
                at += 1;
            }
            *last = &last[at..];
            cut_line = true;
        }
    }
    if start == 0 && !cut_line {
        return Cow::Borrowed(output);
    }
    let mut out = first.to_string();
    if start > 0 {
        out.push_str(&format!(
            "\n… ({start} earlier line{} of output cut; the last {} shown)",
            if start == 1 { "" } else { "s" },
            kept.len()
        ));
    }
    if cut_line {
        out.push_str("\n… (the start of the last line cut)");
    }
    for l in kept {
        out.push('\n');
        out.push_str(l);
    }
    Cow::Owned(out)
}

/// The result as the JSON report shows it: failed steps' output capped, and a failed hook
/// stated among the warnings.
pub(crate) fn for_json(result: &ExecutionResult) -> Cow<'_, ExecutionResult> {
    let long = |s: &Step| !s.success && matches!(capped_output(&s.output), Cow::Owned(_));
    let hook = failed_hook(result)
        .map(hook_warning)
        .filter(|w| !result.warnings.contains(w));
    if hook.is_none() && !result.steps.iter().any(long) {
        return Cow::Borrowed(result);
    }
    let mut shown = result.clone();
    for s in shown.steps.iter_mut().filter(|s| !s.success) {
        s.output = capped_output(&s.output).into_owned();
    }
    shown.warnings.extend(hook);
    Cow::Owned(shown)
}

/// The warning for a path git ignores that a reply's action changed: it stays as the action
/// left it, uncommitted.
pub fn ignored_path_warning(changes: &[FileChange], path: &str) -> String {
    let deleted = changes.iter().any(|c| {
        c.rel.as_deref() == Some(path) && matches!(c.after, FileState::Absent | FileState::Dir)
    });
    if deleted {
        format!("{path} was deleted; it was ignored by .gitignore, so there was nothing to commit")
    } else {
        format!(
            "{path} is ignored by .gitignore: written, but not committed (git add -f it yourself if you want it tracked)"
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_output_is_kept_whole() {
        assert!(matches!(capped_output("a\nb"), Cow::Borrowed("a\nb")));
        assert!(matches!(capped_output(""), Cow::Borrowed("")));
    }

    #[test]
    fn long_output_keeps_status_line_and_last_lines() {
        let body: Vec<String> = (1..=100).map(|i| format!("line {i}")).collect();
        let text = format!("hook pre-commit failed (exit 1):\n{}", body.join("\n"));
        let out = capped_output(&text);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[0], "hook pre-commit failed (exit 1):");
        assert_eq!(
            lines[1],
            "… (60 earlier lines of output cut; the last 40 shown)"
        );
        assert_eq!(lines[2], "line 61");
        assert_eq!(lines.last(), Some(&"line 100"));
        assert_eq!(lines.len(), 42);
    }

    #[test]
    fn wide_output_is_cut_to_the_byte_cap() {
        let body: Vec<String> = (1..=30)
            .map(|i| format!("{i:03}{}", "x".repeat(497)))
            .collect();
        let text = format!("status:\n{}", body.join("\n"));
        let out = capped_output(&text);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(
            lines[1],
            "… (22 earlier lines of output cut; the last 8 shown)"
        );
        assert!(lines[2].starts_with("023"));
        let text = format!("status:\n{}é", "y".repeat(5000));
        let one = capped_output(&text);
        let lines: Vec<&str> = one.lines().collect();
        assert_eq!(lines[1], "… (the start of the last line cut)");
        assert_eq!(lines[2].len(), 4096);
    }
}
