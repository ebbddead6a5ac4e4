//! The `exec` action (DESIGN §5.2): where the block runs, whether it runs at all in a dry run,
//! and its result. Running it — policy, limits, the process — is `crate::exec`'s.
//!
//! Result data is `{stdout, stderr, exit_code}`; a non-zero exit is a failed action whose report
//! still carries the output (the original hid it). Error texts follow clada-semantics §6.

use serde_json::json;

use super::{Ctx, Outcome};
use crate::exec::Lang;
use crate::sandbox::ResolvedPath;

/// Where an exec block starts.
pub(super) enum Start<'a> {
    /// Its own `cwd`.
    Dir(&'a ResolvedPath),
    /// Where the reply's previous exec block ended (SHAM/NESL exec sessions).
    Session,
    /// A fresh shell at the worktree root.
    Root,
}

/// The exec action: working directory, policy, run, result.
pub(super) fn run_block(
    ctx: &mut Ctx<'_>,
    block_id: &str,
    code: &str,
    lang: Lang,
    start: Start<'_>,
    timeout: Option<u64>,
) -> Outcome {
    let cwd = match start {
        Start::Dir(c) => Some(c),
        _ => None,
    };
    let start = matches!(start, Start::Session).then(|| ctx.exec.start(ctx.sandbox));
    let dir = match (cwd, &start) {
        (Some(c), _) => c.abs.clone(),
        (None, Some(s)) => s.dir.clone(),
        (None, None) => ctx.sandbox.root().to_path_buf(),
    };
    if !dir.is_dir() {
        let given = cwd
            .map(|c| c.given.clone())
            .unwrap_or_else(|| dir.display().to_string());
        return Outcome::fail(format!(
            "exec: Working directory does not exist '{given}' (ENOENT)"
        ));
    }
    if ctx.opts.dry_run {
        let mut out = Outcome::ok(json!({"skipped": "dry run"}));
        out.skipped = true;
        out.warnings
            .push("not run: exec blocks never run in a dry run".to_string());
        return out;
    }
    let ran = match ctx
        .exec
        .run(ctx.sandbox, block_id, code, lang, &dir, timeout)
    {
        Ok(r) => r,
        Err(why) => {
            return Outcome {
                code: Some(why.code),
                needs_user: why.user_action,
                ..Outcome::fail(why.message)
            }
        }
    };
    let out = ran.output;
    let mut data = json!({"stdout": out.stdout, "stderr": out.stderr});
    if let Some(code) = out.exit_code {
        data["exit_code"] = json!(code);
    }
    if let Some(rel) = start.as_ref().and_then(|s| s.rel.as_ref()) {
        data["cwd"] = json!(rel);
    }
    let success = out.success();
    let error = match (&out.error, out.exit_code) {
        (Some(e), _) => Some(e.clone()),
        (None, Some(code)) if code != 0 => Some(format!("exec: exited with code {code}")),
        _ => None,
    };
    let denied = (!success)
        .then(|| sandbox_denial(ctx, &ran.warnings, &out.stderr, &out.stdout))
        .flatten();
    let mut warnings: Vec<String> = start.and_then(|s| s.warning).into_iter().collect();
    warnings.extend(ran.warnings);
    if let Some(how) = crate::exec::hook_sandbox::put_back_how(&ran.put_back) {
        let named: Vec<String> = ran.put_back.iter().map(|p| p.describe()).collect();
        return Outcome {
            code: Some("protected_hook"),
            needs_user: Some(how),
            data: Some(data),
            warnings,
            ..Outcome::fail(format!(
                "exec: the code changed what the user's own next `git commit` or `git status` \
                 runs, which nothing a reply makes run may change; it was put back: {}",
                named.join(", ")
            ))
        };
    }
    match denied {
        // The user's to lift: the block waits for them (⏸), it is not the model's to fix.
        Some(d) => Outcome {
            code: Some("sandbox_denied"),
            needs_user: Some(d.how),
            data: Some(data),
            warnings,
            ..Outcome::fail(format!(
                "exec: the OS sandbox kept the code from reading {} ({})",
                d.path,
                error
                    .as_deref()
                    .unwrap_or("it failed")
                    .trim_start_matches("exec: ")
            ))
        },
        None => Outcome {
            success,
            error,
            data: Some(data),
            warnings,
            ..Outcome::default()
        },
    }
}

