use indexmap::IndexMap;
use serde_json::json;

use super::*;
use crate::action::textmatch::{Closest, Hint};
use crate::action::{ActionResult, ErrorType, ParseErrorReport};

fn params(pairs: &[(&str, &str)]) -> IndexMap<String, serde_json::Value> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), json!(v)))
        .collect()
}

fn sample() -> ExecutionResult {
    let mut r = ExecutionResult {
        total_blocks: 4,
        executed_actions: 3,
        results: vec![
            ActionResult {
                seq: 1,
                block_id: "abc".into(),
                action: "file_write".into(),
                params: params(&[("path", "src/app.rs"), ("content", "x")]),
                success: true,
                data: Some(json!({"path": "src/app.rs", "bytesWritten": 1})),
                ..ActionResult::default()
            },
            ActionResult {
                seq: 2,
                block_id: "xyz".into(),
                action: "file_replace_text".into(),
                params: params(&[
                    ("path", "src/main.rs"),
                    ("old_text", "a"),
                    ("new_text", "b"),
                ]),
                success: false,
                error: Some("file_replace_text: old_text not found in file".into()),
                hint: Some(Hint::NotFound {
                    path: "src/main.rs".into(),
                    closest: Some(Closest {
                        start_line: 12,
                        end_line: 15,
                        similarity: 0.87,
                        diff: "--- old_text\n+++ file lines 12-15\n-a\n+b".into(),
                        whitespace_only: None,
                    }),
                }),
                ..ActionResult::default()
            },
            ActionResult {
                seq: 3,
                block_id: "rd1".into(),
                action: "file_read".into(),
                params: params(&[("path", "a.txt")]),
                success: true,
                data: Some(json!({"path": "a.txt", "content": "hello"})),
                ..ActionResult::default()
            },
        ],
        parse_errors: vec![ParseErrorReport::new(
            "bad".into(),
            Some("file_write".into()),
            ErrorType::Validation,
            "missing_param",
            "Missing required parameter: content".into(),
            Some(30),
            None,
        )],
        ..ExecutionResult::default()
    };
    r.update_success();
    r
}

#[test]
fn human_lines_hints_and_outputs() {
    let s = render(&sample(), ReportFormat::Human, false);
    assert!(s.starts_with("abc ✅ file_write src/app.rs\n"), "{s}");
    assert!(s.contains(
        "xyz ❌ file_replace_text src/main.rs - old_text not found in file\n    closest match at lines 12-15 (87% similar):\n    --- old_text\n"
    ), "{s}");
    assert!(
        s.contains("bad ❌ file_write - Missing required parameter: content (line 30)"),
        "{s}"
    );
    assert!(
        s.contains("[rd1] file_read:\n=== START FILE: a.txt ===\nhello\n=== END FILE: a.txt ==="),
        "{s}"
    );
    assert!(!s.contains('\x1b'));
    assert!(render(&sample(), ReportFormat::Human, true).contains("\x1b[32m✅\x1b[0m"));
}

#[test]
fn llm_format_has_sections_hints_and_closing_line() {
    let s = render(&sample(), ReportFormat::Llm, false);
    let expected_head = "=== CLADA RESULTS ===\nabc ✅ file_write src/app.rs\nxyz ❌ file_replace_text src/main.rs - old_text not found in file\n    closest match at lines 12-15 (87% similar):\n";
    assert!(s.starts_with(expected_head), "{s}");
    assert!(s.contains("bad ❌ file_write - Missing required parameter: content (line 30)\n=== END ===\n\n=== OUTPUTS ===\n\n[rd1] file_read:\n"), "{s}");
    assert!(s.contains("=== END FILE: a.txt ===\n=== END ===\nThe 2 blocks marked ✅ are applied; do not send them again."), "{s}");
}

