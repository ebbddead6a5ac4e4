//! Spawning: runs a program with stdin closed, a working directory, its own process group, a
//! timeout that kills the whole group, and each output stream capped. When the program exits,
//! whatever it left running in the background is killed too: nothing may change the worktree
//! after the exec's changes were collected. Error texts follow clada-semantics §6.

use std::io::Read;
use std::os::fd::{AsRawFd, FromRawFd};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::json;

use super::confine::Jail;
use super::session::Probe;
use super::Lang;

/// Appended to a stream that hit the cap.
pub const TRUNCATED: &str = "\n[output truncated]";

/// The interpreter and arguments for a language (the original's `mapLanguageToCommand`).
pub fn command_for(lang: &str, code: &str) -> Option<(&'static str, Vec<String>)> {
    let (prog, flag) = match lang {
        "bash" => ("bash", "-c"),
        "sh" => ("sh", "-c"),
        "javascript" => ("node", "-e"),
        "python" => ("python3", "-c"),
        "ruby" => ("ruby", "-e"),
        _ => return None,
    };
    Some((prog, vec![flag.to_string(), code.to_string()]))
}

pub(super) fn lang_name(lang: Lang) -> &'static str {
    match lang {
        Lang::Bash => "bash",
        Lang::Sh => "sh",
        Lang::Python => "python",
        Lang::Javascript => "javascript",
        Lang::Ruby => "ruby",
    }
}

/// What running a piece of code produced (the original's `ExecResult`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExecOutput {
    pub stdout: String,
    pub stderr: String,
    /// `None` when the process did not exit normally (timeout, signal, spawn failure).
    pub exit_code: Option<i32>,
    pub error: Option<String>,
}

impl ExecOutput {
    pub fn success(&self) -> bool {
        self.error.is_none() && self.exit_code == Some(0)
    }

    /// The original `ExecResult` object: `{success, stdout, stderr, exit_code?, error?}`.
    pub fn to_json(&self) -> serde_json::Value {
        let mut v = json!({
            "success": self.success(),
            "stdout": self.stdout,
            "stderr": self.stderr,
        });
        if let Some(code) = self.exit_code {
            v["exit_code"] = json!(code);
        }
        if let Some(e) = &self.error {
            v["error"] = json!(e);
        }
        v
    }

    pub(super) fn failed(error: String) -> ExecOutput {
        ExecOutput {
            stdout: String::new(),
            stderr: String::new(),
            exit_code: None,
            error: Some(error),
        }
    }
}

/// Seconds in shortest decimal form: `30`, `0.2`.
fn seconds(d: Duration) -> String {
    let ms = d.as_millis();
    if ms.is_multiple_of(1000) {
        format!("{}", ms / 1000)
    } else {
        let s = format!("{:.3}", ms as f64 / 1000.0);
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

fn signal_name(sig: i32) -> String {
    match sig {
        libc::SIGHUP => "SIGHUP".into(),
        libc::SIGINT => "SIGINT".into(),
        libc::SIGQUIT => "SIGQUIT".into(),
        libc::SIGILL => "SIGILL".into(),
        libc::SIGABRT => "SIGABRT".into(),
        libc::SIGBUS => "SIGBUS".into(),
        libc::SIGFPE => "SIGFPE".into(),
        libc::SIGKILL => "SIGKILL".into(),
        libc::SIGSEGV => "SIGSEGV".into(),
        libc::SIGPIPE => "SIGPIPE".into(),
        libc::SIGALRM => "SIGALRM".into(),
        libc::SIGTERM => "SIGTERM".into(),
        other => format!("signal {other}"),
    }
}

/// One output stream being read on its own thread: what was read so far (at most the cap),
/// whether more was cut off, and a signal when the stream ended.
struct Capture {
    kept: Arc<Mutex<(Vec<u8>, bool)>>,
    ended: mpsc::Receiver<()>,
}

/// Reads a stream to the end on a thread, keeping at most `cap` bytes.
fn capture(mut r: impl Read + Send + 'static, cap: usize) -> Capture {
    let kept = Arc::new(Mutex::new((Vec::new(), false)));
    let (tx, ended) = mpsc::channel();
    let shared = Arc::clone(&kept);
    std::thread::spawn(move || {
        let mut buf = [0u8; 16 * 1024];
        loop {
            match r.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    let Ok(mut k) = shared.lock() else { break };
                    let room = cap.saturating_sub(k.0.len());
                    if n > room {
                        k.1 = true;
                    }
                    k.0.extend_from_slice(&buf[..n.min(room)]);
                }
            }
        }
        let _ = tx.send(());
    });
    Capture { kept, ended }
}

