//! Robustness of `clada_read::decode` and `clada_read::parse`: any input is safe.
//!
//! * every file in `test-data/parser/regressions/` (fuzzer finds and hand-made boundary cases)
//!   goes through `decode` and `parse` in every dialect with the invariants the fuzz target
//!   checks;
//! * strict UTF-8 decoding reports the first bad byte's offset and line;
//! * property tests feed random mixtures of markers, quotes, escapes and odd whitespace.

use std::fs;
use std::path::Path;

use clada_read::{Dialect, Format, ParseResult};
use proptest::prelude::*;

/// Auto, then every registered format forced on its own (new front ends are covered as they
/// are registered).
fn dialects() -> Vec<Dialect> {
    std::iter::once(Dialect::Auto)
        .chain(clada_read::formats().map(|(f, _)| Dialect::Only(f)))
        .collect()
}

/// The invariants callers rely on, for a result of parsing `text`.
fn check_invariants(text: &str, result: &ParseResult) {
    let lines = text.split('\n').count();
    for pair in result.blocks.windows(2) {
        // CML tasks of one line share it.
        let nesl = pair[0].format.is_nesl() && pair[1].format.is_nesl();
        assert!(pair[0].start_line < pair[1].start_line || !nesl);
        assert!(pair[0].start_line <= pair[1].start_line);
    }
    for b in &result.blocks {
        assert!((1..=lines).contains(&b.start_line));
        if let Some(end) = b.end_line {
            assert!(end <= lines);
            assert!(end > b.start_line || (!b.format.is_nesl() && end == b.start_line));
        }
    }
    for pair in result.errors.windows(2) {
        assert!(pair[0].line <= pair[1].line);
    }
    for e in &result.errors {
        assert!((1..=lines + 1).contains(&e.line), "error line {}", e.line);
        assert!(e.column >= 1);
        assert!(e.column <= clada_read::len16(&e.content) + 1);
        assert!(text.contains(&e.context));
    }
    // Serialising and rendering must not panic either.
    serde_json::to_string(result).unwrap();
    clada_engine::summary::summary(result);
}

fn parse_everywhere(bytes: &[u8]) {
    let Ok(text) = clada_read::decode(bytes) else {
        return;
    };
    // The code points that stand for bytes which are not UTF-8 (an error's context shows
    // them as those bytes, `\x90`) never reach a parse: every way a reply comes in refuses
    // them (`clada_read::input`).
    if clada_read::raw::reserved_at(bytes).is_some() {
        return;
    }
    for dialect in dialects() {
        check_invariants(text, &clada_read::parse(text, dialect));
    }
}

#[test]
fn regression_inputs() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("test-data/parser/regressions");
    let mut count = 0;
    for entry in fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "md") {
            continue;
        }
        parse_everywhere(&fs::read(&path).unwrap());
        count += 1;
    }
    assert!(count > 0, "no regression inputs in {}", dir.display());
}

#[test]
fn fuzz_seeds_hold_the_invariants() {
    let fuzz = Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/clada-read/fuzz");
    let mut dirs = vec![fuzz.join("seeds")];
    for entry in fs::read_dir(fuzz.join("seeds-formats")).unwrap() {
        dirs.push(entry.unwrap().path());
    }
    let mut count = 0;
    for dir in dirs {
        for entry in fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_file() {
                parse_everywhere(&fs::read(&path).unwrap());
                count += 1;
            }
        }
    }
    assert!(
        count >= 30,
        "only {count} fuzz seeds found under {}",
        fuzz.display()
    );
}

#[test]
fn every_registered_format_can_be_forced() {
    let ids: Vec<&str> = clada_read::formats().map(|(f, _)| f.id).collect();
    for id in ["sham", "nesl-upper", "nesl", "csl", "cml", "replacer"] {
        assert!(ids.contains(&id), "format {id} is not registered: {ids:?}");
        assert_eq!(clada_read::format_by_id(id).map(|f| f.id), Some(id));
    }
    assert!(clada_read::format_by_id("no-such-format").is_none());
    assert_eq!(Format::CSL.name, "CSL");
}

