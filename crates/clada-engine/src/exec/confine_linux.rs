//! Linux: Landlock rules, the seccomp filter, the namespace for `.git`, and the child's steps
//! between fork and exec (see `confine.rs` for what each level allows).

use std::ffi::{CStr, CString};
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use landlock::{
    Access, AccessFs, AccessNet, BitFlags, PathBeneath, PathFd, Ruleset, RulesetAttr,
    RulesetCreatedAttr, Scope, ABI,
};

use super::{Availability, Confine, Extra, Level, DEVICES, ETC_FILES, ETC_SECRETS, SYSTEM_DIRS};

#[path = "overlay_linux.rs"]
mod overlay;
#[path = "view_linux.rs"]
mod view;

/// The Landlock version the rules are written for: what it lacks on an older kernel is left
/// out (best effort), which only ever loosens the filesystem and TCP parts; the seccomp
/// filter does not depend on it.
const TARGET: ABI = ABI::V6;

pub(super) fn probe() -> Availability {
    // SAFETY: the documented version query: no ruleset, size 0, the VERSION flag.
    let abi = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<u8>(),
            0usize,
            1u32, // LANDLOCK_CREATE_RULESET_VERSION
        )
    };
    if abi >= 1 {
        return Availability::Landlock { abi: abi as i32 };
    }
    let err = std::io::Error::last_os_error();
    Availability::Unavailable(match err.raw_os_error() {
        Some(libc::ENOSYS) => "this kernel was built without Landlock".into(),
        Some(libc::EOPNOTSUPP) => {
            "Landlock is not enabled on this system (add it to the kernel's lsm= list)".into()
        }
        _ => format!("Landlock cannot be used: {err}"),
    })
}

/// The read-only bind mount of `.git`, prepared for the child.
#[derive(Clone)]
struct GitMount {
    target: CString,
    /// `mount` flags the filesystem's own mount has locked (nosuid, nodev, noexec): a remount
    /// inside a user namespace must keep them.
    locked: libc::c_ulong,
    maps: IdMaps,
}

/// The child's user namespace maps this process's ids to themselves.
#[derive(Clone)]
struct IdMaps {
    uid_map: CString,
    gid_map: CString,
}

impl IdMaps {
    fn own() -> Option<IdMaps> {
        // SAFETY: geteuid/getegid cannot fail.
        let (uid, gid) = unsafe { (libc::geteuid(), libc::getegid()) };
        Some(IdMaps {
            uid_map: CString::new(format!("{uid} {uid} 1\n")).ok()?,
            gid_map: CString::new(format!("{gid} {gid} 1\n")).ok()?,
        })
    }
}

/// The discarded overlays of a hook's git directories, with the namespace they need.
struct Overlays {
    maps: IdMaps,
    mounts: Vec<overlay::OverlayMount>,
}

/// What the child does between fork and exec, all prepared beforehand.
pub(super) struct ChildPlan {
    parent: libc::pid_t,
    git_mounts: Arc<Vec<GitMount>>,
    overlays: Option<Arc<Overlays>>,
    view: Option<Arc<view::ViewMounts>>,
    landlock: Option<Arc<OwnedFd>>,
    seccomp: Option<Arc<Vec<libc::sock_filter>>>,
    pub note: Option<String>,
    pub overlay: Option<Result<(), String>>,
}

impl ChildPlan {
    pub fn unconfined() -> ChildPlan {
        ChildPlan {
            // SAFETY: getpid cannot fail.
            parent: unsafe { libc::getpid() },
            git_mounts: Arc::new(Vec::new()),
            overlays: None,
            view: None,
            landlock: None,
            seccomp: None,
            note: None,
            overlay: None,
        }
    }

    /// The Landlock ruleset's descriptor, for an init that applies it in its own child.
    pub fn landlock_fd(&self) -> Option<libc::c_int> {
        self.landlock.as_deref().map(AsRawFd::as_raw_fd)
    }

    /// Hides the entries of `view` (the read-only view), with the empty folder and file it
    /// mounts over them made in `scratch`.
    pub fn hide(&mut self, v: &crate::exec::view::View, scratch: &Path) -> Result<(), String> {
        self.view = Some(Arc::new(view::prepare(v, scratch)?));
        Ok(())
    }

