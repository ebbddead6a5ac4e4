//! The `llm` report: the original listener's paste-back format under our name, with the full
//! error texts, match hints and warnings under each result line, and a closing line telling the
//! LLM what is already applied.

use super::common::{
    distinct_messages, error_head, group_parse_errors, hint_lines, in_document_order,
    is_validation, output_body, output_header, primary, shows_output, validation_line, Item,
};
use super::facts::{
    capped_output, committed_by_failures, failed_blocks, failed_hook, hook_name, rollback_cause,
};
use crate::action::textmatch::Hint;
use crate::action::ExecutionResult;

/// Indentation of detail lines under a result line.
const DETAIL: &str = "    ";
/// Indentation of the messages of a grouped parse error (as in the original).
const GROUP: &str = "                    ";

pub fn render(r: &ExecutionResult) -> String {
    render_with(r, false)
}

/// The llm report; with `user_steps`, each ⏸ line is followed by what the user can do to lift
/// it (`needsUser.how`), for an agent that talks to the user (the MCP server). A pasted-back
/// report leaves it out: the model is only told that the block waits for the user.
pub fn render_with(r: &ExecutionResult, user_steps: bool) -> String {
    if let (Some(f), true) = (
        &r.fatal_error,
        r.results.is_empty() && r.parse_errors.is_empty(),
    ) {
        return fatal(f);
    }
    let mut out = String::from("=== CLADA RESULTS ===\n");
    for item in in_document_order(r) {
        match item {
            Item::Result(res) => {
                result_lines(&mut out, res);
                if let Some(n) = res.needs_user.as_ref().filter(|_| user_steps) {
                    out.push_str(&format!("{DETAIL}for the user — to allow it: {}\n", n.how));
                }
            }
            Item::Errors(id, errs) => {
                parse_error_lines(&mut out, &id, &errs);
                if let Some(n) = errs[0].needs_user.as_ref().filter(|_| user_steps) {
                    out.push_str(&format!("{DETAIL}for the user — to allow it: {}\n", n.how));
                }
            }
        }
    }
    for s in &r.steps {
        let mark = match (s.success, &s.needs_user) {
            (true, _) => "✅",
            (false, Some(_)) => "⏸",
            (false, None) => "❌",
        };
        let user = match &s.needs_user {
            Some(_) if !s.success => {
                " - needs the user: the hook sandbox kept it from something only the user can allow"
            }
            _ => "",
        };
        out.push_str(&format!("step {mark} {}{user}\n", s.name));
        if !s.success {
            for l in capped_output(&s.output).lines() {
                out.push_str(&format!("{DETAIL}{l}\n"));
            }
        }
    }
    if let Some(f) = &r.fatal_error {
        out.push_str(&format!("FATAL: {f}\n"));
    }
    for w in &r.warnings {
        out.push_str(&format!("warning: {w}\n"));
    }
    out.push_str("=== END ===\n\n=== OUTPUTS ===\n");
    let outputs: Vec<String> = r
        .results
        .iter()
        .filter(|res| shows_output(res))
        .map(|res| format!("{}\n{}", output_header(res), output_body(res, true)))
        .collect();
    if !outputs.is_empty() {
        out.push('\n');
        out.push_str(&outputs.join("\n\n"));
        out.push('\n');
    }
    out.push_str("=== END ===\n");
    out.push_str(&closing_line(r));
    out.push('\n');
    out
}

/// A result's line, then its error's further lines, hint and warnings.
fn result_lines(out: &mut String, res: &crate::action::ActionResult) {
    let mut line = if res.success {
        format!(
            "{} {} {} {}",
            super::common::label(res),
            super::common::success_mark(res),
            res.action,
            primary(res)
        )
    } else if res.needs_user.is_some() {
        // What lifts it is the user's to do; the model only learns that it waits for them.
        format!(
            "{} ⏸ {} {} - needs the user's approval: {}",
            super::common::label(res),
            res.action,
            primary(res),
            error_head(res)
        )
    } else {
        format!(
            "{} ❌ {} {} - {}",
            super::common::label(res),
            res.action,
            primary(res),
            error_head(res)
        )
    };
    if res.skipped {
        line.push_str(&super::common::not_run(res));
    }
    out.push_str(line.trim());
    out.push('\n');
    if let Some(err) = &res.error {
        for l in err.lines().skip(1) {
            out.push_str(&format!("{DETAIL}{}\n", l.trim_start()));
        }
    }
    if let Some(h) = &res.hint {
        for l in hint_lines(h) {
            out.push_str(&format!("{DETAIL}{l}\n"));
        }
    }
    for w in &res.warnings {
        out.push_str(&format!("{DETAIL}warning: {w}\n"));
    }
}

