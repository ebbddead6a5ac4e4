//! The action schema (`schema.yaml`, embedded) and the step that turns a block's string
//! properties into checked, typed parameter values.
//!
//! Everything about which actions exist, which parameters they take, their types, defaults and
//! which of them are paths lives in the YAML; this module only interprets it. Error texts are
//! the original project's (clada-semantics §3), extended where that helps the LLM fix the block.

use std::sync::OnceLock;

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::read::Block;

const SCHEMA_YAML: &str = include_str!("schema.yaml");

/// What an action does to the worktree.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// Reads only; its output goes into the report.
    Read,
    /// Changes files; the changes end up in the commit.
    Write,
    /// Runs code (`exec`).
    Run,
}

/// Whether a successful result's data is shown in the OUTPUTS section of a report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum OutputDisplay {
    Always,
    Never,
    /// Shown unless the block says `return_output = "false"`.
    Conditional,
}

/// The type a parameter's string value is converted to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ParamType {
    String,
    Integer,
    Boolean,
    Enum,
}

/// How the sandbox treats a path parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PathRole {
    /// Read; a final symlink is followed (and must stay inside).
    Read,
    /// Content written; a final symlink is written through (and must stay inside).
    Write,
    /// The directory entry itself is created, deleted or renamed.
    Entry,
    /// One path per line, each read.
    List,
    /// One path per line, each written.
    #[serde(rename = "write_list")]
    WriteList,
    /// A working directory.
    Cwd,
}

/// One parameter of an action.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ParamDef {
    #[serde(rename = "type")]
    pub ty: ParamType,
    #[serde(default)]
    pub required: bool,
    /// Used when the key is absent; converted like a block value.
    #[serde(default)]
    pub default: Option<String>,
    /// Allowed values of an enum.
    #[serde(default)]
    pub values: Vec<String>,
    /// Smallest allowed integer.
    #[serde(default)]
    pub min: Option<i64>,
    #[serde(default)]
    pub path: Option<PathRole>,
}

/// One action.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ActionDef {
    pub kind: Kind,
    /// The parameter shown in report lines.
    #[serde(default)]
    pub primary: Option<String>,
    pub output: OutputDisplay,
    pub description: String,
    #[serde(default)]
    pub params: IndexMap<String, ParamDef>,
    /// The example block `git clada prompt` shows (required by a test, optional here so that a
    /// schema without one still loads).
    #[serde(default)]
    pub example: Option<Example>,
}

/// An action's example: the block's parameters, and the files that exist before it runs.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Example {
    /// Key → string value, in the order they are printed.
    pub params: IndexMap<String, String>,
    /// Path → content of files committed before the example runs.
    #[serde(default)]
    pub files: IndexMap<String, String>,
}

/// The whole schema: actions in file order.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Schema {
    pub actions: IndexMap<String, ActionDef>,
}

impl Schema {
    /// Parses a schema document (the embedded one, or another in tests).
    pub fn from_yaml(text: &str) -> Result<Schema, serde_norway::Error> {
        serde_norway::from_str(text)
    }

    pub fn get(&self, action: &str) -> Option<&ActionDef> {
        self.actions.get(action)
    }

    /// Action names in schema order, for "Unknown action" messages.
    pub fn names(&self) -> Vec<&str> {
        self.actions.keys().map(String::as_str).collect()
    }
}

/// The embedded schema, parsed once.
pub fn schema() -> &'static Schema {
    static SCHEMA: OnceLock<Schema> = OnceLock::new();
    SCHEMA.get_or_init(|| {
        // The YAML is part of the binary, not input; a unit test parses it, so this cannot fail
        // in a built binary that passed its tests.
        Schema::from_yaml(SCHEMA_YAML).expect("embedded src/action/schema.yaml must parse")
    })
}

/// Which stage rejected a block, in the original project's words.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ErrorType {
    Syntax,
    Validation,
    Type,
}

