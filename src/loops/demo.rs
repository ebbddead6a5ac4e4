//! `git clada demo`: the whole product in one command, on a scratch repository — apply the
//! bundled example reply, show the report and the commit, then undo it.

use std::fmt::Write as _;
use std::path::Path;

use clada_engine::action::EngineOptions;
use clada_engine::input::Reply;
use clada_engine::record::apply::{apply, ApplyOptions};
use clada_engine::report::{self, ReportFormat};
use clada_git::{BString, ByteSlice, EntryKind, Expected, ObjectId, Repo, TreeChange};

/// The bundled example reply.
pub const EXAMPLE_REPLY: &str = include_str!("../../examples/reply.md");

/// The files the example reply expects to find.
const STARTING_FILES: &[(&str, &str)] = &[
    (
        "src/main.rs",
        "fn main() {\n    println!(\"Hello, world!\");\n}\n",
    ),
    ("CHANGELOG.md", "# Changelog\n\n"),
];

/// Runs the demo in `dir` (an empty directory) and returns what to print.
pub fn run(dir: &Path, color: bool) -> anyhow::Result<String> {
    let mut out = String::new();
    let mut repo = Repo::init(dir)?;
    repo.set_local_identity("git-clada demo", "demo@example.invalid")?;
    let base = initial_commit(&repo)?;
    writeln!(out, "Scratch repository: {}", dir.display())?;
    writeln!(
        out,
        "Starting commit {} with src/main.rs and CHANGELOG.md.\n",
        Repo::short(base)
    )?;
    writeln!(out, "$ git clada apply examples/reply.md")?;

    let reply = Reply {
        text: EXAMPLE_REPLY.to_string(),
        source: "examples/reply.md".into(),
    };
    let opts = ApplyOptions {
        engine: EngineOptions::default(),
        ..ApplyOptions::default()
    };
    let outcome = apply(dir, &reply, &opts)?;
    out.push_str(&report::render(
        &outcome.execution.result,
        ReportFormat::Human,
        color,
    ));
    let commit = outcome
        .commit
        .ok_or_else(|| anyhow::anyhow!("the example reply did not produce a commit"))?;

    writeln!(out, "\n$ git log -1 --stat")?;
    out.push_str(&log_stat(&repo, commit)?);

    writeln!(out, "\n$ git clada undo")?;
    let undo = clada_engine::history::undo::undo(&repo, false)?;
    out.push_str(&clada_engine::history::render::undo_report(&undo));
    Ok(out)
}

/// Commits the starting files as the first commit on `main`.
fn initial_commit(repo: &Repo) -> anyhow::Result<ObjectId> {
    let mut changes = Vec::new();
    for (path, content) in STARTING_FILES {
        let abs = repo.abs_path(path.as_bytes().as_bstr());
        if let Some(parent) = abs.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(&abs, content)?;
        changes.push(TreeChange {
            path: BString::from(*path),
            entry: Some(clada_git::Entry {
                kind: EntryKind::Blob,
                id: repo.write_blob(content.as_bytes())?,
            }),
        });
    }
    let tree = repo.edit_tree(repo.empty_tree(), &changes)?;
    let identity = repo.identity()?;
    let commit = repo.write_commit(tree, &[], "Initial commit\n", &identity.0, &identity.1)?;
    let branch = match repo.head()? {
        clada_git::Head::Unborn { name } | clada_git::Head::Branch { name, .. } => name,
        clada_git::Head::Detached { .. } => "refs/heads/main".to_string(),
    };
    repo.update_ref(
        &branch,
        commit,
        Expected::MustNotExist,
        "commit (initial): Initial commit",
    )?;
    let mut index = repo.index_from_tree(tree)?;
    let paths: Vec<BString> = STARTING_FILES
        .iter()
        .map(|(p, _)| BString::from(*p))
        .collect();
    index.refresh_stat(repo, &paths)?;
    repo.lock_index()?.commit(&index)?;
    Ok(commit)
}

/// `git log -1 --stat` for one commit: header, message, and per-file change counts.
pub fn log_stat(repo: &Repo, commit: ObjectId) -> anyhow::Result<String> {
    let info = repo.commit_info(commit)?;
    let mut out = String::new();
    writeln!(out, "commit {commit}")?;
    writeln!(
        out,
        "Author: {} <{}>\n",
        info.author.name, info.author.email
    )?;
    for line in info.message.trim_end().lines() {
        writeln!(out, "    {line}")?;
    }
    out.push('\n');
    let parent_tree = match info.parents.first() {
        Some(p) => repo.tree_of(*p)?,
        None => repo.empty_tree(),
    };
    let diffs = repo.diff_trees(parent_tree, info.tree)?;
    let mut rows = Vec::new();
    let (mut total_add, mut total_del) = (0usize, 0usize);
    for d in &diffs {
        let text = |e: Option<clada_git::Entry>| -> anyhow::Result<String> {
            Ok(match e {
                Some(e) => String::from_utf8_lossy(&repo.read_blob(e.id)?).into_owned(),
                None => String::new(),
            })
        };
        let (old, new) = (text(d.old)?, text(d.new)?);
        let diff = similar::TextDiff::from_lines(&old, &new);
        let (mut add, mut del) = (0, 0);
        for change in diff.iter_all_changes() {
            match change.tag() {
                similar::ChangeTag::Insert => add += 1,
                similar::ChangeTag::Delete => del += 1,
                similar::ChangeTag::Equal => {}
            }
        }
        total_add += add;
        total_del += del;
        rows.push((d.path.to_string(), add, del));
    }
    let width = rows.iter().map(|r| r.0.len()).max().unwrap_or(0);
    for (path, add, del) in &rows {
        writeln!(
            out,
            " {path:<width$} | {:>2} {}{}",
            add + del,
            "+".repeat(*add),
            "-".repeat(*del)
        )?;
    }
    writeln!(
        out,
        " {} file{} changed, {total_add} insertion{}(+), {total_del} deletion{}(-)",
        rows.len(),
        if rows.len() == 1 { "" } else { "s" },
        if total_add == 1 { "" } else { "s" },
        if total_del == 1 { "" } else { "s" }
    )?;
    Ok(out)
}
