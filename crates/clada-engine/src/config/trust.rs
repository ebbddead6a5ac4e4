//! Only the user loosens: the guarded keys (what runs, and what it may reach) as the user's
//! file sets them, and what a repository's `.clada.yml` may add.
//!
//! A repository's file is code from whoever wrote the repository (a clone, or a reply that
//! edited it). Until the user trusted that exact version (`git clada config --trust` keeps a
//! byte copy in the git directory, [`trusted_copy`]), it can only tighten:
//!
//! | key | tightens (always applies) | loosens (needs trust) |
//! | --- | --- | --- |
//! | `exec` | stricter than the effective value | `allow`, or `ask` over `deny` |
//! | `timeout`, `max_output` | not longer than the effective value | longer |
//! | `total_timeout` | set, and not longer | longer |
//! | `hooks.before` / `hooks.after` | — | any command |
//! | `paths.deny` | united with the user's, always | (never shrinks) |
//! | `paths.protect_config` | `true` | `false` |
//! | `sandbox.level` | stricter (`read-only` > `workspace` > `off`) | lower |
//! | `sandbox.network`, `sandbox.landlock` | `false` / `true` | `true` / `false` |
//! | `sandbox.read`, `sandbox.write` | — | any folder (never for hooks) |
//!
//! `hooks.sandbox`, `hooks.network`, `paths.protect_hooks` and `sandbox.env` are the user's alone: a
//! repository's file, trusted or not, cannot set them (named in [`Config::yours_only`]), and
//! hooks get only the user's own `sandbox.read` / `sandbox.write` (docs/hooks-sandbox.md).
//!
//! A trusted file applies as a project file (its values win), except `exec`, which stays the
//! stricter of the two files; deny lists and folder lists are united either way.

use std::path::{Path, PathBuf};

use super::{
    format_duration, Config, ConfigError, ExecSetting, Layer, SandboxLevel, Setting, Source,
    REPO_FILE,
};

/// Where `git clada config --trust` keeps the trusted copy of `.clada.yml`.
pub fn trusted_copy(git_dir: &Path) -> PathBuf {
    git_dir.join("clada").join("trusted-config.yml")
}

fn set<T>(slot: &mut Setting<T>, value: T, src: &Source) {
    *slot = Setting {
        value,
        source: src.clone(),
    };
}

/// `sandbox.read` / `sandbox.write` entries as absolute paths (`~/` is the home folder).
fn folders(key: &str, list: &[String], src: &Source) -> Result<Vec<PathBuf>, ConfigError> {
    let home = directories::BaseDirs::new().map(|d| d.home_dir().to_path_buf());
    list.iter()
        .map(|s| {
            let p = match (s.strip_prefix("~/"), &home) {
                (Some(rest), Some(h)) => h.join(rest),
                _ => PathBuf::from(s),
            };
            if p.is_absolute() {
                Ok(p)
            } else {
                Err(ConfigError {
                    file: match src {
                        Source::File(f) => f.clone(),
                        _ => PathBuf::from(REPO_FILE),
                    },
                    line: None,
                    column: None,
                    message: format!("{key}: '{s}' is not an absolute path; write it from / or ~/"),
                })
            }
        })
        .collect()
}

/// Adds `more` to a list setting, naming both sources when both contributed.
fn unite<T: PartialEq + Clone>(slot: &mut Setting<Vec<T>>, more: &[T], src: &Source) {
    if more.is_empty() {
        return;
    }
    let source = match &slot.source {
        Source::Default => src.clone(),
        Source::File(a) => match src {
            Source::File(b) if a != b => Source::Files(vec![a.clone(), b.clone()]),
            _ => src.clone(),
        },
        other => other.clone(),
    };
    for v in more {
        if !slot.value.contains(v) {
            slot.value.push(v.clone());
        }
    }
    slot.source = source;
}

/// A limit from the repository's file: applies when not larger than the effective one, or
/// when trusted.
fn limit<T: PartialOrd + Copy>(
    key: &str,
    slot: &mut Setting<T>,
    v: T,
    trusted: bool,
    src: &Source,
    ignored: &mut Vec<String>,
    shown: impl Fn(&T) -> String,
) {
    if v <= slot.value || trusted {
        set(slot, v, src);
    } else {
        ignored.push(format!(
            "{key}: {} (longer than {})",
            shown(&v),
            shown(&slot.value)
        ));
    }
}

