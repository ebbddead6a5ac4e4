//! The engine's own case files, `test-data/actions/*.cases.md`, in the seeds' style.
//!
//! Each `###` case has fenced blocks told apart by their info string:
//! - `given PATH` (any number): a file written into the empty temp root first, byte for byte;
//!   `given PATH crlf` writes its line breaks as CRLF (markdown cannot hold CRs);
//! - `sh nesl setup` (optional): a reply run first in an empty temp root; every block must
//!   succeed;
//! - `sh nesl` (required; or `csl`, `cml`, `replacer`, `aider`, `apply_patch`, `diff`, `reply`
//!   for the other formats and mixed replies, `tool-call` for JSON read as that format,
//!   forced): the reply under test, run with `--no-git` semantics in that root (paths relative
//!   to it, exec allowed); a `crlf` word writes its line breaks as CRLF (a reply pasted from
//!   Windows);
//! - `json`: the expected `ExecutionResult` (the empty top-level `warnings` left out), with the
//!   temp root written as `{ROOT}` and its parent as `{PARENT}`, and every `modified` time (`ls`)
//!   that is a well-formed ISO-8601 UTC time written as `{MTIME}`;
//! - `file PATH` (any number): the exact expected content of that file afterwards (the text
//!   between the fences; a block ending in an empty line means the file ends with `\n`);
//!   `file PATH crlf` expects its line breaks as CRLF;
//! - `absent PATH`: that path must not exist afterwards;
//! - `text human`, `text llm` (optional): the exact human (no colour) and llm reports.
//!
//! `CLADA_BLESS=1` writes the actual result into the `json` block of failing cases (review the
//! diff before committing).

use crate::engine_support;

use std::fs;
use std::path::{Path, PathBuf};

use clada_engine::action::ExecPolicy;
use engine_support::{pretty, run_reply, run_reply_as, sections};
use serde_json::{json, Value};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../test-data")
}

/// The info string of a reply block: SHAM/NESL or one of the other formats.
fn is_reply(info: &str) -> bool {
    [
        "nesl",
        "csl",
        "cml",
        "replacer",
        "aider",
        "apply_patch",
        "diff",
        "reply",
        "tool-call",
    ]
    .iter()
    .any(|f| info.split_whitespace().any(|w| w == *f))
}

/// The result as JSON with the root replaced by `{ROOT}`.
fn normalised(result: &clada_engine::action::ExecutionResult, root: &Path) -> Value {
    let mut v = serde_json::to_value(result).expect("serialises");
    if let Some(o) = v.as_object_mut() {
        if o.get("warnings") == Some(&json!([])) {
            o.remove("warnings");
        }
    }
    let mut text = serde_json::to_string(&v)
        .expect("serialises")
        .replace(&root.display().to_string(), "{ROOT}");
    if let Some(parent) = root.parent().filter(|p| p.parent().is_some()) {
        text = text.replace(&parent.display().to_string(), "{PARENT}");
    }
    let mut v = serde_json::from_str(&text).expect("still JSON");
    mask_times(&mut v);
    v
}

/// Replaces each `modified` value that is a time in `Date.toISOString()` form with `{MTIME}`
/// (anything else stays, and fails the comparison).
fn mask_times(v: &mut Value) {
    let iso = regex::Regex::new(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$").expect("regex");
    fn walk(v: &mut Value, iso: &regex::Regex) {
        match v {
            Value::Object(o) => {
                for (k, x) in o.iter_mut() {
                    if k == "modified" && x.as_str().is_some_and(|s| iso.is_match(s)) {
                        *x = Value::String("{MTIME}".into());
                    } else {
                        walk(x, iso);
                    }
                }
            }
            Value::Array(a) => a.iter_mut().for_each(|x| walk(x, iso)),
            _ => {}
        }
    }
    walk(v, &iso);
}

/// A `given`/`file` path (or reply info string) and its block's text, with the line breaks
/// as CRLF when the info ends in the word `crlf`.
fn with_crlf<'i>(info: &'i str, text: &str) -> (&'i str, String) {
    match info.trim().strip_suffix(" crlf") {
        Some(p) => (p.trim(), text.replace('\n', "\r\n")),
        None if info.trim() == "crlf" => ("", text.replace('\n', "\r\n")),
        None => (info.trim(), text.to_string()),
    }
}

