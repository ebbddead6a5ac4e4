//! Per-call overhead of the MCP server (issue 24): a 1-edit `edit` call to a running
//! `git clada mcp` against `git clada apply` of the same edit from the command line (one
//! process per edit), both as the same JSON (`--dialect tool-call`) and as a nesl block.
//!
//!     cargo bench --bench mcp_call            # ROUNDS=40 by default
//!
//! Every round makes one real AI commit with each of the three (the edit flips one line of a
//! file in a repository of FILES files, default 2,000), interleaved, so a busy machine slows
//! all three alike; it prints the median and 90th percentile of each and their ratios, and the
//! CPU time per call (user + system, of the server process, or of the command and everything
//! it ran), which a busy machine disturbs much less than wall time. The numbers are
//! machine-dependent: they are reported, never asserted.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

const BIN: &str = env!("CARGO_BIN_EXE_git-clada");

fn env_num(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn git(dir: &Path, args: &[&str]) {
    let ok = Command::new("git")
        .args(args)
        .current_dir(dir)
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "git {args:?} failed");
}

fn setup(dir: &Path, files: usize) {
    git(dir, &["init", "-q", "-b", "main"]);
    git(dir, &["config", "gc.auto", "0"]);
    for i in 0..files {
        let d = dir.join(format!("src/m{:03}", i / 100));
        std::fs::create_dir_all(&d).unwrap_or_else(|e| panic!("mkdir: {e}"));
        let body: String = (0..20)
            .map(|j| format!("fn f{i}_{j}() -> u32 {{ {j} }}\n"))
            .collect();
        std::fs::write(d.join(format!("f{i:05}.rs")), body)
            .unwrap_or_else(|e| panic!("write: {e}"));
    }
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-q", "-m", "init"]);
    git(dir, &["gc", "-q"]);
}

/// The server, spoken to with JSON-RPC over its stdio.
struct Server {
    child: std::process::Child,
    out: BufReader<std::process::ChildStdout>,
    next: u64,
}

impl Server {
    fn start(dir: &Path) -> Server {
        let mut child = Command::new(BIN)
            .args(["mcp", "--session", "bench"])
            .current_dir(dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("start the server: {e}"));
        let out = BufReader::new(child.stdout.take().unwrap_or_else(|| panic!("stdout")));
        let mut s = Server {
            child,
            out,
            next: 1,
        };
        s.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}),
        );
        s.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        s
    }

    fn send(&mut self, v: &Value) {
        let stdin = self.child.stdin.as_mut().unwrap_or_else(|| panic!("stdin"));
        writeln!(stdin, "{v}").unwrap_or_else(|e| panic!("write: {e}"));
        stdin.flush().unwrap_or_else(|e| panic!("flush: {e}"));
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next;
        self.next += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let mut line = String::new();
        self.out
            .read_line(&mut line)
            .unwrap_or_else(|e| panic!("read: {e}"));
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"))
    }
}

/// Runs `git-clada apply` with `args`, `input` on stdin; panics unless it succeeded.
fn cli_apply(dir: &Path, args: &[&str], input: &str) {
    let mut child = Command::new(BIN)
        .args(["--format", "json", "apply"])
        .args(args)
        .arg("-")
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("spawn: {e}"));
    if let Some(mut stdin) = child.stdin.take() {
        stdin
            .write_all(input.as_bytes())
            .unwrap_or_else(|e| panic!("stdin: {e}"));
    }
    let out = child
        .wait_with_output()
        .unwrap_or_else(|e| panic!("wait: {e}"));
    assert!(
        out.status.success(),
        "apply failed: {}",
        String::from_utf8_lossy(&out.stdout)
    );
}

/// CPU time (user + system) of the children this process has waited for.
fn children_cpu() -> Duration {
    // SAFETY: getrusage only writes into the struct it is given.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut ru) };
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    tv(ru.ru_utime) + tv(ru.ru_stime)
}

/// CPU time of process `pid` and of the children it waited for (exec blocks, hooks), from
/// `/proc` (clock-tick resolution: meaningful summed over many calls).
fn process_cpu(pid: u32) -> Duration {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let ticks: u64 = stat
        .rsplit_once(')')
        .map(|(_, rest)| {
            rest.split_whitespace()
                .skip(11)
                .take(4)
                .filter_map(|f| f.parse::<u64>().ok())
                .sum()
        })
        .unwrap_or(0);
    // SAFETY: sysconf has no preconditions.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as u64;
    Duration::from_micros(ticks * 1_000_000 / hz)
}

fn stats(mut v: Vec<Duration>) -> (f64, f64) {
    v.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    (ms(v[v.len() / 2]), ms(v[(v.len() * 9) / 10]))
}

