//! Engine speed (placeholder until the dealer simulator lands).

fn main() {}
