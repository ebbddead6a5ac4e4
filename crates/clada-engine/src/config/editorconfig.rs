//! The `.editorconfig` properties git-clada honours when it writes a whole file
//! (`insert_final_newline`, `end_of_line`, `charset`), and the shaping of such a write: a
//! final newline for non-empty text without one, and the line endings and encoding a new file
//! should have. Edits of existing files keep the file's own style, but for the final-newline
//! rule ([`WriteShape::final_newline`]), which appends and the aider and apply_patch edits
//! follow too. A path's [`WriteShape`] is looked up before a reply's first block runs and
//! handed to the block, so executing never reads configuration.
//!
//! Lookup follows the EditorConfig spec: `.editorconfig` files from the file's directory up to
//! one that says `root = true` (or the filesystem root); nearer files win, and within a file
//! later sections win. Parsing and section globs are ec4rs's (the EditorConfig core in Rust:
//! `*`, `**`, `?`, `[…]`, `[!…]`, `{a,b}`, `{1..3}`; a glob without `/` matches the file name
//! at any depth, one with `/` is relative to its file's directory); it passes 197 of the 199
//! core tests (tests/cli/editorconfig_core.rs). The walk and the reading stay here: a line
//! ec4rs rejects is skipped, as editors do, rather than ending the file. A file inside the worktree
//! is read only when it is a regular file of at most [`super::FILE_LIMIT`] bytes (a clone can
//! ship a link to `/dev/zero`, a process there can leave a FIFO): anything else is skipped
//! like an unreadable file. Above the worktree the files are the user's, and links are
//! followed (still only to a regular file of that size).

use std::path::Path;

/// Line endings for a new file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Eol {
    Lf,
    Crlf,
    Cr,
}

/// Encodings a new file can be written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Charset {
    Utf8,
    Utf8Bom,
    Latin1,
    Utf16Le,
    Utf16Be,
}

/// What `.editorconfig` says about one path (`None`: not set, or `unset`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Properties {
    pub insert_final_newline: Option<bool>,
    pub end_of_line: Option<Eol>,
    pub charset: Option<Charset>,
}

