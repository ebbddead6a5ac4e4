//! Configuration (DESIGN §9): the repository's `.clada.yml` (committed, shared by the team),
//! the user's `<config dir>/clada/config.yml` (`directories`; `$XDG_CONFIG_HOME` or
//! `~/.config` on Linux), and the `clada.*` git config keys git users expect (`clada.author`,
//! `clada.coauthor`), merged into one [`Config`] that remembers where each value came from.
//!
//! Merge rules, per key (docs/configuration.md documents the same table):
//! - project keys (how the repository is worked on: `wip`, `hooks.rollback_on_failure`,
//!   `files`, `check`) — the repository's file wins over the user's;
//! - personal keys (`commit.*`, `clipboard.*`, `color`) — the user's file wins over the
//!   repository's, and git config (`clada.author`, `clada.coauthor`) wins over both;
//! - guarded keys (what decides which code runs and what it may reach: `exec`, the limits,
//!   `hooks`, `paths`, `sandbox`) — a repository's file can only tighten them ([`trust`]):
//!   what would loosen the user's settings (`exec: allow`, a longer limit, a lower sandbox
//!   level, network, extra folders, hooks) takes effect only once the user trusted that exact
//!   version of `.clada.yml` (`git clada config --trust` keeps a copy in the git directory,
//!   which is never cloned or committed); until then it is ignored and named in
//!   [`Config::untrusted`]. Deny lists are united, never replaced. `exec` is the stricter of
//!   the two files even when trusted; `--exec` overrides both.
//!
//! Unknown keys, wrong types, bad YAML and numbers out of range (durations over
//! [`MAX_DURATION`], sizes over [`MAX_SIZE`]: no deadline or buffer computed from a setting
//! can overflow) are errors naming the file, line and column. The repository's file is read
//! only as a regular file of at most [`FILE_LIMIT`] bytes ([`read_repo_file`]); the user's may
//! be a link.

pub mod editorconfig;
mod trust;

pub use trust::trusted_copy;

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::{Deserialize, Serialize};

mod values;
pub use values::*;

/// The repository's configuration file, at the worktree root.
pub const REPO_FILE: &str = ".clada.yml";

/// An error in a configuration file, with its position.
#[derive(Debug, thiserror::Error)]
#[error("{file}{at}: {message} (fix the configuration file; `git clada config` shows the effective values)", at = position(*line, *column))]
pub struct ConfigError {
    pub file: PathBuf,
    /// 1-based; `None` when the problem has no position (unreadable file).
    pub line: Option<usize>,
    pub column: Option<usize>,
    pub message: String,
}

fn position(line: Option<usize>, column: Option<usize>) -> String {
    match (line, column) {
        (Some(l), Some(c)) => format!(":{l}:{c}"),
        (Some(l), None) => format!(":{l}"),
        _ => String::new(),
    }
}

/// `exec` policy names (the `--exec` values).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ExecSetting {
    Ask,
    Allow,
    Deny,
}

impl ExecSetting {
    fn strictness(self) -> u8 {
        match self {
            ExecSetting::Allow => 0,
            ExecSetting::Ask => 1,
            ExecSetting::Deny => 2,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            ExecSetting::Ask => "ask",
            ExecSetting::Allow => "allow",
            ExecSetting::Deny => "deny",
        }
    }
}

/// `sandbox.level`: how far approved exec blocks and hooks are confined (mirrors
/// `crate::exec::confine::Level`, which is above this layer).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SandboxLevel {
    Off,
    Workspace,
    ReadOnly,
}

impl SandboxLevel {
    pub fn name(self) -> &'static str {
        match self {
            SandboxLevel::Off => "off",
            SandboxLevel::Workspace => "workspace",
            SandboxLevel::ReadOnly => "read-only",
        }
    }
}

/// `hooks.sandbox`: how hooks run (docs/hooks-sandbox.md). Only the user's own file sets it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum HookSandbox {
    /// In the `workspace` sandbox, whatever `sandbox.level` says.
    Workspace,
    /// Unconfined: code the reply wrote runs as the user.
    Off,
}

impl HookSandbox {
    pub fn name(self) -> &'static str {
        match self {
            HookSandbox::Workspace => "workspace",
            HookSandbox::Off => "off",
        }
    }
}

/// `wip` modes (the `--wip` values).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum WipSetting {
    Keep,
    Commit,
}

