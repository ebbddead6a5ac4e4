//! The OS sandbox for everything exec and hooks start (DESIGN §5.2): Linux Landlock for the
//! filesystem and TCP, a seccomp filter for every other socket, a read-only bind mount for
//! `.git`, and the child's death with git-clada.
//!
//! Levels ([`Level`]):
//! - `read-only` — the read-only list runs here and only here: reads limited to the worktree
//!   (and its git directory), the system's program and library folders, a short list of
//!   `/etc` files programs need to start, and a few devices; writes only to `/dev/null` and a
//!   private temporary directory (`TMPDIR`); nothing is executed from the worktree; no network.
//!   Never `$HOME` (unless the worktree is there, and then only the worktree).
//! - `workspace` — approved exec blocks by default, and every hook (`hook_sandbox`): reads as
//!   above plus `/etc` but [`ETC_SECRETS`], `/proc`, `/sys`, the user's git configuration
//!   files ([`git_config_files`]) and the configuration's `sandbox.read`; writes in the worktree
//!   except `.git`, the private temporary directory, `/dev/shm` and `sandbox.write`; no network.
//! - `off` — no confinement (the user's own choice, `sandbox.level: off`; for hooks
//!   `hooks.sandbox: off`).
//!
//! Network: without `sandbox.network`, Landlock refuses every TCP bind and connect, and a
//! seccomp filter makes `socket(2)` fail for every family (IPv4, IPv6, UDP, raw, netlink, Unix
//! sockets by name) and `io_uring_setup(2)` fail (io_uring can open sockets past the filter);
//! `socketpair(2)` and pipes still work. Landlock's scopes (ABI 6) keep signals and abstract
//! Unix sockets inside the sandbox.
//!
//! Git directories at `workspace`: Landlock only grants, so a write right on the worktree
//! covers its `.git`. The child therefore enters its own mount namespace (in a user namespace
//! of its own unless it may make one alone: root) and bind-mounts read-only over themselves
//! `.git` and every git directory and common directory of the repository inside the
//! worktree, under any name (`--separate-git-dir`, a `.git` file
//! pointing inside, the dotfiles `GIT_DIR=$PWD/.dotfiles` pattern), before Landlock is applied
//! (Landlock then forbids changing mounts). Where user namespaces are not allowed, the write
//! rights go to each entry beside them instead, walking down the folders that lead to one —
//! then entries directly in those folders cannot be created, removed or renamed, and the exec
//! result says so when it fails. Symbolic links among those entries get no rule (opening one
//! to grant it would grant its target: `docs -> /outside`, `self -> .`).
//!
//! Everything the child does between fork and exec is prepared here first (the ruleset's file
//! descriptor, the filter, the namespace files as C strings), so the child only makes system
//! calls: no allocation, no locks (`pre_exec`'s async-signal-safety rule).
//!
//! Where the kernel has no Landlock (or `sandbox.landlock: false` says to act as if, or the
//! build is the platform seam's portable side), exec blocks are refused
//! ([`Confine::refusal`]) unless the user's own `sandbox.level: off` runs them unconfined, with
//! a warning on their result — never silently.

use std::path::{Path, PathBuf};

/// How far a spawned process is confined. Ordered from the loosest to the strictest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub enum Level {
    Off,
    #[default]
    Workspace,
    ReadOnly,
}

impl Level {
    pub fn name(self) -> &'static str {
        match self {
            Level::Off => "off",
            Level::Workspace => "workspace",
            Level::ReadOnly => "read-only",
        }
    }

    pub fn parse(s: &str) -> Option<Level> {
        Some(match s {
            "off" => Level::Off,
            "workspace" => Level::Workspace,
            "read-only" => Level::ReadOnly,
            _ => return None,
        })
    }
}

