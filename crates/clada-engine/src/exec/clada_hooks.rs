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
//! collected: it gets the paths the reply changed (`{paths}` in the command, each `./`-prefixed
//! and shell-quoted, so a name is never an option; [`PATHS_VAR`] one per line, [`PATHS_FILE_VAR`]
//! NUL-terminated); what it changes there (a formatter) goes into the AI commit like exec's
//! changes, and what it changes elsewhere is put back by the apply, with a warning; a failure
//! does not roll the reply back unless `hooks.rollback_on_failure`.
//!
//! Hooks run in the hook sandbox ([`super::hook_sandbox`]: always `workspace`, whatever
//! `sandbox.level` says; a formatter may rewrite the worktree, not `.git`, and reach no
//! network), since what they run — a `./check.sh`, a test suite — may be code a reply just
//! changed. For the same reason they do not run at all when the exec policy is `deny`
//! ([`warnings`] says so), and where the sandbox is unavailable they do not run unless the
//! user's own `hooks.sandbox: off` says to (the step is ⏸).

use std::ffi::OsString;
use std::path::Path;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::config::HookCommand;

/// A step of the transaction around the actions (a hook, the commit), for the reports.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct Step {
    pub name: String,
    pub success: bool,
    pub output: String,
    /// Set when the step failed in a way only the user can lift (the hook sandbox refused
    /// what it needed, or could not be set up): what the user can do. Reports mark it ⏸.
    #[serde(default, rename = "needsUser", skip_serializing_if = "Option::is_none")]
    pub needs_user: Option<StepNeedsUser>,
    /// It changed the protected set (put back): the commit waits for the user.
    #[serde(skip)]
    pub protected: bool,
}

/// What only the user can do about a failed step.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StepNeedsUser {
    pub how: String,
}

impl Step {
    /// A step that succeeded or failed as the model's.
    pub fn new(name: impl Into<String>, success: bool, output: impl Into<String>) -> Step {
        Step {
            name: name.into(),
            success,
            output: output.into(),
            needs_user: None,
            protected: false,
        }
    }