/// `agent.commit`: when an agent's own edits (`git clada agent-hook`) become AI commits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum AgentCommit {
    /// One AI commit at the end of each turn.
    Turn,
    /// One AI commit per tool call, without git's commit hooks.
    Edit,
    /// Never: the lines stay attributed until someone commits them.
    None,
}

/// `agent.subject`: what the subject of an agent's turn commit says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum AgentSubject {
    /// What changed: `AI: edit a, create b (+n more)`.
    Files,
    /// The first line of the user's prompt (the user's own file only: a repository's cannot
    /// put prompts into commits).
    Prompt,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct AgentLayer {
    commit: Option<AgentCommit>,
    subject: Option<AgentSubject>,
}

/// `color` preference.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ColorSetting {
    Auto,
    Always,
    Never,
}

/// A command run around an apply (`hooks.before` / `hooks.after`): a string, or a map with
/// `run` and options (reference §9's `Command`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HookCommand {
    pub run: String,
    /// Later commands still run after this one fails (it is still a failed step).
    pub continue_on_error: bool,
    /// Overrides `timeout` for this command.
    pub timeout: Option<Duration>,
    /// Working directory relative to the worktree root.
    pub cwd: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct HookCommandMap {
    run: String,
    #[serde(default)]
    continue_on_error: bool,
    #[serde(default, deserialize_with = "opt_duration")]
    timeout: Option<Duration>,
    #[serde(default)]
    cwd: Option<String>,
}

impl<'de> Deserialize<'de> for HookCommand {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = HookCommand;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a command line, or a map with `run` (and optionally `continue_on_error`, `timeout`, `cwd`)")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<HookCommand, E> {
                Ok(HookCommand {
                    run: s.to_string(),
                    continue_on_error: false,
                    timeout: None,
                    cwd: None,
                })
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<HookCommand, A::Error> {
                let m = HookCommandMap::deserialize(de::value::MapAccessDeserializer::new(map))?;
                Ok(HookCommand {
                    run: m.run,
                    continue_on_error: m.continue_on_error,
                    timeout: m.timeout,
                    cwd: m.cwd,
                })
            }
        }
        d.deserialize_any(V)
    }
}

/// The longest duration any setting takes (`timeout`, `total_timeout`, a hook's `timeout`,
/// `--timeout`): one day. Longer values are refused where they are read, so no deadline
/// computed from them can overflow (`Instant + Duration` panics past the clock's range).
pub const MAX_DURATION: Duration = Duration::from_secs(24 * 3600);

