//! Conformance of `clada_read::parse` with the nesl-js reference suites in
//! `../shared/conformance/parser/`: the required suites (`sham/`, `nesl/`) exactly, in their own
//! dialect and in auto mode, the SHAM suite re-spelled as upper-case NESL, and the edge suites
//! with this project's deliberate divergences from `test-data/parser/`.

use crate::common;

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use clada_read::{Dialect, Format};
use serde_json::Value;

fn shared_dir() -> PathBuf {
    common::shared_conformance("parser").expect("each test checks that the data is there")
}

fn own_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("test-data/parser")
}

struct Case {
    name: String,
    input: String,
    /// Raw JSON text of the expected output (parsed lazily: e42's reference output holds a lone
    /// surrogate, which serde_json rejects).
    expected_path: PathBuf,
}

fn cases(suite: &str) -> Vec<Case> {
    let dir = shared_dir().join(suite);
    let mut names: Vec<String> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .filter_map(|e| {
            let name = e.ok()?.file_name().into_string().ok()?;
            name.strip_suffix(".input").map(str::to_string)
        })
        .collect();
    names.sort();
    names
        .into_iter()
        .map(|name| {
            let bytes = fs::read(dir.join(format!("{name}.input"))).unwrap();
            let input = clada_read::decode(&bytes).unwrap().to_string();
            let own = own_dir().join(suite).join(format!("{name}.expected.json"));
            let expected_path = if own.exists() {
                own
            } else {
                dir.join(format!("{name}.expected.json"))
            };
            Case {
                name,
                input,
                expected_path,
            }
        })
        .collect()
}

fn load(path: &Path) -> Value {
    let text = fs::read_to_string(path).unwrap();
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn actual(input: &str, dialect: Dialect) -> Value {
    serde_json::to_value(clada_read::parse(input, dialect)).unwrap()
}

/// Runs every case and returns a description of each mismatch (empty = all pass).
fn check(label: &str, cases: &[(String, String, Value)], dialect: Dialect) -> Vec<String> {
    cases
        .iter()
        .filter_map(|(name, input, expected)| {
            let got = actual(input, dialect);
            (got != *expected).then(|| {
                format!(
                    "{label} {name} ({dialect:?})\n--- expected\n{}\n--- actual\n{}",
                    serde_json::to_string_pretty(expected).unwrap(),
                    serde_json::to_string_pretty(&got).unwrap()
                )
            })
        })
        .collect()
}

fn loaded(suite: &str) -> Vec<(String, String, Value)> {
    cases(suite)
        .into_iter()
        .map(|c| {
            let expected = load(&c.expected_path);
            (c.name, c.input, expected)
        })
        .collect()
}

fn assert_none(failures: Vec<String>) {
    assert!(
        failures.is_empty(),
        "{} case(s) failed:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

#[test]
#[cfg_attr(
    not(has_shared),
    ignore = "needs the conformance data ../shared/conformance (or CLADA_SHARED)"
)]
fn required_sham_suite() {
    if common::shared_conformance("parser").is_none() {
        return;
    }
    let cases = loaded("sham");
    assert_eq!(cases.len(), 38);
    assert_none(check("sham", &cases, Dialect::Only(Format::SHAM)));
}

#[test]
#[cfg_attr(
    not(has_shared),
    ignore = "needs the conformance data ../shared/conformance (or CLADA_SHARED)"
)]
fn required_nesl_suite() {
    if common::shared_conformance("parser").is_none() {
        return;
    }
    let cases = loaded("nesl");
    assert_eq!(cases.len(), 38);
    assert_none(check("nesl", &cases, Dialect::Only(Format::NESL)));
}

#[test]
#[cfg_attr(
    not(has_shared),
    ignore = "needs the conformance data ../shared/conformance (or CLADA_SHARED)"
)]
fn required_suites_in_auto_mode() {
    if common::shared_conformance("parser").is_none() {
        return;
    }
    // None of the required cases has the other spellings' markers outside a heredoc, so auto
    // mode reproduces both references on all of them.
    let mut failures = check("sham", &loaded("sham"), Dialect::Auto);
    failures.extend(check("nesl", &loaded("nesl"), Dialect::Auto));
    assert_none(failures);
}

/// Mechanical SHAM → upper-case NESL re-spelling of markers and the header message.
fn respell(s: &str) -> String {
    s.replace("#!END_SHAM_", "#!END_NESL_")
        .replace("#!SHAM", "#!NESL")
        .replace("EOT_SHAM_", "EOT_NESL_")
        .replace("Invalid SHAM header format", "Invalid NESL header format")
}

fn respell_value(v: &Value) -> Value {
    match v {
        Value::String(s) => Value::String(respell(s)),
        Value::Array(a) => Value::Array(a.iter().map(respell_value).collect()),
        Value::Object(o) => Value::Object(
            o.iter()
                .map(|(k, v)| (respell(k), respell_value(v)))
                .collect(),
        ),
        other => other.clone(),
    }
}

fn respelled(suite: &str) -> Vec<(String, String, Value)> {
    loaded(suite)
        .into_iter()
        .map(|(name, input, expected)| (name, respell(&input), respell_value(&expected)))
        .collect()
}