    /// Installs the child's steps; with `defer`, the Landlock ruleset is not applied but
    /// handed on (its descriptor inherited through exec) to the init (`exec/init.rs`).
    pub fn install(&self, cmd: &mut std::process::Command, defer: bool) {
        let parent = self.parent;
        let git_mounts = Arc::clone(&self.git_mounts);
        let overlays = self.overlays.clone();
        let view = self.view.clone();
        let landlock = self.landlock.clone();
        let seccomp = self.seccomp.clone();
        // SAFETY: the closure only makes system calls on data prepared before the fork (no
        // allocation, no locks), as `pre_exec` requires.
        unsafe {
            cmd.pre_exec(move || {
                in_child(
                    parent,
                    Mounts {
                        git: &git_mounts,
                        overlays: overlays.as_deref(),
                        view: view.as_deref(),
                    },
                    landlock.as_deref().map(AsRawFd::as_raw_fd),
                    defer,
                    seccomp.as_deref().map(Vec::as_slice),
                )
            });
        }
    }
}

/// The mounts the child makes in its own namespace.
struct Mounts<'a> {
    git: &'a [GitMount],
    overlays: Option<&'a Overlays>,
    view: Option<&'a view::ViewMounts>,
}

fn check(r: libc::c_long) -> std::io::Result<()> {
    if r < 0 {
        Err(std::io::Error::last_os_error())
    } else {
        Ok(())
    }
}

/// The child's steps: die with the parent; the overlays, `.git` read-only; Landlock (or, with
/// `defer`, its descriptor kept open across exec for the init); the seccomp filter. Only
/// async-signal-safe calls.
fn in_child(
    parent: libc::pid_t,
    mounts: Mounts<'_>,
    landlock: Option<libc::c_int>,
    defer: bool,
    seccomp: Option<&[libc::sock_filter]>,
) -> std::io::Result<()> {
    // SAFETY (whole function): plain system calls with pointers to data that outlives them.
    unsafe {
        // Nothing git-clada inherited reaches the program (`harden`); the init's own two are
        // handed on below and by `spawn`.
        crate::exec::harden::close_inherited_on_exec()?;
        check(libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0) as libc::c_long)?;
        // The parent may have died before the line above: then nobody would kill us.
        if libc::getppid() != parent {
            return Err(std::io::Error::from_raw_os_error(libc::ESRCH));
        }
        if let Some(o) = mounts.overlays {
            enter_namespace(&o.maps)?;
            for m in &o.mounts {
                overlay::mount(m)?;
            }
        }
        if let Some(v) = mounts.view {
            view::mount(v)?;
        }
        if let (Some(m), None) = (mounts.git.first(), mounts.overlays) {
            enter_namespace(&m.maps)?;
        }
        for m in mounts.git {
            bind_read_only(m)?;
        }
        if landlock.is_some() || seccomp.is_some() {
            check(libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) as libc::c_long)?;
        }
        match (landlock, defer) {
            (Some(fd), false) => {
                crate::exec::harden::drop_capabilities()?;
                check(libc::syscall(libc::SYS_landlock_restrict_self, fd, 0u32))?
            }
            (Some(fd), true) => check(libc::fcntl(fd, libc::F_SETFD, 0) as libc::c_long)?,
            (None, _) => {}
        }
        if let Some(filter) = seccomp {
            let prog = libc::sock_fprog {
                len: filter.len() as libc::c_ushort,
                filter: filter.as_ptr() as *mut libc::sock_filter,
            };
            check(libc::prctl(
                libc::PR_SET_SECCOMP,
                libc::SECCOMP_MODE_FILTER as libc::c_ulong,
                &prog as *const libc::sock_fprog as libc::c_ulong,
                0,
                0,
            ) as libc::c_long)?;
        }
    }
    Ok(())
}

