//! Build script: records the git commit the program is built from, for the version and build
//! every report prints and the About screen shows (`pitwatch_report::build`).
//!
//! `PITWATCH_BUILD_COMMIT` in the environment wins (a packager building from a tarball sets it);
//! otherwise `git rev-parse` in the source tree; neither (no git, not a checkout) leaves the
//! commit unknown, and the reports say so.

use std::path::{Path, PathBuf};
use std::process::Command;

fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let output = Command::new("git")
        .args(args)
        .current_dir(dir)
        .output()
        .ok()?;
    if !output.status.success() {
        return None;
    }
    let text = String::from_utf8(output.stdout).ok()?.trim().to_owned();
    (!text.is_empty()).then_some(text)
}

fn main() {
    println!("cargo:rerun-if-env-changed=PITWATCH_BUILD_COMMIT");
    println!("cargo:rerun-if-changed=build.rs");
    if let Some(commit) = std::env::var("PITWATCH_BUILD_COMMIT")
        .ok()
        .filter(|c| !c.trim().is_empty())
    {
        println!("cargo:rustc-env=PITWATCH_BUILD_COMMIT={}", commit.trim());
        return;
    }
    let dir = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    // Built again when the checkout moves to another commit: HEAD, the branch it names, and the
    // packed refs (only files that exist, or cargo would run this every time).
    if let Some(git_dir) = git(&dir, &["rev-parse", "--absolute-git-dir"]) {
        let git_dir = PathBuf::from(git_dir);
        let common = git(&dir, &["rev-parse", "--git-common-dir"])
            .map(|c| {
                let c = PathBuf::from(c);
                if c.is_absolute() {
                    c
                } else {
                    dir.join(c)
                }
            })
            .unwrap_or_else(|| git_dir.clone());
        let mut watched = vec![git_dir.join("HEAD"), common.join("packed-refs")];
        if let Some(branch) = git(&dir, &["symbolic-ref", "-q", "HEAD"]) {
            watched.push(common.join(&branch));
            watched.push(git_dir.join(&branch));
        }
        for path in watched.into_iter().filter(|p| p.is_file()) {
            println!("cargo:rerun-if-changed={}", path.display());
        }
    }
    if let Some(commit) = git(&dir, &["rev-parse", "--short=12", "HEAD"]) {
        println!("cargo:rustc-env=PITWATCH_BUILD_COMMIT={commit}");
    }
}
