//! Shared parts of the differential tests against the tools that defined the edit formats
//! (aider, Codex's apply_patch, `git apply`): a seeded random generator of code-like files and
//! edits, the oracles (found under `target/ci-tools/`, where `.ci/run` installs them, or named
//! by environment variables), running git-clada's engine on a copy, and the tally that
//! classifies every case and collects what must not happen.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use clada_engine::action::textmatch::Hint;
use clada_engine::action::{self, EngineOptions, ExecPolicy};
use clada_engine::config::editorconfig::WholeFile;
use clada_engine::sandbox::Sandbox;
use clada_read::Dialect;

// ---------------------------------------------------------------------------------------------
// Random

/// SplitMix64: small, seeded, reproducible.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x9E37_79B9_7F4A_7C15)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// 0 .. n (n > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }

    /// True with probability `percent` / 100.
    pub fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    pub fn pick<'a, T>(&mut self, v: &'a [T]) -> &'a T {
        &v[self.below(v.len())]
    }
}

/// How many cases each differential test runs: `CLADA_DIFF_CASES`, else `default`.
pub fn cases(default: usize) -> usize {
    std::env::var("CLADA_DIFF_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The first seed: `CLADA_DIFF_SEED`, else a fixed one (the runs are reproducible).
pub fn seed() -> u64 {
    std::env::var("CLADA_DIFF_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20_260_101)
}

const WORDS: &[&str] = &[
    "alpha", "beta", "count", "delta", "event", "frame", "gamma", "handle", "index", "jitter",
    "key", "limit", "model", "node", "offset", "parse", "query", "record", "state", "token",
    "user", "value", "width", "xml", "yield", "zone",
];

/// A code-like line: mostly unique (a word and a number), sometimes one of the lines every
/// file repeats (`}`, blank, `return None`), sometimes with trailing whitespace or a
/// typographic character.
pub fn random_line(rng: &mut Rng, indent: &str) -> String {
    let w = *rng.pick(WORDS);
    let k = rng.below(1000);
    let body = match rng.below(20) {
        0 => return String::new(),
        1 => "}".to_string(),
        2 => "return None".to_string(),
        3 => format!("def {w}_{k}(self):"),
        4 => format!("# {w} \u{2013} the {w} note {k}"),
        5 => format!("print(\u{201C}{w} {k}\u{201D})"),
        6 => format!("if {w} > {k}:"),
        7 => format!("{w}_{k} = {w}({k}, \"{w}\")"),
        // Lines that look like the formats' own markup once in a hunk or chunk: a removed
        // `-- x` is `--- x` and an added `++ y` is `+++ y` in a diff; a context line can read
        // `*** End Patch` in an envelope.
        8 if rng.chance(30) => match rng.below(5) {
            0 => format!("-- {w} {k}"),
            1 => format!("++ {w} {k}"),
            2 => format!("--- {w}"),
            3 => format!("+++ {w}"),
            _ => "*** End Patch".to_string(),
        },
        _ => format!("{w}_{k} = {}", rng.below(100_000)),
    };
    let trailing = if rng.chance(5) { "  " } else { "" };
    format!("{indent}{body}{trailing}")
}

/// A file: lines without breaks, its line break, whether it ends with one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileSpec {
    pub lines: Vec<String>,
    pub crlf: bool,
    pub final_break: bool,
}

impl FileSpec {
    pub fn eol(&self) -> &'static str {
        if self.crlf {
            "\r\n"
        } else {
            "\n"
        }
    }

    pub fn bytes(&self) -> Vec<u8> {
        let mut s = self.lines.join(self.eol());
        if self.final_break && !self.lines.is_empty() {
            s.push_str(self.eol());
        }
        s.into_bytes()
    }
}

/// A random file of `min..max` lines: LF mostly, CRLF sometimes, without a last line break
/// sometimes; indented blocks.
pub fn random_file(rng: &mut Rng, min: usize, max: usize) -> FileSpec {
    let n = min + rng.below(max - min + 1);
    let mut lines = Vec::with_capacity(n);
    let mut indent = String::new();
    for _ in 0..n {
        match rng.below(6) {
            0 if indent.len() < 8 => indent.push_str("    "),
            1 if !indent.is_empty() => indent.truncate(indent.len() - 4),
            _ => {}
        }
        lines.push(random_line(rng, &indent));
    }
    FileSpec {
        lines,
        crlf: rng.chance(20),
        final_break: !rng.chance(15),
    }
}

/// Lines `start .. start + old` replaced by `new`.
#[derive(Debug, Clone)]
pub struct Change {
    pub start: usize,
    pub old: usize,
    pub new: Vec<String>,
}

/// 1 to `max` changes, sorted, at least `gap` unchanged lines apart.
pub fn random_changes(rng: &mut Rng, lines: &[String], max: usize, gap: usize) -> Vec<Change> {
    let mut out: Vec<Change> = Vec::new();
    let want = 1 + rng.below(max);
    let mut from = 0;
    for _ in 0..want {
        if from > lines.len() {
            break;
        }
        let room = lines.len() - from;
        let start = from + rng.below(room.clamp(1, 8).min(room + 1));
        let old = rng.below(4).min(lines.len() - start);
        let indent: String = lines
            .get(start)
            .map(|l| l.chars().take_while(|c| *c == ' ').collect())
            .unwrap_or_default();
        let new: Vec<String> = (0..rng.below(4))
            .map(|_| random_line(rng, &indent))
            .collect();
        if old == 0 && new.is_empty() {
            continue;
        }
        if lines[start..start + old] == new[..] {
            continue;
        }
        from = start + old + gap;
        out.push(Change { start, old, new });
    }
    out
}

pub fn apply_changes(lines: &[String], changes: &[Change]) -> Vec<String> {
    let mut out = Vec::new();
    let mut at = 0;
    for c in changes {
        out.extend_from_slice(&lines[at..c.start]);
        out.extend(c.new.iter().cloned());
        at = c.start + c.old;
    }
    out.extend_from_slice(&lines[at..]);
    out
}

// ---------------------------------------------------------------------------------------------
// Trees

/// Every regular file below `root` (not directories, not `.git`): path → (executable, bytes).
pub type Tree = BTreeMap<String, (bool, Vec<u8>)>;

pub fn read_tree(root: &Path) -> Tree {
    let mut out = Tree::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            let rel = p
                .strip_prefix(root)
                .map(|r| r.to_string_lossy().into_owned())
                .unwrap_or_default();
            if rel == ".git" {
                continue;
            }
            let Ok(md) = std::fs::symlink_metadata(&p) else {
                continue;
            };
            if md.is_dir() {
                stack.push(p);
            } else if md.is_file() {
                let exec = md.permissions().mode() & 0o111 != 0;
                out.insert(rel, (exec, std::fs::read(&p).unwrap_or_default()));
            }
        }
    }
    out
}

