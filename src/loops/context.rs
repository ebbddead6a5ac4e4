//! `git clada context`: what a model needs for its first turn, in one paste — the instructions
//! (the prompt), a compact map of the repository (its tracked paths, and for source files their
//! top-level definitions), and the chosen files with line numbers as `file_replace_lines` counts
//! them — so its first reply can edit instead of asking to read.
//!
//! The map is made from the index (tracked files only) and the files' own text, by a line scan
//! per language (a definition must start at the beginning of its line): cheap, and good enough
//! for a map; nothing is parsed or run.

use std::path::Path;

use crate::loops::prompt::{self, PromptDialect, PromptFormat};
use clada_engine::action::read::extract_numbered;
use clada_engine::sandbox::{Access, Sandbox};
use clada_git::Repo;

use super::prompt_formats::EditFormat;

/// What to put in.
#[derive(Debug, Clone)]
pub struct ContextOptions {
    /// Files (or folders: their tracked files) to show whole, with line numbers, as given on the
    /// command line (relative to `cwd`).
    pub paths: Vec<String>,
    pub instructions: bool,
    pub map: bool,
    /// The action blocks' instructions in a dialect, or those of an edit format.
    pub dialect: Result<PromptDialect, EditFormat>,
    pub actions: Option<Vec<String>>,
    /// At most this many files in the map (the rest are counted).
    pub map_limit: usize,
}

