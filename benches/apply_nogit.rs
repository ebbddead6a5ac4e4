//! `apply --no-git` as a library call: a generated 200-block reply editing 50 files in a temp
//! directory (parse + plan + execute, real writes), the same reply as a dry run, 10,000
//! appends to one file (issue 10: once quadratic), and the
//! not-found hint of a 50-line old_text against a 5,000-line file (DESIGN §8 asks for well
//! under 100 ms).

use std::fmt::Write as _;
use std::hint::black_box;
use std::path::Path;

use clada_engine::action::{self, textmatch, EngineOptions};
use clada_engine::sandbox::Sandbox;
use clada_read::Dialect;
use criterion::{criterion_group, criterion_main, BatchSize, Criterion};

const FILES: usize = 50;
const LINES: usize = 120;

fn file_text(f: usize) -> String {
    let mut s = String::new();
    for l in 1..=LINES {
        let _ = writeln!(s, "    let value_{f}_{l} = compute({f}, {l}); // line {l}");
    }
    s
}

fn nesl(id: &str, params: &[(&str, String)]) -> String {
    let mut s = format!("#!nesl [@three-char-SHA-256: {id}]\n");
    for (k, v) in params {
        if v.contains('\n') {
            let _ = writeln!(s, "{k} = <<'EOT_{id}'\n{v}\nEOT_{id}");
        } else {
            let _ = writeln!(s, "{k} = {}", serde_json::to_string(v).unwrap_or_default());
        }
    }
    let _ = writeln!(s, "#!end_{id}\n");
    s
}

/// 200 blocks over 50 files: per file a replace_text, two replace_lines (original numbering),
/// and an edit or an append.
fn reply() -> String {
    let mut s = String::from("Here are the changes.\n\n");
    for f in 0..FILES {
        let path = format!("src/mod_{f}.rs");
        s.push_str(&nesl(
            &format!("t{f}"),
            &[
                ("action", "file_replace_text".into()),
                ("path", path.clone()),
                ("old_text", format!("compute({f}, 10); // line 10")),
                (
                    "new_text",
                    format!("compute_fast({f}, 10); // line 10\n    audit({f});"),
                ),
            ],
        ));
        s.push_str(&nesl(
            &format!("l{f}"),
            &[
                ("action", "file_replace_lines".into()),
                ("path", path.clone()),
                ("lines", "40-42".into()),
                (
                    "new_content",
                    format!("    // lines 40-42 of file {f} replaced\n    let merged = 0;"),
                ),
            ],
        ));
        s.push_str(&nesl(
            &format!("m{f}"),
            &[
                ("action", "file_replace_lines".into()),
                ("path", path.clone()),
                ("lines", "90".into()),
                ("new_content", format!("    let value_{f}_90 = 0;")),
            ],
        ));
        if f % 2 == 0 {
            s.push_str(&nesl(
                &format!("e{f}"),
                &[
                    ("action", "file_edit".into()),
                    ("path", path.clone()),
                    ("old_text", format!("value_{f}_100 ")),
                    ("new_text", format!("value_{f}_hundred ")),
                ],
            ));
        } else {
            s.push_str(&nesl(
                &format!("a{f}"),
                &[
                    ("action", "file_append".into()),
                    ("path", path.clone()),
                    ("content", "// appended\n".into()),
                ],
            ));
        }
    }
    s
}

fn populate(root: &Path) {
    let src = root.join("src");
    let _ = std::fs::create_dir_all(&src);
    for f in 0..FILES {
        let _ = std::fs::write(src.join(format!("mod_{f}.rs")), file_text(f));
    }
}

fn apply(root: &Path, text: &str, dry_run: bool) -> action::Execution {
    let sandbox = match Sandbox::new(root, false) {
        Ok(s) => s,
        Err(e) => panic!("sandbox: {e}"),
    };
    let plan = action::plan(&clada_read::parse(text, Dialect::Auto), &sandbox);
    let opts = EngineOptions {
        dry_run,
        ..EngineOptions::default()
    };
    action::execute(&plan, &sandbox, &opts)
}

