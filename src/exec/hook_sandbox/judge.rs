//! A failed contained hook: the model's ❌ or the user's ⏸ (docs/hooks-sandbox.md, "A failed
//! hook"). Only a refusal naming a real path outside every grant the hook had is the
//! sandbox's — then the exact configuration line that allows it is proposed. A reply that
//! prints "Permission denied" about nothing, about a path the hook could reach, or about a
//! credential, stays the model's failure.

use std::path::{Path, PathBuf};

use super::grants;

/// Phrases a refusal of the sandbox prints (strerror texts and the codes tools print).
const REFUSALS: &[&str] = &[
    "permission denied",
    "read-only file system",
    "operation not permitted",
    "eacces",
    "erofs",
    "eperm",
];

/// Words that say a refused access was a write (a path outside the writable folders is
/// proposed for `sandbox.write`, not `sandbox.read`).
const WRITES: &[&str] = &[
    "cannot create",
    "can't create",
    "could not create",
    "unable to create",
    "failed to create",
    "cannot touch",
    "cannot write",
    "cannot remove",
    "cannot move",
    "read-only file system",
    "erofs",
    "mkdir",
];

/// What one contained run could reach, to judge its failure.
#[derive(Debug, Clone, Default)]
pub(crate) struct View {
    pub readable: Vec<PathBuf>,
    pub writable: Vec<PathBuf>,
    /// The git directories, and why they were read-only when they were (no overlay).
    pub git_dirs: Vec<PathBuf>,
    pub git_read_only: Option<String>,
    pub home: Option<PathBuf>,
    /// Where the user's own configuration file is (named in a proposal).
    pub user_file: Option<PathBuf>,
}

/// What the user can do about a failure that is the sandbox's, if it is.
pub(crate) fn needs_user(output: &str, view: &View) -> Option<String> {
    for line in output.lines() {
        let lower = line.to_ascii_lowercase();
        if !REFUSALS.iter().any(|r| lower.contains(r)) {
            continue;
        }
        let write = WRITES.iter().any(|w| lower.contains(w));
        for p in paths_in(line, view.home.as_deref()) {
            if let Some(how) = judge_path(&p, view, write) {
                return Some(how);
            }
        }
    }
    None
}

/// The absolute (or `~/`) paths a line names, without the quotes and punctuation around them.
fn paths_in(line: &str, home: Option<&Path>) -> Vec<PathBuf> {
    line.split(|c: char| c.is_whitespace() || c == '=')
        .map(|w| {
            w.trim_matches(|c: char| {
                matches!(
                    c,
                    '\'' | '"' | '`' | ':' | ',' | ';' | '(' | ')' | '[' | ']' | '‘' | '’'
                )
            })
        })
        .filter_map(|w| match w.strip_prefix("~/") {
            Some(rest) => home.map(|h| h.join(rest)),
            None if w.starts_with('/') && w.len() > 1 => Some(PathBuf::from(w)),
            None => None,
        })
        .map(|p| crate::sandbox::normalize(&p))
        .collect()
}

/// The ⏸ for one named path, if it is one the sandbox kept from the hook (`write`: the line
/// says it was a write).
fn judge_path(p: &Path, view: &View, write: bool) -> Option<String> {
    let home = view.home.as_deref();
    if grants::is_secret(p, home) || is_etc_secret(p) {
        return None;
    }
    // A path that is not there (nor its folder) cannot have been refused by the sandbox.
    let exists = std::fs::symlink_metadata(p).is_ok() || p.parent().is_some_and(|d| d.is_dir());
    if !exists {
        return None;
    }
    let inside = |list: &[PathBuf]| list.iter().any(|g| p.starts_with(g));
    if let Some(why) = &view.git_read_only {
        if inside(&view.git_dirs) {
            return Some(format!(
                "the hook could not write '{}': the git directory was read-only for it \
                 because {why}; commit with --no-verify, or run the hook yourself \
                 (`git commit`)",
                p.display()
            ));
        }
    }
    if !inside(&view.readable) && !write {
        let dir = proposal(p, home)?;
        return Some(line(view, "read", &dir, p, "read"));
    }
    if !inside(&view.writable) && (write || inside(&view.readable)) {
        // Write proposals only in the home folder, never over programs.
        let dir = proposal(p, home).filter(|d| home.is_some_and(|h| d.starts_with(h)))?;
        if grants::holds_programs(&dir) {
            return None;
        }
        return Some(line(view, "write", &dir, p, "write"));
    }
    None
}

/// `/etc`'s secrets, which the sandbox never reads.
fn is_etc_secret(p: &Path) -> bool {
    p.strip_prefix("/etc").ok().is_some_and(|rest| {
        super::super::confine::ETC_SECRETS
            .iter()
            .any(|s| rest.starts_with(s))
    })
}

/// The folder to propose for `p`: below the home folder its first folder (`~/.rustup`), or
/// its second under `.config`, `.local/share` and `.cache` (`~/.config/tool`); elsewhere the
/// folder holding it. `None` when that would not be an acceptable grant.
fn proposal(p: &Path, home: Option<&Path>) -> Option<PathBuf> {
    let dir = match home.and_then(|h| p.strip_prefix(h).ok().map(|rest| (h, rest))) {
        Some((h, rest)) => {
            let parts: Vec<_> = rest.components().collect();
            let take = match parts.first().map(|c| c.as_os_str().to_string_lossy()) {
                Some(first) if first == ".config" || first == ".cache" => 2,
                Some(first) if first == ".local" => 3,
                _ => 1,
            };
            let mut d = h.to_path_buf();
            for c in parts.iter().take(take.min(parts.len())) {
                d.push(c);
            }
            d
        }
        None if p.is_dir() => p.to_path_buf(),
        None => p.parent()?.to_path_buf(),
    };
    grants::acceptable(&dir, home).then_some(dir)
}

