//! Unit tests of `diff`.

use super::*;
use crate::{parse, Dialect};

fn props(reply: &str) -> Vec<IndexMap<String, String>> {
    let r = parse(reply, Dialect::Auto);
    assert!(r.errors.is_empty(), "{:?}", r.errors);
    r.blocks.into_iter().map(|b| b.properties).collect()
}

#[test]
fn git_diff_with_new_deleted_renamed_and_mode_changes() {
    let p = props(
        "diff --git a/new.txt b/new.txt\nnew file mode 100755\nindex 0000000..e69de29\n--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+x\ndiff --git a/old.txt b/old.txt\ndeleted file mode 100644\n--- a/old.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-y\ndiff --git a/a b/b\nsimilarity index 100%\nrename from a\nrename to b\ndiff --git a/s.sh b/s.sh\nold mode 100644\nnew mode 100755\n",
    );
    assert_eq!(p.len(), 4);
    assert_eq!(p[0]["change"], "create");
    assert_eq!(p[0]["path"], "new.txt");
    assert_eq!(p[0]["executable"], "true");
    assert_eq!(p[0]["hunks"], "@@ -0,0 +1,1 @@\n+x\n");
    assert_eq!(p[1]["change"], "delete");
    assert_eq!(p[1]["path"], "old.txt");
    assert_eq!(
        (p[2]["path"].as_str(), p[2]["new_path"].as_str()),
        ("a", "b")
    );
    assert_eq!(p[3]["path"], "s.sh");
    assert_eq!(p[3]["executable"], "true");
}

#[test]
fn plain_diff_counts_recounted_and_crs_kept() {
    let r = parse(
        "```diff\n--- a/x.txt\t2024-01-01\n+++ b/x.txt\n@@ -1,2 +1,2 @@\n a\r\n-b\r\n+c\r\n d\r\n```\n",
        Dialect::Auto,
    );
    let b = &r.blocks[0];
    assert_eq!(b.properties["path"], "x.txt");
    assert_eq!(
        b.properties["hunks"],
        "@@ -1,3 +1,3 @@\n a\r\n-b\r\n+c\r\n d\r\n"
    );
    assert!(b.warnings[0].contains("--recount"), "{:?}", b.warnings);
    assert_eq!(b.end_line, Some(8));
}

#[test]
fn an_empty_line_is_context_only_inside_a_hunk() {
    let p = props("--- x\n+++ x\n@@ -1,3 +1,3 @@\n a\n\n-b\n+c\n\nProse after.\n");
    assert_eq!(p[0]["hunks"], "@@ -1,3 +1,3 @@\n a\n \n-b\n+c\n");
    assert_eq!(p[0]["path"], "x");
}

#[test]
fn names() {
    assert_eq!(
        git_names("a/x y.txt b/x y.txt"),
        Some(("a/x y.txt".into(), "b/x y.txt".into()))
    );
    assert_eq!(
        git_names("\"a/t\\tb\" \"b/t\\tb\""),
        Some(("a/t\tb".into(), "b/t\tb".into()))
    );
    assert_eq!(
        header_name("a/x.txt\t2020-01-01 10:00"),
        Some("a/x.txt".into())
    );
    assert_eq!(unquote("\"caf\\303\\251\""), Some("café".into()));
    // A multi-byte character in the middle of the line (found by fuzzing): no panic.
    assert_eq!(git_names("a/\u{1F600}bc"), None);
    assert_eq!(
        git_names("ab\u{85}cd e"),
        Some(("ab\u{85}cd".into(), "e".into()))
    );
}

#[test]
fn header_like_lines_inside_a_hunk_go_by_its_counts() {
    // A removed `-- x` and an added `++ y`, then the next file.
    let p = props(
        "--- a/n.txt\n+++ b/n.txt\n@@ -1,3 +1,3 @@\n a\n--- x\n+++ y\n b\n--- a/m.txt\n+++ b/m.txt\n@@ -1 +1 @@\n-c\n+d\n",
    );
    assert_eq!(p.len(), 2);
    assert_eq!(p[0]["hunks"], "@@ -1,3 +1,3 @@\n a\n--- x\n+++ y\n b\n");
    assert_eq!(p[1]["path"], "m.txt");
    // Counts too high: the pair is the next file's header (the hunk is recounted).
    let r = parse(
        "--- a/n.txt\n+++ b/n.txt\n@@ -1,9 +1,9 @@\n a\n-b\n+c\n--- a/m.txt\n+++ b/m.txt\n@@ -1 +1 @@\n-c\n+d\n",
        Dialect::Auto,
    );
    assert_eq!(r.blocks.len(), 2, "{:?}", r.errors);
    assert!(r.blocks[0].warnings[0].contains("--recount"));
}

