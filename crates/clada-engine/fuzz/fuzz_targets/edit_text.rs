//! Fuzz target for the executors' text work behind the three formats, without any I/O: the
//! input is a file's content, a NUL byte, and an edit. The edit is read as unified hunks and as
//! apply_patch chunks (`action::hunks`), each placed in the content (`action::locate`) and the
//! result assembled; and, split at a `=======` line, as an aider SEARCH and REPLACE run through
//! aider's cascade (`action::search_replace::cascade`). Nothing may panic, and an edit that
//! places no hunk leaves the content as it was.

#![no_main]

use clada_engine::action::hunks::{self, Style};
use clada_engine::action::locate::{self, Text};
use clada_engine::action::search_replace;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some(split) = data.iter().position(|&b| b == 0) else {
        return;
    };
    let (content, edit) = (&data[..split], &data[split + 1..]);
    let Ok(edit) = std::str::from_utf8(edit) else {
        return;
    };
    let text = Text::new(content);
    assert_eq!(locate::assemble(&text, &[], false), content);
    for style in [Style::Unified, Style::ApplyPatch] {
        let Ok(parsed) = hunks::parse(edit, style) else {
            continue;
        };
        let located = match style {
            Style::Unified => locate::unified(&text, &parsed).ok(),
            Style::ApplyPatch => locate::apply_patch(&text, &parsed).ok(),
        };
        if let Some(l) = located {
            for pair in l.edits.windows(2) {
                assert!(pair[0].first + pair[0].count <= pair[1].first, "edits overlap");
            }
            let _ = locate::assemble(&text, &l.edits, l.keep_last_break);
        }
    }
    if let Some((search, replace)) = edit.split_once("\n=======\n") {
        if !search.trim().is_empty() {
            let whole = String::from_utf8_lossy(content);
            let _ = search_replace::cascade(&whole, search, replace);
        }
    }
});
