//! Differential tests: random files and random edits, written in each edit format the way
//! models write them (with the mistakes the formats' tools tolerate), applied by the tool that
//! defined the format and by git-clada on copies of the same files, and the results compared
//! (see `differential_support::judge` for the rules):
//! - aider SEARCH/REPLACE against aider's own `find_original_update_blocks` + `do_replace`;
//! - Codex apply_patch envelopes against Codex's `apply_patch` binary;
//! - unified diffs (made by `git diff`, then perturbed) against `git apply` (and GNU `patch`
//!   where `git apply` gives up).
//!
//! The oracles are installed by `scripts/test` (which `.ci/run` runs) under
//! `target/ci-tools/`. Without them the tests are ignored (`has_oracles`, `has_patch`, from
//! build.rs: a first `cargo test` lists them as ignored, never as passed); run anyway
//! (`--include-ignored`), a test fails saying how to install what is missing. `CLADA_DIFF_CASES` sets the
//! number of cases per format (default 300), `CLADA_DIFF_SEED` the first seed,
//! `CLADA_DIFF_EXAMPLES=1` prints one example per outcome; run with `--nocapture` to see the
//! figures.

use crate::differential_support;

use std::path::Path;
use std::process::Command;

use clada_read::{Dialect, Format};
use differential_support::*;

const CASES: usize = 300;

// ---------------------------------------------------------------------------------------------
// aider

/// One aider case: the files before, the reply, and the perturbations used.
struct AiderCase {
    before: Tree,
    reply: String,
    crlf: bool,
    tags: Vec<&'static str>,
}

fn marker(rng: &mut Rng, c: char, word: &str) -> String {
    let n = if rng.chance(85) { 7 } else { 5 + rng.below(5) };
    let m: String = std::iter::repeat_n(c, n).collect();
    if word.is_empty() {
        m
    } else {
        format!("{m} {word}")
    }
}

/// The text of a SEARCH or REPLACE part: lines, each with `\n`.
fn part(lines: &[String]) -> String {
    lines.iter().map(|l| format!("{l}\n")).collect()
}

/// A block in one of the placements models use.
fn aider_block(rng: &mut Rng, path: Option<&str>, search: &str, replace: &str) -> String {
    let body = format!(
        "{}\n{search}{}\n{replace}{}\n",
        marker(rng, '<', "SEARCH"),
        marker(rng, '=', ""),
        marker(rng, '>', "REPLACE")
    );
    let Some(path) = path else {
        return body;
    };
    match rng.below(4) {
        0 => format!("{path}\n```python\n{body}```\n"),
        1 => format!("```python\n{path}\n{body}```\n"),
        2 => format!("{path}\n{body}"),
        _ => format!("```{path}\n{body}```\n"),
    }
}

fn leading_spaces(s: &str) -> usize {
    s.chars().take_while(|c| *c == ' ').count()
}

/// SEARCH and REPLACE lines for one change, with context, maybe perturbed.
fn aider_texts(
    rng: &mut Rng,
    lines: &[String],
    c: &Change,
    tags: &mut Vec<&'static str>,
) -> (Vec<String>, Vec<String>) {
    let before = rng.below(3).min(c.start);
    let after = rng.below(3).min(lines.len() - c.start - c.old);
    let mut search: Vec<String> = lines[c.start - before..c.start + c.old + after].to_vec();
    let mut replace: Vec<String> = lines[c.start - before..c.start].to_vec();
    replace.extend(c.new.iter().cloned());
    replace.extend_from_slice(&lines[c.start + c.old..c.start + c.old + after]);
    if search.is_empty() {
        // Nothing to find: give it the line after (or before) as context.
        if let Some(l) = lines.get(c.start) {
            search.push(l.clone());
            replace.push(l.clone());
        } else if let Some(l) = c.start.checked_sub(1).and_then(|i| lines.get(i)) {
            search.insert(0, l.clone());
            replace.insert(0, l.clone());
        }
    }
    let nonblank = |v: &[String]| -> Vec<usize> {
        v.iter()
            .filter(|l| !l.trim().is_empty())
            .map(|l| leading_spaces(l))
            .collect()
    };
    match rng.below(100) {
        0..=14 => {
            tags.push("indent-shift");
            let min = nonblank(&search)
                .into_iter()
                .chain(nonblank(&replace))
                .min()
                .unwrap_or(0);
            let shift = |v: &mut Vec<String>| {
                for l in v.iter_mut().filter(|l| !l.trim().is_empty()) {
                    *l = if min >= 4 {
                        l[4..].to_string()
                    } else {
                        format!("    {l}")
                    };
                }
            };
            shift(&mut search);
            shift(&mut replace);
        }
        15..=22 if search.len() >= 2 => {
            tags.push("leading-blank");
            search.insert(0, String::new());
        }
        23..=28 if !search.is_empty() => {
            tags.push("stale");
            let k = rng.below(search.len());
            search[k].push_str(" # changed");
        }
        29..=32 if !search.is_empty() => {
            tags.push("trailing-ws");
            let k = rng.below(search.len());
            search[k].push_str("   ");
        }
        _ => {}
    }
    (search, replace)
}

