//! The tools the server offers, with their descriptions and input schemas — all generated:
//! the actions' parameters and descriptions from `src/action/schema.yaml` (through
//! [`crate::loops::prompt::parameters_schema`], as `prompt --format json` writes them), the
//! commands' descriptions and options from their clap definitions (handed down by
//! `cli/mcp.rs` as [`CommandTexts`]). Only what is the server's own (the `reply` text, the
//! editor-tool keys) is worded here.

use std::collections::BTreeMap;

use serde_json::{json, Map, Value};

use crate::loops::prompt::parameters_schema;
use clada_engine::action::schema::{self, Kind};

/// A command's help as its clap definition gives it: the description and the options a tool
/// exposes.
#[derive(Debug, Clone, Default)]
pub struct CommandText {
    pub about: String,
    pub params: Vec<ParamText>,
}

/// One option of a command, as a tool parameter.
#[derive(Debug, Clone)]
pub struct ParamText {
    /// The name in the tool's arguments (the clap id: `max_count`, `rev`, …).
    pub name: String,
    pub help: String,
    pub kind: ParamKind,
}

/// The JSON type of a parameter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParamKind {
    Boolean,
    Integer,
    String,
    /// One of these values, each with its help.
    OneOf(Vec<(String, String)>),
}

/// The help of the subcommands the tools stand for, by subcommand name (`apply`, `undo`,
/// `log`, …), plus `dry-run` for the global option.
pub type CommandTexts = BTreeMap<String, CommandText>;

/// What a tool does when called.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolKind {
    Apply,
    Edit,
    Check,
    /// A read action of the schema, run on its own.
    Read(&'static str),
    Undo,
    Redo,
    Status,
    Log,
    Show,
}

impl ToolKind {
    /// Whether the tool changes nothing (MCP's `readOnlyHint`).
    pub fn read_only(self) -> bool {
        matches!(
            self,
            ToolKind::Check | ToolKind::Read(_) | ToolKind::Status | ToolKind::Log | ToolKind::Show
        )
    }

    /// Whether its calls wait for each other (they take the repository's lock): one server
    /// runs them one at a time, in order.
    pub fn queued(self) -> bool {
        matches!(
            self,
            ToolKind::Apply | ToolKind::Edit | ToolKind::Check | ToolKind::Undo | ToolKind::Redo
        )
    }

    /// Whether the tool declares its result, the JSON report (`ExecutionResult`), as its
    /// `outputSchema`: the tools that change (or would change) files, where an agent branches
    /// on it. The read tools return the same report in `structuredContent` without declaring
    /// it: their output is in the text, and the list stays small without four more copies.
    pub fn declares_report(self) -> bool {
        matches!(self, ToolKind::Apply | ToolKind::Edit | ToolKind::Check)
    }
}

/// One tool as listed.
#[derive(Debug, Clone)]
pub struct ToolSpec {
    pub name: &'static str,
    pub kind: ToolKind,
    pub description: String,
    pub input_schema: Value,
}

/// The read tools and the schema action each one runs.
pub const READ_TOOLS: [(&str, &str); 4] = [
    ("read", "file_read_numbered"),
    ("grep", "grep"),
    ("ls", "ls"),
    ("glob", "glob"),
];

/// The options of `apply` a tool call may set; the others (exec policy, `--no-verify`,
/// `--allow-outside`, the author, …) are the user's, given when the server starts.
pub const APPLY_OPTIONS: [&str; 3] = ["dialect", "message", "atomic"];