/// A block's parse errors: a validation error in the shape of a run-time failure, syntax
/// errors in the original listener's shape (`pe1 ❌ file_write ERROR: … (line 4)`).
fn parse_error_lines(out: &mut String, id: &str, errs: &[&crate::action::ParseErrorReport]) {
    let first = errs[0];
    if is_validation(errs) {
        let mark = if first.needs_user.is_some() {
            "⏸"
        } else {
            "❌"
        };
        out.push_str(&validation_line(first, mark));
        out.push('\n');
        return;
    }
    let action = first.action.as_deref().unwrap_or("-");
    let line = first
        .block_start_line
        .map(|l| format!(" (line {l})"))
        .unwrap_or_default();
    if errs.len() == 1 {
        out.push_str(&format!(
            "{id} ❌ {action:<10} ERROR: {}{line}\n",
            first.message
        ));
    } else {
        out.push_str(&format!(
            "{id} ❌ {action:<10} ERROR: {} syntax errors{line}\n",
            errs.len()
        ));
        for (m, n) in distinct_messages(errs) {
            if n > 1 {
                out.push_str(&format!("{GROUP}- {m} ({n} occurrences)\n"));
            } else {
                out.push_str(&format!("{GROUP}- {m}\n"));
            }
        }
    }
}

/// The report of an apply that stopped before any block ran: one `FATAL:` line in the usual
/// frame, so a pasted-back failure still reads as a result, and a closing line saying that the
/// blocks are not at fault.
fn fatal(message: &str) -> String {
    let one_line = message.split_whitespace().collect::<Vec<_>>().join(" ");
    format!(
        "=== CLADA RESULTS ===\nFATAL: {one_line}\n=== END ===\nNothing was applied: git-clada \
         stopped before running any block. This is not a problem with the blocks.\n"
    )
}

/// What the LLM must know before answering: which blocks already took effect, and what to send.
fn closing_line(r: &ExecutionResult) -> String {
    let ok = r.results.iter().filter(|x| x.success && !x.skipped).count();
    let waiting = waiting_blocks(r);
    let failed = r
        .results
        .iter()
        .filter(|x| !x.success && x.needs_user.is_none())
        .count()
        + group_parse_errors(&r.parse_errors)
            .iter()
            .filter(|(_, errs)| errs[0].needs_user.is_none())
            .count();
    let main = closing_without_waiting(r, ok, failed);
    match (waiting, main.is_empty()) {
        (0, _) => main,
        (n, true) => format!("No block was applied. {}", waiting_sentence(n)),
        (n, false) => format!("{main} {}", waiting_sentence(n)),
    }
}

/// Blocks refused in a way only the user can lift (`⏸`).
fn waiting_blocks(r: &ExecutionResult) -> usize {
    r.results.iter().filter(|x| x.needs_user.is_some()).count()
        + r.parse_errors
            .iter()
            .filter(|e| e.needs_user.is_some())
            .count()
}

/// The model is told these wait for the user, never asked to correct them.
fn waiting_sentence(n: usize) -> String {
    if n == 1 {
        "The block marked ⏸ waits for the user's approval, which only the user can give; do not send it again unless the user asks.".to_string()
    } else {
        format!("The {n} blocks marked ⏸ wait for the user's approval, which only the user can give; do not send them again unless the user asks.")
    }
}

/// The closing line about the blocks that ran or failed.
fn closing_without_waiting(r: &ExecutionResult, ok: usize, failed: usize) -> String {
    if r.dry_run {
        return "Dry run: nothing was changed. These are the results the blocks would have."
            .to_string();
    }
    if r.results.is_empty() && r.parse_errors.is_empty() {
        // `git clada commit`: no blocks, the AI changes an earlier apply left pending.
        return match &r.git_commit {
            Some(c) => format!(
                "The AI changes an earlier apply left uncommitted are now committed ({}); there were no blocks to apply, so nothing needs sending.",
                &c[..c.len().min(12)]
            ),
            None => match failed_hook(r) {
                Some(hook) => format!(
                    "Nothing was committed: {} failed (its output is above); the AI changes an earlier apply left uncommitted stay in the files.",
                    hook_name(hook)
                ),
                None => "No action blocks were found.".to_string(),
            },
        };
    }
    let blocks = |n: usize| {
        if n == 1 {
            "1 block".to_string()
        } else {
            format!("{n} blocks")
        }
    };
    let sent = r.results.len() + group_parse_errors(&r.parse_errors).len();
    let culprits = failed_blocks(r);
    if r.rolled_back && culprits.is_empty() {
        return format!(
            "Nothing was applied: every change was rolled back because {}. No block needs correcting: send all {} again once that is fixed.",
            rollback_cause(r),
            blocks(sent)
        );
    }
    // The blocks ran but recording them failed, and the reply could not be taken back.
    if r.fatal_error.is_some() && !r.rolled_back {
        return format!(
            "Nothing was committed: the blocks ran, but recording them failed (FATAL above). No block needs correcting: once the user has fixed that and run `git clada undo`, send all {} again.",
            blocks(sent)
        );
    }
    if r.rolled_back {
        return format!(
            "Nothing was applied: every change was rolled back because {} failed. Send all {} again, with {} corrected.",
            match culprits.as_slice() {
                [one] => format!("block {one}"),
                many => format!("blocks {}", many.join(", ")),
            },
            blocks(sent),
            if culprits.len() == 1 { "that one" } else { "those" }
        );
    }
    if let Some(step) = failed_hook(r).filter(|s| ok > 0 && s.needs_user.is_some()) {
        return format!(
            "The {} marked ✅ {} applied to the files but NOT committed: {} could not do its work in the sandbox (⏸), which only the user can change. Do not send {} again; nothing needs correcting.",
            blocks(ok),
            if ok == 1 { "is" } else { "are" },
            hook_name(step),
            if ok == 1 { "it" } else { "them" },
        );
    }
    if let Some(hook) = failed_hook(r).filter(|_| ok > 0) {
        let hook = hook_name(hook);
        let fix = "send blocks that fix what the hook reports";
        return if failed == 0 {
            format!(
                "The {} marked ✅ {} applied to the files but NOT committed: {hook} failed (its output is above). Do not send {} again; {fix}.",
                blocks(ok),
                if ok == 1 { "is" } else { "are" },
                if ok == 1 { "it" } else { "them" },
            )
        } else {
            format!(
                "The {} marked ✅ {} applied to the files but NOT committed: {hook} failed (its output is above). Do not send {} again; {fix}, and corrected versions of the {} marked ❌.",
                blocks(ok),
                if ok == 1 { "is" } else { "are" },
                if ok == 1 { "it" } else { "them" },
                blocks(failed)
            )
        };
    }
    // A block reported as already applied needs no correction: it took effect before.
    let before = r
        .results
        .iter()
        .filter(|x| matches!(x.hint, Some(Hint::AlreadyApplied { .. })))
        .count();
    let main = progress(r, ok, failed - before, before > 0, &blocks);
    let main = with_skipped(r, main);
    match before {
        0 => main,
        k => {
            let which = if k == 1 {
                "The block marked ❌ as already applied took effect before; do not send it again."
                    .to_string()
            } else {
                format!("The {k} blocks marked ❌ as already applied took effect before; do not send them again.")
            };
            if main.is_empty() {
                which
            } else {
                format!("{main} {which}")
            }
        }
    }
}

