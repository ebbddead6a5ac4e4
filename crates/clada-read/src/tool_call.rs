//! Tool calls: edits an agent sends as JSON instead of writing blocks into a reply — the MCP
//! server's `edit` tool, or `git clada apply --dialect tool-call` of a JSON file.
//!
//! The whole input is one JSON value, in one of these shapes:
//! - a list of actions in the schema's terms, `[{"action": "file_write", "path": …}, …]`, or
//!   an object holding that list as `actions`; one action object on its own is a list of one;
//! - the shape editor tools use, one edit `{"path", "old_string", "new_string",
//!   "replace_all"?}` (→ `file_replace_text`, or `file_replace_all_text` with `replace_all`;
//!   an empty `old_string` creates the file, as those tools do: `file_create`), or several
//!   edits of one file `{"path", "edits": [{"old_string", "new_string", "replace_all"?}, …]}`,
//!   all or nothing (one atomic group, as editor tools' multi-edit) unless `"atomic": false`.
//!   An edit whose `old_string` equals its `new_string` is refused: it changes nothing.
//!
//! Each action becomes one [`Block`]: `id` (when given) is its id, else `task-N` like the
//! other formats without ids; every other key is a property. Values may be JSON strings,
//! numbers or booleans (blocks hold strings: `2` → `"2"`, `true` → `"true"`), `null` (left
//! out), or for path lists an array of strings (one path per line). The block's lines are
//! where its JSON object is in the input, so reports can point at it.
//!
//! This front end takes part only when the format is forced (`--dialect tool-call`, the MCP
//! server): JSON in a chat reply is never read as edits.

use indexmap::IndexMap;
use serde_json::value::RawValue;
use serde_json::Value;

use super::block::{Block, ErrorCode, Format, GroupKind, ParseError};
use super::lines::{Line, Lines};
use super::scan::{error, group, next_id, FrontEnd, Registration, Taken, TaskIds};

impl Format {
    pub const TOOL_CALL: Format = Format {
        id: "tool-call",
        name: "tool call",
        reference: false,
    };
}

pub(super) static FRONT_END: Registration = Registration::forced(
    &[(
        Format::TOOL_CALL,
        "Only a tool call: the whole input is JSON, a list of actions ([{\"action\": …, parameters…}]) or an editor-style edit ({path, old_string, new_string, replace_all}); never chosen by auto",
    )],
    |text, _| Box::new(ToolCall { text, done: false }),
);

/// The front end: the input's first line opens the one "block" that is the whole input.
struct ToolCall<'a> {
    text: &'a str,
    done: bool,
}

impl<'a> FrontEnd<'a> for ToolCall<'a> {
    // opens_with: the default, every byte — the tool call opens on the input's first line
    // that is not blank, whatever it starts with.

    fn may_open(&self, _trimmed: &str) -> bool {
        !self.done
    }

    fn take(&mut self, ids: &mut TaskIds, _line: Line<'a>, _n: usize) -> Option<Taken> {
        self.done = true;
        let (blocks, errors) = read(self.text, ids.counter());
        Some(Taken {
            lines: Lines::new(self.text).count(),
            blocks,
            errors,
        })
    }
}

/// The keys of the editor shape, as editor tools name them.
const EDIT_KEYS: [&str; 4] = ["path", "old_string", "new_string", "replace_all"];