/// The sandbox settings of one apply (from the configuration).
#[derive(Debug, Clone, Default)]
pub struct Confine {
    /// For approved exec blocks and hooks (the read-only list always runs at `read-only`).
    pub level: Level,
    /// Allow network access at `workspace` (`sandbox.network`).
    pub network: bool,
    /// Extra folders readable at `workspace` (`sandbox.read`).
    pub read: Vec<PathBuf>,
    /// Extra folders writable at `workspace` (`sandbox.write`).
    pub write: Vec<PathBuf>,
    /// Set when the configuration says to act as if the kernel had no Landlock
    /// (`sandbox.landlock: false`): the reason shown.
    pub disabled: Option<String>,
    /// The repository's git directory (and common directory for a linked worktree): readable
    /// at both levels, and what read-only git commands are pinned to. `None` without git.
    pub git_dirs: Vec<PathBuf>,
    /// The user's `sandbox.env` rules (`exec/env.rs`).
    pub env: Vec<String>,
    /// What no workspace process may change (`sandbox::protected`): its existing entries are
    /// read-only (mounted so with namespaces; without, those at the worktree root are left
    /// out of the grants), the rest is put back after the step (`exec/protect.rs`).
    pub protected: std::sync::Arc<crate::sandbox::protected::Protected>,
}

/// Whether the OS sandbox can be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Availability {
    Landlock { abi: i32 },
    Unavailable(String),
}

impl Availability {
    pub fn available(&self) -> bool {
        matches!(self, Availability::Landlock { .. })
    }

    /// One line for `git clada config` and warnings.
    pub fn describe(&self) -> String {
        match self {
            Availability::Landlock { abi } => format!("Landlock ABI {abi}"),
            Availability::Unavailable(why) => format!("unavailable ({why})"),
        }
    }
}

impl Confine {
    /// From the effective configuration; `git_dirs` from the repository (empty without git).
    pub fn from_config(cfg: &crate::config::Config, git_dirs: Vec<PathBuf>) -> Confine {
        use crate::config::SandboxLevel;
        Confine {
            level: match cfg.sandbox_level.value {
                SandboxLevel::Off => Level::Off,
                SandboxLevel::Workspace => Level::Workspace,
                SandboxLevel::ReadOnly => Level::ReadOnly,
            },
            network: cfg.sandbox_network.value,
            read: cfg.sandbox_read.value.clone(),
            write: cfg.sandbox_write.value.clone(),
            disabled: (!cfg.sandbox_landlock.value).then(|| {
                format!(
                    "sandbox.landlock is false in {}",
                    cfg.sandbox_landlock.source
                )
            }),
            git_dirs,
            env: cfg.sandbox_env.value.clone(),
            protected: Default::default(),
        }
    }

    /// Whether the sandbox can be used for this configuration.
    pub fn availability(&self) -> Availability {
        match &self.disabled {
            Some(why) => Availability::Unavailable(why.clone()),
            None => kernel_availability().clone(),
        }
    }

    /// Why exec blocks are refused here: the OS sandbox is unavailable, and the user's own
    /// configuration did not say `sandbox.level: off` (no sandbox, no unconfined code:
    /// docs/platforms.md). `None` where they may run.
    pub fn refusal(&self) -> Option<String> {
        if self.level == Level::Off {
            return None;
        }
        match self.availability() {
            Availability::Unavailable(why) => Some(format!(
                "the OS sandbox is unavailable ({why}), and git-clada runs exec blocks only \
                 inside it"
            )),
            Availability::Landlock { .. } => None,
        }
    }

    /// The git directory read-only git commands are pinned to.
    pub fn git_dir(&self) -> Option<&Path> {
        self.git_dirs.first().map(PathBuf::as_path)
    }
}

/// What one spawn adds to its level's grants: a hook's (docs/hooks-sandbox.md). Only at
/// `workspace`.
#[derive(Debug, Clone, Default)]
pub struct Extra {
    /// Readable and executable.
    pub run: Vec<PathBuf>,
    /// Readable.
    pub read: Vec<PathBuf>,
    /// Writable.
    pub write: Vec<PathBuf>,
    /// Folders (git directories) mounted as overlays: the process writes them freely, its
    /// writes go to an upper layer git-clada deletes with the jail. Where overlays cannot be
    /// mounted they stay read-only ([`Jail::overlay`] says why).
    pub overlay: Vec<OverlayDir>,
}

/// A folder behind a discarded overlay, and the entries in it the process must not see
/// (relative: git-clada's own `index.lock`, which it keeps holding).
#[derive(Debug, Clone)]
pub struct OverlayDir {
    pub dir: PathBuf,
    pub hide: Vec<PathBuf>,
}

/// Whether a mount namespace for the read-only view (`exec/view.rs`) can be made here: where
/// it cannot, the read-only list runs only git without asking (`policy`).
pub fn view_available() -> bool {
    sys::view_works()
}

