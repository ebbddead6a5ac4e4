//! The clipboard: `apply --paste` reads the reply from it, `--copy` (apply and watch) puts
//! the llm report on it.
//!
//! Backends sit behind the [`Clipboard`] trait, tried in order: the platform's clipboard
//! commands (`pbcopy` / `pbpaste`, `wl-copy` / `wl-paste`, `xclip`, `xsel`), the `arboard` crate
//! (the system clipboard on macOS, X11 through a pure-Rust client on Linux), the terminal's
//! OSC 52 escape sequence when no display server is reachable (SSH sessions; copy only), a file
//! (`GIT_CLADA_CLIPBOARD=file:PATH`, for scripts and tests) and an in-memory one for unit tests.
//! On X11 the clipboard is served by the process that set it: `xclip`/`xsel`/`wl-copy` leave a
//! serving process behind, so a short-lived `git clada apply --copy` keeps its text on the
//! clipboard after it exits; `arboard` can only hand the text to a clipboard manager when it
//! exits, so it comes after them.
//!
//! Copying never fails the command: [`copy`] returns what happened, to be reported.

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Why a clipboard operation failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ClipError(pub String);

/// A place text can be copied to (and maybe pasted from).
pub trait Clipboard {
    /// How it is named in messages (`xclip`, `OSC 52`, …).
    fn name(&self) -> String;
    fn set_text(&mut self, text: &str) -> Result<(), ClipError>;
    fn get_text(&mut self) -> Result<String, ClipError>;
}

/// An in-memory clipboard (tests).
#[derive(Debug, Default, Clone)]
pub struct Memory {
    pub text: Option<String>,
}

impl Clipboard for Memory {
    fn name(&self) -> String {
        "memory".into()
    }
    fn set_text(&mut self, text: &str) -> Result<(), ClipError> {
        self.text = Some(text.to_string());
        Ok(())
    }
    fn get_text(&mut self) -> Result<String, ClipError> {
        Ok(self.text.clone().unwrap_or_default())
    }
}

/// A file standing in for the clipboard (`GIT_CLADA_CLIPBOARD=file:PATH`).
#[derive(Debug, Clone)]
pub struct FileClipboard {
    pub path: PathBuf,
}

impl Clipboard for FileClipboard {
    fn name(&self) -> String {
        format!("file {}", self.path.display())
    }
    fn set_text(&mut self, text: &str) -> Result<(), ClipError> {
        std::fs::write(&self.path, text)
            .map_err(|e| ClipError(format!("cannot write '{}': {e}", self.path.display())))
    }
    fn get_text(&mut self) -> Result<String, ClipError> {
        match std::fs::read_to_string(&self.path) {
            Ok(s) => Ok(s),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(String::new()),
            Err(e) => Err(ClipError(format!(
                "cannot read '{}': {e}",
                self.path.display()
            ))),
        }
    }
}

/// A pair of clipboard commands (`xclip -selection clipboard` / `… -o`).
#[derive(Debug, Clone)]
pub struct CommandClipboard {
    pub copy: Vec<String>,
    pub paste: Option<Vec<String>>,
}

/// How long a clipboard command may take before it is killed.
const COMMAND_TIMEOUT: Duration = Duration::from_secs(3);

/// The most a paste reads (the reply limit of `apply`).
const PASTE_LIMIT: u64 = clada_engine::input::MAX_REPLY_BYTES + 1;

impl Clipboard for CommandClipboard {
    fn name(&self) -> String {
        self.copy[0].clone()
    }

    fn set_text(&mut self, text: &str) -> Result<(), ClipError> {
        // The copy commands fork a process that keeps serving the selection; it must not hold
        // our stdout/stderr open, or whoever reads them would wait for it.
        let mut child = Command::new(&self.copy[0])
            .args(&self.copy[1..])
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| ClipError(format!("cannot run {}: {e}", self.copy[0])))?;
        if let Some(mut stdin) = child.stdin.take() {
            stdin
                .write_all(text.as_bytes())
                .map_err(|e| ClipError(format!("cannot write to {}: {e}", self.copy[0])))?;
        }
        wait_with_timeout(&mut child, &self.copy[0])
    }

    fn get_text(&mut self) -> Result<String, ClipError> {
        let Some(paste) = &self.paste else {
            return Err(ClipError(format!(
                "{} can only copy, not paste",
                self.copy[0]
            )));
        };
        let mut child = Command::new(&paste[0])
            .args(&paste[1..])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| ClipError(format!("cannot run {}: {e}", paste[0])))?;
        let mut bytes = Vec::new();
        if let Some(out) = child.stdout.take() {
            out.take(PASTE_LIMIT)
                .read_to_end(&mut bytes)
                .map_err(|e| ClipError(format!("cannot read from {}: {e}", paste[0])))?;
        }
        wait_with_timeout(&mut child, &paste[0])?;
        String::from_utf8(bytes)
            .map_err(|_| ClipError("the clipboard does not hold UTF-8 text".into()))
    }
}

