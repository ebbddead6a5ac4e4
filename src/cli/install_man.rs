//! `git clada install-man`: writes the man pages where `man` finds them, because
//! `git clada --help` is turned by git into `git help clada`, which opens `man git-clada`.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;
use serde::Serialize;

use crate::cli::{Format, Global};
use clada_base::error::Outcome;

/// Install the man pages, so `git clada --help` and `man git-clada` work.
///
/// `git clada --help` is turned by git into `git help clada`, which opens the `git-clada` man
/// page; `cargo install` does not install man pages. This writes them, generated from this
/// binary so they always match it, into DIR (default: ~/.local/share/man/man1), and says how to
/// add the directory to MANPATH when `manpath` does not list it.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  git clada install-man\n  sudo git clada install-man --dir /usr/local/share/man/man1"
)]
pub struct Args {
    /// Directory that receives git-clada.1 and git-clada-<command>.1 (a `man1` directory).
    // Its own id: `dir` is the global `-C DIR`.
    #[arg(long = "dir", id = "man_dir", value_name = "DIR")]
    pub man_dir: Option<PathBuf>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Report {
    dir: PathBuf,
    pages: Vec<String>,
    /// Whether `man` already searches the directory's parent.
    found_by_man: bool,
    dry_run: bool,
}

/// `~/.local/share/man/man1`: searched by man-db for users with `~/.local/bin` on PATH, and the
/// XDG place for a user's data.
fn default_dir() -> anyhow::Result<PathBuf> {
    let home = std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .context("HOME is not set; pass --dir DIR")?;
    Ok(Path::new(&home).join(".local/share/man/man1"))
}

/// The directories `man` searches: `manpath`'s answer, or MANPATH when there is no `manpath`.
fn man_search_path() -> Vec<PathBuf> {
    let listed = std::process::Command::new("manpath")
        .stderr(std::process::Stdio::null())
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .or_else(|| std::env::var("MANPATH").ok())
        .unwrap_or_default();
    listed
        .split(':')
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
        .collect()
}

fn same_dir(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

pub fn run(args: Args, global: Global) -> anyhow::Result<Outcome> {
    let dir = match args.man_dir {
        Some(d) => d,
        None => default_dir()?,
    };
    let pages: Vec<String> = if global.dry_run {
        crate::cli::man::man_pages()?
            .into_iter()
            .map(|(name, _)| name)
            .collect()
    } else {
        crate::cli::man::write_man_pages(&dir)?
            .iter()
            .filter_map(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
            .collect()
    };
    // `man` looks for `<entry>/man1/git-clada.1`, so the entry is the parent of DIR.
    let root = dir.parent().unwrap_or(&dir).to_path_buf();
    let found_by_man = man_search_path().iter().any(|p| same_dir(p, &root));
    let report = Report {
        dir: dir.clone(),
        pages,
        found_by_man,
        dry_run: global.dry_run,
    };
    let text = if global.format_or_default() == Format::Json {
        let mut s = serde_json::to_string_pretty(&report)?;
        s.push('\n');
        s
    } else {
        human(&report, &root)
    };
    let mut stdout = std::io::stdout().lock();
    clada_base::stdout::or_closed(
        stdout
            .write_all(text.as_bytes())
            .and_then(|()| stdout.flush()),
    )
    .context("cannot write to standard output")?;
    Ok(Outcome::Success)
}

fn human(r: &Report, root: &Path) -> String {
    let mut out = format!(
        "{} {} man pages into {}\n",
        if r.dry_run { "would write" } else { "wrote" },
        r.pages.len(),
        r.dir.display()
    );
    if r.found_by_man {
        out.push_str("`git clada --help` and `man git-clada` show them\n");
    } else {
        out.push_str(&format!(
            "`man` does not search {} yet; add this line to your shell's startup file (e.g. ~/.bashrc), then open a new shell:\n  export MANPATH=\"{}:$MANPATH\"\n",
            root.display(),
            root.display()
        ));
    }
    out
}
