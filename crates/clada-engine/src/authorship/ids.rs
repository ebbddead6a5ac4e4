//! The ids of the Git AI Standard: sessions (`s_` + the first 14 hex of
//! SHA-256(`"<tool>:<conversation id>"`)), traces (`t_` + 14 hex, new for every AI commit),
//! humans (`h_` + the first 14 hex of SHA-256 of `"Name <email>"`), and the agents' names.

use sha2::{Digest, Sha256};

fn hex_prefix(data: &[u8], len: usize) -> String {
    let digest = Sha256::digest(data);
    let mut out = String::with_capacity(64);
    for b in digest.iter() {
        out.push_str(&format!("{b:02x}"));
    }
    out.truncate(len);
    out
}

/// The session id of a conversation with an agent.
pub fn session_id(tool: &str, conversation: &str) -> String {
    format!(
        "s_{}",
        hex_prefix(format!("{tool}:{conversation}").as_bytes(), 14)
    )
}

/// The key of a known human, from git's `"Name <email>"`.
pub fn human_id(author: &str) -> String {
    format!("h_{}", hex_prefix(author.as_bytes(), 14))
}

/// A new trace id. The standard asks for random hex; this hashes what makes a call unique
/// (`seed`: the commit's content, the clock to the nanosecond, the process, a counter), which
/// needs no source of randomness and never repeats within a process.
pub fn trace_id(seed: &[u8]) -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    let mut data = seed.to_vec();
    data.extend_from_slice(&nanos.to_le_bytes());
    data.extend_from_slice(&std::process::id().to_le_bytes());
    data.extend_from_slice(&COUNTER.fetch_add(1, Ordering::Relaxed).to_le_bytes());
    format!("t_{}", hex_prefix(&data, 14))
}

/// Whether `text` is `prefix` followed by exactly `len` lowercase hex digits.
pub fn is_id(text: &str, prefix: &str, len: usize) -> bool {
    text.strip_prefix(prefix).is_some_and(|hex| {
        hex.len() == len
            && hex
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    })
}

/// The standard's name for an agent, from the name an MCP client gives in its `clientInfo`
/// (the table is in docs/provenance.md). A name not in the table is kept, lowercased.
pub fn agent_for_client(client: &str) -> String {
    let name = client.trim().to_ascii_lowercase();
    let known: &[(&[&str], &str)] = &[
        (
            &["claude-code", "claude-ai", "claude", "claude desktop"],
            "claude",
        ),
        (&["cursor", "cursor-vscode", "cursor-cli"], "cursor"),
        (&["gemini-cli", "gemini", "gemini-cli-mcp-client"], "gemini"),
        (&["codex", "codex-mcp-client", "codex-cli"], "codex"),
        (&["windsurf", "windsurf-client"], "windsurf"),
        (
            &["visual studio code", "vscode", "github-copilot", "copilot"],
            "github-copilot",
        ),
        (&["opencode"], "opencode"),
        (&["amp", "amp-cli"], "amp"),
        (&["cline"], "cline"),
        (&["continue", "continue-cli"], "continue-cli"),
        (&["droid", "factory-droid"], "droid"),
    ];
    known
        .iter()
        .find(|(names, _)| names.contains(&name.as_str()))
        .map(|(_, tool)| (*tool).to_string())
        .unwrap_or(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_as_the_standard_derives_them() {
        // sha256("claude:conv_abc123") computed independently with sha256sum.
        assert_eq!(session_id("claude", "conv_abc123"), "s_ee976e8f82d55b");
        assert!(is_id(&trace_id(b"x"), "t_", 14));
        assert_ne!(trace_id(b"x"), trace_id(b"x"));
        assert!(is_id(&human_id("A <a@b.c>"), "h_", 14));
        assert!(!is_id("s_0123456789ABCD", "s_", 14));
        assert!(!is_id("s_0123456789abc", "s_", 14));
    }

    #[test]
    fn client_names_map_to_agents() {
        assert_eq!(agent_for_client("claude-code"), "claude");
        assert_eq!(agent_for_client("Visual Studio Code"), "github-copilot");
        assert_eq!(agent_for_client("gemini-cli"), "gemini");
        assert_eq!(agent_for_client("SomeNewTool"), "somenewtool");
    }
}