/// The lines of one `.editorconfig` that ec4rs reads: the others (a line with neither `=`
/// nor a `[section]`, an empty key or value, an empty `[]`) are dropped here, as editors
/// skip them, because ec4rs stops reading a file at its first bad line.
fn readable_lines(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        // One line alone is a whole file's preamble, or a section header, to the parser.
        if ec4rs::ConfigParser::new(line.as_bytes()).is_ok() {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// The glob of a `[section]` header line, as ec4rs reads one (a comment may follow the `]`).
fn header(line: &str) -> Option<&str> {
    let t = line.trim_start_matches('\u{feff}').trim();
    let rest = t.strip_prefix('[')?;
    let close = rest.rfind(']')?;
    let after = rest[close + 1..].trim();
    (after.is_empty() || after.starts_with(['#', ';'])).then(|| &rest[..close])
}

/// The text of the `.editorconfig` in `dir`, if it is one git-clada reads (see the module
/// doc): in the worktree `root` or below only a regular file, above it a link is followed.
fn read_in(dir: &Path, root: &Path) -> Option<String> {
    read_named(dir, root, ".editorconfig")
}

/// [`read_in`] for configuration files called `name` (the core tests name theirs).
fn read_named(dir: &Path, root: &Path, name: &str) -> Option<String> {
    use clada_base::fsutil::{read_small, Links};
    let links = if dir.starts_with(root) {
        Links::Refuse
    } else {
        Links::Follow
    };
    let bytes = read_small(&dir.join(name), super::FILE_LIMIT, links).ok()??;
    String::from_utf8(bytes).ok()
}

/// The sections of `root/.editorconfig` that set `insert_final_newline`, as `[glob] = value`:
/// where they apply they decide, unless `files.final_newline` is configured.
pub fn final_newline_sections(root: &Path) -> Vec<String> {
    let Some(text) = read_in(root, root) else {
        return Vec::new();
    };
    let text = readable_lines(&text);
    let Ok(parser) = ec4rs::ConfigParser::new(text.as_bytes()) else {
        return Vec::new();
    };
    // ec4rs's sections do not give their glob back: the headers, in the same order, do.
    let globs = text.lines().filter_map(header);
    let mut out = Vec::new();
    for (glob, section) in globs.zip(parser.map_while(Result::ok)) {
        let value = section.props().get_raw_for_key("insert_final_newline");
        if !value.is_unset() {
            out.push(format!(
                "[{glob}] = {}",
                value.into_str().to_ascii_lowercase()
            ));
        }
    }
    out
}

/// The properties whose values are case-insensitive: the spec has cores lower-case them.
const KNOWN: [&str; 7] = [
    "indent_style",
    "indent_size",
    "tab_width",
    "end_of_line",
    "charset",
    "trim_trailing_whitespace",
    "insert_final_newline",
];

/// Every pair the configuration files called `name` give `path` (absolute) in the worktree
/// `root`, as an EditorConfig core reports them: the spec's `indent_size`/`tab_width`
/// fallbacks added, the known properties' values lower-cased, `unset` kept as a value.
pub fn pairs_named(path: &Path, root: &Path, name: &str) -> Vec<(String, String)> {
    pairs_read(path, &mut |d| read_named(d, root, name))
}

/// [`pairs_named`], the file of each directory read by `read`.
fn pairs_read(path: &Path, read: &mut dyn FnMut(&Path) -> Option<String>) -> Vec<(String, String)> {
    let mut files = Vec::new();
    let mut dir = path.parent();
    while let Some(d) = dir {
        if let Some(text) = read(d) {
            let text = readable_lines(&text);
            let is_root = ec4rs::ConfigParser::new(text.as_bytes()).is_ok_and(|p| p.is_root);
            files.push((d, text));
            if is_root {
                break;
            }
        }
        dir = d.parent();
    }
    let mut props = ec4rs::Properties::new();
    // Farthest first, so nearer files (and later sections) override.
    for (d, text) in files.iter().rev() {
        let Ok(parser) = ec4rs::ConfigParser::new(text.as_bytes()) else {
            continue;
        };
        let rel = path.strip_prefix(d).unwrap_or(path);
        for section in parser.map_while(Result::ok) {
            if section.applies_to(rel) {
                for (k, v) in section.props().iter() {
                    props.insert_raw_for_key(k, v.clone());
                }
            }
        }
    }
    props.use_fallbacks();
    props
        .iter()
        .map(|(k, v)| {
            let v = v.into_str();
            let v = if KNOWN.contains(&k) {
                v.to_lowercase()
            } else {
                v.to_string()
            };
            (k.to_string(), v)
        })
        .collect()
}

/// The properties for `path` (absolute) in the worktree `root`.
pub fn properties(path: &Path, root: &Path) -> Properties {
    properties_read(path, &mut |d| read_in(d, root))
}

/// [`properties`], each directory's `.editorconfig` read by `read`.
fn properties_read(path: &Path, read: &mut dyn FnMut(&Path) -> Option<String>) -> Properties {
    let mut props = Properties::default();
    for (k, v) in pairs_read(path, read) {
        match k.as_str() {
            "insert_final_newline" => {
                props.insert_final_newline = match v.as_str() {
                    "true" => Some(true),
                    "false" => Some(false),
                    _ => None,
                }
            }
            "end_of_line" => {
                props.end_of_line = match v.as_str() {
                    "lf" => Some(Eol::Lf),
                    "crlf" => Some(Eol::Crlf),
                    "cr" => Some(Eol::Cr),
                    _ => None,
                }
            }
            "charset" => {
                props.charset = match v.as_str() {
                    "utf-8" => Some(Charset::Utf8),
                    "utf-8-bom" => Some(Charset::Utf8Bom),
                    "latin1" => Some(Charset::Latin1),
                    "utf-16le" => Some(Charset::Utf16Le),
                    "utf-16be" => Some(Charset::Utf16Be),
                    _ => None,
                }
            }
            _ => {}
        }
    }
    props
}

/// How a whole-file write should be shaped.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WholeFile {
    /// Add a final newline to non-empty text without one (config `files.final_newline`).
    pub final_newline: bool,
    /// Honour `.editorconfig` (its `insert_final_newline` decides where `final_newline` is
    /// the default; `end_of_line` and `charset` apply to new files).
    pub editorconfig: bool,
    /// `final_newline` was set in a configuration file: the user's explicit setting wins over
    /// `.editorconfig`'s `insert_final_newline`.
    pub final_newline_configured: bool,
}

/// What decides that a file gets a final newline, given what `.editorconfig` says about it:
/// `insert_final_newline` where set (unless `files.final_newline` is configured), else
/// `files.final_newline`; `None` when a missing one is kept.
fn newline_rule(props: &Properties, how: WholeFile) -> Option<&'static str> {
    match props
        .insert_final_newline
        .filter(|_| !how.final_newline_configured)
    {
        Some(true) => Some(".editorconfig insert_final_newline"),
        Some(false) => None,
        None => how.final_newline.then_some("files.final_newline"),
    }
}