/// What a stream produced, waiting until `deadline` at most for its end. A process that left
/// the exec's process group (setsid, daemons) can keep the pipe open after everything in the
/// group was killed: then whatever was read by the deadline is returned, with `false`.
fn finish(c: Capture, deadline: Instant) -> (String, bool) {
    let ended = c
        .ended
        .recv_timeout(deadline.saturating_duration_since(Instant::now()))
        .is_ok();
    let (bytes, truncated) = match c.kept.lock() {
        Ok(mut k) => (std::mem::take(&mut k.0), k.1),
        Err(_) => (Vec::new(), false),
    };
    let mut s = String::from_utf8_lossy(&bytes).into_owned();
    if truncated {
        s.push_str(TRUNCATED);
    }
    (s, ended)
}

/// Whether the process `pid` has ended, without reaping it: while it is an unreaped zombie
/// its id (and so its process group's id) cannot be reused, so the group can still be
/// signalled safely. `None` when it cannot be told (the caller then waits normally).
fn ended_unreaped(pid: libc::pid_t) -> Option<bool> {
    loop {
        // SAFETY: siginfo_t is plain data; waitid only writes into it.
        let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
        // SAFETY: WNOWAIT leaves the child waitable, so `Child::wait` still reaps it.
        let r = unsafe {
            libc::waitid(
                libc::P_PID,
                pid as libc::id_t,
                &mut info,
                libc::WEXITED | libc::WNOHANG | libc::WNOWAIT,
            )
        };
        if r == 0 {
            // SAFETY: filled in by waitid (zero when the child has not ended yet).
            return Some(unsafe { info.si_pid() } != 0);
        }
        if std::io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
            return None;
        }
    }
}

/// Whether a process other than `leader` is in process group `pgid` (from `/proc`; `false`
/// where there is none).
fn group_has_others(pgid: libc::pid_t, leader: libc::pid_t) -> bool {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return false;
    };
    entries.flatten().any(|e| {
        let Some(pid) = e
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<libc::pid_t>().ok())
        else {
            return false;
        };
        if pid == leader {
            return false;
        }
        // `pid (comm) state ppid pgrp …`; comm may hold spaces and parentheses.
        let Ok(stat) = std::fs::read_to_string(e.path().join("stat")) else {
            return false;
        };
        stat.rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().nth(2)?.parse::<libc::pid_t>().ok())
            == Some(pgid)
    })
}

/// Whether a confined run failed in a way the sandbox may have caused (its refusals read
/// "Permission denied", "Read-only file system", "Operation not permitted"): then the result
/// says what the sandbox allows.
pub fn refused_by_sandbox(out: &ExecOutput) -> bool {
    !out.success()
        && [
            "Permission denied",
            "Read-only file system",
            "Operation not permitted",
        ]
        .iter()
        .any(|m| out.stderr.contains(m) || out.stdout.contains(m))
}

/// What [`run_command`] observed besides the output.
pub(super) struct Run {
    pub output: ExecOutput,
    /// Processes the code started in the background were still running when it exited (they
    /// were killed).
    pub left_running: bool,
    /// Their names, when the block's init reported them (`exec/init.rs`).
    pub left: Vec<String>,
    /// An output pipe was still held open by a process outside the group after it ended.
    pub pipes_held: bool,
}

impl Run {
    /// A run that ended before any process was left behind (or none started).
    fn done(output: ExecOutput) -> Run {
        Run {
            output,
            left_running: false,
            left: Vec::new(),
            pipes_held: false,
        }
    }
}