/// `main` followed by what the model must know of the blocks marked ⏭ (a reply pasted again
/// while its files are as it left them, or a block repeated in the reply): they took effect
/// already, so nothing needs resending for them.
fn with_skipped(r: &ExecutionResult, main: String) -> String {
    let skipped = r
        .results
        .iter()
        .filter(|x| x.already_applied.is_some() || x.duplicate_of.is_some())
        .count();
    let sentence = match skipped {
        0 => return main,
        n if n == r.results.len() && r.parse_errors.is_empty() => {
            "Every block was applied before and its files are as it left them: nothing was done, and nothing needs resending.".to_string()
        }
        1 => "The block marked ⏭ took effect already (see above): nothing needs resending for it.".to_string(),
        n => format!("The {n} blocks marked ⏭ took effect already (see above): nothing needs resending for them."),
    };
    if main.is_empty() || skipped == r.results.len() && r.parse_errors.is_empty() {
        sentence
    } else {
        format!("{main} {sentence}")
    }
}

/// The usual closing line: what is applied, what to correct (`failed` excludes blocks that
/// were already applied, `others` says there are such; empty when there is nothing else to
/// say).
fn progress(
    r: &ExecutionResult,
    ok: usize,
    failed: usize,
    others: bool,
    blocks: &dyn Fn(usize) -> String,
) -> String {
    let applied = match &r.git_commit {
        Some(c) => format!("applied and committed ({})", &c[..c.len().min(12)]),
        None => "applied".to_string(),
    };
    if ok == 0 && failed == 0 {
        return String::new();
    }
    // "the 2 other blocks marked ❌" when some ❌ blocks are already applied.
    let to_fix = |n: usize| {
        let b = blocks(n);
        match (others, b.split_once(' ')) {
            (true, Some((k, rest))) => format!("{k} other {rest}"),
            _ => b,
        }
    };
    if failed == 0 && !others {
        if ok == 1 {
            format!("The block is {applied}; do not send it again.")
        } else {
            format!("All {ok} blocks are {applied}; do not send them again.")
        }
    } else if ok == 0 {
        match &r.git_commit {
            // Nothing succeeded, yet something was committed: what failed exec blocks (or
            // `hooks.after`) changed before they failed, as docs/actions.md says exec changes are.
            Some(c) => format!(
                "No block succeeded, but {} is committed ({}; `git clada undo` takes it back). Send corrected versions of the {} marked ❌; they will run on top of that.",
                committed_by_failures(r),
                &c[..c.len().min(12)],
                to_fix(failed)
            ),
            None => format!(
                "No block was applied. Send corrected versions of the {} marked ❌.",
                to_fix(failed)
            ),
        }
    } else {
        let done = format!(
            "The {} marked ✅ {} {applied}; do not send {} again.",
            blocks(ok),
            if ok == 1 { "is" } else { "are" },
            if ok == 1 { "it" } else { "them" },
        );
        if failed == 0 {
            return done;
        }
        format!(
            "{done} Send corrected versions of the {} marked ❌ only.",
            to_fix(failed)
        )
    }
}