/// Why a block's properties do not make a valid action.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ValidationError {
    #[error("Missing 'action' field in NESL block")]
    MissingAction,
    #[error("Unknown action: {name}. Available actions: {}", available.join(", "))]
    UnknownAction {
        name: String,
        available: Vec<String>,
    },
    #[error("Missing required parameter: {param}")]
    MissingParam { action: String, param: String },
    #[error("Invalid integer value: {value} (parameter '{param}' of {action} expects a whole number written like \"3\")")]
    InvalidInteger {
        action: String,
        param: String,
        value: String,
    },
    #[error(
        "Invalid integer value: {value} (parameter '{param}' of {action} must be at least {min})"
    )]
    IntegerTooSmall {
        action: String,
        param: String,
        value: String,
        min: i64,
    },
    #[error("Invalid boolean value: {value} (parameter '{param}' of {action} expects \"true\" or \"false\")")]
    InvalidBoolean {
        action: String,
        param: String,
        value: String,
    },
    #[error("Invalid enum value: {value}. Allowed: {} (parameter '{param}' of {action})", allowed.join(", "))]
    InvalidEnum {
        action: String,
        param: String,
        value: String,
        allowed: Vec<String>,
    },
}

impl ValidationError {
    /// `validation` for structural problems, `type` for values that do not convert.
    pub fn error_type(&self) -> ErrorType {
        match self {
            ValidationError::MissingAction
            | ValidationError::UnknownAction { .. }
            | ValidationError::MissingParam { .. } => ErrorType::Validation,
            _ => ErrorType::Type,
        }
    }

    /// The stable code (seed 000's `MISSING_PARAM`, `UNKNOWN_ACTION`, `INVALID_TYPE`, in the
    /// lower case of every other code).
    pub fn code(&self) -> &'static str {
        match self {
            ValidationError::MissingAction => "missing_action",
            ValidationError::UnknownAction { .. } => "unknown_action",
            ValidationError::MissingParam { .. } => "missing_param",
            _ => "invalid_type",
        }
    }

    /// What the parameter must be and what it was (seed 000's `expected` and `actual`).
    pub fn expected_actual(&self) -> (Option<String>, Option<String>) {
        match self {
            ValidationError::MissingAction => (Some("an action".into()), None),
            ValidationError::UnknownAction { name, .. } => {
                (Some("a known action".into()), Some(name.clone()))
            }
            ValidationError::MissingParam { .. } => (Some("a value".into()), None),
            ValidationError::InvalidInteger { value, .. } => {
                (Some("integer".into()), Some(value.clone()))
            }
            ValidationError::IntegerTooSmall { value, min, .. } => {
                (Some(format!("integer >= {min}")), Some(value.clone()))
            }
            ValidationError::InvalidBoolean { value, .. } => {
                (Some("boolean (true or false)".into()), Some(value.clone()))
            }
            ValidationError::InvalidEnum { value, allowed, .. } => (
                Some(format!("one of {}", allowed.join(", "))),
                Some(value.clone()),
            ),
        }
    }

    /// The parameter at fault, if any.
    pub fn param(&self) -> Option<&str> {
        match self {
            ValidationError::MissingAction | ValidationError::UnknownAction { .. } => None,
            ValidationError::MissingParam { param, .. }
            | ValidationError::InvalidInteger { param, .. }
            | ValidationError::IntegerTooSmall { param, .. }
            | ValidationError::InvalidBoolean { param, .. }
            | ValidationError::InvalidEnum { param, .. } => Some(param),
        }
    }
}

/// A block whose properties passed the schema.
#[derive(Debug, Clone)]
pub struct Validated<'s> {
    pub action: String,
    pub def: &'s ActionDef,
    /// The parameters present in the block, converted, in schema order (what reports show as
    /// `params`; defaults are not filled in here, as in the original).
    pub params: IndexMap<String, Value>,
    /// Parameters the schema does not know, as written (reports echo them, as the seeds did).
    pub extras: IndexMap<String, Value>,
    /// One per extra parameter: it was ignored.
    pub warnings: Vec<String>,
}

