//! `git clada agent-hook status`: for each agent whose settings hold git-clada's hooks (in
//! each scope), whether every event is registered (an older install lacks some), whether
//! the agent trusts the hooks (Codex's hook trust, Gemini CLI's folder trust; Claude Code
//! asks none; Cursor's workspace trust cannot be read from outside Cursor), when git-clada
//! last heard from that agent in this repository, and whether git's hooks that keep the
//! agent's line attribution through amend and rebase are installed, and with which remotes
//! the attribution logs are shared (`record::shared_logs`). The last hook time is
//! recorded by the hook itself ([`heard`]): one small file per agent under `.git/clada/`.

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;

use super::codex_trust;
use super::payload::{agent_name, AgentKind};
use super::settings::{self, Scope};
use clada_git::Repo;

/// Every agent, in the order the report lists them.
const AGENTS: [AgentKind; 4] = [
    AgentKind::ClaudeCode,
    AgentKind::Cursor,
    AgentKind::Gemini,
    AgentKind::Codex,
];

fn heard_file(repo: &Repo, agent: AgentKind) -> PathBuf {
    repo.common_dir()
        .join("clada")
        .join("agent-heard")
        .join(agent_name(agent))
}

/// Records that `agent`'s hook of `event` ran in `repo` now (the file's time is the time).
/// Best effort: a hook that cannot record it still does its work.
pub fn heard(repo: &Repo, agent: AgentKind, event: &str) {
    let path = heard_file(repo, agent);
    // The name as the agent sent it, kept short: it is shown, never read as anything else.
    let event: String = event.chars().take(64).collect();
    if std::fs::write(&path, &event).is_err() {
        if let Some(dir) = path.parent() {
            let _ = std::fs::create_dir_all(dir);
            let _ = std::fs::write(&path, &event);
        }
    }
}

/// The report.
#[derive(Debug, Serialize)]
pub struct Report {
    /// The repository the hook times and git's hooks are of (`None` outside one).
    pub repository: Option<String>,
    /// One entry per agent and settings file holding git-clada's hooks.
    pub agents: Vec<AgentStatus>,
    pub git_hooks: Option<GitHooks>,
    /// With which remotes the attribution logs are shared (`None` outside a repository).
    pub sharing: Option<Sharing>,
}

/// Sharing the attribution logs (`refs/notes/ai`) with the remotes.
#[derive(Debug, Serialize)]
pub struct Sharing {
    /// Remotes whose logs are fetched (git-clada's fetch refspec in place).
    pub shared: Vec<String>,
    /// Remotes without it: added after `git clada hooks install`, or `--no-share`.
    pub not_shared: Vec<String>,
    /// Whether git-clada's pre-push hook (which pushes the logs) is installed.
    pub pre_push: bool,
    pub fix: Option<String>,
}

/// The sharing state of `repo`; `None` when its remotes cannot be read.
pub fn sharing(repo: &Repo) -> Option<Sharing> {
    let remotes = clada_engine::record::shared_logs::sharing(repo).ok()?;
    let (shared, not_shared): (Vec<_>, Vec<_>) = remotes.into_iter().partition(|(_, s)| *s);
    let shared: Vec<String> = shared.into_iter().map(|(r, _)| r).collect();
    let not_shared: Vec<String> = not_shared.into_iter().map(|(r, _)| r).collect();
    let pre_push = hook_runs(repo, "pre-push", "git-clada provenance pre-push");
    let fix = (!not_shared.is_empty() || (!shared.is_empty() && !pre_push))
        .then(|| "git clada hooks install".to_string());
    Some(Sharing {
        shared,
        not_shared,
        pre_push,
        fix,
    })
}

#[derive(Debug, Serialize)]
pub struct AgentStatus {
    pub agent: &'static str,
    /// `user`, `project-local` or `shared`.
    pub scope: &'static str,
    pub file: String,
    /// The events whose handler is in place.
    pub events: Vec<&'static str>,
    /// The events an older install lacks.
    pub missing_events: Vec<&'static str>,
    pub trust: Trust,
    pub last_heard: Option<Heard>,
    /// The commands that would fix what is missing.
    pub fix: Vec<String>,
}

#[derive(Debug, Serialize)]
pub struct Trust {
    /// `trusted`, `not-trusted`, `partly-trusted`, `not-needed` or `unknown`.
    pub state: &'static str,
    pub detail: String,
}

#[derive(Debug, Serialize)]
pub struct Heard {
    /// RFC 3339, UTC.
    pub at: String,
    pub event: String,
}