/// A `...` block: the change, the next line, `...`, two unchanged lines further on.
fn aider_dots(lines: &[String], c: &Change) -> Option<(String, String)> {
    let end = c.start + c.old;
    if c.old == 0 || end + 4 > lines.len() {
        return None;
    }
    let tail = part(&lines[end + 2..end + 4]);
    let search = format!(
        "{}{}...\n{tail}",
        part(&lines[c.start..end]),
        part(&lines[end..=end])
    );
    let replace = format!("{}{}...\n{tail}", part(&c.new), part(&lines[end..=end]));
    Some((search, replace))
}

fn aider_case(rng: &mut Rng) -> AiderCase {
    let file = random_file(rng, 3, 30);
    let path = format!("src/m{}.py", rng.below(1000));
    let mut before = Tree::new();
    before.insert(path.clone(), (false, file.bytes()));
    let mut tags = Vec::new();
    let mut reply = String::from("Here are the changes.\n\n");
    if rng.chance(3) {
        tags.push("bom");
        reply.insert(0, '\u{feff}');
    }
    let variant = rng.below(100);
    if variant < 8 {
        tags.push("create");
        let new_path = format!("new/f{}.py", rng.below(1000));
        let content: Vec<String> = (0..1 + rng.below(5))
            .map(|_| random_line(rng, ""))
            .collect();
        reply.push_str(&aider_block(rng, Some(&new_path), "", &part(&content)));
    } else if variant < 13 {
        tags.push("append");
        let content: Vec<String> = (0..1 + rng.below(3))
            .map(|_| random_line(rng, ""))
            .collect();
        reply.push_str(&aider_block(rng, Some(&path), "", &part(&content)));
    } else {
        let multi = variant >= 85;
        let changes = random_changes(rng, &file.lines, if multi { 3 } else { 1 }, 3);
        let mut first = true;
        for c in &changes {
            let (search, replace) = match (rng.chance(8), aider_dots(&file.lines, c)) {
                (true, Some(d)) => {
                    tags.push("dots");
                    d
                }
                _ => {
                    let (s, r) = aider_texts(rng, &file.lines, c, &mut tags);
                    (part(&s), part(&r))
                }
            };
            if first || rng.chance(50) {
                reply.push_str(&aider_block(rng, Some(&path), &search, &replace));
            } else {
                tags.push("same-file-no-name");
                // In the same fence as the block before, after a blank line.
                let block = aider_block(rng, None, &search, &replace);
                if reply.ends_with("```\n") {
                    reply.truncate(reply.len() - 4);
                    reply.push('\n');
                    reply.push_str(&block);
                    reply.push_str("```\n");
                } else {
                    reply.push('\n');
                    reply.push_str(&block);
                }
            }
            first = false;
            reply.push_str("\nThat's it.\n\n");
        }
    }
    AiderCase {
        before,
        reply,
        // aider writes with one line ending (--line-endings): the edited file's; a new file
        // is written with LF, as git-clada writes it.
        crlf: file.crlf && !tags.contains(&"create"),
        tags,
    }
}

fn aider_oracle() -> std::path::PathBuf {
    aider_python().unwrap_or_else(|| {
        missing(
            "aider (the PyPI package aider-chat)",
            "run bash scripts/test, or python3 -m venv target/ci-tools/aider-venv && \
             target/ci-tools/aider-venv/bin/pip install 'aider-chat==0.86.2'; \
             CLADA_AIDER_PYTHON names another venv's python",
        )
    })
}

