//! The pre-commit framework itself (the PyPI package `pre-commit`, with the `pre-commit-hooks`
//! package's fixers) running on an AI commit, and our `.pre-commit-hooks.yaml` used the way
//! the framework uses it (cloned from a repository at a `rev`, file names as arguments).
//!
//! No network at test time: `scripts/test` installs both packages into `target/ci-tools/venv`
//! beforehand, and `git clada hooks prepare` clones our hook repository into git-clada's hook
//! cache before the first AI commit (hooks run in the sandbox, issue 35); the fixers are declared as `repo: local` hooks (`language: system`, the
//! packages' console scripts), and our hook repository is a local git repository holding
//! this checkout's `.pre-commit-hooks.yaml`, which the framework clones by path.
//!
//! Where `target/ci-tools/venv/bin` has no `pre-commit`, the test is ignored
//! (`has_pre_commit`, from build.rs); run anyway (`--include-ignored`), it fails saying what is
//! missing.

use crate::common;

use std::fs;
use std::path::{Path, PathBuf};

use common::{exit_code, output_text, write_block, TestRepo};

/// The directory holding `pre-commit`, `end-of-file-fixer` and `trailing-whitespace-fixer`.
fn tools_dir() -> Option<PathBuf> {
    let venv = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/ci-tools/venv/bin");
    let mut dirs = vec![venv];
    dirs.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    dirs.into_iter().find(|d| {
        [
            "pre-commit",
            "end-of-file-fixer",
            "trailing-whitespace-fixer",
        ]
        .iter()
        .all(|t| d.join(t).is_file())
    })
}

fn tools_or_skip() -> Option<PathBuf> {
    let found = tools_dir();
    assert!(
        found.is_some(),
        "pre-commit, end-of-file-fixer and trailing-whitespace-fixer were not found on PATH or \
         in target/ci-tools/venv/bin (bash scripts/test installs them: pip install pre-commit \
         pre-commit-hooks)"
    );
    found
}

/// A repository holding this checkout's `.pre-commit-hooks.yaml`, as the framework clones it;
/// returns its path and commit.
fn hook_repo(dir: &Path) -> (PathBuf, String) {
    let repo = dir.join("git-clada-hooks");
    fs::create_dir_all(&repo).expect("mkdir");
    fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join(".pre-commit-hooks.yaml"),
        repo.join(".pre-commit-hooks.yaml"),
    )
    .expect("copy manifest");
    let git = |args: &[&str]| {
        let out = std::process::Command::new("git")
            .args(["-c", "user.name=T", "-c", "user.email=t@example.com"])
            .args(args)
            .current_dir(&repo)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .output()
            .expect("git");
        assert!(out.status.success(), "git {args:?}: {}", output_text(&out));
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    };
    git(&["init", "-q"]);
    git(&["add", "."]);
    git(&["commit", "-q", "-m", "hooks"]);
    let rev = git(&["rev-parse", "HEAD"]);
    (repo, rev)
}

fn project(tools: &Path, hooks: &Path, rev: &str, cache: &Path) -> TestRepo {
    let config = format!(
        "repos:
  - repo: local
    hooks:
      - id: end-of-file-fixer
        name: fix end of files
        entry: end-of-file-fixer
        language: system
        types: [text]
      - id: trailing-whitespace
        name: trim trailing whitespace
        entry: trailing-whitespace-fixer
        language: system
        types: [text]
  - repo: {}
    rev: {rev}
    hooks:
      - id: clada-check
",
        hooks.display()
    );
    let mut r = TestRepo::with_files(&[
        ("README.md", "hello\n"),
        (".pre-commit-config.yaml", &config),
    ]);
    r.env.push((
        "PATH".into(),
        common::path_with_clada(&[tools.to_path_buf()]),
    ));
    r.env
        .push(("PRE_COMMIT_HOME".into(), cache.display().to_string()));
    r.env.push(("PRE_COMMIT_COLOR".into(), "never".into()));
    let out = run(&r, tools, &["install"]);
    assert_eq!(
        exit_code(&out),
        0,
        "pre-commit install: {}",
        output_text(&out)
    );
    r
}

