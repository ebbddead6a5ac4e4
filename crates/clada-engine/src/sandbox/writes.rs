//! What a write adds to the checks of a path: git-clada's own configuration, the protected
//! hook files (and the protected set exec and hooks keep read-only), and files of nested
//! repositories are refused; the builders that set these policies.

use super::{normalize, protected, PathError, PathErrorCode, ResolvedPath, Sandbox, HOOK_FILES};

impl Sandbox {
    /// For a git worktree: refuse changes inside a nested repository — a directory holding a
    /// `.git` (a checked-out submodule, or a repository of its own), or one of `submodules`
    /// (root-relative paths, e.g. from `.gitmodules`; those may not be checked out). Their
    /// files belong to another repository's history, which the commit here cannot hold.
    pub fn refuse_nested_repositories(mut self, submodules: &[String]) -> Sandbox {
        let abs = submodules
            .iter()
            .map(|s| s.split('/').fold(self.root.clone(), |p, c| p.join(c)))
            .collect();
        self.nested = Some(abs);
        self
    }

    /// Lets writes change `.clada.yml` and `.clada/` (the user's `paths.protect_config:
    /// false`); refused by default.
    pub fn allow_config_writes(mut self, yes: bool) -> Sandbox {
        self.config_writable = yes;
        self
    }

    /// Refuses writes to the hook files: [`HOOK_FILES`] and `more` (root-relative: what the
    /// repository's git configuration names — `core.hooksPath`, included files, programs),
    /// each also where it really is when a symlink leads there. On by default with
    /// [`HOOK_FILES`]; each call replaces the list. [`Sandbox::protect`] sets the whole
    /// protected set.
    pub fn protect_hooks(self, more: &[(String, String)]) -> Sandbox {
        let entries = more
            .iter()
            .map(|(rel, what)| protected::Entry {
                rel: rel.clone(),
                what: what.clone(),
                kind: protected::Kind::Hook,
            })
            .collect();
        self.protect(protected::Protected {
            entries,
            ..Default::default()
        })
    }

    /// Sets the protected set (`sandbox::protected`): replies may not write its hook entries
    /// (the fixed [`HOOK_FILES`] always among them) nor change its keys, and exec and hooks
    /// get it to keep read-only and to put back.
    pub fn protect(mut self, p: protected::Protected) -> Sandbox {
        let mut list: Vec<(String, String)> = HOOK_FILES
            .iter()
            .map(|(p, why)| (p.to_string(), why.to_string()))
            .collect();
        for e in p.entries.iter().filter(|e| e.kind == protected::Kind::Hook) {
            if !list.iter().any(|(r, _)| r == &e.rel) {
                list.push((e.rel.clone(), e.what.clone()));
            }
        }
        // A protected folder that is a symlink is protected where it leads too.
        let resolved: Vec<(String, String)> = list
            .iter()
            .filter_map(|(p, why)| {
                let at = self.root.join(p);
                let md = std::fs::symlink_metadata(&at).ok()?;
                if !md.file_type().is_symlink() {
                    return None;
                }
                let real = std::fs::canonicalize(at).ok()?;
                let rel = self.rel(&real).filter(|r| !r.is_empty() && r != p)?;
                Some((rel, why.clone()))
            })
            .collect();
        list.extend(resolved);
        let mut all = p;
        for (rel, what) in &list {
            if !all.entries.iter().any(|e| &e.rel == rel) {
                all.entries.push(protected::Entry {
                    rel: rel.clone(),
                    what: what.clone(),
                    kind: protected::Kind::Hook,
                });
            }
        }
        self.hook_files = Some(std::sync::Arc::new(list));
        self.guarded = std::sync::Arc::new(all.clone());
        self.found = std::sync::Arc::new(all);
        self
    }

    /// Adds nested git entries (`protected::nested_git`) to what exec and hooks keep
    /// read-only and put back (a reply never writes inside `.git` anyway).
    pub fn protect_git(mut self, git: Vec<protected::Entry>) -> Sandbox {
        let mut g = (*self.guarded).clone();
        let mut f = (*self.found).clone();
        for e in git {
            if !g.entries.iter().any(|x| x.rel == e.rel) {
                g.entries.push(e.clone());
            }
            if !f.entries.iter().any(|x| x.rel == e.rel) {
                f.entries.push(e);
            }
        }
        self.guarded = std::sync::Arc::new(g);
        self.found = std::sync::Arc::new(f);
        self
    }

    /// Lets writes change hook files (the user's own `paths.protect_hooks: false`): replies
    /// may write them, and exec and hooks may change them (nested git entries stay guarded).
    pub fn allow_hook_writes(mut self, yes: bool) -> Sandbox {
        if yes {
            self.hook_files = None;
            let mut g = (*self.guarded).clone();
            g.entries.retain(|e| e.kind == protected::Kind::Git);
            g.keys.clear();
            self.guarded = std::sync::Arc::new(g);
        }
        self
    }

    /// What exec and hooks keep read-only and put back after each step.
    pub fn guarded(&self) -> std::sync::Arc<protected::Protected> {
        std::sync::Arc::clone(&self.guarded)
    }

