//! What one tool call produced: the text for the model, the structured result, and whether
//! it is an error result; the call runner and the idempotency store both speak it.

use serde_json::{json, Value};

use clada_engine::action::ExecutionResult;
use clada_engine::history::HistoryError;
use clada_engine::report::{self, ReportFormat};

/// What a call produced: the text for the model, the structured result, and whether it is
/// an error result (`isError`).
#[derive(Debug, Clone)]
pub struct Outcome {
    pub text: String,
    pub structured: Option<Value>,
    pub is_error: bool,
}

impl Outcome {
    /// A call that could not run at all: the report with `fatalError` (so a tool whose
    /// output schema is the report still gets one) and the message.
    pub fn fatal(message: &str) -> Outcome {
        let structured =
            report::fatal(message, ReportFormat::Json).and_then(|t| serde_json::from_str(&t).ok());
        Outcome {
            text: report::fatal(message, ReportFormat::Llm)
                .unwrap_or_else(|| format!("git-clada: {message}\n")),
            structured,
            is_error: true,
        }
    }

    /// A refusal or error of a tool that has no report: the message alone.
    pub(super) fn error(message: String) -> Outcome {
        Outcome {
            text: message,
            structured: None,
            is_error: true,
        }
    }

    /// The result report (and, for `check`, the diff that would be committed).
    pub(super) fn report(result: &ExecutionResult, diff: Option<&str>) -> Outcome {
        let mut structured: Value =
            serde_json::from_str(&report::json(result)).unwrap_or_else(|_| json!({}));
        // The agent relays what only the user can do (an exec approval, a sandbox line).
        let mut text = report::llm_for_agent(result);
        if let Some(diff) = diff {
            structured["diff"] = json!(diff);
            if !diff.is_empty() {
                text.push_str("\n=== DIFF (what would be committed) ===\n");
                text.push_str(diff);
                if !diff.ends_with('\n') {
                    text.push('\n');
                }
                text.push_str("=== END ===\n");
            }
        }
        Outcome {
            text,
            structured: Some(structured),
            is_error: !result.success,
        }
    }

    /// A history command's report: its human rendering and its JSON.
    pub(super) fn history<R: serde::Serialize>(
        result: Result<R, HistoryError>,
        render: impl FnOnce(&R) -> String,
    ) -> Outcome {
        match result {
            Ok(r) => Outcome {
                text: render(&r),
                structured: serde_json::to_value(&r).ok().filter(Value::is_object),
                is_error: false,
            },
            Err(HistoryError::Refused(msg)) => Outcome::error(format!("refused: {msg}")),
            Err(e) => Outcome::error(format!("git-clada: {e}")),
        }
    }
}
