//! Symbolic links a reply makes (a unified diff's mode 120000): where one may stand and where
//! it may lead.
//!
//! A link is allowed when its target, resolved lexically from the link's own folder, stays
//! inside the worktree and out of every git directory (docs/hooks-sandbox.md, "Protected":
//! `.git` and its look-alikes, the repository's own git directories under any name, the nested
//! git entries of the protected set), and passes through no existing link on the way — a link
//! among the components would make the lexical answer wrong (`a/../x` where `a` leads
//! elsewhere). When the target is itself an existing link, that link must lead to such a place
//! too. Absolute targets are refused: they lead to the same place from every clone, which is
//! this machine's layout, not the repository's. The link itself is an entry at a written path
//! ([`Sandbox::check_write`]: protected hook files and git-clada's configuration refused like
//! the file itself), and git's names it refuses or warns about for links (`.gitmodules`,
//! `.gitattributes`, `.gitignore`, `.mailmap` and their look-alikes) are refused.
//!
//! Nothing here reads the disk: the caller says which paths are links now (the engine's view,
//! with the reply's own earlier changes), so the check holds for what the engine will do.

use std::ffi::OsStr;
use std::path::{Component, Path, PathBuf};

use super::{gitname, PathError, PathErrorCode, ResolvedPath, Sandbox};

/// How many existing links a target may lead through, one after the other.
const MAX_CHAIN: usize = 8;

impl Sandbox {
    /// Refuses a symbolic link at `p` (resolved as an entry): a path a write may not change,
    /// or a name git refuses or warns about for a link.
    pub fn check_link_at(&self, p: &ResolvedPath) -> Result<(), PathError> {
        self.check_write(p)?;
        let Some(name) = p.abs.file_name().map(OsStr::to_string_lossy) else {
            return Ok(());
        };
        match gitname::symlink_name(&name) {
            Some((protected, how)) => Err(PathError {
                code: PathErrorCode::GitDir,
                path: p.given.clone(),
                user_action: None,
                message: format!(
                    "'{}' would be a symbolic link named '{}': {} — make it a file, or link to \
                     the file under another name",
                    p.given,
                    gitname::shown(&name),
                    gitname::symlink_refusal(&name, protected, &how)
                ),
            }),
            None => Ok(()),
        }
    }

    /// Refuses `target` for a link at `link` (absolute, inside the root) unless it leads, from
    /// the link's folder and through no existing link, to a place inside the worktree and
    /// outside every git directory. `link_of(path)` is the target of the link now at `path`,
    /// `None` when no link is there (an unreadable entry may say `Some` of an empty path: it is
    /// then refused).
    pub fn check_link_target(
        &self,
        link: &ResolvedPath,
        target: &Path,
        link_of: &dyn Fn(&Path) -> Option<PathBuf>,
    ) -> Result<(), PathError> {
        let folder = link.abs.parent().unwrap_or(&self.root).to_path_buf();
        let mut at = folder;
        let mut target = target.to_path_buf();
        for hop in 0..=MAX_CHAIN {
            let end = self.walk_target(link, &at, &target, link_of)?;
            self.check_link_end(link, &target, &end)?;
            match link_of(&end) {
                // It leads to another link: that one must lead to such a place too.
                Some(next) if hop < MAX_CHAIN => {
                    at = end.parent().unwrap_or(&self.root).to_path_buf();
                    target = next;
                }
                Some(_) => {
                    return Err(self.link_refusal(
                        link,
                        PathErrorCode::SymlinkEscape,
                        format!("leads through more than {MAX_CHAIN} links, one after the other"),
                    ))
                }
                None => return Ok(()),
            }
        }
        Ok(())
    }