/// Runs every case through aider (one Python process for all) and judges git-clada's result
/// against each.
fn judge_aider(tally: &mut Tally, python: &Path, generated: &[AiderCase]) {
    let work = tempfile::tempdir().expect("tempdir");
    let mut manifest = Vec::new();
    let mut dirs = Vec::new();
    for (i, c) in generated.iter().enumerate() {
        let root = work.path().join(format!("theirs{i}"));
        std::fs::create_dir_all(&root).expect("mkdir");
        write_tree(&root, &c.before);
        let reply = work.path().join(format!("reply{i}.md"));
        std::fs::write(&reply, &c.reply).expect("write reply");
        manifest.push(serde_json::json!({
            "root": root,
            "reply": reply,
            "newline": if c.crlf { "crlf" } else { "lf" },
        }));
        dirs.push(root);
    }
    let list = work.path().join("cases.json");
    std::fs::write(&list, serde_json::to_vec(&manifest).expect("json")).expect("write");
    let driver = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/oracles/aider_apply.py");
    let out = Command::new(python)
        .arg(&driver)
        .arg(&list)
        .output()
        .expect("run the aider driver");
    assert!(
        out.status.success(),
        "aider driver failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let results: Vec<serde_json::Value> =
        serde_json::from_slice(&out.stdout).expect("driver output is JSON");
    for (i, (c, r)) in generated.iter().zip(&results).enumerate() {
        for t in &c.tags {
            tally.tag(t);
        }
        let edits = r["edits"].as_array().cloned().unwrap_or_default();
        let t_ok = r["parse_error"].is_null()
            && !edits.is_empty()
            && edits.iter().all(|e| e["ok"] == true);
        let mut theirs = read_tree(&dirs[i]);
        // Files aider creates for blocks it then fails on are not results.
        if !t_ok {
            theirs.retain(|p, (_, b)| c.before.contains_key(p) || !b.is_empty());
        }
        let case = format!("aider case {i} (tags {:?}); reply:\n{}", c.tags, c.reply);
        check_case(
            tally,
            &case,
            &c.before,
            &c.reply,
            Dialect::Auto,
            (t_ok, &theirs),
        );
    }
}

#[test]
#[cfg_attr(
    not(has_oracles),
    ignore = "needs the oracles aider-chat and @openai/codex (bash scripts/test installs them)"
)]
fn aider_search_replace_matches_aider() {
    let python = aider_oracle();
    let n = cases(CASES);
    let mut rng = Rng::new(seed());
    let generated: Vec<AiderCase> = (0..n).map(|_| aider_case(&mut rng)).collect();
    let mut tally = Tally::default();
    judge_aider(&mut tally, &python, &generated);
    tally.finish("aider SEARCH/REPLACE vs aider", n);
}

/// Hand-made replies that follow aider's rules, at the edges issue 39 found: a file without a
/// last line break, edited and appended to (aider continues its last line); a match that would
/// empty the file.
#[test]
#[cfg_attr(
    not(has_oracles),
    ignore = "needs the oracles aider-chat and @openai/codex (bash scripts/test installs them)"
)]
fn aider_hand_made_edges_match_aider() {
    let python = aider_oracle();
    let case = |file: &str, reply: &str, tag: &'static str| AiderCase {
        before: Tree::from([("a.py".to_string(), (false, file.as_bytes().to_vec()))]),
        reply: reply.to_string(),
        crlf: false,
        tags: vec![tag],
    };
    let block = |search: &str, replace: &str| {
        format!("a.py\n```python\n<<<<<<< SEARCH\n{search}=======\n{replace}>>>>>>> REPLACE\n```\n")
    };
    let mut crlf = case("a\r\nb", &block("b\n", "B\n"), "crlf");
    crlf.crlf = true;
    let generated = [
        case(
            "def f():\n    return 1",
            &block("    return 1\n", "    return 2\n"),
            "last-line",
        ),
        case("a\nb\nc", &block("a\n", "A\n"), "first-line"),
        crlf,
        case(
            "def f():\n    return 1",
            &block("", "def g():\n    return 2\n"),
            "append",
        ),
        case(
            "\nx = 1\ny = 2\n",
            &block("\nx = 1\ny = 2\n", ""),
            "emptying",
        ),
        case(
            "a = 1\nb = 2\nc = 3\nd = 4",
            &block("a = 1\n...\nd = 4\n", "a = 0\n...\nd = 5\n"),
            "dots",
        ),
    ];
    let mut tally = Tally::default();
    judge_aider(&mut tally, &python, &generated);
    let same = tally.counts.get("agree: same bytes").copied().unwrap_or(0);
    tally.finish("aider hand-made edges vs aider", generated.len());
    assert_eq!(same, generated.len(), "every edge gives aider's bytes");
}

// ---------------------------------------------------------------------------------------------
// apply_patch

struct PatchCase {
    before: Tree,
    /// The envelope as the oracle gets it.
    patch: String,
    /// The reply git-clada gets (the envelope in prose, maybe in a heredoc).
    reply: String,
    tags: Vec<&'static str>,
}

/// Typographic characters a file may have where a patch has ASCII.
fn asciify(s: &str) -> String {
    s.replace('\u{2013}', "-")
        .replace(['\u{201C}', '\u{201D}'], "\"")
}

