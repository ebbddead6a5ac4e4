//! `git clada prompt --dialect aider|apply-patch|diff`: the instructions for a model that
//! edits in one of the formats models already write (aider SEARCH/REPLACE blocks, Codex
//! apply_patch envelopes, unified diffs), so a user can pick the format their model writes
//! best. Each prompt shows the syntax with an example, the rules that make edits succeed, what
//! git-clada tolerates (each reported as a warning) and where it is stricter than the tool that
//! defined the format, and what the report looks like. The examples are applied by a test.

use serde_json::json;

use super::prompt::{markdown, text, Node, PromptDialect, PromptFormat};

/// One of the edit formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EditFormat {
    Aider,
    ApplyPatch,
    Diff,
}

impl EditFormat {
    pub const ALL: [EditFormat; 3] = [EditFormat::Aider, EditFormat::ApplyPatch, EditFormat::Diff];

    /// The `--dialect` value (and the file name under `docs/prompt/`).
    pub fn name(self) -> &'static str {
        match self {
            EditFormat::Aider => "aider",
            EditFormat::ApplyPatch => "apply-patch",
            EditFormat::Diff => "diff",
        }
    }

    fn title(self) -> &'static str {
        match self {
            EditFormat::Aider => "aider SEARCH/REPLACE blocks",
            EditFormat::ApplyPatch => "apply_patch envelopes",
            EditFormat::Diff => "unified diffs",
        }
    }
}

/// The files the examples edit, committed before they apply.
pub const EXAMPLE_FILES: &[(&str, &str)] = &[
    (
        "src/greet.py",
        "def greet(name):\n    return name\n\n\nprint(greet(\"world\"))\n",
    ),
    ("docs/old.md", "Outdated.\n"),
];

/// The example edit of `format`, as a model writes it in a reply.
pub fn example(format: EditFormat) -> &'static str {
    match format {
        EditFormat::Aider => {
            "src/greet.py\n```python\n<<<<<<< SEARCH\ndef greet(name):\n    return name\n=======\ndef greet(name):\n    return f\"Hello, {name}!\"\n>>>>>>> REPLACE\n```\n\ntests/test_greet.py\n```python\n<<<<<<< SEARCH\n=======\nfrom greet import greet\n\n\ndef test_greet():\n    assert greet(\"Ada\") == \"Hello, Ada!\"\n>>>>>>> REPLACE\n```"
        }
        EditFormat::ApplyPatch => {
            "*** Begin Patch\n*** Update File: src/greet.py\n@@ def greet(name):\n-    return name\n+    return f\"Hello, {name}!\"\n*** Add File: tests/test_greet.py\n+from greet import greet\n+\n+\n+def test_greet():\n+    assert greet(\"Ada\") == \"Hello, Ada!\"\n*** Delete File: docs/old.md\n*** End Patch"
        }
        EditFormat::Diff => {
            "diff --git a/src/greet.py b/src/greet.py\n--- a/src/greet.py\n+++ b/src/greet.py\n@@ -1,5 +1,5 @@\n def greet(name):\n-    return name\n+    return f\"Hello, {name}!\"\n \n \n print(greet(\"world\"))\ndiff --git a/tests/test_greet.py b/tests/test_greet.py\nnew file mode 100644\n--- /dev/null\n+++ b/tests/test_greet.py\n@@ -0,0 +1,5 @@\n+from greet import greet\n+\n+\n+def test_greet():\n+    assert greet(\"Ada\") == \"Hello, Ada!\"\ndiff --git a/docs/old.md b/docs/old.md\ndeleted file mode 100644\n--- a/docs/old.md\n+++ /dev/null\n@@ -1 +0,0 @@\n-Outdated."
        }
    }
}