/// How a write to one path is shaped: the user's whole-file settings and what `.editorconfig`
/// says about the path. Looked up before the reply's first block runs (`action::execute`) and
/// carried to the block, so writing a file never reads configuration.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WriteShape {
    props: Properties,
    how: WholeFile,
}

impl WriteShape {
    /// The shape of writes to `path` (absolute, in the worktree `root`): `.editorconfig` is
    /// read only when `how` honours it.
    pub fn at(path: &Path, root: &Path, how: WholeFile) -> WriteShape {
        ShapeLookup::default().shape(path, root, how)
    }

    /// Whether the file should end with a line break once written, and what says so
    /// (`files.final_newline`, or `.editorconfig insert_final_newline`, for the warning);
    /// `None` when a missing one is kept. The rule of whole-file writes, which appends and the
    /// aider and apply_patch edits (whose tools end every file they write with one) follow too.
    pub fn final_newline(&self) -> Option<&'static str> {
        if !self.how.final_newline && !self.how.editorconfig {
            return None;
        }
        newline_rule(&self.props, self.how)
    }

    /// The bytes to write for `content` (`is_new` when nothing is there yet), and a note for
    /// the report about each change made to the content.
    pub fn shape(&self, content: &str, is_new: bool) -> (Vec<u8>, Vec<String>) {
        shape_with(content, is_new, &self.props, self.how)
    }
}

/// Looks up the write shapes of a reply's paths, reading each directory's `.editorconfig`
/// once (many blocks write into the same folders).
#[derive(Debug, Default)]
pub struct ShapeLookup {
    texts: std::collections::HashMap<std::path::PathBuf, Option<String>>,
}

impl ShapeLookup {
    /// [`WriteShape::at`], through this lookup's memory of the files read.
    pub fn shape(&mut self, path: &Path, root: &Path, how: WholeFile) -> WriteShape {
        let props = match how.editorconfig {
            true => properties_read(path, &mut |d| {
                self.texts
                    .entry(d.to_path_buf())
                    .or_insert_with(|| read_in(d, root))
                    .clone()
            }),
            false => Properties::default(),
        };
        WriteShape { props, how }
    }
}

