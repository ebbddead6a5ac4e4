//! Parser throughput: (a) a realistic ~1 MB LLM reply (markdown prose, ~200 blocks in the
//! three spellings with multi-line heredocs of code), (b) the same shape at 50 MiB, the
//! largest reply `git clada` accepts, (c) 1,000,000 tiny blocks, and (d) a 10 MB reply of the
//! same shape per format (SHAM/NESL, CSL, CML, replacer: the same prose and the same file
//! contents, only the block syntax differs), parsed in auto mode, and (e) inputs built to make
//! the aider, apply_patch and diff front ends quadratic, at 1 and 8 MiB (`parse_adversarial`:
//! linear time is the same throughput at both sizes). Inputs are generated deterministically
//! so runs are comparable.

use std::fmt::Write as _;
use std::hint::black_box;

use clada_read::Dialect;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};

/// A small deterministic generator (64-bit LCG); quality does not matter, repeatability does.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len() as u64) as usize]
    }
}

const WORDS: &[&str] = &[
    "the",
    "parser",
    "reads",
    "each",
    "line",
    "once",
    "and",
    "keeps",
    "blocks",
    "in",
    "order",
    "so",
    "that",
    "errors",
    "point",
    "at",
    "exact",
    "columns",
    "we",
    "change",
    "function",
    "because",
    "tests",
    "need",
    "a",
    "clearer",
    "result",
    "with",
    "`Vec<String>`",
    "**bold**",
    "überall",
    "naïve",
    "日本語",
    "→",
];

const CODE: &[&str] = &[
    "fn main() {",
    "    let mut total = 0usize;",
    "    for (i, line) in text.lines().enumerate() {",
    "        if line.trim().is_empty() { continue; }",
    "        total += line.len() * i;",
    "    }",
    "    println!(\"{total} = {:?}\", items);",
    "}",
    "def handler(event, context):",
    "    return {\"status\": 200, \"body\": json.dumps(event)}",
    "    # key = \"value\" inside a heredoc is content",
    "const x = a => a * 2; // => arrows are fine here",
    "",
    "\tindented_with_tab = true;",
];

fn prose(rng: &mut Rng, out: &mut String) {
    match rng.below(4) {
        0 => {
            let _ = writeln!(out, "## Step {}\n", rng.below(100));
        }
        1 => {
            for _ in 0..1 + rng.below(4) {
                out.push_str("- ");
                for _ in 0..3 + rng.below(8) {
                    out.push_str(rng.pick(WORDS));
                    out.push(' ');
                }
                out.push('\n');
            }
            out.push('\n');
        }
        _ => {
            for _ in 0..40 + rng.below(120) {
                out.push_str(rng.pick(WORDS));
                out.push(' ');
            }
            out.push_str("\n\n");
        }
    }
}

/// The block syntax of the per-format benchmark.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Fmt {
    Sham,
    Csl,
    Cml,
    Replacer,
}

/// One write block of ~40–120 code lines in format `f`.
fn block_in(f: Fmt, rng: &mut Rng, n: usize, out: &mut String) {
    if f == Fmt::Sham {
        return block(rng, n, out);
    }
    let path = format!("src/module_{n}/file\u{e9}.rs");
    let mut code = String::new();
    for _ in 0..40 + rng.below(80) {
        code.push_str(rng.pick(CODE));
        code.push('\n');
    }
    match f {
        Fmt::Csl => {
            let _ = write!(out, "<---WRITE file=\"{path}\"--->\n{code}<---END--->\n\n");
        }
        Fmt::Cml => {
            let _ = write!(
                out,
                "```xml\n<tasks version=\"1.0\">\n  <write path=\"{path}\"><![CDATA[{code}]]></write>\n</tasks>\n```\n\n"
            );
        }
        Fmt::Replacer | Fmt::Sham => {
            let _ = write!(
                out,
                "<<<EXPLANATION>>>\nwhy\n<<<FILE>>>\n{path}\n<<<OVERWRITE>>>\n{code}<<<END>>>\n\n"
            );
        }
    }
}

fn block(rng: &mut Rng, n: usize, out: &mut String) {
    let id = format!("b{:x}", n % 0xfff_ffff);
    let (header, end, eot) = match n % 3 {
        0 => (
            format!("#!SHAM [@three-char-SHA-256: {id}]"),
            format!("#!END_SHAM_{id}"),
            format!("EOT_SHAM_{id}"),
        ),
        1 => (
            format!("#!NESL [@three-char-SHA-256: {id}]"),
            format!("#!END_NESL_{id}"),
            format!("EOT_NESL_{id}"),
        ),
        _ => (
            format!("#!nesl [@three-char-SHA-256: {id}]"),
            format!("#!end_{id}"),
            format!("EOT_{id}"),
        ),
    };
    out.push_str("```sh nesl\n");
    let _ = writeln!(out, "{header}");
    let _ = writeln!(out, "action = \"file_write\"");
    let _ = writeln!(out, "path = \"src/module_{n}/file\\u00e9.rs\"");
    let _ = writeln!(out, "content = <<'{eot}'");
    for _ in 0..40 + rng.below(80) {
        out.push_str(rng.pick(CODE));
        out.push('\n');
    }
    let _ = writeln!(out, "{eot}");
    let _ = writeln!(out, "{end}");
    out.push_str("```\n\n");
}

/// A reply of about `size` bytes: prose with a block every ~5 KB.
fn reply(size: usize) -> String {
    reply_in(Fmt::Sham, size)
}

