//! git's own hooks on an AI commit, contained (docs/hooks-sandbox.md): `pre-commit` and
//! `commit-msg` see the index to commit in their private folder (`GIT_INDEX_FILE`), the
//! message there too, and write new objects into a quarantine there
//! (`GIT_OBJECT_DIRECTORY`, with the repository's objects as the alternate); everything else
//! they write into the git directory goes to a discarded overlay (`exec::hook_sandbox`).
//! Afterwards the index and the message are read back and the objects the index names are
//! imported; the rest goes with the folder. Used by the apply (`apply/stage.rs`,
//! `apply/publish.rs`) and `git clada hooks check`.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use crate::action::Step;
use crate::exec::hook_sandbox::{HookJail, HookPolicy, Spec};
use crate::exec::spawn::{ExecOutput, Limits};
use crate::sandbox::protected::{Entry, Protected};
use clada_git::{Index, Repo, RepoError};

/// How long one git hook may run on an AI commit (the whole process group is killed then).
pub const GIT_HOOK_TIMEOUT: Duration = Duration::from_secs(600);

/// Runs git's hooks for one commit.
pub struct GitHooks<'r> {
    repo: &'r Repo,
    policy: HookPolicy,
    /// Contained even with `hooks.sandbox: off` (the reply changed hook files).
    contain: bool,
}

/// What `pre-commit` and `commit-msg` did.
pub struct Verdict {
    pub steps: Vec<Step>,
    pub passed: bool,
    /// The index as the hooks left it (what they re-staged), objects imported; `None` when no
    /// hook ran or none passed.
    pub index: Option<Index>,
}

/// One hook's run.
struct Ran {
    step: Step,
    /// The index it left (when it was given one).
    index: Option<Index>,
    /// The message it left (when it was given one).
    message: Option<String>,
}

/// What a hook is given.
struct Input<'a> {
    name: &'a str,
    index: Option<&'a Index>,
    message: Option<&'a str>,
}