/// The largest `max_output` (and `--max-output`): 1 GiB per stream, kept in memory.
pub const MAX_SIZE: usize = 1024 * 1024 * 1024;

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct CommitLayer {
    author: Option<String>,
    coauthor: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct HooksLayer {
    before: Option<Vec<HookCommand>>,
    after: Option<Vec<HookCommand>>,
    rollback_on_failure: Option<bool>,
    sandbox: Option<HookSandbox>,
    network: Option<bool>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct PathsLayer {
    deny: Option<Vec<String>>,
    protect_config: Option<bool>,
    protect_hooks: Option<bool>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct SandboxLayer {
    level: Option<SandboxLevel>,
    network: Option<bool>,
    read: Option<Vec<String>>,
    write: Option<Vec<String>>,
    landlock: Option<bool>,
    env: Option<Vec<String>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct FilesLayer {
    final_newline: Option<bool>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct CheckLayer {
    allow: Option<Vec<String>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ClipboardLayer {
    copy: Option<bool>,
}

/// `provenance`: `off` (or `on`), or a map of `agent`, `model` and `log` (`on`/`off`).
#[derive(Debug, Default)]
struct ProvenanceLayer {
    log: Option<bool>,
    agent: Option<String>,
    model: Option<String>,
}

impl<'de> Deserialize<'de> for ProvenanceLayer {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Switch {
            Bool(bool),
            Word(String),
        }
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Map {
            log: Option<Switch>,
            agent: Option<String>,
            model: Option<String>,
        }
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Either {
            Switch(Switch),
            Map(Map),
        }
        fn on(s: Switch) -> Result<bool, String> {
            match s {
                Switch::Bool(b) => Ok(b),
                Switch::Word(w) if w == "on" => Ok(true),
                Switch::Word(w) if w == "off" => Ok(false),
                Switch::Word(w) => Err(format!("provenance: `{w}` is neither on nor off")),
            }
        }
        let parsed = Either::deserialize(d).map_err(|_| {
            de::Error::custom(
                "provenance is `off`, `on`, or a map of agent, model and log (on/off)",
            )
        })?;
        match parsed {
            Either::Switch(s) => Ok(ProvenanceLayer {
                log: Some(on(s).map_err(de::Error::custom)?),
                ..Default::default()
            }),
            Either::Map(m) => Ok(ProvenanceLayer {
                log: m.log.map(on).transpose().map_err(de::Error::custom)?,
                agent: m.agent,
                model: m.model,
            }),
        }
    }
}

/// One file's settings, every key optional.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Layer {
    exec: Option<ExecSetting>,
    #[serde(default, deserialize_with = "opt_duration")]
    timeout: Option<Duration>,
    #[serde(default, deserialize_with = "opt_duration")]
    total_timeout: Option<Duration>,
    #[serde(default, deserialize_with = "opt_size")]
    max_output: Option<usize>,
    wip: Option<WipSetting>,
    #[serde(default)]
    commit: CommitLayer,
    #[serde(default)]
    hooks: HooksLayer,
    #[serde(default)]
    paths: PathsLayer,
    #[serde(default)]
    files: FilesLayer,
    #[serde(default)]
    check: CheckLayer,
    #[serde(default)]
    clipboard: ClipboardLayer,
    #[serde(default)]
    sandbox: SandboxLayer,
    #[serde(default)]
    provenance: ProvenanceLayer,
    #[serde(default)]
    agent: AgentLayer,
    color: Option<ColorSetting>,
}

/// Where an effective value came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase", tag = "kind", content = "where")]
pub enum Source {
    Default,
    /// A configuration file (the repository's or the user's).
    File(PathBuf),
    /// A git config key.
    GitConfig(String),
    /// Several files together (a deny list united from both).
    Files(Vec<PathBuf>),
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::Default => f.write_str("default"),
            Source::File(p) => write!(f, "{}", p.display()),
            Source::GitConfig(k) => write!(f, "git config {k}"),
            Source::Files(ps) => {
                let names: Vec<String> = ps.iter().map(|p| p.display().to_string()).collect();
                f.write_str(&names.join(" + "))
            }
        }
    }
}

/// A value and where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Setting<T> {
    pub value: T,
    pub source: Source,
}

impl<T> Setting<T> {
    fn default(value: T) -> Self {
        Setting {
            value,
            source: Source::Default,
        }
    }
}

/// The effective configuration.
#[derive(Debug, Clone)]
pub struct Config {
    /// `None`: not configured (ask; without a terminal only approved and read-only commands
    /// run).
    pub exec: Setting<Option<ExecSetting>>,
    pub timeout: Setting<Duration>,
    pub total_timeout: Setting<Option<Duration>>,
    pub max_output: Setting<usize>,
    pub wip: Setting<WipSetting>,
    pub commit_author: Setting<Option<String>>,
    pub commit_coauthor: Setting<Option<String>>,
    pub hooks_before: Setting<Vec<HookCommand>>,
    pub hooks_after: Setting<Vec<HookCommand>>,
    pub hooks_rollback_on_failure: Setting<bool>,
    /// How hooks run (yours only: a repository's file cannot set it).
    pub hooks_sandbox: Setting<HookSandbox>,
    /// Hooks may use the network (yours only).
    pub hooks_network: Setting<bool>,
    /// Authorship logs in `refs/notes/ai` on AI commits (`provenance: off`; yours only).
    pub provenance_log: Setting<bool>,
    /// The agent and model an AI commit's log names when the command does not say (yours only).
    pub provenance_agent: Setting<Option<String>>,
    pub provenance_model: Setting<Option<String>>,
    /// When an agent's own edits become AI commits (`git clada agent-hook`).
    pub agent_commit: Setting<AgentCommit>,
    /// What an agent's turn commit's subject says (yours only).
    pub agent_subject: Setting<AgentSubject>,
    /// `sandbox.read` / `sandbox.write` as the user's own file sets them: the only extra
    /// folders hooks get (a repository's entries, trusted or not, widen exec blocks only).
    pub hooks_read: Vec<PathBuf>,
    pub hooks_write: Vec<PathBuf>,
    pub paths_deny: Setting<Vec<String>>,
    /// Refuse a reply's writes to `.clada.yml`, `.clada/` (default true).
    pub paths_protect_config: Setting<bool>,
    /// Refuse a reply's writes to hook files (`protected_hook`; yours only, default true).
    pub paths_protect_hooks: Setting<bool>,
    pub sandbox_level: Setting<SandboxLevel>,
    pub sandbox_network: Setting<bool>,
    /// Absolute, `~` expanded.
    pub sandbox_read: Setting<Vec<PathBuf>>,
    pub sandbox_write: Setting<Vec<PathBuf>>,
    /// `false`: act as if the kernel had no Landlock.
    pub sandbox_landlock: Setting<bool>,
    /// Environment variables passed to exec blocks and hooks despite looking secret (`NAME`,
    /// `PATTERN*`) or kept from them (`!NAME`); yours only.
    pub sandbox_env: Setting<Vec<String>>,
    pub files_final_newline: Setting<bool>,
    pub check_allow: Setting<Vec<String>>,
    pub clipboard_copy: Setting<bool>,
    pub color: Setting<ColorSetting>,
    /// The files that were read, repository's first.
    pub files: Vec<PathBuf>,
    /// What the repository's file set but this version of it may not (it would loosen the
    /// user's settings or run commands, and the file is not trusted; see [`trust`]), as
    /// `key` or `key: value`.
    pub untrusted: Vec<String>,
    /// Keys only the user's own file may set that the repository's file set (ignored).
    pub yours_only: Vec<String>,
    /// The root `.editorconfig`'s sections that set `insert_final_newline` (they decide
    /// where `files.final_newline` is left at its default).
    pub editorconfig_final_newline: Vec<String>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            exec: Setting::default(None),
            timeout: Setting::default(Duration::from_secs(30)),
            total_timeout: Setting::default(None),
            max_output: Setting::default(10 * 1024 * 1024),
            wip: Setting::default(WipSetting::Keep),
            commit_author: Setting::default(None),
            commit_coauthor: Setting::default(None),
            hooks_before: Setting::default(Vec::new()),
            hooks_after: Setting::default(Vec::new()),
            hooks_rollback_on_failure: Setting::default(false),
            hooks_sandbox: Setting::default(HookSandbox::Workspace),
            hooks_network: Setting::default(false),
            provenance_log: Setting::default(true),
            provenance_agent: Setting::default(None),
            provenance_model: Setting::default(None),
            agent_commit: Setting::default(AgentCommit::Turn),
            agent_subject: Setting::default(AgentSubject::Files),
            hooks_read: Vec::new(),
            hooks_write: Vec::new(),
            paths_deny: Setting::default(Vec::new()),
            paths_protect_config: Setting::default(true),
            paths_protect_hooks: Setting::default(true),
            sandbox_level: Setting::default(SandboxLevel::Workspace),
            sandbox_network: Setting::default(false),
            sandbox_read: Setting::default(Vec::new()),
            sandbox_write: Setting::default(Vec::new()),
            sandbox_landlock: Setting::default(true),
            sandbox_env: Setting::default(Vec::new()),
            files_final_newline: Setting::default(true),
            check_allow: Setting::default(Vec::new()),
            clipboard_copy: Setting::default(false),
            color: Setting::default(ColorSetting::Auto),
            files: Vec::new(),
            editorconfig_final_newline: Vec::new(),
            untrusted: Vec::new(),
            yours_only: Vec::new(),
        }
    }
}