/// Writes `text` to the file `path` (both prepared by the parent).
unsafe fn write_file(path: &CStr, text: &CStr) -> std::io::Result<()> {
    let fd = libc::open(path.as_ptr(), libc::O_WRONLY);
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    let bytes = text.to_bytes();
    let n = libc::write(fd, bytes.as_ptr() as *const libc::c_void, bytes.len());
    let err = std::io::Error::last_os_error();
    libc::close(fd);
    if n != bytes.len() as isize {
        return Err(err);
    }
    Ok(())
}

/// A mount namespace of the child's own, with `.git` bind-mounted read-only.
unsafe fn mount_git_read_only(m: &GitMount) -> std::io::Result<()> {
    enter_namespace(&m.maps)?;
    bind_read_only(m)
}

/// A mount namespace of the child's own, its mounts private: alone where this process may
/// make one ([`mount_namespace_alone`]), else in a new user namespace mapping its ids to
/// themselves.
unsafe fn enter_namespace(maps: &IdMaps) -> std::io::Result<()> {
    if !mount_namespace_alone() {
        // Its own `/proc/self` files are root's while it is not dumpable (`harden`).
        crate::exec::harden::dumpable_again();
        check(libc::unshare(libc::CLONE_NEWUSER | libc::CLONE_NEWNS) as libc::c_long)?;
        write_file(c"/proc/self/setgroups", c"deny")?;
        write_file(c"/proc/self/uid_map", &maps.uid_map)?;
        write_file(c"/proc/self/gid_map", &maps.gid_map)?;
    }
    let none = std::ptr::null::<libc::c_char>();
    check(libc::mount(
        none,
        c"/".as_ptr(),
        none,
        libc::MS_REC | libc::MS_PRIVATE,
        std::ptr::null(),
    ) as libc::c_long)
}

/// A mount namespace without a user namespace, where this process may make one (root): a
/// user namespace would map root's id alone, and a root `tar -xf` could then not keep the
/// archive's owners. What root keeps there is cut by `harden::drop_capabilities`.
unsafe fn mount_namespace_alone() -> bool {
    libc::unshare(libc::CLONE_NEWNS) == 0
}

/// `.git` bind-mounted read-only over itself (inside the child's namespace).
unsafe fn bind_read_only(m: &GitMount) -> std::io::Result<()> {
    let none = std::ptr::null::<libc::c_char>();
    check(libc::mount(
        m.target.as_ptr(),
        m.target.as_ptr(),
        none,
        libc::MS_BIND | libc::MS_REC,
        std::ptr::null(),
    ) as libc::c_long)?;
    check(libc::mount(
        none,
        m.target.as_ptr(),
        none,
        libc::MS_BIND | libc::MS_REMOUNT | libc::MS_RDONLY | m.locked,
        std::ptr::null(),
    ) as libc::c_long)?;
    Ok(())
}