fn run_file(name: &str) {
    let path = dir().join(name);
    let md = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let secs = sections(&md, "###");
    assert!(!secs.is_empty(), "{name}: no cases");
    let bless = std::env::var_os("CLADA_BLESS").is_some();
    let mut replacements: Vec<((usize, usize), String)> = Vec::new();
    let mut failures = Vec::new();
    let mut passed = 0;
    for sec in &secs {
        let case = format!("{name} / {}", sec.heading);
        let tmp = tempfile::tempdir().expect("temp dir");
        let root = fs::canonicalize(tmp.path()).expect("canonical root");
        let find = |pred: &dyn Fn(&str) -> bool| {
            sec.infos
                .iter()
                .enumerate()
                .filter(|(_, i)| pred(i))
                .map(|(k, _)| k)
                .collect::<Vec<_>>()
        };
        for (k, info) in sec.infos.iter().enumerate() {
            if let Some(p) = info.strip_prefix("given ") {
                let (p, bytes) = with_crlf(p, &sec.blocks[k]);
                let path = root.join(p);
                if let Some(parent) = path.parent() {
                    fs::create_dir_all(parent).expect("mkdir given");
                }
                fs::write(&path, bytes).expect("write given");
            }
        }
        let setup = find(&|i| is_reply(i) && i.ends_with("setup"));
        let reply = find(&|i| is_reply(i) && !i.ends_with("setup"));
        let expected = find(&|i| i == "json");
        if reply.len() != 1 || expected.len() != 1 {
            failures.push(format!(
                "{case}: needs exactly one reply and one json block"
            ));
            continue;
        }
        for &k in &setup {
            let out = run_reply(&sec.blocks[k], &root, false, ExecPolicy::Allow);
            if !out.result.success {
                failures.push(format!(
                    "{case}: setup failed:\n{}",
                    pretty(&serde_json::to_value(&out.result).unwrap_or_default())
                ));
            }
        }
        // The tool-call format is read only when forced, as the MCP server and
        // `--dialect tool-call` force it.
        let dialect = match sec.infos[reply[0]].as_str() {
            "tool-call" => clada_read::Dialect::Only(clada_read::Format::TOOL_CALL),
            _ => clada_read::Dialect::Auto,
        };
        let (_, reply_text) = with_crlf(&sec.infos[reply[0]], &sec.blocks[reply[0]]);
        let out = run_reply_as(&reply_text, &root, false, ExecPolicy::Allow, dialect);
        let actual = normalised(&out.result, &root);
        let k = expected[0];
        let want: Value = match serde_json::from_str(&sec.blocks[k]) {
            Ok(v) => v,
            Err(e) if bless => {
                let _ = e;
                Value::Null
            }
            Err(e) => {
                failures.push(format!("{case}: expected JSON does not parse: {e}"));
                continue;
            }
        };
        let mut ok = true;
        if actual != want {
            ok = false;
            if bless {
                replacements.push((sec.spans[k], pretty(&actual)));
            }
            failures.push(format!(
                "{case}: result differs\nexpected:\n{}\nactual:\n{}",
                pretty(&want),
                pretty(&actual)
            ));
        }
        for (k, info) in sec.infos.iter().enumerate() {
            let format = match info.as_str() {
                "text human" => Some(clada_engine::report::ReportFormat::Human),
                "text llm" => Some(clada_engine::report::ReportFormat::Llm),
                _ => None,
            };
            if let Some(format) = format {
                let mut text = clada_engine::report::render(&out.result, format, false)
                    .replace(&root.display().to_string(), "{ROOT}");
                if let Some(parent) = root.parent().filter(|p| p.parent().is_some()) {
                    text = text.replace(&parent.display().to_string(), "{PARENT}");
                }
                let got = text.trim_end_matches('\n');
                if got != sec.blocks[k] {
                    ok = false;
                    if bless {
                        replacements.push((sec.spans[k], got.to_string()));
                    }
                    failures.push(format!(
                        "{case}: {info}\nexpected:\n{}\nactual:\n{got}",
                        sec.blocks[k]
                    ));
                }
            }
            if let Some(p) = info.strip_prefix("file ") {
                let (p, want) = with_crlf(p, &sec.blocks[k]);
                let got = fs::read(root.join(p))
                    .map(|b| String::from_utf8_lossy(&b).into_owned())
                    .unwrap_or_else(|e| format!("<unreadable: {e}>"));
                if got != want {
                    ok = false;
                    failures.push(format!(
                        "{case}: file {p}\nexpected {:?}\nactual   {got:?}",
                        sec.blocks[k]
                    ));
                }
            }
            if let Some(p) = info.strip_prefix("absent ") {
                if fs::symlink_metadata(root.join(p.trim())).is_ok() {
                    ok = false;
                    failures.push(format!("{case}: {p} should not exist"));
                }
            }
        }
        if ok {
            passed += 1;
        }
    }
    if bless && !replacements.is_empty() {
        let mut lines: Vec<String> = md.split('\n').map(String::from).collect();
        replacements.sort_by_key(|(span, _)| std::cmp::Reverse(span.0));
        for ((start, end), text) in replacements {
            lines.splice(start..end, text.split('\n').map(String::from));
        }
        fs::write(&path, lines.join("\n")).expect("rewrite case file");
    }
    println!("{name}: {passed} of {} cases passed", secs.len());
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn write_cases() {
    run_file("actions/write.cases.md");
}

#[test]
fn text_cases() {
    run_file("actions/text.cases.md");
}

#[test]
fn lines_cases() {
    run_file("actions/lines.cases.md");
}

#[test]
fn read_cases() {
    run_file("actions/read.cases.md");
}

#[test]
fn search_cases() {
    run_file("actions/search.cases.md");
}

#[test]
fn validation_cases() {
    run_file("actions/validation.cases.md");
}

#[test]
fn exec_cases() {
    run_file("actions/exec.cases.md");
}

#[test]
fn csl_cases() {
    run_file("formats/csl.cases.md");
}

#[test]
fn cml_cases() {
    run_file("formats/cml.cases.md");
}

#[test]
fn replacer_cases() {
    run_file("formats/replacer.cases.md");
}

#[test]
fn tool_call_cases() {
    run_file("formats/tool-call.cases.md");
}

#[test]
fn aider_cases() {
    run_file("formats/aider.cases.md");
}

#[test]
fn apply_patch_cases() {
    run_file("formats/apply_patch.cases.md");
}

#[test]
fn diff_cases() {
    run_file("formats/diff.cases.md");
}

#[test]
fn mixed_format_cases() {
    run_file("formats/mixed.cases.md");
}

#[test]
fn patch_cases() {
    run_file("actions/patch.cases.md");
}

#[test]
fn planned_cases() {
    run_file("actions/planned.cases.md");
}

#[test]
fn session_cases() {
    run_file("actions/session.cases.md");
}
