//! Codex's trust in git-clada's hooks. Codex runs a hook from a settings file only once the
//! user trusted it (`/hooks`), and headless `codex exec` skips an untrusted one silently.
//! Trust is kept in Codex's `config.toml` as `[hooks.state."<key>"] trusted_hash = "…"`:
//! the key is `<hooks.json path>:<event, snake_case>:<group index>:<handler index>`, the
//! hash `sha256:` over the handler's normalised identity (its event, its group's matcher,
//! the handler with its effective timeout) as canonical JSON. That is how Codex 0.171.0
//! computes it (openai/codex `codex-rs/hooks/src/engine/discovery.rs`, checked against the
//! `currentHash` its `app-server` reports in `hooks/list`); the identity has changed
//! between versions, so trust is written only for the versions in [`KNOWN`].
//!
//! `install codex --user` writes the trust of the handlers it wrote, each entry marked by
//! a comment, keeping the rest of `config.toml` (comments and layout) as it was;
//! `uninstall` removes those entries and the trust of git-clada's handlers, nothing else.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};
use toml_edit::{DocumentMut, Item, Table};

use super::settings::{ours, Edited};

/// The Codex versions whose trust keys and hashes git-clada computes as they do.
pub const KNOWN: &[&str] = &["0.171.0"];

/// The comment above each trust entry `install` wrote.
const MARK: &str =
    "# git-clada: trust for its own hook (`git clada agent-hook uninstall codex` removes it)";

/// What `codex --version` says of the Codex on PATH.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Installed {
    /// A version whose trust format git-clada knows.
    Known(String),
    /// Another version (or output git-clada cannot read).
    Unknown(String),
    /// No `codex` on PATH.
    Absent,
}

/// The Codex on PATH, by `codex --version` (`codex-cli 0.171.0`).
pub fn installed() -> Installed {
    let out = match std::process::Command::new("codex")
        .arg("--version")
        .stdin(std::process::Stdio::null())
        .output()
    {
        Ok(o) if o.status.success() => o,
        _ => return Installed::Absent,
    };
    let text = String::from_utf8_lossy(&out.stdout);
    let version = text
        .split_whitespace()
        .last()
        .unwrap_or_default()
        .to_string();
    match KNOWN.contains(&version.as_str()) {
        true => Installed::Known(version),
        false => Installed::Unknown(text.trim().to_string()),
    }
}

/// One of git-clada's handlers in a Codex `hooks.json`, as Codex keys and hashes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Handler {
    pub event: String,
    pub key: String,
    pub hash: String,
}

#[derive(Debug, thiserror::Error)]
pub enum TrustError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}, line {line}: not valid TOML ({message}); fix it by hand, or trust git-clada's hooks in Codex with /hooks instead (nothing was written)")]
    Toml {
        path: PathBuf,
        line: usize,
        message: String,
    },
    #[error("{path}: {what} is not a table as Codex writes it; trust git-clada's hooks in Codex with /hooks instead (nothing was written)")]
    Shape { path: PathBuf, what: String },
    #[error("cannot write {path}: {source}")]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// The path Codex keys the trust of the user's `hooks.json` at `hooks_json` by: a
/// `CODEX_HOME` is resolved (Codex canonicalises it), `~/.codex` is taken as it is.
pub fn user_key_path(hooks_json: &Path) -> PathBuf {
    let from_env = std::env::var_os("CODEX_HOME").is_some_and(|v| !v.is_empty());
    match (from_env, hooks_json.parent(), hooks_json.file_name()) {
        (true, Some(dir), Some(name)) => std::fs::canonicalize(dir)
            .map(|d| d.join(name))
            .unwrap_or_else(|_| hooks_json.to_path_buf()),
        _ => hooks_json.to_path_buf(),
    }
}

