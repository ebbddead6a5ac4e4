//! The stable machine-readable `code` of every failed result (docs/json-format.md): agents and
//! the MCP server branch on it, never on the message text. The seeds' names where they have
//! one (`file_not_found`, `match_count_mismatch`, `permission_denied`, `exec_timeout`,
//! `exec_failed`, `command_not_allowed`, `path_escape`, …).
//!
//! An executor may set the code of its failure itself ([`super::Outcome::with_code`]); else it is
//! derived here from the error's errno (`ENOENT: …`), the match hint and the exec data, which
//! every executor already states in a fixed form.

use serde_json::Value;

use super::textmatch::Hint;

/// Every code a failed result can carry, with what it means (the documentation's table is
/// checked against this list).
pub const CODES: &[(&str, &str)] = &[
    (
        "file_not_found",
        "a path the action reads or changes does not exist",
    ),
    (
        "file_exists",
        "file_create (or a directory) where something already exists",
    ),
    ("permission_denied", "the file system refused access"),
    ("is_a_directory", "a file action on a directory"),
    (
        "not_a_directory",
        "a directory action on a file, or a file in the way of a folder",
    ),
    (
        "directory_not_empty",
        "dir_delete of a non-empty directory without recursive",
    ),
    ("disk_full", "no space left on the device"),
    (
        "search_not_found",
        "old_text (or start_text/end_text) is not in the file",
    ),
    (
        "match_count_mismatch",
        "old_text occurs more or fewer times than the action expects",
    ),
    (
        "already_applied",
        "old_text is gone and new_text is there: the block took effect before",
    ),
    (
        "invalid_line_range",
        "a line specification that does not parse or is reversed",
    ),
    (
        "line_out_of_range",
        "a line range beyond the end of the file",
    ),
    (
        "lines_overlap",
        "lines an earlier block of the reply already changed",
    ),
    (
        "not_text",
        "a text action on a binary, huge or non-UTF-8 file",
    ),
    (
        "invalid_value",
        "a parameter value the action cannot use (an empty old_text, a bad pattern)",
    ),
    ("exec_failed", "the command exited with a non-zero status"),
    (
        "exec_timeout",
        "the command ran out of time (its own, or the reply's total)",
    ),
    (
        "command_not_allowed",
        "exec is not allowed or the command not approved (needs the user)",
    ),
    (
        "sandbox_denied",
        "the OS sandbox kept an approved command from reading a folder of the user's, such as a toolchain under ~ (needs the user: sandbox.read)",
    ),
    (
        "path_escape",
        "a path outside the worktree (needs the user: --allow-outside)",
    ),
    (
        "path_denied",
        "a path the configuration's paths.deny names (needs the user)",
    ),
    (
        "symlink_escape",
        "a path through a symlink that leads outside the worktree",
    ),
    (
        "git_dir",
        "a path inside git's own data, or a name git refuses",
    ),
    (
        "path_changed",
        "a directory of the path was replaced (by a symlink, say) while git-clada was writing; nothing was written",
    ),
    ("invalid_path", "an empty, overlong or malformed path"),
    (
        "root_dir",
        "the worktree root where an entry inside it is needed",
    ),
    (
        "submodule",
        "a path inside a submodule or nested repository",
    ),
    (
        "protected_config",
        "a write to git-clada's own configuration, which only the user changes (needs the user)",
    ),
    (
        "protected_hook",
        "a write to a file git or a hook manager runs on the user's next commit (needs the user)",
    ),
    (
        "not_run",
        "not run because another block of its group failed",
    ),
    (
        "rolled_back",
        "it ran, but its change was rolled back with its group or reply",
    ),
    (
        "write_failed",
        "the file could not be written after the block edited it",
    ),
    ("action_failed", "any other failure (the message says what)"),
];

/// The code of a failure from its error text, hint and data.
pub fn infer(error: &str, hint: Option<&Hint>, data: Option<&Value>) -> &'static str {
    match hint {
        Some(Hint::NotFound { .. }) => return "search_not_found",
        Some(Hint::Ambiguous { .. } | Hint::CountMismatch { .. }) => return "match_count_mismatch",
        Some(Hint::AlreadyApplied { .. }) => return "already_applied",
        Some(Hint::MissingPath { .. }) => return "file_not_found",
        None => {}
    }
    if error.contains("(TIMEOUT)") {
        return "exec_timeout";
    }
    if data
        .and_then(|d| d.get("exit_code"))
        .and_then(Value::as_i64)
        .is_some_and(|c| c != 0)
    {
        return "exec_failed";
    }
    const ERRNO: &[(&str, &str)] = &[
        ("ENOENT", "file_not_found"),
        ("EEXIST", "file_exists"),
        ("EACCES", "permission_denied"),
        ("EPERM", "permission_denied"),
        ("EISDIR", "is_a_directory"),
        ("ENOTDIR", "not_a_directory"),
        ("ENOTEMPTY", "directory_not_empty"),
        ("ENOSPC", "disk_full"),
    ];
    for (errno, code) in ERRNO {
        if error.starts_with(errno) || error.contains(&format!("({errno})")) {
            return code;
        }
    }
    let first = error.lines().next().unwrap_or_default();
    if first.starts_with("git_dir:") {
        return "git_dir";
    }
    if first.starts_with("path_changed:") {
        return "path_changed";
    }
    if first.contains("is out of bounds") {
        return "line_out_of_range";
    }
    if first.contains("Invalid line") {
        return "invalid_line_range";
    }
    if first.contains("already changed by block") {
        return "lines_overlap";
    }
    if first.contains("cannot be empty")
        || first.contains("invalid regular expression")
        || first.contains("invalid include glob")
        || first.contains("invalid pattern")
        || first.contains("No paths provided")
    {
        return "invalid_value";
    }
    if first.starts_with("file_patch: hunks line") {
        return "invalid_value";
    }
    if first.starts_with("file_patch: ") && first.contains("' already exists") {
        return "file_exists";
    }
    if first.contains("looks binary") || first.contains("limit for text actions") {
        return "not_text";
    }
    "action_failed"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_map_to_their_codes() {
        assert_eq!(
            infer("ENOENT: no such file or directory, open 'a'", None, None),
            "file_not_found"
        );
        assert_eq!(
            infer("file_move: Source file not found 'a' (ENOENT)", None, None),
            "file_not_found"
        );
        assert_eq!(
            infer("EEXIST: file already exists", None, None),
            "file_exists"
        );
        assert_eq!(
            infer("exec: Process timeout after 1s (TIMEOUT)", None, None),
            "exec_timeout"
        );
        assert_eq!(
            infer(
                "exec: exited with code 2",
                None,
                Some(&serde_json::json!({"exit_code": 2}))
            ),
            "exec_failed"
        );
        assert_eq!(
            infer(
                "file_replace_lines: Line range 9 is out of bounds (file has 3 lines)",
                None,
                None
            ),
            "line_out_of_range"
        );
        assert_eq!(infer("something else", None, None), "action_failed");
        for (code, _) in CODES {
            assert!(!code.is_empty() && code.chars().all(|c| c.is_ascii_lowercase() || c == '_'));
        }
    }
}
