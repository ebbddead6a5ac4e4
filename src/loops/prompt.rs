//! `git clada prompt`: the instructions to give a model, generated from the action schema.
//!
//! Everything about the actions (names, descriptions, parameters, types, defaults, allowed
//! values, examples) comes from `src/action/schema.yaml`, so the prompt cannot drift from what
//! the engine accepts; only the block syntax (per dialect), the rules that make edits succeed
//! and the shape of the report are written here. The document is built once as a small tree of
//! nodes and rendered as markdown, plain text, or JSON (a function-tool schema plus the text
//! instructions, for agent frameworks).

use indexmap::IndexMap;
use serde_json::{json, Value};
use sha1::{Digest, Sha1};

use clada_engine::action::schema::{self, ActionDef, Kind, ParamDef, ParamType, PathRole, Schema};

/// The block spelling the prompt teaches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PromptDialect {
    /// Lower-case `#!nesl` … `#!end_ID` (the current spelling).
    Nesl,
    /// Upper-case `#!NESL` … `#!END_NESL_ID` (the original project's test data).
    NeslUpper,
    /// `#!SHAM` … `#!END_SHAM_ID`.
    Sham,
}

impl PromptDialect {
    pub const ALL: [PromptDialect; 3] = [
        PromptDialect::Nesl,
        PromptDialect::NeslUpper,
        PromptDialect::Sham,
    ];

    /// The name used on the command line and in file names.
    pub fn name(self) -> &'static str {
        match self {
            PromptDialect::Nesl => "nesl",
            PromptDialect::NeslUpper => "nesl-upper",
            PromptDialect::Sham => "sham",
        }
    }

    /// The header of a block with this id.
    pub fn header(self, id: &str) -> String {
        match self {
            PromptDialect::Nesl => format!("#!nesl [@three-char-SHA-256: {id}]"),
            PromptDialect::NeslUpper => format!("#!NESL [@three-char-SHA-256: {id}]"),
            PromptDialect::Sham => format!("#!SHAM [@three-char-SHA-256: {id}]"),
        }
    }

    /// The end marker of a block with this id.
    pub fn end(self, id: &str) -> String {
        match self {
            PromptDialect::Nesl => format!("#!end_{id}"),
            PromptDialect::NeslUpper => format!("#!END_NESL_{id}"),
            PromptDialect::Sham => format!("#!END_SHAM_{id}"),
        }
    }

    /// The heredoc delimiter of a block with this id.
    pub fn delimiter(self, id: &str) -> String {
        match self {
            PromptDialect::Nesl => format!("EOT_{id}"),
            PromptDialect::NeslUpper => format!("EOT_NESL_{id}"),
            PromptDialect::Sham => format!("EOT_SHAM_{id}"),
        }
    }

    /// The info string of the fenced code blocks around examples (the seeds' `sh nesl`).
    fn fence_info(self) -> &'static str {
        match self {
            PromptDialect::Nesl | PromptDialect::NeslUpper => "sh nesl",
            PromptDialect::Sham => "sh sham",
        }
    }
}

/// How the prompt is printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PromptFormat {
    Markdown,
    Text,
    /// A function-tool schema per action, the examples, and the text instructions.
    Json,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PromptError {
    #[error("--actions: unknown action '{name}'; the actions are: {}", available.join(", "))]
    UnknownAction {
        name: String,
        available: Vec<String>,
    },
    #[error("--actions: no action named; give a comma-separated list such as file_write,file_replace_text")]
    NoActions,
}

/// One example block as printed, with the files it expects to exist.
#[derive(Debug, Clone)]
pub struct ExampleBlock {
    pub action: String,
    pub id: String,
    /// The block's text (header to end marker, no trailing newline).
    pub text: String,
    pub files: IndexMap<String, String>,
}