#[derive(Debug, Serialize)]
pub struct GitHooks {
    pub installed: Vec<&'static str>,
    pub missing: Vec<&'static str>,
    pub fix: Option<String>,
}

/// The hooks `git clada hooks install` puts in place that keep the agent's lines attributed
/// through the user's own commits and rewrites, and what each runs.
const GIT_HOOKS: [(&str, &str); 2] = [
    ("post-commit", "git-clada provenance post-commit"),
    ("post-rewrite", "git-clada provenance rewritten"),
];

/// Which of [`GIT_HOOKS`] git runs in `repo`: the hook file in git's hooks directory
/// (`core.hooksPath` respected), the `.legacy` file the pre-commit framework runs from its
/// own, or husky 9's `.husky/<name>`; installed when it is executable and runs git-clada.
pub fn git_hooks(repo: &Repo) -> GitHooks {
    let (mut installed, mut missing) = (Vec::new(), Vec::new());
    for (name, runs) in GIT_HOOKS {
        match hook_runs(repo, name, runs) {
            true => installed.push(name),
            false => missing.push(name),
        }
    }
    let fix = (!missing.is_empty()).then(|| "git clada hooks install".to_string());
    GitHooks {
        installed,
        missing,
        fix,
    }
}

/// Whether git's hook `name` in `repo` runs `runs`: the hook file in git's hooks directory
/// (`core.hooksPath` respected), the `.legacy` file the pre-commit framework runs from its
/// own, or husky 9's `.husky/<name>`, executable.
fn hook_runs(repo: &Repo, name: &str, runs: &str) -> bool {
    use std::os::unix::fs::PermissionsExt;
    let dir = repo.hooks_dir();
    let husky = dir.file_name().is_some_and(|n| n == "_") && dir.join("h").is_file();
    let mut files = vec![dir.join(name), dir.join(format!("{name}.legacy"))];
    if let (true, Some(parent)) = (husky, dir.parent()) {
        files.push(parent.join(name));
    }
    files.iter().any(|f| {
        let executable = std::fs::metadata(f).is_ok_and(|m| m.permissions().mode() & 0o111 != 0);
        executable && std::fs::read(f).is_ok_and(|b| String::from_utf8_lossy(&b).contains(runs))
    })
}

/// The report for the user whose home is `home`, in `repo` (if any).
pub fn report(home: Option<&Path>, repo: Option<&Repo>) -> Report {
    let root = repo.map(|r| r.workdir().to_path_buf());
    let mut agents = Vec::new();
    for agent in AGENTS {
        for (scope, label, flag) in [
            (Scope::User, "user", "--user"),
            (Scope::ProjectLocal, "project-local", "--project-local"),
            (Scope::Shared, "shared", "--shared"),
        ] {
            let Ok(file) = settings::file(agent, scope, home, root.as_deref()) else {
                continue;
            };
            let Some(events) = settings::installed_events(agent, &file) else {
                continue;
            };
            let missing: Vec<&'static str> = settings::events(agent)
                .iter()
                .map(|(e, _)| *e)
                .filter(|e| !events.contains(e))
                .collect();
            let name = agent_name(agent);
            let mut fix = Vec::new();
            if !missing.is_empty() {
                fix.push(format!("git clada agent-hook install {name} {flag}"));
            }
            let trust = trust(agent, scope, &file, root.as_deref(), &mut fix);
            agents.push(AgentStatus {
                agent: name,
                scope: label,
                file: file.display().to_string(),
                events,
                missing_events: missing,
                trust,
                last_heard: repo.and_then(|r| last_heard(r, agent)),
                fix,
            });
        }
    }
    Report {
        repository: root.map(|r| r.display().to_string()),
        agents,
        git_hooks: repo.map(git_hooks),
        sharing: repo.and_then(sharing),
    }
}

fn last_heard(repo: &Repo, agent: AgentKind) -> Option<Heard> {
    let path = heard_file(repo, agent);
    let at = std::fs::metadata(&path).and_then(|m| m.modified()).ok()?;
    let event = std::fs::read_to_string(&path).unwrap_or_default();
    Some(Heard {
        at: clada_base::clock::rfc3339_seconds(at),
        event: event.trim().to_string(),
    })
}

