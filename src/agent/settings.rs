//! Installing git-clada's hooks in an agent's settings file, and removing them: the file is
//! read as JSON, git-clada's handlers (recognised by their command) are replaced or removed,
//! everything else — the user's other hooks and settings, in their order — is written back
//! as it was. Installing twice changes nothing. Claude Code's shape (agent-hooks.md §1.2):
//! `hooks` → event → matcher groups → `hooks` handlers.

use std::path::{Path, PathBuf};

use serde_json::{json, Map, Value};

/// The events git-clada's Claude Code hooks handle, and their matcher (`None`: the event
/// takes none).
const CLAUDE_EVENTS: [(&str, Option<&str>); 3] = [
    ("PreToolUse", Some("*")),
    ("PostToolUse", Some("*")),
    ("Stop", None),
];

/// The command a hook runs; `guarded` for a file committed to the repository, which
/// teammates without git-clada also load.
pub fn claude_command(guarded: bool) -> String {
    let cmd = "git clada agent-hook claude-code";
    match guarded {
        true => format!("command -v git-clada >/dev/null || exit 0; {cmd}"),
        false => cmd.to_string(),
    }
}

/// Whether a handler is one of git-clada's.
fn ours(handler: &Value) -> bool {
    handler
        .get("command")
        .and_then(Value::as_str)
        .is_some_and(|c| c.contains("git clada agent-hook") || c.contains("git-clada agent-hook"))
}

#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path} is not valid JSON ({source}); fix it by hand first (nothing was written)")]
    Json {
        path: PathBuf,
        #[source]
        source: serde_json::Error,
    },
    #[error("{path}: {what} is not a JSON object as Claude Code's settings have it; fix it by hand first (nothing was written)")]
    Shape { path: PathBuf, what: String },
    #[error("cannot write {path}: {source}")]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// What an install or uninstall did to the file.
#[derive(Debug, PartialEq, Eq)]
pub enum Edited {
    Written,
    Unchanged,
}

/// Adds git-clada's Claude Code hooks to the settings file at `path` (created if missing).
pub fn install_claude(path: &Path, guarded: bool) -> Result<Edited, SettingsError> {
    edit(path, |hooks| {
        remove_ours(hooks);
        for (event, matcher) in CLAUDE_EVENTS {
            let mut group = Map::new();
            if let Some(m) = matcher {
                group.insert("matcher".into(), json!(m));
            }
            group.insert(
                "hooks".into(),
                json!([{"type": "command", "command": claude_command(guarded)}]),
            );
            let list = hooks.entry(event).or_insert_with(|| json!([]));
            match list.as_array_mut() {
                Some(a) => a.push(Value::Object(group)),
                None => *list = json!([Value::Object(group)]),
            }
        }
    })
}

/// Removes git-clada's hooks from the settings file at `path`; the user's stay.
pub fn uninstall_claude(path: &Path) -> Result<Edited, SettingsError> {
    if !path.exists() {
        return Ok(Edited::Unchanged);
    }
    edit(path, remove_ours)
}

/// Drops every git-clada handler, then the matcher groups and events it left empty.
fn remove_ours(hooks: &mut Map<String, Value>) {
    for list in hooks.values_mut() {
        let Some(groups) = list.as_array_mut() else {
            continue;
        };
        for g in groups.iter_mut() {
            if let Some(hs) = g.get_mut("hooks").and_then(Value::as_array_mut) {
                hs.retain(|h| !ours(h));
            }
        }
        groups.retain(|g| {
            g.get("hooks")
                .and_then(Value::as_array)
                .is_none_or(|hs| !hs.is_empty())
        });
    }
    hooks.retain(|_, list| list.as_array().is_none_or(|a| !a.is_empty()));
}

/// Reads `path` (an empty object when missing), lets `change` edit its `hooks` object, and
/// writes it back atomically when it changed.
fn edit(
    path: &Path,
    change: impl FnOnce(&mut Map<String, Value>),
) -> Result<Edited, SettingsError> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(source) => {
            return Err(SettingsError::Read {
                path: path.to_path_buf(),
                source,
            })
        }
    };
    let mut doc: Value = match text.trim().is_empty() {
        true => json!({}),
        false => serde_json::from_str(&text).map_err(|source| SettingsError::Json {
            path: path.to_path_buf(),
            source,
        })?,
    };
    let before = doc.clone();
    let shape = |what: &str| SettingsError::Shape {
        path: path.to_path_buf(),
        what: what.to_string(),
    };
    let top = doc.as_object_mut().ok_or_else(|| shape("the file"))?;
    let hooks = top.entry("hooks").or_insert_with(|| json!({}));
    let hooks = hooks.as_object_mut().ok_or_else(|| shape("`hooks`"))?;
    change(hooks);
    if hooks.is_empty() {
        top.remove("hooks");
    }
    if doc == before {
        return Ok(Edited::Unchanged);
    }
    let mut out = serde_json::to_string_pretty(&doc).map_err(|source| SettingsError::Json {
        path: path.to_path_buf(),
        source,
    })?;
    out.push('\n');
    crate::base::fsutil::write_atomic_creating_dir(
        path,
        out.as_bytes(),
        crate::base::fsutil::Perm::Executable(false),
    )
    .map_err(|source| SettingsError::Write {
        path: path.to_path_buf(),
        source,
    })?;
    Ok(Edited::Written)
}

/// Claude Code's user settings file: `$CLAUDE_CONFIG_DIR/settings.json`, else
/// `~/.claude/settings.json`.
pub fn claude_user_file() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("CLAUDE_CONFIG_DIR").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(dir).join("settings.json"));
    }
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(|h| PathBuf::from(h).join(".claude").join("settings.json"))
}