fn run(r: &TestRepo, tools: &Path, args: &[&str]) -> std::process::Output {
    let mut cmd = std::process::Command::new(tools.join("pre-commit"));
    cmd.args(args)
        .current_dir(r.path())
        .env("HOME", r.home.path());
    for (k, v) in &r.env {
        cmd.env(k, v);
    }
    cmd.env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", r.home.path().join(".gitconfig"))
        .env_remove("GIT_INDEX_FILE")
        .env_remove("GIT_DIR");
    cmd.output().expect("run pre-commit")
}

#[test]
#[cfg_attr(
    not(has_pre_commit),
    ignore = "needs the pre-commit framework (bash scripts/test installs it)"
)]
fn the_framework_accepts_an_ai_commit_of_a_new_file_and_runs_clada_check_on_file_names() {
    let Some(tools) = tools_or_skip() else {
        return;
    };
    let tmp = tempfile::tempdir().expect("tmp");
    let (hooks, rev) = hook_repo(tmp.path());
    let cache = tmp.path().join("pre-commit-home");
    let r = project(&tools, &hooks, &rev, &cache);
    // Hooks run contained, without network (issue 35): the framework's hook repositories are
    // fetched once, by `git clada hooks prepare`, into git-clada's own cache. Here the
    // repository is a local clone outside the worktree, so the user's own config lets hooks
    // read it (a real one is a URL, which prepare fetches with network).
    r.user_config(&format!("sandbox:\n  read: [\"{}\"]\n", hooks.display()));
    let out = r.clada(&["hooks", "prepare"]);
    assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
    assert!(
        output_text(&out).contains("✅ pre-commit install-hooks"),
        "{}",
        output_text(&out)
    );

    // An AI commit of a new file written without a final newline: git-clada adds one, and the
    // framework's hooks (run by git-clada as the repository's pre-commit hook) accept it.
    let out = r.apply(&write_block("nf1", "src/app.py", "print('hi')"), &[]);
    assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
    let v = TestRepo::report(&out);
    let steps = v["steps"].as_array().expect("steps");
    let hook = steps
        .iter()
        .find(|s| s["name"] == "hook pre-commit")
        .expect("the pre-commit hook ran");
    let hook_output = hook["output"].as_str().unwrap_or("");
    for name in [
        "fix end of files",
        "trim trailing whitespace",
        "no leftover LLM block markers",
    ] {
        assert!(
            hook_output.contains(name) && !hook_output.contains("Failed"),
            "{name} did not pass:\n{hook_output}"
        );
    }
    assert!(
        r.subject("HEAD").starts_with("AI: "),
        "{}",
        r.subject("HEAD")
    );
    assert_eq!(r.git(&["show", "HEAD:src/app.py"]), "print('hi')\n");
    assert_eq!(r.status(), "");

    // The control: with the final newline turned off, end-of-file-fixer rewrites the file and
    // fails the commit (so the framework really ran above); the apply takes the hook's fix to
    // the reply's file and commits once more (issue 22), naming the file it rewrote.
    r.write(".clada.yml", "files:\n  final_newline: false\n");
    r.git(&["add", ".clada.yml"]);
    r.git(&["commit", "-q", "-m", "exact writes"]);
    let out = r.apply(&write_block("nf2", "src/other.py", "print('x')"), &[]);
    assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
    let v = TestRepo::report(&out);
    let steps = v["steps"].as_array().expect("steps");
    let fixing = steps
        .iter()
        .find(|s| s["name"] == "hook pre-commit (rewrote files, retried)")
        .expect("the hook's fixing run is named");
    assert!(
        fixing["output"]
            .as_str()
            .unwrap_or("")
            .contains("Fixing src/other.py"),
        "{fixing}"
    );
    assert!(
        r.subject("HEAD").starts_with("AI: "),
        "{}",
        r.subject("HEAD")
    );
    assert_eq!(r.git(&["show", "HEAD:src/other.py"]), "print('x')\n");
    r.clada(&["undo"]);
    assert_eq!(r.subject("HEAD"), "exact writes");

    // clada-check as the framework runs it: the staged file names as arguments.
    r.write(
        "notes.txt",
        "#!nesl [@three-char-SHA-256: p4s]\naction = \"exec\"\n#!end_p4s\n",
    );
    r.git(&["add", "notes.txt"]);
    let out = run(&r, &tools, &["run", "clada-check", "--files", "notes.txt"]);
    assert_ne!(exit_code(&out), 0, "{}", output_text(&out));
    let text = output_text(&out);
    assert!(
        text.contains("notes.txt:1: leftover block marker"),
        "{text}"
    );
    assert!(
        text.contains("notes.txt:3: leftover block marker"),
        "{text}"
    );
    let out = run(&r, &tools, &["run", "clada-check", "--files", "README.md"]);
    assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
}