/// One line of `git clada config`.
#[derive(Debug, Clone, Serialize)]
pub struct Entry {
    pub key: &'static str,
    pub value: serde_json::Value,
    pub source: String,
}

/// The user's configuration file (`<config dir>/clada/config.yml`), if a home is known.
pub fn user_file() -> Option<PathBuf> {
    directories::BaseDirs::new().map(|d| d.config_dir().join("clada").join("config.yml"))
}

/// The most a configuration file (`.clada.yml`, the user's, `.editorconfig`) may hold.
pub const FILE_LIMIT: u64 = 1024 * 1024;

/// Reads and parses the user's file (a link is followed: it may live in a dotfiles
/// repository); a missing file is `None`.
fn read_layer(path: &Path) -> Result<Option<Layer>, ConfigError> {
    Ok(read_file(path, clada_base::fsutil::Links::Follow)?.map(|(_, l)| l))
}

/// The text of the worktree's `.clada.yml` at `path`, read only as a regular file of at most
/// [`FILE_LIMIT`] bytes (a clone or a process in the worktree can put a link to `/dev/zero`
/// or a FIFO there); `None` when there is none.
pub fn read_repo_file(path: &Path) -> Result<Option<String>, ConfigError> {
    read_text(path, clada_base::fsutil::Links::Refuse)
}

