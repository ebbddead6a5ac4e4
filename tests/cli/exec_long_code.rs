//! exec code longer than one argument may be (128 KiB on Linux): real commits (nvm,
//! notepad++) carry RUN blocks of 300 KiB, which failed with `cannot start bash: Argument list
//! too long` (issue 54.2). They run, in the OS sandbox, as shorter code does: in CSL, CML and
//! SHAM/NESL, in every language the machine has.

use crate::common;

use common::{block, exit_code, output_text, TestRepo};

/// About 300 KiB of code in `lang` that counts its own padded lines and writes the count to
/// `out` (in the worktree), and prints it with what `$0` / `argv` are.
fn long_code(lang: &str, out: &str) -> (String, usize) {
    let pad = " padding so that the code is long".repeat(2);
    let (head, line, tail) = match lang {
        "bash" | "sh" => (
            "n=0\n".to_string(),
            format!("n=$((n+1)) #{pad}\n"),
            format!("echo \"$n\" > {out}\necho \"$n $0 $#\"\n"),
        ),
        "python" => (
            "import sys\nn = 0\n".to_string(),
            format!("n += 1  #{pad}\n"),
            format!("open('{out}', 'w').write(f'{{n}}\\n')\nprint(n, sys.argv)\n"),
        ),
        _ => (
            "let n = 0;\n".to_string(),
            format!("n += 1; //{pad}\n"),
            format!("require('fs').writeFileSync('{out}', `${{n}}\\n`);\nconsole.log(n);\n"),
        ),
    };
    let count = 300 * 1024 / line.len() + 1;
    (format!("{head}{}{tail}", line.repeat(count)), count)
}

fn stdout(report: &serde_json::Value, i: usize) -> String {
    report["results"][i]["data"]["stdout"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[test]
fn a_300_kib_run_block_runs_in_csl_and_cml() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let (csl, n) = long_code("bash", "csl.txt");
    let (cml, _) = long_code("bash", "cml.txt");
    assert!(csl.len() > 300 * 1024 && !cml.contains("]]>"));
    let reply = format!("<---RUN--->\n{csl}<---END--->\n\n<run><![CDATA[{cml}]]></run>\n");
    let out = repo.apply(&reply, &["--exec", "allow"]);
    let text = output_text(&out);
    assert_eq!(
        exit_code(&out),
        0,
        "{}",
        &text[text.len().saturating_sub(3000)..]
    );
    let report = TestRepo::report(&out);
    assert_eq!(stdout(&report, 0), format!("{n} bash 0\n"));
    assert_eq!(stdout(&report, 1), format!("{n} bash 0\n"));
    assert_eq!(repo.read("csl.txt"), format!("{n}\n"));
    assert_eq!(repo.read("cml.txt"), format!("{n}\n"));
    // Both files are in the AI commit, and nothing else is left behind.
    let changed = repo.git(&["show", "--name-only", "--format=", "HEAD"]);
    assert_eq!(changed, "cml.txt\ncsl.txt\n");
    assert_eq!(repo.status(), "");
}

#[test]
fn a_300_kib_nesl_exec_block_runs_in_every_language() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let langs = ["bash", "sh", "python", "javascript"];
    let mut reply = String::new();
    let mut counts = Vec::new();
    for (i, lang) in langs.iter().enumerate() {
        let (code, n) = long_code(lang, &format!("{lang}.txt"));
        counts.push(n);
        reply.push_str(&block(
            &format!("lc{i}"),
            &[("action", "exec"), ("lang", lang), ("code", &code)],
        ));
    }
    let out = repo.apply(&reply, &["--exec", "allow"]);
    let text = output_text(&out);
    assert_eq!(
        exit_code(&out),
        0,
        "{}",
        &text[text.len().saturating_sub(3000)..]
    );
    let report = TestRepo::report(&out);
    let n = counts[0];
    assert_eq!(stdout(&report, 0), format!("{n} bash 0\n"));
    assert_eq!(stdout(&report, 1), format!("{} sh 0\n", counts[1]));
    assert_eq!(stdout(&report, 2), format!("{} ['-c']\n", counts[2]));
    assert_eq!(stdout(&report, 3), format!("{}\n", counts[3]));
    for (lang, n) in langs.iter().zip(&counts) {
        assert_eq!(
            repo.read(&format!("{lang}.txt")),
            format!("{n}\n"),
            "{lang}"
        );
    }
    assert_eq!(repo.status(), "");
}
