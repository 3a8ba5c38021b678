//! Measures how long a failed login takes for a name that does not exist and for a wrong
//! password of a real user (the issue found the first 40 ms faster, which let names be guessed).
//! Both go through `accounts::login` as the front ends do (throttle check, one argon2
//! verification, the audit row), on an in-memory record; each attempt is an hour after the last,
//! so throttling never answers instead. Prints the median and spread of each, in milliseconds.
//!
//! `cargo run --release -p pitwatch-app --example login_timing [ROUNDS]`

use std::time::Instant;

use pitwatch_app::accounts;
use pitwatch_model::Timestamp;
use pitwatch_store::Store;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let rounds: usize = std::env::args().nth(1).map_or(Ok(40), |a| a.parse())?;
    let mut store = Store::open_in_memory()?;
    let t0 = 1_780_000_000_000;
    let at = |hour: usize| Timestamp::from_unix_millis(t0 + hour as i64 * 3_600_000);
    let password = "plum kettle orbit 47 lantern";
    accounts::create_first_admin(&mut store, "root", password, "bench", at(0).ok_or("time")?)?;
    let mut unknown = Vec::with_capacity(rounds);
    let mut wrong = Vec::with_capacity(rounds);
    for i in 0..rounds {
        // Alternate which goes first, so neither always runs on a warmer cache.
        for kind in if i % 2 == 0 { [0, 1] } else { [1, 0] } {
            let (name, times) = if kind == 0 {
                (format!("nobody-{i}"), &mut unknown)
            } else {
                ("root".to_owned(), &mut wrong)
            };
            let now = at(2 * i + kind + 1).ok_or("time")?;
            let start = Instant::now();
            let refused =
                accounts::login(&mut store, &name, "not the password at all", "bench", now);
            times.push(start.elapsed().as_secs_f64() * 1000.0);
            assert!(refused.is_err());
        }
    }
    for (what, times) in [
        ("unknown name", &mut unknown),
        ("wrong password", &mut wrong),
    ] {
        times.sort_by(f64::total_cmp);
        let pct = |p: f64| times[((times.len() - 1) as f64 * p).round() as usize];
        println!(
            "{what:<15} n={} median {:.2} ms  p10 {:.2}  p90 {:.2}",
            times.len(),
            pct(0.5),
            pct(0.1),
            pct(0.9)
        );
    }
    println!("argon2 verifications: {}", store.password_checks());
    Ok(())
}
