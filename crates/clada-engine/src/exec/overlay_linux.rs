//! Linux: the discarded overlays a hook's git directory is mounted as (docs/hooks-sandbox.md).
//! The real folder is the lower layer; the upper and work layers are in a folder of the jail
//! that the process cannot reach, deleted with it. Entries the process must not see (the
//! index lock git-clada holds) get a whiteout in the upper layer before the mount. Everything
//! is prepared before the fork; the child only calls `mount`.

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use super::super::OverlayDir;

/// One overlay, ready for the child.
pub(super) struct OverlayMount {
    target: CString,
    /// With `userxattr` (what an unprivileged overlay wants), and without it for a kernel
    /// that lacks the option.
    options: [CString; 2],
}

/// Escapes what overlayfs reads as separators in a layer's path.
fn escaped(p: &Path) -> Vec<u8> {
    let mut out = Vec::new();
    for &b in p.as_os_str().as_bytes() {
        if matches!(b, b',' | b':' | b'\\') {
            out.push(b'\\');
        }
        out.push(b);
    }
    out
}

/// Prepares the overlay of `o` with its layers in `layers/<n>`: the folders, the whiteouts,
/// the mount options.
pub(super) fn prepare(o: &OverlayDir, layers: &Path, n: usize) -> Result<OverlayMount, String> {
    let base = layers.join(n.to_string());
    let (upper, work) = (base.join("upper"), base.join("work"));
    for d in [&upper, &work] {
        std::fs::create_dir_all(d)
            .map_err(|e| format!("cannot create the overlay's layer {}: {e}", d.display()))?;
    }
    for h in &o.hide {
        whiteout(&upper, h)?;
    }
    let opts = |userxattr: bool| {
        let mut v: Vec<u8> = if userxattr {
            b"userxattr,".to_vec()
        } else {
            Vec::new()
        };
        v.extend_from_slice(b"lowerdir=");
        v.extend(escaped(&o.dir));
        v.extend_from_slice(b",upperdir=");
        v.extend(escaped(&upper));
        v.extend_from_slice(b",workdir=");
        v.extend(escaped(&work));
        CString::new(v).map_err(|_| format!("'{}' holds a NUL byte", o.dir.display()))
    };
    Ok(OverlayMount {
        target: CString::new(o.dir.as_os_str().as_bytes())
            .map_err(|_| format!("'{}' holds a NUL byte", o.dir.display()))?,
        options: [opts(true)?, opts(false)?],
    })
}

/// A whiteout for `rel` in `upper`: a character device 0/0, which any user may make.
fn whiteout(upper: &Path, rel: &Path) -> Result<(), String> {
    let at = upper.join(rel);
    if let Some(parent) = at.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
    }
    let c = CString::new(at.as_os_str().as_bytes())
        .map_err(|_| format!("'{}' holds a NUL byte", at.display()))?;
    // SAFETY: mknod with a valid C string; a whiteout is a character device numbered 0/0.
    let r = unsafe { libc::mknod(c.as_ptr(), libc::S_IFCHR | 0o600, 0) };
    if r != 0 {
        return Err(format!(
            "cannot hide {} in the overlay: {}",
            rel.display(),
            std::io::Error::last_os_error()
        ));
    }
    Ok(())
}

/// Mounts `m` (in the child, inside its own mount namespace).
///
/// # Safety
/// Async-signal-safe: only `mount` on data prepared before the fork.
pub(super) unsafe fn mount(m: &OverlayMount) -> std::io::Result<()> {
    let mut last = std::io::Error::from_raw_os_error(libc::EINVAL);
    for opts in &m.options {
        let r = libc::mount(
            c"overlay".as_ptr(),
            m.target.as_ptr(),
            c"overlay".as_ptr(),
            0,
            opts.as_ptr().cast(),
        );
        if r == 0 {
            return Ok(());
        }
        last = std::io::Error::last_os_error();
        if last.raw_os_error() != Some(libc::EINVAL) {
            break;
        }
    }
    Err(last)
}

/// Whether this system lets a process mount an overlay in a user namespace of its own (asked
/// once per process, by a forked child that tries on a scratch folder and exits); `Err` says
/// why not.
pub(super) fn works(enter: &dyn Fn() -> std::io::Result<()>) -> Result<(), String> {
    static CACHE: std::sync::OnceLock<Result<(), String>> = std::sync::OnceLock::new();
    CACHE.get_or_init(|| probe(enter)).clone()
}

fn probe(enter: &dyn Fn() -> std::io::Result<()>) -> Result<(), String> {
    let scratch = tempfile::Builder::new()
        .prefix("git-clada-overlay-probe-")
        .tempdir()
        .map_err(|e| format!("cannot create a scratch folder: {e}"))?;
    let lower = scratch.path().join("lower");
    std::fs::create_dir(&lower).map_err(|e| format!("cannot create a scratch folder: {e}"))?;
    let m = prepare(
        &OverlayDir {
            dir: lower,
            hide: vec!["hidden".into()],
        },
        scratch.path(),
        0,
    )?;
    // SAFETY: the child only makes system calls and leaves with `_exit`.
    unsafe {
        let pid = libc::fork();
        if pid == 0 {
            let code = match enter().and_then(|()| mount(&m)) {
                Ok(()) => 0,
                Err(e) => e.raw_os_error().unwrap_or(255).clamp(1, 255),
            };
            libc::_exit(code);
        }
        if pid < 0 {
            return Err(format!("fork: {}", std::io::Error::last_os_error()));
        }
        let mut status = 0;
        while libc::waitpid(pid, &mut status, 0) < 0 {
            if std::io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
                return Err("lost the probe process".into());
            }
        }
        match (libc::WIFEXITED(status), libc::WEXITSTATUS(status)) {
            (true, 0) => Ok(()),
            (true, code) => Err(format!(
                "mounting an overlay in a user namespace failed: {} (unprivileged overlayfs \
                 needs Linux 5.11 or later and user namespaces allowed)",
                std::io::Error::from_raw_os_error(code)
            )),
            _ => Err("the overlay probe process was killed".into()),
        }
    }
}
