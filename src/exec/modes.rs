//! After a block: no setuid or setgid file stays in the worktree (issue 37 §4). The seccomp
//! filter refuses those bits inside the sandbox; this catches what ran without it (`sandbox.level:
//! off`, a system without the sandbox) and what the filter cannot see. Every regular file
//! outside the git directories is looked at (not only the changed and untracked ones: this
//! layer knows no git); a bit found is cleared through a descriptor opened without following
//! links, and named in the block's warnings.

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

const SET_ID: u32 = 0o6000;

/// Clears the setuid and setgid bits of every regular file under `root` (outside any `.git`
/// and the `skip` folders); returns the root-relative paths it cleared, and those it could
/// not (with why).
pub fn clear_set_id(root: &Path, skip: &[PathBuf]) -> (Vec<String>, Vec<String>) {
    let mut cleared = Vec::new();
    let mut failed = Vec::new();
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
            if md.mode() & SET_ID == 0 {
                continue;
            }
            let rel = p.strip_prefix(root).unwrap_or(&p).display().to_string();
            match clear(&p) {
                Ok(()) => cleared.push(rel),
                Err(err) => failed.push(format!("{rel} ({err})")),
            }
        }
    }
    cleared.sort();
    (cleared, failed)
}

/// Clears the bits of the regular file `p` (never through a link).
fn clear(p: &Path) -> std::io::Result<()> {
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
    let md = f.metadata()?;
    if !md.is_file() {
        return Ok(());
    }
    let mode = md.mode() & 0o7777 & !SET_ID;
    match f.set_permissions(std::fs::Permissions::from_mode(mode)) {
        Ok(()) => Ok(()),
        // An O_PATH descriptor cannot be changed: through /proc/self/fd, which names exactly
        // the file opened.
        Err(_) => {
            use std::os::fd::AsRawFd;
            let via = format!("/proc/self/fd/{}", f.as_raw_fd());
            std::fs::set_permissions(via, std::fs::Permissions::from_mode(mode))
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
        let (cleared, failed) = clear_set_id(r, &[]);
        assert_eq!(cleared, ["bin/tool", "g"]);
        assert!(failed.is_empty(), "{failed:?}");
        let mode = |f: &str| std::fs::metadata(r.join(f)).unwrap().mode() & 0o7777;
        assert_eq!(
            (mode("bin/tool"), mode("g"), mode("plain")),
            (0o755, 0o711, 0o755)
        );
        assert_eq!(mode(".git/x"), 0o4755);
    }
}
