//! The environment of every process exec and hooks start (DESIGN §5.2, issue 37 §4, issue 51
//! §11): git-clada's own minus what looks like a secret (tokens, keys, passwords, credentials,
//! DSNs, JWTs, the cloud and forge variables, the SSH agent, and any value that is a URL with
//! credentials in it); for the read-only list, which runs without asking and whose output
//! goes to the model, only the core variables a program needs to start. The user's
//! `sandbox.env` (their own file only) passes a name through (`NAME`, or a `*` pattern) or
//! takes one away (`!NAME`). There is no allow-list: builds need `JAVA_HOME`, `GOPATH`,
//! `VIRTUAL_ENV` and the like, which no list would hold. The report names what was kept out
//! ([`withheld`]), so a block that misses one says why.

use std::ffi::OsString;

/// Names (upper-cased) holding one of these are secrets.
const SECRET_PARTS: &[&str] = &[
    "TOKEN",
    "SECRET",
    "KEY",
    // PASSWORD, PASSWD, PASSPHRASE, DB_PASS, SMTP_PASS, PGPASS.
    "PASS",
    // MYSQL_PWD; not PWD and OLDPWD themselves (see `is_secret`).
    "PWD",
    "JWT",
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
    if matches!(up.as_str(), "PWD" | "OLDPWD") {
        return false;
    }
    SECRET_PARTS.iter().any(|p| holds(&up, p))
        || SECRET_PREFIXES.iter().any(|p| up.starts_with(p))
        || SECRET_NAMES.contains(&up.as_str())
        || up == "DSN"
        || up.ends_with("_DSN")
}

/// Whether the upper-cased `name` holds `part`; `AUTH` not as the start of `AUTHOR`
/// (`GIT_AUTHOR_NAME`, `CARGO_PKG_AUTHORS` name people), but of `AUTHORIZATION`.
fn holds(name: &str, part: &str) -> bool {
    name.match_indices(part).any(|(i, _)| {
        let rest = &name[i + part.len()..];
        part != "AUTH" || !rest.starts_with("OR") || rest.starts_with("ORIZ")
    })
}

/// Whether `value` holds a URL with credentials (`scheme://user:password@host`, or a
/// token-length user name alone: `https://ghp_…@github.com`), whatever its variable is
/// called (`REDIS_URL`, `MONGODB_URI`, `AMQP_URL`, a proxy).
pub fn has_credentials(value: &std::ffi::OsStr) -> bool {
    let bytes = value.as_encoded_bytes();
    let mut rest = bytes;
    while let Some(i) = find(rest, b"://") {
        let after = &rest[i + 3..];
        let end = after
            .iter()
            .position(|b| matches!(b, b'/' | b'?' | b'#' | b' ' | b',' | b';'))
            .unwrap_or(after.len());
        let authority = &after[..end];
        if let Some(at) = authority.iter().rposition(|b| *b == b'@') {
            let user = &authority[..at];
            if user.contains(&b':') || user.len() >= 20 {
                return true;
            }
        }
        rest = after;
    }
    false
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
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

/// Whether `name` (holding `value`) is passed to a process at `core_only` (the read-only
/// list) or not, under the user's `rules`: the last rule that names it decides, else the
/// defaults.
pub fn passes(name: &str, value: &std::ffi::OsStr, core_only: bool, rules: &[String]) -> bool {
    if core_only {
        return is_core(name);
    }
    let mut verdict = !is_secret(name) && !has_credentials(value);
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
        .filter(|(k, v)| k.to_str().is_some_and(|k| passes(k, v, core_only, rules)))
        .collect()
}

/// The names of this process's variables that exec blocks and hooks do not get (as secrets,
/// under the user's `rules`), sorted: what a report names.
pub fn withheld(rules: &[String]) -> Vec<String> {
    let mut out: Vec<String> = std::env::vars_os()
        .filter(|(k, v)| !k.to_str().is_some_and(|k| passes(k, v, false, rules)))
        .map(|(k, _)| k.to_string_lossy().into_owned())
        .collect();
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn passes(name: &str, core_only: bool, rules: &[String]) -> bool {
        super::passes(name, "plain".as_ref(), core_only, rules)
    }

    #[test]
    fn passwords_dsns_jwts_and_urls_with_credentials_are_secrets() {
        for s in [
            "MYSQL_PWD",
            "DB_PASS",
            "SMTP_PASS",
            "PGPASS",
            "PGPASSWORD",
            "SENTRY_DSN",
            "dsn",
            "CI_JOB_JWT",
            "CI_JOB_JWT_V2",
            "HTTP_AUTHORIZATION",
            "AUTHOR_AUTH_TOKEN",
            "BASIC_AUTH",
        ] {
            assert!(!passes(s, false, &[]), "{s}");
        }
        for s in [
            "PWD",
            "OLDPWD",
            "JAVA_HOME",
            "GOPATH",
            "VIRTUAL_ENV",
            "DSN_COUNT",
            "GIT_AUTHOR_NAME",
            "CARGO_PKG_AUTHORS",
        ] {
            assert!(passes(s, false, &[]), "{s}");
        }
        for v in [
            "redis://:hunter2@cache:6379/0",
            "mongodb+srv://app:pw@cluster0.example.net/db?retryWrites=true",
            "amqp://guest:guest@localhost:5672/",
            "https://ghp_aaaaaaaaaaaaaaaaaaaaaaaaaaaa@github.com/o/r.git",
            "primary=http://h1, backup=https://u:p@h2",
        ] {
            assert!(has_credentials(v.as_ref()), "{v}");
            assert!(!super::passes("REDIS_URL", v.as_ref(), false, &[]), "{v}");
        }
        for v in [
            "redis://cache:6379/0",
            "ssh://git@github.com/o/r.git",
            "https://example.com/a@b:c",
            "user:pass without a scheme",
            "",
        ] {
            assert!(!has_credentials(v.as_ref()), "{v}");
        }
        // The user's own sandbox.env passes them.
        let rules = vec!["DB_PASS".to_string(), "REDIS_URL".into()];
        assert!(passes("DB_PASS", false, &rules));
        assert!(super::passes(
            "REDIS_URL",
            "redis://:pw@h".as_ref(),
            false,
            &rules
        ));
    }

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