    /// Where `target` leads from the folder `from`, component by component; an existing link
    /// on the way, a step above the root or an absolute target is refused.
    fn walk_target(
        &self,
        link: &ResolvedPath,
        from: &Path,
        target: &Path,
        link_of: &dyn Fn(&Path) -> Option<PathBuf>,
    ) -> Result<PathBuf, PathError> {
        let shown = target.display();
        let refuse = |why: String| self.link_refusal(link, PathErrorCode::SymlinkEscape, why);
        let bytes = target.as_os_str().as_encoded_bytes();
        if bytes.is_empty() || bytes.contains(&b'\n') || bytes.contains(&0) {
            return Err(refuse(format!(
                "has the target '{}': a link's target is one line, not empty, without a line \
                 break (end the hunk with `\\ No newline at end of file`)",
                shown.to_string().escape_debug()
            )));
        }
        if target.is_absolute() {
            return Err(refuse(format!(
                "has the absolute target '{shown}', which leads to this machine's '{shown}' from \
                 every clone; write it relative to the link's folder"
            )));
        }
        let parts: Vec<Component<'_>> = target.components().collect();
        let mut at = from.to_path_buf();
        for (i, c) in parts.iter().enumerate() {
            match c {
                Component::CurDir => {}
                Component::ParentDir => {
                    if at == self.root || !at.starts_with(&self.root) {
                        return Err(refuse(format!(
                            "has the target '{shown}', which leads above the worktree"
                        )));
                    }
                    at.pop();
                }
                Component::Normal(name) => {
                    at.push(name);
                    // A git directory on the way is refused as one (not as the link the
                    // engine's guarded handle may take it for).
                    self.check_link_end(link, target, &at)?;
                    let last = parts[i + 1..].iter().all(|c| *c == Component::CurDir);
                    if !last && link_of(&at).is_some() {
                        return Err(refuse(format!(
                            "has the target '{shown}', which goes through the existing link \
                             '{}'; a link's target may not pass through another link (write \
                             the path it leads to)",
                            self.rel(&at).unwrap_or_default()
                        )));
                    }
                }
                Component::RootDir | Component::Prefix(_) => {}
            }
        }
        Ok(at)
    }

    /// Refuses a link whose target `end` (reached from `target`) is in a git directory or off
    /// limits.
    fn check_link_end(
        &self,
        link: &ResolvedPath,
        target: &Path,
        end: &Path,
    ) -> Result<(), PathError> {
        let rel = self.rel(end).unwrap_or_default();
        let lower = rel.to_ascii_lowercase();
        let under = |dir: &str| {
            let d = dir.to_ascii_lowercase();
            !d.is_empty() && (lower == d || lower.starts_with(&format!("{d}/")))
        };
        let tail = end.strip_prefix(&self.root).unwrap_or(end);
        let git = if super::has_git_component(tail) || super::git_lookalike(tail).is_some() {
            Some(".git".to_string())
        } else if let Some(own) = self.git_dirs.iter().find(|d| end.starts_with(d)) {
            Some(self.rel(own).unwrap_or_default())
        } else {
            self.guarded
                .entries
                .iter()
                .find(|e| e.kind == super::protected::Kind::Git && under(&e.rel))
                .map(|e| e.rel.clone())
        };
        if let Some(dir) = git {
            return Err(self.link_refusal(
                link,
                PathErrorCode::GitDir,
                format!(
                    "has the target '{}', which leads to '{rel}', inside the git directory \
                     '{dir}'; git-clada never makes a way into git's internals",
                    target.display()
                ),
            ));
        }
        if let Some(glob) = self.denied_by(&rel) {
            return Err(PathError {
                user_action: Some(format!(
                    "remove `{glob}` from paths.deny in the configuration (.clada.yml) to allow it"
                )),
                ..self.link_refusal(
                    link,
                    PathErrorCode::PathDenied,
                    format!(
                        "has the target '{}', which leads to '{rel}', matching `{glob}` in the \
                         configuration's paths.deny",
                        target.display()
                    ),
                )
            });
        }
        Ok(())
    }

