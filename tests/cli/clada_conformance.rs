//! The original project's action test data (`../shared/conformance/clada/`), run through the
//! engine in no-git mode with absolute paths allowed, following the harness rules of
//! `conformance/README.md`.
//!
//! Every case writes below `/tmp/…`; the harness rewrites the `/tmp/` prefix to a fresh temp
//! directory per case, in the input and in the expected output, so suites can run in parallel.
//! Cases where this project deliberately behaves better (DESIGN) are listed in
//! `test-data/clada/DIVERGENCES.md`; their expected output is checked in under
//! `test-data/clada/overrides/<suite>/<case>.json` (and `.contents` for file contents) and used
//! instead of the original's. `CLADA_BLESS=1` rewrites the override of a *listed* case from the
//! current output (review the diff before committing it).

use crate::common;

use crate::engine_support;

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

use clada_engine::action::fsx::format_node_error;
use clada_engine::action::read::{extract_numbered, SpecError};
use clada_engine::action::schema::{self, ActionDef, Kind, OutputDisplay, ParamDef, ParamType};
use clada_engine::action::textmatch::replace_text;
use clada_engine::action::{self, ExecPolicy};
use clada_engine::exec::spawn::{command_for, run_command, ExecOutput};
use clada_engine::sandbox::Sandbox;
use clada_read::Dialect;
use engine_support::{code_blocks, headings, pretty, result_shape, run_reply, sections};
use indexmap::IndexMap;
use serde_json::{json, Value};

fn shared() -> PathBuf {
    common::shared_conformance("clada").expect("each test checks that the data is there")
}

fn own() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("test-data/clada")
}

fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// Pass/fail bookkeeping of one suite.
struct Tally {
    suite: String,
    passed: usize,
    /// Passed against a checked-in divergence.
    diverged: usize,
    failures: Vec<String>,
}

impl Tally {
    fn new(suite: &str) -> Tally {
        Tally {
            suite: suite.to_string(),
            passed: 0,
            diverged: 0,
            failures: Vec::new(),
        }
    }

    fn check(&mut self, case: &str, ok: bool, overridden: bool, detail: impl FnOnce() -> String) {
        if ok {
            self.passed += 1;
            if overridden {
                self.diverged += 1;
            }
        } else {
            self.failures
                .push(format!("{}/{case}: {}", self.suite, detail()));
        }
    }

    fn finish(self) {
        println!(
            "{}: {} passed ({} as documented divergences), {} failed",
            self.suite,
            self.passed,
            self.diverged,
            self.failures.len()
        );
        assert!(
            self.failures.is_empty(),
            "{} case(s) failed:\n\n{}",
            self.failures.len(),
            self.failures.join("\n\n")
        );
    }
}

/// Rewrites `/tmp/` to the case's temp dir (and back, for blessing).
struct Tmp {
    dir: tempfile::TempDir,
}

impl Tmp {
    fn new() -> Tmp {
        Tmp {
            dir: tempfile::tempdir().expect("temp dir"),
        }
    }
    fn path(&self) -> &Path {
        self.dir.path()
    }
    fn prefix(&self) -> String {
        format!("{}/", self.dir.path().display())
    }
    fn to_tmp(&self, s: &str) -> String {
        s.replace("/tmp/", &self.prefix())
    }
    fn back_to_tmp(&self, s: &str) -> String {
        s.replace(&self.prefix(), "/tmp/")
    }
}

fn divergences_doc() -> String {
    read(&own().join("DIVERGENCES.md"))
}

fn override_path(suite: &str, case: &str, ext: &str) -> PathBuf {
    own()
        .join("overrides")
        .join(suite)
        .join(format!("{case}.{ext}"))
}

/// The expected JSON: the checked-in divergence if there is one, else the original.
fn expected(suite: &str, case: &str, original: &str, tmp: &Tmp) -> (Value, bool) {
    expected_in(suite, case, original, Some(tmp))
}

/// As [`expected`]; `None` for cases that touch no files (no `/tmp/` rewrite).
fn expected_in(suite: &str, case: &str, original: &str, tmp: Option<&Tmp>) -> (Value, bool) {
    let p = override_path(suite, case, "json");
    let (text, overridden) = if p.exists() {
        (read(&p), true)
    } else {
        (original.to_string(), false)
    };
    let text = match tmp {
        Some(t) => t.to_tmp(&text),
        None => text,
    };
    let v = serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("{suite}/{case}: expected JSON does not parse: {e}"));
    (v, overridden)
}