/// Prepares the child's steps for `level` (not `off`) in the worktree `root`, with the private
/// temporary directory `tmp`, `extra`'s grants, and its overlays' layers in `layers`.
pub(super) fn plan(
    level: Level,
    confine: &Confine,
    root: &Path,
    tmp: &Path,
    extra: &Extra,
    layers: Option<&Path>,
) -> Result<ChildPlan, String> {
    let protected = match level {
        Level::Workspace => protected_dirs(root, confine),
        _ => Vec::new(),
    };
    let (overlays, overlay) = match (level, layers) {
        (Level::Workspace, Some(layers)) if !extra.overlay.is_empty() => {
            match overlays(extra, layers) {
                Ok(o) => (Some(Arc::new(o)), Some(Ok(()))),
                Err(why) => (None, Some(Err(why))),
            }
        }
        _ => (None, None),
    };
    // A git directory behind an overlay needs no read-only mount.
    let overlaid = |p: &Path| {
        overlays.is_some()
            && std::fs::canonicalize(p).is_ok_and(|c| extra.overlay.iter().any(|o| o.dir == c))
    };
    let protected: Vec<PathBuf> = protected.into_iter().filter(|p| !overlaid(p)).collect();
    let guarded = match level {
        Level::Workspace => protected_entries(root, confine, &protected, extra),
        _ => Vec::new(),
    };
    let read_only: Vec<&PathBuf> = protected.iter().chain(&guarded).collect();
    let git_mounts: Option<Vec<GitMount>> = read_only.iter().map(|p| git_mount(p)).collect();
    let git_mounts = git_mounts
        .filter(|m| m.first().is_none_or(namespaces_work))
        .unwrap_or_default();
    // Without the read-only mounts, the git directories and the protected entries at the
    // worktree root are kept out by granting the entries around them one by one (deeper
    // protected entries are put back after the step instead: `exec/protect.rs`).
    let per_entry = !read_only.is_empty() && git_mounts.is_empty();
    let grants = Grants {
        extra,
        overlaid: overlays.is_some(),
    };
    let canonical_root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    let mut around_list = protected.clone();
    around_list.extend(
        guarded
            .iter()
            .filter(|g| g.parent() == Some(canonical_root.as_path()))
            .cloned(),
    );
    let around = (per_entry && !around_list.is_empty()).then_some(around_list.as_slice());
    let fd = ruleset(level, confine, root, tmp, around, &grants)
        .map_err(|e| format!("cannot set up the OS sandbox (Landlock): {e}"))?;
    let network = level == Level::Workspace && confine.network;
    let filter = filter(network);
    if filter.is_empty() {
        return Err(format!(
            "the OS sandbox has no system call filter for {}: set `sandbox.level: off` for \
             approved commands (the read-only list stays off)",
            std::env::consts::ARCH
        ));
    }
    Ok(ChildPlan {
        git_mounts: Arc::new(git_mounts),
        overlays,
        overlay,
        landlock: Some(Arc::new(fd)),
        seccomp: Some(Arc::new(filter)),
        note: around.is_some().then(|| {
            "user namespaces are not available here, so the sandbox keeps the git directory \
             and the protected hook files read-only by letting the command write only inside \
             the existing entries beside them: it cannot create, remove or rename entries \
             directly in the worktree root (or in a folder holding a git directory)"
                .to_string()
        }),
        ..ChildPlan::unconfined()
    })
}

/// What a workspace process must not write in the worktree `root`: `root/.git` (a folder, or
/// the file of a linked worktree or a separate git dir) and every git directory and common
/// directory of the repository inside the worktree under any name (`--separate-git-dir`, a
/// `.git` file pointing inside, the dotfiles `GIT_DIR=$PWD/.dotfiles` pattern). Canonical, so
/// [`grant_around`] can compare them with the paths it walks.
fn protected_dirs(root: &Path, confine: &Confine) -> Vec<PathBuf> {
    let Ok(root) = std::fs::canonicalize(root) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let dot_git = root.join(".git");
    if std::fs::symlink_metadata(&dot_git).is_ok() {
        out.push(dot_git);
    }
    for g in &confine.git_dirs {
        let Ok(g) = std::fs::canonicalize(g) else {
            continue;
        };
        if g.starts_with(&root) && g != root && !out.contains(&g) {
            out.push(g);
        }
    }
    out
}

/// The existing entries of the protected set (`sandbox::protected`) under the worktree
/// `root`, canonical: each a regular file or a folder inside the worktree, not inside a git
/// directory already kept read-only (`git`) or overlaid, and not inside another of them.
fn protected_entries(
    root: &Path,
    confine: &Confine,
    git: &[PathBuf],
    extra: &Extra,
) -> Vec<PathBuf> {
    let Ok(root) = std::fs::canonicalize(root) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = Vec::new();
    for e in &confine.protected.entries {
        let at = root.join(&e.rel);
        let Ok(real) = std::fs::canonicalize(&at) else {
            continue;
        };
        let plain = std::fs::metadata(&real).is_ok_and(|m| m.is_dir() || m.is_file());
        let inside_git = git
            .iter()
            .chain(extra.overlay.iter().map(|o| &o.dir))
            .any(|g| real.starts_with(g));
        if !plain || real == root || !real.starts_with(&root) || inside_git {
            continue;
        }
        out.push(real);
    }
    out.sort();
    out.dedup();
    let all = out.clone();
    out.retain(|p| !all.iter().any(|o| o != p && p.starts_with(o)));
    out
}