/// [`WriteShape::shape`], given the path's properties.
fn shape_with(
    content: &str,
    is_new: bool,
    props: &Properties,
    how: WholeFile,
) -> (Vec<u8>, Vec<String>) {
    let mut notes = Vec::new();
    if !how.final_newline && !how.editorconfig {
        return (content.as_bytes().to_vec(), notes);
    }
    let mut text = content.to_string();
    if is_new {
        match props.end_of_line {
            Some(Eol::Crlf) if text.contains('\n') => {
                let converted = text.replace("\r\n", "\n").replace('\n', "\r\n");
                if converted != text {
                    text = converted;
                    notes.push(
                        "wrote CRLF line endings (.editorconfig end_of_line = crlf for this new \
                         file)"
                            .to_string(),
                    );
                }
            }
            Some(Eol::Cr) if text.contains('\n') => {
                text = text.replace("\r\n", "\n").replace('\n', "\r");
                notes.push(
                    "wrote CR line endings (.editorconfig end_of_line = cr for this new file)"
                        .to_string(),
                );
            }
            Some(Eol::Lf) if text.contains("\r\n") => {
                text = text.replace("\r\n", "\n");
                notes.push(
                    "wrote LF line endings (.editorconfig end_of_line = lf for this new file)"
                        .to_string(),
                );
            }
            _ => {}
        }
    }
    let ends_with_newline = text.ends_with('\n') || text.ends_with('\r');
    let rule = newline_rule(props, how);
    if let Some(why) =
        rule.filter(|_| !text.is_empty() && !ends_with_newline && !text.contains('\0'))
    {
        // A new file takes .editorconfig's line ending (the text was converted above);
        // otherwise the content's own.
        let newline = match props.end_of_line.filter(|_| is_new) {
            Some(Eol::Crlf) => "\r\n",
            Some(Eol::Cr) => "\r",
            _ if text.contains("\r\n") => "\r\n",
            _ => "\n",
        };
        text.push_str(newline);
        notes.push(format!("added a final newline ({why})"));
    }
    let bytes = match (is_new, props.charset) {
        (true, Some(Charset::Utf8Bom)) if !text.starts_with('\u{feff}') => {
            notes.push("wrote a UTF-8 byte order mark (.editorconfig charset = utf-8-bom)".into());
            let mut b = b"\xEF\xBB\xBF".to_vec();
            b.extend_from_slice(text.as_bytes());
            b
        }
        (true, Some(Charset::Latin1)) if !text.is_ascii() => {
            if text.chars().all(|c| (c as u32) < 0x100) {
                notes.push("encoded as Latin-1 (.editorconfig charset = latin1)".into());
                text.chars().map(|c| c as u32 as u8).collect()
            } else {
                notes.push(
                    "kept UTF-8: .editorconfig asks for charset = latin1, but the content has \
                     characters Latin-1 cannot hold"
                        .into(),
                );
                text.into_bytes()
            }
        }
        (true, Some(cs @ (Charset::Utf16Le | Charset::Utf16Be))) => {
            let le = cs == Charset::Utf16Le;
            notes.push(format!(
                "encoded as UTF-16{} with a byte order mark (.editorconfig charset = utf-16{})",
                if le { "LE" } else { "BE" },
                if le { "le" } else { "be" }
            ));
            let body = text.strip_prefix('\u{feff}').unwrap_or(&text);
            std::iter::once(0xFEFFu16)
                .chain(body.encode_utf16())
                .flat_map(|u| if le { u.to_le_bytes() } else { u.to_be_bytes() })
                .collect()
        }
        _ => text.into_bytes(),
    };
    (bytes, notes)
}

#[cfg(test)]
mod tests {
    use super::*;

    const ON: WholeFile = WholeFile {
        final_newline: true,
        editorconfig: true,
        final_newline_configured: false,
    };