pub fn write_tree(root: &Path, tree: &Tree) {
    for (rel, (exec, bytes)) in tree {
        let p = root.join(rel);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).expect("mkdir");
        }
        std::fs::write(&p, bytes).expect("write");
        if *exec {
            let mut perm = std::fs::metadata(&p).expect("stat").permissions();
            perm.set_mode(0o755);
            std::fs::set_permissions(&p, perm).expect("chmod");
        }
    }
}

/// A fresh directory holding `tree`.
pub fn dir_with(tree: &Tree) -> tempfile::TempDir {
    let d = tempfile::tempdir().expect("tempdir");
    write_tree(d.path(), tree);
    d
}

// ---------------------------------------------------------------------------------------------
// git-clada

/// What git-clada's engine did with a reply.
#[derive(Debug, Default)]
pub struct Ours {
    pub ok: bool,
    pub ambiguous: bool,
    pub warnings: Vec<String>,
    /// Error messages (results and parse errors).
    pub errors: Vec<String>,
    /// Every failed result has a hint or an error message.
    pub explained: bool,
    pub blocks: usize,
}

/// Parses and runs `reply` in `root` (no git), in `dialect`, with the options `git clada
/// apply` has by default (the final-newline rule of `files.final_newline: true`,
/// `.editorconfig` honoured).
pub fn run_ours(root: &Path, reply: &str, dialect: Dialect) -> Ours {
    let root = std::fs::canonicalize(root).expect("canonical");
    let sandbox = Sandbox::new(&root, false).expect("sandbox");
    let parsed = clada_read::parse(reply, dialect);
    let plan = action::plan(&parsed, &sandbox);
    let out = action::execute(
        &plan,
        &sandbox,
        &EngineOptions {
            exec: ExecPolicy::Deny,
            whole_file: WholeFile {
                final_newline: true,
                editorconfig: true,
                final_newline_configured: false,
            },
            ..EngineOptions::default()
        },
    );
    let r = out.result;
    Ours {
        ok: r.success && !r.results.is_empty(),
        ambiguous: r
            .results
            .iter()
            .any(|x| matches!(x.hint, Some(Hint::Ambiguous { .. }))),
        warnings: r.results.iter().flat_map(|x| x.warnings.clone()).collect(),
        errors: r
            .results
            .iter()
            .filter_map(|x| x.error.clone())
            .chain(r.parse_errors.iter().map(|e| e.message.clone()))
            .collect(),
        explained: r
            .results
            .iter()
            .filter(|x| !x.success)
            .all(|x| x.hint.is_some() || x.error.as_ref().is_some_and(|e| !e.is_empty())),
        blocks: r.total_blocks,
    }
}