impl Config {
    /// The user's own file: every guarded key applies as written.
    pub(super) fn apply_guarded_user(
        &mut self,
        l: &Layer,
        src: &Source,
    ) -> Result<(), ConfigError> {
        if let Some(e) = l.exec {
            set(&mut self.exec, Some(e), src);
        }
        if let Some(t) = l.timeout {
            set(&mut self.timeout, t, src);
        }
        if let Some(t) = l.total_timeout {
            set(&mut self.total_timeout, Some(t), src);
        }
        if let Some(m) = l.max_output {
            set(&mut self.max_output, m, src);
        }
        if let Some(h) = &l.hooks.before {
            set(&mut self.hooks_before, h.clone(), src);
        }
        if let Some(h) = &l.hooks.after {
            set(&mut self.hooks_after, h.clone(), src);
        }
        if let Some(d) = &l.paths.deny {
            set(&mut self.paths_deny, d.clone(), src);
        }
        if let Some(p) = l.paths.protect_config {
            set(&mut self.paths_protect_config, p, src);
        }
        if let Some(p) = l.paths.protect_hooks {
            set(&mut self.paths_protect_hooks, p, src);
        }
        if let Some(v) = l.hooks.sandbox {
            set(&mut self.hooks_sandbox, v, src);
        }
        if let Some(v) = l.hooks.network {
            set(&mut self.hooks_network, v, src);
        }
        let sb = &l.sandbox;
        if let Some(v) = sb.level {
            set(&mut self.sandbox_level, v, src);
        }
        if let Some(v) = sb.network {
            set(&mut self.sandbox_network, v, src);
        }
        if let Some(v) = sb.landlock {
            set(&mut self.sandbox_landlock, v, src);
        }
        if let Some(v) = &sb.env {
            set(&mut self.sandbox_env, v.clone(), src);
        }
        if let Some(r) = &sb.read {
            let r = folders("sandbox.read", r, src)?;
            self.hooks_read = r.clone();
            set(&mut self.sandbox_read, r, src);
        }
        if let Some(w) = &sb.write {
            let w = folders("sandbox.write", w, src)?;
            self.hooks_write = w.clone();
            set(&mut self.sandbox_write, w, src);
        }
        Ok(())
    }

    /// The repository's file: what tightens applies; what loosens only when `trusted`, else
    /// it is named in [`Config::untrusted`].
    pub(super) fn apply_guarded_repo(
        &mut self,
        l: &Layer,
        src: &Source,
        trusted: bool,
    ) -> Result<(), ConfigError> {
        let mut ignored = Vec::new();
        // exec: the stricter of the two files, trusted or not; untrusted, never looser than
        // the default (`ask`) either.
        if let Some(e) = l.exec {
            let current = self.exec.value.unwrap_or(ExecSetting::Ask);
            let user_set = self.exec.value.is_some();
            let tighter = e.strictness() > current.strictness();
            let same = e.strictness() == current.strictness();
            // Looser than the effective value: a trusted file may loosen the default, never
            // what the user's own file chose.
            let may_loosen = !user_set && trusted;
            if tighter || (!user_set && same) || may_loosen {
                set(&mut self.exec, Some(e), src);
            } else if !same && !trusted {
                ignored.push(format!("exec: {}", e.name()));
            }
        }
        if let Some(v) = l.timeout {
            limit(
                "timeout",
                &mut self.timeout,
                v,
                trusted,
                src,
                &mut ignored,
                |d| format_duration(*d),
            );
        }
        if let Some(v) = l.max_output {
            limit(
                "max_output",
                &mut self.max_output,
                v,
                trusted,
                src,
                &mut ignored,
                |b| format!("{b} bytes"),
            );
        }
        if let Some(t) = l.total_timeout {
            match self.total_timeout.value {
                Some(cur) if t > cur && !trusted => ignored.push(format!(
                    "total_timeout: {} (longer than {})",
                    format_duration(t),
                    format_duration(cur)
                )),
                _ => set(&mut self.total_timeout, Some(t), src),
            }
        }
        for (key, hooks, slot) in [
            ("hooks.before", &l.hooks.before, &mut self.hooks_before),
            ("hooks.after", &l.hooks.after, &mut self.hooks_after),
        ] {
            match hooks {
                Some(h) if trusted => set(slot, h.clone(), src),
                Some(h) if !h.is_empty() => ignored.push(key.to_string()),
                _ => {}
            }
        }
        if let Some(d) = &l.paths.deny {
            unite(&mut self.paths_deny, d, src);
        }
        for (key, set) in [
            ("hooks.sandbox", l.hooks.sandbox.is_some()),
            ("hooks.network", l.hooks.network.is_some()),
            ("paths.protect_hooks", l.paths.protect_hooks.is_some()),
            ("sandbox.env", l.sandbox.env.is_some()),
            ("agent.subject", l.agent.subject.is_some()),
        ] {
            if set {
                self.yours_only.push(key.to_string());
            }
        }
        self.sandbox_keys(l, src, trusted, &mut ignored)?;
        self.untrusted.extend(ignored);
        Ok(())
    }

