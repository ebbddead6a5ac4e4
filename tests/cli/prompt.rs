//! `git clada prompt`: every example block of every printed prompt (each dialect, each
//! format) parses and applies successfully in a scratch repository, and the checked-in prompts
//! under `docs/prompt/` are current.

use crate::common;

use std::collections::BTreeMap;
use std::path::Path;

use clada_read::Dialect;
use common::{assert_ok, TestRepo};
use git_clada::loops::prompt::{self, PromptDialect};
use git_clada::loops::prompt_formats::{self, EditFormat};

/// Runs `git clada prompt` with `args` in `repo` and returns its stdout.
fn prompt_output(repo: &TestRepo, args: &[&str]) -> String {
    let out = repo.clada(&[&["prompt"], args].concat());
    assert_ok(&out, &format!("prompt {args:?}"));
    String::from_utf8(out.stdout).expect("prompt is UTF-8")
}

/// The blocks a printed prompt holds, as their source text, each checked to parse cleanly.
fn blocks_in(text: &str, what: &str) -> Vec<String> {
    let parsed = clada_read::parse(text, Dialect::Auto);
    assert!(
        parsed.errors.is_empty(),
        "{what}: the prompt's blocks do not parse: {:#?}",
        parsed.errors
    );
    let lines: Vec<&str> = text.lines().collect();
    parsed
        .blocks
        .iter()
        .map(|b| {
            let end = b.end_line.expect("every block is closed");
            lines[b.start_line - 1..end].join("\n")
        })
        .collect()
}

#[test]
fn every_example_of_every_printed_prompt_applies_in_a_scratch_repository() {
    let scratch = TestRepo::new();
    // block text → files it needs (from the schema's examples).
    let mut to_apply: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    let schema = clada_engine::action::schema::schema();
    let all = prompt::select(schema, None).unwrap();
    for dialect in PromptDialect::ALL {
        let known: BTreeMap<String, BTreeMap<String, String>> = prompt::examples(&all, dialect)
            .into_iter()
            .map(|e| (e.text, e.files.into_iter().collect()))
            .collect();
        assert_eq!(known.len(), schema.actions.len(), "one example per action");
        for format in ["markdown", "text"] {
            let what = format!("{} {format}", dialect.name());
            let text = prompt_output(&scratch, &["--dialect", dialect.name(), "--format", format]);
            let blocks = blocks_in(&text, &what);
            // The syntax sample, then one example per action.
            assert_eq!(blocks.len(), schema.actions.len() + 1, "{what}");
            for b in blocks {
                let files = known.get(&b).cloned().unwrap_or_default();
                to_apply.insert(b, files);
            }
        }
        let json: serde_json::Value = serde_json::from_str(&prompt_output(
            &scratch,
            &["--dialect", dialect.name(), "--format", "json"],
        ))
        .expect("prompt --format json is JSON");
        let tools = json["tools"].as_array().expect("tools");
        assert_eq!(tools.len(), schema.actions.len());
        let examples = json["examples"].as_array().expect("examples");
        assert_eq!(examples.len(), schema.actions.len());
        for e in examples {
            let b = e["block"].as_str().expect("block").to_string();
            let files: BTreeMap<String, String> =
                serde_json::from_value(e["files"].clone()).expect("files is an object of strings");
            assert_eq!(blocks_in(&b, "json example").len(), 1);
            assert_eq!(known.get(&b), Some(&files), "json example {b}");
            to_apply.insert(b, files);
        }
        // The instructions are the text prompt.
        let text = prompt_output(&scratch, &["--dialect", dialect.name(), "--format", "text"]);
        assert_eq!(json["instructions"].as_str(), Some(text.as_str()));
    }
    // 3 dialects × (one example per action + the syntax sample).
    assert_eq!(to_apply.len(), 3 * (schema.actions.len() + 1));
    for (block, files) in &to_apply {
        let mut setup: Vec<(&str, &str)> = vec![("README.md", "# Demo\n")];
        setup.extend(files.iter().map(|(p, c)| (p.as_str(), c.as_str())));
        let repo = TestRepo::with_files(&setup);
        let reply = format!("Here is the change.\n\n```sh\n{block}\n```\n");
        let out = repo.apply(&reply, &["--exec", "allow"]);
        assert_ok(&out, &format!("applying the example\n{block}\n"));
        let report = TestRepo::report(&out);
        assert_eq!(report["success"], true, "{block}\n{report:#}");
        assert_eq!(
            report["results"].as_array().map(Vec::len),
            Some(1),
            "{block}"
        );
        repo.assert_fsck();
    }
}

