//! `git clada check`: parse and validate replies without side effects.

use std::path::{Path, PathBuf};

use anyhow::Context;
use serde::Serialize;

use crate::cli::dialects::DialectArg;
use crate::cli::{Format, Global};
use clada_base::error::Outcome;
use clada_base::term::{escape, Rule, Shown};
use clada_engine::action::{self, ParseErrorReport};
use clada_engine::sandbox::Sandbox;
use clada_git::Repo;

/// Parse and validate replies without changing anything; exit 1 on any error. With
/// --staged: refuse staged content that holds leftover block markers.
///
/// Meant for hooks and CI: every block is parsed, checked against the action schema, every path
/// against the sandbox, and then run as a dry run against the files as they are (the text
/// matching, line ranges, paths that must exist), in memory: nothing is written and no exec
/// block runs. Paths are resolved against the worktree root (the nearest directory above with a
/// `.git`, or GIT_WORK_TREE), or the current directory with --no-git.
///
/// `--staged` is the pre-commit check instead: every file the commit adds or changes (or,
/// with FILEs, those files' staged versions, as the pre-commit framework passes them) must not
/// contain a block header or end marker (an LLM reply pasted into a file); findings are
/// printed as `path:line: marker`. Files matching `check.allow` in .clada.yml are exempt.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  git clada check reply.md\n  git clada check --staged\n  git clada check --staged src/main.rs"
)]
pub struct Args {
    /// Replies to check; `-` or nothing reads standard input. With --staged: the files whose
    /// staged version to check (default: every file the commit adds or changes).
    #[arg(value_name = "FILE")]
    pub files: Vec<PathBuf>,

    /// Check the staged content for leftover block markers (the pre-commit hook's check).
    #[arg(long)]
    pub staged: bool,

    /// Which format to read: auto reads each block in the format its opening line shows (SHAM,
    /// NESL, nesl, CSL, CML, the replacer format, aider's SEARCH/REPLACE, apply_patch, unified
    /// diffs); a format name reads only that one.
    #[arg(long, value_enum, default_value_t = DialectArg::AUTO)]
    pub dialect: DialectArg,

    /// Resolve paths against the current directory instead of the worktree root.
    #[arg(long)]
    pub no_git: bool,

    /// Accept absolute paths outside the root (as `apply --allow-outside` would).
    #[arg(long)]
    pub allow_outside: bool,
}