fn bless(suite: &str, case: &str, ext: &str, actual: &str, tmp: &Tmp) {
    if std::env::var_os("CLADA_BLESS").is_none() {
        return;
    }
    if !divergences_doc().contains(&format!("`{suite}/{case}`")) {
        return;
    }
    let p = override_path(suite, case, ext);
    fs::create_dir_all(p.parent().expect("has parent")).expect("mkdir overrides");
    fs::write(&p, tmp.back_to_tmp(actual)).expect("write override");
}

fn mismatch(expected: &Value, actual: &Value) -> String {
    format!(
        "expected:\n{}\nactual:\n{}",
        pretty(expected),
        pretty(actual)
    )
}

// ---------------------------------------------------------------------------------------------
// fs-ops integration suites

#[derive(Clone, Copy)]
enum Layout {
    /// setup, action, expected JSON
    ActionResult,
    /// setup, action, expected JSON, optional file contents (2 blocks: setup+action, expected)
    ReplaceContents,
    /// action, expected JSON, optional file contents
    WriteContents,
}

/// The `path` values of the blocks of a NESL text, in order.
fn path_params(text: &str) -> Vec<String> {
    clada_read::parse(text, Dialect::Auto)
        .blocks
        .iter()
        .filter_map(|b| b.properties.get("path").cloned())
        .collect()
}

fn fs_ops_suite(rel: &str, layout: Layout) {
    let file = shared()
        .join("proj/comp/fs-ops/test-data/integration")
        .join(rel);
    let stem = file
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(|n| n.strip_suffix(".cases.md"))
        .expect("case file name");
    let mut tally = Tally::new(stem);
    let md = read(&file);
    let secs = sections(&md, "###");
    assert!(!secs.is_empty(), "{rel}: no cases found");
    for sec in secs {
        let tmp = Tmp::new();
        let b: Vec<String> = sec.blocks.iter().map(|s| tmp.to_tmp(s)).collect();
        let orig: Vec<&String> = sec.blocks.iter().collect();
        let (setup, action, exp_raw, contents) = match (layout, b.len()) {
            (Layout::ActionResult, n) if n >= 3 => (b[0].clone(), b[1].clone(), orig[2], None),
            (Layout::ReplaceContents, 2) => (String::new(), b[0].clone(), orig[1], None),
            (Layout::ReplaceContents, n) if n >= 3 => {
                (b[0].clone(), b[1].clone(), orig[2], b.get(3).cloned())
            }
            (Layout::WriteContents, n) if n >= 2 => {
                (String::new(), b[0].clone(), orig[1], b.get(2).cloned())
            }
            _ => {
                tally.check(&sec.heading, false, false, || {
                    "unexpected block layout".into()
                });
                continue;
            }
        };
        if !setup.trim().is_empty() {
            run_reply(&setup, tmp.path(), true, ExecPolicy::Deny);
        }
        let exec = run_reply(&action, tmp.path(), true, ExecPolicy::Deny);
        let Some(last) = exec.result.results.last() else {
            tally.check(&sec.heading, false, false, || {
                format!(
                    "the action block produced no result; parse errors: {:?}",
                    exec.result.parse_errors
                )
            });
            continue;
        };
        let actual = result_shape(last);
        let (want, overridden) = expected(stem, &sec.heading, exp_raw, &tmp);
        if actual != want {
            bless(stem, &sec.heading, "json", &pretty(&actual), &tmp);
            tally.check(&sec.heading, false, overridden, || mismatch(&want, &actual));
            continue;
        }
        // File contents, when the case has them and the action succeeded.
        let contents_override = override_path(stem, &sec.heading, "contents");
        let contents = if contents_override.exists() {
            Some(tmp.to_tmp(&read(&contents_override)))
        } else {
            contents
        };
        let overridden = overridden || contents_override.exists();
        if let (Some(want_text), Some(true)) = (contents, want["success"].as_bool()) {
            let target = path_params(&setup)
                .last()
                .cloned()
                .or_else(|| path_params(&action).first().cloned());
            let Some(target) = target else {
                tally.check(&sec.heading, false, overridden, || "no target path".into());
                continue;
            };
            let got = fs::read_to_string(&target).unwrap_or_else(|e| format!("<unreadable: {e}>"));
            if got != want_text {
                bless(stem, &sec.heading, "contents", &got, &tmp);
                tally.check(&sec.heading, false, overridden, || {
                    format!("file contents of {target}:\nexpected {want_text:?}\nactual   {got:?}")
                });
                continue;
            }
        }
        tally.check(&sec.heading, true, overridden, String::new);
    }
    tally.finish();
}