fn syntax(format: EditFormat) -> Vec<String> {
    let s = |x: &str| x.to_string();
    match format {
        EditFormat::Aider => vec![
            s("The file's path on a line of its own right before the opening fence (or as the \
               first line inside it), then `<<<<<<< SEARCH`, the lines to find, `=======`, the \
               lines to put there, `>>>>>>> REPLACE`, each marker alone on its line."),
            s("One fence may hold several blocks for the same file; a block without a path is \
               for the file of the block before it."),
            s("To create a file, leave SEARCH empty: the REPLACE lines become the file. An empty \
               SEARCH on an existing file appends REPLACE to it."),
            s("To delete lines, leave REPLACE empty."),
        ],
        EditFormat::ApplyPatch => vec![
            s("Everything between `*** Begin Patch` and `*** End Patch`; one file operation \
               after another."),
            s("`*** Add File: PATH`, then every line of the new file starting with `+`."),
            s("`*** Delete File: PATH` deletes a file."),
            s("`*** Update File: PATH` (then `*** Move to: NEW_PATH` to rename it), then chunks: \
               `@@` (or `@@ ` and a line of the file, such as the `def` or `class` line above the \
               change, which is found first), then the chunk's lines: ` ` and the line for \
               context, `-` for a line removed, `+` for a line added. Give three lines of \
               context before and after each change."),
            s("`*** End of File` after a chunk that ends at the end of the file."),
            s("The patch may also be the body of `apply_patch <<'EOF'` … `EOF` in a shell \
               fence."),
        ],
        EditFormat::Diff => vec![
            s("A diff as `git diff` writes it: per file `diff --git a/PATH b/PATH`, `--- a/PATH`, \
               `+++ b/PATH`, then hunks: `@@ -OLD_START,OLD_COUNT +NEW_START,NEW_COUNT @@` and \
               the hunk's lines (` ` context, `-` removed, `+` added), three lines of context \
               around each change."),
            s("A new file is `--- /dev/null` with `new file mode 100644`; a deleted one `+++ \
               /dev/null` with `deleted file mode 100644` and every line removed; a rename \
               `rename from OLD` and `rename to NEW` after `diff --git`; `\\ No newline at end \
               of file` after a last line without a line break."),
            s("Put the diff in a fenced code block with the info string `diff`."),
        ],
    }
}

fn rules(format: EditFormat) -> Vec<String> {
    let s = |x: &str| x.to_string();
    let mut out = vec![s(
        "Paths are relative to the repository root. Nothing outside the repository and nothing \
         under `.git/` can be written.",
    )];
    out.extend(match format {
        EditFormat::Aider => {
            vec![
            s("SEARCH must match lines of the file exactly: every space, tab, comment and line \
               break. Copy them from the file; if you have not seen its current text, ask for it \
               and wait for the report."),
            s("SEARCH must occur exactly once in the file: include a neighbouring line that \
               makes it unique. git-clada refuses a SEARCH that matches several places (aider \
               would change the first) and says where they are."),
            s("Keep blocks small: the lines that change and a line or two around them. Blocks \
               run in order and a block that fails does not stop the others."),
        ]
        }
        EditFormat::ApplyPatch => {
            vec![
            s("Context and removed lines must match the file's lines, in order, after the \
               previous chunk: copy them from the file."),
            s("Chunks of one file go in file order. When the same lines occur more than once, \
               an `@@` line naming a line above the one you mean chooses it."),
            s("The file operations run in order and the first that fails stops the rest, as \
               apply_patch does; what ran before it stays."),
        ]
        }
        EditFormat::Diff => vec![
            s("Context and removed lines must match the file exactly: copy them from the file."),
            s("A diff applies all or nothing, as `git apply` applies it: if one hunk of one file \
               does not apply, no file is changed."),
            s("Binary patches are not applied."),
        ],
    });
    out.push(s("Never resend an edit that was already applied."));
    out
}

fn tolerances(format: EditFormat) -> Vec<String> {
    let s = |x: &str| x.to_string();
    let mut out =
        match format {
            EditFormat::Aider => vec![
            s("SEARCH and REPLACE indented by a uniform amount different from the file's: the \
               lines are found and REPLACE is indented the file's way."),
            s("A blank first line in SEARCH is ignored."),
            s("A line `...` in both SEARCH and REPLACE stands for unchanged code; each piece \
               between them must occur once."),
            s("Markers of 5 to 9 characters; a block closed by a second `=======`; a first \
               SEARCH line that repeats the file name; fences around SEARCH's text."),
        ],
            EditFormat::ApplyPatch => vec![
            s("Lines that match only when trailing whitespace is ignored, then leading and \
               trailing whitespace, then typographic dashes, quotes and spaces read as ASCII \
               (the file's lines are kept as they are)."),
            s("A chunk with only `+` lines is added at the end of the file, as apply_patch does: \
               give a line of context to place it elsewhere."),
            s("A `*** Move to:` without chunks moves the file unchanged."),
        ],
            EditFormat::Diff => vec![
            s("Wrong line numbers: a hunk is placed by its context and removed lines, at the \
               nearest place they match."),
            s("Wrong line counts in `@@` headers, and `@@` headers without numbers: the hunk's \
               lines are counted."),
            s("No `diff --git` line, paths with or without `a/` and `b/`, `diff -u` dates after \
               the paths, context lines whose trailing whitespace or empty-line space was \
               dropped, LF lines for a CRLF file."),
        ],
        };
    out.push(match format {
        EditFormat::Diff => s(
            "The file's line endings (CRLF stays CRLF) and its BOM are kept; its last line break \
             changes only as `\\ No newline at end of file` says.",
        ),
        _ => s(
            "The file's line endings (CRLF stays CRLF), its BOM, and a missing line break at its \
             end are kept.",
        ),
    });
    out
}