/// One reply's verdict.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct FileReport {
    source: String,
    total_blocks: usize,
    /// Blocks that would run.
    valid_actions: usize,
    /// Block headers an unclosed heredoc read as text (each also has a parse error).
    swallowed_blocks: usize,
    parse_errors: Vec<ParseErrorReport>,
    refused: Vec<Refused>,
    /// Blocks that would fail against the files as they are now (the dry run).
    failed: Vec<Failed>,
    /// Exec blocks, which check never runs.
    exec_not_run: usize,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Failed {
    block_id: String,
    action: String,
    code: String,
    message: String,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Refused {
    block_id: String,
    action: String,
    code: String,
    path: String,
    message: String,
}

impl FileReport {
    fn ok(&self) -> bool {
        self.parse_errors.is_empty() && self.refused.is_empty() && self.failed.is_empty()
    }
}

/// The sandbox `apply` would use: the repository's worktree root (found as git finds it,
/// `GIT_DIR`/`GIT_WORK_TREE` included) with its submodules guarded. When no repository can
/// be opened: `GIT_WORK_TREE`, else the nearest ancestor holding `.git`, else the current
/// directory.
fn sandbox_for(cwd: &Path, allow_outside: bool) -> anyhow::Result<Sandbox> {
    if let Ok(repo) = Repo::discover(cwd) {
        return Ok(Sandbox::new(repo.workdir(), allow_outside)?
            .refuse_nested_repositories(&repo.declared_submodules())
            .with_tracked(repo.tracked_paths()));
    }
    let root = match std::env::var_os("GIT_WORK_TREE") {
        Some(wt) => cwd.join(wt),
        None => cwd
            .ancestors()
            .find(|d| d.join(".git").exists())
            .map(Path::to_path_buf)
            .unwrap_or_else(|| cwd.to_path_buf()),
    };
    Ok(Sandbox::new(root, allow_outside)?)
}

pub fn run(args: Args, global: Global) -> anyhow::Result<Outcome> {
    let cwd = std::env::current_dir().context("cannot determine the current directory")?;
    if args.staged {
        return run_staged(&args, &global, &cwd);
    }
    let deny = clada_engine::config::load_for_dir(&cwd)?.paths_deny.value;
    let sandbox = if args.no_git {
        Sandbox::new(&cwd, args.allow_outside)?
    } else {
        sandbox_for(&cwd, args.allow_outside)?
    }
    .deny_paths(&deny);
    clada_base::trace::phase("check: config+sandbox");
    let inputs: Vec<Option<PathBuf>> = if args.files.is_empty() {
        vec![None]
    } else {
        args.files.iter().cloned().map(Some).collect()
    };
    let mut reports = Vec::new();
    for input in inputs {
        let reply = clada_engine::input::read_reply(input.as_deref(), args.dialect.into())?;
        clada_base::trace::phase("check: read");
        let parsed = clada_read::parse(&reply.text, args.dialect.into());
        clada_base::trace::phase("check: parse");
        let plan = action::plan(&parsed, &sandbox);
        clada_base::trace::phase("check: plan (schema, paths)");
        let refused = plan
            .refusals()
            .map(|(a, e)| Refused {
                block_id: a.block_id.clone(),
                action: a.action.clone(),
                code: e.code.to_string(),
                path: e.path.clone(),
                message: e.to_string(),
            })
            .collect();
        // The matching, in memory (exec never runs in a dry run).
        let dry = action::execute(
            &plan,
            &sandbox,
            &action::EngineOptions {
                dry_run: true,
                ..Default::default()
            },
        );
        let failed = dry
            .result
            .results
            .iter()
            .filter(|r| !r.success && !r.refused)
            .map(|r| Failed {
                block_id: r.block_id.clone(),
                action: r.action.clone(),
                code: r.code.clone().unwrap_or_default(),
                message: r.error.clone().unwrap_or_default(),
            })
            .collect();
        let exec_not_run = dry.result.results.iter().filter(|r| r.skipped).count();
        let swallowed_blocks = parsed
            .errors
            .iter()
            .filter_map(|e| e.note.as_ref())
            .map(|n| n.swallowed.len())
            .sum();
        reports.push(FileReport {
            source: reply.source,
            total_blocks: plan.total_blocks,
            swallowed_blocks,
            valid_actions: plan.actions.iter().filter(|a| a.op.is_ok()).count(),
            parse_errors: plan.errors,
            refused,
            failed,
            exec_not_run,
        });
    }
    let all_ok = reports.iter().all(FileReport::ok);
    match global.format_or_default() {
        Format::Json => crate::cli::print_json(&reports)?,
        Format::Human | Format::Llm => crate::cli::print(&human(&reports, global.shown()))?,
    }
    clada_base::trace::phase("check: report");
    Ok(if all_ok {
        Outcome::Success
    } else {
        Outcome::Partial
    })
}

/// `check --staged`: leftover block markers in what is about to be committed.
fn run_staged(args: &Args, global: &Global, cwd: &Path) -> anyhow::Result<Outcome> {
    let cfg = clada_engine::config::load_for_dir(cwd)?;
    let allow = clada_read::leftover::allow_set(&cfg.check_allow.value)?;
    let staged = clada_git::staged_files(cwd, &args.files, |p| !allow.is_match(p))?;
    let checked = staged.len();
    let findings = clada_read::leftover::findings(
        staged
            .iter()
            .map(|f| (f.path.as_str(), f.content.as_slice())),
    );
    match global.format_or_default() {
        Format::Json => {
            let v = serde_json::json!({"checked": checked, "findings": findings});
            crate::cli::print_json(&v)?;
        }
        Format::Human | Format::Llm => {
            let mut err = String::new();
            for f in &findings {
                err.push_str(&format!(
                    "{}:{}: leftover block marker `{}`\n",
                    escape(&f.path, Rule::Name),
                    f.line,
                    escape(&f.marker, Rule::Name)
                ));
            }
            if !findings.is_empty() {
                err.push_str(&format!(
                    "git-clada: {} leftover block marker(s) in staged content (an LLM reply pasted \
                     into a file?); remove them and stage again, or list files that document the \
                     format under `check: {{allow: [GLOB]}}` in .clada.yml\n",
                    findings.len()
                ));
            }
            eprint!("{err}");
        }
    }
    Ok(if findings.is_empty() {
        Outcome::Success
    } else {
        Outcome::Partial
    })
}

/// The report for people; block ids, actions and messages come from the reply, so each is
/// put in as `shown` says.
fn human(reports: &[FileReport], shown: Shown) -> String {
    let mut out = String::new();
    for r in reports {
        let source = shown.name(&r.source);
        let exec = match r.exec_not_run {
            0 => String::new(),
            1 => "; its exec block was not run".to_string(),
            n => format!("; its {n} exec blocks were not run"),
        };
        if r.ok() {
            out.push_str(&format!(
                "{source}: ok ({} blocks; every action would run: checked against the files as they are{exec})\n",
                r.total_blocks
            ));
            continue;
        }
        let swallowed = match r.swallowed_blocks {
            0 => String::new(),
            n => format!(
                " (and {n} more block{} swallowed by an unclosed heredoc)",
                if n == 1 { "" } else { "s" }
            ),
        };
        out.push_str(&format!(
            "{source}: {} problem(s) in {} blocks{swallowed}{exec}\n",
            r.parse_errors.len() + r.refused.len() + r.failed.len(),
            r.total_blocks
        ));
        for e in &r.parse_errors {
            let line = e
                .block_start_line
                .map(|l| format!(" (line {l})"))
                .unwrap_or_default();
            let kind = format!("{:?}", e.error_type).to_lowercase();
            out.push_str(&format!(
                "  {} ❌ {} - {kind} error{line}: {}\n",
                shown.name(&e.block_id),
                shown.name(e.action.as_deref().unwrap_or("-")),
                shown.content(&e.message)
            ));
        }
        for f in &r.refused {
            out.push_str(&format!(
                "  {} ❌ {} - {}\n",
                shown.name(&f.block_id),
                shown.name(&f.action),
                shown.content(&f.message)
            ));
        }
        for f in &r.failed {
            let first = f.message.lines().next().unwrap_or_default();
            out.push_str(&format!(
                "  {} ❌ {} - {}\n",
                shown.name(&f.block_id),
                shown.name(&f.action),
                shown.content(first)
            ));
        }
    }
    out
}
