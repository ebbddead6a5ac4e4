//! Installing git-clada's hooks in an agent's settings file, and removing them: the file is
//! read as JSON, git-clada's handlers (recognised by their command) are replaced or removed,
//! everything else — the user's other hooks and settings, in their order — is written back
//! as it was. Installing twice changes nothing. Two shapes (agent-hooks.md): Claude Code's,
//! Gemini CLI's and Codex's `hooks.json` nest event → matcher groups → `hooks` handlers
//! (§1.2, §3.1, §3.2); Cursor's `hooks.json` lists handlers per event, with `version: 1` (§2.1).
//! Which files each agent reads, and so which scopes it has, is [`file`]'s.

use std::path::{Path, PathBuf};

use serde_json::{json, Map, Value};

use super::payload::{agent_name, AgentKind};

/// The events git-clada's hooks handle for `agent`, and their matcher (`None`: the event
/// takes none, or the shape has no matcher level).
fn events(agent: AgentKind) -> &'static [(&'static str, Option<&'static str>)] {
    match agent {
        AgentKind::ClaudeCode | AgentKind::Codex => &[
            ("PreToolUse", Some("*")),
            ("PostToolUse", Some("*")),
            ("Stop", None),
        ],
        AgentKind::Gemini => &[
            ("BeforeTool", Some("*")),
            ("AfterTool", Some("*")),
            ("AfterAgent", None),
        ],
        // `afterFileEdit` for the Cursor versions without `preToolUse`; on newer ones the
        // same edit is reported by both and recorded once (`calls`).
        AgentKind::Cursor => &[
            ("preToolUse", None),
            ("postToolUse", None),
            ("afterFileEdit", None),
            ("stop", None),
        ],
    }
}

/// The command a hook runs; `guarded` for a file committed to the repository, which
/// teammates without git-clada also load.
pub fn command(agent: AgentKind, guarded: bool) -> String {
    let cmd = format!("git clada agent-hook {}", agent_name(agent));
    match guarded {
        true => format!("command -v git-clada >/dev/null || exit 0; {cmd}"),
        false => cmd,
    }
}

/// Which settings file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// The user's own settings, for every project.
    User,
    /// The user's own settings for one project, not committed (Claude Code only).
    ProjectLocal,
    /// The repository's committed settings.
    Shared,
}