/// The chunk for one change: an `@@` line (bare, or naming a unique earlier line), context,
/// removed and added lines; maybe perturbed.
fn codex_chunk(
    rng: &mut Rng,
    lines: &[String],
    c: &Change,
    from: usize,
    tags: &mut Vec<&'static str>,
) -> String {
    let before = (1 + rng.below(3)).min(c.start - from.min(c.start));
    let after = rng.below(4).min(lines.len() - c.start - c.old);
    let mut out = String::new();
    let anchor = (from..c.start.saturating_sub(before)).rev().find(|&k| {
        !lines[k].trim().is_empty() && lines.iter().filter(|l| **l == lines[k]).count() == 1
    });
    match anchor {
        Some(k) if rng.chance(30) => {
            tags.push("anchor");
            out.push_str(&format!("@@ {}\n", lines[k]));
        }
        _ => out.push_str("@@\n"),
    }
    let perturb = rng.below(100);
    let fix = |l: &str, rng: &mut Rng| -> String {
        match perturb {
            0..=9 => l.trim_end().to_string(),
            10..=17 if rng.chance(50) => format!("  {}", l.trim()),
            18..=25 => asciify(l),
            _ => l.to_string(),
        }
    };
    match perturb {
        0..=9 => tags.push("rstrip"),
        10..=17 => tags.push("trim"),
        18..=25 => tags.push("punct"),
        _ => {}
    }
    for l in &lines[c.start - before..c.start] {
        out.push_str(&format!(" {}\n", fix(l, rng)));
    }
    for l in &lines[c.start..c.start + c.old] {
        out.push_str(&format!("-{}\n", fix(l, rng)));
    }
    for l in &c.new {
        out.push_str(&format!("+{l}\n"));
    }
    for l in &lines[c.start + c.old..c.start + c.old + after] {
        out.push_str(&format!(" {}\n", fix(l, rng)));
    }
    if c.start + c.old + after == lines.len() && rng.chance(50) {
        tags.push("end-of-file");
        out.push_str("*** End of File\n");
    }
    out
}

fn codex_case(rng: &mut Rng) -> PatchCase {
    let file = random_file(rng, 3, 30);
    let path = format!("src/m{}.py", rng.below(1000));
    let mut before = Tree::new();
    before.insert(path.clone(), (false, file.bytes()));
    let mut tags = Vec::new();
    let mut patch = String::from("*** Begin Patch\n");
    let variant = rng.below(100);
    if variant < 8 {
        tags.push("add");
        let new_path = format!("new/f{}.txt", rng.below(1000));
        patch.push_str(&format!("*** Add File: {new_path}\n"));
        for _ in 0..1 + rng.below(4) {
            patch.push_str(&format!("+{}\n", random_line(rng, "")));
        }
    } else if variant < 13 {
        tags.push("delete");
        patch.push_str(&format!("*** Delete File: {path}\n"));
    } else {
        patch.push_str(&format!("*** Update File: {path}\n"));
        if variant < 23 {
            tags.push("move");
            patch.push_str(&format!("*** Move to: moved/m{}.py\n", rng.below(1000)));
        }
        let changes = random_changes(rng, &file.lines, 3, 4);
        let mut from = 0;
        for c in &changes {
            patch.push_str(&codex_chunk(rng, &file.lines, c, from, &mut tags));
            from = c.start + c.old;
        }
        if changes.is_empty() {
            patch.push_str("@@\n");
            patch.push_str(&format!(" {}\n", file.lines[0]));
        }
        if rng.chance(5) {
            tags.push("stale");
            patch = patch.replacen("\n-", "\n-stale ", 1);
        }
    }
    patch.push_str("*** End Patch\n");
    let mut reply = if rng.chance(20) {
        tags.push("heredoc");
        format!("Run this:\n\n```bash\napply_patch <<'EOF'\n{patch}EOF\n```\n")
    } else {
        format!("Here is the patch:\n\n{patch}\nDone.\n")
    };
    if rng.chance(3) {
        tags.push("bom");
        reply.insert(0, '\u{feff}');
    }
    PatchCase {
        before,
        patch,
        reply,
        tags,
    }
}

fn codex_oracle() -> (tempfile::TempDir, std::path::PathBuf) {
    apply_patch_bin().unwrap_or_else(|| {
        missing(
            "Codex's apply_patch (the npm package @openai/codex)",
            "run bash scripts/test, or npm install --prefix target/ci-tools/codex '@openai/codex@0.169.0'; \
             CLADA_CODEX_BIN names the binary",
        )
    })
}

/// Runs one case through Codex's apply_patch and judges git-clada's result against it.
fn judge_codex(tally: &mut Tally, bin: &Path, i: usize, c: &PatchCase) {
    for t in &c.tags {
        tally.tag(t);
    }
    let theirs_dir = dir_with(&c.before);
    let out = Command::new(bin)
        .arg(&c.patch)
        .current_dir(theirs_dir.path())
        .output()
        .expect("run apply_patch");
    let t_ok = out.status.success();
    let theirs = read_tree(theirs_dir.path());
    let case = format!(
        "apply_patch case {i} (tags {:?}); apply_patch said {}; reply:\n{}",
        c.tags,
        String::from_utf8_lossy(&out.stderr).trim(),
        c.reply
    );
    check_case(
        tally,
        &case,
        &c.before,
        &c.reply,
        Dialect::Auto,
        (t_ok, &theirs),
    );
}

