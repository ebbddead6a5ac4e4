//! What the human and llm reports share: the primary value of a result line, the hint and
//! warning lines, which outputs are shown, and how each output is laid out.

use serde_json::Value;

use crate::action::schema::{schema, OutputDisplay};
use crate::action::textmatch::Hint;
use crate::action::{ActionResult, ParseErrorReport};

/// The value shown after the action name: the schema's primary parameter; `paths` lists show
/// as `(N files)`, a move (`file_move`, a `file_patch` with `new_path`) as `old -> new`.
pub fn primary(r: &ActionResult) -> String {
    let str_param = |k: &str| r.params.get(k).and_then(Value::as_str).map(String::from);
    if r.action == "file_move" {
        if let (Some(a), Some(b)) = (str_param("old_path"), str_param("new_path")) {
            return format!("{a} -> {b}");
        }
    }
    // A patch that moves its file (apply_patch's `*** Move to:`, a diff's rename).
    if r.action == "file_patch" {
        if let (Some(a), Some(b)) = (str_param("path"), str_param("new_path")) {
            return format!("{a} -> {b}");
        }
    }
    let Some(p) = schema().get(&r.action).and_then(|d| d.primary.clone()) else {
        return String::new();
    };
    if p == "paths" {
        let n = str_param("paths")
            .map(|s| s.split('\n').filter(|l| !l.trim().is_empty()).count())
            .unwrap_or(0);
        return format!("({n} files)");
    }
    match r.params.get(&p) {
        Some(Value::String(s)) => s.clone(),
        Some(v) => v.to_string(),
        None => String::new(),
    }
}

/// The first line of a result's error for a report line, without a leading `action: ` (the
/// line already names the action): `xyz ❌ file_replace_text src/main.rs - old_text not found in
/// file`.
pub fn error_head(r: &ActionResult) -> &str {
    let err = r.error.as_deref().unwrap_or("Unknown error");
    let first = err.lines().next().unwrap_or_default();
    first
        .strip_prefix(r.action.as_str())
        .and_then(|rest| rest.strip_prefix(": "))
        .unwrap_or(first)
}

/// `line 4`, `lines 4, 19, 33`, `line 1 (3 times)`, `lines 1 (2 times), 7`: line numbers in
/// order, a line holding several occurrences said once with its count.
pub fn at_lines(lines: &[usize]) -> String {
    at_spans(lines, 1)
}

/// [`at_lines`] for occurrences spanning `span` lines each: `lines 12-15, 40-43`.
fn at_spans(lines: &[usize], span: usize) -> String {
    let mut groups: Vec<(usize, usize)> = Vec::new();
    for &l in lines {
        match groups.last_mut() {
            Some((last, n)) if *last == l => *n += 1,
            _ => groups.push((l, 1)),
        }
    }
    let parts: Vec<String> = groups
        .iter()
        .map(|&(l, n)| {
            let at = if span > 1 {
                format!("{l}-{}", l + span - 1)
            } else {
                l.to_string()
            };
            if n > 1 {
                format!("{at} ({n} times)")
            } else {
                at
            }
        })
        .collect();
    let one = groups.len() == 1 && span == 1;
    format!(
        "{} {}",
        if one { "line" } else { "lines" },
        parts.join(", ")
    )
}

/// The lines explaining a failed match or a missing path (DESIGN §8), without indentation.
pub fn hint_lines(h: &Hint) -> Vec<String> {
    match h {
        Hint::NotFound {
            closest: Some(c), ..
        } => {
            let pct = (c.similarity * 100.0).round() as i64;
            let how = match &c.whitespace_only {
                Some(kind) => format!("{pct}% similar; differs only in whitespace: {kind}"),
                None => format!("{pct}% similar"),
            };
            let mut v = vec![format!(
                "closest match at lines {}-{} ({how}):",
                c.start_line, c.end_line
            )];
            v.extend(c.diff.lines().map(String::from));
            v
        }
        Hint::NotFound { closest: None, .. } => {
            vec!["no region of the file is similar to old_text (re-read the file and copy the text exactly)".into()]
        }
        Hint::Ambiguous {
            occurrences, lines, ..
        } => vec![format!(
            "found {occurrences} times, at {}; add surrounding lines to old_text so it matches once",
            at_lines(lines)
        )],
        Hint::CountMismatch {
            expected,
            found,
            lines,
            ..
        } => vec![format!(
            "expected {expected}, found {found} times, at {}",
            at_lines(lines)
        )],
        Hint::AlreadyApplied {
            lines, line_count, ..
        } => vec![format!(
            "already applied: new_text is present at {} and old_text is not, so this block took effect before; do not send it again",
            at_spans(lines, *line_count)
        )],
        Hint::MissingPath {
            candidates,
            similar,
            ..
        } => vec![match (candidates.as_slice(), similar.as_slice()) {
            ([], [one]) => format!("did you mean {one}? (a similar name exists)"),
            ([], many) => format!(
                "did you mean one of these? (similar names exist): {}",
                many.join(", ")
            ),
            ([one], _) => format!("did you mean {one}? (the same file name exists there)"),
            (many, _) => format!(
                "did you mean one of these? (the same file name exists there): {}",
                many.join(", ")
            ),
        }],
    }
}

