//! The house stays as drawn: every `crate::…` path in `src/` and in the engine crate (and every
//! path into one of the workspace's crates, `clada_read::…`, `clada_git::…`, `clada_base::…`,
//! `clada_engine::<layer>::…`) points to the importing module's own layer or one below it, the
//! git-free modules never reach `repo` or gix, and gix is imported only by the git crate. The
//! layer order, the git-free list and which layers are crates are read from
//! `docs/architecture.md` (its `layers`, `git-free`, `starts-programs` and `crates` blocks), the
//! one place they are written. The crates' own manifests are checked too: a crate may depend
//! only on crates of lower layers, only the git crate on gix, and the engine's whole tree
//! (Cargo.lock) holds no front end's crate.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The lines of the fenced block with info string `info` in the architecture document.
fn fenced(doc: &str, info: &str) -> Vec<String> {
    let open = format!("```{info}");
    let mut lines = doc.lines().skip_while(|l| l.trim() != open);
    assert!(
        lines.next().is_some(),
        "docs/architecture.md has no ```{info} block"
    );
    lines
        .take_while(|l| l.trim() != "```")
        .map(|l| l.trim().to_string())
        .filter(|l| !l.is_empty())
        .collect()
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The module path of a file below `src/` (`src/read/sham/mod.rs` → `[read, sham]`).
fn module_path(rel: &Path) -> Vec<String> {
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().trim_end_matches(".rs").to_string())
        .collect();
    if parts.last().is_some_and(|l| l == "mod") {
        parts.pop();
    }
    parts
}

/// The code of a line without its comment (doc comments and `//` comments name modules in
/// prose; only code counts).
fn code(line: &str) -> &str {
    let t = line.trim_start();
    if t.starts_with("//") {
        return "";
    }
    match line.find(" //") {
        Some(i) => &line[..i],
        None => line,
    }
}

