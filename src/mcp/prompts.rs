//! The server's MCP prompts: `git clada prompt`'s instructions, one prompt per dialect,
//! rendered by [`crate::loops::prompt`] (so they are generated from the action schema like
//! the command's output).

use serde_json::{json, Value};

use crate::loops::prompt::{self, PromptDialect, PromptFormat};

/// The `prompts/list` entries.
pub fn list() -> Value {
    let prompts: Vec<Value> = PromptDialect::ALL
        .iter()
        .map(|d| {
            json!({
                "name": d.name(),
                "title": format!("git-clada instructions ({})", d.name()),
                "description": format!(
                    "How to write git-clada action blocks in the {} spelling (what `git clada prompt --dialect {}` prints): the syntax, the rules that make edits succeed, every action with an example, and what the report looks like. Give it to a model that writes replies for the `apply` tool.",
                    d.name(),
                    d.name()
                ),
                "arguments": [{
                    "name": "actions",
                    "description": "Only these actions, comma-separated (for example file_write,file_replace_text); default: all.",
                    "required": false,
                }],
            })
        })
        .collect();
    json!({ "prompts": prompts })
}

/// The `prompts/get` result for `name`, or why there is none (an invalid-params error).
pub fn get(
    name: &str,
    arguments: Option<&serde_json::Map<String, Value>>,
) -> Result<Value, String> {
    let Some(dialect) = PromptDialect::ALL.into_iter().find(|d| d.name() == name) else {
        let names: Vec<&str> = PromptDialect::ALL.iter().map(|d| d.name()).collect();
        return Err(format!(
            "unknown prompt '{name}'; the prompts are {}",
            names.join(", ")
        ));
    };
    let only: Option<Vec<String>> = match arguments.and_then(|a| a.get("actions")) {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.split(',').map(str::to_string).collect()),
        Some(_) => return Err("`actions` must be a comma-separated string".into()),
    };
    let text = prompt::render(dialect, only.as_deref(), PromptFormat::Markdown)
        .map_err(|e| e.to_string())?;
    Ok(json!({
        "description": format!("git-clada instructions ({})", dialect.name()),
        "messages": [{
            "role": "user",
            "content": {"type": "text", "text": text},
        }],
    }))
}
