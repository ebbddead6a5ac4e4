//! `git-clada` entry point: parse arguments, dispatch to `cli::run`, map the outcome to an
//! exit code. Everything else lives in the library.

use clap::Parser;

fn main() -> std::process::ExitCode {
    let cli = git_clada::cli::Cli::parse();
    git_clada::cli::main(cli)
}
