//! The protected set (docs/hooks-sandbox.md, "Protected"): what git or a hook manager runs on
//! the user's own next `git commit` or `git status`, so that a reply may not write it and
//! nothing a reply makes run (an exec block, a hook) may write it either.
//!
//! - [`Entry`]: worktree entries protected whole — hook folders and files, the files the git
//!   configuration includes or runs (named by the caller, who reads git), lint-staged's own
//!   configuration files, the files `repo: local` hooks of `.pre-commit-config.yaml` run, and
//!   every nested git directory and gitfile git enters ([`Kind::Git`]);
//! - [`Key`]: keys of `package.json` that hook managers read as commands (`lint-staged`,
//!   `simple-git-hooks`, husky 4's `husky`, `pre-commit`, and the `scripts.*` a hook names,
//!   with their `pre`/`post` scripts), protected by their parsed value so the rest of the file
//!   stays writable;
//! - [`Called`]: worktree files a hook calls by path (named in a hook, or one level down
//!   through the `npm run` script it names): not protected, but a reply that changes one is
//!   said loudly.
//!
//! Git-free: it reads worktree files; what git says (`core.hooksPath`, includes, gitlinks) is
//! handed in.

use std::path::{Path, PathBuf};

/// What kind of protected entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A hook file or folder, or a file a hook manager runs: lifted by the user's own
    /// `paths.protect_hooks: false`.
    Hook,
    /// A nested git directory or gitfile (or where a submodule's would go): never lifted.
    Git,
}

/// A worktree entry protected whole (root-relative, `/`-separated), existing or not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub rel: String,
    pub what: String,
    pub kind: Kind,
}

/// A key of a JSON file protected by its value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Key {
    /// The file (root-relative).
    pub file: String,
    /// The key's path in the document (`["scripts", "lint"]`).
    pub path: Vec<String>,
    /// Why it is protected.
    pub what: String,
}

impl Key {
    /// `scripts.lint`.
    pub fn name(&self) -> String {
        self.path.join(".")
    }
}

/// A worktree file a hook calls by path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Called {
    pub rel: String,
    /// The hook (or hook manager setting) that calls it: `.githooks/pre-commit`.
    pub from: String,
}

/// Everything protected in one worktree.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Protected {
    pub entries: Vec<Entry>,
    pub keys: Vec<Key>,
    pub called: Vec<Called>,
}

impl Protected {
    /// What exec and hooks keep: all of it, or — when the user's own
    /// `paths.protect_hooks: false` lets replies write hook files — only the nested git
    /// entries.
    pub fn guarded(mut self, hooks_writable: bool) -> Protected {
        if hooks_writable {
            self.entries.retain(|e| e.kind == Kind::Git);
            self.keys.clear();
        }
        self
    }
}

/// The hook files every worktree protects (root-relative), and what each is.
pub const HOOK_FILES: &[(&str, &str)] = &[
    (".githooks", "in .githooks/, the usual core.hooksPath"),
    (".husky", "in .husky/, husky's hooks"),
    (
        ".pre-commit-config.yaml",
        "the pre-commit framework's configuration",
    ),
];

/// Names at the worktree root that lint-staged reads as its configuration (a `.js` one is
/// code): protected whether they exist or not.
pub const HOOK_PREFIXES: &[(&str, &str)] = &[
    (
        ".lintstagedrc",
        "lint-staged's configuration, which names the commands it runs",
    ),
    (
        "lint-staged.config.",
        "lint-staged's configuration, which names the commands it runs",
    ),
];

/// `package.json` keys hook managers read as commands.
const MANAGER_KEYS: &[(&str, &str)] = &[
    ("lint-staged", "the commands lint-staged runs"),
    (
        "simple-git-hooks",
        "the commands simple-git-hooks installs as hooks",
    ),
    ("husky", "husky 4's hooks"),
    ("pre-commit", "the scripts the pre-commit package runs"),
];

/// Whether the root-relative `rel` is named by one of [`HOOK_PREFIXES`]: what it is.
pub fn prefixed(rel: &str) -> Option<&'static str> {
    let first = rel
        .split('/')
        .next()
        .unwrap_or_default()
        .to_ascii_lowercase();
    HOOK_PREFIXES
        .iter()
        .find(|(p, _)| first.starts_with(p))
        .map(|(_, what)| *what)
}

