//! The `.editorconfig` properties git-clada honours when it writes a whole file
//! (`insert_final_newline`, `end_of_line`, `charset`), and the shaping of such a write: a
//! final newline for non-empty text without one, and the line endings and encoding a new file
//! should have. Edits of existing files keep the file's own style, but for the final-newline
//! rule ([`final_newline`]), which appends and the aider and apply_patch edits follow too.
//!
//! Lookup follows the EditorConfig spec: `.editorconfig` files from the file's directory up to
//! one that says `root = true` (or the filesystem root); nearer files win, and within a file
//! later sections win. Section globs: `*` (not `/`), `**`, `?`, `[…]`, `{a,b}`; a glob without
//! `/` matches the file name at any depth, one with `/` is relative to its file's directory.
//! Unreadable files and malformed lines are skipped, as editors do. A file inside the worktree
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

/// One `[glob]` section's relevant pairs, `None` value meaning `unset`.
type Pairs = Vec<(String, Option<String>)>;

/// Parses one `.editorconfig`: whether it is a root, and its sections.
fn parse(text: &str) -> (bool, Vec<(String, Pairs)>) {
    let mut root = false;
    let mut sections: Vec<(String, Pairs)> = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') || line.starts_with(';') {
            continue;
        }
        if let Some(glob) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            sections.push((glob.to_string(), Vec::new()));
            continue;
        }
        let Some((k, v)) = line.split_once('=') else {
            continue;
        };
        let key = k.trim().to_ascii_lowercase();
        let value = v.trim().to_ascii_lowercase();
        match sections.last_mut() {
            None => {
                if key == "root" {
                    root = value == "true";
                }
            }
            Some((_, pairs)) => {
                let value = (value != "unset").then_some(value);
                pairs.push((key, value));
            }
        }
    }
    (root, sections)
}

/// Whether section glob `glob` of an `.editorconfig` in `dir` matches `path`.
fn matches(glob: &str, dir: &Path, path: &Path) -> bool {
    let Ok(rel) = path.strip_prefix(dir) else {
        return false;
    };
    let rel = rel.to_string_lossy().replace('\\', "/");
    let pattern = if glob.contains('/') {
        glob.trim_start_matches('/').to_string()
    } else {
        format!("**/{glob}")
    };
    // EditorConfig's `**` spans directories anywhere (`docs/**.md`); globset's only as a
    // whole component, so `**x` becomes `**/*x`.
    let pattern = pattern
        .replace("**/", "\u{0}")
        .replace("**", "**/*")
        .replace('\u{0}', "**/");
    globset::GlobBuilder::new(&pattern)
        .literal_separator(true)
        .build()
        .map(|g| g.compile_matcher().is_match(&rel))
        .unwrap_or(false)
}

/// The text of the `.editorconfig` in `dir`, if it is one git-clada reads (see the module
/// doc): in the worktree `root` or below only a regular file, above it a link is followed.
fn read_in(dir: &Path, root: &Path) -> Option<String> {
    use crate::base::fsutil::{read_small, Links};
    let links = if dir.starts_with(root) {
        Links::Refuse
    } else {
        Links::Follow
    };
    let bytes = read_small(&dir.join(".editorconfig"), super::FILE_LIMIT, links).ok()??;
    String::from_utf8(bytes).ok()
}

/// The sections of `root/.editorconfig` that set `insert_final_newline`, as `[glob] = value`:
/// where they apply they decide, unless `files.final_newline` is configured.
pub fn final_newline_sections(root: &Path) -> Vec<String> {
    let Some(text) = read_in(root, root) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (glob, pairs) in parse(&text).1 {
        if let Some((_, v)) = pairs
            .iter()
            .rev()
            .find(|(k, _)| k == "insert_final_newline")
        {
            out.push(format!("[{glob}] = {}", v.as_deref().unwrap_or("unset")));
        }
    }
    out
}

