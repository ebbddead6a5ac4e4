//! `git clada context`: the first turn needs no round trip — the instructions, the map of the
//! repository and the chosen files numbered as `file_replace_lines` counts them, ready to paste
//! or copied.

use crate::common;

use common::{block, TestRepo};

fn repo() -> TestRepo {
    TestRepo::with_files(&[
        (
            "src/pkg/api.py",
            "import x\n\n\ndef get(url, params=None):\n    return x.request(\"get\", url)\n\n\nclass Session:\n    pass\n",
        ),
        ("src/main.rs", "pub fn main() {}\n\nstruct Config;\n"),
        ("README.md", "# Demo\n"),
    ])
}

fn context(repo: &TestRepo, args: &[&str]) -> String {
    let out = repo.clada(&[&["context"], args].concat());
    assert_eq!(out.status.code(), Some(0), "{}", common::output_text(&out));
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn context_holds_the_instructions_the_map_and_the_numbered_files() {
    let repo = repo();
    let text = context(&repo, &["src/pkg/api.py"]);
    // The instructions first, as `git clada prompt` prints them.
    let prompt = String::from_utf8(repo.clada(&["prompt"]).stdout).unwrap();
    assert!(text.starts_with(&prompt), "the prompt comes first");
    // The map: every tracked file, definitions of source files.
    assert!(
        text.contains("src/pkg/api.py: def get, class Session\n"),
        "{text}"
    );
    assert!(
        text.contains("src/main.rs: fn main, struct Config\n"),
        "{text}"
    );
    assert!(text.contains("\nREADME.md\n"), "{text}");
    // The file, numbered.
    assert!(
        text.contains("=== START FILE: [numbered] src/pkg/api.py ===\n1: import x\n2: \n3: \n4: def get(url, params=None):\n"),
        "{text}"
    );
    assert!(
        !text.contains("[numbered] src/main.rs"),
        "only the chosen files are shown"
    );
    // Nothing changed.
    assert_eq!(repo.status(), "");
}

#[test]
fn the_numbers_shown_are_the_ones_file_replace_lines_uses() {
    let repo = repo();
    let text = context(&repo, &["--no-instructions", "--no-map", "src/pkg/api.py"]);
    let line = text
        .lines()
        .find(|l| l.ends_with(": class Session:"))
        .expect("the class line");
    let n = line.split(':').next().unwrap().trim();
    let out = repo.apply(
        &block(
            "c01",
            &[
                ("action", "file_replace_lines"),
                ("path", "src/pkg/api.py"),
                ("lines", n),
                ("new_content", "class Session(object):"),
            ],
        ),
        &[],
    );
    assert_eq!(out.status.code(), Some(0), "{}", common::output_text(&out));
    assert!(repo
        .read("src/pkg/api.py")
        .contains("\nclass Session(object):\n    pass\n"));
}

#[test]
fn a_folder_shows_its_tracked_files_and_a_bad_path_is_refused() {
    let repo = repo();
    repo.write("src/pkg/untracked.py", "x = 1\n");
    let text = context(&repo, &["--no-instructions", "src"]);
    assert!(text.contains("[numbered] src/main.rs ==="));
    assert!(text.contains("[numbered] src/pkg/api.py ==="));
    assert!(!text.contains("untracked.py"), "only tracked files");
    for bad in ["../outside.txt", "nope.py", ".git/config"] {
        let out = repo.clada(&["context", bad]);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{bad}: {}",
            common::output_text(&out)
        );
        assert!(String::from_utf8_lossy(&out.stderr).contains(bad), "{bad}");
    }
}

/// `--dialect` takes the edit formats too: their instructions head the context; `--actions`
/// with one of them is a usage error (an edit format has no actions to choose), as for `prompt`.
#[test]
fn an_edit_format_dialect_gives_its_instructions_and_refuses_actions() {
    let repo = repo();
    let text = context(&repo, &["--dialect", "aider", "src/main.rs"]);
    assert!(text.contains("<<<<<<< SEARCH"), "aider's instructions");
    assert!(text.contains("[numbered] src/main.rs ==="));
    let out = repo.clada(&["context", "--dialect", "diff", "--actions", "file_write"]);
    assert_eq!(out.status.code(), Some(2), "{}", common::output_text(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("edits files only"),
        "{}",
        common::output_text(&out)
    );
}

#[test]
fn copy_puts_the_context_on_the_clipboard() {
    let repo = repo();
    let clip = repo.home.path().join("clipboard.txt");
    let mut cmd = repo.clada_cmd();
    cmd.env("GIT_CLADA_CLIPBOARD", format!("file:{}", clip.display()))
        .args(["context", "--copy", "--no-instructions", "README.md"]);
    let out = cmd.output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", common::output_text(&out));
    assert_eq!(
        std::fs::read_to_string(&clip).unwrap(),
        String::from_utf8(out.stdout).unwrap()
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("Copied to clipboard"));
}