#[test]
fn ambiguous_hint_line() {
    let h = Hint::Ambiguous {
        path: "p".into(),
        occurrences: 3,
        lines: vec![4, 19, 33],
    };
    assert!(common::hint_lines(&h)[0].starts_with("found 3 times, at lines 4, 19, 33"));
}

#[test]
fn json_is_pretty_and_stable() {
    let s = render(&sample(), ReportFormat::Json, false);
    let v: serde_json::Value = serde_json::from_str(&s).unwrap();
    assert_eq!(v["success"], json!(false));
    assert_eq!(v["results"][1]["hint"]["kind"], json!("not_found"));
    assert_eq!(v["results"][1]["hint"]["closest"]["startLine"], json!(12));
    assert_eq!(v["parseErrors"][0]["errorType"], json!("validation"));
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "success",
            "totalBlocks",
            "executedActions",
            "results",
            "parseErrors",
            "warnings"
        ]
    );
    let back: ExecutionResult = serde_json::from_str(&s).unwrap();
    assert_eq!(back, sample());
}

#[test]
fn color_only_on_terminal() {
    assert!(!use_color(false));
}

#[test]
fn line_lists_say_a_repeated_line_once_with_its_count() {
    assert_eq!(common::at_lines(&[4]), "line 4");
    assert_eq!(common::at_lines(&[4, 19, 33]), "lines 4, 19, 33");
    assert_eq!(common::at_lines(&[1, 1, 1]), "line 1 (3 times)");
    assert_eq!(common::at_lines(&[1, 1, 7]), "lines 1 (2 times), 7");
    let h = Hint::CountMismatch {
        path: "p".into(),
        expected: 2,
        found: 3,
        lines: vec![1, 1, 1],
    };
    assert_eq!(
        common::hint_lines(&h),
        ["expected 2, found 3 times, at line 1 (3 times)"]
    );
}

#[test]
fn already_applied_and_missing_path_hints() {
    let h = Hint::AlreadyApplied {
        path: "p".into(),
        lines: vec![12, 40],
        line_count: 4,
    };
    assert_eq!(
        common::hint_lines(&h),
        ["already applied: new_text is present at lines 12-15, 40-43 and old_text is not, so this block took effect before; do not send it again"]
    );
    let h = Hint::MissingPath {
        path: "utils.py".into(),
        candidates: vec!["src/utils.py".into(), "lib/utils.py".into()],
        similar: Vec::new(),
    };
    assert_eq!(
        common::hint_lines(&h),
        ["did you mean one of these? (the same file name exists there): src/utils.py, lib/utils.py"]
    );
}

#[test]
fn exec_without_output_says_so() {
    let r = ActionResult {
        block_id: "ex1".into(),
        action: "exec".into(),
        success: true,
        data: Some(json!({"stdout": "", "stderr": "", "exit_code": 0})),
        ..ActionResult::default()
    };
    assert_eq!(common::output_body(&r, true), "(no output)");
}

#[test]
fn fatal_report_is_one_object_or_one_line() {
    let msg = "not a git repository (or any parent up to the root): /x";
    let j: serde_json::Value =
        serde_json::from_str(&fatal(msg, ReportFormat::Json).expect("json")).expect("parses");
    assert_eq!(j["success"], false);
    assert_eq!(j["fatalError"], msg);
    assert_eq!(j["results"], json!([]));
    let llm = fatal("two\nlines", ReportFormat::Llm).expect("llm");
    assert!(
        llm.starts_with("=== CLADA RESULTS ===\nFATAL: two lines\n=== END ===\n"),
        "{llm}"
    );
    assert_eq!(fatal(msg, ReportFormat::Human), None);
}