/// What the kernel offers (asked once per process).
pub fn kernel_availability() -> &'static Availability {
    static CACHE: std::sync::OnceLock<Availability> = std::sync::OnceLock::new();
    CACHE.get_or_init(sys::probe)
}

/// Everything a spawn needs from the sandbox, prepared before the fork: the environment to
/// set and the steps for the child. Dropping it removes the private temporary directory.
pub struct Jail {
    pub level: Level,
    pub env: Vec<(String, PathBuf)>,
    child: sys::ChildPlan,
    /// A note for the result (how `.git` is protected where that limits the command).
    pub note: Option<String>,
    /// When [`Extra::overlay`] asked for overlays: `Ok` when they are mounted, else why they
    /// are not (the folders are read-only instead).
    pub overlay: Option<Result<(), String>>,
    _tmp: Option<tempfile::TempDir>,
    /// The user's `sandbox.env` rules, and whether only the core variables pass (the
    /// read-only list): `exec/env.rs`.
    env_rules: Vec<String>,
    core_env: bool,
    /// The overlays' upper layers, apart from `TMPDIR` (the process cannot reach them).
    _layers: Option<tempfile::TempDir>,
    /// The empty folder and file of the read-only view, apart from `TMPDIR` too.
    _view: Option<tempfile::TempDir>,
}

impl Jail {
    /// No confinement, but still a child that dies with git-clada.
    pub fn off() -> Jail {
        Jail {
            level: Level::Off,
            env: Vec::new(),
            child: sys::ChildPlan::unconfined(),
            note: None,
            overlay: None,
            _tmp: None,
            env_rules: Vec::new(),
            core_env: false,
            _layers: None,
            _view: None,
        }
    }

    /// The user's `sandbox.env` rules for this jail's environment.
    pub fn with_env_rules(mut self, rules: &[String]) -> Jail {
        self.env_rules = rules.to_vec();
        self
    }

    /// Only the core variables (`PATH`, `HOME`, `LANG`, `LC_*`, `TERM`, `TMPDIR`): for the
    /// read-only list, whose output goes to the model unasked.
    pub fn core_env_only(mut self) -> Jail {
        self.core_env = true;
        self
    }

    /// The sandbox at `level` for a process working in the worktree `root`. `Err` says why it
    /// cannot be set up (the caller refuses to run, it never runs unconfined instead).
    pub fn new(level: Level, confine: &Confine, root: &Path) -> Result<Jail, String> {
        Jail::with_extra(level, confine, root, &Extra::default())
    }

    /// [`Jail::new`] with `extra` grants (at `workspace` only; ignored at `read-only`).
    pub fn with_extra(
        level: Level,
        confine: &Confine,
        root: &Path,
        extra: &Extra,
    ) -> Result<Jail, String> {
        if level == Level::Off {
            return Ok(Jail::off());
        }
        if let Availability::Unavailable(why) = confine.availability() {
            return Err(format!("the OS sandbox is unavailable: {why}"));
        }
        let temp = |prefix: &str| {
            tempfile::Builder::new()
                .prefix(prefix)
                .tempdir()
                .map_err(|e| format!("cannot create the sandbox's temporary directory: {e}"))
        };
        let tmp = temp("git-clada-sandbox-")?;
        let layers = match extra.overlay.is_empty() || level != Level::Workspace {
            true => None,
            false => Some(temp("git-clada-overlay-")?),
        };
        let plan = sys::plan(
            level,
            confine,
            root,
            tmp.path(),
            extra,
            layers.as_ref().map(tempfile::TempDir::path),
        )?;
        let tmp_path = tmp.path().to_path_buf();
        Ok(Jail {
            level,
            env: ["TMPDIR", "TMP", "TEMP"]
                .iter()
                .map(|k| (k.to_string(), tmp_path.clone()))
                .collect(),
            note: plan.note.clone(),
            overlay: plan.overlay.clone(),
            child: plan,
            _tmp: Some(tmp),
            env_rules: confine.env.clone(),
            core_env: false,
            _layers: layers,
            _view: None,
        })
    }

