//! `idempotency_key` on `apply` and `edit`: a retry after a timeout must not apply twice.
//!
//! A call that carries a key runs once; its outcome is remembered in the git dir
//! (`clada/mcp-idempotency.json`) for 24 hours. A later call with the same key and the same
//! arguments (the same tool, the same JSON, key order aside) gets that outcome back, marked
//! as a replay (`replay: true`, a first line saying so), and nothing runs; the same key with
//! other arguments is refused. A call that stopped before it ran (a fatal error: the lock
//! held, bad arguments, a refusal) is not remembered, so its retry runs.
//!
//! The check, the call and the write of its outcome happen under one lock of the store
//! (`clada/mcp-idempotency.json.lock`), so two servers retrying the same key cannot both
//! apply it. The file is bounded: expired entries are pruned on every write, then the oldest
//! beyond [`MAX_ENTRIES`] or [`MAX_FILE_BYTES`], and an outcome too large to keep is kept
//! without its actions' output.

use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};

use clada_base::fsutil::{self, Perm};
use clada_git::Repo;

use super::outcome::Outcome;

/// How long a key is remembered.
pub const KEEP_SECS: u64 = 24 * 60 * 60;
/// The most entries kept (the newest).
const MAX_ENTRIES: usize = 256;
/// The most bytes the store file may hold; the oldest entries go first.
const MAX_FILE_BYTES: usize = 4 << 20;
/// An outcome larger than this is kept without its actions' `data` and with its text cut.
const MAX_ENTRY_BYTES: usize = 256 << 10;
/// The longest key accepted.
const MAX_KEY_BYTES: usize = 256;
/// The store's name in `<git-dir>/clada/`.
const STORE: &str = "mcp-idempotency.json";

/// One remembered call.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Entry {
    key: String,
    tool: String,
    /// SHA-256 of the canonical arguments (without the key).
    args: String,
    /// Seconds since the Unix epoch when the call finished.
    at: u64,
    text: String,
    structured: Option<Value>,
    #[serde(rename = "isError")]
    is_error: bool,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct Store {
    version: u32,
    entries: Vec<Entry>,
}

/// Takes `idempotency_key` out of `args`: `Ok(None)` when there is none, an error message
/// when it is not a usable key.
pub fn take_key(args: &mut Map<String, Value>) -> Result<Option<String>, String> {
    match args.remove("idempotency_key") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(k)) if !k.is_empty() && k.len() <= MAX_KEY_BYTES => Ok(Some(k)),
        Some(_) => Err(format!(
            "`idempotency_key` must be a non-empty string of at most {MAX_KEY_BYTES} bytes"
        )),
    }
}

/// Runs `run` (the call of `tool` with `args`, the key already taken out) once per `key`:
/// a retry with the same arguments within [`KEEP_SECS`] gets the first outcome back.
pub fn once(
    root: &Path,
    tool: &str,
    key: &str,
    args: Map<String, Value>,
    run: impl FnOnce(Map<String, Value>) -> Outcome,
) -> Outcome {
    let repo = match Repo::discover(root) {
        Ok(r) => r,
        Err(e) => return Outcome::fatal(&format!("cannot remember idempotency_key: {e}")),
    };
    let path = repo.git_dir().join("clada").join(STORE);
    let _lock = match repo.lock_state(
        STORE,
        "another call with an idempotency_key is running in this repository",
    ) {
        Ok(l) => l,
        Err(e) => return Outcome::fatal(&e.to_string()),
    };
    let digest = digest(tool, &args);
    let now = now();
    let mut store = load(&path);
    store.entries.retain(|e| fresh(e, now));
    if let Some(first) = store.entries.iter().find(|e| e.key == key) {
        if first.tool == tool && first.args == digest {
            return replay(first);
        }
        return Outcome::fatal(&format!(
            "idempotency_key \"{key}\" was already used at {} for {} call with other \
             arguments; nothing was applied. A retry must repeat the first call's arguments \
             exactly; a new change needs a new key",
            when(first.at),
            match first.tool == tool {
                true => format!("an `{tool}`"),
                false => format!("an `{}`", first.tool),
            }
        ));
    }
    let mut outcome = run(args);
    if ran(&outcome) {
        store.entries.push(entry(key, tool, digest, now, &outcome));
        if let Err(e) = save(&path, store) {
            let warning = format!(
                "could not remember idempotency_key \"{key}\" ({e}): a retry would apply again"
            );
            outcome.text.push_str(&format!("warning: {warning}\n"));
            if let Some(Value::Array(w)) = outcome
                .structured
                .as_mut()
                .and_then(|s| s.get_mut("warnings"))
            {
                w.push(json!(warning));
            }
        }
    }
    outcome
}

/// Whether the call ran (its outcome is a report without `fatalError`): only those are
/// remembered.
fn ran(outcome: &Outcome) -> bool {
    outcome
        .structured
        .as_ref()
        .is_some_and(|s| s.get("fatalError").is_none())
}

