//! What a hook may read and run besides the `workspace` level (docs/hooks-sandbox.md, "Reads
//! and execution"): the `$PATH` folders and the installations they belong to, the hook's
//! interpreter, husky's `init.sh` folder — and never the home folder itself or anything
//! holding credentials.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use super::super::confine::SYSTEM_DIRS;

/// Folders and files under the home folder that hold credentials: no grant ever covers them.
pub(crate) const SECRETS: &[&str] = &[
    ".ssh",
    ".aws",
    ".gnupg",
    ".config/gh",
    ".config/hub",
    ".local/share/keyrings",
    ".local/share/kwalletd",
    ".password-store",
    ".netrc",
    ".git-credentials",
    ".config/git/credentials",
    ".docker",
    ".kube",
    ".npmrc",
    ".yarnrc",
    ".pypirc",
    ".cargo/credentials",
    ".cargo/credentials.toml",
    ".config/gcloud",
    ".azure",
    ".gem/credentials",
    ".terraform.d",
    ".vault-token",
];

/// Most entries of one `$PATH` folder looked at for symlinks (a folder like `~/.local/bin`
/// holds a handful; one holding thousands is a system folder, granted whole).
const MAX_ENTRIES: usize = 512;

/// The user's home folder (`$HOME`), if set and absolute.
pub(crate) fn home() -> Option<PathBuf> {
    std::env::var_os("HOME")
        .map(PathBuf::from)
        .filter(|h| h.is_absolute())
}

/// `p` and, when it differs, where it really is.
fn forms(p: &Path) -> Vec<PathBuf> {
    let mut out = vec![p.to_path_buf()];
    if let Ok(c) = std::fs::canonicalize(p) {
        if c != p {
            out.push(c);
        }
    }
    out
}

/// The credential paths of `home` (each also as it really is).
pub(crate) fn secrets(home: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for h in forms(home) {
        out.extend(SECRETS.iter().map(|s| h.join(s)));
    }
    out
}

/// Whether `p` is a credential path or inside one.
pub(crate) fn is_secret(p: &Path, home: Option<&Path>) -> bool {
    let Some(home) = home else {
        return false;
    };
    let secrets = secrets(home);
    forms(p)
        .iter()
        .any(|f| secrets.iter().any(|s| f.starts_with(s)))
}

/// Whether a grant on `g` is acceptable: absolute, not `/`, not the home folder or above
/// it, not holding or inside a credential path.
pub(crate) fn acceptable(g: &Path, home: Option<&Path>) -> bool {
    if !g.is_absolute() || g.parent().is_none() {
        return false;
    }
    let Some(home) = home else {
        return true;
    };
    let homes = forms(home);
    let secrets = secrets(home);
    forms(g).iter().all(|f| {
        !homes.iter().any(|h| h.starts_with(f))
            && !secrets.iter().any(|s| s.starts_with(f) || f.starts_with(s))
    })
}

/// Whether `p` lies in one of the system's program folders (granted to every level).
pub(crate) fn is_system(p: &Path) -> bool {
    SYSTEM_DIRS.iter().any(|d| p.starts_with(d))
}

/// The installation a program at `p` belongs to: the folder above its `bin`, `sbin` or
/// `shims` folder (a venv, `~/.nvm/versions/node/v20`), else its own folder.
pub(crate) fn installation(p: &Path) -> Option<PathBuf> {
    let dir = p.parent()?;
    let name = dir.file_name().and_then(OsStr::to_str).unwrap_or_default();
    Some(match name {
        "bin" | "sbin" | "shims" => dir.parent()?.to_path_buf(),
        _ => dir.to_path_buf(),
    })
}

/// Adds `g` to `out` when acceptable, not a system folder, and not already covered.
fn push(out: &mut Vec<PathBuf>, g: PathBuf, home: Option<&Path>) {
    if is_system(&g) || !acceptable(&g, home) || out.iter().any(|o| g.starts_with(o)) {
        return;
    }
    out.retain(|o| !o.starts_with(&g));
    out.push(g);
}