/// The read-only mount of `git` (`root/.git`, a directory or a linked worktree's file).
fn git_mount(git: &Path) -> Option<GitMount> {
    let target = CString::new(git.as_os_str().as_bytes()).ok()?;
    Some(GitMount {
        locked: locked_flags(&target)?,
        target,
        maps: IdMaps::own()?,
    })
}

/// The `mount` flags of the mount holding `path` that a remount in a user namespace must keep.
fn locked_flags(path: &CStr) -> Option<libc::c_ulong> {
    // SAFETY: statvfs only writes into the struct.
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    if unsafe { libc::statvfs(path.as_ptr(), &mut st) } != 0 {
        return None;
    }
    let mut locked = 0;
    for (st_flag, ms_flag) in [
        (libc::ST_NOSUID, libc::MS_NOSUID),
        (libc::ST_NODEV, libc::MS_NODEV),
        (libc::ST_NOEXEC, libc::MS_NOEXEC),
    ] {
        if st.f_flag & st_flag != 0 {
            locked |= ms_flag;
        }
    }
    Some(locked)
}

/// Whether the read-only view can be made here (`exec/view.rs`).
pub(super) fn view_works() -> bool {
    view::works()
}

/// The overlays `extra` asks for, prepared with their layers in `layers`; `Err` says why they
/// cannot be mounted here (the folders then stay read-only).
fn overlays(extra: &Extra, layers: &Path) -> Result<Overlays, String> {
    if crate::exec::init::namespaces_refused_for_tests() {
        return Err("namespaces refused (CLADA_TEST_NO_NAMESPACES)".into());
    }
    let maps = IdMaps::own().ok_or("cannot describe this process's user ids")?;
    let probe_maps = maps.clone();
    // SAFETY: `enter` runs in a forked child and only makes system calls on prepared data.
    overlay::works(&move || unsafe { enter_namespace(&probe_maps) })?;
    let mut mounts = Vec::new();
    for (n, o) in extra.overlay.iter().enumerate() {
        mounts.push(overlay::prepare(o, layers, n)?);
    }
    Ok(Overlays { maps, mounts })
}

/// Whether this system lets a process make the namespaces for [`mount_git_read_only`] (asked
/// once per process, by a forked child that tries and exits).
fn namespaces_work(m: &GitMount) -> bool {
    if crate::exec::init::namespaces_refused_for_tests() {
        return false;
    }
    static CACHE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    // SAFETY: mounting makes system calls only.
    *CACHE.get_or_init(|| unsafe { succeeds_in_child(|| mount_git_read_only(m).is_ok()) })
}

/// Whether `f` succeeds in a forked child, which then leaves with `_exit`: how this module
/// asks whether the kernel lets a process make namespaces and mounts without making them here.
///
/// # Safety
/// `f` runs in the child of a possibly multi-threaded process: it may only make system calls
/// (no allocation, no locks).
unsafe fn succeeds_in_child(f: impl FnOnce() -> bool) -> bool {
    // SAFETY: the caller's promise about `f`; the child leaves with `_exit`.
    unsafe {
        let pid = libc::fork();
        if pid == 0 {
            libc::_exit(if f() { 0 } else { 1 });
        }
        if pid < 0 {
            return false;
        }
        let mut status = 0;
        while libc::waitpid(pid, &mut status, 0) < 0 {
            if std::io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
                return false;
            }
        }
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0
    }
}

/// Adds a rule for `path` with `access` (cut to what a file can have when it is not a
/// directory); a path that does not exist is skipped.
fn grant(
    rs: landlock::RulesetCreated,
    path: &Path,
    access: BitFlags<AccessFs>,
) -> Result<landlock::RulesetCreated, landlock::RulesetError> {
    let Ok(md) = std::fs::metadata(path) else {
        return Ok(rs);
    };
    let Ok(fd) = PathFd::new(path) else {
        return Ok(rs);
    };
    let access = if md.is_dir() {
        access
    } else {
        access & AccessFs::from_file(TARGET)
    };
    rs.add_rule(PathBeneath::new(fd, access))
}

/// What a spawn's [`Extra`] adds to the ruleset, and whether its overlays are mounted (only
/// then are the overlaid folders writable).
struct Grants<'a> {
    extra: &'a Extra,
    overlaid: bool,
}

