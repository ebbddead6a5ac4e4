//! Reading a shell block for the worktree files in executable position (see `mod.rs`): each
//! command's words after assignments, keywords and wrappers; an interpreter's file operand,
//! the files its options load, the code of `-c` and of its standard input (a redirected file,
//! a here-document, `cat FILE |`); the folder `cd` moved to; the substitutions inside words.
//! What cannot be read with certainty is said once ([`Reader::uncertain`]).

use std::path::{Path, PathBuf};

use super::lex::{lex, Op, Redir, Tok, Word};
use super::runners::{self, Interp, Opt, Wrapper};

/// How deep `-c` strings and substitutions are followed.
const MAX_DEPTH: usize = 8;

/// Variables whose value is a file every program (or the shell) loads as code.
const LOADS_FILE: &[&str] = &["BASH_ENV", "ENV", "LD_PRELOAD", "LD_AUDIT"];

/// Variables whose value can make a program load code: unreadable when they do.
const LOADS_BY_OPTION: &[(&str, &[&str])] = &[
    (
        "NODE_OPTIONS",
        &[
            "-r",
            "--require",
            "--import",
            "--loader",
            "--experimental-loader",
        ],
    ),
    ("RUBYOPT", &["-r"]),
    ("PERL5OPT", &["-M", "-m", "-d"]),
    ("JAVA_TOOL_OPTIONS", &["-javaagent", "-agentpath"]),
];

/// The folders a command may run in (a `cd` may fail, or sit in a branch not taken, so each
/// one adds its folder to those before it), or `None` once one is computed (`cd "$dir"`).
pub(super) type Cwd = Option<Vec<PathBuf>>;

/// Most folders a command is looked for in before the block counts as unreadable.
const MAX_CWDS: usize = 16;

/// One command of a block: its words and redirections.
#[derive(Debug, Default)]
struct Cmd {
    words: Vec<Word>,
    redirs: Vec<Redir>,
}

pub(super) struct Reader<'a> {
    root: &'a Path,
    home: Option<PathBuf>,
    /// The program search path (`$PATH`, as a block's `PATH=` assignments change it);
    /// `None` once it is computed.
    path: Option<Vec<String>>,
    /// The worktree files found (root-relative, absolute), each once.
    pub files: Vec<(String, PathBuf)>,
    /// Why the block cannot be read with certainty (the first reason found).
    pub uncertain: Option<String>,
    depth: usize,
}

