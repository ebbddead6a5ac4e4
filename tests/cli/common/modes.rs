//! The four modes the sandbox suites run in (issue 51, "Every mode in CI"): as root and as an
//! unprivileged user, each with user namespaces and without. "Without" is a real seccomp
//! filter, installed in git-clada's process just before its exec ([`no_namespaces_filter`]),
//! that refuses what Docker's default profile refuses a container without `CAP_SYS_ADMIN`:
//! `unshare`, `setns`, `clone` with a `CLONE_NEW*` flag (EPERM), `clone3` (ENOSYS, so libc
//! falls back to `clone`), and the mount calls. Everything git-clada starts inherits it, so
//! every fallback (the subreaper init, per-entry grants, no overlay, no read-only view) is the
//! one a real machine without namespaces takes — not the debug switch that only pretends.
//!
//! Which modes a machine has: as root, all four (the unprivileged user is `CLADA_TEST_USER`,
//! default `nobody`; `.ci/run` makes `clada-test`, and says `none` when the clone is where no
//! other user can read it); as another user, that user's two. A mode this machine cannot set
//! up is said and left out — unless `CLADA_TEST_MODES=all` (`.ci/run` as root), which makes it
//! a failure. With `CLADA_TEST_MODES_LOG` set, every case run appends `test<TAB>mode` to that
//! file, which `.ci/run` sums up.

use std::ffi::CString;
use std::io::Write;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Output};

use super::{output_text, spawn_fed, TestRepo};

/// An unprivileged user the scenarios also run as (when the tests run as root).
#[derive(Debug, Clone)]
pub struct User {
    pub name: String,
    pub uid: u32,
    pub gid: u32,
}

/// One mode: who runs git-clada, and whether namespaces can be made.
#[derive(Debug, Clone)]
pub struct Mode {
    /// `None`: this process's user.
    pub user: Option<User>,
    pub namespaces: bool,
}

/// Runs `case` once per mode this machine has, recording each run (see the module's doc).
pub fn each(case: impl Fn(&Mode)) {
    for m in Mode::all() {
        m.record();
        case(&m);
    }
}

/// Runs `case` in the modes this machine has where `applies` holds.
pub fn each_where(applies: impl Fn(&Mode) -> bool, case: impl Fn(&Mode)) {
    for m in Mode::all().into_iter().filter(|m| applies(m)) {
        m.record();
        case(&m);
    }
}

/// Whether this process runs as root.
pub fn is_root() -> bool {
    // SAFETY: geteuid cannot fail.
    unsafe { libc::geteuid() == 0 }
}

/// Whether a mode that cannot be set up fails the test (`CLADA_TEST_MODES=all`).
fn required() -> bool {
    std::env::var("CLADA_TEST_MODES").is_ok_and(|v| v == "all")
}

/// Says that `mode` cannot be set up here: a failure when every mode is required.
fn unavailable(mode: &str, why: &str) {
    let text = format!("the mode {mode} cannot be set up here: {why}");
    if required() {
        panic!("{text} (CLADA_TEST_MODES=all)");
    }
    eprintln!("{text}; its cases do not run");
}

/// The unprivileged test user, as root (`None` when `CLADA_TEST_USER` is `none`).
fn test_user() -> Option<User> {
    let name = std::env::var("CLADA_TEST_USER").unwrap_or_else(|_| "nobody".into());
    if name == "none" {
        unavailable(
            "as an unprivileged user",
            "CLADA_TEST_USER=none (no other user can read this clone)",
        );
        return None;
    }
    let c = CString::new(name.clone()).expect("name");
    // SAFETY: getpwnam returns a pointer into static storage or null; read at once.
    let pw = unsafe { libc::getpwnam(c.as_ptr()) };
    if pw.is_null() {
        panic!("the test user {name} does not exist (set CLADA_TEST_USER to one that does)");
    }
    // SAFETY: checked non-null above.
    let (uid, gid) = unsafe { ((*pw).pw_uid, (*pw).pw_gid) };
    Some(User { name, uid, gid })
}

impl Mode {
    /// The modes this machine has, root's first.
    pub fn all() -> Vec<Mode> {
        let mut users = vec![None];
        if is_root() {
            users.extend(test_user().map(Some));
        }
        let mut out = Vec::new();
        for user in users {
            for namespaces in [true, false] {
                let m = Mode {
                    user: user.clone(),
                    namespaces,
                };
                match m.check() {
                    Ok(()) => out.push(m),
                    Err(why) => unavailable(&m.name(), &why),
                }
            }
        }
        out
    }