#[test]
#[cfg_attr(
    not(has_shared),
    ignore = "needs the conformance data ../shared/conformance (or CLADA_SHARED)"
)]
fn sham_suite_respelled_as_upper_case_nesl() {
    if common::shared_conformance("parser").is_none() {
        return;
    }
    let cases = respelled("sham");
    assert!(cases.iter().any(|(_, input, _)| input.contains("#!NESL")));
    let mut failures = check("NESL", &cases, Dialect::Only(Format::NESL_UPPER));
    failures.extend(check("NESL", &cases, Dialect::Auto));
    assert_none(failures);
}

/// Edge cases whose expected output is this project's own (see DIVERGENCES.md).
fn divergences(suite: &str) -> BTreeSet<String> {
    let dir = own_dir().join(suite);
    fs::read_dir(&dir)
        .map(|entries| {
            entries
                .filter_map(|e| {
                    let name = e.ok()?.file_name().into_string().ok()?;
                    name.strip_suffix(".expected.json").map(str::to_string)
                })
                .collect()
        })
        .unwrap_or_default()
}

#[test]
#[cfg_attr(
    not(has_shared),
    ignore = "needs the conformance data ../shared/conformance (or CLADA_SHARED)"
)]
fn sham_edge_cases() {
    if common::shared_conformance("parser").is_none() {
        return;
    }
    let cases = loaded("sham-edge");
    assert_eq!(cases.len(), 43);
    assert_none(check("sham-edge", &cases, Dialect::Only(Format::SHAM)));
}

#[test]
#[cfg_attr(
    not(has_shared),
    ignore = "needs the conformance data ../shared/conformance (or CLADA_SHARED)"
)]
fn nesl_edge_cases() {
    if common::shared_conformance("parser").is_none() {
        return;
    }
    let cases = loaded("nesl-edge");
    assert_eq!(cases.len(), 45);
    assert_none(check("nesl-edge", &cases, Dialect::Only(Format::NESL)));
}

#[test]
#[cfg_attr(
    not(has_shared),
    ignore = "needs the conformance data ../shared/conformance (or CLADA_SHARED)"
)]
fn sham_edge_cases_respelled_as_upper_case_nesl() {
    if common::shared_conformance("parser").is_none() {
        return;
    }
    let cases = respelled("sham-edge");
    let mut failures = check("NESL-edge", &cases, Dialect::Only(Format::NESL_UPPER));
    let skip: BTreeSet<&str> = AUTO_MODE_EXCEPTIONS.iter().map(|(n, _)| *n).collect();
    let auto: Vec<_> = cases
        .into_iter()
        .filter(|(name, _, _)| !skip.contains(name.as_str()))
        .collect();
    failures.extend(check("NESL-edge", &auto, Dialect::Auto));
    assert_none(failures);
}

/// Edge cases that put another spelling's markers outside a heredoc, which auto mode
/// recognises and a forced dialect treats as text.
const AUTO_MODE_EXCEPTIONS: &[(&str, &str)] = &[
    (
        "e40-other-dialect-markers",
        "its point is that the other spelling's header and end marker are plain lines; auto mode recognises them",
    ),
    (
        "n01-header-label-variants",
        "line 12 is an upper-case `#!NESL [@x: abc]` inside a block: a malformed header in auto mode, a plain line for nesl",
    ),
];

#[test]
#[cfg_attr(
    not(has_shared),
    ignore = "needs the conformance data ../shared/conformance (or CLADA_SHARED)"
)]
fn edge_cases_in_auto_mode() {
    if common::shared_conformance("parser").is_none() {
        return;
    }
    let skip: BTreeSet<&str> = AUTO_MODE_EXCEPTIONS.iter().map(|(n, _)| *n).collect();
    let mut failures = Vec::new();
    for suite in ["sham-edge", "nesl-edge"] {
        let cases: Vec<_> = loaded(suite)
            .into_iter()
            .filter(|(name, _, _)| !skip.contains(name.as_str()))
            .collect();
        failures.extend(check(suite, &cases, Dialect::Auto));
    }
    assert_none(failures);
}

#[test]
#[cfg_attr(
    not(has_shared),
    ignore = "needs the conformance data ../shared/conformance (or CLADA_SHARED)"
)]
fn every_divergence_is_explained() {
    if common::shared_conformance("parser").is_none() {
        return;
    }
    let notes = fs::read_to_string(own_dir().join("DIVERGENCES.md")).unwrap();
    let mut all = Vec::new();
    for suite in ["sham-edge", "nesl-edge"] {
        for name in divergences(suite) {
            assert!(
                shared_dir()
                    .join(suite)
                    .join(format!("{name}.input"))
                    .exists(),
                "{suite}/{name} overrides a case that does not exist"
            );
            let tag = format!("{suite}/{name}");
            assert!(
                notes.lines().any(|l| l.contains(&tag)),
                "DIVERGENCES.md has no line for {tag}"
            );
            all.push(tag);
        }
    }
    // A lone surrogate cannot be held in a Rust string, so e42 must diverge in both suites.
    assert!(all.contains(&"sham-edge/e42-lone-surrogate-escape".to_string()));
    assert!(all.contains(&"nesl-edge/e42-lone-surrogate-escape".to_string()));
}
