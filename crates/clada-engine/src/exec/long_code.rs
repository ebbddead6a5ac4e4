//! Code too long to be one argument: Linux refuses any single argument over 128 KiB
//! (`MAX_ARG_STRLEN`: `Argument list too long`), and exec code goes to its interpreter as the
//! argument of `-c` / `-e`. Code up to [`IN_ARGUMENT`] bytes still does, unchanged; longer
//! code is written to a file only the block can read (in the sandbox's private temporary
//! directory, or a fresh one when unconfined; read-only, removed when the block ends) and the
//! argument becomes a short program that runs that file's text as the argument would have:
//! `eval` for the shells (`$0` stays the shell, no positional parameters), `exec(compile(…,
//! '<string>', 'exec'))` for Python (`sys.argv` stays `['-c']` and `sys.path[0]` the working
//! directory), `eval` for node and ruby. stdin stays closed (DESIGN §5.2), so code that reads
//! stdin reads nothing, whatever its length.

use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

/// The longest code passed as the argument itself (half the kernel's limit: the rest of the
/// arguments and the environment share the total).
pub(super) const IN_ARGUMENT: usize = 64 * 1024;

/// The file holding long code; removed (with its folder) when dropped.
pub(super) struct CodeFile {
    _dir: tempfile::TempDir,
}

/// The argument of `-c` / `-e` for `code` in `lang`: the code itself, or for code longer than
/// [`IN_ARGUMENT`] a program that runs it from a file made in `tmp` (the sandbox's private
/// temporary directory; the system's when `None`), which must outlive the process.
pub(super) fn argument(
    lang: &str,
    code: &str,
    tmp: Option<&Path>,
) -> std::io::Result<(String, Option<CodeFile>)> {
    if code.len() <= IN_ARGUMENT {
        return Ok((code.to_string(), None));
    }
    let mut b = tempfile::Builder::new();
    b.prefix("git-clada-code-");
    let dir = match tmp {
        Some(t) => b.tempdir_in(t),
        None => b.tempdir(),
    }?;
    let path = dir.path().join("code");
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o400)
        .open(&path)?;
    f.write_all(code.as_bytes())?;
    let Some(p) = path.to_str() else {
        return Err(std::io::Error::other(format!(
            "the temporary folder '{}' is not UTF-8",
            dir.path().display()
        )));
    };
    Ok((bootstrap(lang, p), Some(CodeFile { _dir: dir })))
}

/// The program that runs the text of the file at `path` as `-c` / `-e` would run it.
fn bootstrap(lang: &str, path: &str) -> String {
    let sh = format!("'{}'", path.replace('\'', r"'\''"));
    // A JSON string is a Python and JavaScript string literal; in a Ruby double-quoted one
    // `#` may start an interpolation, so it is escaped.
    let json = serde_json::Value::String(path.to_string()).to_string();
    match lang {
        "bash" => format!("eval \"$(< {sh})\""),
        "sh" => format!("eval \"$(cat {sh})\""),
        "python" => {
            format!("exec(compile(open({json}, encoding='utf-8').read(), '<string>', 'exec'))")
        }
        "javascript" => format!("eval(require('fs').readFileSync({json}, 'utf8'))"),
        "ruby" => format!(
            "eval(File.read({}, encoding: 'UTF-8'), TOPLEVEL_BINDING, '-e', 1)",
            json.replace('#', "\\#")
        ),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    /// 300 KiB of code that counts its lines and prints the count, `$0`/`argv` and whether
    /// stdin is empty, in each language.
    fn long(lang: &str) -> String {
        let pad = " padding padding padding padding padding";
        let (head, line, tail) = match lang {
            "bash" | "sh" => (
                "n=0\n",
                format!("n=$((n+1)) #{pad}\n"),
                "echo \"$n $0 $#\"\n",
            ),
            "python" => (
                "import sys\nn = 0\n",
                format!("n += 1  #{pad}\n"),
                "print(n, sys.argv, sys.path[0] == '', __name__)\n",
            ),
            "javascript" => (
                "let n = 0;\n",
                format!("n += 1; //{pad}\n"),
                "console.log(n, typeof require);\n",
            ),
            _ => (
                "n = 0\n",
                format!("n += 1 #{pad}\n"),
                "puts \"#{n} #{$0}\"\n",
            ),
        };
        let count = 300 * 1024 / line.len() + 1;
        format!("{head}{}{tail}", line.repeat(count))
    }

    fn run(lang: &str, prog: &str, flag: &str) -> (String, usize) {
        let code = long(lang);
        assert!(code.len() > 300 * 1024);
        let lines = code.lines().count() - 2 - usize::from(lang == "python");
        let tmp = tempfile::tempdir().expect("tmp");
        let (arg, file) = argument(lang, &code, Some(tmp.path())).expect("argument");
        assert!(arg.len() < 200, "{arg}");
        let out = std::process::Command::new(prog)
            .arg(flag)
            .arg(&arg)
            .stdin(std::process::Stdio::null())
            .output()
            .expect("run");
        assert!(
            out.status.success(),
            "{lang}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        drop(file);
        assert_eq!(
            std::fs::read_dir(tmp.path()).expect("ls").count(),
            0,
            "the code file is removed"
        );
        (String::from_utf8_lossy(&out.stdout).into_owned(), lines)
    }

    #[test]
    fn short_code_is_the_argument_itself() {
        let (arg, file) = argument("bash", "echo hi", None).expect("argument");
        assert_eq!(arg, "echo hi");
        assert!(file.is_none());
    }

    #[test]
    fn long_code_runs_from_a_read_only_file_as_the_argument_would() {
        let (out, n) = run("bash", "bash", "-c");
        assert_eq!(out, format!("{n} bash 0\n"));
        let (out, n) = run("sh", "sh", "-c");
        assert_eq!(out, format!("{n} sh 0\n"));
        let (out, n) = run("python", "python3", "-c");
        assert_eq!(out, format!("{n} ['-c'] True __main__\n"));
        let (out, n) = run("javascript", "node", "-e");
        assert_eq!(out, format!("{n} function\n"));
        let tmp = tempfile::tempdir().expect("tmp");
        let (_, file) = argument("sh", &long("sh"), Some(tmp.path())).expect("argument");
        let dir = std::fs::read_dir(tmp.path())
            .expect("ls")
            .next()
            .expect("dir")
            .expect("entry");
        let mode = std::fs::metadata(dir.path().join("code"))
            .expect("stat")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o400);
        drop(file);
    }

    #[test]
    #[cfg_attr(not(has_ruby), ignore = "needs ruby")]
    fn long_ruby_code_runs_from_a_file_too() {
        let (out, n) = run("ruby", "ruby", "-e");
        assert_eq!(out, format!("{n} -e\n"));
    }

    #[test]
    fn paths_are_quoted_for_each_language() {
        let odd = "/tmp/a'b\"c#{x}$(y)/code";
        assert_eq!(
            bootstrap("bash", odd),
            r#"eval "$(< '/tmp/a'\''b"c#{x}$(y)/code')""#
        );
        assert!(bootstrap("python", odd).contains(r#"open("/tmp/a'b\"c#{x}$(y)/code""#));
        assert!(bootstrap("ruby", odd).contains(r#"File.read("/tmp/a'b\"c\#{x}$(y)/code""#));
    }
}