#[test]
#[cfg_attr(
    not(has_shared),
    ignore = "needs the conformance data ../shared/conformance (or CLADA_SHARED)"
)]
fn fs_ops_file_write() {
    if common::shared_conformance("clada").is_none() {
        return;
    }
    fs_ops_suite(
        "write_result_contents/file_write.cases.md",
        Layout::WriteContents,
    );
}

#[test]
#[cfg_attr(
    not(has_shared),
    ignore = "needs the conformance data ../shared/conformance (or CLADA_SHARED)"
)]
fn fs_ops_file_replace_text() {
    if common::shared_conformance("clada").is_none() {
        return;
    }
    fs_ops_suite(
        "write_replace_result_contents/file_replace_text.cases.md",
        Layout::ReplaceContents,
    );
}

#[test]
#[cfg_attr(
    not(has_shared),
    ignore = "needs the conformance data ../shared/conformance (or CLADA_SHARED)"
)]
fn fs_ops_file_replace_lines() {
    if common::shared_conformance("clada").is_none() {
        return;
    }
    fs_ops_suite(
        "write_replace_result_contents/file_replace_lines.cases.md",
        Layout::ReplaceContents,
    );
}

#[test]
#[cfg_attr(
    not(has_shared),
    ignore = "needs the conformance data ../shared/conformance (or CLADA_SHARED)"
)]
fn fs_ops_file_read() {
    if common::shared_conformance("clada").is_none() {
        return;
    }
    fs_ops_suite(
        "write_action_result/file_read.cases.md",
        Layout::ActionResult,
    );
}

#[test]
#[cfg_attr(
    not(has_shared),
    ignore = "needs the conformance data ../shared/conformance (or CLADA_SHARED)"
)]
fn fs_ops_file_read_numbered() {
    if common::shared_conformance("clada").is_none() {
        return;
    }
    fs_ops_suite(
        "write_action_result/file_read_numbered.cases.md",
        Layout::ActionResult,
    );
}

#[test]
#[cfg_attr(
    not(has_shared),
    ignore = "needs the conformance data ../shared/conformance (or CLADA_SHARED)"
)]
fn fs_ops_files_read() {
    if common::shared_conformance("clada").is_none() {
        return;
    }
    fs_ops_suite(
        "write_action_result/files_read.cases.md",
        Layout::ActionResult,
    );
}

#[test]
#[cfg_attr(
    not(has_shared),
    ignore = "needs the conformance data ../shared/conformance (or CLADA_SHARED)"
)]
fn fs_ops_file_delete() {
    if common::shared_conformance("clada").is_none() {
        return;
    }
    fs_ops_suite(
        "write_action_result/file_delete.cases.md",
        Layout::ActionResult,
    );
}

#[test]
#[cfg_attr(
    not(has_shared),
    ignore = "needs the conformance data ../shared/conformance (or CLADA_SHARED)"
)]
fn fs_ops_file_move() {
    if common::shared_conformance("clada").is_none() {
        return;
    }
    fs_ops_suite(
        "write_action_result/file_move.cases.md",
        Layout::ActionResult,
    );
}

// ---------------------------------------------------------------------------------------------
// Orchestrator: whole ExecutionResults

/// The machine-readable fields we add to every failed result (`code`, `needsUser`) and parse
/// error (`code`, and seed 000's `param`, `expected`, `actual`, `availableActions`), which the
/// original data predates (DIVERGENCES.md): dropped before comparing with it.
fn strip_codes(v: &mut Value) {
    for key in ["results", "parseErrors", "errors"] {
        for item in v
            .get_mut(key)
            .and_then(Value::as_array_mut)
            .into_iter()
            .flatten()
        {
            if let Some(obj) = item.as_object_mut() {
                for field in [
                    "code",
                    "needsUser",
                    "param",
                    "expected",
                    "actual",
                    "availableActions",
                ] {
                    obj.shift_remove(field);
                }
            }
        }
    }
}

