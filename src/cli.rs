//! What the three binaries share: error and warning reporting.
//!
//! Errors print as `<program>: error: <file>: <what>`, followed by one
//! `  caused by: …` line per underlying cause, on standard error.

use std::error::Error;
use std::io::Write as _;
use std::process::ExitCode;
use std::sync::Mutex;

/// Prints `err` and its cause chain to standard error.
pub fn report_error(program: &str, err: &dyn Error) {
    for line in error_lines(program, err) {
        to_stderr(&line);
    }
}

/// Prints one line to standard error, ignoring a closed stream: an encoder
/// whose Ninja was killed writes into a pipe nobody reads, and must still
/// finish (or fail) as it would have, not panic half-way through its
/// clean-up of files the next build has already rewritten.
pub fn to_stderr(line: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}

/// `err` and its cause chain as [`report_error`] prints them, one line each
/// (a message that spans lines gives several).
pub fn error_lines(program: &str, err: &dyn Error) -> Vec<String> {
    let text = format!("{program}: error: {}", with_causes(err, "\n  caused by: "));
    text.lines().map(str::to_owned).collect()
}

/// `err` followed by each underlying cause, joined by `separator`.
pub fn with_causes(err: &dyn Error, separator: &str) -> String {
    let mut text = err.to_string();
    let mut cause = err.source();
    while let Some(c) = cause {
        text.push_str(separator);
        text.push_str(&c.to_string());
        cause = c.source();
    }
    text
}

/// The warnings printed since [`capture_warnings`], when capturing.
static CAPTURED: Mutex<Option<Vec<String>>> = Mutex::new(None);

/// Prints a warning to standard error (and keeps it while capturing).
pub fn warn(program: &str, message: &dyn std::fmt::Display) {
    let line = format!("{program}: warning: {message}");
    to_stderr(&line);
    if let Some(lines) = CAPTURED.lock().unwrap_or_else(|e| e.into_inner()).as_mut() {
        lines.push(line);
    }
}

/// From now on, [`warn`] also keeps every line it prints, so a cached encode
/// can replay an encoder's warnings on a later hit.
pub fn capture_warnings() {
    *CAPTURED.lock().unwrap_or_else(|e| e.into_inner()) = Some(Vec::new());
}

/// The lines [`warn`] printed since [`capture_warnings`]; capturing stops.
pub fn captured_warnings() -> Vec<String> {
    CAPTURED
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .take()
        .unwrap_or_default()
}

/// Turns a result into an exit code, reporting the error if there is one.
pub fn finish<E: Error>(program: &str, result: Result<(), E>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            report_error(program, &e);
            ExitCode::FAILURE
        }
    }
}

/// Serialises `value` as pretty JSON followed by a newline.
pub fn to_json<T: serde::Serialize>(value: &T) -> String {
    // Plain structs of numbers, strings and string-keyed maps always
    // serialise; should one ever fail, the output says so as valid JSON.
    let mut text = serde_json::to_string_pretty(value)
        .unwrap_or_else(|e| serde_json::json!({ "error": e.to_string() }).to_string());
    text.push('\n');
    text
}