#[test]
fn decode_accepts_utf8_and_reports_first_bad_byte() {
    assert_eq!(clada_read::decode(b"").unwrap(), "");
    assert_eq!(clada_read::decode("a😀\r\n".as_bytes()).unwrap(), "a😀\r\n");

    let e = clada_read::decode(b"\xffabc").unwrap_err();
    assert_eq!((e.offset, e.byte, e.line), (0, 0xFF, 1));

    let e = clada_read::decode(b"ab\ncd\n\xc3(").unwrap_err();
    assert_eq!((e.offset, e.byte, e.line), (6, 0xC3, 3));

    // A multi-byte sequence cut off at the end of the input.
    let e = clada_read::decode(b"ab\xe2\x82").unwrap_err();
    assert_eq!((e.offset, e.byte, e.line), (2, 0xE2, 1));

    // UTF-8-encoded surrogates and overlong encodings are not UTF-8.
    assert_eq!(clada_read::decode(b"x\xed\xa0\x80").unwrap_err().offset, 1);
    assert_eq!(clada_read::decode(b"\xc0\xaf").unwrap_err().offset, 0);

    let msg = clada_read::decode(b"ok\n\n\x80").unwrap_err().to_string();
    assert!(msg.contains("byte offset 4"), "{msg}");
    assert!(msg.contains("0x80"), "{msg}");
    assert!(msg.contains("line 3"), "{msg}");
}

#[test]
fn lone_surrogate_escapes_are_invalid_values() {
    let text =
        "#!nesl [@x: abc]\na = \"\\uDBFF\"\nb = \"\\uDBFF\\uDFFF\"\nc = \"\\uDC00x\"\n#!end_abc";
    let r = clada_read::parse(text, Dialect::Auto);
    assert_eq!(
        r.blocks[0].properties.get("b").map(String::as_str),
        Some("\u{10FFFF}")
    );
    assert!(!r.blocks[0].properties.contains_key("a"));
    assert!(!r.blocks[0].properties.contains_key("c"));
    let lines: Vec<usize> = r.errors.iter().map(|e| e.line).collect();
    assert_eq!(lines, vec![2, 4]);
    assert!(r.errors.iter().all(|e| e.message.contains("surrogate")));
}

/// Fragments that steer random lines into every branch of the grammar.
fn fragment() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("<---WRITE file=\"a\"--->".to_string()),
        Just("<---SEARCH file='a' count=\"all\"--->".to_string()),
        Just("<---TASKS--->".to_string()),
        Just("<---TO--->".to_string()),
        Just("<---REPLACE--->".to_string()),
        Just("<---END--->".to_string()),
        Just("<---RUN dir=\"d\\\"\"--->".to_string()),
        Just("<tasks version=\"1.0\">".to_string()),
        Just("</tasks>".to_string()),
        Just("<edit path=\"a\" count=\"2\">".to_string()),
        Just("<search-start><![CDATA[".to_string()),
        Just("]]&gt;]]>".to_string()),
        Just("<write path=\"a\"/>".to_string()),
        Just("&amp;&#x1F600;&bogus;".to_string()),
        Just("<<<FILE>>>".to_string()),
        Just("<<<SEARCH>>>".to_string()),
        Just("<<<REPLACE>>>".to_string()),
        Just("<<<OVERWRITE>>>".to_string()),
        Just("<<<END>>>".to_string()),
        Just("<<<EXPLANATION>>>".to_string()),
        Just("#!SHAM [@three-char-SHA-256: abc]".to_string()),
        Just("#!NESL [@three-char-SHA-256: abc]".to_string()),
        Just("#!nesl [@x-1: abc]".to_string()),
        Just("#!END_SHAM_abc".to_string()),
        Just("#!END_NESL_abc".to_string()),
        Just("#!end_abc'".to_string()),
        Just("#!END_SHAM_".to_string()),
        Just("k = <<'EOT_SHAM_abc'".to_string()),
        Just("k = <<'EOT_NESL_abc'".to_string()),
        Just("k = <<'EOT_abc'".to_string()),
        Just("EOT_SHAM_abc".to_string()),
        Just("EOT_abc".to_string()),
        Just("key = \"v\\u00e9\\uD83D\\uDE00\"".to_string()),
        Just("\"\\".to_string()),
        Just(" = ".to_string()),
        Just(":=".to_string()),
        Just("=>".to_string()),
        Just("<<'".to_string()),
        Just("'".to_string()),
        Just("\r".to_string()),
        Just("\r\n".to_string()),
        Just("\n".to_string()),
        Just("\u{feff}".to_string()),
        Just("\u{2028}".to_string()),
        Just("\u{85}".to_string()),
        Just("😀".to_string()),
        Just("é".to_string()),
        Just("\t".to_string()),
        "[a-z]{0,3}".prop_map(|s| s),
        any::<char>().prop_map(|c| c.to_string()),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn random_marker_soup_is_safe(parts in prop::collection::vec(fragment(), 0..40)) {
        parse_everywhere(parts.concat().as_bytes());
    }

    #[test]
    fn arbitrary_bytes_are_safe(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        parse_everywhere(&bytes);
    }

    #[test]
    fn arbitrary_strings_are_safe(text in any::<String>()) {
        parse_everywhere(text.as_bytes());
    }
}