#[test]
fn exec_output_header_names_the_session_directory() {
    let mut r = ExecutionResult {
        results: vec![ActionResult {
            seq: 1,
            block_id: "e01".into(),
            action: "exec".into(),
            params: params(&[("lang", "bash"), ("code", "ls")]),
            success: true,
            data: Some(json!({"stdout": "a\n", "stderr": "", "exit_code": 0, "cwd": "src"})),
            ..ActionResult::default()
        }],
        executed_actions: 1,
        total_blocks: 1,
        ..ExecutionResult::default()
    };
    r.update_success();
    let llm = render(&r, ReportFormat::Llm, false);
    assert!(
        llm.contains("[e01] exec bash (in src):\nstdout:\na\n"),
        "{llm}"
    );
}

#[test]
fn search_outputs_render_both_the_seed_shapes_and_stored_older_ones() {
    let one = |action: &str, data: serde_json::Value| ActionResult {
        seq: 1,
        block_id: "s01".into(),
        action: action.into(),
        params: params(&[("path", "."), ("pattern", "fn")]),
        success: true,
        data: Some(data),
        ..ActionResult::default()
    };
    let new_grep = one(
        "grep",
        json!([{"file": "a.rs", "line_number": 3, "line": "fn x"}]),
    );
    let old_grep = one(
        "grep",
        json!({"matches": [{"file": "a.rs", "line": 3, "text": "fn x"}]}),
    );
    for r in [&new_grep, &old_grep] {
        assert_eq!(common::output_body(r, true), "a.rs:3: fn x");
    }
    let new_ls = one("ls", json!([{"name": "d", "type": "directory", "size": 0}]));
    let old_ls = one(
        "ls",
        json!({"entries": [{"name": "d", "type": "directory"}]}),
    );
    for r in [&new_ls, &old_ls] {
        assert_eq!(common::output_body(r, true), "d/");
    }
    let new_glob = one("glob", json!(["a.rs"]));
    let old_glob = one("glob", json!({"paths": ["a.rs"]}));
    for r in [&new_glob, &old_glob] {
        assert_eq!(common::output_body(r, true), "a.rs");
    }
}

/// Every kind of control sequence a reply can put into a name, a message or an output: OSC 52
/// (clipboard), OSC 0 (title), CSI erase line, CR, BS, DEL, a C1 CSI, bidi override and
/// isolate.
const HOSTILE: &str =
    "n\u{1b}]52;c;aGk=\u{7}\u{1b}]0;t\u{7}\u{1b}[2K\r\u{8}\u{7f}\u{9b}\u{202e}\u{2066}e";

