//! The progress line: edges done of the total, the ones running with their
//! time so far, and an estimate of the time left from what the same edges
//! took in earlier builds.
//!
//! The estimate ([`Estimator`]) needs an earlier log. A running edge is
//! matched to its earlier run by an output named on its command line; the
//! edges not started yet are counted at the mean duration of the earlier
//! edges that have not run in this build. The work left is shared by the
//! build's jobs, but never ends before the longest running edge does.

use std::collections::HashSet;
use std::time::Duration;

use super::ninja_log::{Entry, History};
use super::running::RunningEdge;

/// Estimates the time left from the durations of earlier builds.
#[derive(Debug)]
pub struct Estimator {
    history: History,
    /// The earlier edges that ran again in this build.
    finished: HashSet<usize>,
    jobs: usize,
}

impl Estimator {
    /// An estimator for a build of `jobs` jobs, knowing `history`.
    pub fn new(history: History, jobs: usize) -> Self {
        Self {
            history,
            finished: HashSet::new(),
            jobs: jobs.max(1),
        }
    }

    /// Records edges this build finished, from its log entries.
    pub fn finished(&mut self, entries: &[Entry]) {
        for entry in entries {
            if let Some(edge) = self.history.edge_of(&entry.output) {
                self.finished.insert(edge);
            }
        }
    }

    /// The time left, with `running` edges under way and `queued` edges not
    /// started; `None` without an earlier build to go by.
    pub fn time_left(&self, running: &[RunningEdge], queued: u64) -> Option<Duration> {
        if self.history.is_empty() {
            return None;
        }
        let matched: Vec<Option<usize>> = running.iter().map(|e| self.match_edge(e)).collect();
        let mean = self.mean_left_ms(&matched);
        let past = |edge: Option<usize>| edge.map_or(mean, |i| self.history.edges()[i].duration_ms);
        let running_left: Vec<u64> = running
            .iter()
            .zip(&matched)
            .map(|(edge, &index)| past(index).saturating_sub(edge.elapsed.as_millis() as u64))
            .collect();
        let longest = running_left.iter().copied().max().unwrap_or(0);
        let work = running_left.iter().sum::<u64>() + queued.saturating_mul(mean);
        let shared = work / self.jobs as u64;
        Some(Duration::from_millis(shared.max(longest)))
    }

    /// The earlier edge a running one repeats: the first word of its
    /// command, from the end, that an earlier edge wrote.
    fn match_edge(&self, edge: &RunningEdge) -> Option<usize> {
        edge.words
            .iter()
            .rev()
            .find_map(|word| self.history.edge_of(word))
    }

    /// The mean duration of the earlier edges that have neither run again
    /// nor are running now (of all of them once none is left).
    fn mean_left_ms(&self, running: &[Option<usize>]) -> u64 {
        let edges = self.history.edges();
        let busy: HashSet<usize> = running.iter().flatten().copied().collect();
        let left: Vec<u64> = (0..edges.len())
            .filter(|i| !self.finished.contains(i) && !busy.contains(i))
            .map(|i| edges[i].duration_ms)
            .collect();
        let pool = if left.is_empty() {
            edges.iter().map(|e| e.duration_ms).collect()
        } else {
            left
        };
        pool.iter().sum::<u64>() / pool.len().max(1) as u64
    }
}

/// What the progress line shows.
#[derive(Debug, Clone, Copy)]
pub struct Status<'a> {
    /// Edges finished.
    pub done: u64,
    /// Edges this build runs in all.
    pub total: u64,
    /// The edges running, longest-running first.
    pub running: &'a [RunningEdge],
    /// The estimated time left.
    pub eta: Option<Duration>,
}

/// The progress line, cut to `width` characters when given: the counts,
/// as many running edges as fit (then `+N more`), and the estimate.
pub fn render(status: &Status, width: Option<usize>) -> String {
    let head = match status.total {
        // Ninja tells the total with the first edge that finishes.
        0 => format!("[{}/?]", status.done),
        total => format!("[{}/{total}]", status.done),
    };
    let tail = status
        .eta
        .map(|eta| format!("; ETA {}", human(eta)))
        .unwrap_or_default();
    if status.running.is_empty() {
        return cut(format!("{head}{tail}"), width);
    }
    let items: Vec<String> = status
        .running
        .iter()
        .map(|edge| format!("{} {}", edge.label, human(edge.elapsed)))
        .collect();
    let line_with = |shown: usize| {
        let more = items.len() - shown;
        let more = if more > 0 {
            format!(", +{more} more")
        } else {
            String::new()
        };
        let list = items[..shown].join(", ");
        format!("{head} {} running: {list}{more}{tail}", items.len())
    };
    let budget = width.unwrap_or(usize::MAX);
    let line = (1..=items.len())
        .rev()
        .map(line_with)
        .find(|line| line.chars().count() <= budget)
        .unwrap_or_else(|| line_with(1));
    cut(line, width)
}

