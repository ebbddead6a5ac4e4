//! Issue 37: exec containment. Every scenario runs in each mode of `common::modes`: as root
//! and as an unprivileged user, each with namespaces and under a seccomp filter that refuses
//! them (the init then falls back to a per-block subreaper and the sandbox to its per-entry
//! grants) — the four set-ups of §3.

use crate::common;

use std::fs;
use std::process::Output;
use std::time::Duration;

use common::modes::{self, Mode};
use common::{block, exit_code, output_text, spawn_fed, write_block, TestRepo};

fn exec(id: &str, code: &str) -> String {
    block(id, &[("action", "exec"), ("lang", "bash"), ("code", code)])
}

fn warnings(out: &Output, i: usize) -> Vec<String> {
    TestRepo::report(out)["results"][i]["warnings"]
        .as_array()
        .map(|w| {
            w.iter()
                .map(|x| x.as_str().unwrap_or("").to_string())
                .collect()
        })
        .unwrap_or_default()
}

fn setsid_survivor_as(s: &Mode) {
    let r = s.repo(&[("a.txt", "a\n")]);
    let code = "setsid sh -c 'sleep 2; echo late >> a.txt' >/dev/null 2>&1 &\n\
                (setsid sh -c 'sleep 2; echo later >> a.txt' &) \n\
                sleep 0.5; echo started";
    let out = s.apply(&r, &exec("p01", code), &["--exec", "allow"]);
    assert_eq!(exit_code(&out), 0, "{} {}", s.name(), output_text(&out));
    let w = warnings(&out, 0).join("\n");
    assert!(
        w.contains("left processes running") && w.contains("sleep"),
        "{}: {w}",
        s.name()
    );
    std::thread::sleep(Duration::from_secs(5));
    assert_eq!(r.read("a.txt"), "a\n", "{}", s.name());
    assert_eq!(r.git(&["status", "--porcelain"]), "", "{}", s.name());
}

#[test]
fn a_setsid_process_dies_with_its_block_and_the_report_names_it() {
    modes::each(setsid_survivor_as);
}

fn timeout_as(s: &Mode) {
    let r = s.repo(&[("a.txt", "a\n")]);
    let code = "setsid sh -c 'sleep 3; echo late >> a.txt' >/dev/null 2>&1 &\nsleep 30";
    let reply = block(
        "t01",
        &[
            ("action", "exec"),
            ("lang", "bash"),
            ("code", code),
            ("timeout", "1"),
        ],
    );
    let out = s.apply(&r, &reply, &["--exec", "allow"]);
    let v = TestRepo::report(&out);
    assert!(
        v["results"][0]["error"]
            .as_str()
            .unwrap_or_default()
            .contains("TIMEOUT"),
        "{}: {v}",
        s.name()
    );
    std::thread::sleep(Duration::from_secs(4));
    assert_eq!(r.read("a.txt"), "a\n", "{}", s.name());
}

#[test]
fn a_timeout_kills_the_setsid_processes_too() {
    modes::each(timeout_as);
}

fn exit_status_as(s: &Mode) {
    let r = s.repo(&[("a.txt", "a\n")]);
    let out = s.apply(
        &r,
        &format!(
            "{}{}",
            exec("e01", "echo out; echo err >&2; exit 3"),
            exec("e02", "kill -TERM $$")
        ),
        &["--exec", "allow"],
    );
    let v = TestRepo::report(&out);
    let first = &v["results"][0];
    assert_eq!(first["data"]["exit_code"], 3, "{}: {v}", s.name());
    assert_eq!(first["data"]["stdout"], "out\n", "{}: {v}", s.name());
    assert_eq!(first["data"]["stderr"], "err\n", "{}: {v}", s.name());
    let second = v["results"][1].to_string();
    assert!(second.contains("SIGTERM"), "{}: {second}", s.name());
}

#[test]
fn exit_codes_output_and_signals_come_through_the_init() {
    modes::each(exit_status_as);
}

/// The sentence of issue 51 §10: what the sandbox goes without where no user namespace can
/// be made.
const NO_NAMESPACES: &str = "no user namespaces can be made here";