/// Whether a result's output goes into the OUTPUTS section: successful results of actions
/// whose schema says `always` (or `conditional` without `return_output = "false"`); failed
/// exec results too, because their output is what explains the failure.
pub fn shows_output(r: &ActionResult) -> bool {
    if r.data.is_none() || r.skipped {
        return false;
    }
    let display = schema()
        .get(&r.action)
        .map(|d| d.output)
        .unwrap_or(OutputDisplay::Always);
    let wanted = match display {
        OutputDisplay::Always => true,
        OutputDisplay::Never => false,
        OutputDisplay::Conditional => r.params.get("return_output") != Some(&Value::Bool(false)),
    };
    wanted && (r.success || r.action == "exec")
}

/// The header of an output: `[id] action:` for the file readers (their content carries the
/// path), `[id] action primary:` for the rest.
pub fn output_header(r: &ActionResult) -> String {
    let status = if r.success {
        String::new()
    } else {
        match r
            .data
            .as_ref()
            .and_then(|d| d.get("exit_code"))
            .and_then(Value::as_i64)
        {
            Some(code) => format!(" (failed, exit code {code})"),
            None => " (failed)".to_string(),
        }
    };
    // Where an exec session moved the block to (the root is not named).
    let place = match r
        .data
        .as_ref()
        .and_then(|d| d.get("cwd"))
        .and_then(Value::as_str)
    {
        Some(dir) if r.action == "exec" => format!(" (in {dir})"),
        _ => String::new(),
    };
    match r.action.as_str() {
        "file_read" | "file_read_numbered" | "files_read" | "files_read_numbered" => {
            format!("[{}] {}{status}:", r.block_id, r.action)
        }
        "exec" => format!("[{}] exec {}{place}{status}:", r.block_id, primary(r)),
        _ => format!("[{}] {} {}{status}:", r.block_id, r.action, primary(r)),
    }
}

fn file_block(path: &str, content: &str, numbered: bool) -> String {
    let tag = if numbered { "[numbered] " } else { "" };
    let body = if content.is_empty() {
        "[empty file]"
    } else {
        content
    };
    format!("=== START FILE: {tag}{path} ===\n{body}\n=== END FILE: {tag}{path} ===")
}