fn fresh(e: &Entry, now: u64) -> bool {
    now.saturating_sub(e.at) < KEEP_SECS
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

fn when(at: u64) -> String {
    clada_base::clock::rfc3339_seconds(UNIX_EPOCH + std::time::Duration::from_secs(at))
}

/// The first call's outcome, marked as a replay.
fn replay(first: &Entry) -> Outcome {
    let mut structured = first.structured.clone();
    if let Some(Value::Object(s)) = structured.as_mut() {
        s.insert("replay".into(), Value::Bool(true));
    }
    Outcome {
        text: format!(
            "replay: a call with idempotency_key \"{}\" and these arguments already ran at {}; \
             nothing was applied again. Its report:\n{}",
            first.key,
            when(first.at),
            first.text
        ),
        structured,
        is_error: first.is_error,
    }
}

/// SHA-256 of the tool's name and its arguments as canonical JSON (object keys sorted), so a
/// client that orders keys differently on a retry still matches.
fn digest(tool: &str, args: &Map<String, Value>) -> String {
    let canonical = canonical(&Value::Object(args.clone()));
    let mut h = Sha256::new();
    h.update(tool.as_bytes());
    h.update([0]);
    h.update(canonical.to_string().as_bytes());
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

fn canonical(v: &Value) -> Value {
    match v {
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            Value::Object(
                keys.into_iter()
                    .map(|k| (k.clone(), canonical(&m[k])))
                    .collect(),
            )
        }
        Value::Array(a) => Value::Array(a.iter().map(canonical).collect()),
        other => other.clone(),
    }
}

/// The entry for `outcome`, cut to [`MAX_ENTRY_BYTES`]: without the results' `data` (read
/// content, command output), and the text cut, when it is larger.
fn entry(key: &str, tool: &str, args: String, at: u64, outcome: &Outcome) -> Entry {
    let mut e = Entry {
        key: key.to_string(),
        tool: tool.to_string(),
        args,
        at,
        text: outcome.text.clone(),
        structured: outcome.structured.clone(),
        is_error: outcome.is_error,
    };
    if size(&e) <= MAX_ENTRY_BYTES {
        return e;
    }
    if let Some(Value::Array(results)) = e.structured.as_mut().and_then(|s| s.get_mut("results")) {
        for r in results.iter_mut().filter_map(Value::as_object_mut) {
            r.remove("data");
        }
    }
    if e.text.len() > MAX_ENTRY_BYTES / 2 {
        let mut cut = MAX_ENTRY_BYTES / 2;
        while !e.text.is_char_boundary(cut) {
            cut -= 1;
        }
        e.text.truncate(cut);
        e.text
            .push_str("\n… (the rest of this report was too long to keep for a replay)\n");
    }
    e
}

fn size(e: &Entry) -> usize {
    serde_json::to_vec(e).map_or(usize::MAX, |v| v.len())
}

fn load(path: &Path) -> Store {
    let limit = (MAX_FILE_BYTES + MAX_ENTRY_BYTES) as u64;
    match fsutil::read_small(path, limit, fsutil::Links::Refuse) {
        Ok(Some(bytes)) => match serde_json::from_slice(&bytes) {
            Ok(s) => s,
            Err(e) => {
                eprintln!(
                    "git-clada: warning: {} is damaged ({e}); the keys it held are forgotten",
                    path.display()
                );
                Store::default()
            }
        },
        Ok(None) => Store::default(),
        Err(e) => {
            eprintln!(
                "git-clada: warning: cannot read {} ({e}); the keys it held are forgotten",
                path.display()
            );
            Store::default()
        }
    }
}

/// Writes the store, newest last, without the oldest entries beyond the bounds.
fn save(path: &Path, mut store: Store) -> std::io::Result<()> {
    store.version = 1;
    let over = store.entries.len().saturating_sub(MAX_ENTRIES);
    store.entries.drain(..over);
    let mut total: usize = store.entries.iter().map(size).sum();
    while total > MAX_FILE_BYTES && store.entries.len() > 1 {
        total -= size(&store.entries.remove(0));
    }
    let bytes = serde_json::to_vec(&store).map_err(std::io::Error::other)?;
    fsutil::write_atomic_creating_dir(path, &bytes, Perm::Executable(false))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_digest_ignores_key_order_and_tells_other_arguments_apart() {
        let a: Map<String, Value> =
            serde_json::from_str(r#"{"path": "a", "old_string": "x", "new_string": "y"}"#).unwrap();
        let b: Map<String, Value> =
            serde_json::from_str(r#"{"new_string": "y", "path": "a", "old_string": "x"}"#).unwrap();
        let c: Map<String, Value> =
            serde_json::from_str(r#"{"path": "a", "old_string": "x", "new_string": "z"}"#).unwrap();
        assert_eq!(digest("edit", &a), digest("edit", &b));
        assert_ne!(digest("edit", &a), digest("edit", &c));
        assert_ne!(digest("edit", &a), digest("apply", &a));
    }

    #[test]
    fn a_large_outcome_is_kept_without_its_outputs_and_the_store_stays_bounded() {
        let outcome = Outcome {
            text: "x".repeat(MAX_ENTRY_BYTES),
            structured: Some(
                json!({"results": [{"data": {"content": "y".repeat(MAX_ENTRY_BYTES)}}]}),
            ),
            is_error: false,
        };
        let e = entry("k", "edit", "d".into(), 1, &outcome);
        assert!(size(&e) <= MAX_ENTRY_BYTES, "{}", size(&e));
        assert!(e.structured.unwrap()["results"][0].get("data").is_none());
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("clada").join(STORE);
        let small = Outcome {
            text: "ok".into(),
            structured: Some(json!({})),
            is_error: false,
        };
        let entries = (0..MAX_ENTRIES + 10)
            .map(|i| entry(&format!("k{i}"), "edit", "d".into(), i as u64, &small))
            .collect();
        save(
            &path,
            Store {
                version: 1,
                entries,
            },
        )
        .unwrap();
        let kept = load(&path).entries;
        assert_eq!(kept.len(), MAX_ENTRIES);
        assert_eq!(kept[0].key, "k10");
    }
}