    /// Hides the entries of `view` from the process (the read-only view, `exec/view.rs`): an
    /// empty read-only folder or file is mounted over each in its own mount namespace. For a
    /// `read-only` jail; `Err` says why the view cannot be made (then nothing runs).
    pub(crate) fn hiding(mut self, view: &super::view::View) -> Result<Jail, String> {
        let scratch = tempfile::Builder::new()
            .prefix("git-clada-view-")
            .tempdir()
            .map_err(|e| format!("cannot create the read-only view's folder: {e}"))?;
        self.child.hide(view, scratch.path())?;
        self._view = Some(scratch);
        Ok(self)
    }

    /// The private temporary directory (`TMPDIR`), when confined.
    pub fn tmp(&self) -> Option<&Path> {
        self._tmp.as_ref().map(tempfile::TempDir::path)
    }

    /// Sets the environment and the child's steps on `cmd`.
    pub fn install(&self, cmd: &mut std::process::Command) {
        self.set_env(cmd);
        self.child.install(cmd, false);
    }

    /// git-clada's environment filtered (`exec/env.rs`), then the jail's own variables.
    fn set_env(&self, cmd: &mut std::process::Command) {
        cmd.env_clear();
        cmd.envs(super::env::filtered(self.core_env, &self.env_rules));
        for (k, v) in &self.env {
            cmd.env(k, v);
        }
    }

    /// [`Jail::install`] for a `cmd` that starts the block's init (`exec/init.rs`): the
    /// Landlock ruleset is left to the init, which applies it in the program's child; its
    /// descriptor number is returned for the init's arguments.
    pub(crate) fn install_for_init(&self, cmd: &mut std::process::Command) -> Option<i32> {
        self.set_env(cmd);
        self.child.install(cmd, true);
        self.child.landlock_fd()
    }
}

/// Said on a failed exec result that ran confined, so the model can tell a refusal of the
/// sandbox from a bug in its code.
pub fn failure_note(level: Level, confine: &Confine) -> String {
    match level {
        Level::ReadOnly => "ran in the read-only OS sandbox (reads only in the worktree and the \
                           system's folders, writes only to $TMPDIR, no network)"
            .to_string(),
        _ => format!(
            "ran in the workspace OS sandbox: writes only inside the worktree (not .git) and \
             $TMPDIR, reads outside the worktree only in the system's folders{}, {}; a \
             'Permission denied' or 'Read-only file system' there is the sandbox — the user can \
             widen it (sandbox.read, sandbox.write, sandbox.network, sandbox.level)",
            if confine.read.is_empty() {
                ""
            } else {
                " and sandbox.read"
            },
            if confine.network {
                "network allowed"
            } else {
                "no network"
            }
        ),
    }
}

/// The folders programs are started from and load libraries from: readable and executable at
/// both levels.
pub(crate) const SYSTEM_DIRS: &[&str] = &[
    "/usr",
    "/bin",
    "/sbin",
    "/lib",
    "/lib32",
    "/lib64",
    "/libx32",
    "/opt",
    "/nix/store",
];

/// The `/etc` files programs need to start and to name users and times: readable at
/// `read-only` (which gets no more of `/etc`: it holds secrets some systems keep there).
// Read by the Linux side of the platform seam only.
#[allow(dead_code)]
const ETC_FILES: &[&str] = &[
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/ld.so.preload",
    "/etc/passwd",
    "/etc/group",
    "/etc/nsswitch.conf",
    "/etc/localtime",
    "/etc/timezone",
    "/etc/magic",
    "/etc/magic.mime",
    "/etc/locale.alias",
    "/etc/terminfo",
];

/// The files of `/etc` no sandboxed process reads (workspace reads the rest of `/etc`).
pub(crate) const ETC_SECRETS: &[&str] = &[
    "shadow",
    "shadow-",
    "gshadow",
    "gshadow-",
    "sudoers",
    "sudoers.d",
    "ssh",
    "ssl/private",
    "krb5.keytab",
    "security",
    "libaudit.conf",
    "credstore",
    "credstore.encrypted",
];

/// The user's own git configuration, readable at `workspace` (git refuses to run when its
/// global configuration exists but cannot be read, so approved commands that run git — a
/// test suite, a build script — need it; it names the user, not secrets: credentials live
/// in other files, which stay closed).
pub(crate) fn git_config_files() -> Vec<PathBuf> {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let xdg = std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| home.as_ref().map(|h| h.join(".config")));
    let mut out: Vec<PathBuf> = home.iter().map(|h| h.join(".gitconfig")).collect();
    out.extend(xdg.map(|x| x.join("git").join("config")));
    out.extend(xdg_ignore(&out));
    out
}