/// Every tool, in the order they are listed. The whole list stays small (clients load it into
/// every conversation): the `edit` actions are one compact item schema whose parameters the
/// description lists, `check` takes `edit`'s properties, and the commands' one-line help.
pub fn tools(texts: &CommandTexts) -> Vec<ToolSpec> {
    let text = |name: &str| texts.get(name).cloned().unwrap_or_default();
    let apply = text("apply");
    let dry_run = text("dry-run");
    let mut out = vec![
        ToolSpec {
            name: "apply",
            kind: ToolKind::Apply,
            description: format!(
                "{} The reply is text with action blocks in any format git-clada reads (the \
                 prompts teach nesl). One call is one AI commit and one undo step; the result \
                 says, for each block that failed, why and how to fix it: resend only those.",
                sentence(&apply.about)
            ),
            input_schema: object(
                [(
                    "reply",
                    json!({"type": "string", "description": "The reply: text with action blocks."}),
                )]
                .into_iter()
                .chain(options(&apply.params)),
                &["reply"],
            ),
        },
        ToolSpec {
            name: "edit",
            kind: ToolKind::Edit,
            description: edit_description(),
            input_schema: edit_schema(&apply.params),
        },
        ToolSpec {
            name: "check",
            kind: ToolKind::Check,
            description: format!(
                "What `apply` (give `reply`) or `edit` (give its arguments) would do, with \
                 nothing changed ({}). The result is the report and, in `diff`, the diff that \
                 would be committed.",
                dry_run.about.trim_end_matches('.').to_lowercase()
            ),
            input_schema: check_schema(&apply.params),
        },
    ];
    for t in out.iter_mut().filter(|t| t.kind != ToolKind::Check) {
        if let Some(Value::Object(props)) = t.input_schema.get_mut("properties") {
            props.insert("idempotency_key".into(), idempotency_key());
        }
    }
    out.extend(read_tools());
    let history = [
        ("undo", ToolKind::Undo),
        ("redo", ToolKind::Redo),
        ("status", ToolKind::Status),
        ("log", ToolKind::Log),
        ("show", ToolKind::Show),
    ];
    for (name, kind) in history {
        let t = text(name);
        let mut params: Vec<(&str, Value)> = options(&t.params).collect();
        if matches!(kind, ToolKind::Undo | ToolKind::Redo) {
            params.extend(options(&dry_run.params));
        }
        out.push(ToolSpec {
            name,
            kind,
            description: sentence(&t.about),
            input_schema: object(params.into_iter(), &[]),
        });
    }
    out
}

/// The `idempotency_key` argument of `apply` and `edit` (the server's own, see
/// [`super::idempotency`]).
fn idempotency_key() -> Value {
    json!({"type": "string", "description": "Makes a retry safe: the same key and arguments within 24 h return the first call's report (replay: true), applied once; other arguments are refused."})
}

/// `read`, `grep`, `ls`, `glob`: the schema's read actions, run on their own. `read` pages:
/// `offset`/`limit` besides `lines`, and at most one page per call.
fn read_tools() -> Vec<ToolSpec> {
    let s = schema::schema();
    let mut out = Vec::new();
    for (tool, action) in READ_TOOLS {
        let Some(def) = s.get(action) else { continue };
        let mut input_schema = parameters_schema(action, def);
        let mut description = format!(
            "{} (the `{action}` action; paths are relative to the repository root, nothing \
             outside it is read)",
            def.description.trim()
        );
        if action == "file_read_numbered" {
            description.push_str(&format!(
                ". One call returns at most {READ_MAX_LINES} lines or {READ_MAX_BYTES} bytes \
                 (longer lines are cut at {READ_MAX_LINE_CHARS} characters); the result says \
                 where the file goes on and how to read the rest."
            ));
            if let Some(Value::Object(props)) = input_schema.get_mut("properties") {
                props.insert(
                    "offset".into(),
                    json!({"type": "integer", "minimum": 1, "description": "The first line to read (from 1); instead of `lines`."}),
                );
                props.insert(
                    "limit".into(),
                    json!({"type": "integer", "minimum": 1, "description": "How many lines to read from `offset`."}),
                );
            }
        }
        out.push(ToolSpec {
            name: tool,
            kind: ToolKind::Read(action),
            description,
            input_schema,
        });
    }
    out
}

/// A command's one-line help as a sentence (clap's help has no final full stop).
fn sentence(s: &str) -> String {
    let s = s.trim();
    match s.ends_with(['.', '!', '?']) || s.is_empty() {
        true => s.to_string(),
        false => format!("{s}."),
    }
}

/// `{"type": "object", "properties": …}` with `required`, closed to other keys.
fn object<'a>(props: impl Iterator<Item = (&'a str, Value)>, required: &[&str]) -> Value {
    let props: Map<String, Value> = props.map(|(k, v)| (k.to_string(), v)).collect();
    json!({
        "type": "object",
        "properties": props,
        "required": required,
        "additionalProperties": false,
    })
}