/// Our JSON always carries a top-level `warnings` array (an extension); when empty it says
/// nothing the original shape did not, so it is dropped before comparing. Our `params` start
/// with `action` (seed 000's ActionResult: "all SHAM properties including 'action'"), which the
/// HEAD data left out: it must equal the result's `action` and is then dropped too.
fn normalise_execution(mut v: Value) -> Value {
    strip_codes(&mut v);
    if let Some(obj) = v.as_object_mut() {
        if obj.get("warnings") == Some(&json!([])) {
            obj.remove("warnings");
        }
        for r in obj
            .get_mut("results")
            .and_then(Value::as_array_mut)
            .into_iter()
            .flatten()
        {
            let action = r.get("action").cloned();
            let echoed = r
                .get_mut("params")
                .and_then(Value::as_object_mut)
                .and_then(|p| p.shift_remove("action"));
            assert_eq!(echoed, action, "params.action must echo the action: {r}");
        }
    }
    v
}

#[test]
#[cfg_attr(
    not(has_shared),
    ignore = "needs the conformance data ../shared/conformance (or CLADA_SHARED)"
)]
fn orch_execute_basic_operations() {
    if common::shared_conformance("clada").is_none() {
        return;
    }
    let suite = "basic-operations";
    let md = read(&shared().join("proj/comp/orch/test-data/execute/basic-operations.md"));
    let blocks = code_blocks(&md);
    let names = headings(&md, "###");
    assert_eq!(blocks.len(), names.len() * 2, "two code blocks per case");
    let mut tally = Tally::new(suite);
    for (i, name) in names.iter().enumerate() {
        let tmp = Tmp::new();
        let input = tmp.to_tmp(&blocks[2 * i]);
        let exec = run_reply(&input, tmp.path(), true, ExecPolicy::Allow);
        let actual = normalise_execution(serde_json::to_value(&exec.result).expect("serialises"));
        let (want, overridden) = expected(suite, name, &blocks[2 * i + 1], &tmp);
        if actual != want {
            bless(suite, name, "json", &pretty(&actual), &tmp);
        }
        tally.check(name, actual == want, overridden, || {
            mismatch(&want, &actual)
        });
    }
    tally.finish();
}

// ---------------------------------------------------------------------------------------------
// Parser / transform / validate

#[test]
#[cfg_attr(
    not(has_shared),
    ignore = "needs the conformance data ../shared/conformance (or CLADA_SHARED)"
)]
fn parser_parse_nesl_response() {
    if common::shared_conformance("clada").is_none() {
        return;
    }
    let suite = "parseNeslResponse";
    let md = read(&shared().join("proj/comp/nesl-action-parser/test-data/parseNeslResponse.md"));
    let blocks = code_blocks(&md);
    let names = headings(&md, "###");
    assert_eq!(blocks.len(), names.len() * 2);
    let mut tally = Tally::new(suite);
    for (i, name) in names.iter().enumerate() {
        let tmp = Tmp::new();
        let sandbox = Sandbox::new(tmp.path(), true).expect("sandbox");
        let parsed = clada_read::parse(&tmp.to_tmp(&blocks[2 * i]), Dialect::Auto);
        let plan = action::plan(&parsed, &sandbox);
        let actions: Vec<Value> = plan
            .actions
            .iter()
            .map(|a| {
                json!({
                    "action": a.action,
                    "parameters": a.params,
                    "metadata": {
                        "blockId": a.block_id,
                        "startLine": a.start_line,
                        "endLine": a.end_line.unwrap_or(a.start_line),
                    }
                })
            })
            .collect();
        let mut actual = json!({
            "actions": actions,
            "errors": plan.errors,
            "summary": {
                "totalBlocks": plan.total_blocks,
                "successCount": plan.actions.len(),
                "errorCount": plan.errors.len(),
            }
        });
        strip_codes(&mut actual);
        let (want, overridden) = expected(suite, name, &blocks[2 * i + 1], &tmp);
        if actual != want {
            bless(suite, name, "json", &pretty(&actual), &tmp);
        }
        tally.check(name, actual == want, overridden, || {
            mismatch(&want, &actual)
        });
    }
    tally.finish();
}

