pub fn greet(name: &str) -> String {
    format!("Hello, {name}! Welcome back.")
}

pub fn farewell(name: &str) -> String {
    format!("Goodbye, {name}.")
}