/// Reads a tool call: its blocks, or the error that stopped it (not JSON, not a shape above).
fn read(text: &str, counter: &mut usize) -> (Vec<Block>, Vec<ParseError>) {
    let fail = |line: usize, column: usize, message: String| {
        (
            Vec::new(),
            vec![error(
                ErrorCode::ToolCallSyntax,
                text,
                1,
                line,
                column,
                None,
                message,
            )],
        )
    };
    let top: &RawValue = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => {
            return fail(
                e.line().max(1),
                e.column().max(1),
                format!("the tool call is not valid JSON: {e}; send one JSON value: a list of actions, or an edit {{\"path\", \"old_string\", \"new_string\"}}"),
            )
        }
    };
    let at = |raw: &RawValue| line_of(text, raw);
    let items: Vec<&RawValue> = match top.get().trim_start().as_bytes().first() {
        Some(b'[') => match serde_json::from_str(top.get()) {
            Ok(list) => list,
            Err(e) => return fail(at(top), 1, format!("the list of actions cannot be read: {e}")),
        },
        Some(b'{') => {
            let object: IndexMap<&str, &RawValue> = match serde_json::from_str(top.get()) {
                Ok(o) => o,
                Err(e) => return fail(at(top), 1, format!("the tool call cannot be read: {e}")),
            };
            match shape_of(&object) {
                Ok(Shape::Actions(list)) => match serde_json::from_str(list.get()) {
                    Ok(list) => list,
                    Err(_) => {
                        return fail(
                            at(list),
                            1,
                            "`actions` must be a list of action objects".into(),
                        )
                    }
                },
                Ok(Shape::Edits(path, edits, atomic)) => {
                    return (file_edits(text, path, edits, atomic, counter), Vec::new())
                }
                Ok(Shape::One) => vec![top],
                Err(why) => return fail(at(top), 1, why),
            }
        }
        _ => {
            return fail(
                at(top),
                1,
                "a tool call is a JSON list of actions or an object (an action, or an edit {\"path\", \"old_string\", \"new_string\"}), not a single value".into(),
            )
        }
    };
    let blocks = items
        .into_iter()
        .map(|item| block(text, item, counter, None))
        .collect();
    (blocks, Vec::new())
}

/// What a top-level object is.
enum Shape<'a> {
    /// `{"actions": [...]}`.
    Actions(&'a RawValue),
    /// `{"path": …, "edits": [...], "atomic"?}`: several editor-style edits of one file, all
    /// or nothing unless `atomic` is false.
    Edits(&'a RawValue, &'a RawValue, bool),
    /// One action or one edit.
    One,
}

fn shape_of<'a>(object: &IndexMap<&str, &'a RawValue>) -> Result<Shape<'a>, String> {
    let extra = |allowed: &[&str]| {
        object
            .keys()
            .find(|k| !allowed.contains(k))
            .map(|k| k.to_string())
    };
    if let Some(list) = object.get("actions") {
        if let Some(k) = extra(&["actions"]) {
            return Err(format!(
                "unknown key `{k}` next to `actions`: put the parameters inside each action"
            ));
        }
        return Ok(Shape::Actions(list));
    }
    if let Some(edits) = object.get("edits") {
        if let Some(k) = extra(&["path", "edits", "atomic"]) {
            return Err(format!(
                "unknown key `{k}` next to `edits`: an edit list is {{\"path\", \"edits\": [{{\"old_string\", \"new_string\", \"replace_all\"}}, …], \"atomic\"}}"
            ));
        }
        let Some(path) = object.get("path") else {
            return Err("`edits` needs the file's `path` next to it".into());
        };
        let atomic = match object.get("atomic").map(|v| v.get().trim()) {
            None | Some("true") => true,
            Some("false") => false,
            Some(other) => return Err(format!("`atomic` must be true or false, got {other}")),
        };
        return Ok(Shape::Edits(path, edits, atomic));
    }
    Ok(Shape::One)
}

/// `{"path", "edits": [...]}` → one block per edit, each with the shared path; with `atomic`
/// (the default, as editor tools' multi-edit) one all-or-nothing group: an edit that fails
/// leaves the file as it was.
fn file_edits(
    text: &str,
    path: &RawValue,
    edits: &RawValue,
    atomic: bool,
    counter: &mut usize,
) -> Vec<Block> {
    let list: Vec<&RawValue> = match serde_json::from_str(edits.get()) {
        Ok(l) => l,
        Err(_) => {
            let mut b = empty_block(text, edits, counter, None);
            b.invalid =
                Some("`edits` must be a list of {\"old_string\", \"new_string\"} objects".into());
            return vec![b];
        }
    };
    let mut blocks: Vec<Block> = list
        .into_iter()
        .map(|item| block(text, item, counter, Some(path)))
        .collect();
    if atomic && blocks.len() > 1 {
        let id = blocks[0].id.clone();
        group(&mut blocks, &id, GroupKind::Atomic, "list of edits");
    }
    blocks
}

