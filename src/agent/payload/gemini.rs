//! Gemini CLI's hooks (agent-hooks.md §3.1): its event names and the tools that change files.

use super::{Phase, ToolInput, Touches};

pub(super) fn phase(event: &str) -> Phase {
    match event {
        "BeforeTool" => Phase::Before,
        "AfterTool" => Phase::After,
        "AfterAgent" => Phase::Stop,
        _ => Phase::Ignored,
    }
}

pub(super) fn touches(tool: &str, input: &ToolInput) -> Touches {
    match tool {
        "write_file" | "replace" => input.file(&["file_path"]),
        "run_shell_command" => Touches::Worktree,
        _ => Touches::Nothing,
    }
}
