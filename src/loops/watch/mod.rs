//! The listener (DESIGN §2, clada-semantics §8, done right): watch a file that model replies
//! are pasted or appended into, and apply each new complete block once.
//!
//! - Change detection: OS notifications on the file's directory (the `notify` crate; editors
//!   save by renaming a new file over the old one, which a watch on the file itself would
//!   miss), debounced, plus a cheap size/mtime poll on every tick that also covers file systems
//!   where notifications never arrive; `--poll` uses only the poll.
//! - What runs: the file is cut into [`units::Unit`]s (complete blocks, stray block-like
//!   lines), each identified by a hash of its text. Units already applied are skipped; the
//!   rest run as one `apply` (one AI commit, the normal report). A block still being written
//!   waits. The applied set lives in git (`refs/clada/watch/…`), so a restart applies nothing
//!   twice. (The original listener re-executed every block of the file on every change.)
//! - An apply that cannot start (lock held, merge in progress, …) changes nothing; it is
//!   reported and retried on the next change or tick.
//! - One watcher per repository (a lock in the git dir); SIGINT/SIGTERM stop it between
//!   batches.

pub mod units;

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use sha1::{Digest, Sha1};

use crate::loops::clipboard::{self, CopyStatus};
use clada_engine::action::ExecutionResult;
use clada_engine::input::Reply;
use clada_engine::record::apply::{self as record_apply, ApplyError, ApplyOptions};
use clada_engine::report::{self, ReportFormat};
use clada_git::{Repo, RepoError, WatchLock, WatchState};
use units::{Unit, Units};

/// Files the watcher writes keep their permission bits; new ones are not executable.
const KEEP: clada_base::fsutil::Perm = clada_base::fsutil::Perm::KeepExisting {
    executable_if_new: false,
};