fn fallback_said_as(s: &Mode) {
    let r = s.repo(&[("a.txt", "a\n")]);
    r.write(".git/hooks/pre-commit", "#!/bin/sh\nexit 0\n");
    r.set_executable(".git/hooks/pre-commit");
    s.own_repo(&r);
    // `git clada config`, both formats.
    let human = s.clada_cmd(&r).arg("config").output().expect("config");
    let text = output_text(&human);
    assert_eq!(
        text.contains("WITHOUT user namespaces") && text.contains(NO_NAMESPACES),
        !s.namespaces,
        "{}: {text}",
        s.name()
    );
    let json = s
        .clada_cmd(&r)
        .args(["--format", "json", "config"])
        .output()
        .expect("config");
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).expect("json");
    assert_eq!(
        v["withoutNamespaces"].is_string(),
        !s.namespaces,
        "{}: {v}",
        s.name()
    );
    // A report whose block ran there, one whose hook alone ran there, and one where nothing
    // ran: said once on the first two, never on the third.
    for (reply, extra, ran) in [
        (exec("n01", "echo hi"), vec!["--exec", "allow"], true),
        (write_block("n02", "a.txt", "b"), vec![], true),
        (write_block("n03", "a.txt", "c"), vec!["--no-verify"], false),
    ] {
        let out = s.apply(&r, &reply, &extra);
        assert_eq!(exit_code(&out), 0, "{} {}", s.name(), output_text(&out));
        let w = TestRepo::report(&out)["warnings"].to_string();
        assert_eq!(
            w.matches(NO_NAMESPACES).count(),
            usize::from(!s.namespaces && ran),
            "{} {reply}: {w}",
            s.name()
        );
    }
    // Without git, the engine's own report says it too.
    let mut cmd = s.clada_cmd(&r);
    cmd.args([
        "--format", "json", "apply", "--no-git", "--exec", "allow", "-",
    ]);
    let out = spawn_fed(cmd, &exec("n05", "echo hi"))
        .wait_with_output()
        .expect("apply");
    let w = TestRepo::report(&out)["warnings"].to_string();
    assert_eq!(
        w.contains(NO_NAMESPACES),
        !s.namespaces,
        "{} --no-git: {w}",
        s.name()
    );
    // `git clada hooks check` runs the hooks there too.
    let out = s
        .clada_cmd(&r)
        .args(["hooks", "check"])
        .output()
        .expect("hooks check");
    let text = output_text(&out);
    assert_eq!(
        text.contains(NO_NAMESPACES),
        !s.namespaces,
        "{}: {text}",
        s.name()
    );
    // The llm report, pasted back to the model, says it too.
    let mut cmd = s.clada_cmd(&r);
    cmd.args(["--format", "llm", "apply", "--exec", "allow", "-"]);
    let out = spawn_fed(cmd, &exec("n04", "echo hi"))
        .wait_with_output()
        .expect("apply");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        text.contains(NO_NAMESPACES),
        !s.namespaces,
        "{}: {text}",
        s.name()
    );
}

#[test]
fn without_namespaces_config_and_every_report_that_ran_code_say_what_is_missing() {
    modes::each(fallback_said_as);
}

/// git-clada run with a token, a cloud key, an agent socket and an ordinary setting.
fn env_apply(r: &TestRepo, reply: &str) -> Output {
    let mut cmd = r.clada_cmd();
    cmd.envs([
        ("GITHUB_TOKEN", "ghp-SECRET"),
        ("AWS_SECRET_ACCESS_KEY", "AWS-SECRET"),
        ("SSH_AUTH_SOCK", "/tmp/agent.sock"),
        ("NPM_TOKEN", "NPM-SECRET"),
        ("MY_SETTING", "plain"),
    ])
    .args(["--format", "json", "apply", "--exec", "allow", "-"]);
    spawn_fed(cmd, reply).wait_with_output().expect("apply")
}

const PRINT: &str =
    "for v in GITHUB_TOKEN AWS_SECRET_ACCESS_KEY SSH_AUTH_SOCK NPM_TOKEN MY_SETTING; \
                     do printenv $v || echo no-$v; done";