impl<'r> GitHooks<'r> {
    /// The hooks of `repo` under `policy` (its configuration files, and its protected set
    /// when the policy has none yet, filled in from `repo`).
    pub fn new(repo: &'r Repo, policy: &HookPolicy, contain: bool) -> GitHooks<'r> {
        GitHooks {
            repo,
            policy: HookPolicy {
                config_files: repo.config_files(),
                protected: Some(protected_of(repo, policy)),
                ..policy.clone()
            },
            contain,
        }
    }

    /// Whether `pre-commit` or `commit-msg` is installed.
    pub fn any_before_commit(&self) -> bool {
        self.repo.hook_path("pre-commit").is_some() || self.repo.hook_path("commit-msg").is_some()
    }

    /// `pre-commit` on `index`, then `commit-msg` on `msg` (which it may rewrite).
    pub fn pre_commit(&self, index: &Index, msg: &mut String) -> Result<Verdict, RepoError> {
        let mut steps = Vec::new();
        let mut now = None;
        if self.repo.hook_path("pre-commit").is_some() {
            let ran = self.run(&Input {
                name: "pre-commit",
                index: Some(index),
                message: None,
            })?;
            let ok = ran.step.success;
            steps.push(ran.step);
            if !ok {
                return Ok(Verdict {
                    steps,
                    passed: false,
                    index: None,
                });
            }
            now = ran.index;
        }
        if self.repo.hook_path("commit-msg").is_some() {
            let ran = self.run(&Input {
                name: "commit-msg",
                index: Some(now.as_ref().unwrap_or(index)),
                message: Some(msg),
            })?;
            let ok = ran.step.success;
            steps.push(ran.step);
            if !ok {
                return Ok(Verdict {
                    steps,
                    passed: false,
                    index: None,
                });
            }
            if let Some(edited) = ran.message {
                let edited = edited.trim_end();
                if !edited.is_empty() {
                    *msg = format!("{edited}\n");
                }
            }
            now = ran.index.or(now);
        }
        Ok(Verdict {
            steps,
            passed: true,
            index: now,
        })
    }

    /// `post-commit`, if installed: its step (it cannot undo the commit).
    pub fn post_commit(&self) -> Result<Option<Step>, RepoError> {
        if self.repo.hook_path("post-commit").is_none() {
            return Ok(None);
        }
        Ok(Some(
            self.run(&Input {
                name: "post-commit",
                index: None,
                message: None,
            })?
            .step,
        ))
    }

    /// Runs one hook contained (with the overlays, or — where a first start with them fails —
    /// with the git directory read-only, saying why).
    fn run(&self, input: &Input<'_>) -> Result<Ran, RepoError> {
        let Some(path) = self.repo.hook_path(input.name) else {
            return Err(RepoError::Invalid(format!("no {} hook", input.name)));
        };
        let mut spec = Spec {
            program: Some(&path),
            overlay: Some(vec![self.repo.index_lock_path()]),
            contain: self.contain,
            ..Spec::new(self.repo.workdir())
        };
        loop {
            let jail = match self.policy.jail(&spec) {
                Ok(j) => j,
                Err(e) => {
                    return Ok(Ran {
                        step: Step::for_user(
                            format!("hook {}", input.name),
                            format!("hook {} did not run: {}", input.name, e.0),
                            e.0,
                        ),
                        index: None,
                        message: None,
                    })
                }
            };
            let out = self.spawn(&jail, &path, input)?;
            let not_started = out.exit_code.is_none()
                && out
                    .error
                    .as_deref()
                    .is_some_and(|e| e.starts_with("exec: cannot start"));
            if not_started && jail.overlaid() && spec.overlay_off.is_none() {
                spec.overlay_off = Some(format!(
                    "its overlay could not be mounted here ({})",
                    out.error.as_deref().unwrap_or_default()
                ));
                continue;
            }
            return self.read_back(&jail, input, out);
        }
    }

    /// Starts the hook in `jail` with its files in the jail's folder.
    fn spawn(
        &self,
        jail: &HookJail,
        path: &Path,
        input: &Input<'_>,
    ) -> Result<ExecOutput, RepoError> {
        let tmp = jail.tmp();
        let objects = tmp.join("objects");
        std::fs::create_dir_all(&objects)
            .map_err(clada_git::io_err_pub("cannot create", &objects))?;
        let index_file = match input.index {
            Some(index) => {
                let f = tmp.join("index");
                index.write_to_path(&f)?;
                f
            }
            None => self.repo.index_path(),
        };
        let mut alternates = OsString::from(self.repo.objects_dir());
        if let Some(more) = std::env::var_os("GIT_ALTERNATE_OBJECT_DIRECTORIES") {
            alternates.push(":");
            alternates.push(more);
        }
        let env: Vec<(String, OsString)> = vec![
            ("GIT_INDEX_FILE".into(), index_file.into_os_string()),
            ("GIT_OBJECT_DIRECTORY".into(), objects.into_os_string()),
            ("GIT_ALTERNATE_OBJECT_DIRECTORIES".into(), alternates),
            ("GIT_EDITOR".into(), ":".into()),
        ];
        let mut args = Vec::new();
        if let Some(msg) = input.message {
            let f = message_file(tmp);
            std::fs::write(&f, msg.as_bytes())
                .map_err(clada_git::io_err_pub("cannot write", &f))?;
            args.push(f.into_os_string());
        }
        let limits = Limits {
            timeout: GIT_HOOK_TIMEOUT,
            max_output: self.policy.max_output.max(1),
            cancel: None,
        };
        Ok(jail.run(path, &args, self.repo.workdir(), &env, limits))
    }

    /// The step of a finished hook, and the index and message it left (objects imported).
    fn read_back(
        &self,
        jail: &HookJail,
        input: &Input<'_>,
        out: ExecOutput,
    ) -> Result<Ran, RepoError> {
        let name = format!("hook {}", input.name);
        let output = hook_output(input.name, &out);
        if !jail.put_back().is_empty() {
            let how = jail.needs_user(&out).unwrap_or_default();
            return Ok(Ran {
                step: Step {
                    protected: true,
                    ..Step::for_user(name, output, how)
                },
                index: None,
                message: None,
            });
        }
        if !out.success() {
            let step = match jail.needs_user(&out) {
                Some(how) => Step::for_user(name, output, how),
                None => Step::new(name, false, output),
            };
            return Ok(Ran {
                step,
                index: None,
                message: None,
            });
        }
        let tmp = jail.tmp();
        let index = match input.index {
            Some(_) => {
                let f = tmp.join("index");
                match self.repo.read_index_at(&f).and_then(|i| {
                    self.repo.import_objects(&tmp.join("objects"), &i)?;
                    Ok(i)
                }) {
                    Ok(i) => Some(i),
                    Err(e) => {
                        return Ok(Ran {
                            step: Step::new(
                                name,
                                false,
                                format!("{output}\nwhat the hook staged cannot be used: {e}")
                                    .trim_start()
                                    .to_string(),
                            ),
                            index: None,
                            message: None,
                        })
                    }
                }
            }
            None => None,
        };
        let message = match input.message {
            Some(_) => {
                let f = message_file(tmp);
                let mut text = String::new();
                let read = clada_git::open_plain(&f).and_then(|mut file| {
                    use std::io::Read;
                    file.read_to_string(&mut text)
                });
                if let Err(e) = read {
                    return Ok(Ran {
                        step: Step::new(
                            name,
                            false,
                            format!(
                                "{output}\nthe commit message the hook left cannot be read: {e}"
                            )
                            .trim_start()
                            .to_string(),
                        ),
                        index: None,
                        message: None,
                    });
                }
                Some(text)
            }
            None => None,
        };
        Ok(Ran {
            step: Step::new(name, true, output),
            index,
            message,
        })
    }
}

/// `git clada hooks check`: `pre-commit` and `commit-msg` (on a sample message), then the
/// configured `hooks.after` (given the staged paths), each in the sandbox an AI commit runs it
/// in, on the current index and worktree. Nothing is committed and what they stage is
/// dropped; like `git commit`, a fixer may rewrite files of the worktree.
pub fn check(repo: &Repo, hooks: &crate::exec::clada_hooks::Hooks) -> Result<Vec<Step>, RepoError> {
    let githooks = GitHooks::new(repo, &hooks.policy, false);
    let index = repo.read_index()?;
    let msg = "hooks check: a sample commit message\n";
    let mut steps = Vec::new();
    for name in ["pre-commit", "commit-msg"] {
        if repo.hook_path(name).is_some() {
            let input = Input {
                name,
                index: Some(&index),
                message: (name == "commit-msg").then_some(msg),
            };
            steps.push(githooks.run(&input)?.step);
        }
    }
    if !hooks.after.is_empty() {
        let paths = staged_paths(repo, &index)?;
        let (after, _) = crate::exec::clada_hooks::run(
            "after",
            &hooks.after,
            repo.workdir(),
            &configured(repo, hooks),
            &paths,
            false,
        );
        steps.extend(after);
    }
    Ok(steps)
}

/// The paths `index` stages (differs from HEAD in).
fn staged_paths(repo: &Repo, index: &Index) -> Result<Vec<String>, RepoError> {
    let head = match repo.head()? {
        clada_git::Head::Branch { commit, .. } | clada_git::Head::Detached { commit } => {
            repo.tree_of(commit)?
        }
        clada_git::Head::Unborn { .. } => repo.empty_tree(),
    };
    let staged = repo.tree_of_index(head, index)?;
    Ok(repo
        .diff_trees(head, staged)?
        .into_iter()
        .map(|d| d.path.to_string())
        .collect())
}

/// `git clada hooks prepare`: fills git-clada's hook caches once, with network, in the
/// sandbox: `pre-commit install-hooks` where the repository has a `.pre-commit-config.yaml`
/// and `pre-commit` is on PATH. `None`: nothing to prepare.
pub fn prepare(repo: &Repo, policy: &HookPolicy) -> Result<Option<Step>, RepoError> {
    if !repo.workdir().join(".pre-commit-config.yaml").is_file() {
        return Ok(None);
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    let Some(program) = std::env::split_paths(&path)
        .map(|d| d.join("pre-commit"))
        .find(|p| p.is_file())
    else {
        return Ok(Some(Step::new(
            "pre-commit install-hooks",
            false,
            "the repository has a .pre-commit-config.yaml, but `pre-commit` is not on PATH: \
             install the pre-commit framework first",
        )));
    };
    let policy = HookPolicy {
        config_files: repo.config_files(),
        protected: Some(protected_of(repo, policy)),
        ..policy.clone()
    };
    let spec = Spec {
        program: Some(&program),
        network: true,
        contain: true,
        ..Spec::new(repo.workdir())
    };
    let name = "pre-commit install-hooks";
    let jail = match policy.jail(&spec) {
        Ok(j) => j,
        Err(e) => return Ok(Some(Step::for_user(name, e.0.clone(), e.0))),
    };
    let limits = Limits {
        timeout: GIT_HOOK_TIMEOUT,
        max_output: policy.max_output.max(1),
        cancel: None,
    };
    let out = jail.run(
        &program,
        &[OsString::from("install-hooks")],
        repo.workdir(),
        &[],
        limits,
    );
    let output = hook_output(name, &out);
    Ok(Some(match jail.needs_user(&out) {
        Some(how) => Step::for_user(name, output, how),
        None => Step::new(name, out.success(), output),
    }))
}

/// `hooks` with the configuration files git reads in `repo` (a hook's git needs them) and,
/// when commands are configured, the protected set.
pub fn configured(
    repo: &Repo,
    hooks: &crate::exec::clada_hooks::Hooks,
) -> crate::exec::clada_hooks::Hooks {
    let any = !(hooks.before.is_empty() && hooks.after.is_empty());
    crate::exec::clada_hooks::Hooks {
        policy: HookPolicy {
            config_files: repo.config_files(),
            protected: match any {
                true => Some(protected_of(repo, &hooks.policy)),
                false => hooks.policy.protected.clone(),
            },
            ..hooks.policy.clone()
        },
        ..hooks.clone()
    }
}

/// The protected set a hook keeps: the policy's, else `repo`'s (its index read for the
/// gitlinks).
fn protected_of(repo: &Repo, policy: &HookPolicy) -> Arc<Protected> {
    if let Some(p) = &policy.protected {
        return Arc::clone(p);
    }
    let gitlinks = repo.read_index().map(|i| i.gitlinks()).unwrap_or_default();
    Arc::new(protected_set(repo, &gitlinks).guarded(policy.hook_writes))
}

/// The protected set of `repo`'s worktree (docs/hooks-sandbox.md, "Protected"): what its
/// git configuration names, what its hooks and hook managers run, and the nested git entries
/// git enters — of the declared submodules and of `gitlinks` (the index's).
pub fn protected_set(repo: &Repo, gitlinks: &[String]) -> Protected {
    let root = std::fs::canonicalize(repo.workdir()).unwrap_or_else(|_| repo.workdir().into());
    let git = nested_git(repo, &root, gitlinks);
    crate::sandbox::protected::discover(&root, Some(&repo.hooks_dir()), &repo.hook_files(), git)
}

/// The nested git entries of `repo` (worktree `root`, canonical): of its declared
/// submodules and of `gitlinks`.
pub fn nested_git(repo: &Repo, root: &Path, gitlinks: &[String]) -> Vec<Entry> {
    let mut paths = repo.declared_submodules();
    for g in gitlinks {
        if !paths.contains(g) {
            paths.push(g.clone());
        }
    }
    let own = [
        repo.git_dir().to_path_buf(),
        repo.common_dir().to_path_buf(),
    ];
    crate::sandbox::protected::nested_git(root, &paths, &own)
}

/// Whether one of `paths` (root-relative) is a hook file (docs/hooks-sandbox.md, "protected
/// hook files") while the user's `hooks.sandbox: off` would run hooks unconfined: then they
/// run contained all the same. (Without that setting hooks are contained anyway.)
pub fn touches_hook_files<'a>(
    repo: &Repo,
    policy: &HookPolicy,
    mut paths: impl Iterator<Item = &'a str>,
) -> bool {
    if policy.unconfined.is_none() {
        return false;
    }
    let Ok(sandbox) = crate::sandbox::Sandbox::new(repo.workdir(), false) else {
        return true;
    };
    let sandbox = sandbox.protect_hooks(&repo.hook_files());
    paths.any(|p| sandbox.hook_file(p).is_some())
}

/// The hook files among `paths` (root-relative), each with what it is.
pub fn hook_files_among<'a>(
    repo: &Repo,
    paths: impl Iterator<Item = &'a str>,
) -> Vec<(String, String)> {
    let Ok(sandbox) = crate::sandbox::Sandbox::new(repo.workdir(), false) else {
        return Vec::new();
    };
    let sandbox = sandbox.protect_hooks(&repo.hook_files());
    paths
        .filter_map(|p| sandbox.hook_file(p).map(|what| (p.to_string(), what)))
        .collect()
}