/// A block for one JSON item: an action object or an editor-style edit (one of an `edits`
/// list when `shared_path` is that list's path).
fn block(
    text: &str,
    item: &RawValue,
    counter: &mut usize,
    shared_path: Option<&RawValue>,
) -> Block {
    let object: Option<IndexMap<String, &RawValue>> = serde_json::from_str(item.get()).ok();
    // `None`: no id given (or null); `Some(None)`: one that cannot be an id.
    let given_id = match object.as_ref().and_then(|o| o.get("id")) {
        None => None,
        Some(v) => match value_text(v) {
            Ok(None) => None,
            Ok(Some(id)) if is_id(&id) => Some(Some(id)),
            _ => Some(None),
        },
    };
    let mut b = empty_block(text, item, counter, given_id.clone().flatten());
    let Some(object) = object else {
        b.invalid = Some(format!(
            "an action must be a JSON object {{\"action\": NAME, parameters…}}, got {}",
            kind_of(item)
        ));
        return b;
    };
    if given_id == Some(None) {
        b.invalid = Some("`id` must be a string without spaces".into());
        return b;
    }
    let mut fields: Vec<(&str, &RawValue)> = object
        .iter()
        .filter(|(k, _)| k.as_str() != "id")
        .map(|(k, v)| (k.as_str(), *v))
        .collect();
    if let Some(path) = shared_path {
        if object.contains_key("path") || object.contains_key("action") {
            b.invalid = Some("an edit in `edits` takes old_string, new_string and replace_all; its path is the one next to `edits`".into());
            return b;
        }
        fields.insert(0, ("path", path));
    }
    let is_edit = !object.contains_key("action")
        && (object.contains_key("old_string") || object.contains_key("new_string"));
    let result = if is_edit {
        edit_properties(&fields)
    } else if object.contains_key("action") {
        action_properties(&fields)
    } else {
        Err("it has no `action`: give {\"action\": NAME, parameters…}, or an edit {\"path\", \"old_string\", \"new_string\"}".into())
    };
    match result {
        Ok(props) => b.properties = props,
        Err(why) => b.invalid = Some(why),
    }
    b
}

/// An id a tool call may give its action: not empty, no whitespace.
fn is_id(id: &str) -> bool {
    !id.is_empty() && !id.contains(char::is_whitespace)
}

/// A block at `item`'s lines with no properties yet: its id is `id`, else the next `task-N`.
fn empty_block(text: &str, item: &RawValue, counter: &mut usize, id: Option<String>) -> Block {
    let start = line_of(text, item);
    let end = start + item.get().matches('\n').count();
    let mut b = Block::foreign(
        Format::TOOL_CALL,
        id.unwrap_or_else(|| next_id(counter)),
        IndexMap::new(),
        start,
        end,
    );
    b.source = Some(item.get().to_string());
    b
}

/// An action object's properties: `action` first, then the parameters as written.
fn action_properties(fields: &[(&str, &RawValue)]) -> Result<IndexMap<String, String>, String> {
    let mut props = IndexMap::new();
    for (k, v) in fields.iter().filter(|(k, _)| *k == "action") {
        props.insert(k.to_string(), param(k, v)?.unwrap_or_default());
    }
    for (k, v) in fields.iter().filter(|(k, _)| *k != "action") {
        if let Some(s) = param(k, v)? {
            props.insert(k.to_string(), s);
        }
    }
    Ok(props)
}

