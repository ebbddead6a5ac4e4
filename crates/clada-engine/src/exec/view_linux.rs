//! Linux: the read-only view's mounts (`exec/view.rs`). In the command's own user and mount
//! namespace an empty folder and an empty file (made per block in a folder of the jail the
//! command cannot reach) are bind-mounted read-only over themselves, then bound over every
//! hidden entry — a bind of a read-only mount is read-only. Each entry is opened beneath the
//! worktree with `openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS)` and mounted on through
//! `/proc/self/fd/N`, so a link put in its way since the walk is never followed: the spawn
//! fails instead. Everything is prepared before the fork; the child only makes system calls.

use std::ffi::{CStr, CString};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use super::{check, enter_namespace, locked_flags, IdMaps};
use crate::exec::view::View;

/// The view's mounts, ready for the child.
pub(super) struct ViewMounts {
    maps: IdMaps,
    /// The worktree (opened in the namespace: a descriptor from before would lead to the
    /// mounts of the old one).
    root: CString,
    /// The folder holding the empty folder and file, and its locked mount flags.
    empty: CString,
    locked: libc::c_ulong,
    empty_dir: CString,
    empty_file: CString,
    /// Root-relative, and whether a folder.
    targets: Vec<(CString, bool)>,
}

/// Prepares the mounts of `view` with the empty entries in `scratch` (a fresh folder).
pub(super) fn prepare(view: &View, scratch: &Path) -> Result<ViewMounts, String> {
    let fail =
        |what: &str, e: std::io::Error| format!("cannot prepare the read-only view ({what}): {e}");
    let dir = scratch.join("d");
    let file = scratch.join("f");
    std::fs::create_dir(&dir).map_err(|e| fail("empty folder", e))?;
    std::fs::write(&file, b"").map_err(|e| fail("empty file", e))?;
    let c = |p: &Path| {
        CString::new(p.as_os_str().as_bytes())
            .map_err(|_| format!("'{}' holds a NUL byte", p.display()))
    };
    let empty = c(scratch)?;
    let root = c(&view.root)?;
    let targets = view
        .hidden
        .iter()
        .map(|h| Ok((c(&h.rel)?, h.dir)))
        .collect::<Result<Vec<_>, String>>()?;
    Ok(ViewMounts {
        maps: IdMaps::own().ok_or("cannot describe this process's user ids")?,
        root,
        locked: locked_flags(&empty).ok_or("cannot read the temporary folder's mount")?,
        empty,
        empty_dir: c(&dir)?,
        empty_file: c(&file)?,
        targets,
    })
}

/// `struct open_how` of openat2(2).
#[repr(C)]
struct OpenHow {
    flags: u64,
    mode: u64,
    resolve: u64,
}
const RESOLVE_NO_MAGICLINKS: u64 = 0x02;
const RESOLVE_NO_SYMLINKS: u64 = 0x04;
const RESOLVE_BENEATH: u64 = 0x08;

/// In the child: the namespace and every hiding mount. Only system calls.
///
/// # Safety
/// Between fork and exec, on data prepared by [`prepare`].
pub(super) unsafe fn mount(v: &ViewMounts) -> std::io::Result<()> {
    enter_namespace(&v.maps)?;
    let none = std::ptr::null::<libc::c_char>();
    check(libc::mount(
        v.empty.as_ptr(),
        v.empty.as_ptr(),
        none,
        libc::MS_BIND,
        std::ptr::null(),
    ) as libc::c_long)?;
    check(libc::mount(
        none,
        v.empty.as_ptr(),
        none,
        libc::MS_BIND | libc::MS_REMOUNT | libc::MS_RDONLY | v.locked,
        std::ptr::null(),
    ) as libc::c_long)?;
    let root = libc::open(
        v.root.as_ptr(),
        libc::O_PATH | libc::O_DIRECTORY | libc::O_CLOEXEC,
    );
    check(root as libc::c_long)?;
    let r = v
        .targets
        .iter()
        .try_for_each(|(rel, dir)| hide(v, root, rel, *dir));
    libc::close(root);
    r
}

