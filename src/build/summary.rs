//! The lines printed after a build: its slowest edges, what failed, and
//! jobserver tokens that did not come back.

use std::os::unix::process::ExitStatusExt;
use std::process::{ExitCode, ExitStatus};
use std::time::Duration;

use super::ninja_log::slowest;
use super::progress::human;
use super::run::Outcome;

/// How many of the slowest edges are named.
const SLOWEST: usize = 5;
/// Edges quicker than this are not worth naming.
const WORTH_NAMING_MS: u64 = 100;

/// The summary of `outcome` for the program `name`: lines for standard
/// output, then lines for standard error.
pub fn lines(name: &str, outcome: &Outcome) -> (Vec<String>, Vec<String>) {
    let mut out = Vec::new();
    let mut err = Vec::new();
    let mut slow = slowest(&outcome.ran, SLOWEST);
    slow.retain(|(_, ms)| *ms >= WORTH_NAMING_MS);
    if !slow.is_empty() {
        let list: Vec<String> = slow
            .iter()
            .map(|(output, ms)| format!("{output} {}", human(Duration::from_millis(*ms))))
            .collect();
        out.push(format!("{name}: slowest: {}", list.join(", ")));
    }
    if !outcome.status.success() {
        let status = describe(outcome.status);
        err.push(if outcome.failed.is_empty() {
            format!("{name}: error: ninja failed ({status})")
        } else {
            format!(
                "{name}: error: {} failed ({status}); Ninja's output for it is above",
                outcome.failed.join(", ")
            )
        });
    }
    if let Some(missing) = outcome.missing_tokens.filter(|&n| n > 0) {
        err.push(format!(
            "{name}: warning: {missing} jobserver token(s) did not come back: a process \
             holding them ended without giving them back (killed with SIGKILL, or it \
             crashed); the next build starts with a full pool"
        ));
    }
    (out, err)
}

/// Prints the summary of `outcome`.
pub fn print(name: &str, outcome: &Outcome) {
    let (out, err) = lines(name, outcome);
    for line in out {
        println!("{line}");
    }
    for line in err {
        crate::cli::to_stderr(&line);
    }
}

/// Ninja's exit status as this program's: its code, or 128 + the signal
/// that ended it, as a shell reports it.
pub fn exit_code(status: ExitStatus) -> ExitCode {
    let code = status
        .code()
        .or_else(|| status.signal().map(|s| 128 + s))
        .unwrap_or(1);
    ExitCode::from(u8::try_from(code).unwrap_or(1))
}

/// `exit status 1`, or `killed by signal 9`.
fn describe(status: ExitStatus) -> String {
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("exit status {code}"),
        (None, Some(signal)) => format!("killed by signal {signal}"),
        _ => status.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build::ninja_log::parse;

    fn outcome(raw_status: i32, failed: &[&str], missing: Option<usize>) -> Outcome {
        Outcome {
            status: ExitStatus::from_raw(raw_status),
            failed: failed.iter().map(|f| (*f).to_owned()).collect(),
            errors: Vec::new(),
            ran: parse(
                "0\t12300\t1\tout/big.ktx2\ta\n0\t12300\t1\tfrag/big\ta\n5\t90\t1\tout/b\tb\n",
            ),
            missing_tokens: missing,
        }
    }

    #[test]
    fn a_good_build_names_its_slowest_edges() {
        let (out, err) = lines("assetc build", &outcome(0, &[], Some(0)));
        assert_eq!(out, ["assetc build: slowest: out/big.ktx2 12s"]);
        assert!(err.is_empty(), "{err:?}");
    }

    #[test]
    fn failures_and_lost_tokens_are_reported() {
        let (_, err) = lines("assetc build", &outcome(1 << 8, &["out/a.ktx2"], Some(1)));
        assert!(
            err[0].contains("out/a.ktx2 failed (exit status 1)"),
            "{err:?}"
        );
        assert!(
            err[1].contains("1 jobserver token(s) did not come back"),
            "{err:?}"
        );
        let (_, err) = lines("assetc build", &outcome(9, &[], None));
        assert_eq!(
            err,
            ["assetc build: error: ninja failed (killed by signal 9)"]
        );
    }

    #[test]
    fn exit_codes_are_ninjas() {
        assert_eq!(exit_code(ExitStatus::from_raw(3 << 8)), ExitCode::from(3));
        assert_eq!(exit_code(ExitStatus::from_raw(0)), ExitCode::SUCCESS);
        assert_eq!(exit_code(ExitStatus::from_raw(15)), ExitCode::from(143));
    }
}