fn main() {
    // `cargo bench` passes `--bench`; a filter that is not ours skips this benchmark.
    if std::env::args()
        .skip(1)
        .any(|a| !a.starts_with('-') && a != "mcp_call")
    {
        return;
    }
    let rounds = env_num("ROUNDS", 40);
    let files = env_num("FILES", 2000);
    let tmp = tempfile::tempdir().unwrap_or_else(|e| panic!("tempdir: {e}"));
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&home).unwrap_or_else(|e| panic!("mkdir: {e}"));
    for (k, v) in [
        ("HOME", home.to_string_lossy().into_owned()),
        ("GIT_CONFIG_NOSYSTEM", "1".into()),
        ("GIT_AUTHOR_NAME", "bench".into()),
        ("GIT_AUTHOR_EMAIL", "bench@example.com".into()),
        ("GIT_COMMITTER_NAME", "bench".into()),
        ("GIT_COMMITTER_EMAIL", "bench@example.com".into()),
    ] {
        std::env::set_var(k, v);
    }
    let dir = tmp.path().join("repo");
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("mkdir: {e}"));
    setup(&dir, files);
    let mut server = Server::start(&dir);
    // Each of the three edits its own file, flipping a line between two values.
    let target = |k: usize| format!("src/m000/f{k:05}.rs");
    let flip = |round: usize| {
        if round.is_multiple_of(2) {
            ("fn f{K}_3() -> u32 { 3 }", "fn f{K}_3() -> u32 { 33 }")
        } else {
            ("fn f{K}_3() -> u32 { 33 }", "fn f{K}_3() -> u32 { 3 }")
        }
    };
    let (mut mcp, mut json_cli, mut nesl_cli) = (Vec::new(), Vec::new(), Vec::new());
    let (mut mcp_cpu, mut json_cpu, mut nesl_cpu) =
        (Duration::ZERO, Duration::ZERO, Duration::ZERO);
    let pid = server.child.id();
    for round in 0..rounds {
        let (old, new) = flip(round);
        let edit = |k: usize| json!({"path": target(k), "old_string": old.replace("{K}", &k.to_string()), "new_string": new.replace("{K}", &k.to_string())});

        let (t, c) = (Instant::now(), process_cpu(pid));
        let r = server.request("tools/call", json!({"name": "edit", "arguments": edit(1)}));
        mcp.push(t.elapsed());
        mcp_cpu += process_cpu(pid).saturating_sub(c);
        assert_eq!(r["result"]["isError"], false, "{r:#}");

        let (t, c) = (Instant::now(), children_cpu());
        cli_apply(&dir, &["--dialect", "tool-call"], &edit(2).to_string());
        json_cli.push(t.elapsed());
        json_cpu += children_cpu().saturating_sub(c);

        let nesl = format!(
            "#!nesl [@three-char-SHA-256: b01]\naction = \"file_replace_text\"\npath = \"{}\"\nold_text = {}\nnew_text = {}\n#!end_b01\n",
            target(3),
            serde_json::to_string(&old.replace("{K}", "3")).unwrap_or_default(),
            serde_json::to_string(&new.replace("{K}", "3")).unwrap_or_default(),
        );
        let (t, c) = (Instant::now(), children_cpu());
        cli_apply(&dir, &[], &nesl);
        nesl_cli.push(t.elapsed());
        nesl_cpu += children_cpu().saturating_sub(c);
    }
    drop(server.child.stdin.take());
    let _ = server.child.wait();
    let (m, m90) = stats(mcp);
    let (j, j90) = stats(json_cli);
    let (n, n90) = stats(nesl_cli);
    let per = |d: Duration| d.as_secs_f64() * 1000.0 / rounds as f64;
    let (mc, jc, nc) = (per(mcp_cpu), per(json_cpu), per(nesl_cpu));
    println!("mcp_call: {rounds} rounds, {files} files, one AI commit per call");
    println!(
        "                                         wall median   wall p90   ratio   CPU/call  ratio"
    );
    println!(
        "  mcp `edit` call (server running)       {m:8.2} ms  {m90:8.2} ms          {mc:7.2} ms"
    );
    println!(
        "  git clada apply --dialect tool-call    {j:8.2} ms  {j90:8.2} ms  {:5.2}x  {jc:7.2} ms  {:5.2}x",
        j / m,
        jc / mc.max(f64::EPSILON)
    );
    println!(
        "  git clada apply (nesl block)           {n:8.2} ms  {n90:8.2} ms  {:5.2}x  {nc:7.2} ms  {:5.2}x",
        n / m,
        nc / mc.max(f64::EPSILON)
    );
}
