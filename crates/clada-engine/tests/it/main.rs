//! The engine's own tests, through its library alone (no binary, no front end), in one test
//! binary: replies planned and executed against real directories (`engine_api`, the cases of
//! `test-data` in `engine_cases`, the sandbox's refusals in `engine_sandbox`, random replies in
//! `prop_formats`) and the path-component rules checked against gix's (`gitname`).
//! `engine_support` runs a reply through the library; the front ends' test binary
//! (`tests/cli`) shares it. Run one file's tests with
//! `cargo nextest run -p clada-engine -E 'test(/^<module>::/)'`.

mod engine_api;
mod engine_cases;
mod engine_sandbox;
mod engine_support;
mod gitname;
mod prop_formats;

/// No test file is left out of the binary: every `*.rs` beside this one is a module here, and
/// no test file sits beside `it/` (each would be a binary of its own).
#[test]
fn every_test_file_is_a_module_of_this_binary() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it");
    let main = std::fs::read_to_string(dir.join("main.rs")).expect("main.rs");
    let names = |d: &std::path::Path| -> Vec<String> {
        std::fs::read_dir(d)
            .expect("a test folder")
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".rs"))
            .collect()
    };
    let missing: Vec<_> = names(&dir)
        .into_iter()
        .filter_map(|n| n.strip_suffix(".rs").map(str::to_string))
        .filter(|m| m != "main" && !main.lines().any(|l| l == format!("mod {m};")))
        .collect();
    assert!(
        missing.is_empty(),
        "not declared in tests/it/main.rs: {missing:?}"
    );
    let outside = names(dir.parent().expect("tests"));
    assert!(
        outside.is_empty(),
        "test files outside tests/it: {outside:?}"
    );
}