/// Most bytes of one file read to find what it runs.
const MAX_READ: u64 = 1 << 20;

fn read_text(p: &Path) -> Option<String> {
    use std::io::Read;
    let md = std::fs::symlink_metadata(p).ok()?;
    if !md.is_file() {
        return None;
    }
    let mut s = String::new();
    std::fs::File::open(p)
        .ok()?
        .take(MAX_READ)
        .read_to_string(&mut s)
        .ok()?;
    Some(s)
}

/// The protected set of the worktree `root` (canonical): the fixed names, `from_git` (what the
/// repository's configuration names: `core.hooksPath`, included files, programs), what the
/// hooks in `hooks_dir` and the hook managers' settings run, and `git` (the nested git
/// entries, [`nested_git`]).
pub fn discover(
    root: &Path,
    hooks_dir: Option<&Path>,
    from_git: &[(String, String)],
    git: Vec<Entry>,
) -> Protected {
    let mut p = Protected::default();
    let mut add = |rel: String, what: String| {
        if !rel.is_empty() && !p.entries.iter().any(|e| e.rel == rel) {
            p.entries.push(Entry {
                rel,
                what,
                kind: Kind::Hook,
            });
        }
    };
    for (rel, what) in HOOK_FILES {
        add(rel.to_string(), what.to_string());
    }
    // Inside the repository's own git directory is kept by the sandbox already.
    for (rel, what) in from_git
        .iter()
        .filter(|(r, _)| !super::has_git_component(Path::new(r)))
    {
        add(rel.clone(), what.clone());
        // husky 9: core.hooksPath is `.husky/_`, whose stubs run the files one folder up.
        if let Some(parent) = rel.strip_suffix("/_") {
            add(parent.to_string(), "husky's hooks".into());
        }
    }
    if let Ok(list) = std::fs::read_dir(root) {
        for e in list.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if let Some(what) = prefixed(&name) {
                add(name, what.to_string());
            }
        }
    }
    let texts = hook_texts(root, hooks_dir, from_git);
    for (rel, what) in pre_commit_entries(root) {
        add(rel, what);
    }
    p.keys = package_keys(root, &texts);
    p.called = called(root, &texts, &p);
    for g in git {
        if !p.entries.iter().any(|e| e.rel == g.rel) {
            p.entries.push(g);
        }
    }
    p
}

/// A text that runs commands, and where it is from.
struct Text {
    from: String,
    body: String,
}

/// The hook files (in `hooks_dir`, husky's folders, git's own hooks folder) and the hook
/// managers' command settings, as text.
fn hook_texts(root: &Path, hooks_dir: Option<&Path>, from_git: &[(String, String)]) -> Vec<Text> {
    let mut dirs: Vec<PathBuf> = hooks_dir.into_iter().map(Path::to_path_buf).collect();
    dirs.push(root.join(".husky"));
    dirs.push(root.join(".githooks"));
    for (rel, _) in from_git {
        if let Some(parent) = rel.strip_suffix("/_") {
            dirs.push(root.join(parent));
        }
    }
    let mut out = Vec::new();
    for dir in dirs {
        let Ok(list) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in list.flatten().take(256) {
            let name = e.file_name().to_string_lossy().into_owned();
            if name.ends_with(".sample") {
                continue;
            }
            let path = e.path();
            if let Some(body) = read_text(&path) {
                let from = path
                    .strip_prefix(root)
                    .map(|r| r.to_string_lossy().into_owned())
                    .unwrap_or_else(|_| path.display().to_string());
                if !out.iter().any(|t: &Text| t.from == from) {
                    out.push(Text { from, body });
                }
            }
        }
    }
    if let Some(doc) = package_json(root) {
        for key in ["lint-staged", "simple-git-hooks", "husky", "pre-commit"] {
            let mut body = String::new();
            strings(&doc[key], &mut body);
            if !body.is_empty() {
                out.push(Text {
                    from: format!("package.json {key}"),
                    body,
                });
            }
        }
    }
    for name in [".lintstagedrc", ".lintstagedrc.json"] {
        if let Some(v) = read_text(&root.join(name)).and_then(|t| serde_json::from_str(&t).ok()) {
            let mut body = String::new();
            strings(&v, &mut body);
            out.push(Text {
                from: name.to_string(),
                body,
            });
        }
    }
    out
}

