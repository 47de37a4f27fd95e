//! Jobserver test helpers: the Ninja 1.13 that speaks the protocol, and the
//! replay of the token log (`ASSETC_JOBSERVER_LOG`).

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The variable naming the token log.
pub const LOG_VAR: &str = "ASSETC_JOBSERVER_LOG";

/// Leaves out of `command`'s environment any jobserver or thread budget
/// inherited from whoever runs the tests (`make test`, a benchmark).
pub fn without_inherited_budget(command: &mut Command) -> &mut Command {
    for var in [
        "MAKEFLAGS",
        "MFLAGS",
        "MAKELEVEL",
        "ASSETC_THREADS",
        "ASSETC_JOBSERVER_OWN_TOKEN",
    ] {
        command.env_remove(var);
    }
    command
}

/// Ninja 1.13, which takes its edges from a jobserver: PyPI's
/// `ninja==1.13.2`, installed into `target/ninja-1.13` by
/// `tools/ensure-deps --for-tests`. Fails the test, naming the script,
/// when it is missing.
pub fn ninja_113() -> PathBuf {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/ninja-1.13/bin/ninja");
    assert!(
        path.is_file(),
        "{} is missing: run tools/ensure-deps --for-tests, which installs PyPI's ninja==1.13.2 there",
        path.display()
    );
    path
}

/// The token log of a build, line by line: `(pid, event)`.
pub struct TokenLog {
    /// Every line, in file order.
    pub lines: Vec<(u32, String)>,
}

impl TokenLog {
    /// Reads the log at `path` (empty when no process wrote one).
    pub fn read(path: &Path) -> Self {
        let text = fs::read_to_string(path).unwrap_or_default();
        let lines = text
            .lines()
            .map(|line| {
                let (pid, event) = line
                    .split_once(' ')
                    .unwrap_or_else(|| panic!("bad token log line {line:?}"));
                (pid.parse().expect("a pid"), event.to_owned())
            })
            .collect();
        Self { lines }
    }

    /// Replays the log: `start` and `acquire` take a token (the first for
    /// the process's own thread), `release`, `exit` and `killed` give one
    /// back. Returns the most in use at once and the count at the end.
    pub fn replay(&self) -> (i64, i64) {
        let mut in_use = 0i64;
        let mut peak = 0i64;
        for (_, event) in &self.lines {
            match event.split(' ').next().unwrap_or_default() {
                "start" | "acquire" => in_use += 1,
                "release" | "exit" | "killed" => in_use -= 1,
                other => panic!("unknown token event {other:?}"),
            }
            peak = peak.max(in_use);
        }
        (peak, in_use)
    }

    /// Asserts that the replay never counts more than `tokens` in use and
    /// ends with every token given back.
    pub fn assert_within(&self, tokens: i64, what: &str) {
        let (peak, end) = self.replay();
        assert!(
            peak <= tokens,
            "{what}: {peak} tokens in use at once:\n{}",
            self.text()
        );
        assert_eq!(end, 0, "{what}: tokens not given back:\n{}", self.text());
    }

    /// How many lines are `event` (the first word).
    pub fn count(&self, event: &str) -> usize {
        self.lines
            .iter()
            .filter(|(_, e)| e.split(' ').next() == Some(event))
            .count()
    }

    /// The `start` modes, by pid (`alone`, `jobserver`, `threads N`).
    pub fn start_modes(&self) -> BTreeMap<u32, String> {
        self.lines
            .iter()
            .filter_map(|(pid, e)| Some((*pid, e.strip_prefix("start ")?.to_owned())))
            .collect()
    }

    /// The log as text, for failure messages.
    pub fn text(&self) -> String {
        self.lines
            .iter()
            .map(|(pid, event)| format!("{pid} {event}\n"))
            .collect()
    }
}
