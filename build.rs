//! Links the `git-clada` executable at a fixed address on Linux (not position-independent):
//! the loader then has no relocations to apply at start-up — ~17,000 of them, touching
//! ~80 pages, for a position-independent build — which is about a fifth of the start-up
//! cost a short command like `apply` pays (0.19 ms of ~0.8 ms measured here). Only the
//! executable: libraries, proc macros and test binaries are linked as usual.
//!
//! It also says which of the tests' outside needs this machine has, as `cfg`s the tests mark
//! themselves ignored by (`#[cfg_attr(not(has_oracles), ignore = "needs …")]`), so a first
//! `cargo test` on a bare clone passes and lists what it did not run; `--include-ignored`
//! runs them anyway (and they fail, saying what is missing). `scripts/test` installs the tools
//! and sets `CLADA_TEST_TOOLS`, which makes this script look again.
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Each `cfg` the tests read, and what it stands for.
const NEEDS: [(&str, &str); 14] = [
    (
        "has_ec_core",
        "the EditorConfig core tests ../shared/conformance/editorconfig-core-test (or CLADA_EDITORCONFIG_TESTS)",
    ),
    (
        "has_shared",
        "the conformance data ../shared/conformance (or CLADA_SHARED)",
    ),
    ("has_oracles", "aider-chat and @openai/codex (scripts/test)"),
    ("has_patch", "GNU patch"),
    ("has_pre_commit", "the pre-commit framework (scripts/test)"),
    ("has_mcp_sdk", "the Python MCP SDK (scripts/test)"),
    ("has_inspector", "the MCP Inspector (scripts/test)"),
    ("has_husky", "husky, lint-staged and node (scripts/test)"),
    ("has_script", "util-linux `script`"),
    ("has_setcap", "libcap's `setcap`"),
    ("has_bash_completion", "git's bash completion"),
    (
        "has_agents",
        "Claude Code, Codex and Gemini CLI in the tools cache (scripts/test)",
    ),
    ("has_ruby", "ruby (exec blocks in ruby)"),
    (
        "has_chromium",
        "Debian's chromium (the stats page, headless)",
    ),
];

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    if os == "linux" && env == "gnu" {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
    for var in [
        "CLADA_TEST_TOOLS",
        "CLADA_SHARED",
        "CLADA_EDITORCONFIG_TESTS",
        "CLADA_AIDER_PYTHON",
        "CLADA_CODEX_BIN",
        "XDG_CACHE_HOME",
    ] {
        println!("cargo:rerun-if-env-changed={var}");
    }
    let root = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let tools = root.join("target/ci-tools");
    for (cfg, _) in NEEDS {
        println!("cargo:rustc-check-cfg=cfg({cfg})");
        if has(cfg, &root, &tools) {
            println!("cargo:rustc-cfg={cfg}");
        }
    }
}

fn has(cfg: &str, root: &Path, tools: &Path) -> bool {
    match cfg {
        "has_shared" => std::env::var_os("CLADA_SHARED")
            .map(PathBuf::from)
            .unwrap_or_else(|| root.join("../shared"))
            .join("conformance")
            .is_dir(),
        "has_ec_core" => std::env::var_os("CLADA_EDITORCONFIG_TESTS")
            .map(PathBuf::from)
            .unwrap_or_else(|| root.join("../shared/conformance/editorconfig-core-test"))
            .join("glob/CMakeLists.txt")
            .is_file(),
        "has_oracles" => {
            let aider = std::env::var_os("CLADA_AIDER_PYTHON")
                .map(PathBuf::from)
                .unwrap_or_else(|| tools.join("aider-venv/bin/python"));
            let codex = std::env::var_os("CLADA_CODEX_BIN").is_some()
                || std::fs::read_dir(tools.join("codex/node_modules/@openai"))
                    .map(|d| {
                        d.flatten()
                            .any(|e| e.file_name().to_string_lossy().starts_with("codex"))
                    })
                    .unwrap_or(false);
            runs(&aider, &["-c", "import aider.coders.editblock_coder"]) && codex
        }
        "has_patch" => runs(Path::new("patch"), &["--version"]),
        "has_pre_commit" => [
            "pre-commit",
            "end-of-file-fixer",
            "trailing-whitespace-fixer",
        ]
        .iter()
        .all(|t| tools.join("venv/bin").join(t).is_file()),
        "has_mcp_sdk" => [tools.join("venv/bin/python"), PathBuf::from("python3")]
            .iter()
            .any(|p| runs(p, &["-c", "import mcp, mcp_types, jsonschema, anyio"])),
        "has_inspector" => tools
            .join("inspector/node_modules/.bin/mcp-inspector")
            .exists(),
        "has_husky" => {
            let modules = tools.join("node/node_modules");
            modules.join("husky/bin.js").is_file()
                && modules.join(".bin/lint-staged").exists()
                && runs(Path::new("node"), &["--version"])
        }
        "has_script" => runs(Path::new("script"), &["--version"]),
        "has_setcap" => runs(Path::new("setcap"), &["-h"]),
        "has_ruby" => runs(Path::new("ruby"), &["--version"]),
        "has_chromium" => runs(Path::new("chromium"), &["--version"]),
        "has_bash_completion" => [
            "/usr/share/bash-completion/completions/git",
            "/usr/share/git/completion/git-completion.bash",
            "/etc/bash_completion.d/git",
        ]
        .iter()
        .any(|p| Path::new(p).exists()),
        "has_agents" => AGENTS.iter().all(|cli| agent_tools().join(cli).exists()),
        _ => false,
    }
}

/// The agent CLIs tests/cli/real_agents.rs drives, under the tools cache (scripts/test installs
/// them there, outside the clone, so a fresh CI clone reuses them).
const AGENTS: [&str; 3] = [
    "claude-code-2.1.332/node_modules/.bin/claude",
    "codex-0.171.0/node_modules/.bin/codex",
    "gemini-cli-0.61.0/node_modules/.bin/gemini",
];

/// `${XDG_CACHE_HOME:-$HOME/.cache}/git-clada-ci`.
fn agent_tools() -> PathBuf {
    match std::env::var_os("XDG_CACHE_HOME").filter(|v| !v.is_empty()) {
        Some(cache) => PathBuf::from(cache).join("git-clada-ci"),
        None => {
            PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".cache/git-clada-ci")
        }
    }
}

/// Whether `program args` runs and exits 0.
fn runs(program: &Path, args: &[&str]) -> bool {
    Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}