/// The actions a prompt covers: all of the schema's, or those named (in schema order).
pub fn select<'s>(
    schema: &'s Schema,
    only: Option<&[String]>,
) -> Result<Vec<(&'s str, &'s ActionDef)>, PromptError> {
    let Some(only) = only else {
        return Ok(schema
            .actions
            .iter()
            .map(|(n, d)| (n.as_str(), d))
            .collect());
    };
    let wanted: Vec<&str> = only
        .iter()
        .map(|s| s.trim())
        .filter(|s| !s.is_empty())
        .collect();
    if wanted.is_empty() {
        return Err(PromptError::NoActions);
    }
    if let Some(bad) = wanted.iter().find(|w| schema.get(w).is_none()) {
        return Err(PromptError::UnknownAction {
            name: bad.to_string(),
            available: schema.names().into_iter().map(String::from).collect(),
        });
    }
    Ok(schema
        .actions
        .iter()
        .filter(|(n, _)| wanted.contains(&n.as_str()))
        .map(|(n, d)| (n.as_str(), d))
        .collect())
}

/// The example id of an action: three base-36 characters of the SHA-1 of its name (the look
/// the header's label asks for), lengthened while another action already has it.
fn example_ids(names: &[&str]) -> Vec<String> {
    const DIGITS: &[u8] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut used: Vec<String> = Vec::new();
    for name in names {
        let digest = Sha1::digest(name.as_bytes());
        let chars: String = digest
            .iter()
            .map(|b| DIGITS[usize::from(*b) % 36] as char)
            .collect();
        let mut len = 3;
        while used.iter().any(|u| *u == chars[..len]) && len < 8 {
            len += 1;
        }
        used.push(chars[..len].to_string());
    }
    used
}

/// Writes one block in `dialect`: one-line values as JSON strings, others as heredocs.
pub fn block_text(
    dialect: PromptDialect,
    id: &str,
    action: &str,
    params: &[(&str, &str)],
) -> String {
    let mut out = vec![dialect.header(id), format!("action = \"{action}\"")];
    for (k, v) in params {
        if v.contains('\n') {
            let delim = dialect.delimiter(id);
            out.push(format!("{k} = <<'{delim}'"));
            out.push(v.to_string());
            out.push(delim);
        } else {
            out.push(format!("{k} = {}", json_string(v)));
        }
    }
    out.push(dialect.end(id));
    out.join("\n")
}

fn json_string(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| format!("\"{s}\""))
}

/// The example blocks of the selected actions. Actions without an example are skipped here
/// (the schema test requires every action to have one).
pub fn examples(actions: &[(&str, &ActionDef)], dialect: PromptDialect) -> Vec<ExampleBlock> {
    let names: Vec<&str> = actions.iter().map(|(n, _)| *n).collect();
    let ids = example_ids(&names);
    actions
        .iter()
        .zip(ids)
        .filter_map(|((name, def), id)| {
            let ex = def.example.as_ref()?;
            let params: Vec<(&str, &str)> = ex
                .params
                .iter()
                .map(|(k, v)| (k.as_str(), v.as_str()))
                .collect();
            Some(ExampleBlock {
                action: name.to_string(),
                text: block_text(dialect, &id, name, &params),
                id,
                files: ex.files.clone(),
            })
        })
        .collect()
}

/// The prompt for `dialect`, covering `only` (or every action), in `format`.
pub fn render(
    dialect: PromptDialect,
    only: Option<&[String]>,
    format: PromptFormat,
) -> Result<String, PromptError> {
    let schema = schema::schema();
    let actions = select(schema, only)?;
    let doc = document(dialect, &actions);
    Ok(match format {
        PromptFormat::Markdown => markdown(&doc, dialect.fence_info()),
        PromptFormat::Text => text(&doc),
        PromptFormat::Json => {
            let mut s = serde_json::to_string_pretty(&tools_json(dialect, &actions, &text(&doc)))
                .unwrap_or_default();
            s.push('\n');
            s
        }
    })
}