/// What an apply says about the user's `hooks.sandbox: off`: that the hooks ran unconfined,
/// or — when this reply changed a hook file — that they ran contained all the same.
pub fn unconfined_warning(policy: &HookPolicy, contain: bool) -> Option<String> {
    let source = policy.unconfined.as_ref()?;
    Some(match contain {
        true => format!(
            "the hooks ran in the OS sandbox although hooks.sandbox is off ({source}): this \
             reply changed a file a hook runs, and such code never runs unconfined"
        ),
        false => policy.unconfined_warning()?,
    })
}

/// Where a hook's commit message is (git's own name for it).
fn message_file(tmp: &Path) -> PathBuf {
    tmp.join("COMMIT_EDITMSG")
}

/// A hook's output for its step: what it wrote, and on failure how it ended.
fn hook_output(name: &str, out: &ExecOutput) -> String {
    let text = out.stdout.trim_end().to_string();
    if out.success() {
        return text;
    }
    let status = match (&out.error, out.exit_code) {
        (Some(e), _) => e.clone(),
        (None, Some(c)) => format!("exit {c}"),
        (None, None) => "killed by a signal".into(),
    };
    if text.is_empty() {
        format!("hook {name} failed ({status})")
    } else {
        format!("hook {name} failed ({status}):\n{text}")
    }
}