fn wait_with_timeout(child: &mut std::process::Child, name: &str) -> Result<(), ClipError> {
    let start = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(status)) if status.success() => return Ok(()),
            Ok(Some(status)) => return Err(ClipError(format!("{name} failed ({status})"))),
            Ok(None) if start.elapsed() > COMMAND_TIMEOUT => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(ClipError(format!(
                    "{name} did not finish within {}s",
                    COMMAND_TIMEOUT.as_secs()
                )));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(10)),
            Err(e) => return Err(ClipError(format!("cannot wait for {name}: {e}"))),
        }
    }
}

/// The `arboard` crate's clipboard.
pub struct Arboard {
    inner: arboard::Clipboard,
}

impl Arboard {
    /// Connects to the system clipboard (on Linux, the X server named by `DISPLAY`).
    pub fn connect() -> Result<Arboard, ClipError> {
        arboard::Clipboard::new()
            .map(|inner| Arboard { inner })
            .map_err(|e| ClipError(format!("arboard: {e}")))
    }
}

impl Clipboard for Arboard {
    fn name(&self) -> String {
        "arboard".into()
    }
    fn set_text(&mut self, text: &str) -> Result<(), ClipError> {
        self.inner
            .set_text(text)
            .map_err(|e| ClipError(e.to_string()))
    }
    fn get_text(&mut self) -> Result<String, ClipError> {
        match self.inner.get_text() {
            Ok(t) => Ok(t),
            Err(arboard::Error::ContentNotAvailable) => Ok(String::new()),
            Err(e) => Err(ClipError(e.to_string())),
        }
    }
}

/// Copies through the terminal: OSC 52 (`ESC ] 52 ; c ; base64 BEL`), which most terminal
/// emulators turn into a clipboard write, also over SSH. Inside tmux the sequence is wrapped
/// so tmux passes it on. Copy only: reading the clipboard back this way is disabled by most
/// terminals.
pub struct Osc52<W: Write> {
    pub out: W,
    pub tmux: bool,
}

impl<W: Write> Clipboard for Osc52<W> {
    fn name(&self) -> String {
        "OSC 52 (terminal escape sequence)".into()
    }
    fn set_text(&mut self, text: &str) -> Result<(), ClipError> {
        self.out
            .write_all(&osc52_sequence(text, self.tmux))
            .and_then(|()| self.out.flush())
            .map_err(|e| ClipError(format!("cannot write to the terminal: {e}")))
    }
    fn get_text(&mut self) -> Result<String, ClipError> {
        Err(ClipError(
            "the terminal's clipboard (OSC 52) cannot be read; no clipboard command was found \
             (install wl-clipboard, xclip or xsel), so pass the reply as a file or on stdin"
                .into(),
        ))
    }
}

/// The OSC 52 bytes that set the clipboard to `text`; with `tmux`, wrapped in tmux's DCS
/// passthrough (every ESC inside doubled).
pub fn osc52_sequence(text: &str, tmux: bool) -> Vec<u8> {
    let mut seq = b"\x1b]52;c;".to_vec();
    seq.extend_from_slice(base64(text.as_bytes()).as_bytes());
    seq.push(0x07);
    if !tmux {
        return seq;
    }
    let mut wrapped = b"\x1bPtmux;".to_vec();
    for b in seq {
        if b == 0x1b {
            wrapped.push(0x1b);
        }
        wrapped.push(b);
    }
    wrapped.extend_from_slice(b"\x1b\\");
    wrapped
}

