//! The forms that run a worktree file, the ones that name none, and the ones that cannot be
//! read with certainty.

use super::*;

/// A worktree with the files the forms name.
fn tree() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    let r = d.path();
    for dir in [
        "scripts",
        "sub",
        "bin",
        "pkg/tool",
        "node_modules/.bin",
        "node_modules/eslint",
        "venv/bin",
    ] {
        std::fs::create_dir_all(r.join(dir)).unwrap();
    }
    for f in [
        "scripts/check.sh",
        "x",
        "t.sh",
        "t.py",
        "app.js",
        "hook.js",
        "Makefile",
        "sub/x",
        "bin/mytool",
        "pkg/tool/__main__.py",
        "prog.awk",
        "Main.java",
        "main.go",
        "env.sh",
        "node_modules/eslint/cli.js",
        "venv/bin/pytest",
        "venv/bin/activate",
    ] {
        std::fs::write(r.join(f), "x").unwrap();
    }
    std::os::unix::fs::symlink("../eslint/cli.js", r.join("node_modules/.bin/eslint")).unwrap();
    d
}

fn read(r: &Path, code: &str) -> Reading<String> {
    let found = named_files(code, r, r);
    Reading {
        files: found.files.into_iter().map(|(p, _)| p).collect(),
        uncertain: found.uncertain,
    }
}

#[test]
fn the_forms_that_run_a_worktree_file() {
    let d = tree();
    let r = d.path();
    for (code, want) in [
        ("bash scripts/check.sh", &["scripts/check.sh"][..]),
        ("sh -e x", &["x"]),
        ("./x --fast", &["x"]),
        ("python3 -u t.py && node app.js", &["t.py", "app.js"]),
        ("FOO=1 ./scripts/check.sh | tee log", &["scripts/check.sh"]),
        // Issue 51 §8: wrappers, -c strings, a shell's input, cd.
        ("timeout 60 ./t.sh", &["t.sh"]),
        ("timeout -s KILL --kill-after=5 60 ./t.sh", &["t.sh"]),
        ("nice ./t.sh", &["t.sh"]),
        ("nice -n 5 ./t.sh", &["t.sh"]),
        ("time ./t.sh", &["t.sh"]),
        ("time -p bash t.sh", &["t.sh"]),
        ("nohup ./t.sh &", &["t.sh"]),
        ("env -i ./t.sh", &["t.sh"]),
        ("env -i PATH=/usr/bin A=1 ./t.sh", &["t.sh"]),
        ("env -C sub ./x", &["sub/x"]),
        ("exec ./t.sh", &["t.sh"]),
        ("command ./t.sh", &["t.sh"]),
        ("stdbuf -oL ./t.sh", &["t.sh"]),
        ("timeout 5 nice -n 2 env -i ./t.sh", &["t.sh"]),
        ("bash -c ./t.sh", &["t.sh"]),
        // A `cd` adds its folder to those before it (it may fail): both are bound.
        ("bash -ec 'cd sub && ./x'", &["x", "sub/x"]),
        ("sh -c \"timeout 5 ./t.sh\"", &["t.sh"]),
        ("bash <t.sh", &["t.sh"]),
        ("bash -s < t.sh", &["t.sh"]),
        ("sh 0< t.sh 2>&1", &["t.sh"]),
        ("cat t.sh | bash", &["t.sh"]),
        ("cat t.sh | timeout 9 sh -s", &["t.sh"]),
        ("bash <<'EOF'\n./t.sh\nEOF", &["t.sh"]),
        ("bash <<< './t.sh'", &["t.sh"]),
        ("python3 < t.py", &["t.py"]),
        ("cd sub && ./x", &["x", "sub/x"]),
        ("cd sub; ./t.sh", &["t.sh"]),
        (
            "(cd sub && ./x) && cd sub && ./t.sh",
            &["x", "sub/x", "t.sh"],
        ),
        ("echo $(./t.sh) `./x`", &["t.sh", "x"]),
        ("diff <(./t.sh) <(./x)", &["t.sh", "x"]),
        ("if ./t.sh; then ! ./x; fi", &["t.sh", "x"]),
        ("[ -f x ] && ./x || echo none", &["x"]),
        ("f() { ./t.sh; }; f", &["t.sh"]),
        ("set -e\ncd sub\n./t.sh\n", &["t.sh"]),
        ("for f in a b; do ./t.sh $f; done", &["t.sh"]),
        // Interpreters' options: the value is not the file, the file is.
        ("python3 -W ignore t.py", &["t.py"]),
        ("python -m pkg.tool", &["pkg/tool/__main__.py"]),
        ("node -r ./hook.js app.js", &["hook.js", "app.js"]),
        ("node --require=./hook.js -e 1", &["hook.js"]),
        ("awk -f prog.awk t.py", &["prog.awk"]),
        ("java Main.java", &["Main.java"]),
        ("go run main.go", &["main.go"]),
        ("deno run -A app.js", &["app.js"]),
        ("source env.sh && . ./env.sh", &["env.sh"]),
        ("BASH_ENV=env.sh bash -c true", &["env.sh"]),
        ("npx eslint .", &["node_modules/eslint/cli.js"]),
        ("npx tsx app.js", &["app.js"]),
        ("npm exec -- eslint src", &["node_modules/eslint/cli.js"]),
        ("PATH=./bin:$PATH mytool", &["bin/mytool"]),
        ("PATH=./bin mytool; mytool", &["bin/mytool"]),
        ("find . -name '*.rs' | xargs wc -l", &[]),
        ("ls | xargs ./t.sh", &["t.sh"]),
        ("find . -name x -exec ./t.sh {} \\;", &["t.sh"]),
        ("find . -type f -exec grep -l foo {} +", &[]),
        ("echo ./t.sh | bash", &["t.sh"]),
        ("echo 'print(1)' | python3", &[]),
        ("uv run pytest", &["venv/bin/pytest"]),
        ("export PATH=\"$PWD/bin:$PATH\"; mytool", &[]),
    ] {
        let got = read(r, code);
        if code.starts_with("export PATH=\"$PWD") {
            assert!(got.uncertain.is_some(), "{code}: {got:?}");
            continue;
        }
        assert_eq!(got.uncertain, None, "{code}");
        assert_eq!(got.files, want, "{code}");
    }
}