/// How to watch.
#[derive(Clone)]
pub struct WatchOptions {
    /// The watched file (absolute).
    pub file: PathBuf,
    /// Where the repository is found.
    pub cwd: PathBuf,
    pub apply: ApplyOptions,
    /// Also write the llm report here after every batch.
    pub output: Option<PathBuf>,
    /// Put the llm report on the clipboard after every batch.
    pub copy: bool,
    /// Write the summary at the top of the watched file after every batch.
    pub prepend: bool,
    /// Only poll (no OS notifications).
    pub poll: bool,
    /// Quiet time after a change before the file is read.
    pub debounce: Duration,
    /// The report printed on stdout after each batch.
    pub stdout_format: ReportFormat,
    /// Colour the human report.
    pub color: bool,
    /// Mark what the file holds at start as applied, without applying it.
    pub skip_existing: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum WatchError {
    #[error("cannot watch '{0}': no such file; create it first (e.g. `touch {0}`)")]
    NotFound(String),
    /// Another watcher runs in this repository.
    #[error("{0}")]
    AlreadyWatching(String),
    #[error(transparent)]
    Repo(#[from] RepoError),
    #[error("cannot read '{path}': {msg}")]
    Read { path: String, msg: String },
}

/// What one look at the file did.
#[derive(Debug)]
pub enum Batch {
    /// Nothing new (maybe a block still being written).
    Nothing,
    /// New units applied; the result.
    Applied(Box<ExecutionResult>),
    /// The apply could not start; nothing changed; try again later.
    Busy(String),
}

/// A running watcher: the repository, its watcher lock, the applied set.
pub struct Watcher {
    opts: WatchOptions,
    repo: Repo,
    _lock: WatchLock,
    state_ref: String,
    state: WatchState,
    /// Keys applied in this session (a dry run records nothing in git).
    session: HashSet<String>,
    /// The pending block last reported, so "waiting" is said once.
    waiting_for: Option<(usize, String)>,
    /// The last busy message, so a retry loop does not repeat it.
    last_busy: Option<String>,
    /// How many copies of each unit the file held when last read, so a block pasted again
    /// (a copy of one already applied, which is skipped) is said once.
    copies: HashMap<String, usize>,
    /// With `--copy`: the clipboards, kept for the whole session, so a backend that serves the
    /// clipboard from this process (arboard on X11) keeps serving it while the watcher runs.
    clipboards: Vec<Box<dyn clipboard::Clipboard>>,
}

/// The ref keeping the applied set of `file`.
pub fn state_ref(file: &Path) -> String {
    let digest = Sha1::digest(file.as_os_str().as_encoded_bytes());
    let hex: String = digest.iter().take(8).map(|b| format!("{b:02x}")).collect();
    format!("refs/clada/watch/{hex}")
}

/// How many times each unit's text occurs in the file.
fn copy_counts(units: &Units) -> HashMap<String, usize> {
    let mut out = HashMap::new();
    for u in &units.units {
        *out.entry(u.key.clone()).or_insert(0) += 1;
    }
    out
}

/// A line of progress on stderr, with the time; for people, so escaped for a terminal (it
/// names blocks, paths and errors from the reply).
fn progress(msg: &str) {
    let secs = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let (h, m, s) = ((secs / 3600) % 24, (secs / 60) % 60, secs % 60);
    eprintln!(
        "[{h:02}:{m:02}:{s:02} UTC] {}",
        clada_base::term::escape(msg, clada_base::term::Rule::Content)
    );
}

impl Watcher {
    /// Opens the repository, takes the watcher lock and reads the applied set.
    pub fn start(opts: WatchOptions) -> Result<Watcher, WatchError> {
        if !opts.file.is_file() {
            return Err(WatchError::NotFound(opts.file.display().to_string()));
        }
        let repo = Repo::discover(&opts.cwd)?;
        let lock = repo
            .watch_lock(&opts.file.display().to_string())?
            .map_err(WatchError::AlreadyWatching)?;
        let state_ref = state_ref(&opts.file);
        let state = repo.watch_state(&state_ref)?;
        let opts_copy = opts.copy;
        let mut w = Watcher {
            opts,
            repo,
            _lock: lock,
            state_ref,
            state,
            session: HashSet::new(),
            clipboards: if opts_copy {
                clipboard::candidates()
            } else {
                Vec::new()
            },
            waiting_for: None,
            last_busy: None,
            copies: HashMap::new(),
        };
        // What the file holds at start was seen: only copies pasted from now on are said.
        if let Ok(units) = w.read_units() {
            w.copies = copy_counts(&units);
        }
        if w.opts.skip_existing {
            let units = w.read_units()?;
            let new: Vec<Unit> = w.new_units(&units).into_iter().cloned().collect();
            if !new.is_empty() {
                w.remember(&new, "skipped at start (--skip-existing)")?;
                progress(&format!(
                    "marked {} block(s) already in the file as applied, without applying them",
                    new.len()
                ));
            }
        }
        Ok(w)
    }

    fn read_text(&self) -> Result<String, WatchError> {
        clada_engine::input::read_reply(Some(&self.opts.file), self.opts.apply.dialect)
            .map(|r| r.text)
            .map_err(|e| WatchError::Read {
                path: self.opts.file.display().to_string(),
                msg: e.to_string(),
            })
    }

    fn read_units(&self) -> Result<Units, WatchError> {
        Ok(Units::of(&self.read_text()?, self.opts.apply.dialect))
    }

    /// Units not applied yet, first occurrence of each key only.
    fn new_units<'u>(&self, units: &'u Units) -> Vec<&'u Unit> {
        let applied: HashSet<&str> = self.state.applied.iter().map(String::as_str).collect();
        let mut seen: HashSet<&str> = HashSet::new();
        units
            .units
            .iter()
            .filter(|u| {
                !self.session.contains(&u.key)
                    && !applied.contains(u.key.as_str())
                    && seen.insert(u.key.as_str())
            })
            .collect()
    }

    /// Records units as applied: in git, unless this is a dry run.
    fn remember(&mut self, units: &[Unit], what: &str) -> Result<(), WatchError> {
        for u in units {
            self.session.insert(u.key.clone());
        }
        if self.opts.apply.engine.dry_run {
            return Ok(());
        }
        // Re-read first: the ref is the truth, whoever wrote it last.
        let mut state = self.repo.watch_state(&self.state_ref)?;
        for u in units {
            if !state.applied.contains(&u.key) {
                state.applied.push(u.key.clone());
            }
        }
        let ids: Vec<&str> = units.iter().map(|u| u.label.as_str()).collect();
        let message = format!(
            "clada watch: {} block(s) {what}\n\nFile: {}\nBlocks: {}\n",
            units.len(),
            self.opts.file.display(),
            ids.join(" ")
        );
        let commit = self.repo.record_watch_state(
            &self.state_ref,
            &state,
            &self.opts.file.display().to_string(),
            &message,
        )?;
        state.commit = Some(commit);
        self.state = state;
        Ok(())
    }

