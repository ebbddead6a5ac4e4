//! A shell lexer just deep enough to find what a command runs: words with their quotes
//! removed (and whether any part of them is computed: a variable, a substitution, a glob),
//! the bodies of command and process substitutions, control operators, redirections and
//! here-documents. Anything it cannot read (an unterminated quote, an unbalanced
//! substitution) is an error: the caller then cannot bind the command with certainty.

/// One shell word.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Word {
    /// The word with quotes and escapes removed; computed parts are kept as written.
    pub text: String,
    /// A part of it is computed: `$NAME`, `${…}`, `$(…)`, a backtick, `<(…)`.
    pub dynamic: bool,
    /// An unquoted glob or brace expansion (`*`, `?`, `[`, `{a,b}`).
    pub glob: bool,
    /// An unquoted `~` starts it.
    pub tilde: bool,
    /// Some part of it was quoted or escaped (a quoted `if` is no keyword).
    pub quoted: bool,
    /// The code of its command and process substitutions.
    pub subs: Vec<String>,
}

impl Word {
    /// Whether the word is plain text: what the shell passes is exactly [`Word::text`].
    pub fn literal(&self) -> bool {
        !self.dynamic && !self.glob
    }
}

/// A control operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Op {
    /// `;`, `;;`, a new line.
    Seq,
    And,
    Or,
    Pipe,
    /// `&`: the command before it runs in the background.
    Amp,
    Open,
    Close,
}

/// A redirection: `[n]<`, `>`, `>>`, `<&`, `>&`, `<>`, `>|`, `&>`, `&>>`, `<<`, `<<-`, `<<<`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Redir {
    pub fd: Option<u32>,
    pub op: String,
    pub target: Word,
    /// A here-document's text.
    pub body: Option<String>,
}