/// The ⏸'s text: what was refused, and the exact line for the user's own file.
fn line(view: &View, key: &str, dir: &Path, p: &Path, what: &str) -> String {
    let shown = match view.home.as_deref().and_then(|h| dir.strip_prefix(h).ok()) {
        Some(rest) => format!("~/{}", rest.display()),
        None => dir.display().to_string(),
    };
    let file = view
        .user_file
        .as_ref()
        .map(|f| f.display().to_string())
        .unwrap_or_else(|| "your git-clada configuration file".into());
    format!(
        "the sandbox did not let the hook {what} '{}'; if the hook needs it, add to {file}:\n  \
         sandbox:\n    {key}: [\"{shown}\"]\nthen commit again (`git clada commit`) — \
         `git clada hooks check` tries the hooks first",
        p.display()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(home: &Path, root: &Path) -> View {
        View {
            readable: vec![root.to_path_buf(), "/usr".into()],
            writable: vec![root.to_path_buf()],
            git_dirs: vec![root.join(".git")],
            git_read_only: None,
            home: Some(home.to_path_buf()),
            user_file: Some(home.join(".config/clada/config.yml")),
        }
    }

    #[test]
    fn only_a_real_path_outside_the_grants_is_the_users() {
        let t = tempfile::tempdir().unwrap();
        let home = t.path().join("home");
        let root = home.join("project");
        std::fs::create_dir_all(root.join(".git")).unwrap();
        std::fs::create_dir_all(home.join(".rustup/toolchains")).unwrap();
        std::fs::create_dir_all(home.join(".ssh")).unwrap();
        std::fs::write(home.join(".ssh/id_rsa"), "k").unwrap();
        let v = view(&home, &root);
        let how = needs_user(
            &format!(
                "error: could not open '{}/.rustup/toolchains/x': Permission denied (os error 13)",
                home.display()
            ),
            &v,
        )
        .unwrap();
        assert!(how.contains("read: [\"~/.rustup\"]"), "{how}");
        assert!(how.contains(".config/clada/config.yml"), "{how}");
        // No path, a path the hook could reach, a path that is not there, a credential:
        // the model's failure.
        for out in [
            "test failed: Permission denied".to_string(),
            format!("{}/src/x.rs: Permission denied", root.display()),
            "/nonexistent/dir/x: Permission denied".to_string(),
            format!("{}/.ssh/id_rsa: Permission denied", home.display()),
            "/etc/shadow: Permission denied".to_string(),
        ] {
            assert_eq!(needs_user(&out, &v), None, "{out}");
        }
        // A write refused in a readable folder of the home: a write line, never over programs.
        let mut v2 = v.clone();
        v2.readable.push(home.join(".cache"));
        std::fs::create_dir_all(home.join(".cache/tool")).unwrap();
        let how = needs_user(
            &format!(
                "OSError: [Errno 30] Read-only file system: '{}/.cache/tool/db'",
                home.display()
            ),
            &v2,
        )
        .unwrap();
        assert!(how.contains("write: [\"~/.cache/tool\"]"), "{how}");
        std::fs::create_dir_all(home.join(".cache/tool/bin")).unwrap();
        assert_eq!(
            needs_user(
                &format!("{}/.cache/tool/db: Permission denied", home.display()),
                &v2
            ),
            None
        );
    }

    #[test]
    fn a_refused_write_proposes_a_write_line_only_in_the_home_folder() {
        let t = tempfile::tempdir().unwrap();
        let home = t.path().join("home");
        let root = home.join("project");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::create_dir_all(home.join(".cache/tool")).unwrap();
        let v = view(&home, &root);
        let how = needs_user(
            &format!(
                "sh: 1: cannot create {}/.cache/tool/x: Permission denied",
                home.display()
            ),
            &v,
        )
        .unwrap();
        assert!(how.contains("write: [\"~/.cache/tool\"]"), "{how}");
        // Outside the home folder no write line is proposed (`/tmp/x` would be one).
        let out = format!(
            "sh: 1: cannot create {}/x: Permission denied",
            t.path().display()
        );
        assert_eq!(needs_user(&out, &v), None);
    }

    #[test]
    fn a_read_only_git_directory_is_the_users_only_where_no_overlay_was_possible() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().join("p");
        std::fs::create_dir_all(root.join(".git/refs")).unwrap();
        let mut v = view(t.path(), &root);
        v.readable.push(root.join(".git"));
        let out = format!(
            "error: cannot lock ref 'refs/stash': unable to create '{}/.git/refs/stash.lock': Read-only file system",
            root.display()
        );
        // With the overlay, a write there cannot have been refused: the model's.
        v.writable.push(root.join(".git"));
        assert_eq!(needs_user(&out, &v), None);
        v.writable.pop();
        v.git_read_only = Some("this kernel has no overlayfs in user namespaces".into());
        let how = needs_user(&out, &v).unwrap();
        assert!(how.contains("no overlayfs"), "{how}");
    }
}