/// Every string in `v`, one per line.
fn strings(v: &serde_json::Value, out: &mut String) {
    match v {
        serde_json::Value::String(s) => {
            out.push_str(s);
            out.push('\n');
        }
        serde_json::Value::Array(a) => a.iter().for_each(|x| strings(x, out)),
        serde_json::Value::Object(o) => o.values().for_each(|x| strings(x, out)),
        _ => {}
    }
}

fn package_json(root: &Path) -> Option<serde_json::Value> {
    serde_json::from_str(&read_text(&root.join("package.json"))?).ok()
}

/// The words of a command text (shell punctuation and quotes taken off).
fn words(text: &str) -> Vec<Vec<String>> {
    let mut commands = Vec::new();
    for line in text.lines() {
        let line = line.split(" #").next().unwrap_or_default();
        if line.trim_start().starts_with('#') {
            continue;
        }
        let cleaned: String = line
            .chars()
            .map(|c| match c {
                '"' | '\'' | '`' | '(' | ')' | '{' | '}' | '<' | '>' => ' ',
                ';' | '&' | '|' => '\n',
                _ => c,
            })
            .collect();
        for cmd in cleaned.split('\n') {
            let w: Vec<String> = cmd
                .split_whitespace()
                .map(|w| w.trim_start_matches('$').to_string())
                .filter(|w| !w.is_empty())
                .collect();
            if !w.is_empty() {
                commands.push(w);
            }
        }
    }
    commands
}

/// The npm scripts a command runs (`npm run lint`, `npm test`, `yarn lint`, `pnpm run x`, `bun
/// run x`).
fn scripts_run(cmd: &[String]) -> Vec<String> {
    const BUILTIN: &[&str] = &[
        "install",
        "i",
        "add",
        "remove",
        "rm",
        "exec",
        "dlx",
        "x",
        "create",
        "init",
        "why",
        "audit",
        "outdated",
        "upgrade",
        "up",
        "link",
        "unlink",
        "publish",
        "pack",
        "config",
        "cache",
        "info",
        "list",
        "ls",
        "workspace",
        "workspaces",
        "set",
        "dedupe",
        "import",
    ];
    let mut out = Vec::new();
    for (i, w) in cmd.iter().enumerate() {
        let tool = w.rsplit('/').next().unwrap_or(w);
        if !matches!(tool, "npm" | "pnpm" | "yarn" | "bun") {
            continue;
        }
        let rest: Vec<&String> = cmd[i + 1..]
            .iter()
            .filter(|a| !a.starts_with('-'))
            .collect();
        let Some(first) = rest.first() else {
            continue;
        };
        let name = match first.as_str() {
            "run" | "run-script" | "rum" | "urn" => rest.get(1).map(|s| s.to_string()),
            "test" | "t" | "tst" => Some("test".to_string()),
            "start" | "stop" | "restart" => Some(first.to_string()),
            other if tool != "npm" && tool != "bun" && !BUILTIN.contains(&other) => {
                Some(other.to_string())
            }
            _ => None,
        };
        out.extend(name);
    }
    out
}

/// The `package.json` keys the hook texts and managers run.
fn package_keys(root: &Path, texts: &[Text]) -> Vec<Key> {
    let Some(doc) = package_json(root) else {
        return Vec::new();
    };
    let mut keys: Vec<Key> = MANAGER_KEYS
        .iter()
        .filter(|(k, _)| doc.get(k).is_some())
        .map(|(k, what)| Key {
            file: "package.json".into(),
            path: vec![k.to_string()],
            what: what.to_string(),
        })
        .collect();
    let scripts = doc.get("scripts").and_then(|s| s.as_object());
    let mut todo: Vec<(String, String)> = Vec::new();
    for t in texts {
        for cmd in words(&t.body) {
            todo.extend(scripts_run(&cmd).into_iter().map(|s| (s, t.from.clone())));
        }
    }
    let mut seen: Vec<String> = Vec::new();
    while let Some((name, from)) = todo.pop() {
        for n in [format!("pre{name}"), name.clone(), format!("post{name}")] {
            if seen.contains(&n) || seen.len() > 256 {
                continue;
            }
            seen.push(n.clone());
            // What a protected script runs is protected too (`lint` runs `npm run eslint`).
            if let Some(body) = scripts.and_then(|s| s.get(&n)).and_then(|v| v.as_str()) {
                for cmd in words(body) {
                    todo.extend(scripts_run(&cmd).into_iter().map(|s| (s, from.clone())));
                }
            }
            keys.push(Key {
                file: "package.json".into(),
                path: vec!["scripts".into(), n],
                what: format!("a script {from} runs"),
            });
        }
    }
    keys
}

