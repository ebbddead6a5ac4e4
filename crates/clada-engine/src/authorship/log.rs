//! One authorship log (`authorship/3.0.0`): the attestation section (per file, the keys and
//! the line ranges they wrote), the `---` divider, the metadata JSON. [`Log::parse`] is a strict
//! validator of the standard; fields it does not know are kept and written back.

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::ids::is_id;
use super::ranges::LineSet;

/// The schema version this module reads and writes.
pub const SCHEMA_VERSION: &str = "authorship/3.0.0";

/// The metadata field that marks a log git-clada wrote (git-ai ignores fields it does not
/// know); git-clada replaces only logs that carry it.
pub const WRITER_FIELD: &str = "git_clada_version";

/// A parsed authorship log.
#[derive(Debug, Clone, PartialEq)]
pub struct Log {
    /// Files in the order of the log; each with at least one entry.
    pub files: Vec<FileLog>,
    pub meta: Metadata,
}

/// One file of the attestation section.
#[derive(Debug, Clone, PartialEq)]
pub struct FileLog {
    pub path: String,
    pub entries: Vec<Attestation>,
}

/// One entry line: a key (`s_…::t_…`, `h_…` or a legacy hash) and its lines.
#[derive(Debug, Clone, PartialEq)]
pub struct Attestation {
    pub key: String,
    pub lines: LineSet,
}

