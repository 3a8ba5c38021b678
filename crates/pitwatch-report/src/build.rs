//! The version and build of the program, printed in every report's footer and on the About
//! screen: the crate version and, when the build knew it, the git commit it was built from
//! (`build.rs`: `PITWATCH_BUILD_COMMIT`, else `git rev-parse`).

/// The program's version (the workspace's).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The git commit the program was built from (12 hex digits), when the build knew it.
pub const COMMIT: Option<&str> = option_env!("PITWATCH_BUILD_COMMIT");

/// The version and build as a report prints them: `Pitwatch 0.1.0 (build 6929b7d1c2e3)`, or
/// `Pitwatch 0.1.0 (build commit not recorded)` when the build did not know its commit.
pub fn label() -> String {
    label_of(VERSION, COMMIT)
}

/// [`label`] for a given version and commit.
pub fn label_of(version: &str, commit: Option<&str>) -> String {
    match commit {
        Some(commit) => format!("Pitwatch {version} (build {commit})"),
        None => format!("Pitwatch {version} (build commit not recorded)"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_label_names_the_version_and_the_commit_or_says_it_is_unknown() {
        assert_eq!(
            label_of("1.2.3", Some("6929b7d1c2e3")),
            "Pitwatch 1.2.3 (build 6929b7d1c2e3)"
        );
        assert_eq!(
            label_of("1.2.3", None),
            "Pitwatch 1.2.3 (build commit not recorded)"
        );
        assert!(label().starts_with(&format!("Pitwatch {VERSION} (build ")));
    }

    #[test]
    fn a_checkout_knows_its_commit() {
        // Built from a git checkout (as developers and CI build it), the commit is the
        // checkout's HEAD; a packager's PITWATCH_BUILD_COMMIT replaces it.
        let head = std::process::Command::new("git")
            .args(["rev-parse", "HEAD"])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned());
        match (head, std::env::var("PITWATCH_BUILD_COMMIT")) {
            (Some(head), Err(_)) => {
                let commit = COMMIT.expect("a checkout's build knows its commit");
                assert_eq!(commit.len(), 12, "{commit}");
                assert!(
                    head.starts_with(commit),
                    "built from {commit}, HEAD is {head}"
                );
            }
            (_, Ok(given)) => assert_eq!(COMMIT, Some(given.trim())),
            (None, Err(_)) => assert_eq!(COMMIT, None),
        }
    }
}