/// The payload of an output, laid out for reading; with `trim`, a long exec stream is cut to
/// its head and tail ([`head_and_tail`]).
pub fn output_body(r: &ActionResult, trim: bool) -> String {
    let Some(data) = &r.data else {
        return String::new();
    };
    let s = |k: &str| data.get(k).and_then(Value::as_str).unwrap_or_default();
    match r.action.as_str() {
        "file_read" => file_block(s("path"), s("content"), false),
        "file_read_numbered" => file_block(s("path"), s("content"), true),
        "files_read" => files_body(data, false),
        "files_read_numbered" => files_body(data, true),
        "exec" => {
            let shown = |t: &str| -> String {
                let t = t.trim_end();
                if trim {
                    head_and_tail(t).into_owned()
                } else {
                    t.to_string()
                }
            };
            let mut parts = Vec::new();
            if !s("stdout").is_empty() {
                parts.push(format!("stdout:\n{}", shown(s("stdout"))));
            }
            if !s("stderr").is_empty() {
                parts.push(format!("stderr:\n{}", shown(s("stderr"))));
            }
            if parts.is_empty() {
                "(no output)".to_string()
            } else {
                parts.join("\n")
            }
        }
        "ls" => ls_body(data),
        "grep" => grep_body(data),
        "glob" => {
            let lines: Vec<&str> = data
                .as_array()
                .or_else(|| data.get("paths").and_then(Value::as_array))
                .map(|a| a.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            if lines.is_empty() {
                "[no files match]".into()
            } else {
                lines.join("\n")
            }
        }
        _ => match data {
            Value::String(s) => s.trim_end().to_string(),
            other => serde_json::to_string_pretty(other).unwrap_or_default(),
        },
    }
}

/// The body of a `files_read` (`numbered`: `files_read_numbered`): the list of paths, then each
/// file's block.
fn files_body(data: &Value, numbered: bool) -> String {
    let paths: Vec<&str> = data
        .get("paths")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let contents: Vec<&str> = data
        .get("content")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut out = format!("Reading {} files:\n", paths.len());
    for p in &paths {
        out.push_str(&format!("- {p}\n"));
    }
    let blocks: Vec<String> = paths
        .iter()
        .zip(contents.iter().chain(std::iter::repeat(&"")))
        .map(|(p, c)| file_block(p, c, numbered))
        .collect();
    out.push('\n');
    out.push_str(&blocks.join("\n\n"));
    out
}

/// The body of an `ls`: one entry a line, folders with `/`, links with `@`, files with their size.
fn ls_body(data: &Value) -> String {
    // Reports stored before the seeds' shapes (git notes) held `{entries}` etc.
    let entries = data
        .as_array()
        .or_else(|| data.get("entries").and_then(Value::as_array));
    let lines: Vec<String> = entries
        .map(|a| {
            a.iter()
                .map(|e| {
                    let name = e.get("name").and_then(Value::as_str).unwrap_or_default();
                    match e.get("type").and_then(Value::as_str) {
                        Some("directory") => format!("{name}/"),
                        Some("symlink") => format!("{name}@"),
                        _ => format!(
                            "{name} ({} bytes)",
                            e.get("size").and_then(Value::as_u64).unwrap_or(0)
                        ),
                    }
                })
                .collect()
        })
        .unwrap_or_default();
    if lines.is_empty() {
        "[empty directory]".into()
    } else {
        lines.join("\n")
    }
}

/// The body of a `grep`: `file:line: text`, one match a line.
fn grep_body(data: &Value) -> String {
    let lines: Vec<String> = data
        .as_array()
        .or_else(|| data.get("matches").and_then(Value::as_array))
        .map(|a| {
            a.iter()
                .map(|m| {
                    let number = m.get("line_number").or_else(|| m.get("line"));
                    let text = m.get("text").or_else(|| m.get("line"));
                    format!(
                        "{}:{}: {}",
                        m.get("file").and_then(Value::as_str).unwrap_or_default(),
                        number.and_then(Value::as_u64).unwrap_or(0),
                        text.and_then(Value::as_str).unwrap_or_default()
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    if lines.is_empty() {
        "[no matches]".into()
    } else {
        lines.join("\n")
    }
}

/// Parse errors grouped by block id in first-seen order.
pub fn group_parse_errors(errors: &[ParseErrorReport]) -> Vec<(String, Vec<&ParseErrorReport>)> {
    let mut groups: Vec<(String, Vec<&ParseErrorReport>)> = Vec::new();
    for e in errors {
        match groups.iter_mut().find(|(id, _)| *id == e.block_id) {
            Some((_, v)) => v.push(e),
            None => groups.push((e.block_id.clone(), vec![e])),
        }
    }
    groups
}

/// Distinct messages of a group with their counts, in first-seen order.
pub fn distinct_messages<'a>(errs: &[&'a ParseErrorReport]) -> Vec<(&'a str, usize)> {
    let mut out: Vec<(&str, usize)> = Vec::new();
    for e in errs {
        match out.iter_mut().find(|(m, _)| *m == e.message) {
            Some((_, n)) => *n += 1,
            None => out.push((e.message.as_str(), 1)),
        }
    }
    out
}

/// How a result's block is named: its id, and for blocks whose ids do not say where they are
/// (`task-N` of CSL, CML and the replacer format) its line.
pub(crate) fn label(r: &ActionResult) -> std::borrow::Cow<'_, str> {
    match r.line {
        Some(line) => format!("{} (line {line})", r.block_id).into(),
        None => r.block_id.as_str().into(),
    }
}

/// Why a successful result did not run, as the tail of its report line.
pub fn not_run(res: &ActionResult) -> String {
    if let Some(line) = res.duplicate_of {
        return format!(" (the same block as on line {line}: applied once, not run again)");
    }
    match &res.already_applied {
        Some(commit) if commit.starts_with("the last apply") => {
            " (this reply was applied last and its files are as it left them: not run again — `--force` runs it anyway)".to_string()
        }
        Some(commit) => format!(
            " (this reply was applied last, in {}, and its files are as it left them: not run again — `--force` runs it anyway)",
            &commit[..commit.len().min(12)]
        ),
        None => " (not run: dry run)".to_string(),
    }
}

/// The mark of a successful result: ✅, or ⏭ for a block not run because it took effect
/// already (a repeated reply or block).
pub fn success_mark(res: &ActionResult) -> &'static str {
    if res.already_applied.is_some() || res.duplicate_of.is_some() {
        "⏭"
    } else {
        "✅"
    }
}

/// One line group of a report: a result, or the parse errors of one block.
pub enum Item<'a> {
    Result(&'a ActionResult),
    Errors(String, Vec<&'a ParseErrorReport>),
}

/// The results and the parse errors (grouped by block) in the order their blocks appear in
/// the reply. A report read back from a note holds no start lines for its results: then the
/// results come first, in execution order, and the parse errors after them.
pub fn in_document_order(r: &crate::action::ExecutionResult) -> Vec<Item<'_>> {
    let known = r.results.iter().all(|x| x.start_line.is_some());
    let mut items: Vec<(usize, Item<'_>)> = r
        .results
        .iter()
        .map(|x| {
            let key = if known { x.start_line.unwrap_or(0) } else { 0 };
            (key, Item::Result(x))
        })
        .collect();
    for (id, errs) in group_parse_errors(&r.parse_errors) {
        let key = if known {
            errs[0].block_start_line.unwrap_or(usize::MAX)
        } else {
            usize::MAX
        };
        items.push((key, Item::Errors(id, errs)));
    }
    // Stable: results of one block (a group) and equal lines keep their order.
    items.sort_by_key(|(k, _)| *k);
    items.into_iter().map(|(_, i)| i).collect()
}

/// Whether a block's parse errors are about its values (validation, types), whose report line
/// has the shape of a run-time failure, rather than its syntax.
pub fn is_validation(errs: &[&ParseErrorReport]) -> bool {
    errs.len() == 1 && errs[0].error_type != crate::action::ErrorType::Syntax
}

/// The line of a block that failed validation, in the shape of a run-time failure:
/// `abc ❌ file_write - Missing required parameter: content (line 4)`.
pub fn validation_line(e: &ParseErrorReport, mark: &str) -> String {
    let line = e
        .block_start_line
        .map(|l| format!(" (line {l})"))
        .unwrap_or_default();
    match &e.action {
        Some(action) => format!("{} {mark} {action} - {}{line}", e.block_id, e.message),
        None => format!("{} {mark} {}{line}", e.block_id, e.message),
    }
}

/// Lines kept from the start and from the end of a long exec output in the llm report.
pub const OUTPUT_HEAD: usize = 50;
pub const OUTPUT_TAIL: usize = 150;

/// A long text cut to its first [`OUTPUT_HEAD`] and last [`OUTPUT_TAIL`] lines, saying how many
/// were left out (a test run's verdict and a build's errors are at the end).
pub fn head_and_tail(text: &str) -> std::borrow::Cow<'_, str> {
    let n = text.lines().count();
    if n <= OUTPUT_HEAD + OUTPUT_TAIL {
        return text.into();
    }
    let lines: Vec<&str> = text.lines().collect();
    let omitted = n - OUTPUT_HEAD - OUTPUT_TAIL;
    let mut out = lines[..OUTPUT_HEAD].join("\n");
    out.push_str(&format!(
        "\n… ({omitted} lines omitted; the first {OUTPUT_HEAD} and the last {OUTPUT_TAIL} are shown)\n"
    ));
    out.push_str(&lines[n - OUTPUT_TAIL..].join("\n"));
    out.into()
}
