//! [`Problem`], one inconsistency the link's checks find: the checks of the
//! output folder and packs (`check.rs`, `check_packs.rs`) and of what the
//! build recorded (`recorded.rs`) all report in it.

use std::fmt;

/// One inconsistency, reported as `path: what`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
pub struct Problem {
    /// The file at fault.
    pub path: String,
    /// What is wrong with it.
    pub what: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path, self.what)
    }
}
