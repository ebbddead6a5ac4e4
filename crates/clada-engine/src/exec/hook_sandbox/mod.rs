//! The sandbox every hook runs in (docs/hooks-sandbox.md): git's hooks on an AI commit and the
//! configured `hooks.before` / `hooks.after`. Always the `workspace` level, whatever
//! `sandbox.level` says; widened only by the user's own file (`sandbox.read`/`write`,
//! `hooks.network`) and by what real hooks need to run at all ([`grants`]: the `$PATH`
//! folders and their installations, the hook's interpreter, husky's folder, git-clada's own
//! hook caches); unconfined only by the user's own `hooks.sandbox: off`, never for a commit
//! whose reply changed hook files. A git hook's git directories are mounted as discarded
//! overlays ([`Spec::overlay`]); the git side (its index, message and object quarantine) is
//! `record`'s. [`judge`] decides whether a failure is the model's or the user's.
//!
//! Git-free: it knows folders, programs and environments, not repositories.

pub(crate) mod grants;
pub(crate) mod judge;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::confine::{self, Confine, Extra, Jail, Level, OverlayDir};
use super::spawn::{ExecOutput, Limits};

/// How hooks run, from the configuration (the same for every hook of one command).
#[derive(Debug, Clone, Default)]
pub struct HookPolicy {
    /// The user's own `hooks.sandbox: off`: where it is set (hooks run unconfined unless a
    /// [`Spec`] insists).
    pub unconfined: Option<String>,
    /// The user's own `hooks.network`.
    pub network: bool,
    /// The user's own `sandbox.read` / `sandbox.write` (a repository's never widen hooks).
    pub read: Vec<PathBuf>,
    pub write: Vec<PathBuf>,
    /// `sandbox.landlock: false`: why the sandbox is to be taken as unavailable.
    pub disabled: Option<String>,
    /// git-clada's own hook caches (`<cache dir>/clada/hooks`).
    pub cache: Option<PathBuf>,
    /// The repository's git directories (read, and overlaid for git's hooks).
    pub git_dirs: Vec<PathBuf>,
    /// The git configuration files git reads here (a hook's git must read them).
    pub config_files: Vec<PathBuf>,
    /// The user's own configuration file, named in a proposal.
    pub user_file: Option<PathBuf>,
    /// For a hook without its own limit.
    pub timeout: Duration,
    /// Per output stream.
    pub max_output: usize,
    /// The user's `sandbox.env` rules (`exec/env.rs`).
    pub env: Vec<String>,
    /// What no hook may change (`sandbox::protected`): read-only in its sandbox and put back
    /// after it; `None` until the repository's is known (`record::githooks` fills it in).
    pub protected: Option<std::sync::Arc<crate::sandbox::protected::Protected>>,
    /// The user's own `paths.protect_hooks: false`: hooks may change hook files (never a
    /// nested git directory).
    pub hook_writes: bool,
    /// What the hooks left that was cleared after them, for the command's report.
    pub findings: Findings,
}

/// The warnings of every hook of one command about what it left and git-clada cleared
/// (setuid and setgid bits, file capabilities: `exec/modes.rs`), shared by the policy's
/// clones; the command takes them for its report.
#[derive(Debug, Clone, Default)]
pub struct Findings(std::sync::Arc<std::sync::Mutex<Vec<String>>>);

impl Findings {
    fn push(&self, warnings: Vec<String>) {
        if warnings.is_empty() {
            return;
        }
        let mut kept = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        kept.extend(warnings);
    }

    /// The warnings so far (none are kept).
    pub fn take(&self) -> Vec<String> {
        let mut kept = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        std::mem::take(&mut *kept)
    }
}

