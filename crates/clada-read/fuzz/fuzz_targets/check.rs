//! The invariants every fuzz target checks on a parse result (shared by the targets with
//! `mod check;`).

use clada_read::Dialect;

/// Decodes `data` strictly and parses it in each of `dialects`, checking the invariants.
pub fn run(data: &[u8], dialects: &[Dialect]) {
    let text = match clada_read::decode(data) {
        Ok(text) => text,
        Err(e) => {
            assert!(e.offset < data.len());
            assert!(std::str::from_utf8(&data[..e.offset]).is_ok());
            return;
        }
    };
    let lines = text.split('\n').count();
    for &dialect in dialects {
        let result = clada_read::parse(text, dialect);
        for pair in result.blocks.windows(2) {
            // Tasks of one CML line share it; SHAM/NESL blocks never do.
            let nesl = pair[0].format.is_nesl() && pair[1].format.is_nesl();
            assert!(
                pair[0].start_line < pair[1].start_line
                    || (!nesl && pair[0].start_line == pair[1].start_line),
                "blocks out of order"
            );
        }
        for b in &result.blocks {
            assert!(b.start_line >= 1 && b.start_line <= lines);
            if let Some(end) = b.end_line {
                assert!(end <= lines);
                assert!(end > b.start_line || (!b.format.is_nesl() && end == b.start_line));
            }
        }
        for e in &result.errors {
            assert!(
                e.line >= 1 && e.line <= lines + 1,
                "error line {} of {lines}",
                e.line
            );
            assert!(e.column >= 1);
            assert!(
                e.column <= clada_read::len16(&e.content) + 1,
                "column past the line end"
            );
        }
        for pair in result.errors.windows(2) {
            assert!(pair[0].line <= pair[1].line, "errors out of line order");
        }
    }
}
