//! Says whether this machine has ruby, as the `has_ruby` cfg the one unit test that runs an
//! exec block in ruby is marked ignored by (`exec/long_code.rs`), so a first `cargo test` on a
//! bare machine passes and lists what it did not run; `--include-ignored` runs it anyway. The
//! root package's build script says the same for the integration tests' other needs.
use std::process::{Command, Stdio};

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=CLADA_TEST_TOOLS");
    println!("cargo:rustc-check-cfg=cfg(has_ruby)");
    let ruby = Command::new("ruby")
        .arg("--version")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if ruby {
        println!("cargo:rustc-cfg=has_ruby");
    }
}