/// The original's action definition shape (`type`, `parameters{type, required, format,
/// values}`) as one of ours.
fn action_def(v: &Value) -> ActionDef {
    let kind = match v["type"].as_str() {
        Some("write") => Kind::Write,
        Some("dynamic") => Kind::Run,
        _ => Kind::Read,
    };
    let mut params = IndexMap::new();
    if let Some(obj) = v["parameters"].as_object() {
        for (name, p) in obj {
            let ty = match p["type"].as_str() {
                Some("integer") => ParamType::Integer,
                Some("boolean") => ParamType::Boolean,
                Some("enum") => ParamType::Enum,
                _ => ParamType::String,
            };
            params.insert(
                name.clone(),
                ParamDef {
                    ty,
                    required: p["required"].as_bool().unwrap_or(false),
                    default: p["default"].as_str().map(String::from),
                    values: p["values"]
                        .as_array()
                        .map(|a| {
                            a.iter()
                                .filter_map(|x| x.as_str().map(String::from))
                                .collect()
                        })
                        .unwrap_or_default(),
                    min: None,
                    path: None,
                    description: None,
                },
            );
        }
    }
    ActionDef {
        kind,
        primary: None,
        output: OutputDisplay::Always,
        description: String::new(),
        params,
        example: None,
    }
}

fn properties(block: &Value) -> IndexMap<String, String> {
    block["properties"]
        .as_object()
        .map(|o| {
            o.iter()
                .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string()))
                .collect()
        })
        .unwrap_or_default()
}

fn json_cases(rel: &str) -> Vec<Value> {
    let v: Value = serde_json::from_str(&read(&shared().join(rel))).expect("case file parses");
    v["cases"].as_array().cloned().expect("cases array")
}

#[test]
#[cfg_attr(
    not(has_shared),
    ignore = "needs the conformance data ../shared/conformance (or CLADA_SHARED)"
)]
fn parser_transform_to_action() {
    if common::shared_conformance("clada").is_none() {
        return;
    }
    let suite = "transformToAction";
    let mut tally = Tally::new(suite);
    for case in json_cases("proj/comp/nesl-action-parser/test-data/transformToAction.json") {
        let name = case["name"].as_str().unwrap_or_default().to_string();
        let block = &case["input"][0];
        let def = action_def(&case["input"][1]);
        let props = properties(block);
        let action = props.get("action").cloned().unwrap_or_default();
        let outcome = schema::validate_with(&action, &props, &def);
        if let Some(throws) = case["throws"].as_str() {
            // TransformError = a parameter that does not convert: our `type` errors.
            let ok = throws == "TransformError"
                && matches!(&outcome, Err(e) if e.error_type() == schema::ErrorType::Type);
            tally.check(&name, ok, false, || {
                format!("expected {throws}, got {outcome:?}")
            });
            continue;
        }
        let actual = match outcome {
            Ok(v) => json!({
                "action": v.action,
                "parameters": v.params,
                "metadata": {
                    "blockId": block["id"],
                    "startLine": block["startLine"],
                    "endLine": block["endLine"],
                }
            }),
            Err(e) => json!({"error": e.to_string()}),
        };
        let (want, overridden) = expected_in(suite, &name, &case["expected"].to_string(), None);
        tally.check(&name, actual == want, overridden, || {
            mismatch(&want, &actual)
        });
    }
    tally.finish();
}

#[test]
#[cfg_attr(
    not(has_shared),
    ignore = "needs the conformance data ../shared/conformance (or CLADA_SHARED)"
)]
fn parser_validate_nesl_block() {
    if common::shared_conformance("clada").is_none() {
        return;
    }
    let suite = "validateNeslBlock";
    let mut tally = Tally::new(suite);
    let tmp = Tmp::new();
    for case in json_cases("proj/comp/nesl-action-parser/test-data/validateNeslBlock.json") {
        let name = case["name"].as_str().unwrap_or_default().to_string();
        let props = properties(&case["input"][0]);
        let outcome = if case["input"][1].is_null() {
            schema::validate(&props, schema::schema()).map(|v| v.action)
        } else {
            let def = action_def(&case["input"][1]);
            let action = props.get("action").cloned().unwrap_or_default();
            schema::validate_with(&action, &props, &def).map(|v| v.action)
        };
        let actual = match outcome {
            Ok(a) => json!({"valid": true, "actionType": a, "errors": []}),
            Err(e) => json!({"valid": false, "errors": [e.to_string()]}),
        };
        let (want, overridden) = expected_in(suite, &name, &case["expected"].to_string(), None);
        if actual != want {
            bless(suite, &name, "json", &pretty(&actual), &tmp);
        }
        tally.check(&name, actual == want, overridden, || {
            mismatch(&want, &actual)
        });
    }
    tally.finish();
}