/// The top-level modules a line of code names: `crate::x…`, `crate::{x, y}`, and `super::`
/// chains that climb out of the file's top-level module.
fn named_top_modules(line: &str, module: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    let bytes = line.as_bytes();
    let word = |from: usize| -> String {
        line[from..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    for (i, _) in line.match_indices("crate::") {
        let preceded = i > 0 && (bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_');
        if preceded {
            continue; // `git_clada::…` or a name ending in `crate`
        }
        let after = i + "crate::".len();
        if line[after..].starts_with('{') {
            let inner = &line[after + 1..line[after..].find('}').map_or(line.len(), |e| after + e)];
            for part in inner.split(',') {
                let name: String = part
                    .trim()
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                if !name.is_empty() && name != "self" {
                    out.push(name);
                }
            }
        } else {
            out.push(word(after));
        }
    }
    for (i, _) in line.match_indices("clada_engine::") {
        let preceded = i > 0 && (bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_');
        if !preceded {
            out.push(word(i + "clada_engine::".len()));
        }
    }
    for (krate, layer) in CRATE_LAYERS {
        let path = format!("{krate}::");
        for (i, _) in line.match_indices(&path) {
            let preceded = i > 0 && (bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_');
            if !preceded {
                out.push(layer.to_string());
            }
        }
        let bare_use = format!("use {krate}");
        if line.trim_start().starts_with(&bare_use) && !line.contains(&path) {
            out.push(layer.to_string());
        }
    }
    let mut rest = line;
    while let Some(i) = rest.find("super::") {
        let mut ups = 0;
        let mut at = i;
        while rest[at..].starts_with("super::") {
            ups += 1;
            at += "super::".len();
        }
        if ups >= module.len() {
            out.push(word_in(&rest[at..]));
        }
        rest = &rest[at..];
    }
    out.retain(|m| !m.is_empty());
    out
}

/// What a line of code starts: `Some("git")` for `Command::new("git")`, `Some("a program")`
/// for any other use of `std::process::Command` (a `use` of it, `Command::new`), else `None`.
/// `clap::Command` is argument parsing, not a process.
fn starts_program(line: &str) -> Option<&'static str> {
    let compact: String = line.chars().filter(|c| !c.is_whitespace()).collect();
    if compact.contains("Command::new(\"git\")") {
        return Some("git");
    }
    let clap = compact.contains("clap::Command");
    let process_use = compact.contains("process::Command")
        || (compact.contains("process::{") && compact.contains("Command"));
    if process_use || (compact.contains("Command::new(") && !clap) {
        return Some("a program");
    }
    None
}

/// The workspace's crates as Rust names them, with the layer each one is. Kept equal to the
/// `crates` block of docs/architecture.md by a test below.
const CRATE_LAYERS: [(&str, &str); 3] = [
    ("clada_base", "base"),
    ("clada_read", "read"),
    ("clada_git", "repo"),
];

/// The crate that holds several layers, one per top-level module (`clada_engine::action` is
/// the `action` layer): its files are layered as `src/`'s are, its `crate::` paths name layers.
const ENGINE: &str = "clada_engine";

/// The engine's layers: its top-level modules.
fn engine_layers() -> BTreeSet<String> {
    let dir = root().join("crates/clada-engine/src");
    std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| {
            e.file_name()
                .to_string_lossy()
                .trim_end_matches(".rs")
                .to_string()
        })
        .filter(|m| m != "lib")
        .collect()
}

/// Every Rust file of the front ends (`src/`), the engine and the crates, each with the module
/// path it has as a layer: `src/cli/apply.rs` → `[cli, apply]`,
/// `crates/clada-engine/src/action/plan.rs` → `[action, plan]`,
/// `crates/clada-git/src/index.rs` → `[repo, index]`. A one-layer crate's `crate::` paths stay
/// inside its own layer.
fn layered_files() -> Vec<(String, Vec<String>, PathBuf)> {
    let mut out = Vec::new();
    for dir in ["src", "crates/clada-engine/src"] {
        let src = root().join(dir);
        let mut files = Vec::new();
        rust_files(&src, &mut files);
        for file in files {
            let rel = file.strip_prefix(&src).unwrap();
            out.push((
                format!("{dir}/{}", rel.display()),
                module_path(rel),
                file.clone(),
            ));
        }
    }
    for (krate, layer) in CRATE_LAYERS {
        let dir = root()
            .join("crates")
            .join(krate.replace('_', "-"))
            .join("src");
        let mut files = Vec::new();
        rust_files(&dir, &mut files);
        for file in files {
            let rel = file.strip_prefix(&dir).unwrap();
            let mut module = vec![layer.to_string()];
            module.extend(module_path(rel).into_iter().filter(|m| m != "lib"));
            let shown = format!("crates/{}/src/{}", krate.replace('_', "-"), rel.display());
            out.push((shown, module, file.clone()));
        }
    }
    out.sort();
    out
}

fn word_in(s: &str) -> String {
    s.chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect()
}

#[test]
fn imports_run_down_the_layers_and_git_stays_in_repo() {
    let doc = std::fs::read_to_string(root().join("docs/architecture.md")).unwrap();
    let layers = fenced(&doc, "layers");
    let git_free: BTreeSet<String> = fenced(&doc, "git-free").into_iter().collect();
    let spawners: BTreeSet<String> = fenced(&doc, "starts-programs").into_iter().collect();
    let level = |m: &str| layers.iter().position(|l| l == m);
    for m in &git_free {
        assert!(level(m).is_some(), "git-free module `{m}` is not a layer");
    }

    let mut problems = Vec::new();
    let mut seen_tops = BTreeSet::new();
    for (shown, module, file) in layered_files() {
        // A one-layer crate: its `crate::` paths name its own modules, not layers.
        let in_crate = shown.starts_with("crates/") && !shown.starts_with("crates/clada-engine/");
        let top = module[0].clone();
        if top == "lib" || top == "main" {
            continue;
        }
        seen_tops.insert(top.clone());
        let Some(own) = level(&top) else {
            problems.push(format!(
                "{shown}: module `{top}` is not in the layer list of docs/architecture.md"
            ));
            continue;
        };
        let text = std::fs::read_to_string(file).unwrap();
        for (n, line) in text.lines().enumerate() {
            let line = code(line);
            let at = format!("{shown}:{}", n + 1);
            let mut named = named_top_modules(line, &module);
            if in_crate {
                named = CRATE_LAYERS
                    .iter()
                    .filter(|(k, _)| line.contains(&format!("{k}::")))
                    .map(|(_, l)| l.to_string())
                    .collect();
            }
            for to in named {
                if to == top {
                    continue;
                }
                match level(&to) {
                    None => {} // a name that is not a module (crate::VERSION)
                    Some(l) if l > own => problems.push(format!(
                        "{at}: `{top}` imports `{to}`, a layer above it ({})",
                        line.trim()
                    )),
                    Some(_) if to == "repo" && git_free.contains(&top) => problems.push(format!(
                        "{at}: `{top}` must not reach git, but imports `repo` ({})",
                        line.trim()
                    )),
                    Some(_) => {}
                }
            }
            match starts_program(line) {
                Some("git") if git_free.contains(&top) => problems.push(format!(
                    "{at}: `{top}` must not reach git, but runs the git CLI ({})",
                    line.trim()
                )),
                Some(_) if git_free.contains(&top) && !spawners.contains(&top) => {
                    problems.push(format!(
                        "{at}: `{top}` is git-free and not among the modules that start \
                         programs, but uses std::process::Command ({})",
                        line.trim()
                    ))
                }
                _ => {}
            }
            let uses_gix = line.contains("gix::") || line.trim_start().starts_with("use gix");
            if uses_gix && top != "repo" {
                problems.push(format!(
                    "{at}: gix is imported outside the git crate ({})",
                    line.trim()
                ));
            }
        }
    }
    for layer in &layers {
        assert!(
            seen_tops.contains(layer),
            "docs/architecture.md lists the layer `{layer}` but neither src/ nor crates/ has it"
        );
    }
    assert!(
        problems.is_empty(),
        "imports that break the layers of docs/architecture.md:\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_checker_sees_programs_started() {
    assert_eq!(
        starts_program(r#"    let out = Command::new("git")"#),
        Some("git")
    );
    assert_eq!(
        starts_program(r#"std::process::Command::new( "git" )"#),
        Some("git")
    );
    assert_eq!(
        starts_program("use std::process::{Command, Stdio};"),
        Some("a program")
    );
    assert_eq!(
        starts_program("let c = std::process::Command::new(prog);"),
        Some("a program")
    );
    assert_eq!(starts_program("std::process::abort();"), None);
    assert_eq!(starts_program("std::process::id(),"), None);
    assert_eq!(
        starts_program("let mut out = clap::Command::new(name);"),
        None
    );
}

#[test]
fn the_checker_sees_upward_imports() {
    // The parser of import lines is what the test above stands on: it must find each form.
    let m = |s: &str| s.split('/').map(String::from).collect::<Vec<_>>();
    assert_eq!(
        named_top_modules("use crate::record::apply::apply;", &m("action/plan")),
        ["record"]
    );
    assert_eq!(
        named_top_modules("use crate::{repo, report::human};", &m("read")),
        ["repo", "report"]
    );
    assert_eq!(
        named_top_modules("let x = crate::config::load(p)?;", &m("exec/hooks")),
        ["config"]
    );
    assert_eq!(
        named_top_modules("use super::super::history::undo;", &m("read/sham")),
        ["history"]
    );
    assert!(named_top_modules("use super::markers;", &m("read/sham/parser")).is_empty());
    assert!(named_top_modules("use git_clada::record;", &m("cli")).is_empty());
    assert_eq!(
        named_top_modules("use clada_engine::record::apply;", &m("cli")),
        ["record"]
    );
    assert_eq!(
        named_top_modules("let r = clada_git::Repo::open(p)?;", &m("action")),
        ["repo"]
    );
    assert_eq!(code("//! see crate::record"), "");
    assert_eq!(
        code("use crate::base; // not crate::repo"),
        "use crate::base;"
    );
}

/// The names in a manifest's `[dependencies]` table (the section, not dev- or build-
/// dependencies), read line by line: `name = …` and `name.workspace = true`.
fn dependencies(manifest: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut inside = false;
    for line in manifest.lines() {
        let t = line.trim();
        if t.starts_with('[') {
            inside = t == "[dependencies]"
                || (t.starts_with("[target.") && t.ends_with(".dependencies]"));
            continue;
        }
        if inside && !t.is_empty() && !t.starts_with('#') {
            let name: String = t
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '-')
                .collect();
            out.insert(name);
        }
    }
    out
}

#[test]
fn the_crates_depend_down_the_layers_and_only_the_git_crate_on_gix() {
    let doc = std::fs::read_to_string(root().join("docs/architecture.md")).unwrap();
    let layers = fenced(&doc, "layers");
    let level = |m: &str| layers.iter().position(|l| l == m);
    let listed: BTreeSet<String> = fenced(&doc, "crates").into_iter().collect();
    let mut ours: BTreeSet<String> = CRATE_LAYERS
        .iter()
        .map(|(k, l)| format!("{} {l}", k.replace('_', "-")))
        .collect();
    let engine: Vec<String> = engine_layers().into_iter().collect();
    ours.insert(format!("{} {}", ENGINE.replace('_', "-"), engine.join(" ")));
    assert_eq!(listed, ours, "the crates block of docs/architecture.md");
    let mut problems = Vec::new();
    let root_deps = dependencies(&std::fs::read_to_string(root().join("Cargo.toml")).unwrap());
    if root_deps.contains("gix") {
        problems.push("Cargo.toml: the front ends' package depends on gix".to_string());
    }
    let engine_manifest = root().join("crates/clada-engine/Cargo.toml");
    let engine_deps = dependencies(&std::fs::read_to_string(engine_manifest).unwrap());
    // The engine spans layers on both sides of read and repo (authorship lies below read): at
    // the crate level it may use the one-layer crates, which may not use it (the module
    // check above holds each of its layers to the order), and never the front ends' package.
    if engine_deps.contains("git-clada") {
        problems.push("clada-engine: depends on the front ends' package".to_string());
    }
    if engine_deps.contains("gix") {
        problems.push("clada-engine: depends on gix; only clada-git may".to_string());
    }
    for (krate, layer) in CRATE_LAYERS {
        let dir = krate.replace('_', "-");
        let path = root().join("crates").join(&dir).join("Cargo.toml");
        let deps = dependencies(&std::fs::read_to_string(&path).unwrap());
        assert!(
            !deps.is_empty() || dir == "clada-base",
            "{dir}: no dependencies read"
        );
        for dep in &deps {
            if dep == "clada-engine" || dep == "git-clada" {
                problems.push(format!("{dir}: depends on {dep}, a crate above it"));
            }
            if dep == "gix" && layer != "repo" {
                problems.push(format!("{dir}: depends on gix; only clada-git may"));
            }
            if let Some((_, to)) = CRATE_LAYERS
                .iter()
                .find(|(k, _)| k.replace('_', "-") == *dep)
            {
                if level(to) >= level(layer) {
                    problems.push(format!("{dir}: depends on {dep}, not a lower layer"));
                }
            }
        }
        if layer == "read" {
            // The reading crate is for any tool: no git, no file system, no runtime, no
            // system calls of its own.
            for banned in ["gix", "tokio", "rustix", "libc", "clada-base", "clada-git"] {
                if deps.contains(banned) {
                    problems.push(format!("{dir}: the reading crate depends on {banned}"));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The packages Cargo.lock says `roots` depend on, directly or not, and the roots (every
/// feature the workspace turns on anywhere, so it errs on the side of more).
fn locked_tree(lock: &str, roots: &BTreeSet<String>) -> BTreeSet<String> {
    let mut deps: std::collections::BTreeMap<String, Vec<String>> = Default::default();
    for package in lock.split("[[package]]").skip(1) {
        let field = |key: &str| {
            package
                .lines()
                .find_map(|l| l.strip_prefix(key))
                .map(|v| v.trim().trim_matches('"').to_string())
        };
        let Some(pkg) = field("name = ") else {
            continue;
        };
        let list = package
            .split_once("dependencies = [")
            .map(|(_, rest)| rest.split(']').next().unwrap_or(""))
            .unwrap_or("");
        let named = list
            .split(',')
            .map(|d| d.trim().trim_matches('"'))
            .filter_map(|d| d.split(' ').next())
            .filter(|d| !d.is_empty())
            .map(str::to_string);
        deps.entry(pkg).or_default().extend(named);
    }
    let mut seen = BTreeSet::new();
    let mut stack: Vec<String> = roots.iter().cloned().collect();
    while let Some(n) = stack.pop() {
        if seen.insert(n.clone()) {
            stack.extend(deps.get(&n).into_iter().flatten().cloned());
        }
    }
    seen
}

/// The engine is a library other front ends can use: no argument parser, async runtime, MCP
/// SDK, clipboard, file watcher or signal handling anywhere in what it pulls in.
#[test]
fn the_engine_pulls_in_no_front_end_crate() {
    let lock = std::fs::read_to_string(root().join("Cargo.lock")).unwrap();
    // From the manifest's [dependencies]: the engine's test tools (proptest pulls in toml_edit)
    // are not what a front end that takes the engine builds.
    let manifest = root().join("crates/clada-engine/Cargo.toml");
    let tree = locked_tree(
        &lock,
        &dependencies(&std::fs::read_to_string(manifest).unwrap()),
    );
    assert!(
        tree.contains("clada-git") && tree.contains("gix"),
        "{tree:?}"
    );
    let fronts = [
        "clap",
        "tokio",
        "rmcp",
        "arboard",
        "notify",
        "signal-hook",
        "toml_edit",
    ];
    let found: Vec<_> = fronts.iter().filter(|f| tree.contains(**f)).collect();
    assert!(found.is_empty(), "clada-engine's tree holds {found:?}");
    let fronts_package = dependencies(&std::fs::read_to_string(root().join("Cargo.toml")).unwrap());
    assert!(locked_tree(&lock, &fronts_package).contains("signal-hook"));
}

#[test]
fn the_reading_crate_touches_no_file_system_and_starts_nothing() {
    let mut problems = Vec::new();
    for (shown, module, file) in layered_files() {
        if module[0] != "read" || !shown.starts_with("crates/") {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap();
        for (n, line) in text.lines().enumerate() {
            let line = code(line);
            for banned in [
                "std::fs",
                "std::process",
                "std::net",
                "File::open",
                "std::env",
            ] {
                if line.contains(banned) {
                    problems.push(format!("{shown}:{}: uses {banned}", n + 1));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The subcommand files of `src/cli/` (each has its `run`), by module name.
fn subcommand_files() -> BTreeSet<String> {
    let dir = root().join("src/cli");
    let mut out = BTreeSet::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_string_lossy().to_string();
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        if name != "mod" && text.contains("pub fn run(") {
            out.insert(name);
        }
    }
    out
}

#[test]
fn no_subcommand_file_imports_another() {
    let subcommands = subcommand_files();
    assert!(subcommands.contains("apply") && subcommands.contains("parse"));
    let mut problems = Vec::new();
    for name in &subcommands {
        let path = root().join("src/cli").join(format!("{name}.rs"));
        let text = std::fs::read_to_string(&path).unwrap();
        for (n, line) in text.lines().enumerate() {
            let line = code(line);
            for other in subcommands.iter().filter(|o| *o != name) {
                for form in [
                    format!("crate::cli::{other}::"),
                    format!("super::{other}::"),
                ] {
                    if line.contains(&form) {
                        problems.push(format!("src/cli/{name}.rs:{}: {}", n + 1, line.trim()));
                    }
                }
            }
        }
    }
    assert!(
        problems.is_empty(),
        "a subcommand file imports another's (shared pieces go in cli/mod.rs or a file \
         without a run, like cli/dialects.rs and cli/man.rs):\n{}",
        problems.join("\n")
    );
}

/// Whether a file is part of the platform seam: `clada_base::platform`, or a `*_linux.rs`
/// file (or one under a `*_linux/` folder) that a `linux!` block declares.
fn in_seam(shown: &str) -> bool {
    shown == "crates/clada-base/src/platform.rs"
        || shown
            .split('/')
            .any(|part| part.trim_end_matches(".rs").ends_with("_linux"))
}

/// The system calls only Linux has, by the names code reaches them through.
const LINUX_ONLY: [&str; 7] = [
    "rustix::fs::openat2",
    "ResolveFlags",
    "landlock::",
    "pidfd_",
    "PidFd",
    "inotify::",
    "libc::inotify",
];

/// One platform seam (docs/platforms.md): no code outside it names an operating system
/// (`target_os`, the portable build's feature) or reaches openat2, Landlock, pidfds
/// or inotify; it asks `clada_base::platform` or writes its two sides in `linux!` and
/// `portable!`.
#[test]
fn only_the_platform_seam_names_an_operating_system() {
    let mut problems = Vec::new();
    let mut files = Vec::new();
    for dir in ["src", "crates"] {
        rust_files(&root().join(dir), &mut files);
    }
    for file in files {
        let shown = file
            .strip_prefix(root())
            .unwrap()
            .to_string_lossy()
            .into_owned();
        if shown.contains("/fuzz/") || shown.contains("/target/") || in_seam(&shown) {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap();
        for (n, line) in text.lines().enumerate() {
            let line = code(line);
            let named = ["target_os", "feature = \"portable\""]
                .into_iter()
                .chain(LINUX_ONLY)
                .find(|w| line.contains(w));
            if let Some(w) = named {
                problems.push(format!("{shown}:{}: {w} ({})", n + 1, line.trim()));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "outside the platform seam (clada_base::platform, *_linux.rs):\n{}",
        problems.join("\n")
    );
    assert!(in_seam(
        "crates/clada-engine/src/exec/confine_linux/tests.rs"
    ));
    assert!(!in_seam("crates/clada-engine/src/exec/confine.rs"));
}
