//! The programs that run another command or a file, and how their options are read: the
//! wrappers (`timeout 60 ./t.sh`, `env -i ./t.sh`, `npx tsx x.ts`), the interpreters
//! (`bash x.sh`, `python3 -W ignore t.py`, `node -r ./hook.js app.js`), and the programs
//! that run what cannot be read from the command line at all (`xargs`, `sudo`, `eval`).

/// A program that runs the command written after its options.
pub(super) struct Wrapper {
    pub name: &'static str,
    /// A word that must follow the name (`poetry run`, `npm exec`).
    pub sub: Option<&'static str>,
    /// Options whose value is the next word (unless attached with `=` or in a cluster).
    pub valued: &'static [&'static str],
    /// Options whose value is the folder the command runs in (`env -C`).
    pub chdir: &'static [&'static str],
    /// Options whose value is shell code run instead of a command (`npx -c`).
    pub inline: &'static [&'static str],
    /// Options after which the command is not run but looked up (`command -v`).
    pub stop: &'static [&'static str],
    /// Options that make the command unreadable (`env -S`: a string split into words).
    pub unreadable: &'static [&'static str],
    /// Operands before the command (`timeout`'s duration).
    pub operands: usize,
    /// Any option not listed makes the command unreadable (tools with many valued options).
    pub strict: bool,
    /// Folders its command is looked up in first, from the command's folder up to the
    /// worktree root (`npx eslint`: `node_modules/.bin`; `uv run pytest`: `.venv/bin`); a `*`
    /// part stands for every folder there (`vendor/bundle/ruby/*/bin`).
    pub bins: &'static [&'static str],
    /// It adds what it reads from standard input to its command's operands (`xargs`).
    pub appends: bool,
}

const NODE_BIN: &[&str] = &["node_modules/.bin"];
const VENV_BIN: &[&str] = &[".venv/bin", "venv/bin"];

const W: Wrapper = Wrapper {
    name: "",
    sub: None,
    valued: &[],
    chdir: &[],
    inline: &[],
    stop: &[],
    unreadable: &[],
    operands: 0,
    strict: false,
    bins: &[],
    appends: false,
};

pub(super) const WRAPPERS: &[Wrapper] = &[
    Wrapper {
        name: "env",
        valued: &["-u", "--unset"],
        chdir: &["-C", "--chdir"],
        unreadable: &["-S", "--split-string"],
        ..W
    },
    Wrapper {
        name: "exec",
        valued: &["-a"],
        ..W
    },
    Wrapper {
        name: "command",
        stop: &["-v", "-V"],
        ..W
    },
    Wrapper {
        name: "builtin",
        ..W
    },
    Wrapper { name: "nohup", ..W },
    Wrapper {
        name: "nice",
        valued: &["-n", "--adjustment"],
        ..W
    },
    Wrapper {
        name: "timeout",
        valued: &["-s", "--signal", "-k", "--kill-after"],
        operands: 1,
        ..W
    },
    Wrapper {
        name: "time",
        valued: &["-f", "--format", "-o", "--output"],
        ..W
    },
    Wrapper {
        name: "stdbuf",
        valued: &["-i", "-o", "-e", "--input", "--output", "--error"],
        ..W
    },
    Wrapper {
        name: "setsid",
        ..W
    },
    Wrapper {
        name: "ionice",
        valued: &["-c", "--class", "-n", "--classdata"],
        stop: &["-p", "--pid", "-P", "--pgid", "-u", "--uid"],
        ..W
    },
    Wrapper {
        name: "busybox",
        ..W
    },
    Wrapper {
        name: "npx",
        valued: &["-p", "--package", "-w", "--workspace"],
        inline: &["-c", "--call"],
        bins: NODE_BIN,
        ..W
    },
    Wrapper {
        name: "pnpx",
        bins: NODE_BIN,
        ..W
    },
    Wrapper {
        name: "bunx",
        bins: NODE_BIN,
        ..W
    },
    Wrapper {
        name: "npm",
        sub: Some("exec"),
        valued: &["-p", "--package", "-w", "--workspace"],
        inline: &["-c", "--call"],
        bins: NODE_BIN,
        ..W
    },
    Wrapper {
        name: "pnpm",
        sub: Some("exec"),
        strict: true,
        bins: NODE_BIN,
        ..W
    },
    Wrapper {
        name: "yarn",
        sub: Some("exec"),
        strict: true,
        bins: NODE_BIN,
        ..W
    },
    Wrapper {
        name: "bundle",
        sub: Some("exec"),
        strict: true,
        bins: &["bin", "vendor/bundle/ruby/*/bin"],
        ..W
    },
    Wrapper {
        name: "xargs",
        valued: &[
            "-n",
            "--max-args",
            "-L",
            "--max-lines",
            "-P",
            "--max-procs",
            "-s",
            "--max-chars",
            "-d",
            "--delimiter",
            "-E",
            "-a",
            "--arg-file",
        ],
        unreadable: &["-I", "-i", "--replace"],
        appends: true,
        ..W
    },
    Wrapper {
        name: "poetry",
        sub: Some("run"),
        strict: true,
        bins: VENV_BIN,
        ..W
    },
    Wrapper {
        name: "pipenv",
        sub: Some("run"),
        strict: true,
        bins: VENV_BIN,
        ..W
    },
    Wrapper {
        name: "uv",
        sub: Some("run"),
        strict: true,
        bins: VENV_BIN,
        ..W
    },
    Wrapper {
        name: "pdm",
        sub: Some("run"),
        strict: true,
        bins: VENV_BIN,
        ..W
    },
    Wrapper {
        name: "hatch",
        sub: Some("run"),
        strict: true,
        bins: VENV_BIN,
        ..W
    },
];