// ---------------------------------------------------------------------------------------------
// Unit data that maps onto our functions

#[test]
#[cfg_attr(
    not(has_shared),
    ignore = "needs the conformance data ../shared/conformance (or CLADA_SHARED)"
)]
fn unit_extract_numbered_lines() {
    if common::shared_conformance("clada").is_none() {
        return;
    }
    let mut tally = Tally::new("extractNumberedLines");
    for case in
        json_cases("derived/proj/comp/fs-ops/test-data/unit/extractNumberedLines.cases.json")
    {
        let name = case["name"].as_str().unwrap_or_default().to_string();
        let i = &case["input"];
        let got = extract_numbered(
            i[0].as_str().unwrap_or_default(),
            i[1].as_str(),
            i[2].as_str().unwrap_or_default(),
        );
        if let Some(throws) = case["throws"].as_str() {
            let spec = i[1].as_str().unwrap_or_default();
            let msg = match got {
                Err(SpecError::Invalid) => format!("Invalid line specification '{spec}'"),
                Err(SpecError::Reversed) => {
                    format!("Invalid line range '{spec}' (start must be <= end)")
                }
                Ok(n) => format!("no error: {n:?}"),
            };
            tally.check(&name, msg == throws, false, || {
                format!("expected {throws:?}, got {msg:?}")
            });
            continue;
        }
        let actual = match got {
            Ok(n) => {
                let mut v = json!({"result": n.result, "lineCount": n.line_count});
                if let Some((requested, actual)) = n.out_of_range {
                    v["outOfRange"] = json!({"requested": requested, "actual": actual});
                }
                v
            }
            Err(e) => json!({"error": format!("{e:?}")}),
        };
        let want = &case["expected"];
        tally.check(&name, &actual == want, false, || mismatch(want, &actual));
    }
    tally.finish();
}

#[test]
#[cfg_attr(
    not(has_shared),
    ignore = "needs the conformance data ../shared/conformance (or CLADA_SHARED)"
)]
fn unit_replace_text() {
    if common::shared_conformance("clada").is_none() {
        return;
    }
    let mut tally = Tally::new("replaceText");
    for case in json_cases("derived/proj/comp/fs-ops/test-data/unit/replaceText.cases.json") {
        let name = case["name"].as_str().unwrap_or_default().to_string();
        let i = &case["input"];
        let got = replace_text(
            i[0].as_str().unwrap_or_default(),
            i[1].as_str().unwrap_or_default(),
            i[2].as_str().unwrap_or_default(),
            i[3].as_u64().map(|n| n as usize),
        );
        match (case["throws"].as_str(), got) {
            (Some(throws), Err(msg)) => {
                tally.check(&name, msg == throws, false, || format!("{msg} != {throws}"))
            }
            (None, Ok((result, n))) => {
                let actual = json!({"result": result, "replacements": n});
                let want = &case["expected"];
                tally.check(&name, &actual == want, false, || mismatch(want, &actual));
            }
            (t, g) => tally.check(&name, false, false, || format!("throws {t:?}, got {g:?}")),
        }
    }
    tally.finish();
}

#[test]
#[cfg_attr(
    not(has_shared),
    ignore = "needs the conformance data ../shared/conformance (or CLADA_SHARED)"
)]
fn unit_format_node_error() {
    if common::shared_conformance("clada").is_none() {
        return;
    }
    let mut tally = Tally::new("formatNodeError");
    for case in json_cases("proj/comp/fs-ops/test-data/unit/formatNodeError.cases.json") {
        let name = case["name"].as_str().unwrap_or_default().to_string();
        let i = &case["input"];
        let got = format_node_error(
            i[0]["code"].as_str(),
            i[0]["message"].as_str(),
            i[1].as_str().unwrap_or_default(),
            i[2].as_str().unwrap_or_default(),
            i[3].as_str(),
        );
        let want = case["expected"].as_str().unwrap_or_default();
        tally.check(&name, got == want, false, || format!("{got:?} != {want:?}"));
    }
    tally.finish();
}