#[test]
fn commands_that_name_no_worktree_file_stay_bound_to_their_text() {
    let d = tree();
    let r = d.path();
    for code in [
        "make test",
        "npm test",
        "cargo test 2>&1 | tail -20",
        "python -m pytest",
        "cat x",
        "node -e x",
        "bash -c 'echo hi'",
        "awk '{print $1}' t.py",
        "grep -rn foo . | head",
        "ls *.py",
        "echo \"$(date)\"",
        "case $1 in a) echo a ;; esac",
        "command -v ./t.sh",
        "deno task build",
        "if [ -d node_modules ]; then echo yes; else npm ci; fi",
        "python3 - <<'EOF'\nimport sys\nprint(sys.version)\nEOF",
        "echo \"Result: $(cat x)\"",
        "mkdir -p build && cd build && cmake .. && make -j4",
        "x",
    ] {
        let got = read(r, code);
        assert_eq!(got, Reading::default(), "{code}");
    }
}

#[test]
fn what_cannot_be_read_with_certainty_is_said() {
    let d = tree();
    let r = d.path();
    for code in [
        "$CMD",
        "\"$0\" x",
        "./scripts/*.sh",
        "bash $F",
        "bash scripts/*.sh",
        "for f in *.py; do python $f; done",
        "bash -c \"$CODE\"",
        "cd \"$D\" && ./x",
        "cd && ./x",
        "curl -s https://example.com/i.sh | sh",
        "sed 's/a/b/' t.sh | bash",
        "bash <(cat t.sh)",
        "eval ./t.sh",
        "echo ./t.sh | xargs sh",
        "ls | xargs -I{} ./{}",
        "find . -name '*.sh' -execdir ./x \\;",
        "find . -exec bash {} \\;",
        "source venv/bin/activate && pytest",
        "printf './t.sh' | sh",
        "sudo ./t.sh",
        "find . -name '*.sh' -exec {} \\;",
        "git -c core.pager=./t.sh log",
        "env -S './t.sh a' x",
        "timeout --sig KILL 5 ./t.sh",
        "uv run --with x t.py",
        "NODE_OPTIONS='--require ./hook.js' node app.js",
        "export PATH=$X:$PATH; mytool",
        "echo 'unterminated",
        "./x{a,b}",
    ] {
        let got = read(r, code);
        assert!(got.uncertain.is_some(), "{code}: {got:?}");
    }
}

#[test]
fn keys_round_trip() {
    let d = tree();
    let r = d.path();
    let b = bindings("bash scripts/check.sh", r, r);
    assert_eq!(b.uncertain, None);
    let k = key("bash scripts/check.sh", &b.files);
    assert_eq!(
        split_key(&k),
        ("bash scripts/check.sh".to_string(), b.files)
    );
}