/// What one hook run needs besides the policy.
#[derive(Debug, Clone)]
pub struct Spec<'a> {
    /// The worktree root.
    pub root: &'a Path,
    /// The hook file (its interpreter and, outside the worktree, its folder are granted).
    pub program: Option<&'a Path>,
    /// git's hooks: the git directories behind discarded overlays, with what to hide in them
    /// (absolute paths inside one of them). `None`: the git directories are read-only.
    pub overlay: Option<Vec<PathBuf>>,
    /// The overlays were asked for but could not be used (a first spawn with them failed):
    /// why. The git directories are read-only instead.
    pub overlay_off: Option<String>,
    /// Contained even with `hooks.sandbox: off` (the reply changed hook files).
    pub contain: bool,
    /// Network for this run (`git clada hooks prepare`).
    pub network: bool,
}

impl<'a> Spec<'a> {
    /// A run in the worktree `root`, git directories read-only, nothing else asked for.
    pub fn new(root: &'a Path) -> Spec<'a> {
        Spec {
            root,
            program: None,
            overlay: None,
            overlay_off: None,
            contain: false,
            network: false,
        }
    }
}

/// The environment variables naming git-clada's hook caches, and their folder names.
const CACHES: &[(&str, &str)] = &[
    ("PRE_COMMIT_HOME", "pre-commit"),
    ("npm_config_cache", "npm"),
    ("PIP_CACHE_DIR", "pip"),
];

/// Why a hook could not run contained: only the user can change that (⏸).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotContained(pub String);

impl HookPolicy {
    /// From the effective configuration; `git_dirs` and `config_files` from the repository
    /// (empty without one).
    pub fn from_config(
        cfg: &crate::config::Config,
        git_dirs: Vec<PathBuf>,
        config_files: Vec<PathBuf>,
    ) -> HookPolicy {
        HookPolicy {
            unconfined: (cfg.hooks_sandbox.value == crate::config::HookSandbox::Off)
                .then(|| cfg.hooks_sandbox.source.to_string()),
            network: cfg.hooks_network.value,
            read: cfg.hooks_read.clone(),
            write: cfg.hooks_write.clone(),
            disabled: (!cfg.sandbox_landlock.value).then(|| {
                format!(
                    "sandbox.landlock is false in {}",
                    cfg.sandbox_landlock.source
                )
            }),
            cache: directories::BaseDirs::new().map(|d| d.cache_dir().join("clada").join("hooks")),
            git_dirs,
            config_files,
            user_file: crate::config::user_file(),
            timeout: cfg.timeout.value,
            max_output: cfg.max_output.value,
            env: cfg.sandbox_env.value.clone(),
            protected: None,
            hook_writes: !cfg.paths_protect_hooks.value,
            findings: Findings::default(),
        }
    }

    /// The `workspace` level with the user's own folders and network choice.
    fn confine(&self, network: bool) -> Confine {
        Confine {
            level: Level::Workspace,
            network,
            read: self.read.clone(),
            write: self.write.clone(),
            disabled: self.disabled.clone(),
            git_dirs: self.git_dirs.clone(),
            env: self.env.clone(),
            protected: self.protected.clone().unwrap_or_default(),
        }
    }

    /// Whether the OS sandbox is there for hooks.
    pub fn availability(&self) -> confine::Availability {
        self.confine(false).availability()
    }