/// git's global ignore and attributes files beside its XDG config.
fn xdg_ignore(files: &[PathBuf]) -> Vec<PathBuf> {
    files
        .iter()
        .filter(|f| f.ends_with("git/config"))
        .filter_map(|f| f.parent())
        .flat_map(|d| [d.join("ignore"), d.join("attributes")])
        .collect()
}

/// Devices readable at both levels (`/dev/null` is writable too).
// Read by the Linux side of the platform seam only.
#[allow(dead_code)]
pub(crate) const DEVICES: &[&str] = &["/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"];

clada_base::linux! {
    #[path = "confine_linux.rs"]
    mod sys;
}

clada_base::portable! {
    mod sys {
        //! No OS sandbox on the portable side of the platform seam: exec blocks are refused
        //! (`Confine::refusal`) and hooks wait, unless the user's own configuration turns the
        //! sandbox off.
        use super::*;

        pub(super) fn probe() -> Availability {
            Availability::Unavailable(
                "this build has no OS sandbox: Landlock and namespaces are Linux's, and this is \
                 the portable side (docs/platforms.md)"
                    .into(),
            )
        }

        pub(super) struct ChildPlan {
            pub note: Option<String>,
            pub overlay: Option<Result<(), String>>,
        }

        impl ChildPlan {
            pub fn unconfined() -> ChildPlan {
                ChildPlan {
                    note: None,
                    overlay: None,
                }
            }
            pub fn install(&self, _cmd: &mut std::process::Command, _defer: bool) {}
            pub fn landlock_fd(&self) -> Option<i32> {
                None
            }
            pub fn hide(&mut self, _: &crate::exec::view::View, _: &Path) -> Result<(), String> {
                Err("the read-only view exists only on Linux".into())
            }
        }

        pub(super) fn view_works() -> bool {
            false
        }

        pub(super) fn plan(
            _: Level,
            _: &Confine,
            _: &Path,
            _: &Path,
            _: &Extra,
            _: Option<&Path>,
        ) -> Result<ChildPlan, String> {
            Err("the OS sandbox is unavailable on this system".into())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_order_from_loose_to_strict() {
        assert!(Level::Off < Level::Workspace && Level::Workspace < Level::ReadOnly);
        for l in [Level::Off, Level::Workspace, Level::ReadOnly] {
            assert_eq!(Level::parse(l.name()), Some(l));
        }
        assert_eq!(Level::parse("none"), None);
    }

    #[test]
    fn a_disabled_sandbox_is_unavailable_and_refuses_to_confine() {
        let c = Confine {
            disabled: Some("sandbox.landlock is false".into()),
            ..Confine::default()
        };
        assert!(!c.availability().available());
        let dir = tempfile::tempdir().unwrap();
        let e = Jail::new(Level::ReadOnly, &c, dir.path()).err().unwrap();
        assert!(e.contains("sandbox.landlock is false"), "{e}");
        assert_eq!(
            Jail::new(Level::Off, &c, dir.path()).unwrap().level,
            Level::Off
        );
    }
}

#[cfg(test)]
mod env_tests {
    use super::*;

    /// The read-only list's processes see only the core variables (cargo's `CARGO_*`, set for
    /// this test process, do not reach them).
    #[test]
    fn the_read_only_list_gets_only_the_core_variables() {
        if !kernel_availability().available() || std::env::var_os("CARGO_MANIFEST_DIR").is_none() {
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let c = Confine::default();
        let jail = Jail::new(Level::ReadOnly, &c, dir.path())
            .unwrap()
            .core_env_only();
        let mut cmd = std::process::Command::new("env");
        cmd.current_dir(dir.path());
        jail.install(&mut cmd);
        let out = cmd.output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("PATH=") && text.contains("TMPDIR="), "{text}");
        assert!(!text.contains("CARGO_"), "{text}");
        let jail = Jail::new(Level::Workspace, &c, dir.path()).unwrap();
        let mut cmd = std::process::Command::new("env");
        cmd.current_dir(dir.path());
        jail.install(&mut cmd);
        let text = String::from_utf8_lossy(&cmd.output().unwrap().stdout).into_owned();
        assert!(text.contains("CARGO_MANIFEST_DIR="), "{text}");
    }
}
