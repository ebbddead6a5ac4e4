//! `git-clada` entry point: parse arguments, dispatch to `cli::run`, map the outcome to an
//! exit code. Everything else lives in the library.

use clap::Parser;

fn main() -> std::process::ExitCode {
    // The block's init (exec/init.rs): git-clada re-executed by itself, before anything else.
    if std::env::args_os().nth(1).as_deref()
        == Some(std::ffi::OsStr::new(clada_engine::exec::init::ARG))
    {
        clada_engine::exec::init::main(std::env::args_os().skip(2).collect());
    }
    clada_engine::exec::init::register();
    let cli = git_clada::cli::Cli::parse();
    git_clada::cli::main(cli)
}
