//! file_comment_lines / file_uncomment_lines (seed 001's fs-ops TODO): comment out or back in a
//! line range, with the comment syntax the file's name or extension implies. The range uses the
//! same original line numbering as file_replace_lines (the numbers refer to the file before the
//! reply), because both go through [`super::write::edit_lines`].
//!
//! Commenting puts the marker and one space at the smallest indentation of the range's
//! non-blank lines (so the block stays aligned, as editors do) and leaves blank lines alone;
//! a wrapped syntax (`<!-- … -->`, `/* … */`) wraps each line. Uncommenting removes the marker
//! (and one space after it, and the closing marker of a wrapped syntax) from each line that
//! has it; a range in which no line is commented is an error, since the block then did nothing.

use super::line_edits::Tag;
use super::write::edit_lines;
use super::{Ctx, Outcome};
use crate::sandbox::ResolvedPath;

/// A line comment syntax: the opening marker, and the closing one of a wrapped syntax.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Syntax {
    pub open: &'static str,
    pub close: Option<&'static str>,
}

const fn line(open: &'static str) -> Syntax {
    Syntax { open, close: None }
}

const fn wrapped(open: &'static str, close: &'static str) -> Syntax {
    Syntax {
        open,
        close: Some(close),
    }
}

/// The comment syntax for a path, from its file name (`Makefile`, `.gitignore`) or its
/// extension (case-insensitive); `None` when it is not known.
pub fn syntax_for(path: &str) -> Option<Syntax> {
    let name = path.rsplit('/').next().unwrap_or(path);
    let lower = name.to_ascii_lowercase();
    match lower.as_str() {
        "makefile" | "gnumakefile" | "dockerfile" | "containerfile" | "cmakelists.txt"
        | "gemfile" | "rakefile" | "vagrantfile" | "procfile" | "justfile" | ".gitignore"
        | ".gitattributes" | ".dockerignore" | ".editorconfig" | ".env" | ".bashrc"
        | ".bash_profile" | ".profile" | ".zshrc" => return Some(line("#")),
        _ => {}
    }
    let ext = lower.rsplit_once('.').map(|(_, e)| e)?;
    Some(match ext {
        "rs" | "c" | "h" | "cc" | "cpp" | "cxx" | "hh" | "hpp" | "hxx" | "java" | "js" | "mjs"
        | "cjs" | "jsx" | "ts" | "mts" | "cts" | "tsx" | "go" | "swift" | "kt" | "kts"
        | "scala" | "sc" | "cs" | "fs" | "dart" | "php" | "proto" | "zig" | "groovy" | "gradle"
        | "jsonc" | "json5" | "sol" | "scss" | "less" | "v" | "d" => line("//"),
        "py" | "pyi" | "sh" | "bash" | "zsh" | "fish" | "ksh" | "rb" | "pl" | "pm" | "r"
        | "yaml" | "yml" | "toml" | "cfg" | "conf" | "mk" | "cmake" | "nix" | "ex" | "exs"
        | "tf" | "tfvars" | "hcl" | "ps1" | "psm1" | "jl" | "awk" | "sed" | "tcl" | "cr"
        | "nim" | "coffee" | "properties" | "gitignore" | "dockerfile" | "env" | "rake"
        | "gemspec" | "bzl" | "star" => line("#"),
        "sql" | "lua" | "hs" | "lhs" | "elm" | "ada" | "adb" | "ads" | "purs" | "vhd" | "vhdl" => {
            line("--")
        }
        "lisp" | "lsp" | "el" | "clj" | "cljs" | "cljc" | "edn" | "scm" | "ss" | "rkt" | "ini"
        | "asm" => line(";"),
        "tex" | "sty" | "cls" | "bib" | "erl" | "hrl" => line("%"),
        "vim" => line("\""),
        "bat" | "cmd" => line("REM"),
        "f90" | "f95" | "f03" | "f08" => line("!"),
        "html" | "htm" | "xhtml" | "xml" | "svg" | "xsl" | "xslt" | "md" | "markdown" | "vue"
        | "svelte" | "plist" | "csproj" | "fsproj" | "vbproj" | "props" | "targets" => {
            wrapped("<!--", "-->")
        }
        "css" => wrapped("/*", "*/"),
        "ml" | "mli" => wrapped("(*", "*)"),
        _ => return None,
    })
}

fn indent_of(l: &str) -> usize {
    l.len() - l.trim_start_matches([' ', '\t']).len()
}

/// The lines commented out; the count is the number of lines that got a marker.
pub fn comment(lines: &[String], syn: Syntax) -> (String, usize) {
    let col = lines
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| indent_of(l))
        .min()
        .unwrap_or(0);
    let mut n = 0;
    let out: Vec<String> = lines
        .iter()
        .map(|l| {
            if l.trim().is_empty() {
                return l.clone();
            }
            n += 1;
            let (lead, rest) = l.split_at(col);
            match syn.close {
                None => format!("{lead}{} {rest}", syn.open),
                Some(close) => format!("{lead}{} {rest} {close}", syn.open),
            }
        })
        .collect();
    (out.join("\n"), n)
}