impl<'a> Reader<'a> {
    pub fn new(root: &'a Path) -> Reader<'a> {
        let path = std::env::var("PATH")
            .map(|p| p.split(':').map(str::to_string).collect())
            .unwrap_or_default();
        Reader {
            root,
            home: std::env::var_os("HOME").map(PathBuf::from),
            path: Some(path),
            files: Vec::new(),
            uncertain: None,
            depth: 0,
        }
    }

    fn unsure(&mut self, why: String) {
        self.uncertain.get_or_insert(why);
    }

    /// Reads the shell code `src` run in `cwd`; the folder it ends in.
    pub fn code(&mut self, src: &str, cwd: Cwd) -> Cwd {
        if self.depth > MAX_DEPTH {
            self.unsure("it nests shell code deeper than git-clada follows".into());
            return cwd;
        }
        let toks = match lex(src) {
            Ok(t) => t,
            Err(e) => {
                self.unsure(format!("git-clada cannot read it as shell code ({e})"));
                return cwd;
            }
        };
        self.depth += 1;
        let mut cur = cwd;
        let mut scopes: Vec<Cwd> = Vec::new();
        let mut cmd = Cmd::default();
        let mut prev: Option<Cmd> = None;
        let mut piped = false;
        for tok in toks {
            let op = match tok {
                Tok::Word(w) => {
                    cmd.words.push(w);
                    continue;
                }
                Tok::Redir(r) => {
                    cmd.redirs.push(r);
                    continue;
                }
                Tok::Op(op) => op,
            };
            let feeds = if piped { prev.as_ref() } else { None };
            // A `cd` before `|` or `&`, or after `|`, runs in a subshell of its own.
            let sequential = !piped && !matches!(op, Op::Pipe | Op::Amp);
            self.command(&cmd, &mut cur, feeds, sequential);
            match op {
                Op::Open => scopes.push(cur.clone()),
                // A `)` with no `(` ends a `case` pattern.
                Op::Close => cur = scopes.pop().unwrap_or(cur),
                _ => {}
            }
            piped = op == Op::Pipe;
            prev = Some(std::mem::take(&mut cmd));
        }
        let feeds = if piped { prev.as_ref() } else { None };
        self.command(&cmd, &mut cur, feeds, !piped);
        self.depth -= 1;
        cur
    }

    /// One command (`sequential`: a `cd` in it moves the commands after it). A `PATH=`
    /// before a command word holds for that command only.
    fn command(&mut self, cmd: &Cmd, cwd: &mut Cwd, feeds: Option<&Cmd>, sequential: bool) {
        let before = self.path.clone();
        let mut words = cmd
            .words
            .iter()
            .skip_while(|w| assignment(&w.text).is_some());
        let prefix = cmd
            .words
            .iter()
            .take_while(|w| assignment(&w.text).is_some())
            .any(|w| assignment(&w.text).is_some_and(|(n, _)| n == "PATH"));
        let temporary = prefix
            && words.next().is_some_and(|w| {
                !matches!(
                    w.text.as_str(),
                    "export" | "declare" | "local" | "readonly" | "typeset"
                )
            });
        self.command_in(cmd, cwd, feeds, sequential);
        if temporary && self.path.is_some() {
            self.path = before;
        }
    }

    /// [`Reader::command`]: its substitutions, then what it runs.
    fn command_in(&mut self, cmd: &Cmd, cwd: &mut Cwd, feeds: Option<&Cmd>, sequential: bool) {
        for w in cmd.words.iter().chain(cmd.redirs.iter().map(|r| &r.target)) {
            for body in &w.subs {
                self.code(body, cwd.clone());
            }
        }
        let words = &cmd.words[..];
        let mut i = self.assignments(words, 0, cwd);
        // Reserved words that open a compound command, then the command they run.
        while let Some(w) = words.get(i).filter(|w| !w.quoted) {
            match w.text.as_str() {
                "!" | "if" | "then" | "elif" | "else" | "do" | "while" | "until" | "{" => i += 1,
                "time" => {
                    i += 1;
                    if words.get(i).is_some_and(|w| w.text == "-p") {
                        i += 1;
                    }
                }
                "fi" | "done" | "esac" | "}" | "for" | "select" | "case" | "function" | "in"
                | "[[" | "]]" => return,
                _ => break,
            }
        }
        let mut here = cwd.clone();
        loop {
            i = self.assignments(words, i, &here);
            let Some(w) = words.get(i) else { return };
            if !w.literal() {
                return self.unsure(format!(
                    "the command it runs is computed when it runs (`{}`)",
                    w.text
                ));
            }
            let name = w.text.rsplit('/').next().unwrap_or(&w.text).to_string();
            let next = words.get(i + 1).map(|w| w.text.as_str());
            if let Some(wr) = runners::wrapper(&name, next) {
                self.bind_program(w, &here, false);
                match self.wrapped(wr, words, i, &mut here) {
                    Some(j) => {
                        i = j;
                        if let Some(w) = words.get(i).filter(|w| w.literal()) {
                            let base = w.text.rsplit('/').next().unwrap_or(&w.text);
                            if wr.appends && runners::interpreter(base).is_some() {
                                return self.unsure(format!(
                                    "`{} {}` runs files it reads from its input",
                                    wr.name, w.text
                                ));
                            }
                            self.bind_bins(wr.bins, &w.text, &here);
                        }
                        continue;
                    }
                    None => return,
                }
            }
            if matches!(name.as_str(), "cd" | "pushd" | "popd") {
                if sequential {
                    *cwd = self.cd(&name, &words[i + 1..], &here);
                }
                return;
            }
            return self.program(cmd, i, &name, &here, feeds);
        }
    }

    /// Skips the variable assignments at `i` (checking those that make programs load
    /// code); the index after them.
    fn assignments(&mut self, words: &[Word], mut i: usize, cwd: &Cwd) -> usize {
        while let Some(w) = words.get(i) {
            let Some((name, value)) = assignment(&w.text) else {
                break;
            };
            self.assigned(name, value, w, cwd);
            i += 1;
        }
        i
    }

    /// A variable assignment of the block (`export X=…` too).
    fn assigned(&mut self, name: &str, value: &str, w: &Word, cwd: &Cwd) {
        if name == "PATH" {
            self.path = self
                .path
                .take()
                .and_then(|old| self.new_path(value, w, old));
        } else if LOADS_FILE.contains(&name) {
            match w.literal() {
                true => {
                    for v in value.split(':').filter(|v| !v.is_empty()) {
                        self.bind_path(v, cwd);
                    }
                }
                false => self.unsure(format!(
                    "it sets {name}, which loads a file as code, to a value computed when it runs"
                )),
            }
        } else if let Some((_, opts)) = LOADS_BY_OPTION.iter().find(|(n, _)| *n == name) {
            if !w.literal() || opts.iter().any(|o| value.contains(o)) {
                self.unsure(format!("it sets {name}, which makes programs load code"));
            }
        }
    }

    /// The search path after `PATH=value`: its literal folders and `$PATH`; `None` when a
    /// part is computed otherwise.
    fn new_path(&self, value: &str, w: &Word, old: Vec<String>) -> Option<Vec<String>> {
        let mut out = Vec::new();
        for part in value.split(':') {
            match part {
                "$PATH" | "${PATH}" => out.extend(old.iter().cloned()),
                p if p.contains(['$', '`']) => {
                    let home = self.home.as_ref()?.to_string_lossy().into_owned();
                    let p = p.replace("${HOME}", &home).replace("$HOME", &home);
                    if p.contains(['$', '`']) {
                        return None;
                    }
                    out.push(p);
                }
                p => out.push(p.to_string()),
            }
        }
        (!w.glob).then_some(out)
    }

    /// A wrapper at `i`: the index of the command it runs, or `None` when it runs none
    /// that can be read (then said) or none at all.
    fn wrapped(&mut self, wr: &Wrapper, words: &[Word], i: usize, here: &mut Cwd) -> Option<usize> {
        let mut j = i + 1 + usize::from(wr.sub.is_some());
        let mut operands = wr.operands;
        while let Some(w) = words.get(j) {
            let t = w.text.as_str();
            if t == "--" {
                j += 1;
                break;
            }
            if t.starts_with('-') && t.len() > 1 && w.literal() {
                let lists = [wr.valued, wr.chdir, wr.inline, wr.stop, wr.unreadable];
                let (opt, value) = match runners::option(t, &lists, true) {
                    Opt::Flag => {
                        if wr.strict && !t.chars().skip(1).all(|c| c.is_ascii_digit()) {
                            self.unsure(format!(
                                "`{} {t}`: git-clada does not read its options",
                                wr.name
                            ));
                            return None;
                        }
                        j += 1;
                        continue;
                    }
                    Opt::Abbreviated => {
                        self.unsure(format!("`{} {t}` abbreviates an option", wr.name));
                        return None;
                    }
                    Opt::NextIn(o) => {
                        j += 1;
                        (o, words.get(j).cloned().unwrap_or_default())
                    }
                    Opt::ValueIn(o, v) => (
                        o,
                        Word {
                            text: v,
                            ..Word::default()
                        },
                    ),
                };
                j += 1;
                if wr.stop.contains(&opt) {
                    return None;
                }
                if wr.unreadable.contains(&opt) || !value.literal() {
                    self.unsure(format!("`{} {opt}` makes its command unreadable", wr.name));
                    return None;
                }
                if wr.inline.contains(&opt) {
                    self.code(&value.text, here.clone());
                    return None;
                }
                if wr.chdir.contains(&opt) {
                    *here = self.join(here, &value);
                }
                continue;
            }
            if wr.name == "env" && t.contains('=') {
                return Some(j);
            }
            if operands > 0 {
                operands -= 1;
                j += 1;
                continue;
            }
            break;
        }
        Some(j)
    }

    /// The program at `words[i]` (called `name`), not a wrapper.
    fn program(&mut self, cmd: &Cmd, i: usize, name: &str, here: &Cwd, feeds: Option<&Cmd>) {
        let words = &cmd.words[..];
        let args = &words[i + 1..];
        match name {
            "export" | "declare" | "local" | "readonly" | "typeset" => {
                self.assignments(args, 0, here);
                for w in args.iter().filter(|w| !w.text.starts_with('-')) {
                    self.assignments(std::slice::from_ref(w), 0, here);
                }
                return;
            }
            "source" | "." => {
                match args.iter().find(|w| w.text != "--") {
                    Some(f) if f.literal() => {
                        self.bind_source(f, here);
                        // What it sets (a venv's `activate` puts its `bin` first on PATH) is
                        // not read: programs looked up in PATH after it are not known.
                        self.path = None;
                    }
                    Some(f) => self.unsure(format!(
                        "`{name} {}` sources a file named when it runs",
                        f.text
                    )),
                    None => {}
                }
                return;
            }
            "find" => return self.find_exec(args, here),
            "git"
                if args.iter().any(|w| {
                    w.text == "-c"
                        || w.text.starts_with("--config-env")
                        || w.text.starts_with("--exec-path")
                }) =>
            {
                return self.unsure("`git -c` can name a program for git to run".into());
            }
            _ => {}
        }
        if runners::UNREADABLE.contains(&name) {
            return self.unsure(format!(
                "`{name}` runs commands or code git-clada does not read"
            ));
        }
        self.bind_program(&words[i], here, true);
        if let Some(interp) = runners::interpreter(name) {
            self.interpreter(interp, cmd, i, here, feeds);
        }
    }

    /// `find`'s `-exec`, `-execdir`, `-ok`, `-okdir`: the program each runs; unreadable when
    /// it is what `find` found (`{}`), an interpreter fed it, or relative to the found file's
    /// folder (`-execdir ./x`).
    fn find_exec(&mut self, args: &[Word], here: &Cwd) {
        let mut k = 0;
        while k < args.len() {
            let t = args[k].text.as_str();
            k += 1;
            if !matches!(t, "-exec" | "-execdir" | "-ok" | "-okdir") {
                continue;
            }
            let Some(w) = args.get(k) else { return };
            let base = w.text.rsplit('/').next().unwrap_or(&w.text);
            let runs_found = !w.literal()
                || w.text.contains("{}")
                || runners::interpreter(base).is_some()
                || runners::wrapper(base, None).is_some()
                || runners::UNREADABLE.contains(&base)
                || (t.ends_with("dir") && w.text.contains('/') && !w.text.starts_with('/'));
            if runs_found {
                return self.unsure(format!("`find {t} {}` runs what find finds", w.text));
            }
            self.bind_program(w, here, true);
            while k < args.len() && !matches!(args[k].text.as_str(), ";" | "+") {
                k += 1;
            }
        }
    }

    /// `cd`, `pushd` or `popd` with `args` from `here`: the folders after it (those before
    /// it too: it may fail, or not run).
    fn cd(&mut self, name: &str, args: &[Word], here: &Cwd) -> Cwd {
        let target = args
            .iter()
            .find(|w| !w.text.starts_with('-') || w.text == "-");
        let moved = match (name, target) {
            ("popd", _) | (_, None) => None,
            (_, Some(t)) if t.text == "-" || !t.literal() => None,
            (_, Some(t)) => self.join(here, t),
        }?;
        let mut dirs = here.clone()?;
        for d in moved {
            if !dirs.contains(&d) {
                dirs.push(d);
            }
        }
        (dirs.len() <= MAX_CWDS).then_some(dirs)
    }

    /// Each folder of `here` joined with the word `w` (`~` is the home folder); `None` when
    /// either is unknown.
    fn join(&self, here: &Cwd, w: &Word) -> Cwd {
        let text = if w.tilde {
            let rest = w.text.strip_prefix('~')?;
            if !(rest.is_empty() || rest.starts_with('/')) {
                return None;
            }
            format!("{}{rest}", self.home.as_ref()?.display())
        } else {
            w.text.clone()
        };
        if Path::new(&text).is_absolute() {
            return Some(vec![crate::sandbox::normalize(Path::new(&text))]);
        }
        let dirs = here.as_ref()?;
        Some(
            dirs.iter()
                .map(|h| crate::sandbox::normalize(&h.join(&text)))
                .collect(),
        )
    }

    /// An interpreter at `words[i]`: the files and code it runs.
    fn interpreter(&mut self, it: &Interp, cmd: &Cmd, i: usize, here: &Cwd, feeds: Option<&Cmd>) {
        let words = &cmd.words[..];
        let Some(j) = subcommand(it, words, i) else {
            return;
        };
        let Some(o) = self.interpreter_options(it, words, i, j, here) else {
            return;
        };
        let (j, here) = (o.next, o.here);
        let (command_string, from_stdin, loaded) = (o.command_string, o.from_stdin, o.loaded);
        let operand = words.get(j).filter(|_| !from_stdin);
        match operand {
            Some(w) if it.shell && command_string => match w.literal() {
                true => {
                    self.code(&w.text, here);
                }
                false => self.unsure(format!(
                    "`{} -c` runs shell code computed when it runs",
                    words[i].text
                )),
            },
            // `awk 'prog' data`, `awk -f prog.awk data`: no operand is run.
            Some(_) if it.program_operand => {}
            Some(_) if it.ext.is_some() => {
                let ext = it.ext.unwrap_or_default();
                for w in words[j..]
                    .iter()
                    .take_while(|w| w.text.ends_with(ext) || !w.literal())
                {
                    match w.literal() {
                        true => self.bind_path(&w.text, &here),
                        false => {
                            return self.unsure(format!(
                                "`{}` runs a file named when it runs",
                                words[i].text
                            ))
                        }
                    }
                }
            }
            Some(w) if w.literal() => self.bind_path(&w.text, &here),
            Some(w) => self.unsure(format!(
                "`{} {}` runs a file named when it runs",
                words[i].text, w.text
            )),
            None if (it.stdin || from_stdin) && !loaded && !command_string => {
                self.stdin(it, cmd, feeds, &here)
            }
            None => {}
        }
    }

    /// Reads an interpreter's options from `words[j]` on; `None` when they end the reading
    /// (inline code, a module, or what cannot be read, then said).
    fn interpreter_options(
        &mut self,
        it: &Interp,
        words: &[Word],
        i: usize,
        mut j: usize,
        here: &Cwd,
    ) -> Option<Options> {
        let mut o = Options {
            next: j,
            here: here.clone(),
            command_string: false,
            from_stdin: false,
            loaded: false,
        };
        while let Some(w) = words.get(j) {
            let t = w.text.as_str();
            if t == "--" {
                j += 1;
                break;
            }
            if t == "-" {
                o.from_stdin = true;
                break;
            }
            if !(t.starts_with('-') || (it.shell && t.starts_with('+') && t.len() > 1))
                || t.len() < 2
            {
                break;
            }
            let prog = &words[i].text;
            if !w.literal() {
                self.unsure(format!("an option of `{prog}` is computed when it runs"));
                return None;
            }
            if it.shell && !t.starts_with("--") {
                o.command_string |= t.starts_with('-') && t.contains('c');
                o.from_stdin |= t.starts_with('-') && t.contains('s');
            }
            let lists = [it.inline, it.loads, it.module, it.valued];
            let (opt, value) = match runners::option(t, &lists, it.clusters) {
                Opt::Flag => {
                    j += 1;
                    continue;
                }
                Opt::Abbreviated => {
                    self.unsure(format!("`{prog} {t}` abbreviates an option"));
                    return None;
                }
                Opt::NextIn(opt) => {
                    j += 2;
                    (opt, words.get(j - 1).cloned().unwrap_or_default())
                }
                Opt::ValueIn(opt, v) => {
                    j += 1;
                    let value = Word {
                        text: v,
                        ..Word::default()
                    };
                    (opt, value)
                }
            };
            if it.inline.contains(&opt) {
                return None;
            }
            if !value.literal() && (it.loads.contains(&opt) || it.module.contains(&opt)) {
                self.unsure(format!("`{prog} {opt}` names a file computed when it runs"));
                return None;
            }
            if it.loads.contains(&opt) {
                o.loaded = true;
                self.bind_path(&value.text, &o.here);
            } else if it.module.contains(&opt) {
                self.bind_module(&value.text, &o.here);
                return None;
            } else if matches!(opt, "-C" | "--cwd") && matches!(it.names[0], "ruby" | "bun") {
                o.here = self.join(&o.here, &value);
            }
        }
        o.next = j;
        Some(o)
    }

    /// An interpreter reading its code from standard input: a redirected file, a
    /// here-document or here-string, `cat FILE |`; anything else piped in is unreadable.
    fn stdin(&mut self, it: &Interp, cmd: &Cmd, feeds: Option<&Cmd>, here: &Cwd) {
        if let Some(r) = cmd.redirs.iter().rev().find(|r| r.stdin()) {
            match r.op.as_str() {
                "<" if r.target.literal() => self.bind_path(&r.target.text, here),
                "<" => {
                    self.unsure("the shell reads its code from a file named when it runs".into())
                }
                "<<<" if it.shell && r.target.literal() => {
                    self.code(&r.target.text, here.clone());
                }
                "<<<" if it.shell => {
                    self.unsure("the shell reads code computed when it runs".into())
                }
                _ if it.shell => {
                    self.code(r.body.as_deref().unwrap_or_default(), here.clone());
                }
                _ => {}
            }
            return;
        }
        let Some(prev) = feeds else {
            // Standard input is closed: there is no code to read.
            return;
        };
        let literal = prev.words.iter().all(Word::literal);
        let args = prev.words.get(1..).unwrap_or_default();
        match prev.words.first().map(|w| w.text.as_str()) {
            Some("cat") if literal => {
                for w in args.iter().filter(|w| !w.text.starts_with('-')) {
                    self.bind_path(&w.text, here);
                }
            }
            // `echo 'print(1)' | python`: code written in the block itself.
            Some("echo" | "printf") if literal && !it.shell => {}
            Some("echo") if literal && args.first().is_none_or(|a| !a.text.starts_with('-')) => {
                let text: Vec<&str> = args.iter().map(|w| w.text.as_str()).collect();
                self.code(&text.join(" "), here.clone());
            }
            _ => self.unsure("it pipes another command's output into an interpreter".into()),
        }
    }

    /// The program word `w`: with a `/`, the file it names; without, the file `$PATH`
    /// finds (a worktree folder on `$PATH`, `./bin` through a block's `PATH=`), when
    /// `search`.
    fn bind_program(&mut self, w: &Word, here: &Cwd, search: bool) {
        if w.text.contains('/') || w.tilde {
            return self.bind_path(&w.text, here);
        }
        if !search || is_builtin(&w.text) {
            return;
        }
        let Some(path) = self.path.clone() else {
            return self.unsure(format!(
                "`{}` is looked up in a PATH a computed `PATH=` or a sourced file may have changed",
                w.text
            ));
        };
        for dir in path {
            let dir = if dir.is_empty() { ".".to_string() } else { dir };
            if Path::new(&dir).is_relative() && here.is_none() {
                return self.unsure(format!(
                    "`{}` is looked up in a relative PATH folder after a `cd` to a computed folder",
                    w.text
                ));
            }
            let found = self.found(&Path::new(&dir).join(&w.text), here);
            if !found.is_empty() {
                for f in found {
                    self.add(f);
                }
                return;
            }
        }
    }

    /// The files a wrapper finds its command `name` in: each of `bins` (a `*` part is every
    /// folder there) from `here` up to the worktree root (`npx`: `node_modules/.bin`).
    fn bind_bins(&mut self, bins: &[&str], name: &str, here: &Cwd) {
        if name.contains('/') || bins.is_empty() {
            return;
        }
        for mut dir in here.clone().unwrap_or_default() {
            loop {
                for bin in bins {
                    for folder in expand_star(&dir, bin) {
                        if let Some(f) = worktree_file(&folder.join(name), self.root) {
                            self.add(f);
                        }
                    }
                }
                if dir == self.root || !dir.pop() || !dir.starts_with(self.root) {
                    break;
                }
            }
        }
    }

    /// A file `source` reads: from `$PATH` without a `/`, and from the folder.
    fn bind_source(&mut self, w: &Word, here: &Cwd) {
        self.bind_path(&w.text, here);
        if !w.text.contains('/') {
            self.bind_program(w, here, true);
        }
    }

    /// `python -m module`: the worktree file it runs, if any.
    fn bind_module(&mut self, module: &str, here: &Cwd) {
        let rel = module.replace('.', "/");
        for f in [format!("{rel}.py"), format!("{rel}/__main__.py")] {
            for found in self.found(Path::new(&f), here) {
                self.add(found);
            }
        }
    }

    /// The file `text` names from `here`.
    fn bind_path(&mut self, text: &str, here: &Cwd) {
        let w = Word {
            text: text.to_string(),
            tilde: text.starts_with('~'),
            ..Word::default()
        };
        if here.is_none() && !Path::new(text).is_absolute() && !w.tilde {
            return self.unsure(format!(
                "it runs `{text}` after a `cd` to a folder computed when it runs"
            ));
        }
        for p in self.join(here, &w).unwrap_or_default() {
            if let Some(found) = worktree_file(&p, self.root) {
                self.add(found);
            }
        }
    }

    /// The worktree files `p` is from the folders of `here`.
    fn found(&self, p: &Path, here: &Cwd) -> Vec<(String, PathBuf)> {
        let dirs = match (p.is_absolute(), here) {
            (true, _) => vec![PathBuf::new()],
            (false, Some(h)) => h.clone(),
            (false, None) => Vec::new(),
        };
        dirs.iter()
            .filter_map(|d| worktree_file(&d.join(p), self.root))
            .collect()
    }

    fn add(&mut self, found: (String, PathBuf)) {
        if !self.files.iter().any(|(r, _)| *r == found.0) {
            self.files.push(found);
        }
    }
}

/// What an interpreter's options said.
struct Options {
    /// The index of its first operand.
    next: usize,
    /// The folder it runs in (`ruby -C`, `bun --cwd`).
    here: Cwd,
    /// A shell's `-c`: the first operand is shell code.
    command_string: bool,
    /// `-s` or `-`: the code comes from standard input.
    from_stdin: bool,
    /// An option named the file it runs (`node -r`, `awk -f`).
    loaded: bool,
}

/// The index after an interpreter's subcommand (`deno run`, `go run`), or `None` when it runs
/// another subcommand (`deno test`, `go build`: project code, bound to the text like `npm
/// test`).
fn subcommand(it: &Interp, words: &[Word], i: usize) -> Option<usize> {
    let j = i + 1;
    let Some(sub) = it.sub else {
        return Some(j);
    };
    match words.get(j) {
        Some(w) if w.text == sub => Some(j + 1),
        _ if it.sub_required => None,
        Some(w) if w.literal() && !w.text.starts_with('-') && !w.text.contains(['.', '/']) => None,
        _ => Some(j),
    }
}

/// `NAME=value` (or `NAME+=value`) as name and value.
fn assignment(text: &str) -> Option<(&str, &str)> {
    let (name, value) = text.split_once('=')?;
    let name = name.strip_suffix('+').unwrap_or(name);
    let valid = !name.is_empty()
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !name.starts_with(|c: char| c.is_ascii_digit());
    valid.then_some((name, value))
}

/// `rel` under `dir`, each `*` part standing for every folder there.
fn expand_star(dir: &Path, rel: &str) -> Vec<PathBuf> {
    let mut out = vec![dir.to_path_buf()];
    for part in rel.split('/') {
        out = match part {
            "*" => out
                .iter()
                .filter_map(|d| std::fs::read_dir(d).ok())
                .flat_map(|rd| rd.flatten().map(|e| e.path()))
                .filter(|p| p.is_dir())
                .take(64)
                .collect(),
            p => out.iter().map(|d| d.join(p)).collect(),
        };
    }
    out
}

/// Builtins and keywords `$PATH` is not searched for.
fn is_builtin(name: &str) -> bool {
    matches!(
        name,
        "echo"
            | "printf"
            | "test"
            | "["
            | "true"
            | "false"
            | ":"
            | "read"
            | "set"
            | "unset"
            | "shift"
            | "return"
            | "exit"
            | "break"
            | "continue"
            | "wait"
            | "shopt"
            | "type"
            | "hash"
            | "alias"
            | "unalias"
            | "let"
            | "jobs"
            | "kill"
            | "umask"
            | "getopts"
    )
}

/// `p` as a regular file inside `root`: its root-relative path and real path.
pub(super) fn worktree_file(p: &Path, root: &Path) -> Option<(String, PathBuf)> {
    let canon = std::fs::canonicalize(p).ok()?;
    let root = std::fs::canonicalize(root).ok()?;
    let rel = canon.strip_prefix(&root).ok()?;
    if rel.as_os_str().is_empty() || !std::fs::metadata(&canon).ok()?.is_file() {
        return None;
    }
    Some((rel.display().to_string(), canon))
}