impl Redir {
    /// Whether it sets standard input.
    pub fn stdin(&self) -> bool {
        matches!(self.fd, None | Some(0)) && matches!(self.op.as_str(), "<" | "<<" | "<<-" | "<<<")
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Tok {
    Word(Word),
    Op(Op),
    Redir(Redir),
}

/// The tokens of `src`, or why it cannot be read.
pub(super) fn lex(src: &str) -> Result<Vec<Tok>, String> {
    let mut l = Lexer {
        s: src.chars().collect(),
        i: 0,
        out: Vec::new(),
        heredocs: Vec::new(),
    };
    l.run()?;
    Ok(l.out)
}

struct Lexer {
    s: Vec<char>,
    i: usize,
    out: Vec<Tok>,
    /// Here-documents whose text starts at the next line: token index, delimiter, `<<-`.
    heredocs: Vec<(usize, String, bool)>,
}

impl Lexer {
    fn peek(&self, k: usize) -> Option<char> {
        self.s.get(self.i + k).copied()
    }

    fn run(&mut self) -> Result<(), String> {
        while let Some(c) = self.peek(0) {
            match c {
                ' ' | '\t' | '\r' => self.i += 1,
                '\\' if self.peek(1) == Some('\n') => self.i += 2,
                '#' => {
                    while self.peek(0).is_some_and(|c| c != '\n') {
                        self.i += 1;
                    }
                }
                '\n' => {
                    self.i += 1;
                    self.out.push(Tok::Op(Op::Seq));
                    self.read_heredocs();
                }
                ';' => {
                    self.i += if self.peek(1) == Some(';') { 2 } else { 1 };
                    self.out.push(Tok::Op(Op::Seq));
                }
                '&' if self.peek(1) == Some('&') => self.op(2, Op::And),
                '|' if self.peek(1) == Some('|') => self.op(2, Op::Or),
                '|' if self.peek(1) == Some('&') => self.op(2, Op::Pipe),
                '|' => self.op(1, Op::Pipe),
                '&' if self.peek(1) == Some('>') => self.redir(None)?,
                '&' => self.op(1, Op::Amp),
                '(' => self.op(1, Op::Open),
                ')' => self.op(1, Op::Close),
                '<' | '>' if self.peek(1) != Some('(') => self.redir(None)?,
                d if d.is_ascii_digit() && self.fd_redir() => {
                    let mut n = 0u32;
                    while let Some(d) = self.peek(0).and_then(|c| c.to_digit(10)) {
                        n = n.saturating_mul(10).saturating_add(d);
                        self.i += 1;
                    }
                    self.redir(Some(n))?;
                }
                _ => {
                    let w = self.word()?;
                    self.out.push(Tok::Word(w));
                }
            }
        }
        if !self.heredocs.is_empty() {
            self.read_heredocs();
        }
        Ok(())
    }

    fn op(&mut self, len: usize, op: Op) {
        self.i += len;
        self.out.push(Tok::Op(op));
    }

    /// Whether the digits here are a redirection's descriptor (`2>`, `0<`).
    fn fd_redir(&self) -> bool {
        let mut k = 0;
        while self.peek(k).is_some_and(|c| c.is_ascii_digit()) {
            k += 1;
        }
        matches!(self.peek(k), Some('<' | '>')) && self.peek(k + 1) != Some('(')
    }

    fn redir(&mut self, fd: Option<u32>) -> Result<(), String> {
        let ops = [
            "&>>", "<<<", "<<-", "<<", "<>", "<&", ">>", ">&", ">|", "&>", "<", ">",
        ];
        let op = ops
            .iter()
            .find(|o| o.chars().enumerate().all(|(k, c)| self.peek(k) == Some(c)))
            .ok_or("a redirection it cannot read")?;
        self.i += op.len();
        while matches!(self.peek(0), Some(' ' | '\t')) {
            self.i += 1;
        }
        let target = self.word()?;
        if matches!(*op, "<<" | "<<-") {
            self.heredocs
                .push((self.out.len(), target.text.clone(), *op == "<<-"));
        }
        self.out.push(Tok::Redir(Redir {
            fd,
            op: op.to_string(),
            target,
            body: None,
        }));
        Ok(())
    }

    /// Reads the text of the pending here-documents, from the current line on.
    fn read_heredocs(&mut self) {
        for (at, delim, strip) in std::mem::take(&mut self.heredocs) {
            let mut body = String::new();
            while self.i < self.s.len() {
                let end = (self.i..self.s.len())
                    .find(|&k| self.s[k] == '\n')
                    .unwrap_or(self.s.len());
                let line: String = self.s[self.i..end].iter().collect();
                self.i = (end + 1).min(self.s.len());
                let line = if strip {
                    line.trim_start_matches('\t').to_string()
                } else {
                    line
                };
                if line == delim {
                    break;
                }
                body.push_str(&line);
                body.push('\n');
            }
            if let Some(Tok::Redir(r)) = self.out.get_mut(at) {
                r.body = Some(body);
            }
        }
    }

    /// One word, up to an unquoted blank or operator.
    fn word(&mut self) -> Result<Word, String> {
        let mut w = Word::default();
        let start = self.i;
        while let Some(c) = self.peek(0) {
            match c {
                ' ' | '\t' | '\n' | '\r' | ';' | '&' | '|' | ')' => break,
                '(' if self.i == start => break,
                '<' | '>' if self.peek(1) == Some('(') => {
                    self.i += 1;
                    let body = self.balanced('(', ')')?;
                    w.subs.push(body);
                    w.dynamic = true;
                    w.text.push_str("<(…)");
                }
                '<' | '>' | '(' => break,
                '\\' => {
                    w.quoted = true;
                    if let Some(n) = self.peek(1) {
                        if n != '\n' {
                            w.text.push(n);
                        }
                    }
                    self.i += 2;
                }
                '\'' => {
                    w.quoted = true;
                    self.i += 1;
                    loop {
                        match self.peek(0) {
                            None => return Err("an unterminated quote".into()),
                            Some('\'') => break,
                            Some(c) => w.text.push(c),
                        }
                        self.i += 1;
                    }
                    self.i += 1;
                }
                '"' => {
                    w.quoted = true;
                    self.i += 1;
                    self.double_quoted(&mut w)?;
                }
                '$' | '`' => self.dollar(&mut w)?,
                '*' | '?' => {
                    w.glob = true;
                    w.text.push(c);
                    self.i += 1;
                }
                '[' => {
                    // A bracket expression needs its `]` in the same word (`[` is `test`).
                    w.glob |= self.closes_in_word(']');
                    w.text.push(c);
                    self.i += 1;
                }
                '{' if self.brace_expansion() => {
                    w.glob = true;
                    w.text.push(c);
                    self.i += 1;
                }
                '~' if self.i == start => {
                    w.tilde = true;
                    w.text.push(c);
                    self.i += 1;
                }
                c => {
                    w.text.push(c);
                    self.i += 1;
                }
            }
        }
        Ok(w)
    }

    /// Whether `close` comes later in the word that goes on here.
    fn closes_in_word(&self, close: char) -> bool {
        let mut k = 1;
        while let Some(c) = self.peek(k) {
            if c == close {
                return true;
            }
            if matches!(
                c,
                ' ' | '\t' | '\n' | ';' | '&' | '|' | '<' | '>' | '(' | ')'
            ) {
                return false;
            }
            k += 1;
        }
        false
    }

    /// Whether the `{` here opens a brace expansion (`{a,b}`, `{1..3}`) before the word ends.
    fn brace_expansion(&self) -> bool {
        let mut k = 1;
        while let Some(c) = self.peek(k) {
            match c {
                '}' => return false,
                ',' => return true,
                '.' if self.peek(k + 1) == Some('.') => return true,
                ' ' | '\t' | '\n' | ';' | '&' | '|' => return false,
                _ => k += 1,
            }
        }
        false
    }

    /// The rest of a double-quoted part (after its opening quote).
    fn double_quoted(&mut self, w: &mut Word) -> Result<(), String> {
        loop {
            match self.peek(0) {
                None => return Err("an unterminated quote".into()),
                Some('"') => {
                    self.i += 1;
                    return Ok(());
                }
                Some('\\') => {
                    match self.peek(1) {
                        Some(n @ ('$' | '`' | '"' | '\\')) => w.text.push(n),
                        Some('\n') => {}
                        Some(n) => {
                            w.text.push('\\');
                            w.text.push(n);
                        }
                        None => return Err("an unterminated quote".into()),
                    }
                    self.i += 2;
                }
                Some('$' | '`') => self.dollar(w)?,
                Some(c) => {
                    w.text.push(c);
                    self.i += 1;
                }
            }
        }
    }

    /// A `$…` expansion or a backtick substitution, at `self.i`.
    fn dollar(&mut self, w: &mut Word) -> Result<(), String> {
        let start = self.i;
        if self.peek(0) == Some('`') {
            self.i += 1;
            let mut body = String::new();
            loop {
                match self.peek(0) {
                    None => return Err("an unterminated backtick".into()),
                    Some('`') => break,
                    Some('\\') if matches!(self.peek(1), Some('`' | '\\' | '$')) => {
                        body.push(self.s[self.i + 1]);
                        self.i += 2;
                        continue;
                    }
                    Some(c) => body.push(c),
                }
                self.i += 1;
            }
            self.i += 1;
            w.subs.push(body);
        } else {
            self.i += 1;
            match self.peek(0) {
                Some('(') if self.peek(1) == Some('(') => {
                    // Arithmetic: no command, but a computed value.
                    self.balanced('(', ')')?;
                }
                Some('(') => {
                    let body = self.balanced('(', ')')?;
                    w.subs.push(body);
                }
                Some('{') => {
                    let inner = self.balanced('{', '}')?;
                    // `${x:-$(cmd)}` runs its substitution too.
                    if inner.contains("$(") || inner.contains('`') {
                        w.subs.push(inner);
                    }
                }
                Some(c) if c.is_ascii_alphanumeric() || "_@*#?$!-".contains(c) => {
                    self.i += 1;
                    if c.is_ascii_alphabetic() || c == '_' {
                        while self
                            .peek(0)
                            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
                        {
                            self.i += 1;
                        }
                    }
                }
                Some('\'') | Some('"') => {
                    // `$'…'` and `$"…"`: quoted text.
                    return Ok(());
                }
                _ => {
                    w.text.push('$');
                    return Ok(());
                }
            }
        }
        w.dynamic = true;
        w.text.extend(&self.s[start..self.i]);
        Ok(())
    }

    /// The text between the `open` at `self.i` and its matching `close` (quotes respected),
    /// leaving `self.i` after it.
    fn balanced(&mut self, open: char, close: char) -> Result<String, String> {
        let begin = self.i + 1;
        let mut depth = 0usize;
        let mut quote: Option<char> = None;
        while let Some(c) = self.peek(0) {
            match (quote, c) {
                (_, '\\') => self.i += 1,
                (Some(q), c) if c == q => quote = None,
                (Some(_), _) => {}
                (None, '\'' | '"' | '`') => quote = Some(c),
                (None, c) if c == open => depth += 1,
                (None, c) if c == close => {
                    depth -= 1;
                    if depth == 0 {
                        let body: String = self.s[begin..self.i].iter().collect();
                        self.i += 1;
                        return Ok(body);
                    }
                }
                _ => {}
            }
            self.i += 1;
        }
        Err(format!("an unbalanced '{open}'"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(src: &str) -> Vec<String> {
        lex(src)
            .unwrap()
            .into_iter()
            .map(|t| match t {
                Tok::Word(w) => w.text,
                Tok::Op(o) => format!("{o:?}"),
                Tok::Redir(r) => format!("{}{}", r.op, r.target.text),
            })
            .collect()
    }

    #[test]
    fn words_operators_quotes_and_substitutions() {
        assert_eq!(
            words("cd sub && ./x 'a b' \"c $d\"|bash"),
            ["cd", "sub", "And", "./x", "a b", "c $d", "Pipe", "bash"]
        );
        assert_eq!(
            words("bash <t.sh 2>&1; sh -c \"cd a && ./y\""),
            ["bash", "<t.sh", ">&1", "Seq", "sh", "-c", "cd a && ./y"]
        );
        let t = lex("echo $(./gen x) `./other` <(./third) ${X:-$(./fourth)}").unwrap();
        let subs: Vec<String> = t
            .iter()
            .flat_map(|t| match t {
                Tok::Word(w) => w.subs.clone(),
                _ => Vec::new(),
            })
            .collect();
        assert_eq!(subs, ["./gen x", "./other", "./third", "X:-$(./fourth)"]);
        let t = lex("bash <<'EOF'\n./x\nEOF\necho done\n").unwrap();
        assert!(t
            .iter()
            .any(|t| matches!(t, Tok::Redir(r) if r.body.as_deref() == Some("./x\n"))));
        assert!(lex("echo 'open").is_err() && lex("echo $(x").is_err());
        let Tok::Word(w) = &lex("./scripts/*.sh").unwrap()[0] else {
            panic!()
        };
        assert!(w.glob);
        let Tok::Word(w) = &lex("x{a,b}").unwrap()[0] else {
            panic!()
        };
        assert!(w.glob);
    }
}