/// `line` cut to `width` characters.
fn cut(line: String, width: Option<usize>) -> String {
    match width {
        Some(width) if line.chars().count() > width => line.chars().take(width).collect(),
        _ => line,
    }
}

/// A duration for people: `0.4s`, `12s`, `3m05s`, `1h02m`.
pub fn human(duration: Duration) -> String {
    let seconds = duration.as_secs();
    match seconds {
        0..10 => format!("{:.1}s", duration.as_secs_f64()),
        10..60 => format!("{seconds}s"),
        60..3600 => format!("{}m{:02}s", seconds / 60, seconds % 60),
        _ => format!("{}h{:02}m", seconds / 3600, seconds % 3600 / 60),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build::ninja_log::parse;

    fn running(label: &str, words: &[&str], seconds: u64) -> RunningEdge {
        RunningEdge {
            pid: 1,
            words: words.iter().map(|w| (*w).to_owned()).collect(),
            label: label.to_owned(),
            elapsed: Duration::from_secs(seconds),
        }
    }

    const LOG: &str = "# ninja log v7\n\
        0\t10000\t1\tout/big.ktx2\ta\n\
        0\t2000\t1\tout/b.ktx2\tb\n\
        0\t2000\t1\tout/c.ktx2\tc\n\
        0\t2000\t1\tout/d.ktx2\td\n";

    #[test]
    fn the_estimate_follows_earlier_durations() {
        let estimator = Estimator::new(History::from_entries(&parse(LOG)), 2);
        let big = running("big.png", &["enc", "-o", "out/big.ktx2", "big.png"], 4);
        // Big has 6 s left; three small edges (2 s each) are queued: the
        // 12 s of work shared by 2 jobs.
        assert_eq!(
            estimator.time_left(std::slice::from_ref(&big), 3),
            Some(Duration::from_secs(6))
        );
        // Alone, big's own 6 s is the floor.
        assert_eq!(estimator.time_left(&[big], 0), Some(Duration::from_secs(6)));
    }

    #[test]
    fn finished_edges_leave_the_mean() {
        let mut estimator = Estimator::new(History::from_entries(&parse(LOG)), 1);
        // Mean of all four: 4 s.
        assert_eq!(estimator.time_left(&[], 1), Some(Duration::from_secs(4)));
        estimator.finished(&parse("0\t9000\t1\tout/big.ktx2\tz\n"));
        assert_eq!(estimator.time_left(&[], 1), Some(Duration::from_secs(2)));
        let empty = Estimator::new(History::default(), 1);
        assert_eq!(empty.time_left(&[], 3), None);
    }

    #[test]
    fn the_line_shows_counts_running_edges_and_the_eta() {
        let edges = [
            running("assets/big.png", &[], 12),
            running("assets/b.png", &[], 3),
        ];
        let status = Status {
            done: 3,
            total: 10,
            running: &edges,
            eta: Some(Duration::from_secs(75)),
        };
        assert_eq!(
            render(&status, None),
            "[3/10] 2 running: assets/big.png 12s, assets/b.png 3.0s; ETA 1m15s"
        );
        assert_eq!(
            render(&status, Some(48)),
            "[3/10] 2 running: assets/big.png 12s, +1 more; E"
        );
        let idle = Status {
            running: &[],
            eta: None,
            ..status
        };
        assert_eq!(render(&idle, Some(80)), "[3/10]");
        let starting = Status {
            done: 0,
            total: 0,
            ..idle
        };
        assert_eq!(render(&starting, None), "[0/?]");
    }

    #[test]
    fn durations_read_naturally() {
        assert_eq!(human(Duration::from_millis(400)), "0.4s");
        assert_eq!(human(Duration::from_secs(12)), "12s");
        assert_eq!(human(Duration::from_secs(185)), "3m05s");
        assert_eq!(human(Duration::from_secs(3720)), "1h02m");
    }
}
