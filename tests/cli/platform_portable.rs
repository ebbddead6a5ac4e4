//! Where no OS sandbox exists — the portable side of the platform seam (docs/platforms.md), or
//! on Linux a kernel without Landlock, simulated here by `sandbox.landlock: false` — nothing a
//! reply makes run runs unconfined: exec blocks are refused before anything asks, saying why;
//! hooks on the AI commit wait (⏸) and the AI's changes stay pending; the file edits are still
//! exact, and undo takes them back. `.ci/run` runs this module in the portable build as well
//! (`--features clada-base/portable`), where no configuration is needed to be without a sandbox.

use crate::common;

use common::{block, exit_code, output_text, replace_block, TestRepo};

/// Makes `r` a repository without an OS sandbox: it already is one in the portable build.
fn without_sandbox(r: &TestRepo) {
    if clada_base::platform::LINUX {
        r.user_config("sandbox:\n  landlock: false\n");
    }
}

fn step<'a>(v: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    v["steps"]
        .as_array()
        .and_then(|s| s.iter().find(|x| x["name"] == name))
        .unwrap_or_else(|| panic!("no step {name}: {v}"))
}

#[test]
fn exec_blocks_are_refused_saying_why_and_config_says_so() {
    let r = TestRepo::with_files(&[("README.md", "hello\n")]);
    without_sandbox(&r);
    let exec =
        |id: &str, code: &str| block(id, &[("action", "exec"), ("lang", "bash"), ("code", code)]);
    let reply = [
        exec("p01", "cat README.md"),
        exec("p02", "echo x > out.txt"),
    ]
    .concat();
    let out = r.apply(&reply, &["--exec", "allow"]);
    let v = TestRepo::report(&out);
    for i in 0..2 {
        let res = &v["results"][i];
        assert_eq!(res["success"], false, "{res}");
        let err = res["error"].as_str().unwrap_or_default();
        assert!(
            err.starts_with("exec: not run: the OS sandbox is unavailable (")
                && err.contains("git-clada runs exec blocks only inside it"),
            "{err}"
        );
    }
    assert!(!r.exists("out.txt"));
    assert!(
        output_text(&out).contains("sandbox.level: off"),
        "{}",
        output_text(&out)
    );
    let shown = r.clada(&["config"]);
    let text = String::from_utf8_lossy(&shown.stdout);
    assert!(
        text.contains("OS sandbox for exec and hooks: unavailable (")
            && text.contains("exec blocks are refused and hooks wait"),
        "{text}"
    );
    r.assert_fsck();
}

#[test]
fn hooks_wait_the_edits_stay_pending_and_undo_takes_them_back() {
    let r = TestRepo::with_files(&[("a.txt", "a\n"), (".gitignore", "ran\n")]);
    r.write(".git/hooks/pre-commit", "#!/bin/sh\necho yes > ran\n");
    r.set_executable(".git/hooks/pre-commit");
    without_sandbox(&r);
    let head = r.head();
    let out = r.apply(&replace_block("p03", "a.txt", "a", "b"), &[]);
    assert_eq!(exit_code(&out), 1, "{}", output_text(&out));
    let v = TestRepo::report(&out);
    let how = step(&v, "hook pre-commit")["needsUser"]["how"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(how.contains("hooks.sandbox: off"), "{v}");
    assert!(!r.exists("ran"));
    assert_eq!(r.head(), head);
    assert_eq!(r.read("a.txt"), "b\n");
    // Nothing was committed: the pending AI change is dropped by undo, the file as it was.
    let out = r.clada(&["undo"]);
    assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
    assert_eq!(r.read("a.txt"), "a\n");
    assert_eq!(r.head(), head);
    assert_eq!(r.status(), "");
    r.assert_fsck();
}