    #[test]
    fn lookup_precedence_and_globs() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(
            root.join(".editorconfig"),
            "root = true\n[*]\ninsert_final_newline = true\nend_of_line = lf\n[*.bat]\nend_of_line = crlf\n[docs/**.md]\ninsert_final_newline = false\n",
        )
        .unwrap();
        std::fs::create_dir_all(root.join("sub")).unwrap();
        std::fs::write(
            root.join("sub/.editorconfig"),
            "[*.txt]\ncharset = utf-8-bom\nend_of_line = unset\n",
        )
        .unwrap();
        let p = properties(&root.join("a/b/run.bat"), root);
        assert_eq!(p.end_of_line, Some(Eol::Crlf));
        assert_eq!(p.insert_final_newline, Some(true));
        let p = properties(&root.join("docs/x/readme.md"), root);
        assert_eq!(p.insert_final_newline, Some(false));
        let p = properties(&root.join("readme.md"), root);
        assert_eq!(p.insert_final_newline, Some(true));
        let p = properties(&root.join("sub/t.txt"), root);
        assert_eq!(p.charset, Some(Charset::Utf8Bom));
        assert_eq!(p.end_of_line, None);
    }

    #[test]
    fn core_globs_and_bad_lines() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(
            root.join(".editorconfig"),
            "root = TRUE\nnot a pair\n[*.{js,ts}]\nend_of_line = CRLF\n[]\n[f{1..3}.txt]\ncharset = latin1\n[x[ab].md]\ninsert_final_newline = false\n",
        )
        .unwrap();
        let p = properties(&root.join("src/x.ts"), root);
        assert_eq!(p.end_of_line, Some(Eol::Crlf));
        assert_eq!(
            properties(&root.join("f2.txt"), root).charset,
            Some(Charset::Latin1)
        );
        assert_eq!(properties(&root.join("f4.txt"), root).charset, None);
        let md = properties(&root.join("docs/xb.md"), root);
        assert_eq!(md.insert_final_newline, Some(false));
        assert_eq!(
            properties(&root.join("xc.md"), root).insert_final_newline,
            None
        );
        assert_eq!(
            final_newline_sections(root),
            vec!["[x[ab].md] = false".to_string()]
        );
        let pairs = pairs_named(&root.join("x.js"), root, ".editorconfig");
        assert_eq!(pairs, vec![("end_of_line".to_string(), "crlf".to_string())]);
    }

    /// A reply's lookups read each folder's file once: what they find is what the first
    /// lookup read, and the same as a lookup of its own.
    #[test]
    fn one_lookup_reads_each_folder_once() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir(root.join("src")).unwrap();
        std::fs::write(
            root.join(".editorconfig"),
            "[*.raw]\ninsert_final_newline = false\n",
        )
        .unwrap();
        let mut lookup = ShapeLookup::default();
        let raw = root.join("src/a.raw");
        let first = lookup.shape(&raw, root, ON);
        assert_eq!(first, WriteShape::at(&raw, root, ON));
        assert_eq!(first.final_newline(), None);
        std::fs::write(root.join(".editorconfig"), "root = true\n").unwrap();
        assert_eq!(
            lookup
                .shape(&root.join("src/b.raw"), root, ON)
                .final_newline(),
            None
        );
        assert_eq!(
            WriteShape::at(&root.join("src/b.raw"), root, ON).final_newline(),
            Some("files.final_newline")
        );
    }

    #[test]
    fn shaping() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let (b, notes) = WriteShape::at(&root.join("x.txt"), root, ON).shape("a\nb", true);
        assert_eq!(b, b"a\nb\n");
        assert!(notes[0].starts_with("added a final newline"), "{notes:?}");
        let (b, notes) = WriteShape::at(&root.join("x.txt"), root, ON).shape("a\n", true);
        assert_eq!(b, b"a\n");
        assert!(notes.is_empty());
        let (b, _) = WriteShape::at(&root.join("x.txt"), root, ON).shape("", true);
        assert_eq!(b, b"");
        let (b, _) = WriteShape::at(&root.join("x.txt"), root, ON).shape("a\r\nb", false);
        assert_eq!(b, b"a\r\nb\r\n");
        let off = WholeFile::default();
        assert_eq!(
            WriteShape::at(&root.join("x.txt"), root, off)
                .shape("a", true)
                .0,
            b"a"
        );
        std::fs::write(
            root.join(".editorconfig"),
            "root = true\n[*.bat]\nend_of_line = crlf\n[*.raw]\ninsert_final_newline = false\n[*.l1]\ncharset = latin1\n[*.u16]\ncharset = utf-16le\n",
        )
        .unwrap();
        let (b, notes) = WriteShape::at(&root.join("r.bat"), root, ON).shape("a\nb", true);
        assert_eq!(b, b"a\r\nb\r\n");
        assert_eq!(notes.len(), 2);
        // an existing file keeps its own endings
        assert_eq!(
            WriteShape::at(&root.join("r.bat"), root, ON)
                .shape("a\nb", false)
                .0,
            b"a\nb\n"
        );
        assert_eq!(
            WriteShape::at(&root.join("f.raw"), root, ON)
                .shape("a", true)
                .0,
            b"a"
        );
        assert_eq!(
            WriteShape::at(&root.join("f.l1"), root, ON)
                .shape("é", true)
                .0,
            b"\xE9\n"
        );
        assert_eq!(
            WriteShape::at(&root.join("f.u16"), root, ON)
                .shape("a", true)
                .0,
            b"\xFF\xFEa\x00\n\x00"
        );
    }
}