/// Programs that run a command, or code, that cannot be read from the command line: what
/// follows them is not bound with certainty.
pub(super) const UNREADABLE: &[&str] = &[
    "eval",
    "parallel",
    "sudo",
    "doas",
    "su",
    "runuser",
    "chroot",
    "flock",
    "watch",
    "chrt",
    "taskset",
    "unshare",
    "nsenter",
    "systemd-run",
    "firejail",
    "bwrap",
    "strace",
    "ltrace",
    "gdb",
    "valgrind",
    "perf",
    "script",
    "expect",
    "trap",
    "fc",
    "tclsh",
    "osascript",
];

/// A program that runs a file named on its command line (or code it reads from stdin).
pub(super) struct Interp {
    pub names: &'static [&'static str],
    /// A shell: `-c` makes its first operand shell code, read like the block.
    pub shell: bool,
    /// A word that may follow the name (`deno run`); `sub_required`: it must.
    pub sub: Option<&'static str>,
    pub sub_required: bool,
    /// Options whose value is code run instead of a file (`python -c`).
    pub inline: &'static [&'static str],
    /// Options whose value is a file it runs (`node -r`, `php -f`, `awk -f`).
    pub loads: &'static [&'static str],
    /// Options whose value is a module it runs (`python -m`).
    pub module: &'static [&'static str],
    /// Options whose value is the next word.
    pub valued: &'static [&'static str],
    /// Its first operand is program text unless `loads` gave the program (`awk`, `sed`).
    pub program_operand: bool,
    /// It runs every operand ending so (`go run a.go b.go`), or the first one (`java X.java`).
    pub ext: Option<&'static str>,
    /// Without a file operand it reads the code from standard input.
    pub stdin: bool,
    /// Short options cluster (`-uc`); not for single-dash long options (`java -jar`).
    pub clusters: bool,
}

const I: Interp = Interp {
    names: &[],
    shell: false,
    sub: None,
    sub_required: false,
    inline: &[],
    loads: &[],
    module: &[],
    valued: &[],
    program_operand: false,
    ext: None,
    stdin: true,
    clusters: true,
};

pub(super) const INTERPRETERS: &[Interp] = &[
    Interp {
        names: &["bash", "sh", "dash", "zsh", "ksh", "mksh", "ash", "fish"],
        shell: true,
        loads: &["--rcfile", "--init-file"],
        valued: &["-o", "+o", "-O", "+O"],
        ..I
    },
    Interp {
        names: &["python", "python3", "python2", "pypy", "pypy3"],
        inline: &["-c"],
        module: &["-m"],
        valued: &["-W", "-X", "-Q"],
        ..I
    },
    Interp {
        names: &["node", "nodejs", "tsx", "ts-node"],
        inline: &["-e", "--eval", "-p", "--print"],
        loads: &[
            "-r",
            "--require",
            "--import",
            "--loader",
            "--experimental-loader",
        ],
        valued: &[
            "-C",
            "--conditions",
            "--input-type",
            "--title",
            "-P",
            "--project",
            "-O",
            "--compiler-options",
        ],
        ..I
    },
    Interp {
        names: &["deno"],
        sub: Some("run"),
        loads: &["--preload"],
        valued: &[
            "-c",
            "--config",
            "--import-map",
            "--lock",
            "--cert",
            "--location",
        ],
        stdin: false,
        ..I
    },
    Interp {
        names: &["bun"],
        sub: Some("run"),
        loads: &["-r", "--preload"],
        inline: &["-e", "--eval", "-p", "--print"],
        valued: &[
            "--cwd",
            "-c",
            "--config",
            "--env-file",
            "--tsconfig-override",
        ],
        stdin: false,
        ..I
    },
    Interp {
        names: &["ruby"],
        inline: &["-e"],
        loads: &["-r"],
        valued: &["-I", "-C", "-E", "-F", "-K"],
        ..I
    },
    Interp {
        names: &["perl"],
        inline: &["-e", "-E"],
        valued: &["-I", "-M", "-m"],
        ..I
    },
    Interp {
        names: &["php"],
        inline: &["-r", "-B", "-R", "-E"],
        loads: &["-f", "-F"],
        valued: &["-c", "-d", "-z", "-t", "-S"],
        ..I
    },
    Interp {
        names: &["lua", "luajit"],
        inline: &["-e"],
        valued: &["-l"],
        ..I
    },
    Interp {
        names: &["Rscript"],
        inline: &["-e"],
        stdin: false,
        ..I
    },
    Interp {
        names: &["awk", "gawk", "mawk", "nawk"],
        loads: &["-f", "--file", "-i", "--include", "-E", "--exec"],
        valued: &["-v", "--assign", "-F", "--field-separator"],
        program_operand: true,
        stdin: false,
        ..I
    },
    Interp {
        names: &["sed"],
        inline: &["-e", "--expression"],
        loads: &["-f", "--file"],
        program_operand: true,
        stdin: false,
        ..I
    },
    Interp {
        names: &["java"],
        loads: &["-jar"],
        valued: &[
            "-cp",
            "-classpath",
            "--class-path",
            "-p",
            "--module-path",
            "--add-modules",
        ],
        ext: Some(".java"),
        stdin: false,
        clusters: false,
        ..I
    },
    Interp {
        names: &["go"],
        sub: Some("run"),
        sub_required: true,
        valued: &[
            "-C", "-o", "-p", "-tags", "-ldflags", "-gcflags", "-mod", "-exec",
        ],
        ext: Some(".go"),
        stdin: false,
        clusters: false,
        ..I
    },
];