    /// `paths.protect_config` and the `sandbox` keys of the repository's file.
    fn sandbox_keys(
        &mut self,
        l: &Layer,
        src: &Source,
        trusted: bool,
        ignored: &mut Vec<String>,
    ) -> Result<(), ConfigError> {
        let sb = &l.sandbox;
        if let Some(p) = l.paths.protect_config {
            if p || trusted {
                set(&mut self.paths_protect_config, p, src);
            } else if self.paths_protect_config.value {
                ignored.push("paths.protect_config: false".into());
            }
        }
        if let Some(v) = sb.level {
            let stricter: SandboxLevel = v.max(self.sandbox_level.value);
            if trusted || v == stricter {
                set(&mut self.sandbox_level, v, src);
            } else {
                ignored.push(format!("sandbox.level: {}", v.name()));
            }
        }
        for (key, value, slot, loose) in [
            (
                "sandbox.network",
                sb.network,
                &mut self.sandbox_network,
                true,
            ),
            (
                "sandbox.landlock",
                sb.landlock,
                &mut self.sandbox_landlock,
                false,
            ),
        ] {
            match value {
                Some(v) if trusted || v != loose => set(slot, v, src),
                Some(v) if slot.value != v => ignored.push(format!("{key}: {v}")),
                _ => {}
            }
        }
        for (key, list) in [("sandbox.read", &sb.read), ("sandbox.write", &sb.write)] {
            let Some(list) = list.as_deref().filter(|l| !l.is_empty()) else {
                continue;
            };
            if !trusted {
                ignored.push(key.to_string());
                continue;
            }
            let paths = folders(key, list, src)?;
            let slot = match key {
                "sandbox.read" => &mut self.sandbox_read,
                _ => &mut self.sandbox_write,
            };
            unite(slot, &paths, src);
        }
        Ok(())
    }

    /// The warning for what the repository's file set but may not, if anything.
    pub fn untrusted_warning(&self) -> Option<String> {
        let yours = (!self.yours_only.is_empty()).then(|| {
            format!(
                "{REPO_FILE} sets {}, which only your own configuration file sets (they decide how code a reply wrote runs on your machine); ignored",
                self.yours_only.join(" and ")
            )
        });
        match (self.untrusted_only_warning(), yours) {
            (Some(a), Some(b)) => Some(format!("{a}; {b}")),
            (a, b) => a.or(b),
        }
    }

    fn untrusted_only_warning(&self) -> Option<String> {
        if self.untrusted.is_empty() {
            return None;
        }
        let list = self.untrusted.join(" and ");
        Some(if self.untrusted.iter().all(|k| k.starts_with("hooks.")) {
            format!(
                "{REPO_FILE} sets {list}, but this version of it is not trusted, so those commands did not run: read the file, then run `git clada config --trust` to let them run"
            )
        } else {
            format!(
                "{REPO_FILE} sets {list}, but this version of it is not trusted, so those settings were ignored (a repository's file can only tighten yours until you trust it): read the file, then run `git clada config --trust` to let them apply"
            )
        })
    }
}