#[test]
fn exec_and_hooks_get_no_tokens_unless_the_users_sandbox_env_passes_them() {
    let r = TestRepo::with_files(&[("a.txt", "a\n")]);
    r.user_config(&format!("hooks:\n  after:\n    - \"({PRINT}) > b.txt\"\n"));
    let out = env_apply(
        &r,
        &format!("{}{}", exec("v01", PRINT), write_block("w01", "b.txt", "b")),
    );
    assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
    let v = TestRepo::report(&out);
    let expected =
        "no-GITHUB_TOKEN\nno-AWS_SECRET_ACCESS_KEY\nno-SSH_AUTH_SOCK\nno-NPM_TOKEN\nplain\n";
    assert_eq!(v["results"][0]["data"]["stdout"], expected, "{v}");
    assert!(r.exists("b.txt"), "{v}");
    assert_eq!(r.read("b.txt"), expected);
    // The user's own `sandbox.env` passes one name and takes another away.
    r.user_config(&format!(
        "sandbox:\n  env: [NPM_TOKEN, \"!MY_*\"]\nhooks:\n  after:\n    - \"({PRINT}) > b.txt\"\n"
    ));
    let out = env_apply(
        &r,
        &format!(
            "{}{}",
            exec("v02", &format!("{PRINT}; echo again")),
            write_block("w02", "b.txt", "c")
        ),
    );
    let v = TestRepo::report(&out);
    let expected =
        "no-GITHUB_TOKEN\nno-AWS_SECRET_ACCESS_KEY\nno-SSH_AUTH_SOCK\nNPM-SECRET\nno-MY_SETTING\n";
    assert_eq!(
        v["results"][0]["data"]["stdout"],
        format!("{expected}again\n"),
        "{v}"
    );
    assert_eq!(r.read("b.txt"), expected);
}

/// Issue 51 §11: the credential variables that passed the filter before, and the ordinary
/// ones builds need.
const CREDENTIALS: &[(&str, &str)] = &[
    ("MYSQL_PWD", "V-MYSQL"),
    ("DB_PASS", "V-DBPASS"),
    ("SMTP_PASS", "V-SMTP"),
    ("PGPASS", "V-PGPASS"),
    ("REDIS_URL", "redis://:V-REDIS@cache:6379/0"),
    ("MONGODB_URI", "mongodb://app:V-MONGO@db.example/x"),
    ("AMQP_URL", "amqp://guest:V-AMQP@mq:5672/"),
    ("SENTRY_DSN", "https://V-SENTRY@o1.ingest.sentry.io/2"),
    ("CI_JOB_JWT", "V-JWT"),
];
const ORDINARY: &[(&str, &str)] = &[
    ("JAVA_HOME", "/opt/jdk"),
    ("GOPATH", "/go"),
    ("VIRTUAL_ENV", "/venv"),
    ("PLAIN_URL", "https://example.com/x"),
];