    fn link_refusal(&self, link: &ResolvedPath, code: PathErrorCode, why: String) -> PathError {
        let keep = match code {
            PathErrorCode::SymlinkEscape | PathErrorCode::GitDir => {
                "; a link must lead, from its own folder and through no other link, to a place \
                 inside the worktree and outside every git directory"
            }
            _ => "",
        };
        PathError {
            code,
            path: link.given.clone(),
            user_action: None,
            message: format!(
                "the symbolic link '{}' {why}{keep}; nothing was written",
                link.given
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn sandbox() -> (tempfile::TempDir, Sandbox) {
        let dir = tempfile::tempdir().expect("tmp");
        std::fs::create_dir_all(dir.path().join("a/b")).expect("mkdir");
        let s = Sandbox::new(dir.path(), false).expect("sandbox");
        (dir, s)
    }

    fn check(s: &Sandbox, at: &str, target: &str, links: &[(&str, &str)]) -> Result<(), String> {
        let links: HashMap<PathBuf, PathBuf> = links
            .iter()
            .map(|(p, t)| (s.root().join(p), PathBuf::from(t)))
            .collect();
        let link = s
            .resolve(at, super::super::Access::Entry)
            .map_err(|e| e.to_string())?;
        s.check_link_target(&link, Path::new(target), &|p| links.get(p).cloned())
            .map_err(|e| e.to_string())
    }

    #[test]
    fn targets_inside_the_worktree_are_allowed() {
        let (_d, s) = sandbox();
        for (at, target) in [
            ("l", "a/b/c.txt"),
            ("a/b/l", "../../x"),
            ("a/l", "./b/../b/c"),
            ("l", "."),
            ("a/b/l", "missing/and/dangling"),
        ] {
            assert_eq!(check(&s, at, target, &[]), Ok(()), "{at} -> {target}");
        }
        // A chain of links inside is fine.
        assert_eq!(
            check(&s, "l", "a/m", &[("a/m", "b/n"), ("a/b/n", "../x")]),
            Ok(())
        );
    }

    #[test]
    fn targets_leading_out_into_git_or_through_a_link_are_refused() {
        let (_d, s) = sandbox();
        for (at, target, links, what) in [
            ("l", "../x", vec![], "above the worktree"),
            ("a/b/l", "../../../etc/passwd", vec![], "above the worktree"),
            ("l", "/etc/passwd", vec![], "absolute target"),
            ("l", ".git/hooks/pre-commit", vec![], "git directory"),
            ("a/l", "../.GIT", vec![], "git directory"),
            ("l", "a/.git/config", vec![], "git directory"),
            ("l", "a/m/x", vec![("a/m", "/etc")], "existing link"),
            ("l", "a/m/../x", vec![("a/m", "b")], "existing link"),
            ("l", "a/m", vec![("a/m", "../../out")], "above the worktree"),
            ("l", "a/m", vec![("a/m", "../.git")], "git directory"),
            ("l", "x\ny", vec![], "one line"),
            ("l", "", vec![], "one line"),
        ] {
            let e = check(&s, at, target, &links).expect_err(target);
            assert!(e.contains(what), "{at} -> {target}: {e}");
        }
    }

    #[test]
    fn nested_git_entries_and_the_names_git_refuses_for_links_are_refused() {
        let (_d, s) = sandbox();
        let s = s.protect_git(vec![super::super::protected::Entry {
            rel: "vendor/lib/.git".into(),
            what: "a nested git directory".into(),
            kind: super::super::protected::Kind::Git,
        }]);
        let e = check(&s, "l", "vendor/lib/.git", &[]).expect_err("git");
        assert!(e.contains("git directory"), "{e}");
        for name in [".gitmodules", ".gitattributes", ".GITIGNORE", ".mailmap"] {
            let p = s
                .resolve(name, super::super::Access::Entry)
                .expect("resolve");
            let e = s.check_link_at(&p).expect_err(name).to_string();
            assert!(e.contains("without following symlinks"), "{name}: {e}");
        }
        let p = s
            .resolve(".husky/pre-commit", super::super::Access::Entry)
            .expect("resolve");
        let e = s.check_link_at(&p).expect_err("hook");
        assert_eq!(e.code, PathErrorCode::ProtectedHook);
        let p = s
            .resolve(".clada.yml", super::super::Access::Entry)
            .expect("resolve");
        assert_eq!(
            s.check_link_at(&p).expect_err("config").code,
            PathErrorCode::ProtectedConfig
        );
    }
}