    /// The sandbox for one run. `Err`: it cannot run contained (and may not run otherwise).
    pub fn jail(&self, spec: &Spec<'_>) -> Result<HookJail, NotContained> {
        let home = grants::home();
        let after = AfterStep {
            root: spec.root.to_path_buf(),
            git_dirs: self.git_dirs.clone(),
            findings: self.findings.clone(),
        };
        if self.unconfined.is_some() && !spec.contain {
            return HookJail::unconfined(home, self.user_file.clone(), &self.env, after);
        }
        if let confine::Availability::Unavailable(why) = self.availability() {
            return Err(NotContained(format!(
                "the OS sandbox is unavailable ({why}), and hooks run only inside it: set \
                 hooks.sandbox: off in your own configuration to run them unconfined (code the \
                 reply wrote then runs as you), or commit with --no-verify"
            )));
        }
        let caches = self.caches();
        let extra = self.extra(spec, home.as_deref(), &caches);
        let confine = self.confine(self.network || spec.network);
        let jail = Jail::with_extra(Level::Workspace, &confine, spec.root, &extra)
            .map_err(NotContained)?;
        let view = self.view(spec, &extra, &jail, home);
        let mut env: Vec<(String, OsString)> = caches
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone().into_os_string()))
            .collect();
        env.extend(jail.env.iter().map(|(k, v)| (k.clone(), v.clone().into())));
        Ok(HookJail {
            jail,
            own_tmp: None,
            env,
            view,
            root: spec.root.to_path_buf(),
            protected: self.protected.clone().unwrap_or_default(),
            put_back: Default::default(),
            after,
        })
    }

    /// git-clada's hook caches that exist or could be made: (variable, folder).
    fn caches(&self) -> Vec<(&'static str, PathBuf)> {
        let Some(base) = &self.cache else {
            return Vec::new();
        };
        CACHES
            .iter()
            .map(|(var, dir)| (*var, base.join(dir)))
            .filter(|(_, d)| std::fs::create_dir_all(d).is_ok())
            .collect()
    }

    /// The grants of one run beyond the level's.
    fn extra(&self, spec: &Spec<'_>, home: Option<&Path>, caches: &[(&str, PathBuf)]) -> Extra {
        let path = std::env::var_os("PATH").unwrap_or_default();
        let mut run = grants::path_grants(&path, home);
        if let Some(prog) = spec.program {
            let progs = grants::interpreters(prog, &path);
            run.extend(grants::program_grants(&progs, home));
            if let Some(dir) = prog.parent().filter(|d| !d.starts_with(spec.root)) {
                if grants::acceptable(dir, home) {
                    run.push(dir.to_path_buf());
                }
            }
        }
        let mut read = self.config_files.clone();
        read.extend(grants::husky_dir(home));
        // git-clada's own hook (`git-clada check --staged`) reads the user's settings.
        read.extend(self.user_file.clone());
        let overlay = match (&spec.overlay, &spec.overlay_off) {
            (Some(hide), None) => overlays(&self.git_dirs, hide),
            _ => Vec::new(),
        };
        Extra {
            run,
            read,
            write: caches.iter().map(|(_, d)| d.clone()).collect(),
            overlay,
        }
    }

    /// What the run can reach, for judging its failure.
    fn view(
        &self,
        spec: &Spec<'_>,
        extra: &Extra,
        jail: &Jail,
        home: Option<PathBuf>,
    ) -> judge::View {
        let overlaid = matches!(jail.overlay, Some(Ok(())));
        let mut writable: Vec<PathBuf> = vec![spec.root.to_path_buf(), "/dev/shm".into()];
        writable.extend(jail.tmp().map(Path::to_path_buf));
        writable.extend(extra.write.iter().cloned());
        writable.extend(self.write.iter().cloned());
        if overlaid {
            writable.extend(extra.overlay.iter().map(|o| o.dir.clone()));
        }
        let mut readable: Vec<PathBuf> = confine::SYSTEM_DIRS
            .iter()
            .chain(["/etc", "/proc", "/sys", "/dev"].iter())
            .map(PathBuf::from)
            .collect();
        readable.extend(confine::git_config_files());
        readable.extend(self.git_dirs.iter().cloned());
        readable.extend(self.read.iter().cloned());
        readable.extend(extra.run.iter().cloned());
        readable.extend(extra.read.iter().cloned());
        readable.extend(writable.iter().cloned());
        judge::View {
            readable,
            writable,
            git_dirs: self.git_dirs.clone(),
            git_read_only: match (&jail.overlay, &spec.overlay_off) {
                (_, Some(why)) if spec.overlay.is_some() => Some(why.clone()),
                (Some(Err(why)), _) => Some(why.clone()),
                _ => None,
            },
            home,
            user_file: self.user_file.clone(),
        }
    }

    /// The warning an apply carries when hooks run unconfined by the user's choice.
    pub fn unconfined_warning(&self) -> Option<String> {
        self.unconfined.as_ref().map(|source| {
            format!(
                "hooks ran without the OS sandbox (hooks.sandbox: off in {source}): code the \
                 reply wrote ran as you"
            )
        })
    }
}