impl Validated<'_> {
    /// A parameter's value, falling back to the schema default.
    pub fn get(&self, name: &str) -> Option<Value> {
        if let Some(v) = self.params.get(name) {
            return Some(v.clone());
        }
        let def = self.def.params.get(name)?;
        let default = def.default.as_deref()?;
        convert(&self.action, name, def, default).ok()
    }

    pub fn str(&self, name: &str) -> Option<String> {
        match self.get(name)? {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    pub fn int(&self, name: &str) -> Option<i64> {
        self.get(name)?.as_i64()
    }

    pub fn bool(&self, name: &str) -> Option<bool> {
        self.get(name)?.as_bool()
    }
}

/// Checks a block's properties against the schema and converts them (clada-semantics §3 steps
/// 2–5): `action` present and known, every required parameter present (by key, so `""` counts),
/// then each present parameter converted in schema order; the first failure wins. Keys starting
/// with `@` are annotations and ignored; other unknown keys become warnings.
pub fn validate<'s>(
    properties: &IndexMap<String, String>,
    schema: &'s Schema,
) -> Result<Validated<'s>, ValidationError> {
    let action = properties
        .get("action")
        .ok_or(ValidationError::MissingAction)?;
    let def = schema
        .get(action)
        .ok_or_else(|| ValidationError::UnknownAction {
            name: action.clone(),
            available: schema.names().into_iter().map(String::from).collect(),
        })?;
    validate_with(action, properties, def)
}

/// [`validate`] against one given action definition.
pub fn validate_with<'s>(
    action: &str,
    properties: &IndexMap<String, String>,
    def: &'s ActionDef,
) -> Result<Validated<'s>, ValidationError> {
    if let Some((name, _)) = def
        .params
        .iter()
        .find(|(name, p)| p.required && !properties.contains_key(*name))
    {
        return Err(ValidationError::MissingParam {
            action: action.to_string(),
            param: name.clone(),
        });
    }
    let mut params = IndexMap::new();
    for (name, p) in &def.params {
        if let Some(raw) = properties.get(name) {
            params.insert(name.clone(), convert(action, name, p, raw)?);
        }
    }
    let extras: IndexMap<String, Value> = properties
        .iter()
        .filter(|(k, _)| *k != "action" && !k.starts_with('@') && !def.params.contains_key(*k))
        .map(|(k, v)| (k.clone(), Value::String(v.clone())))
        .collect();
    let warnings = extras
        .keys()
        .map(|k| {
            let near = crate::base::text::closest_name(k, def.params.keys().map(String::as_str))
                .map(|n| format!("did you mean {n}? "))
                .unwrap_or_default();
            format!(
                "unknown parameter '{k}' ignored: {near}{action} takes {}",
                def.params.keys().cloned().collect::<Vec<_>>().join(", ")
            )
        })
        .collect();
    Ok(Validated {
        action: action.to_string(),
        def,
        params,
        extras,
        warnings,
    })
}

/// Converts one string value to its declared type.
pub fn convert(
    action: &str,
    name: &str,
    p: &ParamDef,
    raw: &str,
) -> Result<Value, ValidationError> {
    match p.ty {
        ParamType::String => Ok(Value::String(raw.to_string())),
        ParamType::Integer => {
            let n = parse_integer(raw).ok_or_else(|| ValidationError::InvalidInteger {
                action: action.to_string(),
                param: name.to_string(),
                value: raw.to_string(),
            })?;
            if let Some(min) = p.min {
                if n < min {
                    return Err(ValidationError::IntegerTooSmall {
                        action: action.to_string(),
                        param: name.to_string(),
                        value: raw.to_string(),
                        min,
                    });
                }
            }
            Ok(Value::from(n))
        }
        ParamType::Boolean => match raw {
            "true" => Ok(Value::Bool(true)),
            "false" => Ok(Value::Bool(false)),
            _ => Err(ValidationError::InvalidBoolean {
                action: action.to_string(),
                param: name.to_string(),
                value: raw.to_string(),
            }),
        },
        ParamType::Enum => {
            if p.values.iter().any(|v| v == raw) {
                Ok(Value::String(raw.to_string()))
            } else {
                Err(ValidationError::InvalidEnum {
                    action: action.to_string(),
                    param: name.to_string(),
                    value: raw.to_string(),
                    allowed: p.values.clone(),
                })
            }
        }
    }
}

