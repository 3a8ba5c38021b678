//! Who runs a command: a user name from the command line and a password that is never an
//! argument (it would end up in shell history and process lists). Passwords come from an
//! environment variable or, failing that, the next line of standard input, so a script can pipe
//! an administrator's password and then a new user's on two lines.

use std::io::BufRead;

use anyhow::{bail, Context};
use pitwatch_app::{accounts, Principal};
use pitwatch_store::Store;

/// The environment variable of the acting user's password.
pub const PASSWORD: &str = "PITWATCH_PASSWORD";
/// The environment variable of the administrator's password, for commands that take one besides
/// a new user's password (`pitwatch user add --admin NAME`).
pub const ADMIN_PASSWORD: &str = "PITWATCH_ADMIN_PASSWORD";

/// The environment variable of a user's new password (`pitwatch user renew`).
pub const NEW_PASSWORD: &str = "PITWATCH_NEW_PASSWORD";

/// A password: `$variable` if set, else the next line of standard input.
pub fn password(variable: &str, whose: &str) -> anyhow::Result<String> {
    if let Ok(password) = std::env::var(variable) {
        return Ok(password);
    }
    let mut line = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut line)
        .with_context(|| format!("cannot read {whose} password from standard input"))?;
    let password = line.trim_end_matches(['\r', '\n']).to_owned();
    if password.is_empty() {
        bail!("no password for {whose}: set {variable} or give it on standard input");
    }
    Ok(password)
}

/// Logs `user` in on `store` with the password from `variable` (throttled, and a failure is
/// audited with the name and this workstation, see `pitwatch_app::accounts::login`).
pub fn login(store: &mut Store, user: &str, variable: &str) -> anyhow::Result<Principal> {
    let password = password(variable, user)?;
    accounts::login(
        store,
        user,
        &password,
        &pitwatch_app::access::workstation(),
        crate::now(),
    )
    .map_err(|e| match e.code {
        pitwatch_api::ErrorCode::PasswordExpired => anyhow::anyhow!(
            "{}\n(set it with `pitwatch user renew --db DB {user}`, or in the window)",
            e.message
        ),
        _ => e.into(),
    })
}
