//! Unit tests of `config`.

use super::*;

fn parse(text: &str) -> Result<Layer, ConfigError> {
    parse_layer(Path::new(".clada.yml"), text)
}

#[test]
fn durations_and_sizes() {
    assert_eq!(parse_duration("30"), Some(Duration::from_secs(30)));
    assert_eq!(parse_duration("500ms"), Some(Duration::from_millis(500)));
    assert_eq!(parse_duration("2m"), Some(Duration::from_secs(120)));
    assert_eq!(parse_duration("0"), None);
    assert_eq!(parse_duration("3 parsecs"), None);
    assert_eq!(parse_size("10MiB"), Some(10 * 1024 * 1024));
    assert_eq!(parse_size("512k"), Some(512 * 1024));
    assert_eq!(parse_size("12"), Some(12));
    assert_eq!(parse_size("ten"), None);
}

#[test]
fn errors_are_line_precise() {
    let e = parse("exec: ask\nfiles:\n  final_newlin: false\n").unwrap_err();
    assert_eq!((e.line, e.column), (Some(3), Some(3)), "{e}");
    assert!(e.message.contains("unknown field `final_newlin`"), "{e}");
    assert!(e.to_string().starts_with(".clada.yml:3:3: "), "{e}");
    let e = parse("timeout: soon\n").unwrap_err();
    assert_eq!(e.line, Some(1), "{e}");
    assert!(e.message.contains("duration"), "{e}");
    let e = parse("exec: maybe\n").unwrap_err();
    assert!(e.message.contains("ask"), "{e}");
    let e = parse("hooks:\n  after:\n    - run: cargo fmt\n      contine: true\n").unwrap_err();
    assert_eq!(e.line, Some(4), "{e}");
    let e = parse("exec: [ask\n").unwrap_err();
    assert!(e.line.is_some(), "{e}");
    let e = parse("files:\n  final_newline: 3\n").unwrap_err();
    assert_eq!(e.line, Some(2), "{e}");
}

#[test]
fn hook_commands_both_forms() {
    let l = parse(
        "hooks:\n  after:\n    - cargo fmt\n    - run: cargo test\n      continue_on_error: true\n      timeout: 2m\n",
    )
    .unwrap();
    let after = l.hooks.after.unwrap();
    assert_eq!(after[0].run, "cargo fmt");
    assert!(!after[0].continue_on_error);
    assert_eq!(after[1].run, "cargo test");
    assert!(after[1].continue_on_error);
    assert_eq!(after[1].timeout, Some(Duration::from_secs(120)));
}

#[test]
fn merge_rules() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo.yml");
    let user = dir.path().join("user.yml");
    std::fs::write(
        &repo,
        "exec: ask\ntimeout: 5\ncolor: never\ncommit:\n  coauthor: Team <t@x>\n",
    )
    .unwrap();
    std::fs::write(
        &user,
        "exec: allow\ntimeout: 60\ncolor: always\nclipboard:\n  copy: true\n",
    )
    .unwrap();
    let none = |_: &str| None;
    let c = Config::load_from(Some(&repo), Some(&user), &none, None).unwrap();
    // project key: the repository wins
    assert_eq!(c.timeout.value, Duration::from_secs(5));
    assert_eq!(c.timeout.source, Source::File(repo.clone()));
    // personal keys: the user wins
    assert_eq!(c.color.value, ColorSetting::Always);
    assert!(c.clipboard_copy.value);
    assert_eq!(c.commit_coauthor.value.as_deref(), Some("Team <t@x>"));
    // exec: the stricter
    assert_eq!(c.exec.value, Some(ExecSetting::Ask));
    assert_eq!(c.exec.source, Source::File(repo.clone()));
    // git config wins for coauthor
    let git = |k: &str| (k == "clada.coauthor").then(|| "Me <me@x>".to_string());
    let c = Config::load_from(Some(&repo), Some(&user), &git, None).unwrap();
    assert_eq!(c.commit_coauthor.value.as_deref(), Some("Me <me@x>"));
    assert_eq!(
        c.commit_coauthor.source,
        Source::GitConfig("clada.coauthor".into())
    );
    // defaults
    let c = Config::load_from(None, None, &none, None).unwrap();
    assert!(c.files_final_newline.value);
    assert_eq!(c.max_output.value, 10 * 1024 * 1024);
    assert_eq!(c.entries().len(), 30);
}

#[test]
fn agent_subject_is_yours_only() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo.yml");
    let user = dir.path().join("user.yml");
    let none = |_: &str| None;
    std::fs::write(&repo, "agent:\n  subject: prompt\n").unwrap();
    let c = Config::load_from(Some(&repo), None, &none, None).unwrap();
    assert_eq!(c.agent_subject.value, AgentSubject::Files);
    assert_eq!(c.yours_only, ["agent.subject"]);
    std::fs::write(&user, "agent:\n  subject: prompt\n").unwrap();
    let c = Config::load_from(None, Some(&user), &none, None).unwrap();
    assert_eq!(c.agent_subject.value, AgentSubject::Prompt);
}