/// The worktree files the `entry:` of `repo: local` hooks in `.pre-commit-config.yaml` runs.
fn pre_commit_entries(root: &Path) -> Vec<(String, String)> {
    let Some(text) = read_text(&root.join(".pre-commit-config.yaml")) else {
        return Vec::new();
    };
    let Ok(doc) = serde_norway::from_str::<serde_json::Value>(&text) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for repo in doc["repos"].as_array().into_iter().flatten() {
        if repo["repo"].as_str() != Some("local") {
            continue;
        }
        for hook in repo["hooks"].as_array().into_iter().flatten() {
            let id = hook["id"].as_str().unwrap_or("?");
            let Some(entry) = hook["entry"].as_str() else {
                continue;
            };
            for cmd in words(entry) {
                for w in cmd {
                    if let Some(rel) = worktree_path(root, &w, w.contains('/')) {
                        out.push((
                            rel,
                            format!("a file the pre-commit framework runs (hook {id})"),
                        ));
                    }
                }
            }
        }
    }
    out
}

/// The root-relative path `word` names, when it is a path inside the worktree (outside any
/// `.git`) that is a regular file, or — with `even_absent` — could become one.
fn worktree_path(root: &Path, word: &str, even_absent: bool) -> Option<String> {
    if word.starts_with('-') || word.contains('=') || word.contains("://") || word.is_empty() {
        return None;
    }
    let p = Path::new(word);
    let abs = clada_base::path::normalize(&if p.is_absolute() {
        p.to_path_buf()
    } else {
        root.join(p)
    });
    let rel = abs.strip_prefix(root).ok()?;
    if rel.as_os_str().is_empty() || super::has_git_component(rel) {
        return None;
    }
    let md = std::fs::symlink_metadata(&abs);
    let ok = match md {
        Ok(m) => m.is_file(),
        Err(_) => even_absent,
    };
    ok.then(|| rel.to_string_lossy().into_owned())
}

/// The files the hook texts call by path, directly or through the npm script they name.
fn called(root: &Path, texts: &[Text], p: &Protected) -> Vec<Called> {
    let scripts = package_json(root)
        .and_then(|d| d.get("scripts").cloned())
        .unwrap_or_default();
    let mut out: Vec<Called> = Vec::new();
    let mut push = |rel: String, from: &str| {
        let protected = p
            .entries
            .iter()
            .any(|e| rel == e.rel || rel.starts_with(&format!("{}/", e.rel)));
        if !protected && rel != "package.json" && !out.iter().any(|c| c.rel == rel) {
            out.push(Called {
                rel,
                from: from.to_string(),
            });
        }
    };
    for t in texts {
        for cmd in words(&t.body) {
            if let Some(rel) = ran_file(&cmd).and_then(|w| worktree_path(root, w, false)) {
                if rel != t.from {
                    push(rel, &t.from);
                }
            }
            for s in scripts_run(&cmd) {
                let Some(body) = scripts.get(&s).and_then(|v| v.as_str()) else {
                    continue;
                };
                for inner in words(body) {
                    if let Some(rel) = ran_file(&inner).and_then(|w| worktree_path(root, w, false))
                    {
                        push(rel, &t.from);
                    }
                }
            }
        }
    }
    out
}

/// The word of `cmd` in executable position, when it may name a file: the command itself
/// when it is a path (`./x`, `scripts/x`), or the first operand of an interpreter (`sh x`,
/// `node tools/x.js`, `. ./env.sh`). Leading assignments and `env`, `exec`, `command`,
/// `nohup`, `time` are skipped. A file only read (`cat a.txt`) is not one.
fn ran_file(cmd: &[String]) -> Option<&String> {
    const SKIP: &[&str] = &["env", "exec", "command", "nohup", "time", "npx"];
    const INTERPRETERS: &[&str] = &[
        "sh", "bash", "dash", "zsh", "ksh", "fish", "python", "python3", "python2", "pypy3",
        "node", "nodejs", "deno", "bun", "ruby", "perl", "php", "tsx", "ts-node", "lua", "Rscript",
        "source", ".",
    ];
    let mut rest = cmd
        .iter()
        .skip_while(|w| w.contains('=') && !w.starts_with('-') || SKIP.contains(&w.as_str()));
    let first = rest.next()?;
    let name = first.rsplit('/').next().unwrap_or(first);
    if INTERPRETERS.contains(&name) {
        return rest.find(|w| !w.starts_with('-') && w.as_str() != "run");
    }
    first.contains('/').then_some(first)
}