/// Issue 42 §2: the framework runs a legacy post-rewrite hook without git's standard input,
/// so git-clada's post-rewrite part goes into the framework's own hook (found there by a
/// second `git clada hooks install` after `pre-commit install -t post-rewrite` moved it
/// aside); both the framework's post-rewrite hooks and git-clada's attribution run, and
/// uninstall leaves the framework's hook as the framework wrote it.
#[test]
#[cfg_attr(
    not(has_pre_commit),
    ignore = "needs the pre-commit framework (bash scripts/test installs it)"
)]
fn the_post_rewrite_hook_works_beside_the_frameworks_post_rewrite_stage() {
    let Some(tools) = tools_or_skip() else {
        return;
    };
    let config = "repos:
  - repo: local
    hooks:
      - id: note-rewrite
        name: note the rewrite
        entry: sh -c 'echo \"$PRE_COMMIT_REWRITE_COMMAND\" >> .git/framework.log'
        language: system
        stages: [post-rewrite]
        always_run: true
        pass_filenames: false
";
    let mut r = TestRepo::with_files(&[("app.py", "one\n"), (".pre-commit-config.yaml", config)]);
    let cache = r.home.path().join("pre-commit-home");
    r.env
        .push(("PRE_COMMIT_HOME".into(), cache.display().to_string()));
    r.env.push((
        "PATH".into(),
        common::path_with_clada(&[tools.to_path_buf()]),
    ));
    let ok = |out: std::process::Output| assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
    ok(r.clada(&["hooks", "install"]));
    ok(run(&r, &tools, &["install", "-t", "post-rewrite"]));
    let hooks = r.path().join(".git/hooks");
    let framework = fs::read_to_string(hooks.join("post-rewrite")).expect("framework hook");
    assert!(hooks.join("post-rewrite.legacy").exists(), "moved aside");
    ok(r.clada(&["hooks", "install"]));
    assert!(
        !hooks.join("post-rewrite.legacy").exists(),
        "{:?}",
        fs::read_dir(&hooks).map(|d| d.count())
    );

    ok(r.apply(
        &write_block("pr1", "b.txt", "ai-1\nai-2\n"),
        &["--agent", "claude"],
    ));
    r.write("b.txt", "human\nai-2\n");
    r.git(&["commit", "-qa", "--amend", "--no-edit"]);
    assert_eq!(
        r.read(".git/framework.log"),
        "amend\n",
        "the framework's hook ran"
    );
    let out = r.clada(&["--format", "json", "blame", "b.txt"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let origins: Vec<&str> = v["lines"]
        .as_array()
        .expect("lines")
        .iter()
        .map(|l| l["origin"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(origins[1], "ai", "{v}");
    assert_ne!(origins[0], "ai", "{v}");

    ok(r.clada(&["hooks", "uninstall"]));
    assert_eq!(
        fs::read_to_string(hooks.join("post-rewrite")).expect("framework hook"),
        framework
    );
}