/// Read and execute for the `$PATH` folders (`path`, as the variable holds them): each
/// absolute folder, the installation it belongs to when it is a `bin`, `sbin` or `shims`
/// folder, and the installations its symlinks lead into.
pub(crate) fn path_grants(path: &OsStr, home: Option<&Path>) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for dir in std::env::split_paths(path).filter(|d| d.is_absolute()) {
        if is_system(&dir) || !dir.is_dir() {
            continue;
        }
        let prefix = installation(&dir.join("x")).filter(|p| p != &dir);
        push(&mut out, dir.clone(), home);
        if let Some(p) = prefix {
            push(&mut out, p, home);
        }
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten().take(MAX_ENTRIES) {
            if !e.file_type().is_ok_and(|t| t.is_symlink()) {
                continue;
            }
            if let Some(target) = std::fs::canonicalize(e.path())
                .ok()
                .filter(|t| !t.starts_with(&dir))
            {
                if let Some(inst) = installation(&target) {
                    push(&mut out, inst, home);
                }
            }
        }
    }
    out
}

/// The programs a hook file names to run it: its `#!` interpreter (through `env`, looked up
/// in `path`) and the `INSTALL_PYTHON` the pre-commit framework writes into its hook.
pub(crate) fn interpreters(hook: &Path, path: &OsStr) -> Vec<PathBuf> {
    use std::io::Read;
    let mut head = Vec::new();
    let Ok(f) = std::fs::File::open(hook) else {
        return Vec::new();
    };
    if f.take(8192).read_to_end(&mut head).is_err() {
        return Vec::new();
    }
    let text = String::from_utf8_lossy(&head);
    let mut out = Vec::new();
    if let Some(line) = text.lines().next().and_then(|l| l.strip_prefix("#!")) {
        let mut words = line.split_whitespace();
        if let Some(first) = words.next() {
            let prog = PathBuf::from(first);
            let is_env = prog.file_name().is_some_and(|n| n == "env");
            out.push(prog);
            if is_env {
                let name = words.find(|w| !w.starts_with('-') && !w.contains('='));
                out.extend(name.and_then(|n| on_path(n, path)));
            }
        }
    }
    for line in text.lines() {
        if let Some(v) = line.trim().strip_prefix("INSTALL_PYTHON=") {
            let v = v.trim_matches(|c| c == '\'' || c == '"');
            if v.starts_with('/') {
                out.push(PathBuf::from(v));
            }
        }
    }
    out
}

/// Where `name` is found on `path`.
fn on_path(name: &str, path: &OsStr) -> Option<PathBuf> {
    if name.contains('/') {
        return Some(PathBuf::from(name));
    }
    std::env::split_paths(path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// Read and execute for the programs `progs` and the installations they belong to, as
/// written and as they really are.
pub(crate) fn program_grants(progs: &[PathBuf], home: Option<&Path>) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for p in progs.iter().filter(|p| p.is_absolute()) {
        for f in forms(p) {
            if let Some(inst) = installation(&f) {
                push(&mut out, inst, home);
            }
        }
    }
    out
}

/// Husky 9's configuration folder, sourced before every hook (`init.sh`).
pub(crate) fn husky_dir(home: Option<&Path>) -> Option<PathBuf> {
    let xdg = std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| home.map(|h| h.join(".config")))?;
    Some(xdg.join("husky"))
}