/// Every entry of `/etc` but [`ETC_SECRETS`] (a folder holding one, like `ssl`, entry by
/// entry).
fn grant_etc(
    rs: landlock::RulesetCreated,
    read: BitFlags<AccessFs>,
) -> Result<landlock::RulesetCreated, landlock::RulesetError> {
    fn below(
        mut rs: landlock::RulesetCreated,
        dir: &Path,
        rel: &str,
        read: BitFlags<AccessFs>,
    ) -> Result<landlock::RulesetCreated, landlock::RulesetError> {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return grant(rs, dir, read);
        };
        rs = grant(rs, dir, AccessFs::ReadDir.into())?;
        for e in entries.flatten() {
            let name = e.file_name();
            let here = format!("{rel}{}", name.to_string_lossy());
            if ETC_SECRETS.contains(&here.as_str()) {
                continue;
            }
            let holds = ETC_SECRETS
                .iter()
                .any(|s| s.starts_with(&format!("{here}/")));
            rs = match holds {
                true => below(rs, &e.path(), &format!("{here}/"), read)?,
                false => grant(rs, &e.path(), read)?,
            };
        }
        Ok(rs)
    }
    below(rs, Path::new("/etc"), "", read)
}

/// The Landlock ruleset for `level`, as the file descriptor the child restricts itself with.
fn ruleset(
    level: Level,
    confine: &Confine,
    root: &Path,
    tmp: &Path,
    around: Option<&[PathBuf]>,
    grants: &Grants<'_>,
) -> Result<OwnedFd, landlock::RulesetError> {
    let all = AccessFs::from_all(TARGET);
    let read = AccessFs::ReadFile | AccessFs::ReadDir;
    let run = read | AccessFs::Execute;
    let network = level == Level::Workspace && confine.network;
    let mut rs = Ruleset::default().handle_access(all)?;
    if !network {
        rs = rs.handle_access(AccessNet::from_all(TARGET))?;
    }
    let mut rs = rs.scope(Scope::from_all(TARGET))?.create()?;
    for d in SYSTEM_DIRS {
        rs = grant(rs, Path::new(d), run)?;
    }
    for d in DEVICES {
        rs = grant(rs, Path::new(d), read)?;
    }
    rs = grant(
        rs,
        Path::new("/dev/null"),
        read | AccessFs::WriteFile | AccessFs::Truncate,
    )?;
    for g in &confine.git_dirs {
        rs = grant(rs, g, read)?;
    }
    match level {
        Level::ReadOnly => {
            for f in ETC_FILES {
                rs = grant(rs, Path::new(f), read)?;
            }
            rs = grant(rs, root, read)?;
            rs = grant(rs, tmp, all & !AccessFs::Execute)?;
        }
        _ => {
            rs = grant_etc(rs, read)?;
            for d in ["/proc", "/sys"] {
                rs = grant(rs, Path::new(d), read)?;
            }
            for f in super::git_config_files() {
                rs = grant(rs, &f, read)?;
            }
            let extra = grants.extra;
            for p in &extra.run {
                rs = grant(rs, p, run)?;
            }
            for p in &extra.read {
                rs = grant(rs, p, read)?;
            }
            for p in &extra.write {
                rs = grant(rs, p, all)?;
            }
            if grants.overlaid {
                // Written through the overlay only: the real folder never changes.
                for o in &extra.overlay {
                    rs = grant(rs, &o.dir, all & !AccessFs::Execute)?;
                }
            }
            rs = grant(rs, Path::new("/dev/shm"), all & !AccessFs::Execute)?;
            rs = grant(rs, tmp, all)?;
            for p in &confine.read {
                rs = grant(rs, p, run)?;
            }
            for p in &confine.write {
                rs = grant(rs, p, all)?;
            }
            rs = match around {
                Some(protected) => {
                    let root = std::fs::canonicalize(root).unwrap_or_else(|_| root.into());
                    grant_around(rs, &root, protected, all, run)?
                }
                None => grant(rs, root, all)?,
            };
        }
    }
    let fd: Option<OwnedFd> = rs.into();
    fd.ok_or(landlock::RulesetError::CreateRuleset(
        landlock::CreateRulesetError::MissingHandledAccess,
    ))
}

