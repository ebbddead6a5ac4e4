//! What `git clada agent-hook install|uninstall` does beyond the settings file
//! (`settings`): Codex's trust in the handlers it wrote (`codex_trust`, `--user` only, for a
//! Codex whose trust format is known; otherwise the `/hooks` step is printed), the
//! repository's `info/exclude` line that keeps Claude Code's personal project file out of
//! commits (`--project-local`), and what the user still has to do (`git clada hooks install`
//! where git's attribution hooks are missing; teammates trusting a committed file).

use std::path::Path;

use super::codex_trust::{self, Installed as Codex};
use super::payload::AgentKind;
use super::settings::{self, Edited, Scope};
use clada_git::Repo;

/// What was done, for the user: `out` for standard output, `notes` for standard error.
#[derive(Debug, Default)]
pub struct Done {
    pub out: Vec<String>,
    pub notes: Vec<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    #[error("{0}")]
    Where(String),
    #[error(transparent)]
    Settings(#[from] settings::SettingsError),
    #[error(transparent)]
    Trust(#[from] codex_trust::TrustError),
}

/// The settings file of `agent` for `scope`.
pub fn settings_file(
    agent: AgentKind,
    scope: Scope,
    home: Option<&Path>,
    repo: Option<&Repo>,
) -> Result<std::path::PathBuf, SetupError> {
    settings::file(agent, scope, home, repo.map(Repo::workdir)).map_err(SetupError::Where)
}

/// `install`: the hooks, then what goes with them.
pub fn install(
    agent: AgentKind,
    scope: Scope,
    home: Option<&Path>,
    repo: Option<&Repo>,
) -> Result<Done, SetupError> {
    let path = settings_file(agent, scope, home, repo)?;
    let mut done = Done::default();
    let codex = match (agent, scope) {
        (AgentKind::Codex, Scope::User) => Some(codex_trust::installed()),
        _ => None,
    };
    let config = path.with_file_name("config.toml");
    if let Some(Codex::Known(_)) = &codex {
        // A config.toml that cannot take the trust refuses the whole install, before
        // anything is written.
        codex_trust::check(&config)?;
    }
    let installed = settings::install(agent, &path, scope == Scope::Shared)?;
    let shown = path.display();
    done.out.push(match installed.edited {
        Edited::Written => format!("installed git-clada's hooks in {shown}"),
        Edited::Unchanged => format!("git-clada's hooks are already in {shown}"),
    });
    if !installed.added.is_empty() {
        done.notes.push(format!(
            "added the events an older install of git-clada's hooks lacked: {}",
            installed.added.join(", ")
        ));
    }
    if scope == Scope::ProjectLocal {
        if let Some(repo) = repo {
            if settings::exclude_project_local(repo.common_dir(), true)? == Edited::Written {
                done.out.push(format!(
                    "added {} to {} (git ignores your personal settings file)",
                    settings::LOCAL_EXCLUDE,
                    repo.common_dir().join("info").join("exclude").display()
                ));
            }
        }
    }
    match (codex, scope) {
        (Some(Codex::Known(version)), _) => {
            let ours = settings::command(agent, false);
            let key = codex_trust::user_key_path(&path);
            let handlers = codex_trust::handlers(&path, &key, Some(&ours));
            let how = format!("as Codex {version}'s /hooks would");
            done.out.push(match codex_trust::trust(&config, &handlers)? {
                Edited::Written => format!(
                    "trusted git-clada's {} Codex hooks in {} ({how})",
                    handlers.len(),
                    config.display()
                ),
                Edited::Unchanged => format!(
                    "git-clada's Codex hooks are already trusted in {}",
                    config.display()
                ),
            });
        }
        (Some(other), _) => {
            let why = match other {
                Codex::Absent => "no `codex` on PATH to tell its version".to_string(),
                Codex::Unknown(v) => format!(
                    "git-clada does not know how {v} keys its hook trust (it knows Codex {})",
                    codex_trust::KNOWN.join(", ")
                ),
                Codex::Known(_) => String::new(),
            };
            done.notes.push(format!(
                "Codex runs a hook only once you trust it, and `codex exec` skips untrusted hooks silently: start `codex`, type /hooks and trust git-clada's hooks ({why}, so git-clada wrote no trust)"
            ));
        }
        (None, Scope::Shared) if agent == AgentKind::Codex => done.notes.push(
            "Codex runs the repository's hooks only once each teammate trusts them: in Codex, /hooks (git-clada writes no trust for a committed file)".into(),
        ),
        _ => {}
    }
    if let Some(fix) = repo.and_then(|r| super::status::git_hooks(r).fix) {
        done.notes.push(format!(
            "git's hooks that keep the agent's line attribution through amend and rebase are not installed in this repository: run `{fix}`"
        ));
    }
    Ok(done)
}

/// `uninstall`: git-clada's handlers, and exactly what `install` added with them.
pub fn uninstall(
    agent: AgentKind,
    scope: Scope,
    home: Option<&Path>,
    repo: Option<&Repo>,
) -> Result<Done, SetupError> {
    let path = settings_file(agent, scope, home, repo)?;
    let mut done = Done::default();
    let config = path.with_file_name("config.toml");
    // The trust keys are the handlers' places: read before the handlers go.
    let codex = (agent == AgentKind::Codex && scope == Scope::User)
        .then(|| codex_trust::handlers(&path, &codex_trust::user_key_path(&path), None));
    if codex.is_some() && config.exists() {
        codex_trust::check(&config)?;
    }
    let shown = path.display();
    done.out.push(match settings::uninstall(agent, &path)? {
        Edited::Written => format!("removed git-clada's hooks from {shown}"),
        Edited::Unchanged => format!("git-clada's hooks were not in {shown}"),
    });
    if let Some(handlers) = codex {
        if codex_trust::untrust(&config, &handlers)? == Edited::Written {
            done.out.push(format!(
                "removed the trust of git-clada's Codex hooks from {}",
                config.display()
            ));
        }
    }
    if let (Scope::ProjectLocal, Some(repo)) = (scope, repo) {
        if settings::exclude_project_local(repo.common_dir(), false)? == Edited::Written {
            done.out.push(format!(
                "removed {} from {}",
                settings::LOCAL_EXCLUDE,
                repo.common_dir().join("info").join("exclude").display()
            ));
        }
    }
    Ok(done)
}