/// Runs `code` with the interpreter for `lang` in `cwd`, stdin closed, in a new process group;
/// on timeout the whole group gets SIGTERM, then SIGKILL. When the main process exits,
/// whatever it left running is killed — the whole tree through the block's init
/// (`exec/init.rs`) in the git-clada binary, the process group otherwise — so nothing changes
/// the worktree after the exec and nothing holds its output pipes.
///
/// Not confined by the OS sandbox (the child still dies with git-clada): for code the user
/// runs on their own behalf; exec blocks and hooks go through [`Runner`](super::Runner) and
/// [`hooks`](super::hooks), which confine them.
pub fn run_command(
    lang: &str,
    code: &str,
    cwd: &Path,
    timeout: Duration,
    max_output: usize,
) -> ExecOutput {
    let limits = Limits {
        timeout,
        max_output,
        cancel: None,
    };
    run(lang, code, cwd, limits, None, &Jail::off()).output
}

/// How long a process may run and how much of its output is kept.
#[derive(Clone, Copy)]
pub struct Limits<'a> {
    pub timeout: Duration,
    /// Per output stream.
    pub max_output: usize,
    /// Set from another thread to stop the process as a timeout would (a cancelled request).
    pub cancel: Option<&'a AtomicBool>,
}

pub(super) fn run(
    lang: &str,
    code: &str,
    cwd: &Path,
    limits: Limits<'_>,
    probe: Option<&Probe>,
    jail: &Jail,
) -> Run {
    // Held until the process ended: long code is read from this file (`long_code.rs`).
    let (code, _file) = match super::long_code::argument(lang, code, jail.tmp()) {
        Ok(c) => c,
        Err(e) => {
            return Run::done(ExecOutput::failed(format!(
                "exec: cannot write the code ({} bytes) to a file for {lang}: {e}",
                code.len()
            )))
        }
    };
    let Some((prog, args)) = command_for(lang, &code) else {
        return Run::done(ExecOutput::failed(format!(
            "exec: Unsupported language '{lang}' (LANG_UNSUPPORTED)"
        )));
    };
    spawn_and_wait(prog, &args, cwd, limits, probe, jail, &|_| {})
}