/// Base-10 integer whose canonical spelling equals the input with surrounding whitespace
/// removed: `"3"`, `" 3 "`, `"-2"` convert; `"03"`, `"+3"`, `"3.0"`, `"abc"` do not.
pub fn parse_integer(raw: &str) -> Option<i64> {
    let t = raw.trim();
    let n: i64 = t.parse().ok()?;
    (n.to_string() == t).then_some(n)
}

/// The action name of a block, if it has one (for error reports of invalid blocks).
pub fn block_action(block: &Block) -> Option<&str> {
    block.properties.get("action").map(String::as_str)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn props(pairs: &[(&str, &str)]) -> IndexMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn embedded_schema_parses_and_lists_every_design_action() {
        let s = schema();
        for name in [
            "file_write",
            "file_create",
            "file_append",
            "file_replace_text",
            "file_replace_all_text",
            "file_edit",
            "file_replace_lines",
            "file_search_replace",
            "file_patch",
            "file_replace_range",
            "file_delete",
            "file_move",
            "dir_create",
            "dir_delete",
            "file_read",
            "file_read_numbered",
            "files_read",
            "files_read_numbered",
            "files_replace_all_text",
            "file_comment_lines",
            "file_uncomment_lines",
            "ls",
            "grep",
            "glob",
            "exec",
        ] {
            let def = s.get(name).unwrap_or_else(|| panic!("{name} missing"));
            if let Some(primary) = &def.primary {
                assert!(
                    def.params.contains_key(primary),
                    "{name}: primary {primary}"
                );
            }
            for (p, d) in &def.params {
                if let Some(default) = &d.default {
                    convert(name, p, d, default).unwrap_or_else(|e| panic!("{name}.{p}: {e}"));
                }
                assert_eq!(d.ty == ParamType::Enum, !d.values.is_empty(), "{name}.{p}");
            }
        }
        assert_eq!(s.actions.len(), 25);
    }

    #[test]
    fn integers_and_booleans_convert_strictly() {
        assert_eq!(parse_integer("5"), Some(5));
        assert_eq!(parse_integer(" 3 "), Some(3));
        assert_eq!(parse_integer("-2"), Some(-2));
        for bad in ["03", "+3", "3.0", "abc", "", "1e3"] {
            assert_eq!(parse_integer(bad), None, "{bad}");
        }
        let v = validate(
            &props(&[
                ("action", "dir_delete"),
                ("path", "d"),
                ("recursive", "yes"),
            ]),
            schema(),
        )
        .unwrap_err();
        assert_eq!(
            v.to_string(),
            "Invalid boolean value: yes (parameter 'recursive' of dir_delete expects \"true\" or \"false\")"
        );
        assert_eq!(v.error_type(), ErrorType::Type);
    }

    #[test]
    fn structural_errors_use_the_original_texts() {
        let e = validate(&props(&[("path", "x")]), schema()).unwrap_err();
        assert_eq!(e.to_string(), "Missing 'action' field in NESL block");
        let e = validate(&props(&[("action", "file_write"), ("path", "x")]), schema()).unwrap_err();
        assert_eq!(e.to_string(), "Missing required parameter: content");
        let e = validate(&props(&[("action", "nope")]), schema()).unwrap_err();
        assert!(e
            .to_string()
            .starts_with("Unknown action: nope. Available actions: file_write, file_create,"));
    }

    #[test]
    fn extras_warn_annotations_do_not_and_defaults_are_not_reported() {
        let v = validate(
            &props(&[
                ("action", "file_edit"),
                ("path", "a"),
                ("old_text", "x"),
                ("new_text", "y"),
                ("colour", "red"),
                ("@three-char-SHA-256", "abc"),
            ]),
            schema(),
        )
        .unwrap();
        assert_eq!(v.params.len(), 3);
        assert_eq!(v.int("count"), Some(1));
        assert_eq!(v.warnings.len(), 1);
        assert!(v.warnings[0].contains("'colour'"));
    }

    #[test]
    fn counts_below_one_are_rejected() {
        let e = validate(
            &props(&[
                ("action", "file_edit"),
                ("path", "a"),
                ("old_text", "x"),
                ("new_text", "y"),
                ("count", "0"),
            ]),
            schema(),
        )
        .unwrap_err();
        assert!(e.to_string().contains("must be at least 1"), "{e}");
    }
}