/// The overlays for `git_dirs` (the outermost of nested ones), hiding `hide`.
fn overlays(git_dirs: &[PathBuf], hide: &[PathBuf]) -> Vec<OverlayDir> {
    let mut dirs: Vec<&PathBuf> = git_dirs
        .iter()
        .filter(|d| !git_dirs.iter().any(|o| o != *d && d.starts_with(o)))
        .collect();
    dirs.dedup();
    dirs.into_iter()
        .map(|d| OverlayDir {
            dir: d.clone(),
            hide: hide
                .iter()
                .filter_map(|h| h.strip_prefix(d).ok().map(Path::to_path_buf))
                .collect(),
        })
        .collect()
}

/// One hook's sandbox, ready to run it; dropping it deletes its private folder and layers.
pub struct HookJail {
    jail: Jail,
    /// The private folder of an unconfined run (a confined one has the jail's).
    own_tmp: Option<tempfile::TempDir>,
    env: Vec<(String, OsString)>,
    view: judge::View,
    /// The worktree, and what the run may not change there, and what its runs changed of it
    /// (put back).
    root: PathBuf,
    protected: std::sync::Arc<crate::sandbox::protected::Protected>,
    put_back: std::cell::RefCell<Vec<super::protect::PutBack>>,
    after: AfterStep,
}

/// What is looked at after each run: setuid and setgid bits and file capabilities left in
/// the worktree are cleared, and said in [`HookPolicy::findings`].
struct AfterStep {
    root: PathBuf,
    git_dirs: Vec<PathBuf>,
    findings: Findings,
}

impl AfterStep {
    fn check(&self, who: &str, started: std::time::SystemTime) {
        let cleared = super::modes::clear_privileges(&self.root, &self.git_dirs, started);
        self.findings.push(cleared.warnings(who));
    }
}

impl HookJail {
    fn unconfined(
        home: Option<PathBuf>,
        user_file: Option<PathBuf>,
        env: &[String],
        after: AfterStep,
    ) -> Result<HookJail, NotContained> {
        let tmp = tempfile::Builder::new()
            .prefix("git-clada-hook-")
            .tempdir()
            .map_err(|e| NotContained(format!("cannot create a temporary folder: {e}")))?;
        Ok(HookJail {
            jail: Jail::off().with_env_rules(env),
            env: Vec::new(),
            own_tmp: Some(tmp),
            view: judge::View {
                home,
                user_file,
                ..Default::default()
            },
            root: PathBuf::new(),
            protected: Default::default(),
            put_back: Default::default(),
            after,
        })
    }

    /// Whether the run is confined.
    pub fn confined(&self) -> bool {
        self.jail.level != Level::Off
    }

    /// The private folder (`TMPDIR` when confined): where the caller puts the hook's index,
    /// message and object quarantine.
    pub fn tmp(&self) -> &Path {
        match &self.own_tmp {
            Some(t) => t.path(),
            None => self.jail.tmp().unwrap_or(Path::new("/tmp")),
        }
    }

    /// Why the git directories were read-only rather than overlaid, when they were.
    pub fn git_read_only(&self) -> Option<&str> {
        self.view.git_read_only.as_deref()
    }

    /// Whether the git directories are behind overlays.
    pub fn overlaid(&self) -> bool {
        matches!(self.jail.overlay, Some(Ok(())))
    }

    /// Runs `program` with `args` in `cwd` with `env` added, stdout and stderr in one stream
    /// (as the hook wrote them, in `stdout`), within `timeout`.
    pub fn run(
        &self,
        program: &Path,
        args: &[OsString],
        cwd: &Path,
        env: &[(String, OsString)],
        limits: Limits<'_>,
    ) -> ExecOutput {
        let prog = program.to_string_lossy().into_owned();
        let args: Vec<String> = args
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        let jail = &self.jail;
        let guard = self.guard();
        let started = std::time::SystemTime::now();
        super::notices::started(self.confined());
        let run = super::spawn::spawn_and_wait(&prog, &args, cwd, limits, None, jail, &|cmd| {
            for (k, v) in self.env.iter().chain(env) {
                cmd.env(k, v);
            }
            merge_stderr(cmd);
        });
        self.compare(guard, &run.output);
        let name = program.file_name().unwrap_or(program.as_os_str());
        self.after
            .check(&format!("the hook {}", name.to_string_lossy()), started);
        run.output
    }