    /// The apply options for a batch of `units`: the watch state recording them moves in the
    /// apply's own ref transaction (with the branch), so a kill cannot leave a commit whose
    /// blocks a restarted watcher would apply again. A dry run records nothing in git.
    fn apply_options(&self, units: &[Unit]) -> Result<ApplyOptions, WatchError> {
        let mut opts = self.opts.apply.clone();
        if opts.engine.dry_run {
            return Ok(opts);
        }
        let mut state = self.repo.watch_state(&self.state_ref)?;
        for u in units {
            if !state.applied.contains(&u.key) {
                state.applied.push(u.key.clone());
            }
        }
        let labels: Vec<String> = units.iter().map(|u| u.label.clone()).collect();
        let (name, file) = (self.state_ref.clone(), self.opts.file.display().to_string());
        opts.also_refs = Some(record_apply::AlsoRefs(Arc::new(move |repo, commit| {
            let message = format!(
                "clada watch: {} block(s) {}\n\nFile: {file}\nBlocks: {}\n",
                labels.len(),
                batch_what(commit.map(|c| c.to_string()).as_deref()),
                labels.join(" ")
            );
            Ok(vec![
                repo.watch_state_update(&name, &state, &file, &message)?
            ])
        })));
        Ok(opts)
    }

    /// Says which blocks in the file are copies of blocks already applied (or of another
    /// block of the file), pasted since the file was last read: they are skipped, not run
    /// again.
    fn say_skipped_copies(&mut self, units: &Units) {
        let counts = copy_counts(units);
        let applied: HashSet<&str> = self.state.applied.iter().map(String::as_str).collect();
        for (key, &n) in &counts {
            let before = self.copies.get(key).copied().unwrap_or(0);
            let known = applied.contains(key.as_str()) || self.session.contains(key);
            // A unit not applied yet runs once: only its further copies are skipped.
            let runs = usize::from(!known && before == 0);
            if n <= before.max(runs) {
                continue;
            }
            let copies: Vec<&Unit> = units.units.iter().filter(|u| &u.key == key).collect();
            let skipped = &copies[copies.len() - (n - before.max(runs))..];
            for u in skipped {
                progress(&format!(
                    "block {} (line {}) repeats a block that is applied; skipped, not run again \
                     (to run it again, change it, or apply it with `git clada apply --force`)",
                    u.label, u.start
                ));
            }
        }
        self.copies = counts;
    }

    /// Reads the file and applies what is new.
    pub fn run_once(&mut self) -> Result<Batch, WatchError> {
        let units = self.read_units()?;
        self.say_skipped_copies(&units);
        let new: Vec<&Unit> = self.new_units(&units);
        if units.pending != self.waiting_for {
            if let Some((line, id)) = &units.pending {
                progress(&format!(
                    "block {id} (line {line}) has no end marker yet; waiting for the rest"
                ));
            }
            self.waiting_for = units.pending.clone();
        }
        if new.is_empty() {
            return Ok(Batch::Nothing);
        }
        let reply = Reply {
            text: units.reply_text(&new),
            source: self.opts.file.display().to_string(),
        };
        let ids: Vec<&str> = new.iter().map(|u| u.label.as_str()).collect();
        // A retry of a busy batch says nothing until something changes.
        if self.last_busy.is_none() {
            progress(&format!(
                "applying {} new block(s): {}",
                new.len(),
                ids.join(" ")
            ));
        }
        let owned: Vec<Unit> = new.into_iter().cloned().collect();
        let opts = self.apply_options(&owned)?;
        let outcome = match record_apply::apply(&self.opts.cwd, &reply, &opts) {
            Ok(o) => o,
            Err(e) => {
                // Blocks that ran but were not recorded are not remembered either: once
                // `git clada undo` took them back, the next change applies them again.
                let (msg, what) = match e {
                    ApplyError::Refused(m) => (m, "not applied, nothing changed"),
                    e @ ApplyError::NotRecorded(_) => (e.to_string(), "ran but not recorded"),
                    other => (other.to_string(), "not applied, nothing changed"),
                };
                if self.last_busy.as_deref() != Some(msg.as_str()) {
                    progress(&format!("{what}: {msg}; will retry on the next change"));
                    self.last_busy = Some(msg.clone());
                }
                return Ok(Batch::Busy(msg));
            }
        };
        self.last_busy = None;
        let result = outcome.execution.result;
        // The apply recorded the batch with its commit (one ref transaction) unless it
        // moved no ref at all; then it is recorded now.
        let state = self.repo.watch_state(&self.state_ref)?;
        if owned.iter().all(|u| state.applied.contains(&u.key)) {
            self.session.extend(owned.iter().map(|u| u.key.clone()));
            self.state = state;
        } else {
            self.remember(&owned, &batch_what(result.git_commit.as_deref()))?;
        }
        self.deliver(&result);
        Ok(Batch::Applied(Box::new(result)))
    }