/// A piece of the document.
pub(crate) enum Node {
    Heading(u8, String),
    Para(String),
    /// Items starting with a tab are nested under the item before.
    Bullets(Vec<String>),
    /// Header row, then rows.
    Table(Vec<String>, Vec<Vec<String>>),
    /// A block shown verbatim.
    Code(String),
    /// Other verbatim text (a report).
    Verbatim(String),
    /// Verbatim text under a fence with this info string (an edit in another format, which
    /// may hold fences itself: the fence is made longer than any inside).
    Fenced(String, String),
}

/// The block shown under "Block syntax".
fn syntax_sample(dialect: PromptDialect, actions: &[(&str, &ActionDef)]) -> String {
    let id = "k7x";
    // The syntax sample writes a file (it shows a heredoc); without file_write in the prompt,
    // it is the first offered action's example, so the model never sees an action it lacks.
    let offered = |n: &str| actions.iter().any(|(name, _)| *name == n);
    match actions.first() {
        Some((name, def)) if !offered("file_write") => {
            let params = example_params(def);
            block_text(dialect, id, name, &params)
        }
        _ => block_text(
            dialect,
            id,
            "file_write",
            &[
                ("path", "src/hello.py"),
                ("content", "def hello():\n    return \"hi\"\n"),
            ],
        ),
    }
}

fn document(dialect: PromptDialect, actions: &[(&str, &ActionDef)]) -> Vec<Node> {
    use Node::*;
    let sample = syntax_sample(dialect, actions);
    let mut doc = vec![
        Heading(1, "Editing files with git-clada".into()),
        Para(
            "You change the user's repository by writing action blocks in your reply. git-clada \
             reads every block, runs the valid ones in order, commits the result as one commit, \
             and sends you a report of what happened. Text outside blocks is ignored, so explain \
             freely around them."
                .into(),
        ),
        Heading(2, "Block syntax".into()),
        Code(sample),
        Bullets(vec![
            format!(
                "A block starts with the header line `{}` and ends with the line `{}`, each on a \
                 line of its own with nothing before it.",
                dialect.header("ID"),
                dialect.end("ID")
            ),
            "ID is 2 to 8 letters or digits (for example three random characters such as `k7x`), \
             different for every block of a reply."
                .into(),
            "Each line inside is `key = value`; the first is `action = \"NAME\"`. Every value is \
             a string, written one of two ways:"
                .into(),
            "\ta JSON string in double quotes on one line: `path = \"src/app.py\"` (escape `\"` and \
             `\\` as in JSON; `\\n` is a line break, `\\t` a tab);"
                .into(),
            format!(
                "\tor, for text with several lines, a heredoc: `key = <<'{d}'`, then the text, then \
                 a line `{d}` alone. The value is the lines in between exactly as written, without \
                 a line break after the last one: leave one empty line before `{d}` to end the \
                 text with a line break.",
                d = dialect.delimiter("ID")
            ),
            "Numbers and true/false are strings too: `count = \"2\"`, `recursive = \"true\"`."
                .into(),
            format!(
                "Put each block in a fenced code block with the info string `{}`, so it shows as \
                 code; the fences are ignored.",
                dialect.fence_info()
            ),
        ]),
        Heading(2, "Rules that make edits succeed".into()),
        Bullets(rules(actions)),
        Heading(2, "Actions".into()),
    ];
    doc.extend(action_nodes(dialect, actions));
    doc.push(Heading(2, "What comes back".into()));
    doc.push(Para(
        "After your reply is applied, the user pastes back a report like this one: one line per \
         block (✅ applied, ❌ failed, with the reason and, for text that was not found, the \
         closest lines of the file; ⏸ waiting for the user), then the output of read actions and \
         commands, then what to do next."
            .into(),
    ));
    doc.push(Verbatim(sample_report(actions)));
    doc.push(Para(
        "Blocks marked ✅ are done: never send them again. For each block marked ❌ send a \
         corrected block (with a new ID); if the report shows the closest match, copy the old \
         text from the file as it really is (in its diff `·` marks a space and `→` a tab). A \
         block marked ⏸ waits for the user's approval (a command they did not allow, a path \
         outside what they allow): do not send it again unless the user asks."
            .into(),
    ));
    doc
}