/// Whether `agent` trusts the hooks in `file` (of `scope`), adding to `fix` what would.
fn trust(
    agent: AgentKind,
    scope: Scope,
    file: &Path,
    root: Option<&Path>,
    fix: &mut Vec<String>,
) -> Trust {
    let t = |state: &'static str, detail: &str| Trust {
        state,
        detail: detail.to_string(),
    };
    match (agent, scope) {
        (AgentKind::ClaudeCode, _) => t("not-needed", "Claude Code asks no trust for hooks"),
        (AgentKind::Cursor, Scope::User) => t("not-needed", "Cursor runs your own hooks everywhere"),
        (AgentKind::Cursor, _) => t(
            "unknown",
            "cannot be told from here: Cursor runs a project's hooks only in a workspace you trusted, and keeps that trust where git-clada cannot read it",
        ),
        (AgentKind::Gemini, _) => gemini_trust(file, scope, root),
        (AgentKind::Codex, _) => codex_trusted(file, scope, root, fix),
    }
}

/// Gemini CLI runs no hooks of its settings (yours included) in a folder it does not trust
/// while folder trust is on (`security.folderTrust.enabled`, on by default); the trusted
/// folders are in `trustedFolders.json` beside the user's settings.
fn gemini_trust(file: &Path, scope: Scope, root: Option<&Path>) -> Trust {
    let t = |state: &'static str, detail: String| Trust { state, detail };
    match std::env::var("GEMINI_CLI_TRUST_WORKSPACE").as_deref() {
        Ok("true") => {
            return t(
                "trusted",
                "GEMINI_CLI_TRUST_WORKSPACE=true trusts every folder".into(),
            )
        }
        Ok("false") => {
            return t(
                "not-trusted",
                "GEMINI_CLI_TRUST_WORKSPACE=false: Gemini CLI runs no hooks of its settings".into(),
            )
        }
        _ => {}
    }
    // The user's settings are where folder trust is switched (a project cannot turn it off).
    let user_dir = match scope {
        Scope::User => file.parent().map(Path::to_path_buf),
        _ => settings::file(AgentKind::Gemini, Scope::User, home().as_deref(), None)
            .ok()
            .and_then(|f| f.parent().map(Path::to_path_buf)),
    };
    let Some(user_dir) = user_dir else {
        return t(
            "unknown",
            "cannot find Gemini CLI's user settings folder".into(),
        );
    };
    let enabled = read_json(&user_dir.join("settings.json"))
        .and_then(|s| {
            s.pointer("/security/folderTrust/enabled")
                .and_then(Value::as_bool)
        })
        .unwrap_or(true);
    if !enabled {
        return t("trusted", "folder trust is off (security.folderTrust.enabled = false): Gemini CLI runs its hooks in every folder".into());
    }
    let Some(root) = root else {
        return t("unknown", "folder trust is on: Gemini CLI runs these hooks only in folders you trusted (run this in a repository to see whether it is one)".into());
    };
    let list = std::env::var_os("GEMINI_CLI_TRUSTED_FOLDERS_PATH")
        .map(PathBuf::from)
        .unwrap_or_else(|| user_dir.join("trustedFolders.json"));
    let rules = read_json(&list);
    match rules.as_ref().and_then(Value::as_object).map(|r| folder_trusted(r, root)) {
        Some(Some(true)) => t("trusted", format!("this folder is trusted in {}", list.display())),
        Some(Some(false)) => t("not-trusted", format!("this folder is marked DO_NOT_TRUST in {}: Gemini CLI runs no hooks of its settings here", list.display())),
        _ => t("not-trusted", format!("folder trust is on and this folder is not trusted ({}): Gemini CLI runs no hooks of its settings here until you trust it (it asks when it starts here, or /permissions)", list.display())),
    }
}

/// Gemini CLI's rule for `location`: the longest rule path that holds it decides
/// (`TRUST_PARENT` trusts the folder holding the rule's path); `None` when none does.
fn folder_trusted(rules: &serde_json::Map<String, Value>, location: &Path) -> Option<bool> {
    let real = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let location = real(location);
    let mut best: Option<(usize, &str)> = None;
    for (rule, level) in rules {
        let Some(level) = level.as_str() else {
            continue;
        };
        let path = Path::new(rule);
        let effective = match level {
            "TRUST_PARENT" => path.parent().unwrap_or(path),
            _ => path,
        };
        if location.starts_with(real(effective)) && best.is_none_or(|(len, _)| rule.len() > len) {
            best = Some((rule.len(), level));
        }
    }
    match best?.1 {
        "DO_NOT_TRUST" => Some(false),
        "TRUST_FOLDER" | "TRUST_PARENT" => Some(true),
        _ => None,
    }
}