#[test]
fn a_last_hunk_cut_short_is_refused_a_miscounted_one_recounted() {
    let r = parse(
        "```diff\n--- a/m.py\n+++ b/m.py\n@@ -27,8 +27,10 @@\n line 27\n-line 28\n```\n",
        Dialect::Auto,
    );
    assert!(r.blocks.is_empty());
    assert!(
        r.errors[0]
            .message
            .contains("the reply was cut off after line 2 of this hunk: its header (line 4)"),
        "{:?}",
        r.errors
    );
    assert_eq!(r.errors[0].line, 6);
    // Context after the last change: a miscounted hunk, recounted.
    let p = props(
        "--- a/m.py\n+++ b/m.py\n@@ -27,8 +27,8 @@\n line 27\n-line 28\n+LINE 28\n line 29\n",
    );
    assert_eq!(
        p[0]["hunks"],
        "@@ -27,3 +27,3 @@\n line 27\n-line 28\n+LINE 28\n line 29\n"
    );
    // Followed by another hunk.
    let p = props("--- a/m.py\n+++ b/m.py\n@@ -1,8 +1,8 @@\n-a\n+b\n@@ -20 +20 @@\n-c\n+d\n");
    assert_eq!(
        p[0]["hunks"],
        "@@ -1,1 +1,1 @@\n-a\n+b\n@@ -20,1 +20,1 @@\n-c\n+d\n"
    );
}

#[test]
fn modes_git_does_not_write_make_the_section_invalid() {
    for (mode, ok) in [
        ("100755", true),
        ("104755", false),
        ("10075", false),
        ("755", false),
    ] {
        let r = parse(
            &format!("diff --git a/s b/s\nold mode 100644\nnew mode {mode}\n"),
            Dialect::Auto,
        );
        let invalid = r.blocks[0].invalid.as_deref().unwrap_or("");
        assert_eq!(invalid.is_empty(), ok, "{mode}: {invalid}");
        if !ok {
            assert!(invalid.contains(&format!("`new mode {mode}`")), "{invalid}");
        }
    }
}

#[test]
fn binary_patches_are_decoded_and_handed_on_with_their_index() {
    // `git diff --binary` of an empty file becoming the 3 bytes "ab\0", then back.
    let diff = "diff --git a/x.bin b/x.bin\nindex e69de29bb2d1d6434b8b29ae775ad8c2e48c5391..d1f0a9a143eb4536e4549e5f23d00be264b1e9b8 100644\nGIT binary patch\nliteral 3\nKcmYdHVgLXE>Hx$5\n\nliteral 0\nHcmV?d00001\n\n";
    let r = parse(diff, Dialect::Auto);
    assert!(r.errors.is_empty(), "{:?}", r.errors);
    let b = &r.blocks[0];
    assert!(b.invalid.is_none(), "{:?}", b.invalid);
    assert_eq!(b.properties["binary"], "literal 3\nKcmYdHVgLXE>Hx$5\n");
    assert_eq!(
        b.properties["index"],
        "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391..d1f0a9a143eb4536e4549e5f23d00be264b1e9b8"
    );
    let hunk = binary::decode_parameter(&b.properties["binary"]).unwrap();
    assert_eq!(hunk.data, b"ab\0");
    // A damaged data line refuses the whole diff, naming the line.
    let r = parse(
        &diff.replace("KcmYdHVgLXE>Hx$5", "KcmYeHVgLXE>Hx$5"),
        Dialect::Auto,
    );
    assert!(r.blocks.is_empty());
    assert_eq!(r.errors[0].line, 4, "{:?}", r.errors);
    assert!(
        r.errors[0].message.contains("binary hunk"),
        "{:?}",
        r.errors
    );
}

#[test]
fn binary_and_broken_diffs() {
    let r = parse(
        "diff --git a/i.png b/i.png\nindex 1..2 100644\nBinary files a/i.png and b/i.png differ\n",
        Dialect::Auto,
    );
    assert!(r.blocks[0]
        .invalid
        .as_deref()
        .unwrap_or("")
        .contains("made without `--binary`"));
    let r = parse("--- a/x\n+++ b/x\n@@ -a +b @@\n-x\n", Dialect::Auto);
    assert!(r.blocks.is_empty());
    assert!(r.errors[0].message.contains("not a hunk header"));
}

/// What `git diff` prints for a Latin-1 file, read as `input::decode_reply` reads its bytes.
fn latin1(reply: &[u8], dialect: Dialect) -> Result<crate::ParseResult, crate::InvalidUtf8> {
    let text = crate::raw::decode(reply).into_owned();
    match crate::stray_byte(&text, dialect) {
        Some(e) => Err(e),
        None => Ok(parse(&text, dialect)),
    }
}

