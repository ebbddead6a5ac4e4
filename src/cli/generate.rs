//! Hidden `git clada generate`: writes `man/` and `completions/` from the clap definitions,
//! `docs/prompt/` from the action schema, and `src/action/schema.json` (the schema the binary
//! embeds) from `src/action/schema.yaml`.
//! Run `cargo run -- generate` after changing any help text; a test fails when the checked-in
//! files are stale.

use std::path::{Path, PathBuf};

use anyhow::Context;
use clap_complete::Shell;

use crate::base::error::Outcome;
use crate::cli::Global;

/// Regenerate the man pages and shell completions.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Directory that receives `man/` and `completions/`.
    #[arg(long, value_name = "DIR", default_value = ".")]
    pub out: PathBuf,
}

pub fn run(args: Args, _global: Global) -> anyhow::Result<Outcome> {
    write_all(&args.out)?;
    write_prompts(&args.out.join("docs").join("prompt"))?;
    let json = crate::action::schema::Schema::embedded_as_json().map_err(anyhow::Error::msg)?;
    let path = args.out.join("src").join("action").join("schema.json");
    std::fs::write(&path, json).with_context(|| format!("cannot write '{}'", path.display()))?;
    Ok(Outcome::Success)
}

/// Writes `DIR/man/man1/git-clada*.1` and `DIR/completions/*`.
pub fn write_all(out: &Path) -> anyhow::Result<()> {
    write_man_pages(&out.join("man").join("man1"))?;

    let comp_dir = out.join("completions");
    std::fs::create_dir_all(&comp_dir)
        .with_context(|| format!("cannot create '{}'", comp_dir.display()))?;
    for shell in [
        Shell::Bash,
        Shell::Zsh,
        Shell::Fish,
        Shell::Elvish,
        Shell::PowerShell,
    ] {
        let mut cmd = super::command();
        clap_complete::generate_to(shell, &mut cmd, "git-clada", &comp_dir)
            .with_context(|| format!("cannot write {shell} completions"))?;
    }
    Ok(())
}

/// Writes `git clada prompt`'s output for every dialect into `dir` (`docs/prompt/`).
pub fn write_prompts(dir: &Path) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create '{}'", dir.display()))?;
    for (name, text) in crate::loops::prompt::checked_in_docs() {
        let path = dir.join(name);
        std::fs::write(&path, text)
            .with_context(|| format!("cannot write '{}'", path.display()))?;
    }
    Ok(())
}

/// The man pages, as (file name, contents): `git-clada.1` and one `git-clada-<sub>.1` per
/// visible subcommand.
pub fn man_pages() -> anyhow::Result<Vec<(String, Vec<u8>)>> {
    // Building propagates the global options (-C, --format, --dry-run) into every
    // subcommand, so their pages list them too.
    let mut cmd = super::command();
    cmd.build();
    let mut pages = vec![render_man(&cmd, "git-clada")?];
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        pages.push(render_man(sub, &format!("git-clada-{}", sub.get_name()))?);
    }
    Ok(pages)
}

/// Writes every man page into `dir` (created if missing); returns the paths written.
pub fn write_man_pages(dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create '{}'", dir.display()))?;
    let mut written = Vec::new();
    for (name, page) in man_pages()? {
        let path = dir.join(name);
        std::fs::write(&path, page)
            .with_context(|| format!("cannot write '{}'", path.display()))?;
        written.push(path);
    }
    Ok(written)
}

fn render_man(cmd: &clap::Command, name: &str) -> anyhow::Result<(String, Vec<u8>)> {
    let cmd = cmd
        .clone()
        .name(name.to_string())
        .bin_name(name.replace("git-clada-", "git-clada "));
    let mut buf = Vec::new();
    clap_mangen::Man::new(cmd)
        .date("")
        .render(&mut buf)
        .with_context(|| format!("cannot render man page {name}"))?;
    Ok((format!("{name}.1"), buf))
}
