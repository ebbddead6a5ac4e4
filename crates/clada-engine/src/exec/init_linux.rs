//! Linux: the init's two ways (see `init.rs`): PID 1 of a PID namespace, or a per-block
//! subreaper killing through pidfds. The init is a fresh single-threaded process, so after
//! `fork` it keeps using the standard library.

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsString;
use std::fs::File;
use std::io::Write;
use std::os::fd::{FromRawFd, RawFd};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};

/// What git-clada handed the init.
struct Args {
    report: File,
    landlock: Option<RawFd>,
    namespaces: bool,
    prog: OsString,
    args: Vec<OsString>,
}

fn parse(args: Vec<OsString>) -> Option<Args> {
    let mut it = args.into_iter();
    let fd = |s: Option<OsString>| s?.to_str()?.parse::<RawFd>().ok();
    let report = fd(it.next())?;
    let landlock = it.next()?;
    let landlock = match landlock.to_str()? {
        "-" => None,
        n => Some(n.parse::<RawFd>().ok()?),
    };
    let namespaces = match it.next()?.to_str()? {
        "ns" => true,
        "no-ns" => false,
        _ => return None,
    };
    let prog = it.next()?;
    for f in std::iter::once(report).chain(landlock) {
        // SAFETY: fcntl on a descriptor number; the program must not inherit either.
        if unsafe { libc::fcntl(f, libc::F_SETFD, libc::FD_CLOEXEC) } != 0 {
            return None;
        }
    }
    Some(Args {
        // SAFETY: git-clada passed this descriptor (the report pipe's write end) for us alone.
        report: unsafe { File::from_raw_fd(report) },
        landlock,
        namespaces,
        prog,
        args: it.collect(),
    })
}

/// The init's entry point (`git-clada __clada-init REPORT_FD LANDLOCK_FD|- ns|no-ns PROG ARGS…`).
pub fn main(args: Vec<OsString>) -> ! {
    let Some(a) = parse(args) else {
        eprintln!(
            "git-clada: {} is git-clada's own (bad arguments)",
            super::ARG
        );
        std::process::exit(127)
    };
    if a.namespaces && new_pid_namespace() {
        as_namespace_parent(a)
    }
    std::process::exit(as_subreaper(a))
}

/// A PID namespace for the init's children (and a mount namespace for their `/proc`), in a
/// new user namespace when this user cannot make them in the current one.
fn new_pid_namespace() -> bool {
    // SAFETY: plain system calls on prepared data.
    unsafe {
        if libc::unshare(libc::CLONE_NEWPID | libc::CLONE_NEWNS) == 0 {
            return true;
        }
        let (uid, gid) = (libc::geteuid(), libc::getegid());
        if libc::unshare(libc::CLONE_NEWUSER | libc::CLONE_NEWPID | libc::CLONE_NEWNS) != 0 {
            return false;
        }
        let _ = std::fs::write("/proc/self/setgroups", "deny");
        let _ = std::fs::write("/proc/self/uid_map", format!("{uid} {uid} 1\n"));
        let _ = std::fs::write("/proc/self/gid_map", format!("{gid} {gid} 1\n"));
    }
    true
}

/// The init outside the namespace: its child is the namespace's PID 1; it waits for it and
/// leaves with its code. Killed itself (a timeout), it takes the namespace with it.
fn as_namespace_parent(a: Args) -> ! {
    // A pipe only this process writes: its end seen closed in the child means the init died
    // before the child's PR_SET_PDEATHSIG (`getppid` is 0 there, the parent being outside
    // the namespace, so it cannot tell).
    let mut life = [0; 2];
    // SAFETY: pipe2 fills two descriptors; fork in a single-threaded process.
    if unsafe { libc::pipe2(life.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        std::process::exit(127);
    }
    let pid = unsafe { libc::fork() };
    if pid == 0 {
        // SAFETY: the child dies with the init, and not before it knows the init lives.
        unsafe {
            libc::close(life[1]);
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0);
            let mut pfd = libc::pollfd {
                fd: life[0],
                events: libc::POLLIN,
                revents: 0,
            };
            if libc::poll(&mut pfd, 1, 0) != 0 {
                libc::_exit(1);
            }
            libc::close(life[0]);
        }
        std::process::exit(as_pid1(a));
    }
    drop(a.report);
    // SAFETY: the read end is the child's only.
    unsafe { libc::close(life[0]) };
    if pid < 0 {
        std::process::exit(127);
    }
    let status = wait_for(pid);
    std::process::exit(match status {
        Some((Some(code), _)) => code,
        Some((_, Some(sig))) => 128 + sig,
        _ => 127,
    })
}

/// Waits for the child `pid`: `(exit code, signal)`.
fn wait_for(pid: libc::pid_t) -> Option<(Option<i32>, Option<i32>)> {
    loop {
        let mut st = 0;
        // SAFETY: waitpid writes the status only.
        let r = unsafe { libc::waitpid(pid, &mut st, 0) };
        if r == pid {
            return Some(decode(st));
        }
        if std::io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
            return None;
        }
    }
}

