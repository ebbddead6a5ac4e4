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
/// takes none, or the shape has no matcher level): every event that starts or ends a tool
/// call (a failed call ends in its own event where the agent has one) and the turn's end,
/// and Claude Code's `SessionStart`, the only event of its that names the model (the
/// other agents name it in every payload, or, Gemini CLI, in none). Sources per event:
/// docs/agents.md's table.
pub fn events(agent: AgentKind) -> &'static [(&'static str, Option<&'static str>)] {
    match agent {
        AgentKind::ClaudeCode => &[
            ("PreToolUse", Some("*")),
            ("PostToolUse", Some("*")),
            ("PostToolUseFailure", Some("*")),
            ("PermissionDenied", Some("*")),
            ("Stop", None),
            ("SessionStart", None),
        ],
        AgentKind::Codex => &[
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
            ("postToolUseFailure", None),
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
pub fn ours(handler: &Value) -> bool {
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

/// What [`install`] did: whether it wrote the file, and the events it added to an install
/// that had some of git-clada's hooks already (an older one; empty for a first install).
#[derive(Debug)]
pub struct Installed {
    pub edited: Edited,
    pub added: Vec<&'static str>,
}

/// Adds git-clada's hooks for `agent` to the settings file at `path` (created if missing).
/// Handlers already in place stay where they are (Codex's trust is keyed by their place);
/// an event an older install lacks gets its handler; a handler of git-clada's that is not
/// wanted any more (another command, an event no longer registered, a second copy) goes.
pub fn install(agent: AgentKind, path: &Path, guarded: bool) -> Result<Installed, SettingsError> {
    let flat = agent == AgentKind::Cursor;
    let cmd = command(agent, guarded);
    let mut added = Vec::new();
    let edited = edit(path, flat, |hooks| {
        let had_any = hooks.values().any(holds_ours);
        keep_wanted(hooks, events(agent), &cmd, flat);
        for (event, matcher) in events(agent) {
            let list = hooks.entry(*event).or_insert_with(|| json!([]));
            if !list.is_array() {
                *list = json!([]);
            }
            if present(list, *matcher, &cmd, flat) {
                continue;
            }
            let handler = json!({"type": "command", "command": cmd});
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
            if let Some(a) = list.as_array_mut() {
                a.push(entry);
            }
            if had_any {
                added.push(*event);
            }
        }
    })?;
    Ok(Installed { edited, added })
}

/// Which of `agent`'s events have git-clada's handler in the settings file at `path`:
/// `None` when the file holds none of its handlers (or cannot be read as settings).
pub fn installed_events(agent: AgentKind, path: &Path) -> Option<Vec<&'static str>> {
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()?;
    let hooks = doc.get("hooks")?.as_object()?;
    if !hooks.values().any(holds_ours) {
        return None;
    }
    let found = events(agent)
        .iter()
        .filter(|(event, _)| hooks.get(*event).is_some_and(holds_ours))
        .map(|(event, _)| *event)
        .collect();
    Some(found)
}

/// Whether an event's list holds one of git-clada's handlers (either shape).
fn holds_ours(list: &Value) -> bool {
    list.as_array().is_some_and(|entries| {
        entries.iter().any(|e| {
            ours(e)
                || e.get("hooks")
                    .and_then(Value::as_array)
                    .is_some_and(|hs| hs.iter().any(ours))
        })
    })
}

/// Whether `list` has git-clada's handler running `cmd` (in a group with `matcher`).
fn present(list: &Value, matcher: Option<&str>, cmd: &str, flat: bool) -> bool {
    let runs = |h: &Value| h.get("command").and_then(Value::as_str) == Some(cmd);
    list.as_array().is_some_and(|entries| {
        entries.iter().any(|e| match flat {
            true => runs(e),
            false => {
                e.get("matcher").and_then(Value::as_str) == matcher
                    && e.get("hooks")
                        .and_then(Value::as_array)
                        .is_some_and(|hs| hs.iter().any(runs))
            }
        })
    })
}

/// Drops git-clada's handlers that an install would not write: in an event not in
/// `wanted`, running another command, in a group of another matcher, or a second copy.
fn keep_wanted(
    hooks: &mut Map<String, Value>,
    wanted: &[(&'static str, Option<&'static str>)],
    cmd: &str,
    flat: bool,
) {
    for (event, list) in hooks.iter_mut() {
        let Some(entries) = list.as_array_mut() else {
            continue;
        };
        let want = wanted.iter().find(|(e, _)| e == event).map(|(_, m)| *m);
        let mut kept = false;
        let mut keep = |h: &Value, matcher: Option<&str>| {
            let ok = !kept
                && want.is_some_and(|m| m == matcher)
                && h.get("command").and_then(Value::as_str) == Some(cmd);
            kept |= ok;
            ok
        };
        // A handler at the group level of the nested shape is misplaced: it goes.
        entries.retain(|e| !ours(e) || (flat && keep(e, None)));
        for e in entries.iter_mut() {
            let matcher = e.get("matcher").and_then(Value::as_str).map(str::to_string);
            if let Some(hs) = e.get_mut("hooks").and_then(Value::as_array_mut) {
                hs.retain(|h| !ours(h) || keep(h, matcher.as_deref()));
            }
        }
        entries.retain(|g| {
            g.get("hooks")
                .and_then(Value::as_array)
                .is_none_or(|hs| !hs.is_empty())
        });
    }
    hooks.retain(|_, list| list.as_array().is_none_or(|a| !a.is_empty()));
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
    clada_base::fsutil::write_atomic_creating_dir(
        path,
        out.as_bytes(),
        clada_base::fsutil::Perm::Executable(false),
    )
    .map_err(|source| SettingsError::Write {
        path: path.to_path_buf(),
        source,
    })?;
    Ok(Edited::Written)
}

/// The line `install claude-code --project-local` adds to the repository's
/// `info/exclude`, so the personal settings file is neither committed by a `git add -A`
/// nor shown as untracked: Claude Code's `.claude/settings.local.json`, from the top of
/// each worktree.
pub const LOCAL_EXCLUDE: &str = "/.claude/settings.local.json";

/// Adds [`LOCAL_EXCLUDE`] to `<common_dir>/info/exclude` (created if missing; once), or
/// removes exactly that line, leaving the rest of the file as it was.
pub fn exclude_project_local(common_dir: &Path, add: bool) -> Result<Edited, SettingsError> {
    let path = common_dir.join("info").join("exclude");
    let text = match std::fs::read(&path) {
        Ok(b) => String::from_utf8_lossy(&b).into_owned(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(source) => return Err(SettingsError::Read { path, source }),
    };
    let has = text.split('\n').any(|l| l == LOCAL_EXCLUDE);
    let new = match (add, has) {
        (true, false) => {
            let sep = if text.is_empty() || text.ends_with('\n') {
                ""
            } else {
                "\n"
            };
            format!("{text}{sep}{LOCAL_EXCLUDE}\n")
        }
        (false, true) => {
            let mut out = String::with_capacity(text.len());
            for line in text.split_inclusive('\n') {
                if line.trim_end_matches('\n') != LOCAL_EXCLUDE {
                    out.push_str(line);
                }
            }
            out
        }
        _ => return Ok(Edited::Unchanged),
    };
    clada_base::fsutil::write_atomic_creating_dir(
        &path,
        new.as_bytes(),
        clada_base::fsutil::Perm::KeepExisting {
            executable_if_new: false,
        },
    )
    .map_err(|source| SettingsError::Write { path, source })?;
    Ok(Edited::Written)
}
