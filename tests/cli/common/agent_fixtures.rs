//! The agents' hook payloads the agent-hook tests feed git-clada: fixtures under
//! `tests/fixtures/agent-hooks/<agent>/`, each citing the agent's documentation, with their
//! placeholders filled in.

use super::TestRepo;

pub const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/agent-hooks");

/// The fixture `name` of `agent` with each of `vars` filled in (JSON-escaped values), then
/// `{ROOT}` (the repository) and `{TRANSCRIPT}` (the Claude Code transcript fixture, unless
/// `vars` names another); panics when the result is not JSON.
pub fn payload(repo: &TestRepo, agent: &str, name: &str, vars: &[(&str, &str)]) -> String {
    let mut out = std::fs::read_to_string(format!("{FIXTURES}/{agent}/{name}.json"))
        .unwrap_or_else(|e| panic!("fixture {agent}/{name}: {e}"));
    for (k, v) in vars {
        let escaped = serde_json::to_string(v).expect("a string is JSON");
        out = out.replace(&format!("{{{k}}}"), &escaped[1..escaped.len() - 1]);
    }
    let transcript = format!("{FIXTURES}/claude-code/transcript.jsonl");
    out = out.replace("{ROOT}", &repo.path().display().to_string());
    out = out.replace("{TRANSCRIPT}", &transcript);
    serde_json::from_str::<serde_json::Value>(&out).expect("fixture is JSON");
    out
}

/// Holds the agent lock (`.git/clada/agent.lock`) as another hook's long work would, until
/// the returned file is dropped.
pub fn hold_agent_lock(repo: &TestRepo) -> std::fs::File {
    use std::os::fd::AsRawFd;
    std::fs::create_dir_all(repo.path().join(".git/clada")).expect("mkdir");
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(repo.path().join(".git/clada/agent.lock"))
        .expect("lock file");
    // SAFETY: flock on a descriptor this function owns and hands back.
    assert_eq!(unsafe { libc::flock(lock.as_raw_fd(), libc::LOCK_EX) }, 0);
    lock
}

/// Each file's attested line ranges in an authorship log (`refs/notes/ai`), in order:
/// `(path, ranges)` for every entry line above the `---`.
pub fn attested(log: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut file = String::new();
    for line in log.lines().take_while(|l| *l != "---") {
        match line.strip_prefix("  ") {
            Some(entry) => {
                let ranges = entry.rsplit(' ').next().unwrap_or("");
                out.push((file.clone(), ranges.to_string()));
            }
            None => file = line.to_string(),
        }
    }
    out
}

/// A payload recorded from the real `agent` (`recorded/NAME.json`, tests/cli/real_agents.rs) with
/// `{ROOT}`, `{TRANSCRIPT}` and `{ID}` filled in, and each `(field, value)` of `set` put in:
/// `tool_input.FIELD` (the command, file or patch the test's call runs) or a top-level field
/// (`cwd`). The shape stays the CLI's own.
pub fn recorded(
    repo: &TestRepo,
    agent: &str,
    name: &str,
    id: &str,
    set: &[(&str, &str)],
) -> String {
    let text = payload(repo, agent, &format!("recorded/{name}"), &[("ID", id)]);
    let mut v: serde_json::Value = serde_json::from_str(&text).expect("fixture is JSON");
    for (k, val) in set {
        let val = serde_json::Value::String(val.to_string());
        match k.strip_prefix("tool_input.") {
            Some(field) => v["tool_input"][field] = val,
            None => v[*k] = val,
        }
    }
    v.to_string()
}