/// An editor-style edit as the action it means.
fn edit_properties(fields: &[(&str, &RawValue)]) -> Result<IndexMap<String, String>, String> {
    if let Some((k, _)) = fields.iter().find(|(k, _)| !EDIT_KEYS.contains(k)) {
        return Err(format!(
            "unknown key `{k}` in an edit; an edit has {}",
            EDIT_KEYS.join(", ")
        ));
    }
    let get = |name: &str| -> Result<Option<String>, String> {
        match fields.iter().find(|(k, _)| *k == name) {
            Some((k, v)) => param(k, v),
            None => Ok(None),
        }
    };
    let path = get("path")?.ok_or("an edit needs `path`")?;
    let old = get("old_string")?.ok_or("an edit needs `old_string` (empty to create a file)")?;
    let new = get("new_string")?.ok_or("an edit needs `new_string`")?;
    let all = match get("replace_all")?.as_deref() {
        None | Some("false") => false,
        Some("true") => true,
        Some(other) => return Err(format!("`replace_all` must be true or false, got {other}")),
    };
    if !old.is_empty() && old == new {
        return Err(
            "old_string and new_string are the same: nothing to change; give the text as it should be in new_string".into(),
        );
    }
    let pairs: Vec<(&str, String)> = match (old.is_empty(), all) {
        (true, _) => vec![
            ("action", "file_create".into()),
            ("path", path),
            ("content", new),
        ],
        (false, false) => vec![
            ("action", "file_replace_text".into()),
            ("path", path),
            ("old_text", old),
            ("new_text", new),
        ],
        (false, true) => vec![
            ("action", "file_replace_all_text".into()),
            ("path", path),
            ("old_text", old),
            ("new_text", new),
        ],
    };
    Ok(pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
}

/// A parameter's value as block text (`None`: null, left out), or why it cannot be one.
fn param(key: &str, v: &RawValue) -> Result<Option<String>, String> {
    value_text(v).map_err(|got| {
        format!("`{key}` must be a string, a number, true/false or a list of strings, got {got}")
    })
}

/// A JSON value as block text: strings as they are, numbers and booleans written out, a
/// list of strings one per line; `Err` names what it was instead.
fn value_text(v: &RawValue) -> Result<Option<String>, String> {
    let value: Value = serde_json::from_str(v.get()).map_err(|_| "invalid JSON".to_string())?;
    Ok(Some(match value {
        Value::Null => return Ok(None),
        Value::String(s) => s,
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::Array(items) => {
            let strings: Option<Vec<String>> = items
                .into_iter()
                .map(|i| match i {
                    Value::String(s) => Some(s),
                    _ => None,
                })
                .collect();
            strings
                .ok_or("a list holding something other than strings")?
                .join("\n")
        }
        Value::Object(_) => return Err("an object".into()),
    }))
}

/// What kind of JSON value `v` is, for messages.
fn kind_of(v: &RawValue) -> &'static str {
    match v.get().trim_start().as_bytes().first() {
        Some(b'"') => "a string",
        Some(b'[') => "a list",
        Some(b't' | b'f') => "a boolean",
        Some(b'n') => "null",
        _ => "a number",
    }
}