fn benches(c: &mut Criterion) {
    let text = reply();
    // Sanity: every block succeeds, so the benchmark measures the successful path.
    {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("temp: {e}"));
        populate(dir.path());
        let out = apply(dir.path(), &text, false);
        assert_eq!(out.result.results.len(), 200);
        assert!(
            out.result.success,
            "{:#?}",
            out.result.results.iter().find(|r| !r.success)
        );
    }

    c.bench_function("apply_nogit/200_blocks_50_files", |b| {
        b.iter_batched(
            || {
                let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("temp: {e}"));
                populate(dir.path());
                dir
            },
            // The temp dir is returned so that deleting it is not timed.
            |dir| {
                let out = apply(dir.path(), &text, false);
                (dir, black_box(out))
            },
            BatchSize::PerIteration,
        )
    });

    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("temp: {e}"));
    populate(dir.path());
    c.bench_function("apply_nogit/200_blocks_50_files_dry_run", |b| {
        b.iter(|| black_box(apply(dir.path(), &text, true)))
    });

    c.bench_function("parse_and_plan/200_blocks", |b| {
        let sandbox = Sandbox::new(dir.path(), false).unwrap_or_else(|e| panic!("{e}"));
        b.iter(|| {
            black_box(action::plan(
                &clada_read::parse(&text, Dialect::Auto),
                &sandbox,
            ))
        })
    });

    // 10,000 appends to one file: linear (each append costs its own text, not the file's).
    let appends: String = (0..10_000)
        .map(|i| {
            nesl(
                &format!("p{i}"),
                &[
                    ("action", "file_append".into()),
                    ("path", "log.txt".into()),
                    ("content", format!("appended line {i}\n")),
                ],
            )
        })
        .collect();
    c.bench_function("apply_nogit/10k_appends_one_file", |b| {
        b.iter_batched(
            || {
                let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("temp: {e}"));
                let _ = std::fs::write(dir.path().join("log.txt"), "start\n");
                dir
            },
            |dir| {
                let out = apply(dir.path(), &appends, false);
                assert!(out.result.success);
                (dir, black_box(out))
            },
            BatchSize::PerIteration,
        )
    });

    // Hint speed: 50 lines of old_text, one line changed, against a 5,000-line file.
    let mut big = String::new();
    for l in 0..5000 {
        let _ = writeln!(
            big,
            "    let item_{l} = table.lookup(\"key_{}\", {l}) + offset;",
            l % 97
        );
    }
    let old: String = big
        .lines()
        .skip(3200)
        .take(50)
        .enumerate()
        .map(|(i, l)| {
            if i == 25 {
                l.replace("offset", "ofset")
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    let found = textmatch::closest(big.as_bytes(), &old);
    assert_eq!(found.map(|c| c.start_line), Some(3201));
    c.bench_function("hint/closest_50_lines_in_5000", |b| {
        b.iter(|| black_box(textmatch::closest(big.as_bytes(), &old)))
    });
    // Worst case for the prefilter: no line of old_text occurs in the file.
    let unrelated: String = (0..50)
        .map(|i| format!("fn unrelated_{i}(x: u32) -> u32 {{ x * {i} }}"))
        .collect::<Vec<_>>()
        .join("\n");
    c.bench_function("hint/closest_50_unrelated_lines_in_5000", |b| {
        b.iter(|| black_box(textmatch::closest(big.as_bytes(), &unrelated)))
    });
    // A near miss whose only line shared with the file is `}`, at the end of 20,000 lines of
    // small functions: found by the trigram ranking, not by shared lines.
    let mut funcs = String::new();
    for i in 0..4000 {
        let _ = write!(
            funcs,
            "fn handler_{i}(req: &Request) -> Response {{\n    let body = req.body();\n    Response::ok(body)\n}}\n\n"
        );
    }
    funcs.push_str("fn upload(req: &Request) -> Response {\n    let payload = req.bytes();\n    storage::save(payload)\n}\n");
    let near = "fn upload(request: &Request) -> Response {\n    let data = request.bytes();\n    storage::save(data)\n}\n";
    let found = textmatch::closest(funcs.as_bytes(), near);
    assert_eq!(found.map(|c| c.start_line), Some(20001));
    c.bench_function("hint/closest_brace_only_near_miss_in_20000", |b| {
        b.iter(|| black_box(textmatch::closest(funcs.as_bytes(), near)))
    });
}

criterion_group!(name = engine; config = Criterion::default().sample_size(20); targets = benches);
criterion_main!(engine);