#[test]
fn bytes_that_are_not_utf8_are_read_in_a_hunks_lines_only() {
    let diff = b"diff --git a/l.txt b/l.txt\n--- a/l.txt\n+++ b/l.txt\n@@ -1,2 +1,2 @@ caf\xe9()\n na\xefve\n-caf\xe9\n+caf\xe8\r\n";
    let r = latin1(diff, Dialect::Auto).expect("read");
    assert!(r.errors.is_empty(), "{:?}", r.errors);
    let hunks = &r.blocks[0].properties["hunks"];
    assert_eq!(
        crate::raw::encode(hunks).as_ref(),
        b"@@ -1,2 +1,2 @@\n na\xefve\n-caf\xe9\n+caf\xe8\r\n"
    );
    let r = latin1(diff, Dialect::Only(Format::DIFF)).expect("read");
    assert_eq!(r.blocks.len(), 1);
    // Anywhere else: refused with the byte's offset and line in the bytes read.
    for reply in [
        // In a path.
        &b"--- a/caf\xe9\n+++ b/caf\xe9\n@@ -1 +1 @@\n-a\n+b\n"[..],
        // In prose before the diff.
        b"Voil\xe0:\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n",
        // In a `\ No newline` line.
        b"--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n\\ No newline \xe9\n+b\n",
        // In a SHAM block's value.
        b"#!nesl [@three-char-SHA-256: k1]\naction = \"file_write\"\npath = \"x\"\ncontent = \"\xe9\"\n#!end_k1\n",
        // In an aider block.
        b"x.py\n<<<<<<< SEARCH\n\xe9\n=======\nb\n>>>>>>> REPLACE\n",
    ] {
        let offset = reply.iter().position(|&b| b >= 0x80).expect("a byte");
        let line = 1 + reply[..offset].iter().filter(|&&b| b == b'\n').count();
        let e = latin1(reply, Dialect::Auto).expect_err("refused");
        assert_eq!((e.offset, e.byte, e.line), (offset, reply[offset], line), "{e}");
    }
    // A forced dialect that does not read diffs reads none of it.
    let e = latin1(diff, Dialect::Only(Format::AIDER)).expect_err("refused");
    let first = diff.iter().position(|&b| b >= 0x80).expect("a byte");
    assert_eq!((e.offset, e.line), (first, 4));
    // `parse` itself refuses it the same way, as one fatal error and no block.
    let text = crate::raw::decode(b"prose \xe9\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n");
    let r = parse(&text, Dialect::Auto);
    assert!(r.blocks.is_empty());
    assert_eq!(r.errors.len(), 1);
    assert_eq!(r.errors[0].code, ErrorCode::NotUtf8);
    assert!(r.errors[0].code.is_fatal());
    assert_eq!((r.errors[0].line, r.errors[0].column), (1, 7));
    assert!(
        r.errors[0].message.contains("byte offset 6"),
        "{}",
        r.errors[0].message
    );
    assert_eq!(r.errors[0].content, "prose \\xE9");
}

#[test]
fn symbolic_links_are_patches_marked_symlink_and_type_changes_in_one_section_are_refused() {
    let r = parse(
        "diff --git a/d/l b/d/l\nindex 32f64f4..a727136 120000\n--- a/d/l\n+++ b/d/l\n@@ -1 +1 @@\n-t\n\\ No newline at end of file\n+../f\n\\ No newline at end of file\ndiff --git a/f b/f\ndeleted file mode 100644\nindex 6a69f92..0000000\n--- a/f\n+++ /dev/null\n@@ -1 +0,0 @@\n-f\ndiff --git a/f b/f\nnew file mode 120000\nindex 0000000..855dbc2\n--- /dev/null\n+++ b/f\n@@ -0,0 +1 @@\n+d/t\n\\ No newline at end of file\n",
        Dialect::Auto,
    );
    assert!(r.errors.is_empty(), "{:?}", r.errors);
    let p: Vec<_> = r.blocks.iter().map(|b| &b.properties).collect();
    assert!(r.blocks.iter().all(|b| b.invalid.is_none()));
    assert_eq!(p[0]["symlink"], "true");
    assert_eq!(p[0]["path"], "d/l");
    assert!(!p[1].contains_key("symlink"));
    assert_eq!(
        (p[2]["symlink"].as_str(), p[2]["change"].as_str()),
        ("true", "create")
    );
    assert!(!p[2].contains_key("executable"));
    // A type change written in one section, and a submodule, are refused.
    let r = parse(
        "diff --git a/x b/x\nold mode 100644\nnew mode 120000\ndiff --git a/s b/s\nindex 1234567..89abcde 160000\n--- a/s\n+++ b/s\n@@ -1 +1 @@\n-Subproject commit 1\n+Subproject commit 2\n",
        Dialect::Auto,
    );
    let invalid: Vec<&str> = r
        .blocks
        .iter()
        .filter_map(|b| b.invalid.as_deref())
        .collect();
    assert!(
        invalid[0].contains("two sections of the diff"),
        "{invalid:?}"
    );
    assert!(
        invalid[1].contains("a submodule (mode 160000)"),
        "{invalid:?}"
    );
}