/// One section per action: description, parameter table, example.
fn action_nodes(dialect: PromptDialect, actions: &[(&str, &ActionDef)]) -> Vec<Node> {
    use Node::*;
    let mut doc = Vec::new();
    let examples = examples(actions, dialect);
    for (name, def) in actions {
        doc.push(Heading(3, format!("{name} ({})", kind_word(def.kind))));
        doc.push(Para(def.description.trim().to_string()));
        if !def.params.is_empty() {
            let rows = def
                .params
                .iter()
                .map(|(p, d)| {
                    vec![
                        p.clone(),
                        type_word(d),
                        if d.required { "yes" } else { "no" }.to_string(),
                        d.default
                            .clone()
                            .map(|v| json_string(&v))
                            .unwrap_or_default(),
                        param_note(d),
                    ]
                })
                .collect();
            doc.push(Table(
                ["parameter", "type", "required", "default", "notes"]
                    .map(String::from)
                    .to_vec(),
                rows,
            ));
        }
        if let Some(ex) = examples.iter().find(|e| e.action == *name) {
            let given: Vec<&str> = ex.files.keys().map(String::as_str).collect();
            doc.push(Para(if given.is_empty() {
                "Example:".to_string()
            } else {
                format!("Example (with {} in the repository):", given.join(", "))
            }));
            doc.push(Code(ex.text.clone()));
        }
    }
    doc
}

fn rules(actions: &[(&str, &ActionDef)]) -> Vec<String> {
    let has = |n: &str| actions.iter().any(|(name, _)| *name == n);
    let mut out = vec![
        "Paths are relative to the repository root. Nothing outside the repository and nothing \
         under `.git/` can be written."
            .to_string(),
        "One change per block; a reply may hold many blocks. They run in order, and a block that \
         fails does not stop the ones after it."
            .to_string(),
    ];
    if has("file_replace_text") || has("file_edit") || has("file_replace_all_text") {
        out.push(
            "To change part of a file, copy `old_text` exactly from the file: every space, tab, \
             quote and line break. Do not retype it from memory; if you have not seen the file's \
             current text, read it first and wait for the report."
                .into(),
        );
        out.push(
            "Keep `old_text` small but unique: a few whole lines that occur exactly once in the \
             file. If it occurs more than once, include a neighbouring line that makes it unique."
                .into(),
        );
    }
    if has("file_write") {
        out.push(
            "For a new file, or to rewrite a small file completely, use `file_write` with the \
             whole content."
                .into(),
        );
    }
    if has("file_replace_lines") || has("file_read_numbered") {
        out.push(
            "Line numbers start at 1 and ranges include both ends (`\"4\"`, `\"23-43\"`). All line \
             numbers in one reply refer to the file as it was before the reply: several \
             `file_replace_lines` blocks for one file do not shift each other's numbers."
                .into(),
        );
    }
    if actions.iter().any(|(_, d)| d.kind == Kind::Read) {
        out.push(
            "Read actions show their output in the report, after your reply has been applied: \
             you cannot use what they return in the same reply."
                .into(),
        );
    }
    if has("exec") {
        out.push(
            "`exec` runs code with no input and a timeout. A block without `cwd` starts where the \
             reply's previous `exec` block ended (a `cd` carries over; the first starts in the \
             repository root); give `cwd` to choose. The user may have to approve it, or may \
             not allow it."
                .into(),
        );
    }
    out.push(
        "Never resend a block that was already applied, and give every new block a new ID.".into(),
    );
    out
}

fn kind_word(kind: Kind) -> &'static str {
    match kind {
        Kind::Read => "reads; changes nothing",
        Kind::Write => "changes files",
        Kind::Run => "runs code",
    }
}

fn type_word(d: &ParamDef) -> String {
    match d.ty {
        ParamType::String if d.path.is_some() => "path".into(),
        ParamType::String => "string".into(),
        ParamType::Integer => "integer".into(),
        ParamType::Boolean => "boolean".into(),
        ParamType::Enum => "one of".into(),
    }
}