/// Whether the folder `dir` holds programs (an executable file, or a `bin` folder, within
/// three levels): a write grant there would let contained code plant a program the user
/// runs later.
pub(crate) fn holds_programs(dir: &Path) -> bool {
    fn walk(dir: &Path, depth: usize, seen: &mut usize) -> bool {
        use std::os::unix::fs::PermissionsExt;
        let Ok(entries) = std::fs::read_dir(dir) else {
            return false;
        };
        for e in entries.flatten() {
            *seen += 1;
            if *seen > 4096 {
                return true;
            }
            let Ok(md) = e.metadata() else { continue };
            let name = e.file_name();
            if md.is_dir() {
                if matches!(name.to_str(), Some("bin" | "sbin" | "shims" | "hooks")) {
                    return true;
                }
                if depth > 0 && walk(&e.path(), depth - 1, seen) {
                    return true;
                }
            } else if md.permissions().mode() & 0o111 != 0 {
                return true;
            }
        }
        false
    }
    let name = dir.file_name().and_then(OsStr::to_str).unwrap_or_default();
    matches!(name, "bin" | "sbin" | "shims" | "hooks") || walk(dir, 2, &mut 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grants_never_cover_home_or_credentials() {
        let home = Path::new("/home/u");
        let h = Some(home);
        assert!(acceptable(Path::new("/home/u/.cargo/bin"), h));
        assert!(acceptable(Path::new("/home/u/.nvm/versions/node/v20"), h));
        assert!(
            !acceptable(Path::new("/home/u/.cargo"), h),
            "credentials.toml"
        );
        assert!(!acceptable(Path::new("/home/u/.local"), h), "keyrings");
        assert!(!acceptable(Path::new("/home/u"), h));
        assert!(!acceptable(Path::new("/home"), h));
        assert!(!acceptable(Path::new("/"), h));
        assert!(!acceptable(Path::new("/home/u/.ssh"), h));
        assert!(!acceptable(Path::new("/home/u/.ssh/keys"), h));
        assert!(!acceptable(Path::new("relative/bin"), h));
        assert!(is_secret(Path::new("/home/u/.aws/credentials"), h));
        assert!(!is_secret(Path::new("/home/u/.awsome"), h));
    }

    #[test]
    fn an_installation_is_the_folder_above_bin() {
        let i = |p: &str| installation(Path::new(p)).unwrap();
        assert_eq!(i("/v/venv/bin/python"), Path::new("/v/venv"));
        assert_eq!(i("/h/.pyenv/shims/python3"), Path::new("/h/.pyenv"));
        assert_eq!(i("/opt/tool/run.sh"), Path::new("/opt/tool"));
    }

    #[test]
    fn path_folders_their_installations_and_symlink_targets_are_granted() {
        let t = tempfile::tempdir().unwrap();
        let home = t.path().join("home");
        let local_bin = home.join(".local/bin");
        let venv = home.join(".local/share/pipx/venvs/tool");
        std::fs::create_dir_all(&local_bin).unwrap();
        std::fs::create_dir_all(venv.join("bin")).unwrap();
        std::fs::write(venv.join("bin/tool"), "#!/bin/sh\n").unwrap();
        std::os::unix::fs::symlink(venv.join("bin/tool"), local_bin.join("tool")).unwrap();
        let nvm = home.join(".nvm/versions/node/v20/bin");
        std::fs::create_dir_all(&nvm).unwrap();
        std::fs::create_dir_all(home.join(".ssh")).unwrap();
        let path =
            std::env::join_paths([local_bin.clone(), nvm.clone(), "/usr/bin".into()]).unwrap();
        let g = path_grants(&path, Some(&home));
        let c = |p: &Path| std::fs::canonicalize(p).unwrap();
        assert!(g.contains(&local_bin), "{g:?}");
        assert!(g.contains(&c(&venv)), "{g:?}");
        assert!(g.contains(&home.join(".nvm/versions/node/v20")), "{g:?}");
        // ~/.local itself (keyrings) and /usr (already granted) are not.
        assert!(!g.contains(&home.join(".local")), "{g:?}");
        assert!(!g.iter().any(|p| p.starts_with("/usr")), "{g:?}");
    }

    #[test]
    fn interpreters_follow_env_and_pre_commits_install_python() {
        let t = tempfile::tempdir().unwrap();
        let bin = t.path().join("venv/bin");
        std::fs::create_dir_all(&bin).unwrap();
        std::fs::write(bin.join("node"), "").unwrap();
        let hook = t.path().join("pre-commit");
        std::fs::write(
            &hook,
            format!(
                "#!/usr/bin/env -S node\n# generated\nINSTALL_PYTHON='{}/python'\n",
                bin.display()
            ),
        )
        .unwrap();
        let progs = interpreters(&hook, bin.as_os_str());
        assert_eq!(
            progs,
            [
                PathBuf::from("/usr/bin/env"),
                bin.join("node"),
                bin.join("python")
            ]
        );
        assert_eq!(program_grants(&progs, None), [t.path().join("venv")]);
    }
}