fn decode(st: libc::c_int) -> (Option<i32>, Option<i32>) {
    let s = std::process::ExitStatus::from_raw(st);
    (s.code(), s.signal())
}

/// PID 1 of the block's namespace: `/proc`, the program, every orphan reaped, then whatever
/// is left listed and killed. Returns the exit code for the init.
fn as_pid1(mut a: Args) -> i32 {
    let none = std::ptr::null::<libc::c_char>();
    // SAFETY: mount calls with static C strings; failure leaves the outer /proc (still usable).
    unsafe {
        libc::mount(
            none,
            c"/".as_ptr(),
            none,
            libc::MS_REC | libc::MS_PRIVATE,
            std::ptr::null(),
        );
        libc::mount(
            c"proc".as_ptr(),
            c"/proc".as_ptr(),
            c"proc".as_ptr(),
            libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
            std::ptr::null(),
        );
    }
    let child = match start(&a) {
        Ok(pid) => pid,
        Err(e) => return started_not(&mut a.report, &e),
    };
    let status = reap_until(child, None);
    let mine = ns_of("self");
    let left: Vec<String> = processes()
        .into_iter()
        .filter(|p| p.state != 'Z' && p.pid != own_pid_in_proc())
        .filter(|p| mine.is_some() && ns_of(&p.pid.to_string()) == mine)
        .map(|p| p.comm)
        .collect();
    // From PID 1, `kill(-1)` reaches every process of the namespace and nothing outside it.
    loop {
        // SAFETY: kill/waitpid; ECHILD ends the loop once nothing is left.
        unsafe {
            libc::kill(-1, libc::SIGKILL);
            let mut st = 0;
            if libc::waitpid(-1, &mut st, 0) < 0
                && std::io::Error::last_os_error().raw_os_error() == Some(libc::ECHILD)
            {
                break;
            }
        }
    }
    finish(&mut a.report, status, &left)
}

/// This process's id as the mounted `/proc` numbers it.
fn own_pid_in_proc() -> libc::pid_t {
    std::fs::read_link("/proc/self")
        .ok()
        .and_then(|p| p.to_str()?.parse().ok())
        .unwrap_or(-1)
}

/// The PID namespace of `/proc/<pid>`.
fn ns_of(pid: &str) -> Option<std::path::PathBuf> {
    std::fs::read_link(format!("/proc/{pid}/ns/pid")).ok()
}

/// Starts the program. In its child, before the exec: every descriptor above 2 is closed on
/// exec, and a confined program (one given a Landlock ruleset) loses the capabilities
/// `harden` drops, then gets the ruleset.
fn start(a: &Args) -> std::io::Result<libc::pid_t> {
    let mut cmd = Command::new(&a.prog);
    cmd.args(&a.args);
    let landlock = a.landlock;
    // SAFETY: system calls only, in the child before exec.
    unsafe {
        cmd.pre_exec(move || {
            crate::exec::harden::close_inherited_on_exec()?;
            if let Some(fd) = landlock {
                crate::exec::harden::drop_capabilities()?;
                if libc::syscall(libc::SYS_landlock_restrict_self, fd, 0u32) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
            }
            Ok(())
        });
    }
    let child = cmd.spawn()?;
    // The child is reaped by `waitpid(-1)` below, not through `Child`.
    Ok(child.id() as libc::pid_t)
}

fn started_not(report: &mut File, e: &std::io::Error) -> i32 {
    let kind = match e.kind() {
        std::io::ErrorKind::NotFound => "notfound",
        _ => "other",
    };
    let _ = writeln!(report, "error {kind} {e}");
    127
}

/// Writes the report; returns the init's exit code.
fn finish(report: &mut File, status: Option<(Option<i32>, Option<i32>)>, left: &[String]) -> i32 {
    let mut text = String::new();
    for name in left {
        text.push_str(&format!("left {}\n", name.replace('\n', " ")));
    }
    let code = match status {
        Some((Some(code), _)) => {
            text.push_str(&format!("status exit {code}\n"));
            code
        }
        Some((_, Some(sig))) => {
            text.push_str(&format!("status signal {sig}\n"));
            128 + sig
        }
        _ => 127,
    };
    let _ = report.write_all(text.as_bytes());
    code
}

/// Set by SIGTERM (the subreaper's timeout).
static TERMINATED: AtomicBool = AtomicBool::new(false);

extern "C" fn on_term(_: libc::c_int) {
    TERMINATED.store(true, Ordering::SeqCst);
}

