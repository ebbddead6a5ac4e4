//! Hidden `git clada generate`: writes `man/` and `completions/` from the clap definitions.
//! Run `cargo run -- generate` after changing any help text; a test fails when the checked-in
//! files are stale.

use std::path::{Path, PathBuf};

use anyhow::Context;
use clap_complete::Shell;

use crate::cli::Global;
use crate::error::Outcome;

/// Regenerate the man pages and shell completions.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Directory that receives `man/` and `completions/`.
    #[arg(long, value_name = "DIR", default_value = ".")]
    pub out: PathBuf,
}

pub fn run(args: Args, _global: Global) -> anyhow::Result<Outcome> {
    write_all(&args.out)?;
    Ok(Outcome::Success)
}

/// Writes `DIR/man/man1/git-clada*.1` and `DIR/completions/*`.
pub fn write_all(out: &Path) -> anyhow::Result<()> {
    let man_dir = out.join("man").join("man1");
    std::fs::create_dir_all(&man_dir)
        .with_context(|| format!("cannot create '{}'", man_dir.display()))?;
    let cmd = super::command();
    write_man(&cmd, "git-clada", &man_dir)?;
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        let name = format!("git-clada-{}", sub.get_name());
        write_man(sub, &name, &man_dir)?;
    }

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

fn write_man(cmd: &clap::Command, name: &str, dir: &Path) -> anyhow::Result<()> {
    let cmd = cmd
        .clone()
        .name(name.to_string())
        .bin_name(name.replace("git-clada-", "git-clada "));
    let mut buf = Vec::new();
    clap_mangen::Man::new(cmd)
        .date("")
        .render(&mut buf)
        .with_context(|| format!("cannot render man page {name}"))?;
    let path = dir.join(format!("{name}.1"));
    std::fs::write(&path, buf).with_context(|| format!("cannot write '{}'", path.display()))?;
    Ok(())
}