#[test]
#[cfg_attr(
    not(has_oracles),
    ignore = "needs the oracles aider-chat and @openai/codex (bash scripts/test installs them)"
)]
fn apply_patch_envelopes_match_codex() {
    let (_keep, bin) = codex_oracle();
    let n = cases(CASES);
    let mut rng = Rng::new(seed() ^ 0xC0DE);
    let mut tally = Tally {
        crlf_divergence: true,
        ..Tally::default()
    };
    for i in 0..n {
        judge_codex(&mut tally, &bin, i, &codex_case(&mut rng));
    }
    tally.finish("apply_patch vs Codex", n);
}

/// Hand-made envelopes that follow Codex's rules, at the edges issue 39 found: a file without
/// a last line break; a context line that reads `*** End Patch`; the retry without a last
/// empty line, at the end of the file.
#[test]
#[cfg_attr(
    not(has_oracles),
    ignore = "needs the oracles aider-chat and @openai/codex (bash scripts/test installs them)"
)]
fn apply_patch_hand_made_edges_match_codex() {
    let (_keep, bin) = codex_oracle();
    let case = |file: &str, body: &str, tag: &'static str| {
        let patch = format!("*** Begin Patch\n*** Update File: a.txt\n{body}*** End Patch\n");
        PatchCase {
            before: Tree::from([("a.txt".to_string(), (false, file.as_bytes().to_vec()))]),
            reply: format!("The patch:\n\n{patch}\nDone.\n"),
            patch,
            tags: vec![tag],
        }
    };
    let generated = [
        case(
            "def f():\n    return 1",
            "@@\n def f():\n-    return 1\n+    return 2\n",
            "last-line",
        ),
        case("a\nb\nc", "@@\n-a\n+A\n", "first-line"),
        case("a\nb", "@@\n a\n+c\n", "pure-addition"),
        case(
            "Example:\n*** Begin Patch\n*** End Patch\nMore text.\n",
            "@@\n *** Begin Patch\n *** End Patch\n-More text.\n+Less text.\n",
            "end-patch-context",
        ),
        case(
            "x\ny\nz\n",
            "@@\n y\n z\n-\n+w\n+\n*** End of File\n",
            "retry-empty-new",
        ),
        case(
            "p\n\nq\nr\n\n\n",
            "@@\n p\n-\n q\n r\n \n@@\n \n \n+s\n+t\n*** End of File\n",
            "retry-context",
        ),
    ];
    let mut tally = Tally::default();
    for (i, c) in generated.iter().enumerate() {
        judge_codex(&mut tally, &bin, i, c);
    }
    let same = tally.counts.get("agree: same bytes").copied().unwrap_or(0);
    tally.finish("apply_patch hand-made edges vs Codex", generated.len());
    assert_eq!(same, generated.len(), "every edge gives Codex's bytes");
}

// ---------------------------------------------------------------------------------------------
// unified diffs

struct DiffCase {
    before: Tree,
    /// What the diff was made against (before the perturbations that shift lines).
    diff: String,
    reply: String,
    /// `-p` for the oracle.
    strip: usize,
    tags: Vec<&'static str>,
}

fn git(dir: &Path, home: &Path, args: &[&str]) -> std::process::Output {
    let mut cmd = Command::new("git");
    cmd.args(args).current_dir(dir);
    clean(&mut cmd, home);
    cmd.output().expect("run git")
}

/// A diff of random edits made by `git diff` in a scratch repository: modifications, and
/// sometimes a new file, a deleted one, a rename, a mode change.
fn git_diff_of(rng: &mut Rng, before: &Tree, tags: &mut Vec<&'static str>) -> (String, Tree) {
    let scratch = tempfile::tempdir().expect("tempdir");
    let home = scratch.path().join("home");
    let repo = scratch.path().join("repo");
    std::fs::create_dir_all(&home).expect("mkdir");
    std::fs::create_dir_all(&repo).expect("mkdir");
    write_tree(&repo, before);
    git(&repo, &home, &["init", "-q"]);
    git(&repo, &home, &["add", "-A"]);
    git(&repo, &home, &["commit", "-q", "-m", "before"]);
    let mut after = before.clone();
    let paths: Vec<String> = before.keys().cloned().collect();
    for p in &paths {
        let (exec, bytes) = before[p].clone();
        if p.ends_with(".bin") {
            binary_edit(rng, p, &mut after, tags);
            continue;
        }
        let text = String::from_utf8(bytes.clone()).expect("utf8");
        let crlf = text.contains("\r\n");
        let final_break = text.ends_with('\n');
        let lines: Vec<String> = text
            .split_inclusive('\n')
            .map(|l| l.trim_end_matches('\n').trim_end_matches('\r').to_string())
            .collect();
        let file = FileSpec {
            lines: lines.clone(),
            crlf,
            final_break,
        };
        match rng.below(100) {
            0..=5 => {
                tags.push("deleted-file");
                after.remove(p);
                continue;
            }
            6..=13 => {
                tags.push("rename");
                after.remove(p);
                let changes = random_changes(rng, &file.lines, 1, 3);
                let spec = FileSpec {
                    lines: apply_changes(&file.lines, &changes),
                    ..file
                };
                after.insert(format!("renamed/{p}"), (exec, spec.bytes()));
                continue;
            }
            14..=18 => {
                tags.push("mode-change");
                after.get_mut(p).expect("path").0 = !exec;
            }
            _ => {}
        }
        let changes = random_changes(rng, &file.lines, 3, 7);
        let spec = FileSpec {
            lines: apply_changes(&file.lines, &changes),
            ..file
        };
        after.get_mut(p).expect("path").1 = spec.bytes();
    }
    if rng.chance(8) {
        tags.push("new-file");
        let f = random_file(rng, 1, 6);
        after.insert(
            format!("added/n{}.txt", rng.below(1000)),
            (rng.chance(20), f.bytes()),
        );
    }
    if rng.chance(4) {
        tags.push("binary-new");
        after.insert(
            format!("added/b{}.bin", rng.below(1000)),
            (false, random_binary(rng)),
        );
    }
    for p in before.keys() {
        let _ = std::fs::remove_file(repo.join(p));
    }
    write_tree(&repo, &after);
    git(&repo, &home, &["add", "-A"]);
    let out = git(
        &repo,
        &home,
        &["diff", "--cached", "-M", "--binary", "HEAD"],
    );
    (String::from_utf8_lossy(&out.stdout).into_owned(), after)
}