/// A reply of about `size` bytes with its blocks in format `f`.
fn reply_in(f: Fmt, size: usize) -> String {
    let mut rng = Rng(0x5eed);
    let mut out = String::with_capacity(size + 4096);
    let mut n = 0;
    while out.len() < size {
        prose(&mut rng, &mut out);
        if rng.below(5) == 0 {
            block_in(f, &mut rng, n, &mut out);
            n += 1;
        }
    }
    out
}

fn tiny_blocks(count: usize) -> String {
    let mut out = String::with_capacity(count * 40);
    for i in 0..count {
        let _ = write!(out, "#!nesl [@x: b{i:06}]\nk = \"v\"\n#!end_b{i:06}\n");
    }
    out
}

fn bench(c: &mut Criterion) {
    let realistic = reply(1 << 20);
    let check = clada_read::parse(&realistic, Dialect::Auto);
    assert!(check.errors.is_empty(), "generator made an invalid reply");
    let mut g = c.benchmark_group("parse");
    g.throughput(Throughput::Bytes(realistic.len() as u64));
    g.bench_function(
        format!("realistic_1MB_{}_blocks", check.blocks.len()),
        |b| b.iter(|| clada_read::parse(black_box(&realistic), Dialect::Auto)),
    );
    g.finish();

    let mut g = c.benchmark_group("parse_formats_10MB");
    g.sample_size(10);
    for f in [Fmt::Sham, Fmt::Csl, Fmt::Cml, Fmt::Replacer] {
        let text = reply_in(f, 10 << 20);
        let check = clada_read::parse(&text, Dialect::Auto);
        assert!(
            check.errors.is_empty() && !check.blocks.is_empty(),
            "generator made an invalid {f:?} reply"
        );
        g.throughput(Throughput::Bytes(text.len() as u64));
        g.bench_function(format!("{f:?}_{}_blocks", check.blocks.len()), |b| {
            b.iter(|| clada_read::parse(black_box(&text), Dialect::Auto))
        });
    }
    g.finish();

    let big = reply(50 << 20);
    let tiny = tiny_blocks(1_000_000);
    let mut g = c.benchmark_group("parse_large");
    g.sample_size(10);
    g.throughput(Throughput::Bytes(big.len() as u64));
    g.bench_function("realistic_50MiB", |b| {
        b.iter(|| clada_read::parse(black_box(&big), Dialect::Auto))
    });
    g.throughput(Throughput::Bytes(tiny.len() as u64));
    g.bench_function("tiny_blocks_1M", |b| {
        b.iter(|| clada_read::parse(black_box(&tiny), Dialect::Auto))
    });
    g.finish();
}

/// Inputs built to make a careless front end quadratic: each is one unit repeated until the
/// text has `size` bytes (a prefix and suffix around the repetition where the unit needs one).
/// Linear time shows as the same throughput at 1 MiB and 8 MiB.
fn adversarial(size: usize) -> Vec<(&'static str, String)> {
    let repeat = |pre: &str, unit: &str, post: &str| {
        let mut s = String::with_capacity(size + pre.len() + post.len());
        s.push_str(pre);
        while s.len() < size {
            s.push_str(unit);
        }
        s.push_str(post);
        s
    };
    vec![
        (
            "aider_heads_without_name",
            repeat("", "<<<<<<< SEARCH\n", ""),
        ),
        (
            "aider_heads_inside_a_block",
            repeat("a.py\n", "<<<<<<< SEARCH\nx\n", ""),
        ),
        (
            "aider_unclosed_block",
            repeat("a.py\n<<<<<<< SEARCH\n", "line\n", ""),
        ),
        (
            "aider_many_blocks",
            repeat(
                "",
                "a.py\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n",
                "",
            ),
        ),
        ("patch_unclosed_begins", repeat("", "*** Begin Patch\n", "")),
        (
            "patch_empty_envelopes",
            repeat("", "*** Begin Patch\n*** End Patch\n", ""),
        ),
        (
            "patch_heredoc_lines",
            repeat("", "apply_patch <<'EOF'\n", ""),
        ),
        (
            "patch_many_chunks",
            repeat(
                "*** Begin Patch\n*** Update File: a\n",
                "@@\n-x\n+y\n",
                "*** End Patch\n",
            ),
        ),
        (
            "diff_headers_without_hunks",
            repeat("", "--- a/x\n+++ b/x\n", ""),
        ),
        ("diff_git_lines", repeat("", "diff --git a/x b/x\n", "")),
        (
            "diff_blank_run_in_a_hunk",
            repeat("--- a/x\n+++ b/x\n@@ -1 +1 @@\n", "\n", " x\n"),
        ),
        (
            "diff_overcounted_hunk",
            repeat(
                "--- a/x\n+++ b/x\n@@ -1,99999999 +1,99999999 @@\n",
                " x\n",
                "",
            ),
        ),
        (
            "diff_many_hunks",
            repeat("--- a/x\n+++ b/x\n", "@@ -1 +1 @@\n-a\n+b\n", ""),
        ),
    ]
}

fn bench_adversarial(c: &mut Criterion) {
    let mut g = c.benchmark_group("parse_adversarial");
    g.sample_size(10);
    for size in [1 << 20, 8 << 20] {
        for (name, text) in adversarial(size) {
            g.throughput(Throughput::Bytes(text.len() as u64));
            g.bench_function(format!("{name}_{}MiB", size >> 20), |b| {
                b.iter(|| clada_read::parse(black_box(&text), Dialect::Auto))
            });
        }
    }
    g.finish();
}

criterion_group!(benches, bench, bench_adversarial);
criterion_main!(benches);