/// Codex's trust of each of git-clada's handlers in `file`, from the user's `config.toml`.
fn codex_trusted(file: &Path, scope: Scope, root: Option<&Path>, fix: &mut Vec<String>) -> Trust {
    let t = |state: &'static str, detail: String| Trust { state, detail };
    let (key_path, config) = match scope {
        Scope::User => (
            codex_trust::user_key_path(file),
            file.with_file_name("config.toml"),
        ),
        _ => {
            let user = settings::file(AgentKind::Codex, Scope::User, home().as_deref(), root);
            let Ok(user) = user else {
                return t("unknown", "cannot find Codex's user folder".into());
            };
            (file.to_path_buf(), user.with_file_name("config.toml"))
        }
    };
    let handlers = codex_trust::handlers(file, &key_path, None);
    let states = match codex_trust::states(&config, &handlers) {
        Ok(s) => s,
        Err(e) => return t("unknown", e.to_string()),
    };
    let not: Vec<&str> = handlers
        .iter()
        .zip(&states)
        .filter(|(_, s)| **s != codex_trust::State::Trusted)
        .map(|(h, _)| h.event.as_str())
        .collect();
    let disabled = states.contains(&codex_trust::State::Disabled);
    let how = "as Codex 0.171.0 keys and hashes it";
    if not.is_empty() {
        return t(
            "trusted",
            format!(
                "all {} handlers are trusted in {} ({how})",
                handlers.len(),
                config.display()
            ),
        );
    }
    match (scope, disabled) {
        (_, true) => fix.push("turn git-clada's hooks back on in Codex: /hooks".into()),
        (Scope::User, false) => fix.push(
            "git clada agent-hook install codex --user (or trust them in Codex: /hooks)".into(),
        ),
        _ => fix.push(
            "trust them in Codex: /hooks (each teammate trusts the repository's hooks)".into(),
        ),
    }
    let state = match not.len() == handlers.len() {
        true => "not-trusted",
        false => "partly-trusted",
    };
    t(state, format!("not trusted (or turned off) in {}: {}; codex exec skips untrusted hooks silently ({how})", config.display(), not.join(", ")))
}

fn read_json(path: &Path) -> Option<Value> {
    serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()
}

fn home() -> Option<PathBuf> {
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
}

impl Sharing {
    /// The line for a person.
    fn line(&self) -> String {
        let what = "the attribution logs (refs/notes/ai)";
        let mut parts = Vec::new();
        if !self.shared.is_empty() {
            let pushed = if self.pre_push {
                ""
            } else {
                " (fetched only: the pre-push hook is not installed)"
            };
            parts.push(format!("shared with {}{pushed}", self.shared.join(", ")));
        }
        if !self.not_shared.is_empty() {
            parts.push(format!(
                "not shared with {} (added after `git clada hooks install`, or --no-share)",
                self.not_shared.join(", ")
            ));
        }
        if parts.is_empty() {
            parts.push("no remote to share with".into());
        }
        let fix = match &self.fix {
            Some(f) => format!("; run: {f}"),
            None => String::new(),
        };
        format!("{what}: {}{fix}", parts.join("; "))
    }
}

impl Report {
    /// The report as lines for a person.
    pub fn lines(&self) -> Vec<String> {
        let mut out = Vec::new();
        if self.agents.is_empty() {
            out.push(
                "git-clada's hooks are in no agent's settings: git clada agent-hook install AGENT"
                    .into(),
            );
        }
        for a in &self.agents {
            out.push(format!("{} ({} settings, {})", a.agent, a.scope, a.file));
            out.push(format!("  hooks:      {}", a.events.join(", ")));
            if !a.missing_events.is_empty() {
                out.push(format!(
                    "  missing:    {} (an older install)",
                    a.missing_events.join(", ")
                ));
            }
            out.push(format!(
                "  trust:      {}: {}",
                a.trust.state, a.trust.detail
            ));
            out.push(match (&a.last_heard, &self.repository) {
                (Some(h), _) => format!("  last heard: {} ({})", h.at, h.event),
                (None, Some(_)) => "  last heard: never in this repository".into(),
                (None, None) => "  last heard: (not in a repository)".into(),
            });
            for f in &a.fix {
                out.push(format!("  to fix:     {f}"));
            }
        }
        if let Some(g) = &self.git_hooks {
            match &g.fix {
                None => out.push(format!("git's hooks that keep the agent's attribution through amend and rebase: installed ({})", g.installed.join(", "))),
                Some(f) => out.push(format!("git's hooks that keep the agent's attribution through amend and rebase: not installed ({}); run: {f}", g.missing.join(", "))),
            }
        }
        if let Some(s) = &self.sharing {
            out.push(s.line());
        }
        out
    }
}