/// The 1-based line of the input on which `raw` (a piece of it) starts.
fn line_of(text: &str, raw: &RawValue) -> usize {
    let offset = (raw.get().as_ptr() as usize).wrapping_sub(text.as_ptr() as usize);
    match text.get(..offset) {
        Some(before) if offset <= text.len() => 1 + before.matches('\n').count(),
        _ => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::super::{parse, Dialect};
    use super::*;

    fn blocks(text: &str) -> Vec<Block> {
        let r = parse(text, Dialect::Only(Format::TOOL_CALL));
        assert!(r.errors.is_empty(), "{:?}", r.errors);
        r.blocks
    }

    fn props(b: &Block) -> Vec<(&str, &str)> {
        b.properties
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect()
    }

    #[test]
    fn a_list_of_actions_becomes_blocks_with_their_lines() {
        let text = "[\n  {\"action\": \"file_write\", \"path\": \"a.txt\", \"content\": \"x\\n\"},\n  {\n    \"id\": \"k7x\",\n    \"action\": \"file_replace_all_text\",\n    \"path\": \"b.txt\", \"old_text\": \"a\", \"new_text\": \"b\", \"count\": 2\n  }\n]\n";
        let b = blocks(text);
        assert_eq!(b.len(), 2);
        assert_eq!(b[0].id, "task-1");
        assert_eq!((b[0].start_line, b[0].end_line), (2, Some(2)));
        assert_eq!(
            props(&b[0]),
            [
                ("action", "file_write"),
                ("path", "a.txt"),
                ("content", "x\n")
            ]
        );
        assert_eq!(b[1].id, "k7x");
        assert_eq!((b[1].start_line, b[1].end_line), (3, Some(7)));
        assert_eq!(b[1].properties["count"], "2");
        assert_eq!(b[1].format, Format::TOOL_CALL);
    }

    #[test]
    fn editor_shapes_map_onto_actions() {
        let one = blocks(r#"{"path": "a.py", "old_string": "x", "new_string": "y"}"#);
        assert_eq!(
            props(&one[0]),
            [
                ("action", "file_replace_text"),
                ("path", "a.py"),
                ("old_text", "x"),
                ("new_text", "y")
            ]
        );
        let all = blocks(
            r#"{"path": "a.py", "old_string": "x", "new_string": "y", "replace_all": true}"#,
        );
        assert_eq!(all[0].properties["action"], "file_replace_all_text");
        let create = blocks(r#"{"path": "n.py", "old_string": "", "new_string": "print(1)\n"}"#);
        assert_eq!(
            props(&create[0]),
            [
                ("action", "file_create"),
                ("path", "n.py"),
                ("content", "print(1)\n")
            ]
        );
        let multi = blocks(
            r#"{"path": "a.py", "edits": [{"old_string": "x", "new_string": "y"}, {"old_string": "p", "new_string": "q", "replace_all": true}]}"#,
        );
        assert_eq!(multi.len(), 2);
        assert_eq!(multi[1].properties["path"], "a.py");
        assert_eq!(
            multi[1].properties.keys().take(2).collect::<Vec<_>>(),
            ["action", "path"]
        );
        let wrapped = blocks(r#"{"actions": [{"action": "files_read", "paths": ["a", "b"]}]}"#);
        assert_eq!(wrapped[0].properties["paths"], "a\nb");
    }

    #[test]
    fn bad_input_is_reported_where_it_is() {
        let r = parse(
            "[\n  {\"action\": \"file_write\",}\n]",
            Dialect::Only(Format::TOOL_CALL),
        );
        assert_eq!(r.errors.len(), 1);
        assert_eq!(r.errors[0].code, ErrorCode::ToolCallSyntax);
        assert_eq!(r.errors[0].line, 2);
        assert!(
            r.errors[0].message.contains("not valid JSON"),
            "{}",
            r.errors[0].message
        );
        let r = parse("\"hello\"", Dialect::Only(Format::TOOL_CALL));
        assert!(r.errors[0].message.contains("not a single value"));
        let r = parse(
            r#"{"actions": [], "atomic": true}"#,
            Dialect::Only(Format::TOOL_CALL),
        );
        assert!(r.errors[0].message.contains("unknown key `atomic`"));
        let b = parse(
            r#"[{"path": "a"}, 3, {"action": "file_write", "path": {"x": 1}}, {"path": "a", "old_string": "x", "new_string": "y", "old_str": "z"}]"#,
            Dialect::Only(Format::TOOL_CALL),
        )
        .blocks;
        let why: Vec<&str> = b
            .iter()
            .map(|b| b.invalid.as_deref().unwrap_or(""))
            .collect();
        assert!(why[0].contains("no `action`"), "{why:?}");
        assert!(why[1].contains("got a number"), "{why:?}");
        assert!(why[2].contains("`path` must be a string"), "{why:?}");
        assert!(why[3].contains("unknown key `old_str`"), "{why:?}");
    }

    #[test]
    fn only_read_when_forced() {
        let text = r#"[{"action": "file_write", "path": "a", "content": "x"}]"#;
        assert!(parse(text, Dialect::Auto).blocks.is_empty());
    }
}