fn sample_report(format: EditFormat) -> String {
    let (action, failure) = match format {
        EditFormat::Aider => (
            "file_search_replace",
            "SearchReplaceNoExactMatch: this SEARCH block failed to exactly match lines in \
             'src/app.py'. The SEARCH section must exactly match an existing block of lines \
             including all white space, comments, indentation, docstrings, etc.",
        ),
        EditFormat::ApplyPatch => (
            "file_patch",
            "hunk 1 was not found in the file: its 4 context and removed lines must match lines \
             of the file in order",
        ),
        EditFormat::Diff => (
            "file_patch",
            "hunk 1 (@@ -12,4 +12,4 @@) does not apply: its 4 context and removed lines were not \
             found in the file",
        ),
    };
    [
        "=== CLADA RESULTS ===".to_string(),
        format!("task-1 (line 3) ✅ {action} src/greet.py"),
        format!("task-2 (line 14) ❌ {action} src/app.py - {failure}"),
        "    closest match at lines 12-13 (91% similar):".to_string(),
        "    -    return total".to_string(),
        "    +    return  total".to_string(),
        "=== END ===".to_string(),
        String::new(),
        "=== OUTPUTS ===".to_string(),
        "=== END ===".to_string(),
        "The 1 block marked ✅ is applied and committed (1a2b3c4d5e6f); do not send it again. \
         Send corrected versions of the 1 block marked ❌ only."
            .to_string(),
    ]
    .join("\n")
}

fn document(format: EditFormat) -> Vec<Node> {
    use Node::*;
    let info = match format {
        EditFormat::Aider => "text",
        EditFormat::ApplyPatch => "text",
        EditFormat::Diff => "diff",
    };
    let tool = match format {
        EditFormat::Aider => "aider",
        EditFormat::ApplyPatch => "Codex's apply_patch",
        EditFormat::Diff => "git apply",
    };
    vec![
        Heading(
            1,
            format!("Editing files with git-clada: {}", format.title()),
        ),
        Para(format!(
            "You change the user's repository by writing {} in your reply. git-clada applies \
             them as {tool} does, commits the result as one commit, and sends you a report of \
             what happened. Text around them is ignored, so explain freely.",
            format.title()
        )),
        Heading(2, "Syntax".into()),
        Fenced(info.into(), example(format).to_string()),
        Bullets(syntax(format)),
        Heading(2, "Rules that make edits succeed".into()),
        Bullets(rules(format)),
        Heading(2, "What git-clada tolerates".into()),
        Para(
            "These mistakes are tolerated; each one used is reported as a warning on the edit, \
             so you can see it and do better next time."
                .into(),
        ),
        Bullets(tolerances(format)),
        Heading(2, "What comes back".into()),
        Para(
            "After your reply is applied, the user pastes back a report like this one: one line \
             per edit (✅ applied, ❌ failed, with the reason and, for lines that were not found, \
             the closest lines of the file), then what to do next."
                .into(),
        ),
        Verbatim(sample_report(format)),
        Para(
            "Edits marked ✅ are done: never send them again. For each edit marked ❌ send a \
             corrected one; if the report shows the closest match, copy the lines from the file \
             as they really are."
                .into(),
        ),
    ]
}

/// The prompt for `format` in `output`.
pub fn render(format: EditFormat, output: PromptFormat) -> String {
    let doc = document(format);
    match output {
        PromptFormat::Markdown => markdown(&doc, "text"),
        PromptFormat::Text => text(&doc),
        PromptFormat::Json => {
            let v = json!({
                "name": "git-clada",
                "version": clada_engine::VERSION,
                "dialect": format.name(),
                "instructions": text(&doc),
                "example": example(format),
            });
            let mut s = serde_json::to_string_pretty(&v).unwrap_or_default();
            s.push('\n');
            s
        }
    }
}

/// The checked-in prompts under `docs/prompt/`: markdown for every dialect, and the JSON tool
/// schema for the default dialect, as (file name, contents).
pub fn checked_in_docs() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for d in PromptDialect::ALL {
        if let Ok(text) = super::prompt::render(d, None, PromptFormat::Markdown) {
            out.push((format!("{}.md", d.name()), text));
        }
    }
    if let Ok(text) = super::prompt::render(PromptDialect::Nesl, None, PromptFormat::Json) {
        out.push(("nesl.json".to_string(), text));
    }
    for f in EditFormat::ALL {
        out.push((
            format!("{}.md", f.name()),
            render(f, PromptFormat::Markdown),
        ));
    }
    out
}