/// `all` on every entry of `dir` but the `protected` paths (and any `.git`), `run` on `dir`
/// itself; a folder on the way to a protected path is walked the same way instead of granted.
/// Symbolic links among the entries get nothing: a rule is for the inode opened, and opening
/// a link follows it (`docs -> /outside` granted `/outside`, `self -> .` the whole worktree
/// with its `.git`); access through a link is checked on its target anyway.
fn grant_around(
    mut rs: landlock::RulesetCreated,
    dir: &Path,
    protected: &[PathBuf],
    all: BitFlags<AccessFs>,
    run: BitFlags<AccessFs>,
) -> Result<landlock::RulesetCreated, landlock::RulesetError> {
    rs = grant(rs, dir, run)?;
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(rs);
    };
    for e in entries.flatten() {
        if e.file_type().is_ok_and(|t| t.is_symlink())
            || e.file_name().as_bytes().eq_ignore_ascii_case(b".git")
        {
            continue;
        }
        let p = e.path();
        if protected.contains(&p) {
            continue;
        }
        rs = match protected.iter().any(|g| g.starts_with(&p)) {
            true => grant_around(rs, &p, protected, all, run)?,
            false => grant(rs, &p, all)?,
        };
    }
    Ok(rs)
}

// Classic BPF, as seccomp reads it.
const BPF_LD_W_ABS: u16 = 0x20; // BPF_LD (0) | BPF_W (0) | BPF_ABS (0x20)
const BPF_JEQ_K: u16 = 0x05 | 0x10; // BPF_JMP | BPF_JEQ | BPF_K
const BPF_JGE_K: u16 = 0x05 | 0x30; // BPF_JMP | BPF_JGE | BPF_K
const BPF_RET_K: u16 = 0x06;
/// `offsetof(struct seccomp_data, nr)` and `arch`.
const NR: u32 = 0;
const ARCH: u32 = 4;

fn stmt(code: u16, k: u32) -> libc::sock_filter {
    libc::sock_filter {
        code,
        jt: 0,
        jf: 0,
        k,
    }
}

fn jump(code: u16, k: u32, jt: u8, jf: u8) -> libc::sock_filter {
    libc::sock_filter { code, jt, jf, k }
}

#[cfg(target_arch = "x86_64")]
mod arch {
    pub const AUDIT_ARCH: u32 = 0xC000_003E; // AUDIT_ARCH_X86_64
    /// x32 system calls have this bit set; they are refused whole.
    pub const X32_BIT: Option<u32> = Some(0x4000_0000);
}

#[cfg(target_arch = "aarch64")]
mod arch {
    pub const AUDIT_ARCH: u32 = 0xC000_00B7; // AUDIT_ARCH_AARCH64
    pub const X32_BIT: Option<u32> = None;
}

const BPF_JSET_K: u16 = 0x05 | 0x40; // BPF_JMP | BPF_JSET | BPF_K

/// `offsetof(struct seccomp_data, args[i])`, the low 32 bits (both architectures are little
/// endian).
fn arg(i: u32) -> u32 {
    16 + 8 * i
}

/// The mode bits no sandboxed process may set: a setuid or setgid file left in the worktree
/// runs as its owner (root, for a root user's apply) for whoever runs it later.
const SET_ID: u32 = libc::S_ISUID | libc::S_ISGID;
/// `O_CREAT | __O_TMPFILE` (the same on x86_64 and aarch64): the flags under which an open's
/// mode argument means something.
const CREATES: u32 = 0o100 | 0o20000000;

/// The system calls that set a mode: `(number, mode argument, flags argument)`. aarch64 has
/// only the `*at` forms.
fn mode_calls() -> Vec<(i64, u32, Option<u32>)> {
    #[allow(unused_mut)]
    let mut v = vec![
        (libc::SYS_fchmod, 1, None),
        (libc::SYS_fchmodat, 2, None),
        (libc::SYS_fchmodat2, 2, None),
        (libc::SYS_openat, 3, Some(2)),
        (libc::SYS_mknodat, 2, None),
    ];
    #[cfg(target_arch = "x86_64")]
    v.extend([
        (libc::SYS_chmod, 1, None),
        (libc::SYS_open, 2, Some(1)),
        (libc::SYS_creat, 1, None),
        (libc::SYS_mknod, 1, None),
    ]);
    v
}