    /// A failed step only the user can lift.
    pub fn for_user(name: impl Into<String>, output: impl Into<String>, how: String) -> Step {
        Step {
            needs_user: Some(StepNeedsUser { how }),
            ..Step::new(name, false, output)
        }
    }
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
    /// The sandbox they (and git's hooks on the AI commit) run in.
    pub policy: super::hook_sandbox::HookPolicy,
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
            policy: super::hook_sandbox::HookPolicy::default(),
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
    hooks.policy.unconfined_warning().into_iter().collect()
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

/// The environment variable naming a file (in `$TMPDIR`) that holds the paths the reply
/// changed, each followed by a NUL byte: exact for every name (`xargs -0 -a`).
pub const PATHS_FILE_VAR: &str = "CLADA_CHANGED_PATHS_FILE";

/// `run` with `{paths}` replaced by `paths` (each `./`-prefixed, so a name starting with `-`
/// is never an option, and shell-quoted; space-separated), as the script `sh -c` runs.
fn script(run: &str, paths: &[String]) -> String {
    let quote = |p: &str| format!("'{}'", p.replace('\'', "'\\''"));
    let list: Vec<String> = paths.iter().map(|p| quote(&format!("./{p}"))).collect();
    run.replace("{paths}", &list.join(" "))
}

/// The environment a configured hook gets: [`PATHS_VAR`], and [`PATHS_FILE_VAR`] once its
/// file is written into `tmp`.
fn paths_env(paths: &[String], tmp: &Path) -> Vec<(String, OsString)> {
    let mut env = vec![(PATHS_VAR.to_string(), OsString::from(paths.join("\n")))];
    let file = tmp.join("clada-changed-paths");
    let mut bytes = Vec::new();
    for p in paths {
        bytes.extend_from_slice(p.as_bytes());
        bytes.push(0);
    }
    if std::fs::write(&file, bytes).is_ok() {
        env.push((PATHS_FILE_VAR.to_string(), file.into_os_string()));
    }
    env
}

/// Runs `cmds` (`phase` is `before` or `after`) in the worktree `root`; returns their steps
/// and whether all that had to succeed did. `paths` are the reply's changed paths (for
/// `after`; see [`PATHS_VAR`]); `contain` keeps them in the sandbox even with
/// `hooks.sandbox: off` (the reply changed hook files).
pub fn run(
    phase: &str,
    cmds: &[HookCommand],
    root: &Path,
    hooks: &Hooks,
    paths: &[String],
    contain: bool,
) -> (Vec<Step>, bool) {
    let mut steps = Vec::new();
    let mut ok = true;
    if hooks.exec_denied {
        // Skipped whole; `warnings` tells the report.
        return (steps, ok);
    }
    for cmd in cmds {
        let step = run_one(phase, cmd, root, hooks, paths, contain);
        let failed = !step.success;
        steps.push(step);
        if failed && !cmd.continue_on_error {
            ok = false;
            break;
        }
    }
    (steps, ok)
}

/// One configured command, as a step.
fn run_one(
    phase: &str,
    cmd: &HookCommand,
    root: &Path,
    hooks: &Hooks,
    paths: &[String],
    contain: bool,
) -> Step {
    let dir = match &cmd.cwd {
        Some(c) => root.join(c),
        None => root.to_path_buf(),
    };
    let name = step_name(phase, cmd);
    if !dir.starts_with(root) || !dir.is_dir() {
        return Step::new(
            name,
            false,
            format!(
                "working directory '{}' does not exist inside the worktree (fix `cwd` in the configuration)",
                dir.display()
            ),
        );
    }
    let spec = super::hook_sandbox::Spec {
        contain,
        ..super::hook_sandbox::Spec::new(root)
    };
    let jail = match hooks.policy.jail(&spec) {
        Ok(j) => j,
        Err(e) => return Step::for_user(name, format!("not run: {}", e.0), e.0),
    };
    let limits = super::spawn::Limits {
        timeout: cmd.timeout.unwrap_or(hooks.timeout),
        max_output: hooks.max_output,
        cancel: None,
    };
    let env = paths_env(paths, jail.tmp());
    let out = jail.run_shell(&script(&cmd.run, paths), &dir, &env, limits);
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
    let protected = !jail.put_back().is_empty();
    match jail.needs_user(&out) {
        Some(how) => Step {
            protected,
            ..Step::for_user(name, output, how)
        },
        None => Step::new(name, success, output),
    }
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
        let (steps, ok) = run("after", &denied.after, dir.path(), &denied, &[], false);
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
            false,
        );
        assert!(!ok);
        assert_eq!(steps.len(), 3);
        assert!(steps[0].success);
        assert_eq!(steps[1].output, "exited with code 2\nbad\n");
        assert_eq!(steps[2].name, "hooks.after: exit 3");
        let (steps, ok) = run("before", &[cmd("exit 1", true)], dir.path(), &h, &[], false);
        assert!(ok, "{steps:?}");
    }

    #[test]
    fn paths_reach_the_command_quoted_dot_slashed_and_in_the_environment() {
        let dir = tempfile::tempdir().unwrap();
        let h = Hooks {
            timeout: Duration::from_secs(10),
            max_output: 1024,
            ..Hooks::default()
        };
        let paths = vec![
            "a b.txt".to_string(),
            "it's.py".to_string(),
            "--expression=1e id".to_string(),
        ];
        let (steps, ok) = run(
            "after",
            &[cmd(
                "for p in {paths}; do echo \"[$p]\"; done; printf '%s|' \"$CLADA_CHANGED_PATHS\"; \
                 tr '\\0' '#' < \"$CLADA_CHANGED_PATHS_FILE\"",
                false,
            )],
            dir.path(),
            &h,
            &paths,
            false,
        );
        assert!(ok, "{steps:?}");
        assert_eq!(
            steps[0].output,
            "[./a b.txt]\n[./it's.py]\n[./--expression=1e id]\na b.txt\nit's.py\n--expression=1e id|a b.txt#it's.py#--expression=1e id#\n"
        );
    }
}