/// One entry: opened beneath the root without following any link, checked to be what the
/// walk saw, and mounted on through its descriptor.
unsafe fn hide(v: &ViewMounts, root: libc::c_int, rel: &CStr, dir: bool) -> std::io::Result<()> {
    let how = OpenHow {
        flags: (libc::O_PATH | libc::O_NOFOLLOW | libc::O_CLOEXEC) as u64,
        mode: 0,
        resolve: RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
    };
    let fd = libc::syscall(
        libc::SYS_openat2,
        root,
        rel.as_ptr(),
        &how as *const OpenHow,
        std::mem::size_of::<OpenHow>(),
    );
    check(fd)?;
    let fd = fd as libc::c_int;
    let mut st: libc::stat = std::mem::zeroed();
    let r = check(libc::fstat(fd, &mut st) as libc::c_long).and_then(|()| {
        let is_dir = st.st_mode & libc::S_IFMT == libc::S_IFDIR;
        let is_link = st.st_mode & libc::S_IFMT == libc::S_IFLNK;
        if is_dir != dir || is_link {
            // Changed since the walk: refuse rather than guess.
            return Err(std::io::Error::from_raw_os_error(libc::ESTALE));
        }
        let mut path = [0u8; 32];
        proc_fd_path(fd, &mut path);
        let src = if dir { &v.empty_dir } else { &v.empty_file };
        check(libc::mount(
            src.as_ptr(),
            path.as_ptr() as *const libc::c_char,
            std::ptr::null(),
            libc::MS_BIND,
            std::ptr::null(),
        ) as libc::c_long)
    });
    libc::close(fd);
    r
}

/// `/proc/self/fd/<fd>` NUL-terminated into `out`, without allocating.
fn proc_fd_path(fd: libc::c_int, out: &mut [u8; 32]) {
    const PREFIX: &[u8] = b"/proc/self/fd/";
    out[..PREFIX.len()].copy_from_slice(PREFIX);
    let mut digits = [0u8; 12];
    let mut n = fd.unsigned_abs();
    let mut len = 0;
    loop {
        digits[len] = b'0' + (n % 10) as u8;
        len += 1;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    for i in 0..len {
        out[PREFIX.len() + i] = digits[len - 1 - i];
    }
    out[PREFIX.len() + len] = 0;
}

/// Whether this system lets a process make the view's namespace and mounts (asked once per
/// process by a forked child that tries and exits).
pub(super) fn works() -> bool {
    if crate::exec::init::namespaces_refused_for_tests() {
        return false;
    }
    static CACHE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *CACHE.get_or_init(|| {
        let Ok(scratch) = tempfile::Builder::new().prefix("git-clada-view-").tempdir() else {
            return false;
        };
        let Ok(inner) = tempfile::tempdir_in(scratch.path()) else {
            return false;
        };
        let view = View {
            root: scratch.path().to_path_buf(),
            hidden: vec![crate::exec::view::Hidden {
                rel: inner
                    .path()
                    .strip_prefix(scratch.path())
                    .unwrap_or(inner.path())
                    .into(),
                dir: true,
            }],
        };
        let Ok(empties) = tempfile::tempdir() else {
            return false;
        };
        prepare(&view, empties.path()).is_ok_and(|m| mounts_in_child(&m))
    })
}

/// Whether a forked child makes the mounts of `m` (and leaves).
fn mounts_in_child(m: &ViewMounts) -> bool {
    // SAFETY: mounting makes system calls only.
    unsafe { super::succeeds_in_child(|| mount(m).is_ok()) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::view::Hidden;

    /// A link put in the way since the walk (the entry itself, or a folder above it) makes
    /// the mounts fail: it is never followed to mount somewhere else.
    #[test]
    fn a_link_in_the_way_fails_the_mounts_instead_of_being_followed() {
        if !works() {
            return; // no namespaces here: the view is never made (the policy test covers it)
        }
        let d = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(d.path()).unwrap();
        std::fs::create_dir_all(root.join("real/secrets")).unwrap();
        std::fs::write(root.join("real/key"), "k").unwrap();
        std::os::unix::fs::symlink(root.join("real"), root.join("via")).unwrap();
        std::os::unix::fs::symlink("real/key", root.join("key-link")).unwrap();
        let try_view = |rel: &str, dir: bool| {
            let view = View {
                root: root.clone(),
                hidden: vec![Hidden {
                    rel: rel.into(),
                    dir,
                }],
            };
            let empties = tempfile::tempdir().unwrap();
            mounts_in_child(&prepare(&view, empties.path()).unwrap())
        };
        assert!(try_view("real/secrets", true));
        assert!(try_view("real/key", false));
        assert!(!try_view("via/secrets", true));
        assert!(!try_view("key-link", false));
        // An entry that changed kind since the walk.
        assert!(!try_view("real/key", true));
    }

    #[test]
    fn proc_fd_paths_are_written_without_allocating() {
        let mut out = [0u8; 32];
        proc_fd_path(1234, &mut out);
        assert_eq!(&out[..19], b"/proc/self/fd/1234\0");
        proc_fd_path(0, &mut out);
        assert_eq!(&out[..16], b"/proc/self/fd/0\0");
    }
}
