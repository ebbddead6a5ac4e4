//! After a block or a hook: no setuid or setgid file, and no file with file capabilities
//! (`security.capability`, setuid by another name), stays in the worktree (issue 37 §4, issue
//! 51 item 4). The seccomp filter refuses the bits inside the sandbox and the confined program
//! has no `CAP_SETFCAP` (`harden`); this catches what ran without them (`sandbox.level: off`,
//! `hooks.sandbox: off`, a system without the sandbox) and what they cannot see. Every regular
//! file outside the git directories is looked at for the bits (not only the changed and
//! untracked ones: this layer knows no git), and those changed since the step started (their
//! `ctime`, which no process can set back) for the capability; what is found is cleared
//! through a descriptor opened without following links, and named in the step's warnings.

use std::os::fd::AsRawFd;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

const SET_ID: u32 = 0o6000;

/// What [`clear_privileges`] found after a step: root-relative paths.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Cleared {
    /// Files whose setuid or setgid bits were cleared.
    pub set_id: Vec<String>,
    /// Files whose `security.capability` was removed.
    pub capabilities: Vec<String>,
    /// Files with the bits that could not be cleared, and why.
    pub set_id_failed: Vec<String>,
    /// Files with capabilities that could not be removed, and why.
    pub capabilities_failed: Vec<String>,
}

impl Cleared {
    /// The warnings naming what `who` (`the code`, `hook pre-commit`) left, names escaped.
    pub fn warnings(&self, who: &str) -> Vec<String> {
        let names = |v: &[String]| -> String {
            v.iter()
                .map(|p| clada_base::term::escape(p, clada_base::term::Rule::Name).into_owned())
                .collect::<Vec<_>>()
                .join(", ")
        };
        let mut out = Vec::new();
        if !self.set_id.is_empty() {
            out.push(format!(
                "{who} left setuid or setgid files, whose bits were cleared (a file with them \
                 runs as its owner for whoever runs it): {}",
                names(&self.set_id)
            ));
        }
        if !self.set_id_failed.is_empty() {
            out.push(format!(
                "{who} left setuid or setgid files whose bits could not be cleared: {}",
                names(&self.set_id_failed)
            ));
        }
        if !self.capabilities.is_empty() {
            out.push(format!(
                "{who} gave files capabilities (security.capability: a file with them runs \
                 with those privileges for whoever runs it), which were removed: {}",
                names(&self.capabilities)
            ));
        }
        if !self.capabilities_failed.is_empty() {
            out.push(format!(
                "{who} gave files capabilities (security.capability) that could not be \
                 removed: {}",
                names(&self.capabilities_failed)
            ));
        }
        out
    }
}

/// Clears the setuid and setgid bits of every regular file under `root` (outside any `.git`
/// and the `skip` folders), and removes `security.capability` from those changed since
/// `since` (a second of slack for the file system's coarse clock).
pub fn clear_privileges(root: &Path, skip: &[PathBuf], since: SystemTime) -> Cleared {
    let since = since
        .checked_sub(Duration::from_secs(1))
        .and_then(|t| t.duration_since(SystemTime::UNIX_EPOCH).ok())
        .unwrap_or_default();
    let mut out = Cleared::default();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            let Ok(t) = e.file_type() else { continue };
            if t.is_dir() {
                if !e.file_name().eq_ignore_ascii_case(".git") && !skip.contains(&p) {
                    stack.push(p);
                }
                continue;
            }
            if !t.is_file() {
                continue;
            }
            let Ok(md) = e.metadata() else { continue };
            let rel = || p.strip_prefix(root).unwrap_or(&p).display().to_string();
            if md.mode() & SET_ID != 0 {
                match clear(&p) {
                    Ok(()) => out.set_id.push(rel()),
                    Err(err) => out.set_id_failed.push(format!("{} ({err})", rel())),
                }
            }
            let changed = (md.ctime(), md.ctime_nsec())
                >= (since.as_secs() as i64, i64::from(since.subsec_nanos()));
            if changed && caps::has(&p) {
                match caps::remove(&p) {
                    Ok(()) => out.capabilities.push(rel()),
                    Err(err) => out.capabilities_failed.push(format!("{} ({err})", rel())),
                }
            }
        }
    }
    out.set_id.sort();
    out.capabilities.sort();
    out
}