/// The properties for `path` (absolute) in the worktree `root`.
pub fn properties(path: &Path, root: &Path) -> Properties {
    let mut files = Vec::new();
    let mut dir = path.parent();
    while let Some(d) = dir {
        if let Some(text) = read_in(d, root) {
            let (root, sections) = parse(&text);
            files.push((d.to_path_buf(), sections));
            if root {
                break;
            }
        }
        dir = d.parent();
    }
    let mut props = Properties::default();
    // Farthest first, so nearer files (and later sections) override.
    for (d, sections) in files.iter().rev() {
        for (glob, pairs) in sections {
            if !matches(glob, d, path) {
                continue;
            }
            for (k, v) in pairs {
                let v = v.as_deref();
                match k.as_str() {
                    "insert_final_newline" => {
                        props.insert_final_newline = match v {
                            Some("true") => Some(true),
                            Some("false") => Some(false),
                            _ => None,
                        }
                    }
                    "end_of_line" => {
                        props.end_of_line = match v {
                            Some("lf") => Some(Eol::Lf),
                            Some("crlf") => Some(Eol::Crlf),
                            Some("cr") => Some(Eol::Cr),
                            _ => None,
                        }
                    }
                    "charset" => {
                        props.charset = match v {
                            Some("utf-8") => Some(Charset::Utf8),
                            Some("utf-8-bom") => Some(Charset::Utf8Bom),
                            Some("latin1") => Some(Charset::Latin1),
                            Some("utf-16le") => Some(Charset::Utf16Le),
                            Some("utf-16be") => Some(Charset::Utf16Be),
                            _ => None,
                        }
                    }
                    _ => {}
                }
            }
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

/// Whether the file at `path` (absolute, in the worktree `root`) should end with a line break once written, and what
/// says so (`files.final_newline`, or `.editorconfig insert_final_newline`, for the warning);
/// `None` when a missing one is kept. The rule of whole-file writes, which appends and the
/// aider and apply_patch edits (whose tools end every file they write with one) follow too.
pub fn final_newline(path: &Path, root: &Path, how: WholeFile) -> Option<&'static str> {
    if !how.final_newline && !how.editorconfig {
        return None;
    }
    let props = if how.editorconfig {
        properties(path, root)
    } else {
        Properties::default()
    };
    newline_rule(&props, how)
}

/// The bytes to write for `content` at `path` (absolute, in the worktree `root`; `is_new` when
/// nothing is there yet), and a note for the report about each change made to the content.
pub fn shape(
    content: &str,
    path: &Path,
    root: &Path,
    is_new: bool,
    how: WholeFile,
) -> (Vec<u8>, Vec<String>) {
    let mut notes = Vec::new();
    if !how.final_newline && !how.editorconfig {
        return (content.as_bytes().to_vec(), notes);
    }
    let props = if how.editorconfig {
        properties(path, root)
    } else {
        Properties::default()
    };
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
    let rule = newline_rule(&props, how);
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
    fn shaping() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let (b, notes) = shape("a\nb", &root.join("x.txt"), root, true, ON);
        assert_eq!(b, b"a\nb\n");
        assert!(notes[0].starts_with("added a final newline"), "{notes:?}");
        let (b, notes) = shape("a\n", &root.join("x.txt"), root, true, ON);
        assert_eq!(b, b"a\n");
        assert!(notes.is_empty());
        let (b, _) = shape("", &root.join("x.txt"), root, true, ON);
        assert_eq!(b, b"");
        let (b, _) = shape("a\r\nb", &root.join("x.txt"), root, false, ON);
        assert_eq!(b, b"a\r\nb\r\n");
        let off = WholeFile::default();
        assert_eq!(shape("a", &root.join("x.txt"), root, true, off).0, b"a");
        std::fs::write(
            root.join(".editorconfig"),
            "root = true\n[*.bat]\nend_of_line = crlf\n[*.raw]\ninsert_final_newline = false\n[*.l1]\ncharset = latin1\n[*.u16]\ncharset = utf-16le\n",
        )
        .unwrap();
        let (b, notes) = shape("a\nb", &root.join("r.bat"), root, true, ON);
        assert_eq!(b, b"a\r\nb\r\n");
        assert_eq!(notes.len(), 2);
        // an existing file keeps its own endings
        assert_eq!(
            shape("a\nb", &root.join("r.bat"), root, false, ON).0,
            b"a\nb\n"
        );
        assert_eq!(shape("a", &root.join("f.raw"), root, true, ON).0, b"a");
        assert_eq!(shape("é", &root.join("f.l1"), root, true, ON).0, b"\xE9\n");
        assert_eq!(
            shape("a", &root.join("f.u16"), root, true, ON).0,
            b"\xFF\xFEa\x00\n\x00"
        );
    }
}