/// The wrapper called `name` (a path's last part), if `next` (the word after it) makes it
/// one.
pub(super) fn wrapper(name: &str, next: Option<&str>) -> Option<&'static Wrapper> {
    WRAPPERS
        .iter()
        .find(|w| w.name == name && w.sub.is_none_or(|s| next == Some(s)))
}

/// The interpreter called `name`.
pub(super) fn interpreter(name: &str) -> Option<&'static Interp> {
    INTERPRETERS.iter().find(|i| i.names.contains(&name))
}

/// What one option word of a program is, by its tables.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Opt {
    /// A flag, or an option whose value it holds (`--x=1`, `-n5`).
    Flag,
    /// An option of `list` whose value is the next word.
    NextIn(&'static str),
    /// An option of `list` whose value it holds.
    ValueIn(&'static str, String),
    /// An abbreviation of a listed long option (`--sig` for `--signal`): getopt may take it
    /// for that option or another, so what follows cannot be read with certainty.
    Abbreviated,
}

/// Reads `word` (starting with `-`) against the option `lists`: long options with `=`, and
/// (with `clusters`) short clusters where a listed letter takes the rest of the cluster or
/// the next word (`-uc`, `-Wignore`, `-W ignore`). Programs with single-dash long options
/// (`java -jar`, `go run -tags`) have no clusters.
pub(super) fn option(word: &str, lists: &[&'static [&'static str]], clusters: bool) -> Opt {
    let find = |name: &str| {
        lists
            .iter()
            .flat_map(|l| l.iter())
            .find(|o| o.eq_ignore_ascii_case(name) && o.len() == name.len())
            .copied()
    };
    if word.starts_with("--") || (word.starts_with("+") && word.len() == 2) {
        let name = word.split('=').next().unwrap_or(word);
        let abbreviates = lists
            .iter()
            .flat_map(|l| l.iter())
            .any(|o| o.starts_with("--") && o.len() > name.len() && o.starts_with(name));
        return match (word.split_once('='), find(name)) {
            (Some((_, value)), Some(o)) => Opt::ValueIn(o, value.into()),
            (None, Some(o)) => Opt::NextIn(o),
            (_, None) if abbreviates && name.len() > 2 => Opt::Abbreviated,
            (_, None) => Opt::Flag,
        };
    }
    if let Some(o) = find(word) {
        return Opt::NextIn(o);
    }
    if !clusters {
        return Opt::Flag;
    }
    // A cluster: `-abc`, where a letter that takes a value takes the rest.
    for (k, c) in word.char_indices().skip(1) {
        if let Some(o) = find(&format!("-{c}")) {
            let rest = &word[k + c.len_utf8()..];
            return match rest.is_empty() {
                true => Opt::NextIn(o),
                false => Opt::ValueIn(o, rest.into()),
            };
        }
    }
    Opt::Flag
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_are_read_as_getopt_reads_them() {
        let valued: &'static [&'static str] = &["-W", "--signal"];
        let inline: &'static [&'static str] = &["-c"];
        assert_eq!(option("-W", &[valued], true), Opt::NextIn("-W"));
        assert_eq!(
            option("-Wignore", &[valued], true),
            Opt::ValueIn("-W", "ignore".into())
        );
        assert_eq!(option("-uc", &[valued, inline], true), Opt::NextIn("-c"));
        assert_eq!(option("-uc", &[valued, inline], false), Opt::Flag);
        assert_eq!(option("-u", &[valued, inline], true), Opt::Flag);
        assert_eq!(
            option("--signal=KILL", &[valued], true),
            Opt::ValueIn("--signal", "KILL".into())
        );
        assert_eq!(option("--signal", &[valued], true), Opt::NextIn("--signal"));
        assert_eq!(option("--sig", &[valued], true), Opt::Abbreviated);
        assert_eq!(option("--verbose", &[valued], true), Opt::Flag);
        assert!(wrapper("npm", Some("exec")).is_some() && wrapper("npm", Some("test")).is_none());
        assert!(interpreter("python3").is_some() && interpreter("make").is_none());
    }
}