#[test]
fn credential_variables_are_withheld_named_in_the_report_and_passed_by_the_users_sandbox_env() {
    let r = TestRepo::with_files(&[("a.txt", "a\n")]);
    let print: String = CREDENTIALS
        .iter()
        .chain(ORDINARY)
        .map(|(k, _)| format!("printenv {k} || echo no-{k}; "))
        .collect();
    let run = |reply: &str| {
        let mut cmd = r.clada_cmd();
        cmd.envs(CREDENTIALS.iter().chain(ORDINARY).copied())
            .args(["--format", "json", "apply", "--exec", "allow", "-"]);
        spawn_fed(cmd, reply).wait_with_output().expect("apply")
    };
    r.user_config(&format!("hooks:\n  after:\n    - \"({print}) > b.txt\"\n"));
    let out = run(&format!(
        "{}{}",
        exec("c01", &print),
        write_block("c02", "b.txt", "x")
    ));
    assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
    let v = TestRepo::report(&out);
    let seen = v["results"][0]["data"]["stdout"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    for text in [seen.as_str(), &r.read("b.txt")] {
        for (k, val) in CREDENTIALS {
            assert!(
                text.contains(&format!("no-{k}\n")) && !text.contains(val),
                "{k}: {text}"
            );
        }
        for (k, val) in ORDINARY {
            assert!(text.contains(&format!("{val}\n")), "{k}: {text}");
        }
    }
    // The report names what was kept out, once, and never a value.
    let warnings = v["warnings"].to_string();
    let named = warnings
        .split("which look like secrets: ")
        .nth(1)
        .unwrap_or_default()
        .to_string();
    for (k, val) in CREDENTIALS {
        assert!(
            named.contains(k) && !warnings.contains(val),
            "{k}: {warnings}"
        );
    }
    for (k, _) in ORDINARY {
        assert!(!named.contains(&format!("{k},")), "{k}: {warnings}");
    }
    // The commit's stored report (`git clada show`) says it as the printed one does, once.
    let note = r.git(&["notes", "--ref=clada", "show", "HEAD"]);
    assert_eq!(note.matches("which look like secrets").count(), 1, "{note}");
    assert_eq!(
        warnings.matches("which look like secrets").count(),
        1,
        "{warnings}"
    );
    // The user's own sandbox.env passes them.
    r.user_config("sandbox:\n  env: [DB_PASS, REDIS_URL]\n");
    let out = run(&exec("c03", "printenv DB_PASS REDIS_URL"));
    let v = TestRepo::report(&out);
    assert_eq!(
        v["results"][0]["data"]["stdout"], "V-DBPASS\nredis://:V-REDIS@cache:6379/0\n",
        "{v}"
    );
}

#[test]
fn a_repositorys_file_cannot_pass_a_token() {
    let r = TestRepo::with_files(&[("a.txt", "a\n")]);
    r.write(".clada.yml", "sandbox:\n  env: [GITHUB_TOKEN]\n");
    r.git(&["add", "."]);
    r.git(&["commit", "-qm", "config"]);
    let out = env_apply(&r, &exec("v03", PRINT));
    let v = TestRepo::report(&out);
    assert!(
        v["results"][0]["data"]["stdout"]
            .as_str()
            .unwrap_or_default()
            .starts_with("no-GITHUB_TOKEN\n"),
        "{v}"
    );
    let cfg = r.clada(&["config"]);
    assert!(
        output_text(&cfg).contains("sandbox.env"),
        "{}",
        output_text(&cfg)
    );
}

/// The attempts on a git directory at `gd` (relative) and through root symlinks.
fn git_attacks(gd: &str, outside: &std::path::Path) -> String {
    format!(
        "echo x > {gd}/hooks/pre-commit 2>/dev/null && echo PLANTED-HOOK\n\
         echo x > {gd}/pwn 2>/dev/null && echo WROTE-GIT\n\
         echo x > self/{gd}/hooks/post-checkout 2>/dev/null && echo PLANTED-THROUGH-SELF\n\
         echo x > docs/pwn 2>/dev/null && echo WROTE-OUTSIDE\n\
         echo inside > a.txt && echo WROTE-INSIDE\n\
         true\n"
    )
    .replace("docs/pwn", &format!("docs/pwn # {}", outside.display()))
}

/// Sets up the repository `r` (git directory `gd`) with root symlinks `self -> .` and
/// `docs -> <outside>`, runs the attacks, and checks nothing got out.
fn attack_git_dir(s: &Mode, r: &TestRepo, gd: &str, env: &[(&str, String)]) {
    let outside = tempfile::tempdir().expect("outside");
    std::os::unix::fs::symlink(".", r.path().join("self")).expect("self link");
    std::os::unix::fs::symlink(outside.path(), r.path().join("docs")).expect("docs link");
    s.own_repo(r);
    s.own(&[outside.path()]);
    let mut cmd = s.clada_cmd(r);
    cmd.envs(env.iter().map(|(k, v)| (k, v)))
        .args(["--format", "json", "apply", "--exec", "allow", "-"]);
    let out = spawn_fed(cmd, &exec("g01", &git_attacks(gd, outside.path())))
        .wait_with_output()
        .expect("apply");
    let v = TestRepo::report(&out);
    let stdout = v["results"][0]["data"]["stdout"]
        .as_str()
        .unwrap_or_default();
    assert_eq!(stdout, "WROTE-INSIDE\n", "{} ({gd}): {v}", s.name());
    assert!(!r.exists(&format!("{gd}/hooks/pre-commit")), "{}", s.name());
    assert!(
        !r.exists(&format!("{gd}/hooks/post-checkout")),
        "{}",
        s.name()
    );
    assert!(!r.exists(&format!("{gd}/pwn")), "{}", s.name());
    assert!(!outside.path().join("pwn").exists(), "{}", s.name());
}

#[test]
fn root_symlinks_grant_nothing_and_a_plain_git_dir_stays_read_only() {
    modes::each(|s| {
        let r = s.repo(&[("a.txt", "a\n")]);
        attack_git_dir(s, &r, ".git", &[]);
    });
}

#[test]
fn a_separate_git_dir_inside_the_tree_stays_read_only() {
    modes::each(|s| {
        let r = s.repo(&[("a.txt", "a\n")]);
        r.git(&["init", "-q", "--separate-git-dir=.gitdata"]);
        assert!(r.path().join(".git").is_file());
        // As such users do: the git directory is not untracked content.
        fs::write(r.path().join(".gitdata/info/exclude"), "/.gitdata/\n").expect("exclude");
        attack_git_dir(s, &r, ".gitdata", &[]);
    });
}

#[test]
fn the_dotfiles_git_dir_pattern_stays_read_only() {
    modes::each(|s| {
        let r = s.repo(&[("a.txt", "a\n")]);
        fs::rename(r.path().join(".git"), r.path().join(".dotfiles")).expect("rename");
        fs::write(r.path().join(".dotfiles/info/exclude"), "/.dotfiles/\n").expect("exclude");
        let env = [
            ("GIT_DIR", r.path().join(".dotfiles").display().to_string()),
            ("GIT_WORK_TREE", r.path().display().to_string()),
        ];
        attack_git_dir(s, &r, ".dotfiles", &env);
    });
}

fn set_id_as(s: &Mode) {
    use std::os::unix::fs::PermissionsExt;
    let r = s.repo(&[("bin/README", "tools\n")]);
    let code =
        "cd bin && cp /bin/sh tool && chmod 4755 tool 2>/dev/null; chmod g+s tool 2>/dev/null; \
                install -m 4755 /bin/sh tool2 2>/dev/null; \
                ls -l tool >/dev/null && echo COPIED";
    let out = s.apply(&r, &exec("s01", code), &["--exec", "allow"]);
    assert_eq!(exit_code(&out), 0, "{} {}", s.name(), output_text(&out));
    let mode = |f: &str| {
        fs::metadata(r.path().join(f))
            .map(|m| m.permissions().mode() & 0o7777)
            .unwrap_or(0)
    };
    assert_eq!(mode("bin/tool") & 0o6000, 0, "{}", s.name());
    assert_eq!(mode("bin/tool2") & 0o6000, 0, "{}", s.name());
    let tree = r.git(&["ls-tree", "HEAD", "bin/tool"]);
    assert!(tree.starts_with("100755"), "{}: {tree}", s.name());
    // The filter refused the bits: nothing was there to clear afterwards.
    let w = warnings(&out, 0).join("\n");
    assert!(!w.contains("setuid"), "{}: {w}", s.name());
}

#[test]
fn the_sandbox_refuses_setuid_and_setgid_bits() {
    modes::each(set_id_as);
}

#[test]
fn setuid_bits_left_without_the_sandbox_are_cleared_and_named() {
    use std::os::unix::fs::PermissionsExt;
    let r = TestRepo::with_files(&[("a.txt", "a\n")]);
    r.user_config("sandbox:\n  level: off\n");
    let out = r.apply(
        &exec("s02", "cp /bin/sh tool && chmod 4755 tool && echo SET"),
        &["--exec", "allow"],
    );
    let v = TestRepo::report(&out);
    assert_eq!(v["results"][0]["data"]["stdout"], "SET\n", "{v}");
    let w = warnings(&out, 0).join("\n");
    assert!(w.contains("setuid") && w.contains("tool"), "{w}");
    let mode = fs::metadata(r.path().join("tool"))
        .expect("tool")
        .permissions()
        .mode();
    assert_eq!(mode & 0o7777, 0o755);
    assert!(r.git(&["ls-tree", "HEAD", "tool"]).starts_with("100755"));
}

/// A hook run unconfined by the user's `hooks.sandbox: off` that leaves a setuid file: cleared
/// after the hook and named in the apply's warnings, as after a block.
#[test]
fn setuid_bits_a_hook_left_without_the_sandbox_are_cleared_and_named() {
    use std::os::unix::fs::PermissionsExt;
    let r = TestRepo::with_files(&[("a.txt", "a\n")]);
    r.user_config(
        "hooks:\n  sandbox: off\n  after:\n    - \"cp /bin/sh tool && chmod 4755 tool\"\n",
    );
    let out = r.apply(&write_block("s03", "tool", "replaced\n"), &[]);
    assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
    let w = TestRepo::report(&out)["warnings"].to_string();
    assert!(
        w.contains("the hook `cp /bin/sh tool && chmod 4755 tool` left setuid or setgid files")
            && w.contains("tool"),
        "{w}"
    );
    let mode = fs::metadata(r.path().join("tool"))
        .expect("tool")
        .permissions()
        .mode();
    assert_eq!(mode & 0o6000, 0, "{mode:o}");
}

/// The read actions (and so the MCP `grep`, `ls`, `glob` tools, which run them): a denied path
/// named is refused (⏸ `path_denied`), one met while recursing is skipped silently.
#[test]
fn grep_ls_and_glob_never_show_a_denied_path() {
    let r = TestRepo::with_files(&[
        ("README.md", "TOKEN is documented here\n"),
        ("secrets/key.txt", "TOKEN=ghp-SECRET\n"),
        (".env", "API_TOKEN=ENV-SECRET\n"),
    ]);
    r.user_config("paths:\n  deny: [\"secrets\", \".env\"]\n");
    let reply = [
        block(
            "d01",
            &[("action", "grep"), ("pattern", "TOKEN"), ("path", ".")],
        ),
        block("d02", &[("action", "ls"), ("path", ".")]),
        block(
            "d03",
            &[("action", "glob"), ("pattern", "**/*"), ("base_path", ".")],
        ),
        block(
            "d04",
            &[
                ("action", "grep"),
                ("pattern", "TOKEN"),
                ("path", "secrets"),
            ],
        ),
    ]
    .concat();
    let out = r.apply(&reply, &[]);
    let v = TestRepo::report(&out);
    let results = v["results"].to_string();
    assert!(!results.contains("SECRET"), "{results}");
    for i in 0..3 {
        let data = v["results"][i]["data"].to_string();
        assert!(
            !data.contains("secrets") && !data.contains(".env"),
            "{i}: {data}"
        );
    }
    assert!(
        v["results"][0]["data"].to_string().contains("README.md"),
        "{v}"
    );
    assert_eq!(v["results"][3]["code"], "path_denied", "{v}");
}

/// A repository with secrets where read-only commands look: an untracked `.env` and a tracked
/// `secrets/key.txt` (both in `paths.deny`), a token in the remote URL and an
/// `http.extraHeader` of `.git/config`, and an untracked nested repository with a token in
/// its own `.git/config`. Every secret holds `-SECRET-`; `README.md` holds a plain `SECRET`.
fn secret_repo(s: &Mode) -> TestRepo {
    let r = s.repo(&[
        ("README.md", "SECRET is a word\n"),
        ("secrets/key.txt", "KEY-SECRET-1\n"),
    ]);
    r.write(".env", "API_TOKEN=ENV-SECRET-2\n");
    r.git(&[
        "remote",
        "add",
        "origin",
        "https://user:URL-SECRET-3@example.com/x.git",
    ]);
    r.git(&[
        "config",
        "http.extraHeader",
        "Authorization: Bearer HEADER-SECRET-4",
    ]);
    r.git(&["init", "-q", "vendor/lib"]);
    let nested = r.path().join("vendor/lib/.git/config");
    let mut text = fs::read_to_string(&nested).expect("nested config");
    text.push_str("[remote \"origin\"]\n\turl = https://u:NESTED-SECRET-5@example.com/y\n");
    fs::write(&nested, text).expect("nested config");
    r.user_config("paths:\n  deny: [\".env\", \"secrets\"]\n");
    s.own_repo(&r);
    r
}

/// Runs `cmds` as exec blocks with the default policy (ask, no terminal): only what the
/// read-only list runs without asking runs. Returns each block's result.
fn read_only_results(s: &Mode, r: &TestRepo, cmds: &[&str]) -> Vec<serde_json::Value> {
    let reply: String = cmds
        .iter()
        .enumerate()
        .map(|(i, c)| exec(&format!("r{i:02}"), c))
        .collect();
    let out = s.apply(r, &reply, &[]);
    let v = TestRepo::report(&out);
    (0..cmds.len()).map(|i| v["results"][i].clone()).collect()
}

fn stdout_of(v: &serde_json::Value) -> String {
    v["data"]["stdout"].as_str().unwrap_or_default().to_string()
}

fn read_only_view_as(s: &Mode) {
    let r = secret_repo(s);
    let cmds = [
        "cat .env",
        "cat secrets/key.txt",
        "grep -r SECRET .",
        "find . -name config",
        "grep -r -l url .",
        "ls -a secrets vendor/lib",
    ];
    let res = read_only_results(s, &r, &cmds);
    for (c, v) in cmds.iter().zip(&res) {
        let text = v.to_string();
        assert!(!text.contains("-SECRET-"), "{} `{c}`: {text}", s.name());
    }
    if !s.namespaces {
        // No view can be made: nothing but git runs without asking.
        for (c, v) in cmds.iter().zip(&res) {
            let e = v["error"].as_str().unwrap_or_default();
            assert!(
                e.contains("not approved") && e.contains("no mount namespace"),
                "{} `{c}`: {v}",
                s.name()
            );
        }
    } else {
        for (c, v) in cmds.iter().zip(&res) {
            assert!(v["data"].is_object(), "{} `{c}` did not run: {v}", s.name());
        }
        assert_eq!(stdout_of(&res[0]), "", "{}", s.name());
        let w = res[0]["warnings"].to_string();
        assert!(w.contains(".env matches paths.deny"), "{}: {w}", s.name());
        assert_eq!(stdout_of(&res[1]), "", "{}", s.name());
        assert_eq!(
            stdout_of(&res[2]),
            "./README.md:SECRET is a word\n",
            "{}",
            s.name()
        );
        assert_eq!(stdout_of(&res[3]), "", "{}", s.name());
        assert_eq!(stdout_of(&res[4]), "", "{}", s.name());
    }
    // Hidden in the command's namespace only: the files are all there.
    assert_eq!(r.read(".env"), "API_TOKEN=ENV-SECRET-2\n");
    assert_eq!(r.read("secrets/key.txt"), "KEY-SECRET-1\n");
    assert!(r
        .git(&["config", "remote.origin.url"])
        .contains("URL-SECRET-3"));
    assert_eq!(
        r.git(&["status", "--porcelain"]),
        "?? .env\n?? vendor/\n",
        "{}",
        s.name()
    );
}

#[test]
fn read_only_commands_see_no_denied_path_and_no_git_directory() {
    modes::each(read_only_view_as);
}

fn read_only_git_as(s: &Mode) {
    let r = secret_repo(s);
    r.write("README.md", "SECRET is a word\nsecond line\n");
    r.write("secrets/key.txt", "KEY-SECRET-1\nKEY-SECRET-6\n");
    r.git(&["commit", "-qam", "both"]);
    r.write("README.md", "SECRET is a word\nthird line\n");
    r.write("secrets/key.txt", "KEY-SECRET-7\n");
    s.own_repo(&r);
    let blob = r.git(&["rev-parse", "HEAD:secrets/key.txt"]);
    let cmds = [
        "git diff",
        "git show HEAD",
        "git log -p",
        "git grep SECRET",
        "git grep -n SECRET HEAD^",
        "git diff HEAD^ secrets",
        "git show HEAD:secrets/key.txt",
        &format!("git show {}", blob.trim()),
        &format!("git cat-file -p {}", blob.trim()),
        "git log -p --full-diff README.md",
    ];
    let res = read_only_results(s, &r, &cmds);
    for (c, v) in cmds.iter().zip(&res) {
        let text = v.to_string();
        assert!(!text.contains("-SECRET-"), "{} `{c}`: {text}", s.name());
    }
    // git runs (it is not hidden from) and shows everything else.
    for (i, want) in [
        "+third line",
        "+second line",
        "+second line",
        "README.md:SECRET",
        "HEAD^:README.md:1:SECRET",
    ]
    .iter()
    .enumerate()
    {
        let out = stdout_of(&res[i]);
        assert!(out.contains(want), "{} `{}`: {}", s.name(), cmds[i], res[i]);
        assert!(
            !out.contains("secrets/key.txt"),
            "{} `{}`: {out}",
            s.name(),
            cmds[i]
        );
    }
    assert_eq!(stdout_of(&res[5]), "", "{}: {}", s.name(), res[5]);
    for (i, why) in [(6, "<rev>:<path>"), (7, "object id"), (9, "--full-diff")] {
        let e = res[i]["error"].as_str().unwrap_or_default();
        assert!(
            e.contains("not approved") && e.contains(why),
            "{} `{}`: {}",
            s.name(),
            cmds[i],
            res[i]
        );
    }
    let e = res[8]["error"].as_str().unwrap_or_default();
    assert!(e.contains("not approved"), "{}: {}", s.name(), res[8]);
}

#[test]
fn read_only_git_excludes_denied_files_and_refuses_what_names_their_content() {
    modes::each(read_only_git_as);
}

fn git_cladas_refs_as(s: &Mode) {
    let r = secret_repo(s);
    // The user's uncommitted change of a denied file goes into git-clada's records with the
    // next apply (its snapshot of the user's work), and its report into the notes.
    r.write("secrets/key.txt", "KEY-SECRET-8\n");
    s.own_repo(&r);
    let out = s.apply(
        &r,
        &write_block("w01", "README.md", "SECRET is a word\nmore\n"),
        &[],
    );
    assert_eq!(exit_code(&out), 0, "{} {}", s.name(), output_text(&out));
    let record = r.git(&["rev-parse", "refs/clada/records"]);
    assert!(
        r.git(&["grep", "-l", "KEY-SECRET-8", record.trim()])
            .contains("secrets/key.txt"),
        "{}: the record should hold the denied file",
        s.name()
    );
    let head = r.git(&["rev-parse", "HEAD"]);
    let head = head.trim();
    let tree = r.git(&["rev-parse", "HEAD^{tree}"]);
    let cmds = [
        "git grep KEY-SECRET refs/clada/records".to_string(),
        "git grep KEY-SECRET clada/records".to_string(),
        "git log -p refs/clada/records".to_string(),
        "git diff HEAD refs/clada/records".to_string(),
        format!("git diff HEAD {}", record.trim()),
        format!("git show {}", tree.trim()),
        "git log --notes=clada -1".to_string(),
        "git show :/WIP".to_string(),
        "git log --glob=refs/clada/* -p".to_string(),
        // Read-only as before: the whole history without git-clada's refs, a commit of
        // the branch named by its id, notes from refs/notes/commits only.
        "git log --all -p".to_string(),
        format!("git show {}", &head[..12]),
        "git log -1".to_string(),
    ];
    let refs: Vec<&str> = cmds.iter().map(String::as_str).collect();
    r.git(&["config", "notes.displayRef", "refs/notes/*"]);
    let res = read_only_results(s, &r, &refs);
    for (c, v) in refs.iter().zip(&res) {
        let text = v.to_string();
        assert!(!text.contains("-SECRET-"), "{} `{c}`: {text}", s.name());
    }
    for (c, v) in refs.iter().zip(&res).take(9) {
        let e = v["error"].as_str().unwrap_or_default();
        assert!(e.contains("not approved"), "{} `{c}`: {v}", s.name());
    }
    let all = stdout_of(&res[9]);
    assert!(
        all.contains("+more") && !all.contains("WIP on"),
        "{}: {all}",
        s.name()
    );
    assert!(
        stdout_of(&res[10]).contains("+more"),
        "{}: {}",
        s.name(),
        res[10]
    );
    let last = stdout_of(&res[11]);
    assert!(
        last.contains("AI:") && !last.contains("Notes"),
        "{}: {last}",
        s.name()
    );
}

/// Issue 51 §9: read-only git never reads git-clada's own refs and notes (whose trees the
/// `paths.deny` exclusions do not reach) or an object that is not a commit of the history.
#[test]
fn read_only_git_asks_before_git_cladas_own_refs_and_objects_outside_the_history() {
    modes::each(git_cladas_refs_as);
}

/// An approved command (here `--exec allow`, at `workspace`) sees denied paths: the user let it
/// run, and its output reaches the model.
#[test]
fn approved_commands_still_see_denied_paths() {
    let s = Mode::this_user();
    let r = secret_repo(&s);
    let out = s.apply(
        &r,
        &exec("a01", "cat .env && echo shown"),
        &["--exec", "allow"],
    );
    let v = TestRepo::report(&out);
    assert_eq!(
        v["results"][0]["data"]["stdout"], "API_TOKEN=ENV-SECRET-2\nshown\n",
        "{v}"
    );
}