/// Command options as JSON Schema properties (an enum's values listed, their help left to
/// the command's documentation: the list stays small).
fn options(params: &[ParamText]) -> impl Iterator<Item = (&str, Value)> {
    params.iter().map(|p| {
        let mut prop = match &p.kind {
            ParamKind::Boolean => json!({"type": "boolean"}),
            ParamKind::Integer => json!({"type": "integer", "minimum": 0}),
            ParamKind::String => json!({"type": "string"}),
            ParamKind::OneOf(values) => {
                let names: Vec<&str> = values.iter().map(|(v, _)| v.as_str()).collect();
                json!({"type": "string", "enum": names})
            }
        };
        prop["description"] = json!(p.help);
        (p.name.as_str(), prop)
    })
}

/// `file_write(path, content)`, `exec(lang, code, cwd?, timeout?)`: an action and its
/// parameters, `?` after the optional ones.
fn signature(name: &str, def: &schema::ActionDef) -> String {
    let params: Vec<String> = def
        .params
        .iter()
        .map(|(p, d)| match d.required {
            true => p.clone(),
            false => format!("{p}?"),
        })
        .collect();
    format!("{name}({})", params.join(", "))
}

/// The `edit` tool's description: the shapes it takes, and every action with its parameters
/// by kind (the `actions` item schema stays one compact object).
fn edit_description() -> String {
    let s = schema::schema();
    let names = |kind: Kind| -> String {
        s.actions
            .iter()
            .filter(|(_, d)| d.kind == kind)
            .map(|(n, d)| signature(n, d))
            .collect::<Vec<_>>()
            .join(", ")
    };
    format!(
        "Edit files in the repository: one call is one transaction, one AI commit and one undo \
         step. Give one edit the way editor tools take it: `path`, `old_string` (copied exactly \
         from the file; it must occur once, or give `replace_all`), `new_string` (an empty \
         `old_string` creates the file, or fills an empty one); or several edits of one file \
         as `path` and `edits`, all or nothing; or `actions`, a list of actions in git-clada's \
         terms, each {{\"action\": NAME, parameters…}} (`?`: optional) — change files: {}; \
         read: {}; run code: {}. Paths are relative to the repository root. A failed action \
         does not stop the others (`atomic` makes the call all or nothing); the result says, \
         for each one that failed, why and how to fix it.",
        names(Kind::Write),
        names(Kind::Read),
        names(Kind::Run)
    )
}