// ---------------------------------------------------------------------------------------------
// exec (tier B: placeholders and platform caveats)

/// Subset match (`toMatchObject`) with the suites' placeholders.
fn matches_object(want: &Value, got: &Value) -> bool {
    match (want, got) {
        (Value::Object(w), Value::Object(g)) => w
            .iter()
            .all(|(k, wv)| g.get(k).is_some_and(|gv| matches_object(wv, gv))),
        (Value::String(w), Value::String(g)) => match w.as_str() {
            "{SYNTAX_ERROR_OUTPUT}" | "{SYNTAX_ERROR_WITH_TRACEBACK}" => g.contains("SyntaxError"),
            _ => {
                let home = std::env::var("HOME").unwrap_or_default();
                let tmp = fs::canonicalize("/tmp")
                    .map(|p| p.display().to_string())
                    .unwrap_or_else(|_| "/tmp".into());
                w.replace("{HOME_VALUE}", &home).replace("{TMP_PATH}", &tmp) == *g
            }
        },
        _ => want == got,
    }
}

/// The NESL-ish exec blocks are not all valid NESL: `timeout = 200` is unquoted (milliseconds,
/// passed straight to the component upstream) and one value has `\$`, which JSON lacks and
/// which the original harness passed to bash as is (the case expects bash to see `\$`). Both
/// are made valid before parsing.
fn exec_props(text: &str) -> IndexMap<String, String> {
    let re = regex::Regex::new(r#"(?m)^timeout = (\d+)$"#).expect("regex");
    let text = re
        .replace_all(text, "timeout = \"$1\"")
        .replace("\\$", "\\\\$");
    clada_read::parse(&text, Dialect::Auto)
        .blocks
        .first()
        .map(|b| b.properties.clone())
        .unwrap_or_default()
}

fn exec_suite(file: &str) {
    let stem = file.trim_end_matches(".cases.md");
    let md = engine_support::strip_html_comments(&read(
        &shared()
            .join("proj/comp/exec/test-data/integration")
            .join(file),
    ));
    let mut tally = Tally::new(stem);
    let tmp = Tmp::new();
    for sec in sections(&md, "##") {
        if sec.blocks.len() < 2 {
            continue;
        }
        let p = exec_props(&sec.blocks[0]);
        let get = |k: &str| p.get(k).cloned().unwrap_or_default();
        let cwd = p
            .get("cwd")
            .map(PathBuf::from)
            .unwrap_or_else(|| tmp.path().to_path_buf());
        let timeout = p
            .get("timeout")
            .and_then(|t| t.parse().ok())
            .map(Duration::from_millis)
            .unwrap_or(Duration::from_secs(30));
        let out = if cwd.is_dir() {
            run_command(&get("lang"), &get("code"), &cwd, timeout, 10 * 1024 * 1024)
        } else {
            ExecOutput {
                stdout: String::new(),
                stderr: String::new(),
                exit_code: None,
                error: Some(format!(
                    "exec: Working directory does not exist '{}' (ENOENT)",
                    cwd.display()
                )),
            }
        };
        let actual = out.to_json();
        let (want, overridden) = expected(stem, &sec.heading, &sec.blocks[1], &tmp);
        let ok = matches_object(&want, &actual);
        if !ok {
            bless(stem, &sec.heading, "json", &pretty(&actual), &tmp);
        }
        tally.check(&sec.heading, ok, overridden, || mismatch(&want, &actual));
    }
    tally.finish();
}

#[test]
#[cfg_attr(
    not(has_shared),
    ignore = "needs the conformance data ../shared/conformance (or CLADA_SHARED)"
)]
fn exec_bash() {
    if common::shared_conformance("clada").is_none() {
        return;
    }
    exec_suite("exec_bash.cases.md");
}

#[test]
#[cfg_attr(
    not(has_shared),
    ignore = "needs the conformance data ../shared/conformance (or CLADA_SHARED)"
)]
fn exec_errors() {
    if common::shared_conformance("clada").is_none() {
        return;
    }
    exec_suite("exec_errors.cases.md");
}

