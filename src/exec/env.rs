//! The environment of every process exec and hooks start (DESIGN §5.2, issue 37 §4):
//! git-clada's own minus what looks like a secret (tokens, keys, passwords, credentials, the
//! cloud and forge variables, the SSH agent); for the read-only list, which runs without
//! asking and whose output goes to the model, only the core variables a program needs to
//! start. The user's `sandbox.env` (their own file only) passes a name through (`NAME`, or a
//! `*` pattern) or takes one away (`!NAME`).

use std::ffi::OsString;

/// Names (upper-cased) holding one of these are secrets.
const SECRET_PARTS: &[&str] = &[
    "TOKEN",
    "SECRET",
    "KEY",
    "PASSWORD",
    "PASSWD",
    "CREDENTIAL",
    "AUTH",
    "COOKIE",
    "SESSION",
    "PRIVATE",
];

/// Names (upper-cased) starting with these are secrets: clouds and forges.
const SECRET_PREFIXES: &[&str] = &[
    "AWS_",
    "GITHUB_",
    "GH_",
    "GITLAB_",
    "GL_",
    "AZURE_",
    "GOOGLE_",
    "GCP_",
    "GCLOUD_",
    "CLOUDSDK_",
    "DIGITALOCEAN_",
    "HEROKU_",
    "VAULT_",
];

/// Exact names that are secrets.
const SECRET_NAMES: &[&str] = &[
    "SSH_AGENT_PID",
    "GPG_AGENT_INFO",
    "DATABASE_URL",
    "KRB5CCNAME",
    "NETRC",
];

/// What the read-only list gets (besides `LC_*` and git-clada's own `TMPDIR`).
const CORE: &[&str] = &["PATH", "HOME", "LANG", "LANGUAGE", "TERM", "TMPDIR"];

/// Whether `name` looks like it holds a secret.
pub fn is_secret(name: &str) -> bool {
    let up = name.to_ascii_uppercase();
    SECRET_PARTS.iter().any(|p| up.contains(p))
        || SECRET_PREFIXES.iter().any(|p| up.starts_with(p))
        || SECRET_NAMES.contains(&up.as_str())
}

/// Whether `name` is a core variable.
pub fn is_core(name: &str) -> bool {
    CORE.contains(&name) || name.starts_with("LC_")
}

/// `name` against a `sandbox.env` pattern (`*` matches any run of characters).
fn matches(pattern: &str, name: &str) -> bool {
    match pattern.split_once('*') {
        None => pattern == name,
        Some((head, tail)) => {
            name.len() >= head.len()
                && name.starts_with(head)
                && (tail.is_empty() || {
                    let rest = &name[head.len()..];
                    (0..=rest.len())
                        .filter(|&i| rest.is_char_boundary(i))
                        .any(|i| matches(tail, &rest[i..]))
                })
        }
    }
}

/// Whether `name` is passed to a process at `core_only` (the read-only list) or not, under
/// the user's `rules`: the last rule that names it decides, else the defaults.
pub fn passes(name: &str, core_only: bool, rules: &[String]) -> bool {
    if core_only {
        return is_core(name);
    }
    let mut verdict = !is_secret(name);
    for r in rules {
        match r.strip_prefix('!') {
            Some(p) if matches(p, name) => verdict = false,
            None if matches(r, name) => verdict = true,
            _ => {}
        }
    }
    verdict
}

/// The variables of this process to give a child, by [`passes`].
pub fn filtered(core_only: bool, rules: &[String]) -> Vec<(OsString, OsString)> {
    std::env::vars_os()
        .filter(|(k, _)| k.to_str().is_some_and(|k| passes(k, core_only, rules)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_dropped_and_the_user_decides_last() {
        for s in [
            "GITHUB_TOKEN",
            "NPM_TOKEN",
            "AWS_REGION",
            "OPENAI_API_KEY",
            "SSH_AUTH_SOCK",
            "DB_PASSWORD",
            "my_secret",
            "GOOGLE_APPLICATION_CREDENTIALS",
        ] {
            assert!(!passes(s, false, &[]), "{s}");
        }
        for s in ["PATH", "HOME", "CARGO_HOME", "EDITOR", "LC_ALL"] {
            assert!(passes(s, false, &[]), "{s}");
        }
        let rules = vec!["NPM_TOKEN".to_string(), "!EDITOR".into(), "MY_*".into()];
        assert!(passes("NPM_TOKEN", false, &rules));
        assert!(!passes("EDITOR", false, &rules));
        assert!(passes("MY_API_KEY", false, &rules));
        assert!(!passes("GITHUB_TOKEN", false, &rules));
        // The read-only list: core only, whatever the rules say.
        assert!(!passes("CARGO_HOME", true, &[]));
        assert!(!passes("NPM_TOKEN", true, &rules));
        assert!(passes("LC_CTYPE", true, &[]) && passes("TERM", true, &[]));
    }

    #[test]
    fn patterns_match_runs() {
        assert!(matches("A*", "ABC") && matches("*_KEY", "MY_KEY") && matches("*", "X"));
        assert!(matches("A*C", "ABBC") && !matches("A*C", "ABD") && !matches("AB", "ABC"));
    }
}