/// git-clada's handlers in the Codex `hooks.json` at `hooks_json`, keyed by `key_path`
/// (empty when the file is missing or not JSON); with `only`, just those running exactly
/// that command (what `install` trusts: never a handler that merely mentions git-clada).
pub fn handlers(hooks_json: &Path, key_path: &Path, only: Option<&str>) -> Vec<Handler> {
    let Some(doc) = std::fs::read_to_string(hooks_json)
        .ok()
        .and_then(|t| serde_json::from_str::<Value>(&t).ok())
    else {
        return Vec::new();
    };
    let Some(hooks) = doc.get("hooks").and_then(Value::as_object) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (event, groups) in hooks {
        let label = snake_case(event);
        for (g, group) in groups.as_array().into_iter().flatten().enumerate() {
            let matcher = group.get("matcher").and_then(Value::as_str);
            // Codex ignores the matcher of the events that take none.
            let matcher =
                matcher.filter(|_| !matches!(event.as_str(), "Stop" | "UserPromptSubmit"));
            let list = group.get("hooks").and_then(Value::as_array);
            for (h, handler) in list.into_iter().flatten().enumerate() {
                let runs = handler.get("command").and_then(Value::as_str);
                if !ours(handler) || only.is_some_and(|c| runs != Some(c)) {
                    continue;
                }
                out.push(Handler {
                    event: event.clone(),
                    key: format!("{}:{label}:{g}:{h}", key_path.display()),
                    hash: hash(&label, matcher, handler),
                });
            }
        }
    }
    out
}

/// `PreToolUse` → `pre_tool_use`, as Codex labels events in trust keys.
fn snake_case(event: &str) -> String {
    let mut out = String::with_capacity(event.len() + 4);
    for (i, c) in event.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// Codex 0.171.0's trust hash of a command handler: SHA-256 of the canonical JSON (keys
/// sorted, no spaces) of `{event_name, matcher?, hooks: [{type, command, timeout, async,
/// statusMessage?}]}`, the timeout defaulting to 600 seconds.
fn hash(label: &str, matcher: Option<&str>, handler: &Value) -> String {
    use sha2::Digest;
    let command = handler.get("command").and_then(Value::as_str).unwrap_or("");
    let timeout = handler
        .get("timeout")
        .and_then(Value::as_u64)
        .unwrap_or(600)
        .max(1);
    let mut hook: BTreeMap<&str, Value> = BTreeMap::new();
    hook.insert(
        "async",
        json!(handler
            .get("async")
            .and_then(Value::as_bool)
            .unwrap_or(false)),
    );
    hook.insert("command", json!(command));
    if let Some(m) = handler.get("statusMessage").and_then(Value::as_str) {
        hook.insert("statusMessage", json!(m));
    }
    hook.insert("timeout", json!(timeout));
    hook.insert("type", json!("command"));
    let mut identity: BTreeMap<&str, Value> = BTreeMap::new();
    identity.insert("event_name", json!(label));
    identity.insert("hooks", json!([hook]));
    if let Some(m) = matcher {
        identity.insert("matcher", json!(m));
    }
    let bytes = serde_json::to_vec(&identity).unwrap_or_default();
    let digest = sha2::Sha256::digest(&bytes);
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

/// What Codex's `config.toml` says of one handler's trust.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    Trusted,
    /// Trusted once, with another hash: the handler changed since (Codex's "modified").
    Modified,
    Untrusted,
    /// Turned off in Codex (`enabled = false`).
    Disabled,
}

/// The trust state of each of `handlers` in the `config.toml` at `config`.
pub fn states(config: &Path, handlers: &[Handler]) -> Result<Vec<State>, TrustError> {
    let doc = read(config)?;
    let state = doc
        .get("hooks")
        .and_then(|h| h.get("state"))
        .and_then(Item::as_table_like);
    Ok(handlers
        .iter()
        .map(|h| {
            let entry = state.and_then(|s| s.get(&h.key));
            let enabled = entry.and_then(|e| e.get("enabled")).and_then(Item::as_bool);
            let hash = entry
                .and_then(|e| e.get("trusted_hash"))
                .and_then(Item::as_str);
            match (enabled, hash) {
                (Some(false), _) => State::Disabled,
                (_, Some(x)) if x == h.hash => State::Trusted,
                (_, Some(_)) => State::Modified,
                (_, None) => State::Untrusted,
            }
        })
        .collect())
}

/// Reads `config` (an empty document when missing); a file that is not TOML is an error
/// naming its line.
fn read(config: &Path) -> Result<DocumentMut, TrustError> {
    let text = match std::fs::read_to_string(config) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(source) => {
            return Err(TrustError::Read {
                path: config.to_path_buf(),
                source,
            })
        }
    };
    text.parse::<DocumentMut>().map_err(|e| {
        let at = e.span().map(|s| s.start).unwrap_or(0).min(text.len());
        TrustError::Toml {
            path: config.to_path_buf(),
            line: text[..at].matches('\n').count() + 1,
            message: e.message().trim().to_string(),
        }
    })
}