    /// The report: stdout, `--output`, clipboard, `--prepend`; progress on stderr.
    fn deliver(&mut self, result: &ExecutionResult) {
        let ok = result.results.iter().filter(|r| r.success).count();
        let failed = result.results.len() - ok + result.parse_errors.len();
        progress(&format!(
            "{ok} ✅ {failed} ❌{}",
            match &result.git_commit {
                Some(c) => format!(", commit {}", &c[..c.len().min(12)]),
                None => ", nothing committed".into(),
            }
        ));
        let stdout = report::render(result, self.opts.stdout_format, self.opts.color);
        // The llm and JSON reports are exact unless stdout is a terminal.
        let shown = clada_base::term::Shown::stdout(false);
        // `say`: a closed stdout does not stop this delivery; the process ends quietly after
        // it, between two replies (`clada_base::stdout`).
        if let Err(e) =
            clada_base::stdout::say(&report::shown(&stdout, self.opts.stdout_format, shown))
        {
            progress(&format!("cannot write the report to standard output: {e}"));
        }
        let llm = report::render(result, ReportFormat::Llm, false);
        if let Some(out) = &self.opts.output {
            if let Err(e) = clada_base::fsutil::write_atomic(out, llm.as_bytes(), KEEP) {
                progress(&format!(
                    "cannot write the report to '{}': {e}",
                    out.display()
                ));
            }
        }
        let copied = self
            .opts
            .copy
            .then(|| clipboard::copy_with(&mut self.clipboards, &llm));
        if self.opts.prepend {
            if let Err(e) = self.prepend(&llm, copied.as_ref()) {
                progress(&format!(
                    "cannot write the summary into '{}': {e}",
                    self.opts.file.display()
                ));
            }
        }
        // Last: whoever waits for this line (a person, a script) finds every copy of the
        // report in place, the summary at the top of the file included.
        if let Some(status) = &copied {
            progress(&status.line());
        }
        clada_base::stdout::end_if_closed();
    }

    /// Writes the summary (the results part of the llm report, after the clipboard line as
    /// the original listener did) at the top of the watched file.
    fn prepend(&self, llm: &str, copied: Option<&CopyStatus>) -> std::io::Result<()> {
        let summary = summary_of(llm);
        let current = std::fs::read_to_string(&self.opts.file)?;
        let mut text = String::new();
        if let Some(status) = copied {
            text.push_str(&status_word(status));
            text.push('\n');
        }
        text.push('\n');
        text.push_str(summary);
        text.push('\n');
        text.push_str(&current);
        clada_base::fsutil::write_atomic(&self.opts.file, text.as_bytes(), KEEP)
    }