fn read_text(path: &Path, links: clada_base::fsutil::Links) -> Result<Option<String>, ConfigError> {
    let error = |message: String| ConfigError {
        file: path.to_path_buf(),
        line: None,
        column: None,
        message,
    };
    let Some(bytes) = clada_base::fsutil::read_small(path, FILE_LIMIT, links)
        .map_err(|e| error(e.to_string()))?
    else {
        return Ok(None);
    };
    String::from_utf8(bytes).map(Some).map_err(|e| {
        error(format!(
            "it is not UTF-8 text (byte {})",
            e.utf8_error().valid_up_to()
        ))
    })
}

/// Reads and parses one file, keeping its text (what trust compares); a missing file is
/// `None`.
fn read_file(
    path: &Path,
    links: clada_base::fsutil::Links,
) -> Result<Option<(String, Layer)>, ConfigError> {
    let Some(text) = read_text(path, links)? else {
        return Ok(None);
    };
    let layer = parse_layer(path, &text)?;
    Ok(Some((text, layer)))
}

fn parse_layer(path: &Path, text: &str) -> Result<Layer, ConfigError> {
    if text.trim().is_empty() {
        return Ok(Layer::default());
    }
    serde_norway::from_str::<Layer>(text).map_err(|e| {
        let loc = e.location();
        let mut message = e.to_string();
        // The library appends the position in words; it is already in `file:line:column`.
        if let Some(i) = message.rfind(" at line ") {
            message.truncate(i);
        }
        ConfigError {
            file: path.to_path_buf(),
            line: loc.as_ref().map(|l| l.line()),
            column: loc.as_ref().map(|l| l.column()),
            message,
        }
    })
}

/// Sets `slot` from `value` when present.
fn set<T>(slot: &mut Setting<T>, value: Option<T>, source: &Source) {
    if let Some(v) = value {
        *slot = Setting {
            value: v,
            source: source.clone(),
        };
    }
}

impl Config {
    /// Loads the configuration for the worktree at `root` (no repository file when `None`),
    /// with `git_config` answering `clada.*` keys (`None` outside a repository) and `trusted`
    /// the copy of `.clada.yml` the user trusted, if any.
    pub fn load(
        root: Option<&Path>,
        git_config: &dyn Fn(&str) -> Option<String>,
        trusted: Option<&[u8]>,
    ) -> Result<Config, ConfigError> {
        let repo_file = root.map(|r| r.join(REPO_FILE));
        let user = user_file();
        let mut cfg = Self::load_from(repo_file.as_deref(), user.as_deref(), git_config, trusted)?;
        if let Some(root) = root {
            cfg.editorconfig_final_newline = editorconfig::final_newline_sections(root);
        }
        Ok(cfg)
    }

    /// [`Config::load`] with explicit file paths.
    pub fn load_from(
        repo_file: Option<&Path>,
        user_file: Option<&Path>,
        git_config: &dyn Fn(&str) -> Option<String>,
        trusted: Option<&[u8]>,
    ) -> Result<Config, ConfigError> {
        let repo_text = repo_file
            .map(|p| read_file(p, clada_base::fsutil::Links::Refuse))
            .transpose()?
            .flatten();
        let (repo, repo_trusted) = match repo_text {
            Some((text, layer)) => {
                let src = Source::File(repo_file.unwrap_or(Path::new(REPO_FILE)).to_path_buf());
                (Some((layer, src)), trusted == Some(text.as_bytes()))
            }
            None => (None, false),
        };
        let user = match user_file {
            Some(p) => read_layer(p)?.map(|l| (l, Source::File(p.to_path_buf()))),
            None => None,
        };
        Self::merge(repo, repo_trusted, user, git_config)
    }

    /// The configuration from the texts of a repository's file (`trusted`: as if the user had
    /// trusted it) and the user's, merged as [`Config::load`] merges the files, with no git
    /// config: what the fuzz target `config` drives (nothing here reads a file).
    pub fn from_texts(
        repo: Option<&str>,
        trusted: bool,
        user: Option<&str>,
    ) -> Result<Config, ConfigError> {
        let layer = |text: Option<&str>, name: &str| {
            text.map(|t| {
                let path = PathBuf::from(name);
                parse_layer(&path, t).map(|l| (l, Source::File(path)))
            })
            .transpose()
        };
        let repo = layer(repo, REPO_FILE)?;
        let user = layer(user, "config.yml")?;
        Self::merge(repo, trusted, user, &|_| None)
    }

