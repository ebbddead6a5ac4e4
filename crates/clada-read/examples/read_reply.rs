//! Reads an LLM reply (a file named on the command line, or a built-in one) and prints what
//! each block asks for and every parse error with its line, in any format the crate knows.
//!
//! `cargo run -p clada-read --example read_reply -- reply.md`

use clada_read::{parse, Dialect};

const SAMPLE: &str = r#"I'll fix the greeting.

src/hello.py
```python
<<<<<<< SEARCH
print("helo")
=======
print("hello")
>>>>>>> REPLACE
```

*** Begin Patch
*** Add File: NOTES.md
+Greeting fixed.
*** End Patch
"#;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let text = match std::env::args().nth(1) {
        Some(path) => std::fs::read_to_string(path)?,
        None => SAMPLE.to_string(),
    };
    let result = parse(&text, Dialect::Auto);
    for block in &result.blocks {
        let action = block.properties.get("action").map_or("?", String::as_str);
        let path = block.properties.get("path").map_or("", String::as_str);
        println!(
            "line {:>4}  {:<12} {action} {path}",
            block.start_line, block.format.id
        );
        for warning in &block.warnings {
            println!("           warning: {warning}");
        }
    }
    for error in &result.errors {
        println!("line {:>4}  error: {}", error.line, error.message);
    }
    Ok(())
}