    /// Watches until `stop` is set; each change (debounced) runs [`Watcher::run_once`].
    pub fn run(&mut self, stop: &AtomicBool) -> Result<(), WatchError> {
        let (tx, rx) = mpsc::channel::<()>();
        let _notifier = if self.opts.poll {
            None
        } else {
            match notifier(&self.opts.file, tx) {
                Ok(n) => Some(n),
                Err(e) => {
                    progress(&format!(
                        "file notifications unavailable ({e}); polling the file instead"
                    ));
                    None
                }
            }
        };
        let tick = if _notifier.is_some() {
            Duration::from_millis(1000)
        } else {
            Duration::from_millis(300)
        };
        progress(&format!(
            "watching {} ({}); Ctrl-C stops",
            self.opts.file.display(),
            if _notifier.is_some() {
                "file notifications"
            } else {
                "polling"
            }
        ));
        let mut last_seen = stamp(&self.opts.file);
        let mut retry = false;
        // The start: what is in the file now and not applied yet (as the original did).
        let first = self.run_once();
        self.handle(first, &mut retry);
        while !stop.load(Ordering::SeqCst) {
            let changed = match rx.recv_timeout(tick) {
                Ok(()) => true,
                Err(mpsc::RecvTimeoutError::Timeout) => false,
                Err(mpsc::RecvTimeoutError::Disconnected) => false,
            };
            let now = stamp(&self.opts.file);
            let polled = now != last_seen;
            if !(changed || polled || retry) {
                continue;
            }
            // Debounce: wait until the file has been quiet for a while.
            let mut quiet_since = Instant::now();
            while quiet_since.elapsed() < self.opts.debounce && !stop.load(Ordering::SeqCst) {
                if rx.recv_timeout(Duration::from_millis(50)).is_ok() {
                    quiet_since = Instant::now();
                }
                let s = stamp(&self.opts.file);
                if s != last_seen {
                    last_seen = s;
                    quiet_since = Instant::now();
                }
            }
            while rx.try_recv().is_ok() {}
            if stop.load(Ordering::SeqCst) {
                break;
            }
            // The stamp of what this run reads, taken before it reads: a save made while it
            // runs then shows as a change on the next tick (taken after the run, it was
            // absorbed and the save was missed until the file changed again). Only our own
            // --prepend writes the file during the run, and that is not a change to act on.
            let before = stamp(&self.opts.file);
            let batch = self.run_once();
            self.handle(batch, &mut retry);
            last_seen = match self.opts.prepend {
                true => stamp(&self.opts.file),
                false => before,
            };
            while rx.try_recv().is_ok() {}
        }
        progress("stopped");
        Ok(())
    }

    fn handle(&mut self, batch: Result<Batch, WatchError>, retry: &mut bool) {
        *retry = false;
        match batch {
            Ok(Batch::Busy(_)) => *retry = true,
            Ok(_) => {}
            Err(e) => progress(&format!("{e}")),
        }
    }
}

/// What happened to a batch, for the watch state's log.
fn batch_what(commit: Option<&str>) -> String {
    match commit {
        Some(c) => format!("applied in {}", &c[..c.len().min(12)]),
        None => "applied (no commit)".into(),
    }
}

/// The word the original listener put above the summary.
fn status_word(status: &CopyStatus) -> String {
    match status {
        CopyStatus::Copied(_) => "📋 Copied to clipboard".into(),
        CopyStatus::Failed(_) => "❌ Clipboard copy failed".into(),
    }
}

/// The results part of an llm report: up to and including its first `=== END ===` line.
pub fn summary_of(llm: &str) -> &str {
    const END: &str = "=== END ===\n";
    match llm.find(END) {
        Some(i) => &llm[..i + END.len()],
        None => llm,
    }
}

/// Size and modification time of the file, to notice changes without notifications.
fn stamp(path: &Path) -> Option<(u64, SystemTime)> {
    let md = std::fs::metadata(path).ok()?;
    Some((md.len(), md.modified().ok()?))
}

/// OS notifications for the file's directory, filtered to the file, sent as `()` on `tx`.
fn notifier(file: &Path, tx: mpsc::Sender<()>) -> notify::Result<notify::RecommendedWatcher> {
    use notify::Watcher as _;
    let dir = file
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."));
    let name = file.file_name().map(|n| n.to_os_string());
    let mut w = notify::recommended_watcher(move |ev: notify::Result<notify::Event>| {
        if let Ok(ev) = ev {
            let ours = ev
                .paths
                .iter()
                .any(|p| p.file_name().map(|n| n.to_os_string()) == name);
            if ours && !matches!(ev.kind, notify::EventKind::Access(_)) {
                let _ = tx.send(());
            }
        }
    })?;
    w.watch(&dir, notify::RecursiveMode::NonRecursive)?;
    Ok(w)
}

/// Sets the returned flag on SIGINT or SIGTERM (instead of dying), so the watcher stops
/// between batches.
pub fn stop_flag() -> std::io::Result<Arc<AtomicBool>> {
    let flag = Arc::new(AtomicBool::new(false));
    signal_hook::flag::register(signal_hook::consts::SIGINT, Arc::clone(&flag))?;
    signal_hook::flag::register(signal_hook::consts::SIGTERM, Arc::clone(&flag))?;
    Ok(flag)
}
