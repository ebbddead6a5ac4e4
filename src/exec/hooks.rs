//! `hooks.before` / `hooks.after` (DESIGN §9; clada-semantics §9's `loaf.yml` hooks adapted):
//! commands from the configuration run around an apply, through the exec machinery (`sh -c`,
//! stdin closed, the worktree root or the command's `cwd` as working directory, its own
//! process group killed on timeout, each output stream capped).
//!
//! They run in order and stop at the first failure unless that command has
//! `continue_on_error`. Each is a step in the report, with its output when it fails, so the
//! model sees a formatter's or the tests' complaint. `before` runs before anything is read
//! for the apply: what it changes is the user's state, not the AI's, and a failure stops the
//! apply with nothing applied. `after` runs once the actions ran, before the changes are
//! collected: it gets the paths the reply changed (`{paths}` in the command, shell-quoted,
//! and [`PATHS_VAR`]); what it changes there (a formatter) goes into the AI commit like
//! exec's changes, and what it changes elsewhere is put back by the apply, with a warning; a
//! failure does not roll the reply back unless `hooks.rollback_on_failure`.
//!
//! Hooks run in the OS sandbox at the configured level (`workspace` by default: a formatter
//! may rewrite the worktree, not `.git`, and reach no network), since what they run — a
//! `./check.sh`, a test suite — may be code a reply just changed. For the same reason they do
//! not run at all when the exec policy is `deny` ([`warnings`] says so).

use std::path::Path;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::config::HookCommand;

/// A step of the transaction around the actions (a hook, the commit), for the reports.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Step {
    pub name: String,
    pub success: bool,
    pub output: String,
}

/// The hooks of one apply (from the configuration).
#[derive(Debug, Clone, Default)]
pub struct Hooks {
    pub before: Vec<HookCommand>,
    pub after: Vec<HookCommand>,
    /// A failed `after` command rolls the whole reply back (as `--atomic` does).
    pub rollback_on_failure: bool,
    /// For commands without their own `timeout`.
    pub timeout: Duration,
    /// Per output stream.
    pub max_output: usize,
    /// The OS sandbox they run in.
    pub confine: super::confine::Confine,
    /// The exec policy is `deny`: no code a reply could have changed may run, so neither do
    /// the hooks.
    pub exec_denied: bool,
}

impl Hooks {
    /// From the effective configuration.
    pub fn from_config(cfg: &crate::config::Config) -> Hooks {
        Hooks {
            before: cfg.hooks_before.value.clone(),
            after: cfg.hooks_after.value.clone(),
            rollback_on_failure: cfg.hooks_rollback_on_failure.value,
            timeout: cfg.timeout.value,
            max_output: cfg.max_output.value,
            confine: super::confine::Confine::default(),
            exec_denied: false,
        }
    }

    fn configured(&self) -> Vec<&'static str> {
        [("hooks.before", &self.before), ("hooks.after", &self.after)]
            .into_iter()
            .filter(|(_, c)| !c.is_empty())
            .map(|(k, _)| k)
            .collect()
    }
}

/// The warnings an apply's result carries about its hooks: skipped under `--exec deny`, or run
/// without the OS sandbox where it is unavailable.
pub fn warnings(hooks: &Hooks) -> Vec<String> {
    let keys = hooks.configured();
    if keys.is_empty() {
        return Vec::new();
    }
    let keys = keys.join(" and ");
    if hooks.exec_denied {
        return vec![format!(
            "{keys} did not run: the exec policy is deny, and hooks may run code a reply \
             changed (a script, the tests); re-run with --exec ask or --exec allow to run them"
        )];
    }
    let mut out = Vec::new();
    if hooks.confine.level != super::confine::Level::Off {
        if let super::confine::Availability::Unavailable(why) = hooks.confine.availability() {
            out.push(format!(
                "{keys} ran without the OS sandbox ({why}): they could write, read and \
                 connect anywhere you can"
            ));
        }
    }
    out
}

/// The name of a hook step in the report.
fn step_name(phase: &str, cmd: &HookCommand) -> String {
    format!("hooks.{phase}: {}", cmd.run)
}

/// Whether a step is a hook step (for roll-back decisions).
pub fn is_hook_step(step: &Step) -> bool {
    step.name.starts_with("hooks.")
}

/// The environment variable that gives `hooks.after` commands the paths the reply changed
/// (root-relative, one per line).
pub const PATHS_VAR: &str = "CLADA_CHANGED_PATHS";

/// `run` with `{paths}` replaced by `paths` (shell-quoted, space-separated) and the paths in
/// [`PATHS_VAR`] (one per line), as the script `sh -c` runs.
fn script(run: &str, paths: &[String]) -> String {
    let quote = |p: &str| format!("'{}'", p.replace('\'', "'\\''"));
    let list: Vec<String> = paths.iter().map(|p| quote(p)).collect();
    format!(
        "{PATHS_VAR}={}; export {PATHS_VAR}\n{}",
        quote(&paths.join("\n")),
        run.replace("{paths}", &list.join(" "))
    )
}