/// Checks that `config` can be edited (it parses, and its `hooks` and `hooks.state` are
/// tables), without writing: `install` asks before it writes anything.
pub fn check(config: &Path) -> Result<(), TrustError> {
    let mut doc = read(config)?;
    state_table(&mut doc, config, false).map(|_| ())
}

/// `hooks.state` of `doc`, created (as implicit tables: no header of their own) when `make`.
fn state_table<'d>(
    doc: &'d mut DocumentMut,
    config: &Path,
    make: bool,
) -> Result<Option<&'d mut Table>, TrustError> {
    let shape = |what: &str| TrustError::Shape {
        path: config.to_path_buf(),
        what: what.to_string(),
    };
    let implicit = || {
        let mut t = Table::new();
        t.set_implicit(true);
        Item::Table(t)
    };
    if !make && doc.get("hooks").is_none() {
        return Ok(None);
    }
    let hooks = doc.entry("hooks").or_insert_with(implicit);
    let hooks = hooks.as_table_mut().ok_or_else(|| shape("`hooks`"))?;
    if !make && hooks.get("state").is_none() {
        return Ok(None);
    }
    let state = hooks.entry("state").or_insert_with(implicit);
    state
        .as_table_mut()
        .map(Some)
        .ok_or_else(|| shape("`hooks.state`"))
}

/// Writes the trust of `handlers` (git-clada's, as `install` left them) into `config`, and
/// drops the entries it wrote earlier for handlers no longer at those keys.
pub fn trust(config: &Path, handlers: &[Handler]) -> Result<Edited, TrustError> {
    let mut doc = read(config)?;
    let before = doc.to_string();
    let Some(state) = state_table(&mut doc, config, true)? else {
        return Ok(Edited::Unchanged);
    };
    let stale: Vec<String> = state
        .iter()
        .filter(|(k, item)| marked(item) && !handlers.iter().any(|h| h.key == *k))
        .map(|(k, _)| k.to_string())
        .collect();
    for k in stale {
        state.remove(&k);
    }
    // A blank line before each entry, except at the top of a file that had nothing.
    let mut lead = if before.trim().is_empty() { "" } else { "\n" };
    for h in handlers {
        match state.get_mut(&h.key).and_then(Item::as_table_mut) {
            Some(entry) => {
                if entry.get("trusted_hash").and_then(Item::as_str) != Some(h.hash.as_str()) {
                    entry.insert("trusted_hash", toml_edit::value(h.hash.as_str()));
                }
            }
            None => {
                let mut entry = Table::new();
                entry.decor_mut().set_prefix(format!("{lead}{MARK}\n"));
                lead = "\n";
                entry.insert("trusted_hash", toml_edit::value(h.hash.as_str()));
                state.insert(&h.key, Item::Table(entry));
            }
        }
    }
    write_if_changed(config, &mut doc, &before)
}