fn param_note(d: &ParamDef) -> String {
    let mut notes = Vec::new();
    if d.ty == ParamType::Enum {
        notes.push(d.values.join(", "));
    }
    if let Some(min) = d.min {
        notes.push(format!("at least {min}"));
    }
    match d.path {
        Some(PathRole::List) => notes.push("one path per line".into()),
        Some(PathRole::Cwd) => notes.push("a directory in the repository".into()),
        _ => {}
    }
    match d.ty {
        ParamType::Integer => notes.push("written as a string, e.g. \"2\"".into()),
        ParamType::Boolean => notes.push("\"true\" or \"false\"".into()),
        _ => {}
    }
    notes.join("; ")
}

/// What a report looks like, for the last section: a sample result over the offered actions
/// (an applied block, a failed edit with its real hint, a read with its output), rendered by
/// the report code itself, so its shape is exactly a real report's.
fn sample_report(actions: &[(&str, &ActionDef)]) -> String {
    use clada_engine::action::{ActionResult, ExecutionResult};
    let offered = |n: &str| actions.iter().any(|(name, _)| *name == n);
    let params = |pairs: &[(&str, &str)]| -> IndexMap<String, Value> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), Value::String(v.to_string())))
            .collect()
    };
    let mut results: Vec<ActionResult> = Vec::new();
    let one = |seq: usize, id: &str, action: &str, pairs: &[(&str, &str)], ok: bool| {
        let mut p = params(&[("action", action)]);
        p.extend(params(pairs));
        ActionResult {
            seq,
            block_id: id.into(),
            action: action.into(),
            params: p,
            success: ok,
            ..ActionResult::default()
        }
    };
    if offered("file_write") {
        results.push(one(
            1,
            "k7x",
            "file_write",
            &[("path", "src/hello.py")],
            true,
        ));
    }
    if offered("file_replace_text") {
        // A real near miss: the file has two spaces where old_text has one.
        let file = "def total(items):\n    return  sum(items)\n";
        let old = "def total(items):\n    return sum(items)";
        let mut r = one(
            results.len() + 1,
            "m2p",
            "file_replace_text",
            &[("path", "src/app.py")],
            false,
        );
        r.code = Some("search_not_found".into());
        r.error = Some("old_text not found in file".into());
        r.hint = Some(clada_engine::action::textmatch::not_found_hint(
            file.as_bytes(),
            old,
            "",
            "src/app.py",
        ));
        results.push(r);
    }
    if offered("file_read") {
        let mut r = one(
            results.len() + 1,
            "r4d",
            "file_read",
            &[("path", "README.md")],
            true,
        );
        r.data = Some(json!({"path": "README.md", "content": "# Demo"}));
        results.push(r);
    }
    if results.is_empty() {
        // None of those offered: the first offered action, applied.
        if let Some((name, def)) = actions.first() {
            let pairs = example_params(def);
            results.push(one(1, "k7x", name, &pairs, true));
        }
    }
    let mut result = ExecutionResult {
        total_blocks: results.len(),
        executed_actions: results.len(),
        results,
        git_commit: Some("1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b".into()),
        ..ExecutionResult::default()
    };
    result.update_success();
    clada_engine::report::render(&result, clada_engine::report::ReportFormat::Llm, false)
        .trim_end()
        .to_string()
}

