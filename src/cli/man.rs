//! The man pages, rendered from the clap definitions: `generate` writes them into `man/`,
//! `install-man` into the user's man folder. Not a subcommand: both import it.

use std::path::{Path, PathBuf};

use anyhow::Context;

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
    let bin = name.replace("git-clada-", "git-clada ");
    let synopsis = format!("{bin} {}", synopsis(cmd));
    let cmd = cmd
        .clone()
        .name(name.to_string())
        .bin_name(bin)
        .override_usage(synopsis);
    let mut buf = Vec::new();
    clap_mangen::Man::new(cmd)
        .date("")
        .render(&mut buf)
        .with_context(|| format!("cannot render man page {name}"))?;
    Ok((format!("{name}.1"), buf))
}

/// The SYNOPSIS line's arguments, with the value every option takes (`[-C <DIR>] [--format
/// <FORMAT>] [--dry-run] … [FILE]...`), which clap_mangen's own synopsis leaves out.
fn synopsis(cmd: &clap::Command) -> String {
    let mut parts = Vec::new();
    for arg in cmd.get_arguments().filter(|a| !a.is_hide_set()) {
        if arg.is_positional() {
            continue;
        }
        let name = match (arg.get_short(), arg.get_long()) {
            (Some(s), Some(l)) => format!("-{s}|--{l}"),
            (Some(s), None) => format!("-{s}"),
            (None, Some(l)) => format!("--{l}"),
            (None, None) => continue,
        };
        let takes_value = arg.get_num_args().is_some_and(|n| n.takes_values())
            && !matches!(
                arg.get_action(),
                clap::ArgAction::SetTrue
                    | clap::ArgAction::SetFalse
                    | clap::ArgAction::Count
                    | clap::ArgAction::Help
                    | clap::ArgAction::HelpLong
                    | clap::ArgAction::HelpShort
                    | clap::ArgAction::Version
            );
        let value = match arg.get_value_names() {
            Some(v) if takes_value => format!(" <{}>", v.join("> <")),
            None if takes_value => format!(" <{}>", arg.get_id().as_str().to_uppercase()),
            _ => String::new(),
        };
        parts.push(if arg.is_required_set() {
            format!("{name}{value}")
        } else {
            format!("[{name}{value}]")
        });
    }
    for arg in cmd.get_positionals().filter(|a| !a.is_hide_set()) {
        let name = arg
            .get_value_names()
            .map(|v| v.join(" "))
            .unwrap_or_else(|| arg.get_id().as_str().to_uppercase());
        let many = matches!(arg.get_action(), clap::ArgAction::Append)
            || arg.get_num_args().is_some_and(|n| n.max_values() > 1);
        let dots = if many { "..." } else { "" };
        parts.push(if arg.is_required_set() {
            format!("<{name}>{dots}")
        } else {
            format!("[{name}]{dots}")
        });
    }
    if cmd.has_subcommands() {
        parts.push("<COMMAND>".to_string());
    }
    parts.join(" ")
}
