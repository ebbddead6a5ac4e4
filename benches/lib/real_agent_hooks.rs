//! Hook latency as the real Claude Code sees it (issue 50, "Speed"): the driver of
//! benches/real_agent_hooks.sh, which builds the release git-clada, makes the repository and
//! installs the hooks. Each round is one headless Claude Code turn against the tests' scripted
//! model server (tests/cli/common/model_server.rs): read-only tools (Read, Grep, Glob), an Edit,
//! a Write and a Bash `sed -i`, then the answer, whose Stop makes the AI commit. Claude Code's
//! debug log names every hook's duration (`Hooks: PreToolUse:Read [cmd] finished with status
//! 0 (67ms)`); the driver prints their median, 95th percentile and maximum per event and tool,
//! and resets the repository after each round. Nothing is asserted: the numbers depend on the
//! machine.
//!
//!     cargo run --example real_agent_hooks -- REPO CLAUDE HOME ROUNDS turn|floor
//!
//! (an example target, so a dev build: only the git-clada it times needs to be optimised)
//!
//! REPO has `refs/bench/base`; HOME holds Claude Code's settings with git-clada's hooks; the
//! `git-clada` the hooks run is the first on PATH. `floor`: the hooks were replaced by a
//! command that does nothing (the turn then makes no commit).

#[path = "../../tests/cli/common/model_server.rs"]
mod model_server;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use model_server::{Api, ModelServer, Step};
use serde_json::json;

/// How long one turn may take before the run stops.
const TURN_LIMIT: Duration = Duration::from_secs(300);

/// The turn's tool calls in a make_tree repository (benches/lib/common.sh) of `files` files.
fn script(root: &Path, files: usize) -> Vec<Step> {
    let file = |i: usize| root.join(format!("src/m{:04}/f{i:06}.rs", i / 100));
    let (a, b, c) = (files / 2, files / 3, (files * 3) / 4);
    vec![
        Step::call("Read", json!({"file_path": file(a)})),
        Step::call(
            "Grep",
            json!({"pattern": format!("fn f{b}_5"), "path": root}),
        ),
        Step::call(
            "Glob",
            json!({"pattern": format!("src/m{:04}/*.rs", b / 100)}),
        ),
        Step::call(
            "Edit",
            json!({"file_path": file(a), "old_string": format!("fn f{a}_3() -> u32 {{ 3 }}"),
                "new_string": format!("fn f{a}_3() -> u32 {{ 33 }}")}),
        ),
        Step::call(
            "Write",
            json!({"file_path": root.join("src/new/bench.rs"), "content": "fn bench() {}\n"}),
        ),
        Step::call(
            "Bash",
            json!({"command": format!("sed -i 's/{{ 4 }}/{{ 44 }}/' src/m{:04}/f{b:06}.rs", b / 100),
                "description": "Change one line"}),
        ),
        Step::call("Read", json!({"file_path": file(c)})),
        Step::call(
            "Grep",
            json!({"pattern": format!("fn f{c}_7"), "path": root}),
        ),
        Step::call(
            "Glob",
            json!({"pattern": format!("src/m{:04}/f{c:06}.rs", c / 100)}),
        ),
        Step::answer("Done."),
    ]
}

