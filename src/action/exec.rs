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
    let mut warnings: Vec<String> = start.and_then(|s| s.warning).into_iter().collect();
    warnings.extend(ran.warnings);
    Outcome {
        success,
        error,
        data: Some(data),
        warnings,
        ..Outcome::default()
    }
}