/// The nested git entries of the worktree `root` git enters: for each gitlink or declared
/// submodule path in `paths`, its `.git` (a gitfile, a folder, or where one would go), and the
/// folder a gitfile names when that is inside the worktree and not inside `own` (the
/// repository's own git directories, protected already).
pub fn nested_git(root: &Path, paths: &[String], own: &[PathBuf]) -> Vec<Entry> {
    let mut out: Vec<Entry> = Vec::new();
    let mut push = |rel: String, what: String| {
        if !out.iter().any(|e| e.rel == rel) {
            out.push(Entry {
                rel,
                what,
                kind: Kind::Git,
            });
        }
    };
    for sub in paths {
        let sub = sub.trim_end_matches('/');
        if sub.is_empty() || super::has_git_component(Path::new(sub)) {
            continue;
        }
        let dot_git = root.join(sub).join(".git");
        push(
            format!("{sub}/.git"),
            format!(
                "the git directory of the nested repository {sub}, which your git status enters"
            ),
        );
        let Some(text) = read_text(&dot_git) else {
            continue;
        };
        let Some(target) = text.lines().next().and_then(|l| l.strip_prefix("gitdir:")) else {
            continue;
        };
        let target = Path::new(target.trim());
        let abs = clada_base::path::normalize(&if target.is_absolute() {
            target.to_path_buf()
        } else {
            root.join(sub).join(target)
        });
        let abs = std::fs::canonicalize(&abs).unwrap_or(abs);
        let own_inside = own
            .iter()
            .filter_map(|o| std::fs::canonicalize(o).ok())
            .any(|o| abs.starts_with(&o));
        if let (Ok(rel), false) = (abs.strip_prefix(root), own_inside) {
            let rel = rel.to_string_lossy().into_owned();
            if !rel.is_empty() {
                push(
                    rel,
                    format!("the git directory {sub}/.git names, which your git status enters"),
                );
            }
        }
    }
    out
}

/// The value at `path` in a JSON document, `None` when the text is not JSON or lacks it.
fn value_at<'a>(doc: &'a serde_json::Value, path: &[String]) -> Option<&'a serde_json::Value> {
    path.iter().try_fold(doc, |v, k| v.get(k))
}

/// The keys of `keys` whose parsed value differs between `before` and `after` (a file's
/// content, `None` when absent): what a write would change that hook managers run. A text
/// that is not JSON has no keys.
pub fn changed_keys<'a>(
    keys: &[&'a Key],
    before: Option<&[u8]>,
    after: Option<&[u8]>,
) -> Vec<&'a Key> {
    let parse =
        |b: Option<&[u8]>| b.and_then(|b| serde_json::from_slice::<serde_json::Value>(b).ok());
    let (b, a) = (parse(before), parse(after));
    keys.iter()
        .copied()
        .filter(|k| {
            let vb = b.as_ref().and_then(|d| value_at(d, &k.path));
            let va = a.as_ref().and_then(|d| value_at(d, &k.path));
            vb != va
        })
        .collect()
}