/// Random bytes, NULs among them (git takes the file for binary): 20 to 4,000 of them.
fn random_binary(rng: &mut Rng) -> Vec<u8> {
    let n = 20 + rng.below(4000);
    // Runs of one byte now and then, so the bytes compress and deltas find copies.
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let b = (rng.next_u64() & 0xFF) as u8;
        let run = if rng.chance(20) { 1 + rng.below(40) } else { 1 };
        out.extend(std::iter::repeat_n(b, run));
    }
    out.truncate(n);
    out[0] = 0;
    out
}

/// A binary file changed (a few bytes replaced, inserted or cut: `git diff --binary` writes a
/// delta or a literal, whichever is smaller), deleted, or renamed.
fn binary_edit(rng: &mut Rng, p: &str, after: &mut Tree, tags: &mut Vec<&'static str>) {
    match rng.below(10) {
        0..=1 => {
            tags.push("binary-deleted");
            after.remove(p);
        }
        2 => {
            tags.push("binary-rename");
            if let Some(v) = after.remove(p) {
                after.insert(format!("renamed/{p}"), v);
            }
        }
        _ => {
            tags.push("binary-changed");
            let bytes = &mut after.get_mut(p).expect("path").1;
            for _ in 0..1 + rng.below(4) {
                let at = rng.below(bytes.len());
                match rng.below(3) {
                    0 => bytes[at] ^= 0x5A,
                    1 => {
                        let ins: Vec<u8> = (0..1 + rng.below(30)).map(|k| k as u8).collect();
                        bytes.splice(at..at, ins);
                    }
                    _ => {
                        let end = (at + 1 + rng.below(30)).min(bytes.len());
                        if end - at < bytes.len() {
                            bytes.drain(at..end);
                        }
                    }
                }
            }
        }
    }
}

/// Lines inserted above the hunks, so the diff's line numbers are stale.
fn shift_lines(rng: &mut Rng, before: &mut Tree, tags: &mut Vec<&'static str>) {
    for (p, (_, bytes)) in before.iter_mut() {
        if p.ends_with(".bin") {
            continue;
        }
        let text = String::from_utf8(bytes.clone()).expect("utf8");
        let eol = if text.contains("\r\n") { "\r\n" } else { "\n" };
        let extra: String = (0..1 + rng.below(5))
            .map(|k| format!("# inserted line {k} {}{eol}", rng.below(100_000)))
            .collect();
        *bytes = format!("{extra}{text}").into_bytes();
    }
    tags.push("stale-line-numbers");
}