/// Runs `cmds` (`phase` is `before` or `after`) in the worktree `root`; returns their steps
/// and whether all that had to succeed did. `paths` are the reply's changed paths (for
/// `after`; see [`PATHS_VAR`]).
pub fn run(
    phase: &str,
    cmds: &[HookCommand],
    root: &Path,
    hooks: &Hooks,
    paths: &[String],
) -> (Vec<Step>, bool) {
    let mut steps = Vec::new();
    let mut ok = true;
    if hooks.exec_denied {
        // Skipped whole; `warnings` tells the report.
        return (steps, ok);
    }
    for cmd in cmds {
        let dir = match &cmd.cwd {
            Some(c) => root.join(c),
            None => root.to_path_buf(),
        };
        let name = step_name(phase, cmd);
        if !dir.starts_with(root) || !dir.is_dir() {
            steps.push(Step {
                name,
                success: false,
                output: format!(
                    "working directory '{}' does not exist inside the worktree (fix `cwd` in the configuration)",
                    dir.display()
                ),
            });
            if !cmd.continue_on_error {
                ok = false;
                break;
            }
            continue;
        }
        let limit = cmd.timeout.unwrap_or(hooks.timeout);
        // (Running unconfined where the sandbox is unavailable is said once, by `warnings`.)
        let out = match super::approved_jail(&hooks.confine, root, &mut Vec::new()) {
            Ok(jail) => {
                let limits = super::spawn::Limits {
                    timeout: limit,
                    max_output: hooks.max_output,
                    cancel: None,
                };
                super::spawn::run("sh", &script(&cmd.run, paths), &dir, limits, None, &jail).output
            }
            Err(e) => super::spawn::ExecOutput::failed(format!("not run: {e}")),
        };
        let success = out.success();
        let mut output = String::new();
        if !success {
            match (&out.error, out.exit_code) {
                (Some(e), _) => output.push_str(&format!("{e}\n")),
                (None, Some(code)) => output.push_str(&format!("exited with code {code}\n")),
                _ => {}
            }
        }
        output.push_str(&out.stdout);
        if !out.stdout.is_empty() && !out.stdout.ends_with('\n') {
            output.push('\n');
        }
        output.push_str(&out.stderr);
        steps.push(Step {
            name,
            success,
            output,
        });
        if !success && !cmd.continue_on_error {
            ok = false;
            break;
        }
    }
    (steps, ok)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cmd(run: &str, continue_on_error: bool) -> HookCommand {
        HookCommand {
            run: run.into(),
            continue_on_error,
            timeout: None,
            cwd: None,
        }
    }

    #[test]
    fn stops_at_the_first_failure_unless_continue_on_error() {
        let dir = tempfile::tempdir().unwrap();
        let h = Hooks {
            timeout: Duration::from_secs(10),
            max_output: 1024,
            ..Hooks::default()
        };
        let denied = Hooks {
            exec_denied: true,
            after: vec![cmd("touch ran", false)],
            ..h.clone()
        };
        let (steps, ok) = run("after", &denied.after, dir.path(), &denied, &[]);
        assert!(ok && steps.is_empty());
        assert!(!dir.path().join("ran").exists());
        assert!(
            warnings(&denied)[0].starts_with("hooks.after did not run: the exec policy is deny")
        );
        let (steps, ok) = run(
            "after",
            &[
                cmd("echo one", false),
                cmd("echo bad >&2; exit 2", true),
                cmd("exit 3", false),
                cmd("echo never", false),
            ],
            dir.path(),
            &h,
            &[],
        );
        assert!(!ok);
        assert_eq!(steps.len(), 3);
        assert!(steps[0].success);
        assert_eq!(steps[1].output, "exited with code 2\nbad\n");
        assert_eq!(steps[2].name, "hooks.after: exit 3");
        let (steps, ok) = run("before", &[cmd("exit 1", true)], dir.path(), &h, &[]);
        assert!(ok, "{steps:?}");
    }

    #[test]
    fn paths_reach_the_command_quoted_and_in_the_environment() {
        let dir = tempfile::tempdir().unwrap();
        let h = Hooks {
            timeout: Duration::from_secs(10),
            max_output: 1024,
            ..Hooks::default()
        };
        let paths = vec!["a b.txt".to_string(), "it's.py".to_string()];
        let (steps, ok) = run(
            "after",
            &[cmd(
                "for p in {paths}; do echo \"[$p]\"; done; printf '%s|' \"$CLADA_CHANGED_PATHS\"",
                false,
            )],
            dir.path(),
            &h,
            &paths,
        );
        assert!(ok, "{steps:?}");
        assert_eq!(steps[0].output, "[a b.txt]\n[it's.py]\na b.txt\nit's.py|\n");
    }
}