/// For `nr` (in the accumulator): EPERM when its mode argument has [`SET_ID`] bits (and, for
/// an open, its flags create), else allowed; any other call falls through.
fn refuse_set_id(nr: i64, mode: u32, flags: Option<u32>) -> Vec<libc::sock_filter> {
    let eperm = libc::SECCOMP_RET_ERRNO | libc::EPERM as u32;
    let mut body = Vec::new();
    if let Some(f) = flags {
        body.push(stmt(BPF_LD_W_ABS, arg(f)));
        body.push(jump(BPF_JSET_K, CREATES, 0, 3));
    }
    body.extend([
        stmt(BPF_LD_W_ABS, arg(mode)),
        jump(BPF_JSET_K, SET_ID, 0, 1),
        stmt(BPF_RET_K, eperm),
        stmt(BPF_RET_K, libc::SECCOMP_RET_ALLOW),
    ]);
    let mut out = vec![jump(BPF_JEQ_K, nr as u32, 0, body.len() as u8)];
    out.extend(body);
    out
}

/// The filter: a system call of another architecture (32-bit entry points, which have their
/// own socket and chmod calls) fails with ENOSYS; a mode with setuid or setgid bits in the
/// chmod family, a creating open and mknod with EPERM; `openat2(2)` with ENOSYS (its mode is
/// in a struct the filter cannot read; libc falls back to `openat`); and without `network`,
/// `socket(2)` with EACCES and `io_uring_setup(2)` (io_uring can open sockets past the
/// filter) with ENOSYS. Everything else is allowed.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
fn filter(network: bool) -> Vec<libc::sock_filter> {
    let errno = |e: i32| libc::SECCOMP_RET_ERRNO | (e as u32 & 0xffff);
    let mut f = vec![
        stmt(BPF_LD_W_ABS, ARCH),
        jump(BPF_JEQ_K, arch::AUDIT_ARCH, 1, 0),
        stmt(BPF_RET_K, errno(libc::ENOSYS)),
        stmt(BPF_LD_W_ABS, NR),
    ];
    if let Some(bit) = arch::X32_BIT {
        f.push(jump(BPF_JGE_K, bit, 0, 1));
        f.push(stmt(BPF_RET_K, errno(libc::ENOSYS)));
    }
    for (nr, mode, flags) in mode_calls() {
        f.extend(refuse_set_id(nr, mode, flags));
    }
    f.extend([
        jump(BPF_JEQ_K, libc::SYS_openat2 as u32, 0, 1),
        stmt(BPF_RET_K, errno(libc::ENOSYS)),
    ]);
    if !network {
        f.extend([
            jump(BPF_JEQ_K, libc::SYS_socket as u32, 0, 1),
            stmt(BPF_RET_K, errno(libc::EACCES)),
            jump(BPF_JEQ_K, libc::SYS_io_uring_setup as u32, 0, 1),
            stmt(BPF_RET_K, errno(libc::ENOSYS)),
        ]);
    }
    f.push(stmt(BPF_RET_K, libc::SECCOMP_RET_ALLOW));
    f
}

/// The filter without network access.
#[cfg(all(test, any(target_arch = "x86_64", target_arch = "aarch64")))]
fn socket_filter() -> Vec<libc::sock_filter> {
    filter(false)
}

#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
fn filter(_: bool) -> Vec<libc::sock_filter> {
    // No filter written for this architecture: `plan` refuses to confine without one.
    Vec::new()
}

#[cfg(all(test, not(any(target_arch = "x86_64", target_arch = "aarch64"))))]
fn socket_filter() -> Vec<libc::sock_filter> {
    Vec::new()
}

#[cfg(test)]
#[path = "confine_linux/tests.rs"]
mod tests;

#[cfg(test)]
#[path = "confine_linux/filter_tests.rs"]
mod filter_tests;

#[cfg(test)]
#[path = "confine_linux/namespace_tests.rs"]
mod namespace_tests;