// ---------------------------------------------------------------------------------------------
// Oracles

fn manifest() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// An oracle that is missing: the test fails, saying how to install it. A differential test
/// that cannot compare with the original tool has shown nothing, so it never passes by skipping
/// (`.ci/run` installs the oracles under `target/ci-tools/`).
pub fn missing(what: &str, how: &str) -> ! {
    panic!("{what} was not found, so this differential test cannot run: {how}");
}

/// The Python of a venv with `aider-chat` (`CLADA_AIDER_PYTHON`, else
/// `target/ci-tools/aider-venv`).
pub fn aider_python() -> Option<PathBuf> {
    let p = std::env::var_os("CLADA_AIDER_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| manifest().join("target/ci-tools/aider-venv/bin/python"));
    let ok = Command::new(&p)
        .args(["-c", "import aider.coders.editblock_coder"])
        .output()
        .is_ok_and(|o| o.status.success());
    ok.then_some(p)
}

/// Codex's binary (`CLADA_CODEX_BIN`, else the one `npm install @openai/codex` put under
/// `target/ci-tools/codex`), linked as `apply_patch` in a directory of its own: invoked under
/// that name it applies the patch given as its argument.
pub fn apply_patch_bin() -> Option<(tempfile::TempDir, PathBuf)> {
    let bin = std::env::var_os("CLADA_CODEX_BIN")
        .map(PathBuf::from)
        .or_else(|| {
            // node_modules/@openai/codex-<platform>/vendor/<target>/bin/codex
            let scope = manifest().join("target/ci-tools/codex/node_modules/@openai");
            std::fs::read_dir(scope)
                .ok()?
                .flatten()
                .filter(|e| e.file_name().to_string_lossy().starts_with("codex-"))
                .filter_map(|e| std::fs::read_dir(e.path().join("vendor")).ok())
                .flatten()
                .flatten()
                .map(|e| e.path().join("bin/codex"))
                .find(|p| p.is_file())
        })?;
    let dir = tempfile::tempdir().ok()?;
    let link = dir.path().join("apply_patch");
    std::os::unix::fs::symlink(&bin, &link).ok()?;
    let ok = Command::new(&link)
        .arg("*** Begin Patch\n*** End Patch")
        .current_dir(dir.path())
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stderr).contains("No files were modified"));
    ok.then_some((dir, link))
}