fn diff_case(rng: &mut Rng) -> DiffCase {
    let mut before = Tree::new();
    for k in 0..1 + rng.below(2) {
        let f = random_file(rng, 4, 40);
        before.insert(
            format!("src/f{k}_{}.py", rng.below(1000)),
            (rng.chance(10), f.bytes()),
        );
    }
    if rng.chance(10) {
        before.insert(
            format!("assets/b{}.bin", rng.below(1000)),
            (false, random_binary(rng)),
        );
    }
    let mut tags = Vec::new();
    let (mut diff, _) = git_diff_of(rng, &before, &mut tags);
    while diff.is_empty() {
        tags.clear();
        diff = git_diff_of(rng, &before, &mut tags).0;
    }
    let mut strip = 1;
    match rng.below(100) {
        0..=11 => shift_lines(rng, &mut before, &mut tags),
        12..=19 => {
            tags.push("wrong-counts");
            diff = diff
                .split_inclusive('\n')
                .map(|l| {
                    if l.starts_with("@@ -") {
                        l.replacen(" @@", "9 @@", 1)
                    } else {
                        l.to_string()
                    }
                })
                .collect();
        }
        20..=29 if plain(&diff) => {
            tags.push("no-git-header");
            diff = diff
                .split_inclusive('\n')
                .filter(|l| !l.starts_with("diff --git ") && !l.starts_with("index "))
                .collect();
        }
        30..=36 if plain(&diff) => {
            tags.push("no-prefix");
            strip = 0;
            diff = diff
                .split_inclusive('\n')
                .filter(|l| !l.starts_with("diff --git ") && !l.starts_with("index "))
                .map(|l| {
                    l.replacen("--- a/", "--- ", 1)
                        .replacen("+++ b/", "+++ ", 1)
                })
                .collect();
        }
        37..=44 => {
            tags.push("trailing-ws-stripped");
            diff = diff
                .split_inclusive('\n')
                .map(|l| {
                    if l.starts_with(' ') {
                        let (body, end) = split_eol(l);
                        format!("{}{end}", body.trim_end())
                    } else {
                        l.to_string()
                    }
                })
                .collect();
        }
        45..=50 if diff.contains('\r') => {
            tags.push("crs-dropped");
            diff = diff.replace("\r\n", "\n");
        }
        51..=54 => {
            // A reply that ended mid-hunk: the diff up to a line inside its last hunk, a
            // removed or added line (`git apply` and GNU `patch` refuse it).
            let lines: Vec<&str> = diff.split_inclusive('\n').collect();
            let last_hunk = lines.iter().rposition(|l| l.starts_with("@@ "));
            let cut = last_hunk.and_then(|h| {
                (h + 1..lines.len())
                    .filter(|&k| lines[k].starts_with('-') || lines[k].starts_with('+'))
                    .find(|&k| lines.get(k + 1).is_some_and(|n| !n.starts_with('\\')))
            });
            if let Some(k) = cut {
                tags.push("cut-off");
                diff = lines[..=k].concat();
            }
        }
        _ => {}
    }
    let mut reply = if rng.chance(60) {
        tags.push("fenced");
        format!("The change:\n\n```diff\n{diff}```\n\nApply it.\n")
    } else {
        diff.clone()
    };
    if rng.chance(3) {
        tags.push("bom");
        reply.insert(0, '\u{feff}');
    }
    DiffCase {
        before,
        diff,
        reply,
        strip,
        tags,
    }
}

/// Whether a diff has none of what the header-dropping perturbations would break (renames,
/// modes, binary patches).
fn plain(diff: &str) -> bool {
    !diff.contains("rename from") && !diff.contains("mode ") && !diff.contains("GIT binary patch")
}

fn split_eol(l: &str) -> (&str, &str) {
    if let Some(b) = l.strip_suffix("\r\n") {
        (b, "\r\n")
    } else if let Some(b) = l.strip_suffix('\n') {
        (b, "\n")
    } else {
        (l, "")
    }
}

fn diff_oracles() {
    if !have("git") {
        missing("git", "install git");
    }
    // GNU patch is the second opinion where git apply gives up: required, not optional.
    if !have("patch") {
        missing("GNU patch", "install the patch package");
    }
}

/// Runs one case through `git apply` (GNU `patch --fuzz=0` where git gives up) and judges
/// git-clada's result against it.
fn judge_git_apply(tally: &mut Tally, home: &Path, i: usize, c: &DiffCase) {
    for t in &c.tags {
        tally.tag(t);
    }
    let theirs_dir = dir_with(&c.before);
    let diff_file = home.join("case.diff");
    std::fs::write(&diff_file, &c.diff).expect("write diff");
    let p = format!("-p{}", c.strip);
    let out = git(
        theirs_dir.path(),
        home,
        &["apply", &p, &diff_file.to_string_lossy()],
    );
    let mut t_ok = out.status.success();
    let mut oracle = "git apply";
    if !t_ok {
        // GNU patch, without fuzz: what it applies exactly is a second opinion.
        let alt = dir_with(&c.before);
        let st = Command::new("patch")
            .args([
                p.as_str(),
                "-s",
                "-f",
                "--fuzz=0",
                "--no-backup-if-mismatch",
                "-r",
                "-",
                "-i",
            ])
            .arg(&diff_file)
            .current_dir(alt.path())
            .output()
            .expect("run patch");
        if st.status.success() {
            t_ok = true;
            oracle = "GNU patch --fuzz=0";
            write_back(theirs_dir.path(), alt.path());
        }
    }
    let theirs = read_tree(theirs_dir.path());
    let case = format!(
        "diff case {i} (tags {:?}); oracle {oracle}: {}; reply:\n{}",
        c.tags,
        String::from_utf8_lossy(&out.stderr).trim(),
        c.reply
    );
    check_case(
        tally,
        &case,
        &c.before,
        &c.reply,
        Dialect::Only(Format::DIFF),
        (t_ok, &theirs),
    );
}

