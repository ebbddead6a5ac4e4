//! Claude Code's hooks (agent-hooks.md §1): its event names and the tools that change files.

use super::{Phase, ToolInput, Touches};

pub(super) fn phase(event: &str) -> Phase {
    match event {
        "SessionStart" => Phase::Session,
        "PermissionDenied" => Phase::Dropped,
        "PreToolUse" => Phase::Before,
        "PostToolUse" | "PostToolUseFailure" => Phase::After,
        "Stop" => Phase::Stop,
        _ => Phase::Ignored,
    }
}

pub(super) fn touches(tool: &str, input: &ToolInput) -> Touches {
    match tool {
        "Write" | "Edit" | "MultiEdit" => input.file(&["file_path"]),
        "NotebookEdit" => input.file(&["notebook_path"]),
        "Bash" => Touches::Worktree,
        _ => Touches::Nothing,
    }
}