/// The command that starts `prog`: through the block's init where the binary is git-clada,
/// with the read end of its report pipe.
fn command(
    prog: &str,
    args: &[String],
    jail: &Jail,
) -> std::io::Result<(Command, Option<(std::fs::File, std::fs::File)>)> {
    if !super::init::available() {
        let mut cmd = Command::new(prog);
        cmd.args(args);
        jail.install(&mut cmd);
        return Ok((cmd, None));
    }
    let (read, write) = report_pipe()?;
    let mut cmd = Command::new("/proc/self/exe");
    cmd.arg0("git-clada-init").arg(super::init::ARG);
    let landlock = jail.install_for_init(&mut cmd);
    let write_fd = write.as_raw_fd();
    cmd.arg(write_fd.to_string())
        .arg(landlock.map_or("-".to_string(), |fd| fd.to_string()))
        .arg(match super::init::namespaces_refused_for_tests() {
            true => "no-ns",
            false => "ns",
        })
        .arg(prog)
        .args(args);
    // SAFETY: fcntl is async-signal-safe; the write end stays open across exec in the child.
    unsafe {
        cmd.pre_exec(move || {
            if libc::fcntl(write_fd, libc::F_SETFD, 0) < 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    Ok((cmd, Some((read, write))))
}

/// A pipe, both ends close-on-exec (the child's write end is made inheritable in the child).
fn report_pipe() -> std::io::Result<(std::fs::File, std::fs::File)> {
    let mut fds = [0; 2];
    // SAFETY: pipe2 fills two descriptors this function then owns.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: just created, owned by nobody else.
    Ok(unsafe {
        (
            std::fs::File::from_raw_fd(fds[0]),
            std::fs::File::from_raw_fd(fds[1]),
        )
    })
}

/// The init's report, read once it ended (waiting a second at most for a writer that is
/// still dying).
fn read_report(mut r: std::fs::File) -> super::init::Report {
    let mut text = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(1);
    let mut buf = [0u8; 4096];
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let mut pfd = libc::pollfd {
            fd: r.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: poll on one descriptor this function owns.
        let n = unsafe { libc::poll(&mut pfd, 1, left.as_millis() as libc::c_int) };
        if n <= 0 {
            break;
        }
        match r.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(k) => text.extend_from_slice(&buf[..k]),
        }
        if text.len() > 1 << 20 {
            break;
        }
    }
    super::init::Report::parse(&String::from_utf8_lossy(&text))
}

/// Runs `prog` with `args` (no shell) as [`run_command`] describes, confined by `jail`;
/// `setup` adds the environment.
#[allow(clippy::too_many_arguments)]
pub(super) fn spawn_and_wait(
    prog: &str,
    args: &[String],
    cwd: &Path,
    limits: Limits<'_>,
    probe: Option<&Probe>,
    jail: &Jail,
    setup: &dyn Fn(&mut Command),
) -> Run {
    let (mut cmd, report) = match command(prog, args, jail) {
        Ok(c) => c,
        Err(e) => {
            return Run::done(ExecOutput::failed(format!(
                "exec: cannot start {prog}: {e}"
            )))
        }
    };
    cmd.current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    if let Some(p) = probe {
        let (k, v) = p.env();
        cmd.env(k, v);
    }
    setup(&mut cmd);
    // git-clada's own `/proc/<pid>/environ` holds what the environment filter kept from the
    // child: not dumpable while a confined one runs (`harden`).
    let _undumpable = (jail.level != super::confine::Level::Off).then(super::harden::undumpable);
    let spawned = cmd.spawn();
    // The parent's write end: closed now, so the report ends when the init does.
    let report = report.map(|(read, _write)| read);
    let child = match spawned {
        Ok(c) => c,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Run::done(ExecOutput::failed(format!(
                "exec: {prog} not found in PATH (ENOENT)"
            )))
        }
        Err(e) => {
            return Run::done(ExecOutput::failed(format!(
                "exec: cannot start {prog}: {e}"
            )))
        }
    };
    let grace = match report.is_some() {
        // The init kills its tree on SIGTERM before it exits.
        true => Duration::from_secs(2),
        false => Duration::from_millis(100),
    };
    let waited = wait(child, limits, grace);
    let report = report.map(read_report).unwrap_or_default();
    // Everything in the group is gone, so the pipes close at once unless a process escaped
    // the group; do not wait long for that one.
    let until = Instant::now() + Duration::from_millis(500);
    let (stdout, out_ended) = waited.out.map(|c| finish(c, until)).unwrap_or_default();
    let (stderr, err_ended) = waited.err.map(|c| finish(c, until)).unwrap_or_default();
    let status = match report.status {
        Some(st) => Some(st),
        None => waited.status.map(|st| (st.code(), st.signal())),
    };
    let output = |exit_code, error| ExecOutput {
        stdout: stdout.clone(),
        stderr: stderr.clone(),
        exit_code,
        error,
    };
    let output = if waited.cancelled {
        output(None, Some(super::CANCELLED.to_string()))
    } else if waited.timed_out {
        output(
            None,
            Some(format!(
                "exec: Process timeout after {}s (TIMEOUT)",
                seconds(limits.timeout)
            )),
        )
    } else if let Some((kind, msg)) = &report.error {
        match kind.as_str() {
            "notfound" => output(
                None,
                Some(format!("exec: {prog} not found in PATH (ENOENT)")),
            ),
            _ => output(None, Some(format!("exec: cannot start {prog}: {msg}"))),
        }
    } else {
        match status {
            Some((Some(code), _)) => output(Some(code), None),
            Some((None, Some(sig))) => output(
                None,
                Some(format!("Process killed by signal {}", signal_name(sig))),
            ),
            Some((None, None)) => output(
                None,
                Some("exec: process ended without an exit status".into()),
            ),
            None => output(None, Some("exec: lost track of the process".into())),
        }
    };
    Run {
        output,
        left_running: waited.left_running || !report.left.is_empty(),
        left: report.left,
        pipes_held: !(out_ended && err_ended),
    }
}

/// What waiting for a spawned child saw.
struct Waited {
    status: Option<std::process::ExitStatus>,
    out: Option<Capture>,
    err: Option<Capture>,
    timed_out: bool,
    cancelled: bool,
    left_running: bool,
}

/// Waits for `child` (its own group's leader) within `limits`; on timeout or cancel, SIGTERM
/// to the group, SIGKILL once the leader has not ended within `grace`.
fn wait(mut child: std::process::Child, limits: Limits<'_>, grace: Duration) -> Waited {
    let pid = child.id() as libc::pid_t;
    let pgid = pid;
    let out = child.stdout.take().map(|s| capture(s, limits.max_output));
    let err = child.stderr.take().map(|s| capture(s, limits.max_output));
    let deadline = Instant::now() + limits.timeout;
    let (mut timed_out, mut cancelled, mut left_running) = (false, false, false);
    let status = loop {
        match ended_unreaped(pid) {
            Some(true) => {
                left_running = group_has_others(pgid, pid);
                // SAFETY: the leader is an unreaped zombie, so `pgid` is still this group.
                unsafe {
                    libc::killpg(pgid, libc::SIGKILL);
                }
                break child.wait().ok();
            }
            Some(false) => {}
            None => match child.try_wait() {
                Ok(Some(st)) => break Some(st),
                Ok(None) => {}
                Err(_) => break None,
            },
        }
        cancelled = limits.cancel.is_some_and(|c| c.load(Ordering::SeqCst));
        if cancelled || Instant::now() >= deadline {
            timed_out = !cancelled;
            // SAFETY: killpg only sends a signal to the group we created for the child.
            unsafe {
                libc::killpg(pgid, libc::SIGTERM);
            }
            let until = Instant::now() + grace;
            while Instant::now() < until && ended_unreaped(pid) == Some(false) {
                std::thread::sleep(Duration::from_millis(5));
            }
            // SAFETY: as above; the leader is not reaped yet, so the group is still ours.
            unsafe {
                libc::killpg(pgid, libc::SIGKILL);
            }
            break child.wait().ok();
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    Waited {
        status,
        out,
        err,
        timed_out,
        cancelled,
        left_running,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_shortest() {
        assert_eq!(seconds(Duration::from_millis(200)), "0.2");
        assert_eq!(seconds(Duration::from_secs(30)), "30");
        assert_eq!(seconds(Duration::from_millis(1500)), "1.5");
    }

    #[test]
    fn runs_kills_and_caps() {
        let tmp = std::env::temp_dir();
        let ok = run_command(
            "bash",
            "echo hi; echo err >&2; exit 3",
            &tmp,
            Duration::from_secs(10),
            1024,
        );
        assert_eq!(ok.stdout, "hi\n");
        assert_eq!(ok.stderr, "err\n");
        assert_eq!(ok.exit_code, Some(3));
        let slow = run_command(
            "bash",
            "echo started; sleep 5",
            &tmp,
            Duration::from_millis(200),
            1024,
        );
        assert_eq!(
            slow.error.as_deref(),
            Some("exec: Process timeout after 0.2s (TIMEOUT)")
        );
        assert_eq!(slow.stdout, "started\n");
        let big = run_command(
            "bash",
            "head -c 5000 /dev/zero | tr '\\0' x",
            &tmp,
            Duration::from_secs(10),
            100,
        );
        assert_eq!(big.stdout.len(), 100 + TRUNCATED.len());
        assert!(big.stdout.ends_with(TRUNCATED));
        let none = run_command("cobol", "x", &tmp, Duration::from_secs(1), 10);
        assert_eq!(
            none.error.as_deref(),
            Some("exec: Unsupported language 'cobol' (LANG_UNSUPPORTED)")
        );
    }

    #[test]
    fn a_cancel_stops_the_whole_group_like_a_timeout() {
        let tmp = std::env::temp_dir();
        let flag = AtomicBool::new(false);
        let limits = Limits {
            timeout: Duration::from_secs(60),
            max_output: 1024,
            cancel: Some(&flag),
        };
        let out = std::thread::scope(|s| {
            let runner = s.spawn(|| {
                run(
                    "bash",
                    "echo started; sleep 30 & wait",
                    &tmp,
                    limits,
                    None,
                    &Jail::off(),
                )
            });
            // Cancel once the code is running (its output shows it started).
            std::thread::sleep(Duration::from_millis(200));
            flag.store(true, Ordering::SeqCst);
            runner.join().unwrap()
        });
        assert_eq!(out.output.error.as_deref(), Some(super::super::CANCELLED));
        assert_eq!(out.output.exit_code, None);
    }
}