#[test]
#[cfg_attr(not(has_patch), ignore = "needs GNU patch")]
fn unified_diffs_match_git_apply() {
    diff_oracles();
    let n = cases(CASES);
    let mut rng = Rng::new(seed() ^ 0xD1FF);
    let mut tally = Tally::default();
    let home = tempfile::tempdir().expect("home");
    for i in 0..n {
        judge_git_apply(&mut tally, home.path(), i, &diff_case(&mut rng));
    }
    tally.finish("unified diff vs git apply", n);
}

/// The diff `git diff --binary` makes from `before` to `after` (`-M`, staged).
fn diff_between(before: &Tree, after: &Tree) -> String {
    let scratch = tempfile::tempdir().expect("tempdir");
    let home = scratch.path().join("home");
    let repo = scratch.path().join("repo");
    std::fs::create_dir_all(&home).expect("mkdir");
    std::fs::create_dir_all(&repo).expect("mkdir");
    write_tree(&repo, before);
    git(&repo, &home, &["init", "-q"]);
    git(&repo, &home, &["add", "-A"]);
    git(&repo, &home, &["commit", "-q", "-m", "before"]);
    for p in before.keys() {
        let _ = std::fs::remove_file(repo.join(p));
    }
    write_tree(&repo, after);
    git(&repo, &home, &["add", "-A"]);
    let out = git(
        &repo,
        &home,
        &["diff", "--cached", "-M", "--binary", "HEAD"],
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Hand-made changes at the edges issue 39 found, diffed by git: a removed `-- x` and an added
/// `++ y` (`--- x` / `+++ y` in the hunk), binary files (delta, literal, deleted), a last line
/// break added and removed, a reply cut off mid-hunk, a reply with a byte order mark.
#[test]
#[cfg_attr(not(has_patch), ignore = "needs GNU patch")]
fn unified_diff_hand_made_edges_match_git_apply() {
    diff_oracles();
    let file = |p: &str, b: &[u8]| (p.to_string(), (false, b.to_vec()));
    let mut rng = Rng::new(39);
    let big = random_binary(&mut rng);
    let mut changed = big.clone();
    changed.splice(10..12, [7u8; 9]);
    let pairs: Vec<(&'static str, Tree, Tree)> = vec![
        (
            "markup-lines",
            Tree::from([file("n.txt", b"a\n-- x\nb\n")]),
            Tree::from([file("n.txt", b"a\n++ y\nb\n")]),
        ),
        (
            "binary",
            Tree::from([
                file("i.bin", &big),
                file(".DS_Store", &random_binary(&mut rng)),
            ]),
            Tree::from([
                file("i.bin", &changed),
                file("new.bin", &random_binary(&mut rng)),
            ]),
        ),
        (
            "last-break-added",
            Tree::from([file("a.txt", b"x\ny")]),
            Tree::from([file("a.txt", b"x\nz\n")]),
        ),
        (
            "last-break-removed",
            Tree::from([file("a.txt", b"x\ny\n")]),
            Tree::from([file("a.txt", b"x\nz")]),
        ),
    ];
    let mut generated: Vec<DiffCase> = pairs
        .into_iter()
        .map(|(tag, before, after)| {
            let diff = diff_between(&before, &after);
            DiffCase {
                before,
                reply: format!("```diff\n{diff}```\n"),
                diff,
                strip: 1,
                tags: vec![tag],
            }
        })
        .collect();
    // The first one's diff cut off after its removed line (`--- x`), and the second's reply
    // with a BOM.
    let cut: String = generated[0].diff.split_inclusive('\n').take(7).collect();
    assert!(cut.ends_with("\n a\n--- x\n"), "{cut}");
    generated.push(DiffCase {
        before: generated[0].before.clone(),
        reply: format!("```diff\n{cut}```\n"),
        diff: cut,
        strip: 1,
        tags: vec!["cut-off"],
    });
    generated[1].reply.insert(0, '\u{feff}');
    let home = tempfile::tempdir().expect("home");
    let mut tally = Tally::default();
    for (i, c) in generated.iter().enumerate() {
        judge_git_apply(&mut tally, home.path(), i, c);
    }
    let same = tally.counts.get("agree: same bytes").copied().unwrap_or(0);
    let refused = tally
        .counts
        .get("agree: both fail (git-clada explains)")
        .copied()
        .unwrap_or(0);
    tally.finish("unified diff hand-made edges vs git apply", generated.len());
    assert_eq!((same, refused), (generated.len() - 1, 1));
}

/// Replaces the files of `dst` by those of `src`.
fn write_back(dst: &Path, src: &Path) {
    for p in read_tree(dst).keys() {
        let _ = std::fs::remove_file(dst.join(p));
    }
    write_tree(dst, &read_tree(src));
}
