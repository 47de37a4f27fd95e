//! Where a build's lines go. On a terminal, the progress line is redrawn in
//! place and every other line (Ninja's output for an edge, an error) is
//! printed above it. Elsewhere (a pipe, a CI log), every finished edge is a
//! line as Ninja prints it (`[3/10] TEXTURE assets/a.png`), and the
//! progress line is printed whole every few seconds while edges run.

use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

use super::progress::{Status, render};

/// How often a plain progress line is printed, at most.
const PLAIN_EVERY: Duration = Duration::from_secs(2);
/// The width assumed when a terminal's cannot be read.
const DEFAULT_WIDTH: usize = 80;

/// Terminal or plain output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Redraw one line in place, `width` characters at most.
    Terminal { width: usize },
    /// Whole lines only.
    Plain,
}

/// A build's standard output and error.
#[derive(Debug)]
pub struct Console {
    mode: Mode,
    /// Starts plain progress lines (`assetc build`).
    name: String,
    /// The progress line on screen (terminal mode).
    shown: Option<String>,
    /// When the last plain progress line was printed.
    last_plain: Instant,
}

impl Console {
    /// A console for the program `name`, redrawing in place when standard
    /// output is a terminal.
    pub fn detect(name: &str) -> Self {
        let mode = if std::io::stdout().is_terminal() {
            Mode::Terminal {
                width: terminal_width(),
            }
        } else {
            Mode::Plain
        };
        Self {
            mode,
            name: name.to_owned(),
            shown: None,
            last_plain: Instant::now(),
        }
    }

    /// Prints a line of Ninja's (or of a command Ninja ran) above the
    /// progress line, to standard error when `to_stderr`.
    pub fn pass(&mut self, line: &str, to_stderr: bool) {
        let shown = self.shown.take();
        self.erase(shown.is_some());
        if to_stderr {
            let mut err = std::io::stderr().lock();
            let _ = writeln!(err, "{line}");
            let _ = err.flush();
        } else {
            let _ = writeln!(std::io::stdout().lock(), "{line}");
        }
        if let Some(text) = shown {
            self.draw(text);
        }
    }

    /// An edge finished: a line of its own when plain.
    pub fn finished(&mut self, done: u64, total: u64, description: &str) {
        if self.mode == Mode::Plain {
            self.pass(&format!("[{done}/{total}] {description}"), false);
        }
    }

    /// Shows the progress: redrawn on a terminal; printed when plain if
    /// edges are running and the last such line is a few seconds old.
    pub fn progress(&mut self, status: &Status) {
        match self.mode {
            Mode::Terminal { width } => self.draw(render(status, Some(width.saturating_sub(1)))),
            Mode::Plain => {
                if status.running.is_empty() || self.last_plain.elapsed() < PLAIN_EVERY {
                    return;
                }
                self.last_plain = Instant::now();
                let line = format!("{}: {}", self.name, render(status, None));
                self.pass(&line, false);
            }
        }
    }

    /// Removes the progress line, for the summary after the build.
    pub fn clear(&mut self) {
        let shown = self.shown.take().is_some();
        self.erase(shown);
    }

    /// Draws `text` as the progress line.
    fn draw(&mut self, text: String) {
        let mut out = std::io::stdout().lock();
        let _ = write!(out, "\r{text}\x1b[K");
        let _ = out.flush();
        self.shown = Some(text);
    }

    /// Erases the progress line, when one is `shown`.
    fn erase(&self, shown: bool) {
        if shown {
            let mut out = std::io::stdout().lock();
            let _ = write!(out, "\r\x1b[K");
            let _ = out.flush();
        }
    }
}

/// The terminal's width in columns.
fn terminal_width() -> usize {
    // SAFETY: `winsize` is plain data that TIOCGWINSZ fills on success.
    let mut size: libc::winsize = unsafe { std::mem::zeroed() };
    // SAFETY: the request reads the size of the terminal on standard output.
    let ok = unsafe { libc::ioctl(libc::STDOUT_FILENO, libc::TIOCGWINSZ, &raw mut size) } == 0;
    if ok && size.ws_col > 0 {
        return usize::from(size.ws_col);
    }
    std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(DEFAULT_WIDTH)
}
