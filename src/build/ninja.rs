//! Which Ninja runs the build, and whether it speaks the jobserver protocol.

use std::process::Command;

/// The variable naming the Ninja program (as for `assetc watch`).
pub const NINJA_VAR: &str = "NINJA";

/// The first Ninja release that takes its edges from a jobserver.
pub const JOBSERVER_SINCE: (u32, u32) = (1, 13);

/// The Ninja program: `$NINJA`, else `ninja` on the `PATH`.
pub fn program_from_env() -> String {
    std::env::var(NINJA_VAR).unwrap_or_else(|_| "ninja".into())
}

/// Major and minor version of `program` (`ninja --version`); `None` when
/// it cannot run or prints something else.
pub fn version(program: &str) -> Option<(u32, u32)> {
    let output = Command::new(program).arg("--version").output().ok()?;
    parse_version(&String::from_utf8_lossy(&output.stdout))
}

/// `1.13.2.git.kitware.jobserver-pipe-1` → `(1, 13)`.
fn parse_version(text: &str) -> Option<(u32, u32)> {
    let mut parts = text.trim().split('.');
    let major = parts.next()?.parse().ok()?;
    let minor: String = parts
        .next()?
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    Some((major, minor.parse().ok()?))
}

/// Whether a Ninja of `version` becomes a jobserver client when it is run
/// without `-j` under a `MAKEFLAGS` naming one.
pub fn speaks_jobserver(version: Option<(u32, u32)>) -> bool {
    version.is_some_and(|v| v >= JOBSERVER_SINCE)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_are_read_from_release_and_fork_strings() {
        assert_eq!(
            parse_version("1.13.2.git.kitware.jobserver-pipe-1\n"),
            Some((1, 13))
        );
        assert_eq!(parse_version("1.11.1"), Some((1, 11)));
        assert_eq!(parse_version("1.14rc1"), Some((1, 14)));
        assert_eq!(parse_version("samu 2.0"), None);
        assert!(speaks_jobserver(Some((1, 13))));
        assert!(speaks_jobserver(Some((2, 0))));
        assert!(!speaks_jobserver(Some((1, 12))));
        assert!(!speaks_jobserver(None));
    }
}
