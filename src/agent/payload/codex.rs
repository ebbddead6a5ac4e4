//! Codex's hooks (agent-hooks.md §3.2): its event names, its shell tools, and the files an
//! apply_patch envelope names.

use std::path::PathBuf;

use super::{Phase, ToolInput, Touches};

pub(super) fn phase(event: &str) -> Phase {
    match event {
        "SessionStart" => Phase::Session,
        "PreToolUse" => Phase::Before,
        "PostToolUse" => Phase::After,
        "Stop" => Phase::Stop,
        _ => Phase::Ignored,
    }
}

pub(super) fn touches(tool: &str, input: &ToolInput) -> Touches {
    match tool {
        "apply_patch" => {
            let input = input.input;
            let text = input
                .and_then(|i| i.get("command").or_else(|| i.get("patch")))
                .and_then(|v| v.as_str())
                .or_else(|| input.and_then(|i| i.as_str()));
            match text {
                Some(t) => Touches::Files(patch_paths(t)),
                None => Touches::Worktree,
            }
        }
        "Bash" | "shell" | "exec_command" | "shell_command" => Touches::Worktree,
        _ => Touches::Nothing,
    }
}

/// The paths an apply_patch envelope names (`*** Add File:`, `*** Update File:`, `*** Move
/// to:`, `*** Delete File:`), in order, without repeats.
pub fn patch_paths(text: &str) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    for line in text.lines() {
        let line = line.trim_end_matches('\r');
        let path = [
            "*** Add File: ",
            "*** Update File: ",
            "*** Delete File: ",
            "*** Move to: ",
        ]
        .iter()
        .find_map(|h| line.strip_prefix(h))
        .map(str::trim);
        if let Some(p) = path.filter(|p| !p.is_empty()) {
            let p = PathBuf::from(p);
            if !out.contains(&p) {
                out.push(p);
            }
        }
    }
    out
}
