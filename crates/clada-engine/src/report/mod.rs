//! Result reports in the three formats of DESIGN §8: `human` (one line per block, hints,
//! outputs, colour on a terminal), `llm` (the paste-back block in the original listener's
//! format, `=== CLADA RESULTS ===` … `=== OUTPUTS ===` … `=== END ===`), and `json` (the
//! `ExecutionResult`, documented in docs/json-format.md).
//!
//! Renderers take only the [`ExecutionResult`], so a stored result (a git note) renders the
//! same as a fresh one.

mod common;
mod facts;

pub use common::{at_lines, primary};
pub use facts::{capped_output, ignored_path_warning, mark_rolled_back};
mod human;
mod llm;

use crate::action::ExecutionResult;
use clada_base::term::{self, Rule, Shown};

/// Which report to produce.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReportFormat {
    Human,
    Llm,
    Json,
}

/// Renders a report. `color` only affects `human` (callers pass true only on a terminal
/// without `NO_COLOR`).
pub fn render(result: &ExecutionResult, format: ReportFormat, color: bool) -> String {
    match format {
        ReportFormat::Human => human::render(result, color),
        ReportFormat::Llm => llm::render(result),
        ReportFormat::Json => json(result),
    }
}

/// The llm report for an agent that relays to the user (the MCP server): each ⏸ line is
/// followed by what the user can do to lift it, which the pasted-back report leaves out.
pub fn llm_for_agent(result: &ExecutionResult) -> String {
    llm::render_with(result, true)
}

/// A rendered report as it is written where `shown` says: the human report is escaped
/// already (it is for people, wherever it goes); llm and JSON are exact for a pipe, a file,
/// the clipboard or MCP, and escaped (as content, JSON as JSON escapes) for a terminal.
pub fn shown(text: &str, format: ReportFormat, shown: Shown) -> std::borrow::Cow<'_, str> {
    match format {
        ReportFormat::Human => text.into(),
        ReportFormat::Llm => shown.content(text),
        ReportFormat::Json => shown.apply(text, Rule::Json),
    }
}

/// The JSON report: pretty-printed, keys in a fixed order, ending in a newline. A failed
/// step's output is capped and a failed hook is stated among the warnings.
pub fn json(result: &ExecutionResult) -> String {
    let mut s = serde_json::to_string_pretty(&*facts::for_json(result))
        .unwrap_or_else(|e| format!("{{\"fatalError\": \"cannot render the report: {e}\"}}"));
    s.push('\n');
    // The same document with C1 and bidi controls as JSON escapes (serde escapes only C0): it
    // parses to the same value, and the stored note `git log --notes=clada` prints raw, or a
    // `| head` of the report, cannot reach a terminal's controls.
    match term::escape(&s, Rule::Json) {
        std::borrow::Cow::Owned(escaped) => escaped,
        std::borrow::Cow::Borrowed(_) => s,
    }
}

/// The report of an apply that stopped as a whole before any block ran (not a repository, lock
/// held, unreadable reply, refused for safety): the seeds' `ExecutionResult` with `fatalError`
/// and empty results, so a consumer of `--format json` or `llm` never reads an empty stdout.
/// `None` for the human format, whose readers see the error on stderr.
pub fn fatal(message: &str, format: ReportFormat) -> Option<String> {
    let result = ExecutionResult {
        success: false,
        fatal_error: Some(message.to_string()),
        ..ExecutionResult::default()
    };
    match format {
        ReportFormat::Human => None,
        ReportFormat::Llm | ReportFormat::Json => Some(render(&result, format, false)),
    }
}

/// Whether to colour output written to a stream: only on a terminal, never with `NO_COLOR`
/// set (to anything non-empty, per no-color.org).
pub fn use_color(is_terminal: bool) -> bool {
    is_terminal && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

#[cfg(test)]
mod tests;