    /// This process's user, with namespaces (for the cases that do not differ by mode).
    pub fn this_user() -> Mode {
        Mode {
            user: None,
            namespaces: true,
        }
    }

    /// Whether git-clada runs as root in this mode.
    pub fn root(&self) -> bool {
        self.user.is_none() && is_root()
    }

    /// `root, with namespaces`, `nobody, without namespaces`…
    pub fn name(&self) -> String {
        let who = match &self.user {
            Some(u) => u.name.clone(),
            None if is_root() => "root".into(),
            None => "this user".into(),
        };
        let ns = match self.namespaces {
            true => "with namespaces",
            false => "without namespaces",
        };
        format!("{who}, {ns}")
    }

    /// Whether the mode works here: with namespaces, the user can make a user namespace (and
    /// root a mount namespace); without, the filter refuses both and still runs programs.
    fn check(&self) -> Result<(), String> {
        let run = |args: &[&str]| {
            let mut cmd = Command::new(args[0]);
            cmd.args(&args[1..]);
            self.command(&mut cmd);
            cmd.output()
        };
        let user_ns = run(&["unshare", "--user", "--map-root-user", "true"]);
        let ok = |o: &std::io::Result<Output>| o.as_ref().is_ok_and(|o| o.status.success());
        match self.namespaces {
            true if !ok(&user_ns) => Err(format!(
                "`unshare --user` fails ({}): user namespaces are refused to this user",
                user_ns
                    .map(|o| output_text(&o))
                    .unwrap_or_else(|e| e.to_string())
            )),
            true => Ok(()),
            false => {
                if !ok(&run(&["true"])) {
                    return Err("a program cannot start under the seccomp filter".into());
                }
                let mount_ns = run(&["unshare", "--mount", "true"]);
                match ok(&user_ns) || ok(&mount_ns) {
                    true => Err("the seccomp filter did not refuse `unshare`".into()),
                    false => Ok(()),
                }
            }
        }
    }

    /// Sets up `cmd` to run in this mode: as its user, and without namespaces under the
    /// filter.
    pub fn command(&self, cmd: &mut Command) {
        if let Some(u) = &self.user {
            cmd.uid(u.uid).gid(u.gid);
        }
        if !self.namespaces {
            let filter = no_namespaces_filter();
            let root = self.root();
            // SAFETY: prctl calls only, on data built before the fork; runs after the uid
            // change, so an unprivileged user sets no_new_privs first, as it must.
            unsafe {
                cmd.pre_exec(move || {
                    if !root && libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                    let prog = libc::sock_fprog {
                        len: filter.len() as libc::c_ushort,
                        filter: filter.as_ptr() as *mut libc::sock_filter,
                    };
                    let r = libc::prctl(
                        libc::PR_SET_SECCOMP,
                        libc::SECCOMP_MODE_FILTER as libc::c_ulong,
                        &prog as *const libc::sock_fprog as libc::c_ulong,
                        0,
                        0,
                    );
                    if r != 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                    Ok(())
                });
            }
        }
    }

    /// Hands `paths` (recursively) to the mode's user.
    pub fn own(&self, paths: &[&Path]) {
        if let Some(u) = &self.user {
            for p in paths {
                let out = Command::new("chown")
                    .args(["-R", &format!("{}:{}", u.uid, u.gid)])
                    .arg(p)
                    .output()
                    .expect("chown");
                assert!(out.status.success(), "chown: {}", output_text(&out));
            }
        }
    }

    /// A repository with `files` (root may run git in it as well), owned by the mode's user.
    pub fn repo(&self, files: &[(&str, &str)]) -> TestRepo {
        let r = TestRepo::with_files(files);
        let gc = r.home.path().join(".gitconfig");
        let mut text = std::fs::read_to_string(&gc).unwrap_or_default();
        text.push_str("[safe]\n\tdirectory = *\n");
        std::fs::write(&gc, text).expect("gitconfig");
        self.own_repo(&r);
        r
    }

    /// Hands the repository and its HOME to the mode's user (after more set-up writes).
    pub fn own_repo(&self, r: &TestRepo) {
        self.own(&[r.path(), r.home.path()]);
    }