#[test]
fn a_repository_file_only_tightens_until_trusted() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo.yml");
    let user = dir.path().join("user.yml");
    let none = |_: &str| None;
    let loose = "exec: allow\ntimeout: 10m\nmax_output: 20MiB\nsandbox:\n  level: off\n  network: true\n  read: [/opt/x]\n  landlock: false\npaths:\n  deny: []\n  protect_config: false\nhooks:\n  after: [make]\n";
    std::fs::write(&repo, loose).unwrap();
    std::fs::write(&user, "paths:\n  deny: [.env]\n").unwrap();
    let c = Config::load_from(Some(&repo), Some(&user), &none, None).unwrap();
    assert_eq!(c.exec.value, None);
    assert_eq!(c.timeout.value, Duration::from_secs(30));
    assert_eq!(c.max_output.value, 10 * 1024 * 1024);
    assert_eq!(c.sandbox_level.value, SandboxLevel::Workspace);
    assert!(!c.sandbox_network.value && c.sandbox_landlock.value);
    assert!(c.sandbox_read.value.is_empty() && c.hooks_after.value.is_empty());
    assert!(c.paths_protect_config.value);
    assert_eq!(c.paths_deny.value, [".env"]);
    assert_eq!(c.untrusted.len(), 9, "{:?}", c.untrusted);
    assert!(c
        .untrusted_warning()
        .unwrap()
        .contains("so those settings were ignored"));
    // Trusted (the copy is byte-identical): it applies, the deny list is still united.
    let c = Config::load_from(Some(&repo), Some(&user), &none, Some(loose.as_bytes())).unwrap();
    assert_eq!(c.exec.value, Some(ExecSetting::Allow));
    assert_eq!(c.timeout.value, Duration::from_secs(600));
    assert_eq!(c.sandbox_level.value, SandboxLevel::Off);
    assert!(c.sandbox_network.value && !c.sandbox_landlock.value);
    assert_eq!(c.sandbox_read.value, [PathBuf::from("/opt/x")]);
    assert_eq!(c.hooks_after.value.len(), 1);
    assert_eq!(c.paths_deny.value, [".env"]);
    assert!(c.untrusted.is_empty());
    // What tightens applies untrusted.
    std::fs::write(
        &repo,
        "exec: deny\ntimeout: 5\nsandbox:\n  level: read-only\npaths:\n  deny: [secrets]\n",
    )
    .unwrap();
    let c = Config::load_from(Some(&repo), Some(&user), &none, None).unwrap();
    assert_eq!(c.exec.value, Some(ExecSetting::Deny));
    assert_eq!(c.timeout.value, Duration::from_secs(5));
    assert_eq!(c.sandbox_level.value, SandboxLevel::ReadOnly);
    assert_eq!(c.paths_deny.value, [".env", "secrets"]);
    assert_eq!(
        c.paths_deny.source,
        Source::Files(vec![user.clone(), repo.clone()])
    );
    assert!(c.untrusted.is_empty());
    // A user's own exec choice is never loosened, trusted or not.
    std::fs::write(&user, "exec: ask\n").unwrap();
    std::fs::write(&repo, "exec: allow\n").unwrap();
    let c = Config::load_from(Some(&repo), Some(&user), &none, Some(b"exec: allow\n")).unwrap();
    assert_eq!(c.exec.value, Some(ExecSetting::Ask));
}

#[test]
fn hook_keys_are_the_users_alone_even_from_a_trusted_file() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo.yml");
    let user = dir.path().join("user.yml");
    let none = |_: &str| None;
    let loose = "hooks:\n  sandbox: off\n  network: true\npaths:\n  protect_hooks: false\nsandbox:\n  level: off\n  read: [/opt/x]\n  write: [/opt/y]\n";
    std::fs::write(&repo, loose).unwrap();
    let c = Config::load_from(Some(&repo), None, &none, Some(loose.as_bytes())).unwrap();
    assert_eq!(c.hooks_sandbox.value, HookSandbox::Workspace);
    assert!(!c.hooks_network.value && c.paths_protect_hooks.value);
    // The trusted file widens exec blocks, never hooks.
    assert_eq!(c.sandbox_read.value, [PathBuf::from("/opt/x")]);
    assert!(c.hooks_read.is_empty() && c.hooks_write.is_empty());
    assert_eq!(
        c.yours_only,
        ["hooks.sandbox", "hooks.network", "paths.protect_hooks"]
    );
    let w = c.untrusted_warning().unwrap();
    assert!(w.contains("only your own configuration file sets"), "{w}");
    std::fs::write(
        &user,
        "hooks:\n  sandbox: off\n  network: true\npaths:\n  protect_hooks: false\nsandbox:\n  read: [/opt/u]\n",
    )
    .unwrap();
    let c = Config::load_from(None, Some(&user), &none, None).unwrap();
    assert_eq!(c.hooks_sandbox.value, HookSandbox::Off);
    assert!(c.hooks_network.value && !c.paths_protect_hooks.value);
    assert_eq!(c.hooks_read, [PathBuf::from("/opt/u")]);
    assert!(c.yours_only.is_empty());
}