#[test]
fn actions_limits_the_prompt_and_unknown_names_are_usage_errors() {
    let repo = TestRepo::new();
    let text = prompt_output(&repo, &["--actions", "file_write,file_read"]);
    assert!(text.contains("### file_write"));
    assert!(text.contains("### file_read"));
    assert!(!text.contains("### exec"), "exec was not asked for");
    assert_eq!(blocks_in(&text, "filtered").len(), 3);

    let out = repo.clada(&["prompt", "--actions", "file_write,rm_rf"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("unknown action 'rm_rf'"), "{err}");
    assert!(err.contains("file_write"), "lists the actions: {err}");

    let out = repo.clada(&["prompt", "--format", "llm"]);
    assert_eq!(out.status.code(), Some(2));
    let out = repo.clada(&["--format", "markdown", "log"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("only for `git clada prompt`"));
}

#[test]
fn checked_in_prompts_are_current() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("docs")
        .join("prompt");
    let docs = git_clada::loops::prompt_formats::checked_in_docs();
    // Three block dialects and the JSON tools, three edit formats.
    assert_eq!(docs.len(), 7);
    let mut names: Vec<String> = std::fs::read_dir(&root)
        .unwrap_or_else(|e| panic!("{}: {e}; run `cargo run -- generate`", root.display()))
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let mut want: Vec<String> = docs.iter().map(|(n, _)| n.clone()).collect();
    want.sort();
    assert_eq!(
        names, want,
        "docs/prompt/ differs; run `cargo run -- generate`"
    );
    for (name, text) in docs {
        let have = std::fs::read_to_string(root.join(&name)).unwrap();
        assert!(
            have == text,
            "docs/prompt/{name} is stale; run `cargo run -- generate`"
        );
    }
}

/// `--dialect aider|apply-patch|diff`: each prompt shows its format's example, which reads as
/// that format only and applies, every edit of it, in a scratch repository; the JSON form holds
/// the text prompt and the example; `--actions` does not go with them.
#[test]
fn edit_format_prompts_show_an_example_that_applies() {
    let scratch = TestRepo::new();
    for format in EditFormat::ALL {
        let name = format.name();
        let md = prompt_output(&scratch, &["--dialect", name]);
        let example = prompt_formats::example(format);
        assert!(md.contains(example), "{name}: the example is in the prompt");
        let text = prompt_output(&scratch, &["--dialect", name, "--format", "text"]);
        let json: serde_json::Value = serde_json::from_str(&prompt_output(
            &scratch,
            &["--dialect", name, "--format", "json"],
        ))
        .expect("json");
        assert_eq!(json["instructions"].as_str(), Some(text.as_str()), "{name}");
        assert_eq!(json["example"].as_str(), Some(example), "{name}");

        let wanted = clada_read::format_by_id(name).expect("a registered format");
        let parsed = clada_read::parse(example, Dialect::Only(wanted));
        assert!(parsed.errors.is_empty(), "{name}: {:?}", parsed.errors);
        assert_eq!(
            parsed.blocks.len(),
            if format == EditFormat::Aider { 2 } else { 3 }
        );
        assert!(parsed.blocks.iter().all(|b| b.format == wanted), "{name}");

        let repo = TestRepo::with_files(prompt_formats::EXAMPLE_FILES);
        let reply = match format {
            EditFormat::Diff => format!("The change:\n\n```diff\n{example}\n```\n"),
            _ => format!("The change:\n\n{example}\n"),
        };
        let out = repo.apply(&reply, &[]);
        assert_ok(&out, &format!("applying the {name} example"));
        let report = TestRepo::report(&out);
        assert_eq!(report["success"], true, "{name}: {report:#}");
        assert_eq!(
            repo.read("src/greet.py"),
            "def greet(name):\n    return f\"Hello, {name}!\"\n\n\nprint(greet(\"world\"))\n",
            "{name}"
        );
        assert!(
            repo.read("tests/test_greet.py")
                .contains("def test_greet():"),
            "{name}"
        );
        assert_eq!(
            repo.exists("docs/old.md"),
            format == EditFormat::Aider,
            "{name}"
        );
        repo.assert_fsck();

        let out = scratch.clada(&["prompt", "--dialect", name, "--actions", "file_write"]);
        assert_eq!(out.status.code(), Some(2), "{name}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("edits files only"));
    }
}

/// The prompt tells the truth: what it shows is limited to the actions offered, the example
/// report has the shape real ones have, and the exec rule says where a block starts.
#[test]
fn the_prompt_tells_the_truth() {
    let scratch = TestRepo::new();
    let only = prompt_output(&scratch, &["--actions", "file_write"]);
    let schema = clada_engine::action::schema::schema();
    for name in schema.names() {
        if name != "file_write" {
            let word = regex::Regex::new(&format!(r"\b{name}\b")).unwrap();
            assert!(
                !word.is_match(&only),
                "{name} appears in a file_write-only prompt"
            );
        }
    }
    let all = prompt_output(&scratch, &[]);
    // The example report is a real one: diff headers and whitespace marks as the report has.
    for shape in [
        "--- old_text",
        "+++ file lines 1-2",
        "@@ -1,2 +1,2 @@",
        "····return··sum(items)",
        "is a space and → a tab",
    ] {
        assert!(all.contains(shape), "{shape}");
    }
    assert!(all.contains("⏸"), "the prompt explains ⏸");
    assert!(
        all.contains("A block without `cwd` starts where the reply's previous `exec` block ended"),
        "exec sessions"
    );
    assert!(!all.contains("runs code in the repository root"));
}