/// Standard base64 with padding (RFC 4648 §4).
pub fn base64(data: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(data.len().div_ceil(3) * 4);
    for chunk in data.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for (i, shift) in [18u32, 12, 6, 0].iter().enumerate() {
            if i <= chunk.len() {
                out.push(ALPHABET[((n >> shift) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Whether `name` is an executable on PATH.
fn on_path(name: &str) -> bool {
    std::env::var_os("PATH").is_some_and(|path| {
        std::env::split_paths(&path).any(|dir| {
            let p = dir.join(name);
            std::fs::metadata(&p).is_ok_and(|m| {
                use std::os::unix::fs::PermissionsExt;
                m.is_file() && m.permissions().mode() & 0o111 != 0
            })
        })
    })
}

fn cmd(copy: &[&str], paste: Option<&[&str]>) -> Box<dyn Clipboard> {
    Box::new(CommandClipboard {
        copy: copy.iter().map(|s| s.to_string()).collect(),
        paste: paste.map(|p| p.iter().map(|s| s.to_string()).collect()),
    })
}

/// The clipboards to try, best first, for this environment: `GIT_CLADA_CLIPBOARD` (`file:PATH`,
/// `osc52` or `none`) decides alone when set; otherwise the platform's commands that are
/// installed and whose display server is set, then `arboard`, then OSC 52 to the terminal.
pub fn candidates() -> Vec<Box<dyn Clipboard>> {
    let env = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty());
    if let Some(choice) = std::env::var("GIT_CLADA_CLIPBOARD")
        .ok()
        .filter(|v| !v.is_empty())
    {
        return match choice.as_str() {
            "none" => Vec::new(),
            "osc52" => osc52().into_iter().collect(),
            other => match other.strip_prefix("file:") {
                Some(path) => vec![Box::new(FileClipboard { path: path.into() })],
                None => Vec::new(),
            },
        };
    }
    let mut out: Vec<Box<dyn Clipboard>> = Vec::new();
    if clada_base::platform::MACOS && on_path("pbcopy") {
        out.push(cmd(&["pbcopy"], Some(&["pbpaste"])));
    }
    if env("WAYLAND_DISPLAY").is_some() && on_path("wl-copy") {
        out.push(cmd(&["wl-copy"], Some(&["wl-paste", "--no-newline"])));
    }
    if env("DISPLAY").is_some() {
        if on_path("xclip") {
            out.push(cmd(
                &["xclip", "-selection", "clipboard", "-in"],
                Some(&["xclip", "-selection", "clipboard", "-out"]),
            ));
        }
        if on_path("xsel") {
            out.push(cmd(
                &["xsel", "--clipboard", "--input"],
                Some(&["xsel", "--clipboard", "--output"]),
            ));
        }
    }
    // Only where there is a clipboard to connect to: without a display an X11 connection
    // attempt only costs time.
    if clada_base::platform::MACOS || env("DISPLAY").is_some() {
        if let Ok(a) = Arboard::connect() {
            out.push(Box::new(a));
        }
    }
    out.extend(osc52());
    out
}

/// OSC 52 to the controlling terminal, if there is one.
fn osc52() -> Option<Box<dyn Clipboard>> {
    let tty = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/tty")
        .ok()?;
    Some(Box::new(Osc52 {
        out: tty,
        tmux: std::env::var_os("TMUX").is_some(),
    }))
}

/// What a copy did, for the report line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CopyStatus {
    /// Copied with this backend.
    Copied(String),
    /// Nothing worked; why, per backend tried.
    Failed(String),
}

impl CopyStatus {
    /// The line shown on stderr (and at the top of a `--prepend`ed summary).
    pub fn line(&self) -> String {
        match self {
            CopyStatus::Copied(how) => format!("📋 Copied to clipboard ({how})"),
            CopyStatus::Failed(why) => format!("❌ Clipboard copy failed: {why}"),
        }
    }
}

/// Copies `text` with the first backend that works; never an error.
pub fn copy_with(backends: &mut [Box<dyn Clipboard>], text: &str) -> CopyStatus {
    if backends.is_empty() {
        return CopyStatus::Failed(
            "no clipboard available (no display server with wl-copy, xclip or xsel, no \
             terminal for OSC 52)"
                .into(),
        );
    }
    let mut errors = Vec::new();
    for b in backends.iter_mut() {
        match b.set_text(text) {
            Ok(()) => return CopyStatus::Copied(b.name()),
            Err(e) => errors.push(format!("{}: {e}", b.name())),
        }
    }
    CopyStatus::Failed(errors.join("; "))
}

/// Copies `text` to the system clipboard (see [`candidates`]).
pub fn copy(text: &str) -> CopyStatus {
    copy_with(&mut candidates(), text)
}

/// Reads text from the first backend that can paste; an empty clipboard is an error that says
/// so.
pub fn paste_with(backends: &mut [Box<dyn Clipboard>]) -> Result<String, ClipError> {
    let mut errors = Vec::new();
    for b in backends.iter_mut() {
        match b.get_text() {
            Ok(text) if text.trim().is_empty() => {
                return Err(ClipError(format!(
                    "the clipboard is empty (read with {}); copy the model's reply first",
                    b.name()
                )))
            }
            Ok(text) => return Ok(text),
            Err(e) => errors.push(e.0),
        }
    }
    if errors.is_empty() {
        return Err(ClipError(
            "no clipboard available to paste from (no display server with wl-paste, xclip or \
             xsel); pass the reply as a file or on stdin"
                .into(),
        ));
    }
    Err(ClipError(format!(
        "cannot read the clipboard: {}",
        errors.join("; ")
    )))
}

/// Reads the system clipboard.
pub fn paste() -> Result<String, ClipError> {
    paste_with(&mut candidates())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn osc52_bytes_are_exact() {
        assert_eq!(osc52_sequence("hi", false), b"\x1b]52;c;aGk=\x07".to_vec());
        assert_eq!(
            osc52_sequence("=== CLADA RESULTS ===\n✅", false),
            b"\x1b]52;c;PT09IENMQURBIFJFU1VMVFMgPT09CuKchQ==\x07".to_vec()
        );
        assert_eq!(
            osc52_sequence("hi", true),
            b"\x1bPtmux;\x1b\x1b]52;c;aGk=\x07\x1b\\".to_vec()
        );
        let mut out = Vec::new();
        let mut c = Osc52 {
            out: &mut out,
            tmux: false,
        };
        c.set_text("abc").unwrap();
        assert!(c.get_text().is_err(), "OSC 52 cannot paste");
        assert_eq!(out, b"\x1b]52;c;YWJj\x07".to_vec());
    }

    #[test]
    fn base64_matches_rfc4648_vectors() {
        for (plain, enc) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64(plain.as_bytes()), enc, "{plain}");
        }
    }

    /// A backend that always fails, to check the fallback order.
    struct Broken;
    impl Clipboard for Broken {
        fn name(&self) -> String {
            "broken".into()
        }
        fn set_text(&mut self, _: &str) -> Result<(), ClipError> {
            Err(ClipError("no display".into()))
        }
        fn get_text(&mut self) -> Result<String, ClipError> {
            Err(ClipError("no display".into()))
        }
    }

    #[test]
    fn copy_falls_back_and_reports_which_backend_worked() {
        let mut backends: Vec<Box<dyn Clipboard>> =
            vec![Box::new(Broken), Box::new(Memory::default())];
        assert_eq!(
            copy_with(&mut backends, "report"),
            CopyStatus::Copied("memory".into())
        );
        assert_eq!(paste_with(&mut backends).unwrap(), "report");
        let mut only_broken: Vec<Box<dyn Clipboard>> = vec![Box::new(Broken)];
        let status = copy_with(&mut only_broken, "report");
        assert_eq!(status, CopyStatus::Failed("broken: no display".into()));
        assert_eq!(
            status.line(),
            "❌ Clipboard copy failed: broken: no display"
        );
        assert!(matches!(copy_with(&mut [], "x"), CopyStatus::Failed(_)));
    }

    #[test]
    fn pasting_an_empty_clipboard_is_a_clear_error() {
        let mut backends: Vec<Box<dyn Clipboard>> = vec![Box::new(Memory::default())];
        let e = paste_with(&mut backends).unwrap_err();
        assert_eq!(
            e.to_string(),
            "the clipboard is empty (read with memory); copy the model's reply first"
        );
        let mut none: Vec<Box<dyn Clipboard>> = Vec::new();
        assert!(paste_with(&mut none)
            .unwrap_err()
            .to_string()
            .contains("no clipboard available"));
    }
}