    /// The protected set as found (with the files hooks call), whatever the user allows.
    pub fn found(&self) -> std::sync::Arc<protected::Protected> {
        std::sync::Arc::clone(&self.found)
    }

    /// The protected keys of the root-relative file `rel` (none when the user lets replies
    /// write hook files).
    pub fn protected_keys(&self, rel: &str) -> Vec<&protected::Key> {
        self.guarded.keys.iter().filter(|k| k.file == rel).collect()
    }

    /// Whether the root-relative `rel` is (in, or holds) a protected hook file: what it is.
    pub fn hook_file(&self, rel: &str) -> Option<String> {
        let list = self.hook_files.as_ref()?;
        let lower = rel.to_ascii_lowercase();
        list.iter()
            .find_map(|(p, why)| {
                let p = p.to_ascii_lowercase();
                let hit = lower == p
                    || lower.starts_with(&format!("{p}/"))
                    || (!lower.is_empty() && p.starts_with(&format!("{lower}/")));
                hit.then(|| why.clone())
            })
            .or_else(|| protected::prefixed(rel).map(str::to_string))
    }

    /// The refusal of a write to a hook file, checked on the path as written and as resolved.
    fn check_hook_file(&self, p: &ResolvedPath) -> Result<(), PathError> {
        let lexical = self.rel(&normalize(&self.root.join(&p.given)));
        let Some(what) = [lexical.as_deref(), p.rel.as_deref()]
            .into_iter()
            .flatten()
            .find_map(|r| self.hook_file(r))
        else {
            return Ok(());
        };
        Err(PathError {
            code: PathErrorCode::ProtectedHook,
            path: p.given.clone(),
            message: format!(
                "'{}' is {what}: git or a hook manager runs it on the user's own next commit, \
                 outside any sandbox, so a reply never changes it — say what should change and \
                 let the user edit it",
                p.given
            ),
            user_action: Some(
                "edit it yourself if the change is wanted (a reply never changes the files your \
                 git hooks run), or set paths.protect_hooks: false in your own configuration"
                    .to_string(),
            ),
        })
    }

    /// What a write adds to [`Sandbox::resolve`]'s checks: git-clada's own configuration is
    /// the user's (a reply that could write it could approve its own commands or loosen the
    /// policy), so are the hook files (the user's next commit runs them), and files of nested
    /// repositories belong to those.
    pub fn check_write(&self, p: &ResolvedPath) -> Result<(), PathError> {
        self.check_hook_file(p)?;
        if let Some(what) = p
            .rel
            .as_deref()
            .filter(|_| !self.config_writable)
            .and_then(protected_config)
        {
            return Err(PathError {
                code: PathErrorCode::ProtectedConfig,
                path: p.given.clone(),
                message: format!(
                    "'{}' is {what}, which decides what git-clada runs and what it may \
                     touch; a reply never changes it (like .git) — say what should change and \
                     let the user edit it (a user's own config can allow this with \
                     paths.protect_config: false)",
                    p.given
                ),
                user_action: Some(
                    "edit it yourself if the change is wanted (a reply never changes \
                     git-clada's configuration), or set paths.protect_config: false in your own \
                     configuration"
                        .to_string(),
                ),
            });
        }
        self.check_nested(p)
    }

    /// Refuses a path that a write would change inside a nested repository (see
    /// [`Sandbox::refuse_nested_repositories`]; nothing is refused without it).
    fn check_nested(&self, p: &ResolvedPath) -> Result<(), PathError> {
        let Some(submodules) = &self.nested else {
            return Ok(());
        };
        let Ok(rest) = p.abs.strip_prefix(&self.root) else {
            return Ok(());
        };
        let mut dir = self.root.clone();
        for c in rest.components() {
            dir.push(c);
            let declared = submodules.contains(&dir);
            if !declared && !self.has_dot_git(&dir) {
                continue;
            }
            let shown = self.rel(&dir).unwrap_or_default();
            let inside = if dir == p.abs {
                format!("'{}' is", p.given)
            } else {
                format!("'{}' is inside", p.given)
            };
            let what = if declared {
                format!("the submodule '{shown}'")
            } else {
                format!("'{shown}', a nested repository (it has its own .git)")
            };
            return Err(PathError {
                code: PathErrorCode::Submodule,
                path: p.given.clone(),
                user_action: None,
                message: format!(
                    "{inside} {what}; its files belong to that repository's history, which a \
                     commit here cannot hold — change them from inside it (cd {shown} and \
                     apply there), or leave them out of this reply"
                ),
            });
        }
        Ok(())
    }
}

/// What `rel` (root-relative) is when it is git-clada's own configuration: `.clada.yml` or
/// anything under `.clada/`, in any letter case (a case-insensitive filesystem opens the same
/// file).
fn protected_config(rel: &str) -> Option<&'static str> {
    let first = rel.split('/').next().unwrap_or_default();
    if rel.eq_ignore_ascii_case(".clada.yml") {
        Some("the repository's git-clada configuration")
    } else if first.eq_ignore_ascii_case(".clada") {
        Some("inside .clada/, git-clada's folder (approvals, settings)")
    } else {
        None
    }
}
