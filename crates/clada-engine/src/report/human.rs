//! The `human` report: one line per block (`abc ✅ file_write src/app.rs`), the hint, warnings
//! and exec output under a failure, parse errors, read outputs after, then a summary.
//!
//! It is for people, so it is always escaped for a terminal (`clada_base::term`), wherever it goes:
//! every value from the result is escaped where it is put into the text (names by the name
//! rule, messages and outputs as content), before the report's own colours are added.

use super::common::{
    distinct_messages, error_head, hint_lines, in_document_order, is_validation, output_body,
    output_header, primary, shows_output, validation_line, Item,
};
use super::facts::{capped_output, committed_by_failures, failed_hook, hook_name, rollback_cause};
use crate::action::ExecutionResult;
use clada_base::term::{escape, Rule};

/// A name (path, block id, action, step) as shown.
fn name(s: &str) -> std::borrow::Cow<'_, str> {
    escape(s, Rule::Name)
}

/// A message or an output as shown.
fn content(s: &str) -> std::borrow::Cow<'_, str> {
    escape(s, Rule::Content)
}

struct Paint {
    on: bool,
}

impl Paint {
    fn wrap(&self, code: &str, s: &str) -> String {
        if self.on {
            format!("\x1b[{code}m{s}\x1b[0m")
        } else {
            s.to_string()
        }
    }
    fn ok(&self, s: &str) -> String {
        self.wrap("32", s)
    }
    fn bad(&self, s: &str) -> String {
        self.wrap("31", s)
    }
    fn note(&self, s: &str) -> String {
        self.wrap("33", s)
    }
    fn dim(&self, s: &str) -> String {
        self.wrap("2", s)
    }
    /// Colours a diff line by its first character.
    fn diff(&self, s: &str) -> String {
        if s.starts_with("+++") || s.starts_with("---") {
            self.wrap("1", s)
        } else if s.starts_with('+') {
            self.ok(s)
        } else if s.starts_with('-') {
            self.bad(s)
        } else if s.starts_with("@@") {
            self.wrap("36", s)
        } else {
            s.to_string()
        }
    }
}

const DETAIL: &str = "    ";

pub fn render(r: &ExecutionResult, color: bool) -> String {
    let p = Paint { on: color };
    let mut out = String::new();
    for item in in_document_order(r) {
        match item {
            Item::Result(res) => result_lines(&mut out, &p, res),
            Item::Errors(id, errs) => parse_error_lines(&mut out, &p, &id, &errs),
        }
    }
    let outputs: Vec<String> = r
        .results
        .iter()
        .filter(|res| shows_output(res))
        .map(|res| {
            format!(
                "{}\n{}",
                p.dim(&name(&output_header(res))),
                content(&output_body(res, false))
            )
        })
        .collect();
    if !outputs.is_empty() {
        out.push('\n');
        out.push_str(&outputs.join("\n\n"));
        out.push('\n');
    }
    if !r.steps.is_empty() {
        out.push('\n');
        for s in &r.steps {
            let mark = match (s.success, &s.needs_user) {
                (true, _) => p.ok("✅"),
                (false, Some(_)) => p.note("⏸"),
                (false, None) => p.bad("❌"),
            };
            out.push_str(&format!("{mark} {}\n", name(&s.name)));
            if !s.success {
                for l in content(&capped_output(&s.output)).lines() {
                    out.push_str(&format!("{DETAIL}{l}\n"));
                }
            }
            if let Some(n) = &s.needs_user {
                for (i, l) in content(&n.how).lines().enumerate() {
                    let head = if i == 0 {
                        p.note("to allow it:")
                    } else {
                        String::new()
                    };
                    out.push_str(&format!("{DETAIL}{head} {l}\n"));
                }
            }
        }
    }
    if let Some(f) = &r.fatal_error {
        out.push_str(&format!("{} {}\n", p.bad("fatal:"), content(f)));
    }
    for w in &r.warnings {
        out.push_str(&format!("{} {}\n", p.note("warning:"), content(w)));
    }
    let summary = summary(r);
    out.push_str(&name(summary.trim_end_matches('\n')));
    out.push('\n');
    out
}