    /// The protected set as it is before a confined run.
    fn guard(&self) -> Option<super::protect::Snapshot> {
        self.confined()
            .then(|| super::protect::Snapshot::take(&self.root, &self.protected))
    }

    /// Puts back what a run changed of the protected set, and remembers it (or, when it
    /// changed nothing, a write to it the sandbox refused, as `out` names it).
    fn compare(&self, guard: Option<super::protect::Snapshot>, out: &ExecOutput) {
        let Some(g) = guard else {
            return;
        };
        let mut back = g.put_back();
        if back.is_empty() {
            let text = format!("{}\n{}", out.stdout, out.stderr);
            back.extend(super::protect::refused_entry(
                &text,
                &self.root,
                &self.protected,
            ));
        }
        self.put_back.borrow_mut().extend(back);
    }

    /// What the runs so far changed of the protected set (each put back, or said not to be).
    pub fn put_back(&self) -> Vec<super::protect::PutBack> {
        self.put_back.borrow().clone()
    }

    /// Runs `script` with `sh -c` in `cwd` with `env` added (the configured hooks; their
    /// stdout and stderr apart).
    pub fn run_shell(
        &self,
        script: &str,
        cwd: &Path,
        env: &[(String, OsString)],
        limits: Limits<'_>,
    ) -> ExecOutput {
        let args = vec!["-c".to_string(), script.to_string()];
        let jail = &self.jail;
        let guard = self.guard();
        let started = std::time::SystemTime::now();
        super::notices::started(self.confined());
        let run = super::spawn::spawn_and_wait("sh", &args, cwd, limits, None, jail, &|cmd| {
            for (k, v) in self.env.iter().chain(env) {
                cmd.env(k, v);
            }
        });
        self.compare(guard, &run.output);
        self.after.check(&format!("the hook `{script}`"), started);
        run.output
    }

    /// What only the user can do about a run: it changed the protected set (whatever its
    /// exit), or it failed and the failure is the sandbox's.
    pub fn needs_user(&self, out: &ExecOutput) -> Option<String> {
        if let Some(how) = put_back_how(&self.put_back.borrow()) {
            return Some(how);
        }
        if !self.confined() || out.success() {
            return None;
        }
        let text = format!("{}\n{}", out.stdout, out.stderr);
        judge::needs_user(&text, &self.view)
    }
}

/// What the user is told when a contained run changed the protected set: what was put back,
/// and their way on. `None` when it changed nothing of it.
pub fn put_back_how(put_back: &[super::protect::PutBack]) -> Option<String> {
    if put_back.is_empty() {
        return None;
    }
    let named: Vec<String> = put_back.iter().map(|p| p.describe()).collect();
    Some(format!(
        "it changed what your own next `git commit` or `git status` runs, which nothing a reply \
         makes run may change, and it was put back: {}. Nothing was committed; the AI's changes \
         stay pending. If the change is wanted, make it yourself (run the tool yourself, e.g. \
         `npx husky init`), or set paths.protect_hooks: false in your own configuration; then \
         `git clada commit` commits the pending changes (`git clada undo` takes them back)",
        clada_base::term::escape(&named.join(", "), clada_base::term::Rule::Name)
    ))
}

/// Makes the child's stderr the same pipe as its stdout, so one stream keeps the order the
/// hook wrote in.
fn merge_stderr(cmd: &mut std::process::Command) {
    use std::os::unix::process::CommandExt;
    // SAFETY: dup2 is async-signal-safe and touches only the child's descriptors.
    unsafe {
        cmd.pre_exec(|| {
            if libc::dup2(1, 2) < 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}