/// The metadata JSON.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Metadata {
    pub schema_version: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub git_ai_version: Option<String>,
    pub base_commit_sha: String,
    pub prompts: Map<String, Value>,
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub humans: IndexMap<String, Value>,
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub sessions: IndexMap<String, Session>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A session record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Session {
    pub agent_id: AgentId,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub human_author: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub custom_attributes: Option<IndexMap<String, String>>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Which agent: the standard's tool name, the conversation's id in that tool, the model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AgentId {
    pub tool: String,
    pub id: String,
    pub model: String,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A log the standard does not accept: where (1-based line of the note) and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("authorship log, line {line}: {what}")]
pub struct LogError {
    pub line: usize,
    pub what: String,
}

fn err(line: usize, what: impl Into<String>) -> LogError {
    LogError {
        line,
        what: what.into(),
    }
}

impl Metadata {
    /// Metadata for a log of commit `base_commit_sha`, marked as git-clada's.
    pub fn new(base_commit_sha: &str) -> Metadata {
        let mut extra = Map::new();
        extra.insert(WRITER_FIELD.into(), Value::String(crate::VERSION.into()));
        Metadata {
            schema_version: SCHEMA_VERSION.into(),
            git_ai_version: None,
            base_commit_sha: base_commit_sha.into(),
            prompts: Map::new(),
            humans: IndexMap::new(),
            sessions: IndexMap::new(),
            extra,
        }
    }
}

impl Log {
    /// Whether git-clada wrote this log (and may replace it).
    pub fn is_claded(&self) -> bool {
        self.meta.extra.contains_key(WRITER_FIELD)
    }

    /// Whether the log attests nothing (then it is not written).
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// The lines of `path` under `key` (added to what the key already has there).
    pub fn attest(&mut self, path: &str, key: &str, lines: &LineSet) {
        if lines.is_empty() {
            return;
        }
        let file = match self.files.iter().position(|f| f.path == path) {
            Some(i) => &mut self.files[i],
            None => {
                self.files.push(FileLog {
                    path: path.into(),
                    entries: Vec::new(),
                });
                let last = self.files.len() - 1;
                &mut self.files[last]
            }
        };
        match file.entries.iter_mut().find(|e| e.key == key) {
            Some(e) => e.lines = e.lines.union(lines),
            None => file.entries.push(Attestation {
                key: key.into(),
                lines: lines.clone(),
            }),
        }
    }

    /// The session record behind an attestation key (`s_…::t_…`), if any.
    pub fn session_of(&self, key: &str) -> Option<&Session> {
        let session = key.split_once("::").map_or(key, |(s, _)| s);
        self.meta.sessions.get(session)
    }

    /// The log as the standard writes it: files sorted by path, entries by first line.
    pub fn serialize(&self) -> String {
        let mut files: Vec<&FileLog> = self
            .files
            .iter()
            .filter(|f| !f.entries.is_empty())
            .collect();
        files.sort_by(|a, b| a.path.cmp(&b.path));
        let mut out = String::new();
        for file in files {
            out.push_str(&quote_path(&file.path));
            out.push('\n');
            let mut entries: Vec<&Attestation> = file
                .entries
                .iter()
                .filter(|e| !e.lines.is_empty())
                .collect();
            entries.sort_by_key(|e| e.lines.ranges().first().map(|r| r.0));
            for e in entries {
                out.push_str(&format!("  {} {}\n", e.key, e.lines));
            }
        }
        out.push_str("---\n");
        // Serializing plain maps and strings cannot fail; an empty object is never written.
        let json = serde_json::to_string_pretty(&self.meta).unwrap_or_else(|_| "{}".into());
        // Agent and model names come from payloads and transcripts, and `git log --notes=ai`
        // prints the note raw: JSON's own escapes keep the value and leave the terminal alone.
        out.push_str(&clada_base::term::escape(
            &json,
            clada_base::term::Rule::Json,
        ));
        out.push('\n');
        out
    }

    /// Parses and validates a log; every departure from the standard is an error naming
    /// its line. A note holding more than one log (git's `notes.rewriteRef` copy or `git notes
    /// append` concatenate them) is refused here; [`Log::parse_notes`] reads such a note.
    pub fn parse(text: &str) -> Result<Log, LogError> {
        let (log, used) = parse_one(text, 0)?;
        if !text[used..].trim().is_empty() {
            let rest = &text[used..];
            let extra = used + rest.len() - rest.trim_start().len();
            let line = text[..extra].matches('\n').count() + 1;
            return Err(err(
                line,
                "text after the metadata JSON (a second log? git's notes copy and `git notes append` concatenate them)",
            ));
        }
        Ok(log)
    }

    /// Every log of a note that may hold several, one after the other with blank lines
    /// between (git's `concatenate` rewrite mode, `git notes append`): all or nothing, the
    /// first piece that is not a whole valid log an error. A note whose lines were sorted
    /// and merged (`cat_sort_uniq`) is no log at all and is refused.
    pub fn parse_notes(text: &str) -> Result<Vec<Log>, LogError> {
        let mut logs = Vec::new();
        let mut at = 0;
        while !text[at..].trim().is_empty() {
            let skip = text[at..].len() - text[at..].trim_start().len();
            // Start the piece at a line start: only whole blank lines are skipped.
            let start = at + text[at..at + skip].rfind('\n').map_or(0, |i| i + 1);
            let first_line = text[..start].matches('\n').count();
            let (log, used) = parse_one(&text[start..], first_line)?;
            logs.push(log);
            at = start + used;
        }
        if logs.is_empty() {
            return Err(err(1, "the note is empty"));
        }
        Ok(logs)
    }

    /// The log a note gives commit `commit` (hex), if any: a log git-clada wrote counts only
    /// on the commit it was written for (`base_commit_sha`), since a copy on a rewritten
    /// commit names the old commit's lines; a note of several logs (a concatenating copy) and
    /// a note that is no valid log give none — the lines are then unattributed, never
    /// attributed wrongly.
    pub fn for_commit(text: &str, commit: &str) -> Option<Log> {
        let log = Log::parse(text).ok()?;
        (!log.is_claded() || log.meta.base_commit_sha == commit).then_some(log)
    }

    /// Every key resolves in its metadata map; every session key is well formed.
    fn check_keys(&self) -> Result<(), LogError> {
        for (id, _) in &self.meta.sessions {
            if !is_id(id, "s_", 14) {
                return Err(err(
                    0,
                    format!("session `{id}` is not `s_` and 14 lowercase hex digits"),
                ));
            }
        }
        for (id, _) in &self.meta.humans {
            if !is_id(id, "h_", 14) {
                return Err(err(
                    0,
                    format!("human `{id}` is not `h_` and 14 lowercase hex digits"),
                ));
            }
        }
        for file in &self.files {
            for e in &file.entries {
                let known = if let Some((s, _)) = e.key.split_once("::") {
                    self.meta.sessions.contains_key(s)
                } else if e.key.starts_with("h_") {
                    self.meta.humans.contains_key(&e.key)
                } else {
                    self.meta.prompts.contains_key(&e.key)
                };
                if !known {
                    return Err(err(
                        0,
                        format!("key `{}` of {} is in no metadata map", e.key, file.path),
                    ));
                }
            }
        }
        Ok(())
    }
}

/// One log at the start of `text` (its lines numbered from `first_line` + 1 in errors) and
/// the bytes it takes: the attestation section, the divider, one JSON value.
fn parse_one(text: &str, first_line: usize) -> Result<(Log, usize), LogError> {
    let shift = |mut e: LogError| {
        if e.line > 0 {
            e.line += first_line;
        }
        e
    };
    let (files, divider) = parse_attestations(text).map_err(shift)?;
    let json_start = divider.1;
    let meta_line = divider.0 + 1;
    let mut stream = serde_json::Deserializer::from_str(&text[json_start..]).into_iter::<Value>();
    let value = match stream.next() {
        Some(Ok(v)) => v,
        Some(Err(e)) => {
            return Err(shift(err(
                meta_line + e.line().saturating_sub(1),
                format!("the metadata is not valid JSON: {e}"),
            )))
        }
        None => return Err(shift(err(meta_line, "the metadata JSON is missing"))),
    };
    let used = json_start + stream.byte_offset();
    check_metadata_shape(&value, meta_line).map_err(shift)?;
    let meta: Metadata = serde_json::from_value(value).map_err(|e| {
        shift(err(
            meta_line,
            format!("the metadata does not have the standard's shape: {e}"),
        ))
    })?;
    let log = Log { files, meta };
    log.check_keys()?;
    Ok((log, used))
}

/// The path as the attestation section writes it: quoted when it has a space, tab or newline.
fn quote_path(path: &str) -> String {
    if path.contains([' ', '\t', '\n']) {
        format!("\"{path}\"")
    } else {
        path.to_string()
    }
}

/// Whether an attestation key has one of the standard's three forms.
fn valid_key(key: &str) -> bool {
    if let Some((s, t)) = key.split_once("::") {
        return is_id(s, "s_", 14) && is_id(t, "t_", 14);
    }
    if key.starts_with("h_") {
        return is_id(key, "h_", 14);
    }
    (key.len() == 16 || key.len() == 7) && is_id(key, "", key.len())
}

/// The attestation section: the files, and the divider's line number (1-based) and the byte
/// offset just after it.
fn parse_attestations(text: &str) -> Result<(Vec<FileLog>, (usize, usize)), LogError> {
    let mut files: Vec<FileLog> = Vec::new();
    let mut offset = 0;
    let mut number = 0;
    let mut open_quote: Option<String> = None;
    for raw in text.split_inclusive('\n') {
        number += 1;
        offset += raw.len();
        let line = raw.strip_suffix('\n').unwrap_or(raw);
        if let Some(mut path) = open_quote.take() {
            // A quoted path with a newline in it goes on until its closing quote.
            path.push('\n');
            match line.strip_suffix('"') {
                Some(rest) => {
                    path.push_str(rest);
                    files.push(FileLog {
                        path,
                        entries: Vec::new(),
                    });
                }
                None => {
                    path.push_str(line);
                    open_quote = Some(path);
                }
            }
            continue;
        }
        if line == "---" {
            if let Some(f) = files.iter().find(|f| f.entries.is_empty()) {
                return Err(err(
                    number,
                    format!(
                        "file {} has no attestation (files without one must be left out)",
                        f.path
                    ),
                ));
            }
            return Ok((files, (number, offset)));
        }
        if line.starts_with('{') {
            return Err(err(
                number,
                "the metadata JSON starts before any `---` divider line",
            ));
        }
        if let Some(entry) = line
            .strip_prefix("  ")
            .filter(|e| !e.starts_with([' ', '\t']))
        {
            let file = files
                .last_mut()
                .ok_or_else(|| err(number, "an attestation entry before any file path"))?;
            let (key, ranges) = entry
                .split_once(' ')
                .ok_or_else(|| err(number, "an entry is `  KEY RANGES` (one space between)"))?;
            if !valid_key(key) {
                return Err(err(number, format!("`{key}` is not an attestation key (`s_<14hex>::t_<14hex>`, `h_<14hex>` or a 16-hex legacy hash)")));
            }
            let lines = LineSet::parse(ranges).map_err(|e| err(number, e))?;
            if file.entries.iter().any(|e| e.key == key) {
                return Err(err(
                    number,
                    format!("key `{key}` appears twice under {}", file.path),
                ));
            }
            file.entries.push(Attestation {
                key: key.into(),
                lines,
            });
            continue;
        }
        if line.is_empty() || line.starts_with([' ', '\t']) {
            return Err(err(
                number,
                "expected a file path at column 0 or an entry indented by exactly two spaces",
            ));
        }
        if let Some(rest) = line.strip_prefix('"') {
            match rest.strip_suffix('"') {
                Some(path) if !path.contains('"') => files.push(FileLog {
                    path: path.into(),
                    entries: Vec::new(),
                }),
                Some(_) => return Err(err(number, "a quoted path with a quote inside")),
                None => open_quote = Some(rest.to_string()),
            }
            continue;
        }
        if line.contains([' ', '\t']) {
            return Err(err(
                number,
                format!("path `{line}` has a space or tab and must be quoted"),
            ));
        }
        if files.iter().any(|f| f.path == line) {
            return Err(err(number, format!("file {line} appears twice")));
        }
        files.push(FileLog {
            path: line.into(),
            entries: Vec::new(),
        });
    }
    Err(err(number, "no `---` divider line before the metadata"))
}

/// What serde's shape check does not say: types of the required fields, and what a session
/// record must not hold.
fn check_metadata_shape(value: &Value, line: usize) -> Result<(), LogError> {
    let obj = value
        .as_object()
        .ok_or_else(|| err(line, "the metadata must be a JSON object"))?;
    match obj.get("schema_version") {
        Some(Value::String(v)) if v == SCHEMA_VERSION => {}
        Some(v) => {
            return Err(err(
                line,
                format!("schema_version is {v}, not \"{SCHEMA_VERSION}\""),
            ))
        }
        None => return Err(err(line, "schema_version is missing")),
    }
    match obj.get("base_commit_sha") {
        Some(Value::String(s)) if !s.is_empty() && s.bytes().all(|b| b.is_ascii_hexdigit()) => {}
        _ => return Err(err(line, "base_commit_sha must be the commit's hex id")),
    }
    if !obj.get("prompts").is_some_and(Value::is_object) {
        return Err(err(line, "prompts must be an object (it may be {})"));
    }
    for field in ["sessions", "humans"] {
        if obj.get(field).is_some_and(|v| !v.is_object()) {
            return Err(err(line, format!("{field} must be an object")));
        }
    }
    if let Some(Value::Object(sessions)) = obj.get("sessions") {
        for (id, record) in sessions {
            for banned in [
                "messages",
                "messages_url",
                "total_additions",
                "total_deletions",
                "accepted_lines",
                "overriden_lines",
            ] {
                if record.get(banned).is_some() {
                    return Err(err(
                        line,
                        format!("session {id} holds `{banned}`, which a session record must not"),
                    ));
                }
            }
        }
    }
    if let Some(Value::Object(humans)) = obj.get("humans") {
        for (id, record) in humans {
            if !record.get("author").is_some_and(Value::is_string) {
                return Err(err(line, format!("human {id} has no `author` string")));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const EXAMPLE: &str = r#"src/main.rs
  s_c9883b05a2487d::t_9f8e7d6c5b4a32 1-10,15-20
  s_c9883b05a2487d::t_a1b2c3d4e5f678 25,30-35
  h_31dce776f88375 42-50
"src/my file.rs"
  s_e7f2a90b31cc48::t_deadbeef012345 1-50
---
{
  "schema_version": "authorship/3.0.0",
  "git_ai_version": "1.4.5",
  "base_commit_sha": "7734793b756b3921c88db5375a8c156e9532447b",
  "prompts": {},
  "humans": {"h_31dce776f88375": {"author": "Developer <dev@example.com>"}},
  "sessions": {
    "s_c9883b05a2487d": {"agent_id": {"tool": "cursor", "id": "6ef2", "model": "claude-sonnet-4-5"}, "human_author": "dev@example.com"},
    "s_e7f2a90b31cc48": {"agent_id": {"tool": "claude", "id": "conv", "model": "m", "future": 1}, "custom_attributes": {"team": "backend"}, "later": [1]}
  },
  "unknown_top": {"kept": true}
}
"#;

    #[test]
    fn reads_the_standards_example_and_keeps_unknown_fields() {
        let log = Log::parse(EXAMPLE).unwrap();
        assert_eq!(log.files.len(), 2);
        assert_eq!(log.files[1].path, "src/my file.rs");
        assert_eq!(log.files[0].entries[1].lines.to_string(), "25,30-35");
        let s = log
            .session_of("s_e7f2a90b31cc48::t_deadbeef012345")
            .unwrap();
        assert_eq!(s.agent_id.tool, "claude");
        assert!(!log.is_claded());
        let again = Log::parse(&log.serialize()).unwrap();
        assert_eq!(again, log);
        let text = log.serialize();
        assert!(
            text.contains("\"unknown_top\"")
                && text.contains("\"future\"")
                && text.contains("\"later\"")
        );
        assert!(text.contains("\n\"src/my file.rs\"\n"));
    }

    #[test]
    fn refuses_logs_the_standard_does_not_accept() {
        let cases = [
            (EXAMPLE.replace("---\n", ""), "divider"),
            (EXAMPLE.replace("1-10,15-20", "15-20,1-10"), "ascending"),
            (EXAMPLE.replace("1-10,15-20", "0-3"), "start at 1"),
            (
                EXAMPLE.replace("\"src/my file.rs\"", "src/my file.rs"),
                "quoted",
            ),
            (
                EXAMPLE.replace("  h_31dce776f88375", "   h_31dce776f88375"),
                "column 0",
            ),
            (
                EXAMPLE.replace("authorship/3.0.0", "authorship/2.0.0"),
                "schema_version",
            ),
            (EXAMPLE.replace("\"prompts\": {},", ""), "prompts"),
            (
                EXAMPLE.replace(
                    "\"h_31dce776f88375\": {\"author\"",
                    "\"h_31dce776f88375\": {\"name\"",
                ),
                "author",
            ),
            (
                EXAMPLE.replace("\"human_author\": \"dev@example.com\"", "\"messages\": []"),
                "messages",
            ),
            (EXAMPLE.replace("::t_9f8e7d6c5b4a32", ""), "attestation key"),
            (
                EXAMPLE.replace(
                    "s_e7f2a90b31cc48::t_deadbeef012345 1-50",
                    "s_aaaaaaaaaaaaaa::t_deadbeef012345 1-50",
                ),
                "no metadata map",
            ),
            (EXAMPLE.replace("\"tool\": \"cursor\", ", ""), "shape"),
            (
                EXAMPLE.replace("  s_e7f2a90b31cc48::t_deadbeef012345 1-50\n", ""),
                "no attestation",
            ),
        ];
        for (text, why) in cases {
            match Log::parse(&text) {
                Ok(_) => panic!("accepted ({why}):\n{text}"),
                Err(e) => assert!(e.to_string().contains(why), "{why}: {e}"),
            }
        }
    }

    fn claded(commit: &str, path: &str, lines: &str, conversation: &str) -> Log {
        let mut log = Log {
            files: Vec::new(),
            meta: Metadata::new(commit),
        };
        let session = crate::authorship::ids::session_id("claude", conversation);
        log.meta.sessions.insert(
            session.clone(),
            Session {
                agent_id: AgentId {
                    tool: "claude".into(),
                    id: conversation.into(),
                    model: "m".into(),
                    extra: Map::new(),
                },
                human_author: None,
                custom_attributes: None,
                extra: Map::new(),
            },
        );
        let key = format!("{session}::t_00112233445566");
        log.attest(path, &key, &LineSet::parse(lines).unwrap());
        log
    }

    /// What git's `concatenate` rewrite mode and `git notes append` make of two notes: the
    /// first without its final newline, a blank line, the second.
    fn concatenate(a: &str, b: &str) -> String {
        format!("{}\n\n{b}", a.trim_end_matches('\n'))
    }

    #[test]
    fn a_note_of_two_concatenated_logs_is_read_as_two_and_attributes_nothing() {
        let a = claded("aaaa", "src/a.rs", "1-3", "one").serialize();
        let b = claded("bbbb", "src/a.rs", "2,9", "two").serialize();
        let both = concatenate(&a, &b);
        let err = Log::parse(&both).unwrap_err();
        assert!(err.to_string().contains("concatenate"), "{err}");
        assert_eq!(
            err.line,
            a.lines().count() + 2,
            "the second log's first line: {err}"
        );
        let logs = Log::parse_notes(&both).unwrap();
        assert_eq!(logs.len(), 2);
        assert_eq!(logs[0].meta.base_commit_sha, "aaaa");
        assert_eq!(logs[1].meta.base_commit_sha, "bbbb");
        assert_eq!(logs[1].files[0].entries[0].lines.to_string(), "2,9");
        // On the rewritten commit neither old log's lines are taken as its own.
        assert_eq!(Log::for_commit(&both, "cccc"), None);
        assert_eq!(Log::for_commit(&both, "aaaa"), None);
        // Three, as a second concatenating copy makes; and a foreign log among them.
        let foreign = EXAMPLE.to_string();
        let three = concatenate(&concatenate(&a, &foreign), &b);
        assert_eq!(Log::parse_notes(&three).unwrap().len(), 3);
    }

    #[test]
    fn a_sorted_merge_or_a_broken_piece_is_no_log() {
        let a = claded("aaaa", "src/a.rs", "1-3", "one").serialize();
        let b = claded("bbbb", "src/b.rs", "4", "two").serialize();
        // `cat_sort_uniq`: the lines of both, sorted, duplicates dropped.
        let mut lines: Vec<&str> = a.lines().chain(b.lines()).collect();
        lines.sort_unstable();
        lines.dedup();
        let sorted = lines.join("\n") + "\n";
        assert!(Log::parse_notes(&sorted).is_err());
        assert_eq!(Log::for_commit(&sorted, "aaaa"), None);
        let broken = concatenate(&a, "src/x.rs\n  nonsense 1\n---\n{}\n");
        let err = Log::parse_notes(&broken).unwrap_err();
        assert!(err.line > a.lines().count(), "{err}");
        assert!(Log::parse_notes("\n\n").is_err());
    }

    #[test]
    fn a_copied_log_counts_only_on_its_own_commit() {
        let a = claded("aaaa", "src/a.rs", "1-3", "one").serialize();
        assert!(Log::for_commit(&a, "aaaa").is_some());
        assert_eq!(
            Log::for_commit(&a, "cccc"),
            None,
            "a copy names the old lines"
        );
        // Another tool's log is taken as it is: its base_commit_sha is its own business.
        assert!(Log::for_commit(EXAMPLE, "cccc").is_some());
    }

    #[test]
    fn writes_what_it_reads() {
        let mut log = Log {
            files: Vec::new(),
            meta: Metadata::new("0123abcd"),
        };
        log.meta.sessions.insert(
            "s_0123456789abcd".into(),
            Session {
                agent_id: AgentId {
                    tool: "git-clada".into(),
                    id: "x".into(),
                    model: "unknown".into(),
                    extra: Map::new(),
                },
                human_author: Some("A <a@b.c>".into()),
                custom_attributes: None,
                extra: Map::new(),
            },
        );
        let key = "s_0123456789abcd::t_00112233445566";
        log.attest("b.rs", key, &LineSet::from_lines([3, 4, 5]));
        log.attest("a dir/a.rs", key, &LineSet::from_lines([1]));
        log.attest("b.rs", key, &LineSet::from_lines([9]));
        let text = log.serialize();
        assert!(text.starts_with("\"a dir/a.rs\"\n  s_0123456789abcd::t_00112233445566 1\nb.rs\n  s_0123456789abcd::t_00112233445566 3-5,9\n---\n{"), "{text}");
        let back = Log::parse(&text).unwrap();
        assert!(back.is_claded());
        assert_eq!(back.meta.base_commit_sha, "0123abcd");
    }
}