    /// Merges the layers that were read (see the module doc for the rules).
    fn merge(
        repo: Option<(Layer, Source)>,
        repo_trusted: bool,
        user: Option<(Layer, Source)>,
        git_config: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Config, ConfigError> {
        let mut cfg = Config::default();
        for (_, src) in repo.iter().chain(user.iter()) {
            if let Source::File(p) = src {
                cfg.files.push(p.clone());
            }
        }
        // Project keys: user first, then the repository over it.
        // Personal keys: repository first, then the user over it.
        // Guarded keys: the user's, then what the repository may add (`trust`).
        if let Some((layer, src)) = &user {
            cfg.apply_project(layer, src);
            cfg.apply_guarded_user(layer, src)?;
        }
        if let Some((layer, src)) = &repo {
            cfg.apply_project(layer, src);
            cfg.apply_personal(layer, src);
            cfg.apply_guarded_repo(layer, src, repo_trusted)?;
        }
        if let Some((layer, src)) = &user {
            cfg.apply_personal(layer, src);
            set(&mut cfg.provenance_log, layer.provenance.log, src);
            set(
                &mut cfg.provenance_agent,
                layer.provenance.agent.clone().map(Some),
                src,
            );
            set(
                &mut cfg.provenance_model,
                layer.provenance.model.clone().map(Some),
                src,
            );
            set(&mut cfg.agent_subject, layer.agent.subject, src);
        }
        for (key, setting) in [
            ("paths.deny", &cfg.paths_deny),
            ("check.allow", &cfg.check_allow),
        ] {
            for g in &setting.value {
                if let Err(e) = globset::Glob::new(g) {
                    let file = match &setting.source {
                        Source::File(p) => p.clone(),
                        _ => PathBuf::from(REPO_FILE),
                    };
                    return Err(ConfigError {
                        file,
                        line: None,
                        column: None,
                        message: format!("{key}: '{g}' is not a valid glob: {e}"),
                    });
                }
            }
        }
        for (key, slot) in [
            ("clada.author", &mut cfg.commit_author),
            ("clada.coauthor", &mut cfg.commit_coauthor),
        ] {
            if let Some(v) = git_config(key).filter(|v| !v.trim().is_empty()) {
                *slot = Setting {
                    value: Some(v),
                    source: Source::GitConfig(key.to_string()),
                };
            }
        }
        Ok(cfg)
    }

    /// The keys with no bearing on what runs or what it may reach.
    fn apply_project(&mut self, l: &Layer, src: &Source) {
        set(&mut self.wip, l.wip, src);
        set(&mut self.agent_commit, l.agent.commit, src);
        set(
            &mut self.hooks_rollback_on_failure,
            l.hooks.rollback_on_failure,
            src,
        );
        set(&mut self.files_final_newline, l.files.final_newline, src);
        set(&mut self.check_allow, l.check.allow.clone(), src);
    }

    fn apply_personal(&mut self, l: &Layer, src: &Source) {
        set(
            &mut self.commit_author,
            l.commit.author.clone().map(Some),
            src,
        );
        set(
            &mut self.commit_coauthor,
            l.commit.coauthor.clone().map(Some),
            src,
        );
        set(&mut self.clipboard_copy, l.clipboard.copy, src);
        set(&mut self.color, l.color, src);
    }

    /// `files.final_newline` as it applies: a configured value wins everywhere; the default
    /// gives way to `.editorconfig`'s `insert_final_newline` where that is set, which the
    /// source then names.
    fn final_newline_entry(&self) -> Entry {
        let s = &self.files_final_newline;
        let source = match (&s.source, self.editorconfig_final_newline.is_empty()) {
            (Source::Default, false) => format!(
                "default; .editorconfig insert_final_newline applies where set: {}",
                self.editorconfig_final_newline.join(", ")
            ),
            (src, _) => src.to_string(),
        };
        Entry {
            key: "files.final_newline",
            value: serde_json::json!(s.value),
            source,
        }
    }

    /// Every key with its effective value and source, in documentation order.
    pub fn entries(&self) -> Vec<Entry> {
        use serde_json::json;
        fn e<T>(key: &'static str, s: &Setting<T>, value: serde_json::Value) -> Entry {
            Entry {
                key,
                value,
                source: s.source.to_string(),
            }
        }
        fn v<T: serde::Serialize>(key: &'static str, s: &Setting<T>) -> Entry {
            e(key, s, json!(s.value))
        }
        let secs = |d: &Duration| json!(crate::config::format_duration(*d));
        let hooks = |v: &[HookCommand]| json!(v.iter().map(|h| &h.run).collect::<Vec<_>>());
        vec![
            e(
                "exec",
                &self.exec,
                self.exec
                    .value
                    .map(|v| json!(v.name()))
                    .unwrap_or(json!("ask")),
            ),
            e("timeout", &self.timeout, secs(&self.timeout.value)),
            e(
                "total_timeout",
                &self.total_timeout,
                self.total_timeout
                    .value
                    .as_ref()
                    .map(secs)
                    .unwrap_or(json!(null)),
            ),
            v("max_output", &self.max_output),
            v("wip", &self.wip),
            v("commit.author", &self.commit_author),
            v("commit.coauthor", &self.commit_coauthor),
            e(
                "hooks.before",
                &self.hooks_before,
                hooks(&self.hooks_before.value),
            ),
            e(
                "hooks.after",
                &self.hooks_after,
                hooks(&self.hooks_after.value),
            ),
            v("hooks.rollback_on_failure", &self.hooks_rollback_on_failure),
            e(
                "hooks.sandbox",
                &self.hooks_sandbox,
                json!(self.hooks_sandbox.value.name()),
            ),
            v("hooks.network", &self.hooks_network),
            v("paths.deny", &self.paths_deny),
            v("paths.protect_config", &self.paths_protect_config),
            v("paths.protect_hooks", &self.paths_protect_hooks),
            e(
                "sandbox.level",
                &self.sandbox_level,
                json!(self.sandbox_level.value.name()),
            ),
            v("sandbox.network", &self.sandbox_network),
            v("sandbox.read", &self.sandbox_read),
            v("sandbox.write", &self.sandbox_write),
            v("sandbox.landlock", &self.sandbox_landlock),
            v("sandbox.env", &self.sandbox_env),
            self.final_newline_entry(),
            v("check.allow", &self.check_allow),
            v("clipboard.copy", &self.clipboard_copy),
            e(
                "provenance.log",
                &self.provenance_log,
                json!(if self.provenance_log.value {
                    "on"
                } else {
                    "off"
                }),
            ),
            v("provenance.agent", &self.provenance_agent),
            v("provenance.model", &self.provenance_model),
            v("agent.commit", &self.agent_commit),
            v("agent.subject", &self.agent_subject),
            v("color", &self.color),
        ]
    }
}

/// The configuration for the repository containing `dir` (the user's file and defaults only
/// outside a repository).
pub fn load_for_dir(dir: &Path) -> Result<Config, ConfigError> {
    load_with_root(dir).map(|(cfg, _)| cfg)
}

/// [`load_for_dir`], plus the worktree root it found (`None` outside a repository).
pub fn load_with_root(dir: &Path) -> Result<(Config, Option<PathBuf>), ConfigError> {
    let repo = clada_git::Repo::discover(dir).ok();
    let cfg = load_for_repo(repo.as_ref())?;
    Ok((cfg, repo.map(|r| r.workdir().to_path_buf())))
}

/// The configuration for `repo` (the user's file and defaults only without one), for callers
/// that go on to use the repository: opening it once instead of twice.
pub fn load_for_repo(repo: Option<&clada_git::Repo>) -> Result<Config, ConfigError> {
    match repo {
        Some(repo) => {
            let trusted = clada_base::fsutil::read_small(
                &trusted_copy(repo.git_dir()),
                FILE_LIMIT,
                clada_base::fsutil::Links::Follow,
            )
            .ok()
            .flatten();
            Config::load(
                Some(repo.workdir()),
                &|k| repo.config_string(k),
                trusted.as_deref(),
            )
        }
        None => Config::load(None, &|_| None, None),
    }
}

/// `30s`, `1.5s`, `500ms`.
pub fn format_duration(d: Duration) -> String {
    let ms = d.as_millis();
    if ms < 1000 {
        format!("{ms}ms")
    } else if ms.is_multiple_of(1000) {
        format!("{}s", ms / 1000)
    } else {
        format!("{}s", ms as f64 / 1000.0)
    }
}

#[cfg(test)]
mod tests;