/// A failure the OS sandbox caused and only the user can lift.
struct Denial {
    /// The path the sandbox refused, as the message named it.
    path: String,
    /// The `sandbox.read` line that allows it.
    how: String,
}

/// The messages' words for a refused access.
const DENIED: [&str; 2] = ["Permission denied", "Operation not permitted"];

/// Folders under the home folder whose contents are credentials: never proposed.
const SECRET: &[&str] = &[
    ".ssh",
    ".gnupg",
    ".aws",
    ".azure",
    ".kube",
    ".docker",
    ".netrc",
    ".git-credentials",
    ".password-store",
    ".pki",
    "keyrings",
    "gh",
    "gcloud",
];

/// When an approved block failed in the workspace sandbox and its messages name, as refused,
/// an existing path under the home folder that the sandbox does not grant (a toolchain such as
/// `~/.cargo` or `~/.nvm`): that path and the `sandbox.read` entry that allows it. Only such a
/// path makes the failure the user's: a reply's code can print "Permission denied" for a path
/// it may read, and that stays a failure for the model to fix.
fn sandbox_denial(
    ctx: &Ctx<'_>,
    warnings: &[String],
    stderr: &str,
    stdout: &str,
) -> Option<Denial> {
    use crate::exec::confine::{failure_note, Level};
    let confine = &ctx.exec.settings.confine;
    if !warnings.contains(&failure_note(Level::Workspace, confine)) {
        return None;
    }
    let home = std::env::var_os("HOME").map(std::path::PathBuf::from)?;
    let root = ctx.sandbox.root();
    let granted = |p: &std::path::Path| {
        p.starts_with(root)
            || confine
                .read
                .iter()
                .chain(&confine.write)
                .any(|g| p.starts_with(g))
            || confine.git_dirs.iter().any(|g| p.starts_with(g))
    };
    let refused = stderr.lines().chain(stdout.lines());
    let paths = refused
        .filter(|l| DENIED.iter().any(|d| l.contains(d)))
        .flat_map(absolute_paths);
    for given in paths {
        let path = std::path::Path::new(given);
        let Ok(under_home) = path.strip_prefix(&home) else {
            continue;
        };
        if granted(path) || path.symlink_metadata().is_err() {
            continue;
        }
        let parts: Vec<&str> = under_home.iter().filter_map(|c| c.to_str()).collect();
        // The toolchain's folder: `~/.cargo`; under `.local` and `.config`, one deeper.
        let depth = match parts.first() {
            Some(&".local") | Some(&".config") => 2,
            _ => 1,
        };
        if parts.len() < depth || parts.iter().take(depth).any(|p| SECRET.contains(p)) {
            continue;
        }
        let dir = format!("~/{}", parts[..depth].join("/"));
        return Some(Denial {
            path: given.to_string(),
            how: format!(
                "add {dir} to sandbox.read in your own config, ~/.config/clada/config.yml \
                 (`sandbox: {{read: [\"{dir}\"]}}`), so the OS sandbox lets approved code \
                 read it; then apply the reply again"
            ),
        });
    }
    None
}

/// The absolute paths a message line names: words starting with `/`, without the quotes,
/// colons and brackets around them.
fn absolute_paths(line: &str) -> impl Iterator<Item = &str> {
    line.split(|c: char| c.is_whitespace() || matches!(c, '\'' | '"' | '`' | '(' | ')' | ','))
        .map(|w| w.trim_end_matches([':', '.', ';']))
        .filter(|w| w.starts_with('/') && !w.split('/').any(|c| c == ".."))
}
