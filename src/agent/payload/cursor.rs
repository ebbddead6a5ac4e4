//! Cursor's hooks (agent-hooks.md §2): its own event names, its older `afterFileEdit`, and
//! Claude Code's names (Cursor running Claude Code's hooks).

use std::path::PathBuf;

use super::{Phase, ToolInput, Touches};

pub(super) fn phase(event: &str) -> Phase {
    match event {
        "preToolUse" | "PreToolUse" => Phase::Before,
        "postToolUse" | "postToolUseFailure" | "PostToolUse" | "PostToolUseFailure" => Phase::After,
        "afterFileEdit" => Phase::After,
        "stop" | "Stop" => Phase::Stop,
        _ => Phase::Ignored,
    }
}

pub(super) fn touches(tool: &str, input: &ToolInput) -> Touches {
    match tool {
        "Write" | "Delete" | "StrReplace" | "Edit" | "MultiEdit" => {
            input.file(&["file_path", "path", "filePath"])
        }
        "ApplyPatch" | "Shell" | "Bash" => Touches::Worktree,
        "" if input.raw.file_path.is_some() => {
            Touches::Files(input.raw.file_path.iter().map(PathBuf::from).collect())
        }
        _ => Touches::Nothing,
    }
}