/// Whether `git` and GNU `patch` run.
pub fn have(tool: &str) -> bool {
    Command::new(tool)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// A command with a clean environment for git (no user or system configuration).
pub fn clean(cmd: &mut Command, home: &Path) {
    cmd.env("HOME", home)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", home.join(".gitconfig"))
        .env("GIT_CEILING_DIRECTORIES", std::env::temp_dir())
        .env("LANG", "C")
        .env("LC_ALL", "C")
        .env("TZ", "UTC")
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.com")
        .env("GIT_AUTHOR_DATE", "2026-01-01T12:00:00 +0000")
        .env("GIT_COMMITTER_DATE", "2026-01-01T12:00:00 +0000");
}

// ---------------------------------------------------------------------------------------------
// Tally

/// What became of the cases: counts per category, one example per category, and every case
/// that broke the rules (the test fails on any).
#[derive(Default)]
pub struct Tally {
    /// The oracle writes LF lines into CRLF files (Codex): a listed divergence for its format.
    pub crlf_divergence: bool,
    pub counts: BTreeMap<String, usize>,
    pub examples: BTreeMap<String, String>,
    pub violations: Vec<String>,
    pub tags: BTreeMap<String, usize>,
}

impl Tally {
    pub fn add(&mut self, category: &str, example: impl FnOnce() -> String) {
        *self.counts.entry(category.to_string()).or_default() += 1;
        if !self.examples.contains_key(category) {
            self.examples.insert(category.to_string(), example());
        }
    }

    pub fn tag(&mut self, t: &str) {
        *self.tags.entry(t.to_string()).or_default() += 1;
    }

    pub fn violation(&mut self, what: String) {
        self.violations.push(what);
    }

    /// Prints the figures and fails on a violation.
    pub fn finish(self, name: &str, total: usize) {
        println!("== {name}: {total} cases");
        for (c, n) in &self.counts {
            println!("  {c}: {n}");
        }
        println!("  perturbations: {:?}", self.tags);
        if std::env::var_os("CLADA_DIFF_EXAMPLES").is_some() {
            for (c, e) in &self.examples {
                println!("--- example of {c}:\n{e}");
            }
        }
        let shown: Vec<&String> = self.violations.iter().take(5).collect();
        assert!(
            self.violations.is_empty(),
            "{name}: {} of {total} cases broke the rules; the first:\n\n{}",
            self.violations.len(),
            shown
                .iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join("\n\n=====\n\n")
        );
    }
}

/// Shows bytes for a report.
pub fn show(b: &[u8]) -> String {
    format!("{:?}", String::from_utf8_lossy(b))
}

pub fn show_tree(t: &Tree) -> String {
    t.iter()
        .map(|(p, (x, b))| format!("{p}{}: {}", if *x { " (x)" } else { "" }, show(b)))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Whether `ours` equals `theirs` but for line endings, in the one way docs/formats.md lists: a
/// file that used CRLF has CRLF on every line in `ours`, where the oracle (Codex) wrote the
/// lines it added or replaced with LF.
pub fn equal_but_line_endings(before: &Tree, ours: &Tree, theirs: &Tree) -> bool {
    if ours.keys().ne(theirs.keys()) {
        return false;
    }
    let lf = |b: &[u8]| String::from_utf8_lossy(b).replace("\r\n", "\n");
    let crlf_before = before
        .values()
        .any(|(_, b)| b.windows(2).any(|w| w == b"\r\n"));
    crlf_before
        && ours.iter().all(|(p, (x, b))| {
            let (tx, tb) = &theirs[p];
            x == tx && (b == tb || lf(b) == lf(tb))
        })
}

/// The tolerance a warning names, in a word or two (for the figures).
pub fn tolerance_kind(warnings: &[String]) -> String {
    let kinds = [
        ("--recount", "line counts"),
        ("line endings", "line endings"),
        ("trailing whitespace", "trailing whitespace"),
        ("leading and trailing whitespace", "surrounding whitespace"),
        ("typographic", "punctuation"),
        ("offset", "offset"),
        ("no line numbers", "no line numbers"),
        ("empty but for a CR", "CR-only line"),
        ("leading whitespace", "indentation"),
        ("blank first line", "leading blank line"),
        ("`...`", "elision"),
        ("added at the end of the file", "added at the end"),
        ("both empty", "empty file created"),
        ("now empty", "file emptied"),
        ("Move to", "move without chunks"),
    ];
    let mut found: Vec<&str> = Vec::new();
    for w in warnings {
        for (needle, kind) in kinds {
            if w.contains(needle) && !found.contains(&kind) {
                found.push(kind);
            }
        }
    }
    if found.is_empty() {
        "other".to_string()
    } else {
        found.join(", ")
    }
}

/// Classifies one case by the oracle's and git-clada's outcomes (the rules of the issue):
/// - both succeed: the same bytes, or the documented line-ending divergence (a CRLF file
///   keeps CRLF where Codex writes LF lines);
/// - the oracle succeeds, git-clada fails: only the documented ambiguity refusal, which
///   changes nothing;
/// - the oracle fails, git-clada succeeds: only with a warning naming the tolerance;
/// - both fail: git-clada explains why.
pub fn judge(
    tally: &mut Tally,
    case: &str,
    before: &Tree,
    theirs: (bool, &Tree),
    ours: (&Ours, &Tree),
) {
    let (t_ok, t_tree) = theirs;
    let (o, o_tree) = ours;
    let context = || {
        format!(
            "{case}\n-- before:\n{}\n-- oracle ({}):\n{}\n-- git-clada ({}; warnings {:?}; errors {:?}):\n{}",
            show_tree(before),
            if t_ok { "ok" } else { "failed" },
            show_tree(t_tree),
            if o.ok { "ok" } else { "failed" },
            o.warnings,
            o.errors,
            show_tree(o_tree)
        )
    };
    match (t_ok, o.ok) {
        (true, true) if o_tree == t_tree => tally.add("agree: same bytes", context),
        (true, true) if tally.crlf_divergence && equal_but_line_endings(before, o_tree, t_tree) => {
            tally.add(
                "divergence: CRLF kept on every line (the oracle wrote LF lines)",
                context,
            )
        }
        (true, true) => tally.violation(format!("DIFFERENT BYTES\n{}", context())),
        (true, false) if o.ambiguous && o_tree == before && o.blocks == 1 => tally.add(
            "stricter: ambiguous match refused, nothing changed",
            context,
        ),
        (true, false) if o.ambiguous => tally.add("stricter: ambiguous match refused", context),
        (true, false) => {
            tally.violation(format!("ORACLE SUCCEEDS, GIT-CLADA FAILS\n{}", context()))
        }
        (false, true) if !o.warnings.is_empty() => {
            let kind = tolerance_kind(&o.warnings);
            tally.add(
                &format!("tolerated: oracle fails, git-clada warns ({kind})"),
                context,
            )
        }
        (false, true) => tally.violation(format!(
            "ORACLE FAILS, GIT-CLADA SUCCEEDS WITHOUT A WARNING\n{}",
            context()
        )),
        (false, false) if o.explained => {
            tally.add("agree: both fail (git-clada explains)", context)
        }
        (false, false) => {
            tally.violation(format!("GIT-CLADA FAILS WITHOUT A REASON\n{}", context()))
        }
    }
}

/// Runs `reply` with git-clada on a copy of `before` (read in `dialect`) and judges it against
/// the oracle's outcome.
pub fn check_case(
    tally: &mut Tally,
    case: &str,
    before: &Tree,
    reply: &str,
    dialect: Dialect,
    theirs: (bool, &Tree),
) {
    let mine = dir_with(before);
    let ours = run_ours(mine.path(), reply, dialect);
    let o_tree = read_tree(mine.path());
    judge(tally, case, before, theirs, (&ours, &o_tree));
}