/// The regular file `p`, opened without following a link (for reading where it may be, else
/// as a path only); `None` when it is not a regular file.
fn open_file(p: &Path) -> std::io::Result<Option<std::fs::File>> {
    use std::os::unix::fs::OpenOptionsExt;
    let f = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(p)
        .or_else(|_| {
            std::fs::OpenOptions::new()
                .custom_flags(libc::O_PATH | libc::O_NOFOLLOW)
                .read(true)
                .open(p)
        })?;
    Ok(f.metadata()?.is_file().then_some(f))
}

/// `/proc/self/fd/N` for `f`: names exactly the file opened (an O_PATH descriptor cannot be
/// changed itself).
fn via_proc(f: &std::fs::File) -> String {
    format!("/proc/self/fd/{}", f.as_raw_fd())
}

/// Clears the bits of the regular file `p` (never through a link).
fn clear(p: &Path) -> std::io::Result<()> {
    let Some(f) = open_file(p)? else {
        return Ok(());
    };
    let mode = f.metadata()?.mode() & 0o7777 & !SET_ID;
    match f.set_permissions(std::fs::Permissions::from_mode(mode)) {
        Ok(()) => Ok(()),
        Err(_) => std::fs::set_permissions(via_proc(&f), std::fs::Permissions::from_mode(mode)),
    }
}

// File capabilities (`security.capability`): Linux's; none to find or remove elsewhere.
clada_base::linux! {
    mod caps {
        use std::path::Path;

        const NAME: &std::ffi::CStr = c"security.capability";

        /// Whether `p` (not followed if a link) has file capabilities.
        pub fn has(p: &Path) -> bool {
            use std::os::unix::ffi::OsStrExt;
            let Ok(c) = std::ffi::CString::new(p.as_os_str().as_bytes()) else {
                return false;
            };
            // SAFETY: a size query (no buffer) on a C string that outlives the call.
            unsafe { libc::lgetxattr(c.as_ptr(), NAME.as_ptr(), std::ptr::null_mut(), 0) >= 0 }
        }

        /// Removes them from the regular file `p` (never through a link).
        pub fn remove(p: &Path) -> std::io::Result<()> {
            let Some(f) = super::open_file(p)? else {
                return Ok(());
            };
            let via = std::ffi::CString::new(super::via_proc(&f))
                .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))?;
            // SAFETY: C strings that outlive the call.
            if unsafe { libc::removexattr(via.as_ptr(), NAME.as_ptr()) } != 0 {
                let err = std::io::Error::last_os_error();
                if err.raw_os_error() != Some(libc::ENODATA) {
                    return Err(err);
                }
            }
            Ok(())
        }
    }
}

clada_base::portable! {
    mod caps {
        use std::path::Path;

        pub fn has(_: &Path) -> bool {
            false
        }

        pub fn remove(_: &Path) -> std::io::Result<()> {
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_id_bits_are_cleared_and_named_links_and_git_left_alone() {
        let d = tempfile::tempdir().unwrap();
        let r = d.path();
        std::fs::create_dir_all(r.join("bin")).unwrap();
        std::fs::create_dir_all(r.join(".git")).unwrap();
        for (f, m) in [
            ("bin/tool", 0o4755),
            ("g", 0o2711),
            ("plain", 0o755),
            (".git/x", 0o4755),
        ] {
            std::fs::write(r.join(f), "x").unwrap();
            std::fs::set_permissions(r.join(f), std::fs::Permissions::from_mode(m)).unwrap();
        }
        std::os::unix::fs::symlink("bin/tool", r.join("link")).unwrap();
        let cleared = clear_privileges(r, &[], SystemTime::now());
        assert_eq!(cleared.set_id, ["bin/tool", "g"]);
        assert!(cleared.set_id_failed.is_empty(), "{cleared:?}");
        assert!(cleared.warnings("the code")[0]
            .ends_with("runs as its owner for whoever runs it): bin/tool, g"));
        let mode = |f: &str| std::fs::metadata(r.join(f)).unwrap().mode() & 0o7777;
        assert_eq!(
            (mode("bin/tool"), mode("g"), mode("plain")),
            (0o755, 0o711, 0o755)
        );
        assert_eq!(mode(".git/x"), 0o4755);
    }
}