    /// git-clada in `r`, in this mode.
    pub fn clada_cmd(&self, r: &TestRepo) -> Command {
        let mut cmd = r.clada_cmd();
        self.command(&mut cmd);
        cmd
    }

    /// `git-clada --format json apply EXTRA -` with `reply` on stdin, in this mode.
    pub fn apply(&self, r: &TestRepo, reply: &str, extra: &[&str]) -> Output {
        let mut cmd = self.clada_cmd(r);
        cmd.args(["--format", "json", "apply"]).args(extra).arg("-");
        spawn_fed(cmd, reply).wait_with_output().expect("apply")
    }

    /// Appends `mode<TAB>test` to `CLADA_TEST_MODES_LOG`, if set (the mode as `root` or
    /// `unprivileged`: the user's own name differs by machine).
    fn record(&self) {
        let Some(log) = std::env::var_os("CLADA_TEST_MODES_LOG") else {
            return;
        };
        let test = std::thread::current()
            .name()
            .unwrap_or("unnamed")
            .to_string();
        let role = match self.root() {
            true => "root",
            false => "unprivileged",
        };
        let ns = match self.namespaces {
            true => "with namespaces",
            false => "without namespaces",
        };
        let line = format!("{role}, {ns}\t{test}\n");
        if let Ok(mut f) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(log)
        {
            let _ = f.write_all(line.as_bytes());
        }
    }
}

/// The syscalls Docker's default profile refuses without `CAP_SYS_ADMIN`, as EPERM.
fn refused() -> [i64; 12] {
    [
        libc::SYS_unshare,
        libc::SYS_setns,
        libc::SYS_mount,
        libc::SYS_umount2,
        libc::SYS_pivot_root,
        libc::SYS_open_tree,
        libc::SYS_move_mount,
        libc::SYS_fsopen,
        libc::SYS_fsconfig,
        libc::SYS_fsmount,
        libc::SYS_fspick,
        libc::SYS_mount_setattr,
    ]
}

/// Every `CLONE_NEW*` flag (`CLONE_NEWTIME`, `NEWNS`, `NEWCGROUP`, `NEWUTS`, `NEWIPC`,
/// `NEWUSER`, `NEWPID`, `NEWNET`).
const CLONE_NEW_ANY: u32 = 0x80 | 0x0002_0000 | 0x7e00_0000;

/// The filter (classic BPF, as seccomp reads it): another architecture's calls pass (the
/// program under test makes none); [`refused`] fail with EPERM, `clone3` with ENOSYS, `clone`
/// with a namespace flag in its first argument with EPERM; everything else runs.
pub fn no_namespaces_filter() -> Vec<libc::sock_filter> {
    const LD_W_ABS: u16 = 0x20;
    const JEQ_K: u16 = 0x15;
    const JSET_K: u16 = 0x45;
    const RET_K: u16 = 0x06;
    #[cfg(target_arch = "x86_64")]
    const AUDIT_ARCH: u32 = 0xC000_003E;
    #[cfg(target_arch = "aarch64")]
    const AUDIT_ARCH: u32 = 0xC000_00B7;
    let op = |code, k| libc::sock_filter {
        code,
        jt: 0,
        jf: 0,
        k,
    };
    let jump = |code, k, jt, jf| libc::sock_filter { code, jt, jf, k };
    let allow = libc::SECCOMP_RET_ALLOW;
    let errno = |e: i32| libc::SECCOMP_RET_ERRNO | e as u32;
    let mut f = vec![
        op(LD_W_ABS, 4), // arch
        jump(JEQ_K, AUDIT_ARCH, 1, 0),
        op(RET_K, allow),
        op(LD_W_ABS, 0), // nr
    ];
    for nr in refused() {
        f.push(jump(JEQ_K, nr as u32, 0, 1));
        f.push(op(RET_K, errno(libc::EPERM)));
    }
    f.extend([
        jump(JEQ_K, libc::SYS_clone3 as u32, 0, 1),
        op(RET_K, errno(libc::ENOSYS)),
        jump(JEQ_K, libc::SYS_clone as u32, 0, 3),
        op(LD_W_ABS, 16), // args[0], low half (little endian)
        jump(JSET_K, CLONE_NEW_ANY, 0, 1),
        op(RET_K, errno(libc::EPERM)),
        op(RET_K, allow),
    ]);
    f
}