/// A result's line, then its error's further lines, what the user can do, hint and warnings.
fn result_lines(out: &mut String, p: &Paint, res: &crate::action::ActionResult) {
    let line = if res.success {
        let tail = if res.skipped {
            super::common::not_run(res)
        } else {
            String::new()
        };
        format!(
            "{} {} {} {}{}",
            name(&super::common::label(res)),
            p.ok(super::common::success_mark(res)),
            name(&res.action),
            name(&primary(res)),
            name(&tail)
        )
    } else if res.needs_user.is_some() {
        format!(
            "{} {} {} {} - needs your approval: {}",
            name(&super::common::label(res)),
            p.note("⏸"),
            name(&res.action),
            name(&primary(res)),
            content(error_head(res))
        )
    } else {
        format!(
            "{} {} {} {} - {}",
            name(&super::common::label(res)),
            p.bad("❌"),
            name(&res.action),
            name(&primary(res)),
            content(error_head(res))
        )
    };
    out.push_str(line.trim_end());
    out.push('\n');
    if let Some(err) = &res.error {
        for l in err.lines().skip(1) {
            out.push_str(&format!("{DETAIL}{}\n", content(l.trim_start())));
        }
    }
    if let Some(n) = &res.needs_user {
        out.push_str(&format!(
            "{DETAIL}{} {}\n",
            p.note("to allow it:"),
            content(&n.how)
        ));
    }
    // Where a line range landed after earlier blocks moved it: for the person reviewing; the
    // model followed the numbering rule, so its report does not mention it.
    if let Some(note) = res
        .data
        .as_ref()
        .and_then(|d| d.get("lineNote"))
        .and_then(serde_json::Value::as_str)
    {
        out.push_str(&format!("{DETAIL}{} {}\n", p.dim("note:"), content(note)));
    }
    if let Some(h) = &res.hint {
        for (i, l) in hint_lines(h).into_iter().enumerate() {
            let l = content(&l);
            let l = if i == 0 { p.note(&l) } else { p.diff(&l) };
            out.push_str(&format!("{DETAIL}{l}\n"));
        }
    }
    for w in &res.warnings {
        out.push_str(&format!("{DETAIL}{} {}\n", p.note("warning:"), content(w)));
    }
}

/// A block's parse errors: a validation error in the shape of a run-time failure, syntax
/// errors with their kind and line.
fn parse_error_lines(
    out: &mut String,
    p: &Paint,
    id: &str,
    errs: &[&crate::action::ParseErrorReport],
) {
    let first = errs[0];
    if is_validation(errs) {
        let mark = if first.needs_user.is_some() {
            p.note("⏸")
        } else {
            p.bad("❌")
        };
        let shown = crate::action::ParseErrorReport {
            block_id: name(&first.block_id).into_owned(),
            action: first.action.as_deref().map(|a| name(a).into_owned()),
            message: content(&first.message).into_owned(),
            ..first.clone()
        };
        out.push_str(&validation_line(&shown, &mark));
        out.push('\n');
        if let Some(n) = &first.needs_user {
            out.push_str(&format!(
                "{DETAIL}{} {}\n",
                p.note("to allow it:"),
                content(&n.how)
            ));
        }
        return;
    }
    let id = name(id);
    let action = name(first.action.as_deref().unwrap_or("-"));
    let line = first
        .block_start_line
        .map(|l| format!(" (line {l})"))
        .unwrap_or_default();
    let kind = format!("{:?}", first.error_type).to_lowercase();
    if errs.len() == 1 {
        out.push_str(&format!(
            "{id} {} {action} - {kind} error{line}: {}\n",
            p.bad("❌"),
            content(&first.message)
        ));
    } else {
        out.push_str(&format!(
            "{id} {} {action} - {} {kind} errors{line}:\n",
            p.bad("❌"),
            errs.len()
        ));
        for (m, n) in distinct_messages(errs) {
            let times = if n > 1 {
                format!(" ({n} times)")
            } else {
                String::new()
            };
            out.push_str(&format!("{DETAIL}- {}{times}\n", content(m)));
        }
    }
}

fn summary(r: &ExecutionResult) -> String {
    let ok = r.results.iter().filter(|x| x.success).count();
    let waiting = r.results.iter().filter(|x| x.needs_user.is_some()).count();
    let failed = r.results.iter().filter(|x| !x.success).count() - waiting;
    let invalid = r.parse_errors.len();
    if r.results.is_empty() && invalid == 0 {
        return match &r.git_commit {
            Some(c) => format!(
                "committed {}: the AI changes an earlier apply left uncommitted\n",
                &c[..c.len().min(12)]
            ),
            None => "no action blocks found\n".to_string(),
        };
    }
    if r.rolled_back {
        return format!(
            "0 of {} blocks applied: {}, so every change was rolled back\n",
            r.results.len(),
            rollback_cause(r)
        );
    }
    let mut s = format!("{ok} of {} blocks succeeded", r.results.len());
    if failed > 0 {
        s.push_str(&format!(", {failed} failed"));
    }
    if waiting > 0 {
        s.push_str(&format!(
            ", {waiting} need{} your approval (⏸)",
            if waiting == 1 { "s" } else { "" }
        ));
    }
    if invalid > 0 {
        s.push_str(&format!(", {invalid} invalid block error(s)"));
    }
    if r.dry_run {
        s.push_str(" (dry run: nothing changed)");
    }
    if let Some(c) = &r.git_commit {
        s.push_str(&format!("; committed {}", &c[..c.len().min(12)]));
        if ok == 0 && !r.results.is_empty() {
            s.push_str(&format!(" ({})", committed_by_failures(r)));
        }
    }
    if let Some(hook) = failed_hook(r) {
        let why = match hook.needs_user {
            Some(_) => "needs your approval (⏸ above)",
            None => "failed (its output is above)",
        };
        s.push_str(&format!("; NOT committed: {} {why}", hook_name(hook)));
    }
    s.push('\n');
    s
}
