//! Executors of the read actions that return file content: file_read, file_read_numbered,
//! files_read (clada-semantics §4.8–§4.10), and files_read_numbered (seed 001's TODO: files_read
//! with file_read_numbered's numbering of each whole file).

use serde_json::json;

pub use super::write::SpecError;
use super::write::{parse_line_spec, read_text, spec_error};
use super::{Ctx, Outcome};
use crate::sandbox::ResolvedPath;

/// Content as a string; invalid UTF-8 is replaced (and said so), since the report is text.
fn decode(bytes: Vec<u8>, given: &str, warnings: &mut Vec<String>) -> String {
    match String::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) => {
            warnings.push(format!(
                "'{given}' is not valid UTF-8; invalid bytes are shown as U+FFFD"
            ));
            String::from_utf8_lossy(e.as_bytes()).into_owned()
        }
    }
}

pub(super) fn file_read(ctx: &mut Ctx<'_>, path: &ResolvedPath) -> Outcome {
    let bytes = match read_text(ctx, "file_read", path) {
        Ok(b) => b,
        Err(e) => return Outcome::fail(e),
    };
    let mut warnings = Vec::new();
    let content = decode(bytes, &path.given, &mut warnings);
    let mut out = Outcome::ok(json!({"path": path.given, "content": content}));
    out.warnings = warnings;
    out
}

/// The result of numbering lines (the original's `extractNumberedLines`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Numbered {
    pub result: String,
    pub line_count: usize,
    /// `(requested spec, line count)` when the range went past the end.
    pub out_of_range: Option<(String, usize)>,
}

/// Numbers the lines of `content` in `spec` (all when `None` or empty): each line as its number
/// right-aligned to the width of the last number shown, the delimiter, the text. A final line
/// break does not start another line (the same count `file_replace_lines` uses); CRs before
/// line breaks and a leading BOM are not shown.
pub fn extract_numbered(
    content: &str,
    spec: Option<&str>,
    delimiter: &str,
) -> Result<Numbered, SpecError> {
    let body = content.strip_prefix('\u{feff}').unwrap_or(content);
    let mut lines: Vec<&str> = body.split('\n').collect();
    if lines.last() == Some(&"") {
        lines.pop();
    }
    let lines: Vec<&str> = lines
        .into_iter()
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect();
    let n = lines.len();
    if n == 0 {
        return Ok(Numbered {
            result: String::new(),
            line_count: 0,
            out_of_range: None,
        });
    }
    let (start, end, requested) = match spec.filter(|s| !s.is_empty()) {
        None => (1, n, None),
        // `23-`: from line 23 to the end (a line past the end is still out of range).
        Some(s) if s.trim_end().ends_with('-') => {
            let from = s.trim_end().strip_suffix('-').unwrap_or_default();
            if from.contains('-') {
                return Err(SpecError::Invalid);
            }
            let (a, _) = parse_line_spec(from)?;
            (a, n.max(a), Some(s.to_string()))
        }
        Some(s) => {
            let (a, b) = parse_line_spec(s)?;
            (a, b, Some(s.to_string()))
        }
    };
    let out_of_range = match &requested {
        Some(r) if end > n => Some((r.clone(), n)),
        _ => None,
    };
    if start > n {
        return Ok(Numbered {
            result: String::new(),
            line_count: n,
            out_of_range,
        });
    }
    let last = end.min(n);
    let width = last.to_string().len();
    let result = (start..=last)
        .map(|i| format!("{i:>width$}{delimiter}{}", lines[i - 1]))
        .collect::<Vec<_>>()
        .join("\n");
    Ok(Numbered {
        result,
        line_count: n,
        out_of_range,
    })
}

pub(super) fn file_read_numbered(
    ctx: &mut Ctx<'_>,
    path: &ResolvedPath,
    spec: Option<&str>,
    delimiter: &str,
) -> Outcome {
    const NAME: &str = "file_read_numbered";
    let bytes = match read_text(ctx, NAME, path) {
        Ok(b) => b,
        Err(e) => return Outcome::fail(e),
    };
    let mut warnings = Vec::new();
    let content = decode(bytes, &path.given, &mut warnings);
    let numbered = match extract_numbered(&content, spec, delimiter) {
        Ok(n) => n,
        Err(e) => return Outcome::fail(spec_error(NAME, spec.unwrap_or_default(), e)),
    };
    let data = json!({"path": path.given, "content": numbered.result});
    let mut out = match numbered.out_of_range {
        Some((requested, n)) => Outcome::fail(format!(
            "{NAME}: Requested lines {requested} but file only has {n} lines"
        ))
        .with_data(data),
        None => Outcome::ok(data),
    };
    out.warnings = warnings;
    out
}

pub(super) fn files_read(ctx: &mut Ctx<'_>, paths: &[ResolvedPath]) -> Outcome {
    read_many(ctx, "files_read", paths, &|c| c)
}

/// files_read with each file's content numbered as file_read_numbered numbers a whole file.
pub(super) fn files_read_numbered(
    ctx: &mut Ctx<'_>,
    paths: &[ResolvedPath],
    delimiter: &str,
) -> Outcome {
    let number = |c: String| match extract_numbered(&c, None, delimiter) {
        Ok(n) => n.result,
        // A whole-file read has no spec that could be wrong.
        Err(_) => c,
    };
    read_many(ctx, "files_read_numbered", paths, &number)
}

/// Reads every file (all or nothing): `{paths, content}` as parallel arrays, each content
/// passed through `shape`.
fn read_many(
    ctx: &mut Ctx<'_>,
    name: &str,
    paths: &[ResolvedPath],
    shape: &dyn Fn(String) -> String,
) -> Outcome {
    if paths.is_empty() {
        return Outcome::fail(format!("{name}: No paths provided"));
    }
    let mut contents = Vec::new();
    let mut failures = Vec::new();
    let mut warnings = Vec::new();
    for p in paths {
        match read_text(ctx, name, p) {
            Ok(bytes) => contents.push(shape(decode(bytes, &p.given, &mut warnings))),
            Err(e) => failures.push(format!("  {}: {e}", p.given)),
        }
    }
    if !failures.is_empty() {
        return Outcome::fail(format!(
            "{name}: Failed to read {} file(s):\n{}",
            failures.len(),
            failures.join("\n")
        ));
    }
    let given: Vec<&str> = paths.iter().map(|p| p.given.as_str()).collect();
    let mut out = Outcome::ok(json!({"paths": given, "content": contents}));
    out.warnings = warnings;
    out
}