/// The lines with their comment markers removed; the count is the number of lines that had
/// one.
pub fn uncomment(lines: &[String], syn: Syntax) -> (String, usize) {
    let mut n = 0;
    let out: Vec<String> = lines
        .iter()
        .map(|l| {
            let col = indent_of(l);
            let (lead, rest) = l.split_at(col);
            let Some(body) = rest.strip_prefix(syn.open) else {
                return l.clone();
            };
            let body = match syn.close {
                None => body,
                Some(close) => match body.trim_end().strip_suffix(close) {
                    Some(b) => b.strip_suffix(' ').unwrap_or(b),
                    None => return l.clone(),
                },
            };
            n += 1;
            let body = body.strip_prefix(' ').unwrap_or(body);
            format!("{lead}{body}")
        })
        .collect();
    (out.join("\n"), n)
}

/// Which way a comment action goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Toggle {
    Comment,
    Uncomment,
}

/// file_comment_lines and file_uncomment_lines.
pub(super) fn toggle_lines(
    ctx: &mut Ctx<'_>,
    path: &ResolvedPath,
    spec: &str,
    tag: &Tag,
    toggle: Toggle,
) -> Outcome {
    let (name, key) = match toggle {
        Toggle::Comment => ("file_comment_lines", "lines_commented"),
        Toggle::Uncomment => ("file_uncomment_lines", "lines_uncommented"),
    };
    let Some(syn) = syntax_for(&path.given) else {
        return Outcome::fail(format!(
            "{name}: no comment syntax is known for '{}' (chosen by file name or extension); \
             use file_replace_lines to write the lines yourself",
            path.given
        ));
    };
    // Lines already commented out when commenting: they end up commented twice.
    let twice = std::cell::Cell::new(0usize);
    let edit = |lines: &[String]| {
        if toggle == Toggle::Comment {
            twice.set(
                lines
                    .iter()
                    .filter(|l| l.trim_start().starts_with(syn.open))
                    .count(),
            );
        }
        let done = match toggle {
            Toggle::Comment => comment(lines, syn),
            Toggle::Uncomment => uncomment(lines, syn),
        };
        match (done.1, toggle) {
            (0, Toggle::Comment) => Err(format!(
                "lines {spec} are all blank; nothing to comment out"
            )),
            (0, Toggle::Uncomment) => Err(format!(
                "none of lines {spec} is commented out with '{}'; nothing was changed",
                syn.open
            )),
            _ => Ok(done),
        }
    };
    let mut out = edit_lines(ctx, name, path, spec, tag, key, &edit);
    if out.success && twice.get() > 0 {
        out.warnings.push(format!(
            "{} of lines {spec} {} already commented out with '{}' and {} now commented twice; file_uncomment_lines takes one level off",
            twice.get(),
            if twice.get() == 1 { "was" } else { "were" },
            syn.open,
            if twice.get() == 1 { "is" } else { "are" },
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &[&str]) -> Vec<String> {
        s.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn syntax_by_name_and_extension() {
        assert_eq!(syntax_for("src/main.rs"), Some(line("//")));
        assert_eq!(syntax_for("a/B.PY"), Some(line("#")));
        assert_eq!(syntax_for("Makefile"), Some(line("#")));
        assert_eq!(syntax_for("q.sql"), Some(line("--")));
        assert_eq!(syntax_for("x.html"), Some(wrapped("<!--", "-->")));
        assert_eq!(syntax_for("README"), None);
        assert_eq!(syntax_for("x.unknownext"), None);
    }

    #[test]
    fn comment_aligns_at_smallest_indent_and_skips_blank_lines() {
        let (t, n) = comment(&v(&["    a();", "", "      b();"]), line("//"));
        assert_eq!(t, "    // a();\n\n    //   b();");
        assert_eq!(n, 2);
        let (t, _) = comment(&v(&["<p>x</p>"]), wrapped("<!--", "-->"));
        assert_eq!(t, "<!-- <p>x</p> -->");
    }

    #[test]
    fn uncomment_reverses_comment() {
        let orig = v(&["    a();", "", "      b();", "\tc # d"]);
        for syn in [line("//"), line("#"), wrapped("/*", "*/")] {
            let (t, n) = comment(&orig, syn);
            let lines: Vec<String> = t.split('\n').map(String::from).collect();
            let (back, m) = uncomment(&lines, syn);
            assert_eq!(back, orig.join("\n"), "{syn:?}");
            assert_eq!(n, m);
        }
        let (t, n) = uncomment(&v(&["x = 1", "#y = 2"]), line("#"));
        assert_eq!((t.as_str(), n), ("x = 1\ny = 2", 1));
    }
}