/// Markdown; `code_info` is the info string of the fences around [`Node::Code`] blocks.
pub(crate) fn markdown(doc: &[Node], code_info: &str) -> String {
    let mut out = Vec::new();
    for node in doc {
        out.push(match node {
            Node::Heading(level, t) => format!("{} {t}", "#".repeat(usize::from(*level))),
            Node::Para(t) => t.clone(),
            Node::Bullets(items) => items
                .iter()
                .map(|i| match i.strip_prefix('\t') {
                    Some(sub) => format!("  - {sub}"),
                    None => format!("- {i}"),
                })
                .collect::<Vec<_>>()
                .join("\n"),
            Node::Table(head, rows) => {
                // Names and default values are code; the other cells are prose.
                let row = |cells: &[String]| {
                    let cells: Vec<String> = cells
                        .iter()
                        .enumerate()
                        .map(|(i, c)| match (i, c.is_empty()) {
                            (_, true) => String::new(),
                            (0 | 3, false) => format!("`{c}`"),
                            _ => c.replace('|', "\\|"),
                        })
                        .collect();
                    format!("| {} |", cells.join(" | "))
                };
                let mut lines = vec![
                    format!("| {} |", head.join(" | ")),
                    format!("|{}", " --- |".repeat(head.len())),
                ];
                lines.extend(rows.iter().map(|r| row(r)));
                lines.join("\n")
            }
            Node::Code(t) => format!("```{code_info}\n{t}\n```"),
            Node::Verbatim(t) => format!("```text\n{t}\n```"),
            Node::Fenced(info, t) => {
                let longest = t
                    .lines()
                    .map(|l| l.trim_start().chars().take_while(|c| *c == '`').count())
                    .max()
                    .unwrap_or(0);
                let fence = "`".repeat(longest.max(2) + 1);
                format!("{fence}{info}\n{t}\n{fence}")
            }
        });
    }
    out.join("\n\n") + "\n"
}

/// Plain text: no markup, blocks left as they are so they can be copied.
pub(crate) fn text(doc: &[Node]) -> String {
    let plain = |s: &str| s.replace('`', "");
    let mut out = Vec::new();
    for node in doc {
        out.push(match node {
            Node::Heading(1, t) => {
                format!("{}\n{}", t.to_uppercase(), "=".repeat(t.chars().count()))
            }
            Node::Heading(2, t) => format!("{t}\n{}", "-".repeat(t.chars().count())),
            Node::Heading(_, t) => format!("* {t}"),
            Node::Para(t) => plain(t),
            Node::Bullets(items) => items
                .iter()
                .map(|i| match i.strip_prefix('\t') {
                    Some(sub) => format!("    - {}", plain(sub)),
                    None => format!("- {}", plain(i)),
                })
                .collect::<Vec<_>>()
                .join("\n"),
            Node::Table(_, rows) => rows
                .iter()
                .map(|r| {
                    let mut facts = vec![r[1].clone()];
                    facts.push(
                        if r[2] == "yes" {
                            "required"
                        } else {
                            "optional"
                        }
                        .into(),
                    );
                    if !r[3].is_empty() {
                        facts.push(format!("default {}", r[3]));
                    }
                    let note = if r[4].is_empty() {
                        String::new()
                    } else {
                        format!(": {}", r[4])
                    };
                    format!("  {} ({}){note}", r[0], facts.join(", "))
                })
                .collect::<Vec<_>>()
                .join("\n"),
            Node::Code(t) | Node::Verbatim(t) | Node::Fenced(_, t) => t.clone(),
        });
    }
    out.join("\n\n") + "\n"
}

/// The JSON form: one function tool per action (JSON Schema parameters with real types; a
/// bridge writes them into a block as strings), the example blocks, and the instructions.
fn tools_json(dialect: PromptDialect, actions: &[(&str, &ActionDef)], instructions: &str) -> Value {
    let tools: Vec<Value> = actions
        .iter()
        .map(|(name, def)| {
            json!({
                "type": "function",
                "function": {
                    "name": name,
                    "description": def.description.trim(),
                    "parameters": parameters_schema(name, def),
                },
                "x-clada-kind": def.kind,
            })
        })
        .collect();
    let examples: Vec<Value> = examples(actions, dialect)
        .into_iter()
        .map(|e| json!({"action": e.action, "block": e.text, "files": e.files}))
        .collect();
    json!({
        "name": "git-clada",
        "version": clada_engine::VERSION,
        "dialect": dialect.name(),
        "instructions": instructions,
        "tools": tools,
        "examples": examples,
    })
}