/// The settings file of `agent` for `scope`: `home` is the user's home folder, `root` the
/// repository's worktree (each needed only by its scopes). `Err` names what is missing, or
/// that the agent has no such scope.
pub fn file(
    agent: AgentKind,
    scope: Scope,
    home: Option<&Path>,
    root: Option<&Path>,
) -> Result<PathBuf, String> {
    let env_dir = |var: &str| {
        std::env::var_os(var)
            .filter(|d| !d.is_empty())
            .map(PathBuf::from)
    };
    let home = || {
        home.map(Path::to_path_buf)
            .ok_or_else(|| "cannot find your home folder (HOME is not set)".to_string())
    };
    let root = || {
        root.map(Path::to_path_buf)
            .ok_or_else(|| "not in a git repository".to_string())
    };
    match (agent, scope) {
        (AgentKind::ClaudeCode, Scope::User) => match env_dir("CLAUDE_CONFIG_DIR") {
            Some(d) => Ok(d.join("settings.json")),
            None => Ok(home()?.join(".claude").join("settings.json")),
        },
        (AgentKind::ClaudeCode, Scope::ProjectLocal) => {
            Ok(root()?.join(".claude").join("settings.local.json"))
        }
        (AgentKind::ClaudeCode, Scope::Shared) => Ok(root()?.join(".claude").join("settings.json")),
        (AgentKind::Cursor, Scope::User) => Ok(home()?.join(".cursor").join("hooks.json")),
        (AgentKind::Cursor, Scope::Shared) => Ok(root()?.join(".cursor").join("hooks.json")),
        (AgentKind::Gemini, Scope::User) => match env_dir("GEMINI_CLI_HOME") {
            Some(d) => Ok(d.join(".gemini").join("settings.json")),
            None => Ok(home()?.join(".gemini").join("settings.json")),
        },
        (AgentKind::Gemini, Scope::Shared) => Ok(root()?.join(".gemini").join("settings.json")),
        (AgentKind::Codex, Scope::User) => match env_dir("CODEX_HOME") {
            Some(d) => Ok(d.join("hooks.json")),
            None => Ok(home()?.join(".codex").join("hooks.json")),
        },
        (AgentKind::Codex, Scope::Shared) => Ok(root()?.join(".codex").join("hooks.json")),
        (_, Scope::ProjectLocal) => Err(format!(
            "{} has no personal settings file for one project (only Claude Code has); use --user or --shared",
            agent_name(agent)
        )),
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
    #[error("{path}: {what} is not a JSON object as the agent's settings have it; fix it by hand first (nothing was written)")]
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

/// Adds git-clada's hooks for `agent` to the settings file at `path` (created if missing).
pub fn install(agent: AgentKind, path: &Path, guarded: bool) -> Result<Edited, SettingsError> {
    let flat = agent == AgentKind::Cursor;
    edit(path, flat, |hooks| {
        remove_ours(hooks);
        for (event, matcher) in events(agent) {
            let handler = json!({"type": "command", "command": command(agent, guarded)});
            let entry = match flat {
                true => handler,
                false => {
                    let mut group = Map::new();
                    if let Some(m) = matcher {
                        group.insert("matcher".into(), json!(m));
                    }
                    group.insert("hooks".into(), json!([handler]));
                    Value::Object(group)
                }
            };
            let list = hooks.entry(*event).or_insert_with(|| json!([]));
            match list.as_array_mut() {
                Some(a) => a.push(entry),
                None => *list = json!([entry]),
            }
        }
    })
}

/// Removes git-clada's hooks from the settings file at `path`; the user's stay.
pub fn uninstall(agent: AgentKind, path: &Path) -> Result<Edited, SettingsError> {
    if !path.exists() {
        return Ok(Edited::Unchanged);
    }
    edit(path, agent == AgentKind::Cursor, remove_ours)
}

/// The hooks of git-ai (`git-ai checkpoint <preset> --hook-input stdin`, agent-hooks.md §4.1)
/// in the settings file at `path`: one line per event naming them, empty when none (or no
/// readable file).
pub fn git_ai_hooks(path: &Path) -> Vec<String> {
    let Ok(text) = std::fs::read_to_string(path) else {
        return Vec::new();
    };
    let Ok(doc) = serde_json::from_str::<Value>(&text) else {
        return Vec::new();
    };
    let Some(hooks) = doc.get("hooks").and_then(Value::as_object) else {
        return Vec::new();
    };
    let is_git_ai = |h: &Value| {
        h.get("command").and_then(Value::as_str).is_some_and(|c| {
            (c.contains("git-ai") || c.contains("git ai")) && c.contains("checkpoint")
        })
    };
    let mut out = Vec::new();
    for (event, list) in hooks {
        let found = list.as_array().is_some_and(|groups| {
            groups.iter().any(|g| {
                is_git_ai(g)
                    || g.get("hooks")
                        .and_then(Value::as_array)
                        .is_some_and(|hs| hs.iter().any(is_git_ai))
            })
        });
        if found {
            out.push(event.clone());
        }
    }
    out
}

/// Drops every git-clada handler, then the matcher groups and events it left empty.
fn remove_ours(hooks: &mut Map<String, Value>) {
    for list in hooks.values_mut() {
        let Some(groups) = list.as_array_mut() else {
            continue;
        };
        // Cursor's flat lists hold the handlers themselves.
        groups.retain(|g| !ours(g));
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
    flat: bool,
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
    let installed = !hooks.is_empty();
    if !installed {
        top.remove("hooks");
    }
    // Cursor reads a hooks file only with its schema version.
    if flat && installed && !top.contains_key("version") {
        top.insert("version".into(), json!(1));
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
