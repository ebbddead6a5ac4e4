//! Every test that drives git-clada or its library from outside, in one test binary (one
//! link instead of one per file; matklad's "one integration test crate", as ripgrep and jj
//! have it). Each file here is a module named after what it tests; `common` and the
//! `*_support` modules are the shared helpers. Run one file's tests with
//! `cargo test --test cli <module>::` (or `cargo nextest run -E 'test(/^<module>::/)'`).

mod common;
mod differential_support;
/// The engine's test helpers (running a reply through the library), shared with the engine's
/// own test binary, whose conformance cases `clada_conformance` extends.
#[path = "../../crates/clada-engine/tests/it/engine_support/mod.rs"]
mod engine_support;

mod agent_git;
mod agent_hook;
mod agent_hook_agents;
mod agent_hook_setup;
mod agent_sessions;
mod agent_turn;
mod apply_git;
mod around;
mod clada_conformance;
mod clipboard;
mod closed_stdout;
mod commit_filter;
mod concurrency;
mod config_hooks;
mod config_limits;
mod context;
mod crash_safety;
mod demo;
mod diff_round_trip;
mod diff_symlinks;
mod differential_formats;
mod editorconfig_core;
mod engine_cli;
mod engine_faults;
mod exact;
mod exec_attacks;
mod exec_containment;
mod exec_long_code;
mod exec_readonly_table;
mod exec_sandbox;
mod fatal_reports;
mod filters;
mod format_fidelity;
mod formats_cli;
mod generated_docs;
mod git_author;
mod history_log;
mod history_race;
mod history_refusals;
mod history_sentences;
mod history_squash;
mod history_step;
mod history_undo;
mod history_undo_stack;
mod hooks_sandbox;
mod index_decode_replay;
mod index_differential;
mod index_flags;
mod input_limits;
mod keep_work;
mod kill_loop;
mod layers;
mod listener_conformance;
mod mcp_server;
mod parser_cli;
mod parser_conformance;
mod parser_regressions;
mod path_safety;
mod path_swap;
mod platform_portable;
mod pre_commit_framework;
mod prompt;
mod prop_history;
mod protected_files;
mod provenance;
mod provenance_rewrites;
mod provenance_stats;
mod real_agents;
mod repair_index;
mod repeated_intent;
mod repo_status;
mod report_corpus;
mod report_loop;
mod report_regressions;
mod report_truths;
mod share;
mod stat_cache;
mod subjects_and_warnings;
mod terminal_output;
mod trailers_differential;
mod undo_apply;
mod undo_records;
mod watch;

/// No test file is left out of the binary: every `*.rs` beside this one is a module here.
#[test]
fn every_test_file_is_a_module_of_this_binary() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cli");
    let main = std::fs::read_to_string(dir.join("main.rs")).expect("main.rs");
    let mut missing = Vec::new();
    for entry in std::fs::read_dir(&dir).expect("tests/cli") {
        let name = entry
            .expect("entry")
            .file_name()
            .to_string_lossy()
            .into_owned();
        if let Some(module) = name.strip_suffix(".rs").filter(|m| *m != "main") {
            if !main.lines().any(|l| l == format!("mod {module};")) {
                missing.push(module.to_string());
            }
        }
    }
    assert!(
        missing.is_empty(),
        "test files not declared in tests/cli/main.rs: {missing:?}"
    );
    let outside: Vec<_> = std::fs::read_dir(dir.parent().expect("tests"))
        .expect("tests")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".rs"))
        .collect();
    assert!(
        outside.is_empty(),
        "test files outside tests/cli (each would be a binary of its own): {outside:?}"
    );
}
