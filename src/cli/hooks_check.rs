//! `git clada hooks check` and `git clada hooks prepare`: argument handling and printing; the
//! runs are `record::githooks`'s (docs/hooks-sandbox.md).

use anyhow::Context;
use serde_json::json;

use crate::cli::{Format, Global};
use clada_base::error::Outcome;
use clada_engine::action::Step;
use clada_git::Repo;

/// The repository, its configuration and the hooks as an apply would run them.
fn hooks_here() -> anyhow::Result<(Repo, clada_engine::exec::clada_hooks::Hooks)> {
    let cwd = std::env::current_dir().context("cannot determine the current directory")?;
    let repo = Repo::discover(&cwd)?;
    let cfg = clada_engine::config::load_for_repo(Some(&repo))?;
    if let Some(w) = cfg.untrusted_warning() {
        eprintln!("git-clada: warning: {w}");
    }
    let mut dirs = vec![repo.git_dir().to_path_buf()];
    if repo.common_dir() != repo.git_dir() {
        dirs.push(repo.common_dir().to_path_buf());
    }
    let hooks = clada_engine::exec::clada_hooks::Hooks {
        policy: clada_engine::exec::hook_sandbox::HookPolicy::from_config(&cfg, dirs, Vec::new()),
        ..clada_engine::exec::clada_hooks::Hooks::from_config(&cfg)
    };
    Ok((repo, hooks))
}

/// Says what the hooks left and was cleared after them (setuid bits, file capabilities).
fn warn_cleared(hooks: &clada_engine::exec::clada_hooks::Hooks) {
    for w in hooks.policy.findings.take() {
        eprintln!(
            "git-clada: warning: {}",
            clada_base::term::escape(&w, clada_base::term::Rule::Name)
        );
    }
}

/// Prints `steps` and the run's `warnings` (JSON: `{success, hooks, warnings}`) and says
/// whether all passed.
fn print(
    steps: &[Step],
    warnings: &[String],
    global: &Global,
    none: &str,
) -> anyhow::Result<Outcome> {
    let ok = steps.iter().all(|s| s.success);
    if global.format_or_default() == Format::Json {
        crate::cli::print_json(&json!({ "success": ok, "hooks": steps, "warnings": warnings }))?;
    } else {
        let shown = global.shown();
        for w in warnings {
            sayln!("warning: {}", shown.content(w));
        }
        if steps.is_empty() {
            sayln!("{none}");
        }
        for s in steps {
            let mark = match (s.success, &s.needs_user) {
                (true, _) => "✅",
                (false, Some(_)) => "⏸",
                (false, None) => "❌",
            };
            sayln!("{mark} {}", shown.name(&s.name));
            if !s.success {
                let out = clada_engine::report::capped_output(&s.output);
                for l in shown.content(&out).lines() {
                    sayln!("    {l}");
                }
            }
            if let Some(n) = &s.needs_user {
                sayln!("    to allow it: {}", shown.content(&n.how));
            }
        }
        if !steps.is_empty() {
            let passed = steps.iter().filter(|s| s.success).count();
            sayln!(
                "{passed} of {} pass in the sandbox AI commits run them in",
                steps.len()
            );
        }
    }
    Ok(if ok {
        Outcome::Success
    } else {
        Outcome::Partial
    })
}

/// `git clada hooks check`.
pub fn check(global: &Global) -> anyhow::Result<Outcome> {
    let (repo, hooks) = hooks_here()?;
    let mark = clada_engine::exec::notices::mark();
    let steps = clada_engine::record::githooks::check(&repo, &hooks)?;
    warn_cleared(&hooks);
    let warnings = clada_engine::exec::notices::since(&mark, &hooks.policy.env);
    print(
        &steps,
        &warnings,
        global,
        "no hooks to check: no pre-commit or commit-msg hook is installed and hooks.after is empty",
    )
}

/// `git clada hooks prepare`.
pub fn prepare(global: &Global) -> anyhow::Result<Outcome> {
    let (repo, hooks) = hooks_here()?;
    let mark = clada_engine::exec::notices::mark();
    let steps: Vec<Step> = clada_engine::record::githooks::prepare(&repo, &hooks.policy)?
        .into_iter()
        .collect();
    warn_cleared(&hooks);
    let warnings = clada_engine::exec::notices::since(&mark, &hooks.policy.env);
    print(
        &steps,
        &warnings,
        global,
        "nothing to prepare: the repository has no .pre-commit-config.yaml (hooks that need a \
         download can fill git-clada's caches with hooks.network: true in your own \
         configuration)",
    )
}