/// `after` with the values of `keys` as in `before` (a key absent before is removed): the
/// file put back key by key, the rest as `after` has it. `None` when either is not a JSON
/// object (then the whole file goes back).
pub fn restore_keys(keys: &[&Key], before: &[u8], after: &[u8]) -> Option<Vec<u8>> {
    let b: serde_json::Value = serde_json::from_slice(before).ok()?;
    let mut a: serde_json::Value = serde_json::from_slice(after).ok()?;
    for k in keys {
        let (last, parents) = k.path.split_last()?;
        let mut at = &mut a;
        for p in parents {
            if !at.get(p).is_some_and(|v| v.is_object()) {
                at.as_object_mut()?
                    .insert(p.clone(), serde_json::Value::Object(Default::default()));
            }
            at = at.get_mut(p)?;
        }
        let obj = at.as_object_mut()?;
        match value_at(&b, &k.path) {
            Some(v) => {
                obj.insert(last.clone(), v.clone());
            }
            None => {
                obj.shift_remove(last);
            }
        }
    }
    let mut text = serde_json::to_vec_pretty(&a).ok()?;
    text.push(b'\n');
    Some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn root() -> (tempfile::TempDir, PathBuf) {
        let d = tempfile::tempdir().unwrap();
        let r = std::fs::canonicalize(d.path()).unwrap();
        (d, r)
    }

    #[test]
    fn hooks_name_scripts_keys_and_called_files() {
        let (_d, r) = root();
        std::fs::create_dir_all(r.join(".husky/_")).unwrap();
        std::fs::create_dir_all(r.join("scripts")).unwrap();
        std::fs::write(
            r.join(".husky/pre-commit"),
            "npm run --silent lint\nsh scripts/check.sh\n",
        )
        .unwrap();
        std::fs::write(r.join("scripts/check.sh"), "true\n").unwrap();
        std::fs::write(r.join("scripts/lint.js"), "1\n").unwrap();
        std::fs::write(
            r.join("package.json"),
            r#"{"scripts": {"lint": "node scripts/lint.js && npm run fmt", "fmt": "x", "build": "y"}, "lint-staged": {"*.js": "eslint"}}"#,
        )
        .unwrap();
        std::fs::write(r.join(".lintstagedrc.js"), "module.exports = {}\n").unwrap();
        let p = discover(
            &r,
            None,
            &[(".husky/_".into(), "core.hooksPath".into())],
            Vec::new(),
        );
        let keys: Vec<String> = p.keys.iter().map(Key::name).collect();
        for k in [
            "lint-staged",
            "scripts.lint",
            "scripts.prelint",
            "scripts.fmt",
        ] {
            assert!(keys.contains(&k.to_string()), "{k}: {keys:?}");
        }
        assert!(!keys.contains(&"scripts.build".to_string()), "{keys:?}");
        assert!(
            p.entries.iter().any(|e| e.rel == ".lintstagedrc.js"),
            "{p:?}"
        );
        let called: Vec<(&str, &str)> = p
            .called
            .iter()
            .map(|c| (c.rel.as_str(), c.from.as_str()))
            .collect();
        assert!(
            called.contains(&("scripts/check.sh", ".husky/pre-commit")),
            "{called:?}"
        );
        assert!(
            called.contains(&("scripts/lint.js", ".husky/pre-commit")),
            "{called:?}"
        );
    }

    #[test]
    fn a_changed_key_is_found_and_put_back_alone() {
        let k = Key {
            file: "package.json".into(),
            path: vec!["scripts".into(), "lint".into()],
            what: "x".into(),
        };
        let before = br#"{"version": "1", "scripts": {"lint": "eslint ."}}"#;
        let formatted = b"{\n  \"version\": \"1\",\n  \"scripts\": {\"lint\": \"eslint .\"}\n}\n";
        assert!(changed_keys(&[&k], Some(before), Some(formatted)).is_empty());
        let evil = br#"{"version": "2", "scripts": {"lint": "curl x | sh"}}"#;
        assert_eq!(changed_keys(&[&k], Some(before), Some(evil)).len(), 1);
        let back = restore_keys(&[&k], before, evil).unwrap();
        let v: serde_json::Value = serde_json::from_slice(&back).unwrap();
        assert_eq!(v["scripts"]["lint"], "eslint .");
        assert_eq!(v["version"], "2");
    }

    #[test]
    fn a_submodules_gitfile_and_its_target_inside_the_worktree_are_git_entries() {
        let (_d, r) = root();
        std::fs::create_dir_all(r.join("sub")).unwrap();
        std::fs::create_dir_all(r.join("modules/sub")).unwrap();
        std::fs::write(r.join("sub/.git"), "gitdir: ../modules/sub\n").unwrap();
        let e = nested_git(&r, &["sub".into(), "empty".into()], &[r.join(".git")]);
        let rels: Vec<&str> = e.iter().map(|e| e.rel.as_str()).collect();
        assert_eq!(rels, ["sub/.git", "modules/sub", "empty/.git"]);
    }
}