fn git(repo: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(args)
        .current_dir(repo)
        .output()
        .unwrap_or_else(|e| fail(&format!("git {args:?}: {e}")));
    if !out.status.success() {
        fail(&format!(
            "git {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

fn fail(what: &str) -> ! {
    eprintln!("real_agent_hooks: {what}");
    std::process::exit(1)
}

/// One turn; the hooks' durations (ms) by `EVENT[:TOOL]`, from Claude Code's debug log.
fn turn(repo: &Path, claude: &Path, home: &Path, files: usize, log: &Path) -> Vec<(String, f64)> {
    let server = ModelServer::start(Api::Anthropic, "claude-scripted-1", script(repo, files));
    let mut child = Command::new(claude)
        .current_dir(repo)
        .env("HOME", home)
        .env("ANTHROPIC_BASE_URL", server.url())
        .env("ANTHROPIC_API_KEY", "scripted")
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        .env_remove("CLAUDE_CONFIG_DIR")
        .args(["-p", "Make the change the script describes."])
        .args(["--permission-mode", "acceptEdits"])
        // Grep and Glob are offered only when named here (Bash's grep and find otherwise).
        .args(["--allowedTools", "Bash,Read,Grep,Glob"])
        .arg("--debug-file")
        .arg(log)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| fail(&format!("start {}: {e}", claude.display())));
    let start = Instant::now();
    while child.try_wait().ok().flatten().is_none() {
        if start.elapsed() > TURN_LIMIT {
            let _ = child.kill();
            fail(&format!(
                "the turn took over {} s\n{}",
                TURN_LIMIT.as_secs(),
                server.log()
            ));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child
        .wait_with_output()
        .unwrap_or_else(|e| fail(&e.to_string()));
    if !out.status.success() {
        fail(&format!(
            "claude exited with {}: {}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr),
            server.log()
        ));
    }
    let text = std::fs::read_to_string(log).unwrap_or_default();
    text.lines().filter_map(duration).collect()
}

/// `(EVENT[:TOOL], ms)` of a debug line `… Hooks: PreToolUse:Read [cmd] finished with status
/// 0 (67ms)`.
fn duration(line: &str) -> Option<(String, f64)> {
    let rest = line.split_once("Hooks: ")?.1;
    let (key, rest) = rest.split_once(" [")?;
    if !rest.contains("] finished with status") {
        return None;
    }
    let ms = rest.rsplit_once('(')?.1.strip_suffix("ms)")?;
    Some((key.to_string(), ms.parse().ok()?))
}

/// The nearest-rank percentile `p` of sorted `v`.
fn percentile(v: &[f64], p: f64) -> f64 {
    let rank = ((p / 100.0) * v.len() as f64).ceil() as usize;
    v[rank.clamp(1, v.len()) - 1]
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [repo, claude, home, rounds, mode] = args.as_slice() else {
        fail("usage: real_agent_hooks REPO CLAUDE HOME ROUNDS turn|floor");
    };
    let (repo, claude, home) = (
        PathBuf::from(repo),
        PathBuf::from(claude),
        PathBuf::from(home),
    );
    let rounds: usize = rounds
        .parse()
        .unwrap_or_else(|_| fail("ROUNDS is a number"));
    let files = git(&repo, &["ls-files"]).lines().count();
    let logs = home.join("debug");
    std::fs::create_dir_all(&logs).unwrap_or_else(|e| fail(&e.to_string()));
    let mut all: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    for round in 0..rounds {
        let base = git(&repo, &["rev-parse", "refs/bench/base"]);
        let log = logs.join(format!("round-{round}.txt"));
        for (key, ms) in turn(&repo, &claude, &home, files, &log) {
            all.entry(key).or_default().push(ms);
        }
        if mode == "turn" && git(&repo, &["rev-parse", "HEAD"]) == base {
            fail(&format!(
                "round {round} made no AI commit on the base (see {})",
                log.display()
            ));
        }
        git(&repo, &["reset", "-q", "--hard", "refs/bench/base"]);
        eprintln!("round {} of {rounds} done", round + 1);
    }
    let hooks = match mode.as_str() {
        "floor" => "`git clada --version` as every hook",
        _ => "git clada agent-hook",
    };
    println!("Claude Code hooks ({hooks}), {files} files, {rounds} turns (ms, as Claude Code's debug log times them):");
    println!(
        "  {:22} {:>4} {:>7} {:>7} {:>7}",
        "event:tool", "n", "p50", "p95", "max"
    );
    for (key, mut v) in all {
        v.sort_by(f64::total_cmp);
        println!(
            "  {key:22} {:>4} {:>7.0} {:>7.0} {:>7.0}",
            v.len(),
            percentile(&v, 50.0),
            percentile(&v, 95.0),
            v[v.len() - 1]
        );
    }
}