/// The JSON Schema of an action's parameters, as a tool takes them: real types (a bridge, or
/// the `tool-call` format, writes them into a block as strings), defaults, allowed values,
/// and what a path is relative to. Shared by `prompt --format json` and the MCP server.
pub fn parameters_schema(name: &str, def: &ActionDef) -> Value {
    let mut props = serde_json::Map::new();
    for (p, d) in &def.params {
        let mut prop = serde_json::Map::new();
        let ty = match d.ty {
            ParamType::String | ParamType::Enum => "string",
            ParamType::Integer => "integer",
            ParamType::Boolean => "boolean",
        };
        prop.insert("type".into(), json!(ty));
        if d.ty == ParamType::Enum {
            prop.insert("enum".into(), json!(d.values));
        }
        if let Some(min) = d.min {
            prop.insert("minimum".into(), json!(min));
        }
        if let Some(default) = &d.default {
            if let Ok(v) = schema::convert(name, p, d, default) {
                prop.insert("default".into(), v);
            }
        }
        let note = match d.path {
            Some(PathRole::List) => "Paths relative to the repository root, one per line.",
            Some(PathRole::Cwd) => "A directory relative to the repository root.",
            Some(_) => "A path relative to the repository root.",
            None => "",
        };
        let note = match &d.description {
            Some(what) if note.is_empty() => what.clone(),
            Some(what) => format!("{what} {note}"),
            None => note.to_string(),
        };
        if !note.is_empty() {
            prop.insert("description".into(), json!(note));
        }
        props.insert(p.clone(), Value::Object(prop));
    }
    let required: Vec<&String> = def
        .params
        .iter()
        .filter(|(_, d)| d.required)
        .map(|(p, _)| p)
        .collect();
    json!({
        "type": "object",
        "properties": props,
        "required": required,
        "additionalProperties": false,
    })
}

/// The parameters of an action's schema example, as (name, value); none without an example.
fn example_params(def: &ActionDef) -> Vec<(&str, &str)> {
    def.example
        .as_ref()
        .map(|e| {
            e.params
                .iter()
                .map(|(k, v)| (k.as_str(), v.as_str()))
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_action_in_the_schema_has_an_example_that_validates() {
        let s = schema::schema();
        for (name, def) in &s.actions {
            let ex = def
                .example
                .as_ref()
                .unwrap_or_else(|| panic!("schema.yaml: action {name} has no `example:`"));
            let mut props: IndexMap<String, String> = ex.params.clone();
            props.insert("action".into(), name.clone());
            let v = schema::validate(&props, s).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(v.warnings.is_empty(), "{name}: {:?}", v.warnings);
        }
    }

    #[test]
    fn example_ids_are_distinct_and_valid() {
        let s = schema::schema();
        let names: Vec<&str> = s.names();
        let ids = example_ids(&names);
        let mut sorted = ids.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), ids.len());
        assert!(ids
            .iter()
            .all(|i| (2..=8).contains(&i.len()) && i.chars().all(|c| c.is_ascii_alphanumeric())));
    }

    #[test]
    fn actions_filter_keeps_schema_order_and_rejects_unknown_names() {
        let s = schema::schema();
        let only = vec!["file_read".to_string(), "file_write".to_string()];
        let got: Vec<&str> = select(s, Some(&only))
            .unwrap()
            .iter()
            .map(|(n, _)| *n)
            .collect();
        assert_eq!(got, ["file_write", "file_read"]);
        let bad = vec!["file_wrte".to_string()];
        let e = select(s, Some(&bad)).unwrap_err();
        assert!(e.to_string().contains("unknown action 'file_wrte'"), "{e}");
        let text = render(PromptDialect::Nesl, Some(&only), PromptFormat::Markdown).unwrap();
        assert!(text.contains("### file_write"));
        assert!(!text.contains("### exec"));
        assert!(!text.contains("`exec` runs code"));
        // Without file_write, not even the syntax sample uses it.
        let only = vec!["file_edit".to_string()];
        let text = render(PromptDialect::Nesl, Some(&only), PromptFormat::Markdown).unwrap();
        assert!(!text.contains("action = \"file_write\""), "{text}");
    }
}