/// Reaps children (every orphan of the tree comes to the init) until `child` ends; `None`
/// when `stop` was set first.
fn reap_until(child: libc::pid_t, stop: Option<&AtomicBool>) -> Option<(Option<i32>, Option<i32>)> {
    loop {
        let mut st = 0;
        // SAFETY: waitpid writes the status only.
        let r = unsafe { libc::waitpid(-1, &mut st, 0) };
        if r == child {
            return Some(decode(st));
        }
        if r < 0 {
            let errno = std::io::Error::last_os_error().raw_os_error();
            if errno != Some(libc::EINTR) {
                return None;
            }
        }
        if stop.is_some_and(|s| s.load(Ordering::SeqCst)) {
            return None;
        }
    }
}

/// Without namespaces: a subreaper for the block's tree. Returns the exit code.
fn as_subreaper(mut a: Args) -> i32 {
    // SAFETY: prctl and sigaction with a handler that only stores to an atomic; no
    // SA_RESTART, so a SIGTERM interrupts the wait.
    unsafe {
        libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
        let mut sa: libc::sigaction = std::mem::zeroed();
        sa.sa_sigaction = on_term as extern "C" fn(libc::c_int) as usize;
        libc::sigaction(libc::SIGTERM, &sa, std::ptr::null_mut());
    }
    let child = match start(&a) {
        Ok(pid) => pid,
        Err(e) => return started_not(&mut a.report, &e),
    };
    let status = reap_until(child, Some(&TERMINATED));
    let left = kill_tree();
    finish(&mut a.report, status, &left)
}

/// One process as `/proc/<pid>/stat` shows it.
struct Proc {
    pid: libc::pid_t,
    ppid: libc::pid_t,
    state: char,
    comm: String,
}

fn processes() -> Vec<Proc> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<libc::pid_t>().ok())
        .filter_map(|pid| {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            // `pid (comm) state ppid …`; comm may hold spaces and parentheses.
            let (head, rest) = stat.rsplit_once(')')?;
            let comm = head.split_once('(')?.1.to_string();
            let mut f = rest.split_whitespace();
            let state = f.next()?.chars().next()?;
            let ppid = f.next()?.parse().ok()?;
            Some(Proc {
                pid,
                ppid,
                state,
                comm,
            })
        })
        .collect()
}

/// The live descendants of this process: `(pid, ppid, name)`.
fn descendants() -> Vec<(libc::pid_t, libc::pid_t, String)> {
    // SAFETY: getpid cannot fail.
    let me = unsafe { libc::getpid() };
    let all = processes();
    let mut children: BTreeMap<libc::pid_t, Vec<&Proc>> = BTreeMap::new();
    for p in all.iter().filter(|p| p.state != 'Z') {
        children.entry(p.ppid).or_default().push(p);
    }
    let mut out = Vec::new();
    let mut queue = vec![me];
    while let Some(parent) = queue.pop() {
        for p in children.get(&parent).into_iter().flatten() {
            out.push((p.pid, p.ppid, p.comm.clone()));
            queue.push(p.pid);
        }
    }
    out
}

/// Kills every descendant through a pidfd opened while the process is still known to be in
/// the tree (its parent re-read after the open), until none is left; reaps what comes back.
/// Returns the names of the processes killed.
fn kill_tree() -> Vec<String> {
    let mut names = Vec::new();
    let mut seen = BTreeSet::new();
    for _ in 0..500 {
        let tree = descendants();
        if tree.is_empty() {
            break;
        }
        let mut members: BTreeSet<libc::pid_t> = tree.iter().map(|t| t.0).collect();
        // SAFETY: getpid cannot fail.
        members.insert(unsafe { libc::getpid() });
        for (pid, _, name) in &tree {
            if seen.insert(*pid) {
                names.push(name.clone());
            }
            kill_member(*pid, &members);
        }
        reap_ready();
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    reap_ready();
    names
}

/// SIGKILL to `pid` through a pidfd, if its parent (read after the pidfd pinned it) is in
/// `members`.
fn kill_member(pid: libc::pid_t, members: &BTreeSet<libc::pid_t>) {
    // SAFETY: pidfd_open returns a new descriptor or -1.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0u32) } as RawFd;
    if fd < 0 {
        return;
    }
    let ppid = std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| {
            s.rsplit_once(')')?
                .1
                .split_whitespace()
                .nth(1)?
                .parse::<libc::pid_t>()
                .ok()
        });
    if ppid.is_some_and(|p| members.contains(&p)) {
        // SAFETY: signals exactly the process the pidfd refers to.
        unsafe {
            libc::syscall(
                libc::SYS_pidfd_send_signal,
                fd,
                libc::SIGKILL,
                std::ptr::null::<libc::siginfo_t>(),
                0u32,
            );
        }
    }
    // SAFETY: closes the descriptor opened above.
    unsafe { libc::close(fd) };
}

fn reap_ready() {
    loop {
        let mut st = 0;
        // SAFETY: waitpid writes the status only.
        if unsafe { libc::waitpid(-1, &mut st, libc::WNOHANG) } <= 0 {
            break;
        }
    }
}
