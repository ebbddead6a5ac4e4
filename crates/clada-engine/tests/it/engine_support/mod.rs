//! Helpers shared by the engine's test harnesses: reading markdown case files the way the
//! original project's harness did (CommonMark fenced code blocks, `marked` semantics), running a
//! reply through the engine without git, and comparing JSON.

#![allow(dead_code)]

use std::path::Path;

use clada_engine::action::{self, EngineOptions, ExecPolicy, Execution};
use clada_engine::sandbox::Sandbox;
use clada_read::Dialect;
use serde_json::Value;

/// A markdown section: its heading text and the fenced code blocks under it.
#[derive(Debug, Clone)]
pub struct Section {
    pub heading: String,
    pub blocks: Vec<String>,
    /// Per block: the info string after the opening fence.
    pub infos: Vec<String>,
    /// Per block: 0-based line indexes of the body, `start..end` (between the fences).
    pub spans: Vec<(usize, usize)>,
}

/// Removes HTML comments (`<!-- … -->`); fences inside them are not code blocks.
pub fn strip_html_comments(md: &str) -> String {
    let mut out = String::with_capacity(md.len());
    let mut rest = md;
    while let Some(start) = rest.find("<!--") {
        out.push_str(&rest[..start]);
        match rest[start..].find("-->") {
            Some(end) => rest = &rest[start + end + 3..],
            None => {
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

fn fence_open(line: &str) -> Option<usize> {
    let indent = line.len() - line.trim_start_matches(' ').len();
    if indent > 3 {
        return None;
    }
    let t = &line[indent..];
    let n = t.bytes().take_while(|&b| b == b'`').count();
    (n >= 3 && !t[n..].contains('`')).then_some(n)
}

fn fence_close(line: &str, open: usize) -> bool {
    let t = line.trim();
    let n = t.bytes().take_while(|&b| b == b'`').count();
    n >= open && n == t.len() && line.len() - line.trim_start_matches(' ').len() <= 3
}

/// Splits a document at headings of exactly `level` (`"##"`, `"###"`) outside code blocks;
/// each section holds the code blocks that follow its heading. A block's text is the lines
/// between the fences joined by `\n`, without the line break before the closing fence.
pub fn sections(md: &str, level: &str) -> Vec<Section> {
    let mut out: Vec<Section> = Vec::new();
    let mut lines = md
        .split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .enumerate();
    while let Some((i, line)) = lines.next() {
        if let Some(n) = fence_open(line) {
            let info = line.trim_start_matches(' ')[n..].trim().to_string();
            let mut body = Vec::new();
            let mut end = i + 1;
            for (j, l) in lines.by_ref() {
                end = j;
                if fence_close(l, n) {
                    break;
                }
                body.push(l);
                end = j + 1;
            }
            if let Some(s) = out.last_mut() {
                s.blocks.push(body.join("\n"));
                s.infos.push(info);
                s.spans.push((i + 1, end));
            }
            continue;
        }
        let hashes = line.bytes().take_while(|&b| b == b'#').count();
        if hashes == level.len() && line[hashes..].starts_with(' ') {
            out.push(Section {
                heading: line[hashes..].trim().to_string(),
                blocks: Vec::new(),
                infos: Vec::new(),
                spans: Vec::new(),
            });
        }
    }
    out
}

/// Every fenced code block of a document, in order.
pub fn code_blocks(md: &str) -> Vec<String> {
    let wrapped = format!("# all\n{md}");
    sections(&wrapped, "#")
        .into_iter()
        .flat_map(|s| s.blocks)
        .collect()
}

/// Headings of one level, in order.
pub fn headings(md: &str, level: &str) -> Vec<String> {
    sections(md, level).into_iter().map(|s| s.heading).collect()
}

/// Parses and runs a reply in `root` with the engine alone (no git).
pub fn run_reply(text: &str, root: &Path, allow_outside: bool, exec: ExecPolicy) -> Execution {
    run_reply_as(text, root, allow_outside, exec, Dialect::Auto)
}

/// [`run_reply`] reading the reply in `dialect` (a forced format, such as `tool-call`).
pub fn run_reply_as(
    text: &str,
    root: &Path,
    allow_outside: bool,
    exec: ExecPolicy,
    dialect: Dialect,
) -> Execution {
    let sandbox = Sandbox::new(root, allow_outside).expect("temp root exists");
    let parsed = clada_read::parse(text, dialect);
    let plan = action::plan(&parsed, &sandbox);
    let opts = EngineOptions {
        exec,
        ..EngineOptions::default()
    };
    action::execute(&plan, &sandbox, &opts)
}

/// A result projected onto the original `{success, error?, data?}` shape plus this project's
/// extension fields (`hint`, `warnings`), so extensions show up as differences unless expected.
pub fn result_shape(r: &action::ActionResult) -> Value {
    let mut m = serde_json::Map::new();
    m.insert("success".into(), Value::Bool(r.success));
    if let Some(e) = &r.error {
        m.insert("error".into(), Value::String(e.clone()));
    }
    if let Some(d) = &r.data {
        m.insert("data".into(), d.clone());
    }
    if let Some(h) = &r.hint {
        m.insert(
            "hint".into(),
            serde_json::to_value(h).expect("hint serialises"),
        );
    }
    if !r.warnings.is_empty() {
        m.insert(
            "warnings".into(),
            serde_json::to_value(&r.warnings).expect("strings"),
        );
    }
    Value::Object(m)
}

/// Pretty JSON for failure messages.
pub fn pretty(v: &Value) -> String {
    serde_json::to_string_pretty(v).unwrap_or_default()
}