/// The editor-tool keys of one edit.
fn edit_keys() -> [(&'static str, Value); 3] {
    [
        (
            "old_string",
            json!({"type": "string", "description": "The text to replace, exactly as it is in the file (every space and line break). Empty: create the file (or fill an empty one) with new_string."}),
        ),
        (
            "new_string",
            json!({"type": "string", "description": "The text to put in its place (not the same as old_string)."}),
        ),
        (
            "replace_all",
            json!({"type": "boolean", "default": false, "description": "Replace every occurrence (at least one) instead of exactly one."}),
        ),
    ]
}

/// The `edit` tool's arguments: `actions`, or the editor shape, and the apply options.
fn edit_schema(apply_params: &[ParamText]) -> Value {
    let s = schema::schema();
    let names: Vec<&str> = s.actions.keys().map(String::as_str).collect();
    // One object for every action (clients that flatten `anyOf` would merge 27 of them):
    // `action` names it, its parameters are the other keys, as the description lists them.
    let action_item = json!({
        "type": "object",
        "description": "One action: `action` names it; its parameters (as the tool's description lists them) are the other keys.",
        "properties": {
            "action": {"type": "string", "enum": names, "description": "The action to run."},
            "id": {"type": "string", "description": "An id for this action in the report (default task-N)."},
        },
        "required": ["action"],
        "additionalProperties": true,
    });
    let edit_item = object(edit_keys().into_iter(), &["old_string", "new_string"]);
    let mut props: Vec<(&str, Value)> = vec![
        (
            "actions",
            json!({
                "type": "array",
                "minItems": 1,
                "description": "The actions, run in order.",
                "items": action_item,
            }),
        ),
        (
            "path",
            json!({"type": "string", "description": "The file to edit (editor shape), relative to the repository root."}),
        ),
    ];
    props.extend(edit_keys());
    props.push((
        "edits",
        json!({
            "type": "array",
            "minItems": 1,
            "description": "Several edits of the file at `path`, made in order; all or nothing unless `atomic` is false.",
            "items": edit_item,
        }),
    ));
    props.extend(options(apply_params).filter(|(n, _)| *n != "dialect"));
    object(props.into_iter(), &[])
}

/// The `check` tool's arguments: those of `apply` and of `edit`.
fn check_schema(apply_params: &[ParamText]) -> Value {
    let mut schema = edit_schema(apply_params);
    if let Some(Value::Object(props)) = schema.get_mut("properties") {
        props.insert(
            "reply".into(),
            json!({"type": "string", "description": "A reply to check, as `apply` takes it (instead of the edit arguments)."}),
        );
        for (name, prop) in options(apply_params).filter(|(n, _)| *n == "dialect") {
            props.insert(name.to_string(), prop);
        }
    }
    schema
}

/// The names of the arguments `edit` reads as the tool call itself (not apply options).
pub fn is_apply_option(key: &str) -> bool {
    APPLY_OPTIONS.contains(&key)
}

/// The most of a file one `read` call returns: clients cut a tool result near 25,000 tokens
/// (and many count the text and the structured copy), so a page stays well under that.
pub const READ_MAX_LINES: usize = 2_000;
/// See [`READ_MAX_LINES`].
pub const READ_MAX_BYTES: usize = 40_000;
/// A longer line is cut (minified code, data on one line).
pub const READ_MAX_LINE_CHARS: usize = 2_000;

#[cfg(test)]
mod tests {
    use super::*;

    fn texts() -> CommandTexts {
        let mut t = CommandTexts::new();
        t.insert(
            "apply".into(),
            CommandText {
                about: "Apply the action blocks.".into(),
                params: vec![
                    ParamText {
                        name: "atomic".into(),
                        help: "All-or-nothing.".into(),
                        kind: ParamKind::Boolean,
                    },
                    ParamText {
                        name: "dialect".into(),
                        help: "Block spelling.".into(),
                        kind: ParamKind::OneOf(vec![("auto".into(), "per block".into())]),
                    },
                ],
            },
        );
        t.insert(
            "log".into(),
            CommandText {
                about: "List AI commits.".into(),
                params: vec![ParamText {
                    name: "max_count".into(),
                    help: "At most N.".into(),
                    kind: ParamKind::Integer,
                }],
            },
        );
        t
    }

    #[test]
    fn every_tool_has_an_object_schema_and_edit_offers_every_action() {
        let tools = tools(&texts());
        let names: Vec<&str> = tools.iter().map(|t| t.name).collect();
        assert_eq!(
            names,
            [
                "apply", "edit", "check", "read", "grep", "ls", "glob", "undo", "redo", "status",
                "log", "show"
            ]
        );
        for t in &tools {
            assert_eq!(t.input_schema["type"], "object", "{}", t.name);
            assert_eq!(t.input_schema["additionalProperties"], false, "{}", t.name);
        }
        let edit = &tools[1].input_schema["properties"];
        // One compact item for every action (no `anyOf`, which some clients flatten): the
        // action names as an enum, each action's parameters in the description.
        let item = &edit["actions"]["items"];
        assert!(item.get("anyOf").is_none());
        assert_eq!(item["required"], json!(["action"]));
        let names = item["properties"]["action"]["enum"].as_array().unwrap();
        assert_eq!(names.len(), schema::schema().actions.len());
        assert!(tools[1]
            .description
            .contains("file_replace_text(path, old_text, new_text)"));
        assert!(tools[1].description.contains("exec(code, lang, cwd?"));
        // `idempotency_key` on the tools that change files, not on check (a dry run).
        assert!(tools[0].input_schema["properties"]["idempotency_key"].is_object());
        assert!(edit["idempotency_key"]["description"].is_string());
        assert!(tools[2].input_schema["properties"]
            .get("idempotency_key")
            .is_none());
        // `dialect` is for replies: on apply and check, not on edit.
        assert!(edit.get("dialect").is_none());
        assert_eq!(
            tools[0].input_schema["properties"]["dialect"]["description"],
            "Block spelling."
        );
        assert!(tools[0]
            .description
            .starts_with("Apply the action blocks. The reply"));
        assert!(tools[2].input_schema["properties"]["dialect"].is_object());
        assert_eq!(
            tools[10].input_schema["properties"]["max_count"]["type"],
            "integer"
        );
        // The read tools are the schema's read actions, with their parameters.
        assert_eq!(tools[3].kind, ToolKind::Read("file_read_numbered"));
        assert_eq!(tools[3].input_schema["required"], json!(["path"]));
        assert!(tools.iter().all(|t| t.kind.read_only()
            != matches!(
                t.kind,
                ToolKind::Apply | ToolKind::Edit | ToolKind::Undo | ToolKind::Redo
            )));
    }
}