#[derive(Debug, thiserror::Error)]
pub enum ContextError {
    #[error("{0}")]
    Path(String),
    #[error(transparent)]
    Prompt(#[from] prompt::PromptError),
}

/// Files bigger than this are listed but not scanned for definitions, nor shown.
const MAX_FILE: u64 = 512 * 1024;
/// Definitions named per file in the map.
const MAX_DEFS: usize = 24;

/// The context as markdown.
pub fn render(repo: &Repo, cwd: &Path, opts: &ContextOptions) -> Result<String, ContextError> {
    let sandbox =
        Sandbox::new(repo.workdir(), false).map_err(|e| ContextError::Path(e.to_string()))?;
    let tracked = repo.tracked_paths();
    let files = chosen_files(&sandbox, cwd, &opts.paths, &tracked)?;
    let mut out = String::new();
    if opts.instructions {
        out.push_str(&match opts.dialect {
            Ok(d) => prompt::render(d, opts.actions.as_deref(), PromptFormat::Markdown)?,
            Err(edit) => super::prompt_formats::render(edit, PromptFormat::Markdown),
        });
        out.push('\n');
    }
    let name = repo
        .workdir()
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    if opts.map {
        out.push_str(&format!(
            "# The repository `{name}`\n\nIts tracked files, with the top-level definitions of source files:\n\n```text\n"
        ));
        out.push_str(&map(repo.workdir(), &tracked, opts.map_limit));
        out.push_str("```\n\n");
    }
    if !files.is_empty() {
        out.push_str(
            "# Files\n\nEach with its line numbers, as `file_replace_lines` counts them (the number, \
             `: `, then the line).\n\n",
        );
        for rel in &files {
            out.push_str(&numbered_file(repo.workdir(), rel));
            out.push('\n');
        }
    }
    Ok(out)
}

/// The root-relative paths to show whole: each given file, and the tracked files under each
/// given folder, in the order given; refused like a reply's paths (outside, `.git`).
fn chosen_files(
    sandbox: &Sandbox,
    cwd: &Path,
    given: &[String],
    tracked: &[String],
) -> Result<Vec<String>, ContextError> {
    let mut out: Vec<String> = Vec::new();
    for g in given {
        let abs = cwd.join(g);
        let resolved = sandbox
            .resolve(&abs.to_string_lossy(), Access::Follow)
            .map_err(|e| ContextError::Path(format!("{g}: {e}")))?;
        let rel = resolved.rel.unwrap_or_default();
        if resolved.abs.is_dir() {
            let prefix = if rel.is_empty() {
                String::new()
            } else {
                format!("{rel}/")
            };
            out.extend(
                tracked
                    .iter()
                    .filter(|t| t.starts_with(&prefix) && !out.contains(t))
                    .cloned()
                    .collect::<Vec<_>>(),
            );
        } else if resolved.abs.is_file() {
            if !out.contains(&rel) {
                out.push(rel);
            }
        } else {
            return Err(ContextError::Path(format!(
                "{g}: no such file or directory in the worktree"
            )));
        }
    }
    Ok(out)
}

/// One file as `file_read_numbered` shows it.
fn numbered_file(root: &Path, rel: &str) -> String {
    let abs = root.join(rel);
    let body = match std::fs::metadata(&abs) {
        Ok(md) if md.len() > MAX_FILE => format!(
            "[not shown: {} KiB; read the part you need with file_read_numbered]",
            md.len() / 1024
        ),
        _ => match std::fs::read(&abs) {
            Ok(bytes) if bytes.contains(&0) => "[binary file; not shown]".to_string(),
            Ok(bytes) => match String::from_utf8(bytes) {
                Ok(text) => match extract_numbered(&text, None, ": ") {
                    Ok(n) if n.line_count == 0 => "[empty file]".to_string(),
                    Ok(n) => n.result,
                    Err(_) => "[cannot number this file]".to_string(),
                },
                Err(_) => "[not UTF-8; not shown]".to_string(),
            },
            Err(e) => format!("[cannot read: {e}]"),
        },
    };
    format!("=== START FILE: [numbered] {rel} ===\n{body}\n=== END FILE: [numbered] {rel} ===\n")
}

/// The map: one line per tracked file, `path: def a, class B, …` for source files.
fn map(root: &Path, tracked: &[String], limit: usize) -> String {
    let mut out = String::new();
    for rel in tracked.iter().take(limit) {
        out.push_str(rel);
        let defs = definitions(&root.join(rel), rel);
        if !defs.is_empty() {
            let shown: Vec<&str> = defs.iter().take(MAX_DEFS).map(String::as_str).collect();
            out.push_str(": ");
            out.push_str(&shown.join(", "));
            if defs.len() > MAX_DEFS {
                out.push_str(&format!(" (+{} more)", defs.len() - MAX_DEFS));
            }
        }
        out.push('\n');
    }
    if tracked.len() > limit {
        out.push_str(&format!(
            "… and {} more tracked files (raise --map-limit to list them)\n",
            tracked.len() - limit
        ));
    }
    out
}

/// The top-level definitions of a source file (`fn main`, `class Session`, `def get`), by a
/// line scan for its language; none for other files.
pub fn definitions(abs: &Path, rel: &str) -> Vec<String> {
    let ext = Path::new(rel)
        .extension()
        .map(|e| e.to_string_lossy().to_lowercase())
        .unwrap_or_default();
    let Some(scan) = scanner(&ext) else {
        return Vec::new();
    };
    if std::fs::metadata(abs).map_or(true, |m| m.len() > MAX_FILE) {
        return Vec::new();
    }
    let Ok(text) = std::fs::read_to_string(abs) else {
        return Vec::new();
    };
    // Overloads (`@overload def f`, one per signature) are one definition.
    let mut out: Vec<String> = Vec::new();
    for d in text.lines().filter_map(scan) {
        if !out.contains(&d) {
            out.push(d);
        }
    }
    out
}

/// The line scanner of a language: a top-level definition at the start of a line, as
/// `kind name`.
fn scanner(ext: &str) -> Option<fn(&str) -> Option<String>> {
    Some(match ext {
        "rs" => rust_def,
        "py" | "pyi" => python_def,
        "js" | "jsx" | "mjs" | "cjs" | "ts" | "tsx" => js_def,
        "go" => go_def,
        "rb" => ruby_def,
        "sh" | "bash" => shell_def,
        _ => return None,
    })
}

/// The identifier at the start of `s`.
fn ident(s: &str) -> Option<&str> {
    let end = s
        .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
        .unwrap_or(s.len());
    (end > 0).then(|| &s[..end])
}

/// `kind name` when `line` starts with one of `kinds` (each followed by a space), after any of
/// `prefixes`.
fn def_after(line: &str, prefixes: &[&str], kinds: &[(&str, &str)]) -> Option<String> {
    let mut rest = line;
    while let Some(p) = prefixes.iter().find(|p| rest.starts_with(*p)) {
        rest = &rest[p.len()..];
    }
    kinds.iter().find_map(|(kw, shown)| {
        let name = ident(rest.strip_prefix(kw)?.trim_start())?;
        Some(format!("{shown} {name}"))
    })
}

fn rust_def(line: &str) -> Option<String> {
    def_after(
        line,
        &[
            "pub(crate) ",
            "pub(super) ",
            "pub ",
            "async ",
            "const ",
            "unsafe ",
            "extern \"C\" ",
        ],
        &[
            ("fn ", "fn"),
            ("struct ", "struct"),
            ("enum ", "enum"),
            ("trait ", "trait"),
            ("mod ", "mod"),
            ("type ", "type"),
            ("macro_rules! ", "macro"),
        ],
    )
}

fn python_def(line: &str) -> Option<String> {
    def_after(line, &["async "], &[("def ", "def"), ("class ", "class")])
}

fn js_def(line: &str) -> Option<String> {
    def_after(
        line,
        &["export ", "default ", "async ", "declare ", "abstract "],
        &[
            ("function* ", "function"),
            ("function ", "function"),
            ("class ", "class"),
            ("interface ", "interface"),
            ("type ", "type"),
            ("enum ", "enum"),
            ("const ", "const"),
        ],
    )
}

fn go_def(line: &str) -> Option<String> {
    if let Some(rest) = line.strip_prefix("func (") {
        // A method: `func (r *T) Name(`.
        let after = rest.split_once(") ")?.1;
        return ident(after).map(|n| format!("func {n}"));
    }
    def_after(line, &[], &[("func ", "func"), ("type ", "type")])
}

fn ruby_def(line: &str) -> Option<String> {
    def_after(
        line,
        &[],
        &[("def ", "def"), ("class ", "class"), ("module ", "module")],
    )
}

fn shell_def(line: &str) -> Option<String> {
    let rest = line.strip_prefix("function ").unwrap_or(line);
    let name = ident(rest)?;
    let after = rest[name.len()..].trim_start();
    (after.starts_with("()") || line.starts_with("function ")).then(|| format!("function {name}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn top_level_definitions_per_language() {
        assert_eq!(
            rust_def("pub(crate) async fn run(x: u8) {"),
            Some("fn run".into())
        );
        assert_eq!(rust_def("    fn inner() {}"), None);
        assert_eq!(rust_def("impl Foo {"), None);
        assert_eq!(
            python_def("class Session(SessionRedirectMixin):"),
            Some("class Session".into())
        );
        assert_eq!(
            python_def("def get(url, params=None, **kwargs):"),
            Some("def get".into())
        );
        assert_eq!(python_def("    def inner(self):"), None);
        assert_eq!(
            js_def("export default async function load() {"),
            Some("function load".into())
        );
        assert_eq!(js_def("export const api = {"), Some("const api".into()));
        assert_eq!(
            go_def("func (c *Client) Do(req *Request) {"),
            Some("func Do".into())
        );
        assert_eq!(go_def("type Client struct {"), Some("type Client".into()));
        assert_eq!(shell_def("build() {"), Some("function build".into()));
        assert_eq!(shell_def("echo hi"), None);
    }

    #[test]
    fn overloads_are_one_definition() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("api.py");
        std::fs::write(
            &file,
            "@overload\ndef get(url: str) -> R: ...\n@overload\ndef get(url: bytes) -> R: ...\ndef get(url): pass\nclass Session: pass\n",
        )
        .unwrap();
        assert_eq!(definitions(&file, "api.py"), ["def get", "class Session"]);
    }
}