#[test]
#[cfg_attr(
    not(has_shared),
    ignore = "needs the conformance data ../shared/conformance (or CLADA_SHARED)"
)]
fn exec_python() {
    if common::shared_conformance("clada").is_none() {
        return;
    }
    exec_suite("exec_python.cases.md");
}

#[test]
#[cfg_attr(
    not(has_shared),
    ignore = "needs the conformance data ../shared/conformance (or CLADA_SHARED)"
)]
fn exec_javascript() {
    if common::shared_conformance("clada").is_none() {
        return;
    }
    exec_suite("exec_javascript.cases.md");
}

#[test]
#[cfg_attr(
    not(has_shared),
    ignore = "needs the conformance data ../shared/conformance (or CLADA_SHARED)"
)]
fn exec_units() {
    if common::shared_conformance("clada").is_none() {
        return;
    }
    let mut tally = Tally::new("exec-units");
    for case in json_cases("proj/comp/exec/test-data/unit/mapLanguageToCommand.json") {
        let name = case["name"].as_str().unwrap_or_default().to_string();
        let i = &case["input"];
        let got = command_for(
            i[0].as_str().unwrap_or_default(),
            i[1].as_str().unwrap_or_default(),
        );
        let ok = match (case["throws"].as_str(), got) {
            (Some(_), None) => true,
            (None, Some((cmd, args))) => json!({"command": cmd, "args": args}) == case["expected"],
            _ => false,
        };
        tally.check(&name, ok, false, || format!("{case}"));
    }
    for case in json_cases("proj/comp/exec/test-data/unit/formatExecResult.json") {
        let name = case["name"].as_str().unwrap_or_default().to_string();
        let i = &case["input"];
        let out = ExecOutput {
            exit_code: i[0].as_i64().map(|n| n as i32),
            stdout: i[1].as_str().unwrap_or_default().into(),
            stderr: i[2].as_str().unwrap_or_default().into(),
            error: i[3]["message"].as_str().map(String::from),
        };
        let actual = out.to_json();
        tally.check(&name, actual == case["expected"], false, || {
            mismatch(&case["expected"], &actual)
        });
    }
    for case in json_cases("proj/comp/exec/test-data/unit/executeCommand.json") {
        let name = case["name"].as_str().unwrap_or_default().to_string();
        let p = &case["input"]["parameters"];
        let cwd = p["cwd"]
            .as_str()
            .map(PathBuf::from)
            .unwrap_or_else(std::env::temp_dir);
        let out = run_command(
            p["lang"].as_str().unwrap_or_default(),
            p["code"].as_str().unwrap_or_default(),
            &cwd,
            Duration::from_secs(30),
            10 * 1024 * 1024,
        );
        let actual = out.to_json();
        tally.check(
            &name,
            matches_object(&case["expected"], &actual),
            false,
            || mismatch(&case["expected"], &actual),
        );
    }
    tally.finish();
}

// ---------------------------------------------------------------------------------------------

/// Every checked-in override is listed in DIVERGENCES.md and every listed case has one.
#[test]
fn divergences_are_documented() {
    let doc = divergences_doc();
    // Listed cases are the list items that start with a backticked `suite/case`.
    let listed: BTreeSet<String> = regex::Regex::new(r"(?m)^- `([^`]+/[^`]+)`")
        .expect("regex")
        .captures_iter(&doc)
        .map(|c| c[1].to_string())
        .collect();
    let mut files = BTreeSet::new();
    let root = own().join("overrides");
    if let Ok(suites) = fs::read_dir(&root) {
        for suite in suites.flatten() {
            for f in fs::read_dir(suite.path()).into_iter().flatten().flatten() {
                let name = f.file_name().to_string_lossy().into_owned();
                let case = name
                    .strip_suffix(".json")
                    .or_else(|| name.strip_suffix(".contents"))
                    .unwrap_or(&name)
                    .to_string();
                files.insert(format!("{}/{case}", suite.file_name().to_string_lossy()));
            }
        }
    }
    let unlisted: Vec<_> = files.difference(&listed).collect();
    assert!(
        unlisted.is_empty(),
        "overrides not listed in DIVERGENCES.md: {unlisted:?}"
    );
    let missing: Vec<_> = listed.difference(&files).collect();
    assert!(
        missing.is_empty(),
        "listed in DIVERGENCES.md without an override: {missing:?}"
    );
}