/// Removes from `config` the entries `install` wrote, and the trust of `handlers` (the
/// `trusted_hash` that trusts exactly one of them) from entries it did not.
pub fn untrust(config: &Path, handlers: &[Handler]) -> Result<Edited, TrustError> {
    if !config.exists() {
        return Ok(Edited::Unchanged);
    }
    let mut doc = read(config)?;
    let before = doc.to_string();
    let Some(state) = state_table(&mut doc, config, false)? else {
        return Ok(Edited::Unchanged);
    };
    let keys: Vec<String> = state.iter().map(|(k, _)| k.to_string()).collect();
    for k in keys {
        let Some(item) = state.get_mut(&k) else {
            continue;
        };
        if marked(item) {
            state.remove(&k);
            continue;
        }
        let ours = handlers.iter().find(|h| h.key == k);
        if let (Some(h), Some(entry)) = (ours, item.as_table_like_mut()) {
            if entry.get("trusted_hash").and_then(Item::as_str) == Some(h.hash.as_str()) {
                entry.remove("trusted_hash");
            }
            if entry.is_empty() {
                state.remove(&k);
            }
        }
    }
    write_if_changed(config, &mut doc, &before)
}

/// Whether `item` is an entry `install` wrote (its comment).
fn marked(item: &Item) -> bool {
    item.as_table()
        .and_then(|t| t.decor().prefix())
        .and_then(|p| p.as_str())
        .is_some_and(|p| p.contains(MARK))
}

/// Writes `doc` to `config` when it differs from `before`, dropping the `hooks.state` and
/// `hooks` tables an uninstall left empty when they have no header of their own.
fn write_if_changed(
    config: &Path,
    doc: &mut DocumentMut,
    before: &str,
) -> Result<Edited, TrustError> {
    if let Some(hooks) = doc.get_mut("hooks").and_then(Item::as_table_mut) {
        let empty_state = hooks
            .get("state")
            .and_then(Item::as_table)
            .is_some_and(|t| t.is_empty() && t.is_implicit());
        if empty_state {
            hooks.remove("state");
        }
    }
    let empty_hooks = doc
        .get("hooks")
        .and_then(Item::as_table)
        .is_some_and(|t| t.is_empty() && t.is_implicit());
    if empty_hooks {
        doc.remove("hooks");
    }
    let text = doc.to_string();
    if text == before {
        return Ok(Edited::Unchanged);
    }
    clada_base::fsutil::write_atomic_creating_dir(
        config,
        text.as_bytes(),
        clada_base::fsutil::Perm::KeepExisting {
            executable_if_new: false,
        },
    )
    .map_err(|source| TrustError::Write {
        path: config.to_path_buf(),
        source,
    })?;
    Ok(Edited::Written)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The `currentHash` Codex 0.171.0's `app-server` reported (`hooks/list`) for these
    /// handlers in a `hooks.json`.
    #[test]
    fn hashes_match_what_codex_0_171_0_reports() {
        let ours = json!({"type": "command", "command": "git clada agent-hook codex"});
        assert_eq!(
            hash("pre_tool_use", Some("*"), &ours),
            "sha256:f1c932f5c2fed03e04bc3a7e02773a531c0ed30af9edb7c1ea2b9ab6302160b2"
        );
        assert_eq!(
            hash("post_tool_use", Some("*"), &ours),
            "sha256:b3f022deaaf494e1a4d43f449af009b85c14b228f52945f33ed86f81ce9ea6d7"
        );
        assert_eq!(
            hash("stop", None, &ours),
            "sha256:d172956d9c065adc6ab2a7b0fe6bc9d0da706544b0372a21419b3b6cca2c6187"
        );
        assert_eq!(
            hash("session_start", None, &ours),
            "sha256:be61c470116ce77e39703830a4b502a070630a7a5c7ae66d415a43cf7a2eb29d"
        );
        let other = json!({"type": "command", "command": "echo x", "timeout": 5});
        assert_eq!(
            hash("permission_request", Some("*"), &other),
            "sha256:29fd14a36a148f18feaf78fa8bc92231f2524b8e4544d709f433485badf3c98b"
        );
    }

    #[test]
    fn event_labels_are_snake_case() {
        assert_eq!(snake_case("PreToolUse"), "pre_tool_use");
        assert_eq!(snake_case("Stop"), "stop");
        assert_eq!(snake_case("UserPromptSubmit"), "user_prompt_submit");
    }
}