/// A result with [`HOSTILE`] in every string the human report can show.
fn hostile_result() -> ExecutionResult {
    let h = HOSTILE;
    let two = format!("{h}\n{h}");
    let result = |action: &str, params: &[(&str, &str)], data: serde_json::Value| ActionResult {
        seq: 1,
        block_id: h.into(),
        line: Some(3),
        action: action.into(),
        params: super::tests::params(params),
        success: true,
        data: Some(data),
        warnings: vec![two.clone()],
        ..ActionResult::default()
    };
    let mut failed = result(
        "file_replace_text",
        &[("path", h)],
        json!({ "lineNote": two }),
    );
    failed.success = false;
    failed.error = Some(format!("file_replace_text: {two}"));
    failed.hint = Some(Hint::NotFound {
        path: h.into(),
        closest: Some(Closest {
            start_line: 1,
            end_line: 2,
            similarity: 0.9,
            diff: format!("--- {h}\n+++ {h}\n-{h}\n+{h}"),
            whitespace_only: Some(h.into()),
        }),
    });
    let mut refused = result("file_write", &[("path", h)], json!({}));
    refused.success = false;
    refused.error = Some(two.clone());
    refused.needs_user = Some(crate::action::NeedsUser { how: two.clone() });
    let mut missing = failed.clone();
    missing.hint = Some(Hint::MissingPath {
        path: h.into(),
        candidates: vec![h.into(), h.into()],
        similar: vec![h.into()],
    });
    let mut exec = result(
        "exec",
        &[("lang", h)],
        json!({ "stdout": two, "stderr": two, "cwd": h, "exit_code": 1 }),
    );
    exec.success = false;
    exec.error = Some(two.clone());
    let mut syntax = ParseErrorReport::new(
        h.into(),
        Some(h.into()),
        ErrorType::Syntax,
        "syntax_error",
        two.clone(),
        Some(9),
        None,
    );
    syntax.needs_user = Some(crate::action::NeedsUser { how: two.clone() });
    let mut validation = syntax.clone();
    validation.error_type = ErrorType::Validation;
    validation.block_id = format!("{h}2");
    let mut r = ExecutionResult {
        results: vec![
            result("file_write", &[("path", h)], json!({})),
            result("file_move", &[("old_path", h), ("new_path", h)], json!({})),
            failed,
            missing,
            refused,
            exec,
            result(
                "file_read",
                &[("path", h)],
                json!({ "path": h, "content": two }),
            ),
            result(
                "files_read",
                &[("paths", &two)],
                json!({ "paths": [h, h], "content": [two, two] }),
            ),
            result(
                "ls",
                &[("path", h)],
                json!([{ "name": h, "type": "file", "size": 1 }]),
            ),
            result(
                "grep",
                &[("pattern", h)],
                json!([{ "file": h, "line_number": 1, "text": h }]),
            ),
            result("glob", &[("pattern", h)], json!([h, h])),
        ],
        parse_errors: vec![syntax.clone(), syntax, validation],
        fatal_error: Some(two.clone()),
        warnings: vec![two.clone()],
        steps: vec![crate::action::Step::new(
            format!("hook {h}"),
            false,
            two.clone(),
        )],
        ..ExecutionResult::default()
    };
    r.update_success();
    r
}

#[test]
fn the_human_report_shows_every_control_sequence_escaped_and_obeys_none() {
    use clada_base::term::{needs_escape, Rule};
    let result = hostile_result();
    for color in [false, true] {
        let s = render(&result, ReportFormat::Human, color);
        // Nothing from the result reached the text raw: without colour, no control or bidi
        // character at all but line feeds; with colour, only the report's own SGR codes.
        let own = s.replace("\u{1b}[0m", "").replace("\u{1b}[", "");
        assert!(!needs_escape(&own, Rule::Content), "{s}");
        assert!(!s.contains(HOSTILE));
        let shown =
            "n\\x1b]52;c;aGk=\\x07\\x1b]0;t\\x07\\x1b[2K\\r\\x08\\x7f\\u{9b}\\u{202e}\\u{2066}e";
        assert!(s.contains(shown), "{s}");
        // Names escape line breaks too (a name cannot forge a line of the report); messages
        // and outputs keep theirs.
        assert!(s.contains(&format!("{shown}\n{shown}")), "{s}");
        assert!(s.contains(&format!("file_move {shown} -> {shown}")), "{s}");
    }
    assert!(!needs_escape(
        &render(&result, ReportFormat::Human, false),
        Rule::Content
    ));
    // The llm and JSON reports are exact: the model sees what is there.
    assert!(render(&result, ReportFormat::Llm, false).contains(HOSTILE));
    let json = render(&result, ReportFormat::Json, false);
    let back: serde_json::Value = serde_json::from_str(&json).expect("json");
    assert_eq!(back["results"][0]["blockId"], HOSTILE);
    // ... and on a terminal they are escaped the way their readers need.
    let llm = render(&result, ReportFormat::Llm, false);
    let shown = super::shown(&llm, ReportFormat::Llm, clada_base::term::Shown::Escaped);
    assert!(!needs_escape(&shown, Rule::Content), "{shown}");
    let shown = super::shown(&json, ReportFormat::Json, clada_base::term::Shown::Escaped);
    let back: serde_json::Value = serde_json::from_str(&shown).expect("still json");
    assert_eq!(back["results"][0]["blockId"], HOSTILE);
    assert!(!needs_escape(&shown, Rule::Content), "{shown}");
}
