//! Ninja's `.ninja_log`: what earlier builds took, and what this one ran.
//!
//! Every line after the `# ninja log vN` header is one output of one edge:
//! `START\tEND\tMTIME\tOUTPUT\tHASH`, times in milliseconds from the start of
//! the build that ran it. The outputs of one edge are written with the same
//! start, end and command hash, which is how [`History`] counts edges rather
//! than outputs. The format is the same from version 5 (Ninja 1.10) to 7
//! (Ninja 1.13); only the hash function changed.
//!
//! [`Snapshot`] remembers the log as it was before a build, so the entries
//! the build appended can be told apart afterwards ([`Snapshot::appended`]),
//! even when Ninja recompacted the file on start-up.

use std::collections::{HashMap, HashSet};
use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// One line of the log: one output of one edge that ran.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// When the edge started, in ms from the start of its build.
    pub start_ms: u64,
    /// When it finished, in ms from the start of its build.
    pub end_ms: u64,
    /// The output, as `build.ninja` names it.
    pub output: String,
    /// The hash of the edge's command, as Ninja wrote it.
    pub hash: String,
}

impl Entry {
    /// How long the edge ran.
    pub fn duration_ms(&self) -> u64 {
        self.end_ms.saturating_sub(self.start_ms)
    }

    /// What the outputs of one edge share.
    fn edge_key(&self) -> (u64, u64, &str) {
        (self.start_ms, self.end_ms, &self.hash)
    }
}

/// The entries of `text`, skipping the header, comments and lines that are
/// cut short (the last one, while Ninja is still writing it).
pub fn parse(text: &str) -> Vec<Entry> {
    text.lines().filter_map(parse_line).collect()
}

/// One entry, if `line` is a whole one.
fn parse_line(line: &str) -> Option<Entry> {
    if line.starts_with('#') {
        return None;
    }
    let mut fields = line.split('\t');
    let start_ms = fields.next()?.parse().ok()?;
    let end_ms = fields.next()?.parse().ok()?;
    let _mtime = fields.next()?;
    let output = fields.next()?.to_owned();
    let hash = fields.next()?.to_owned();
    if fields.next().is_some() || hash.is_empty() {
        return None;
    }
    Some(Entry {
        start_ms,
        end_ms,
        output,
        hash,
    })
}

/// The log file as it was before a build.
#[derive(Debug)]
pub struct Snapshot {
    path: PathBuf,
    bytes: Vec<u8>,
    inode: Option<(u64, u64)>,
}

impl Snapshot {
    /// Reads the log at `path` (empty when there is none yet).
    pub fn take(path: &Path) -> Self {
        Self {
            path: path.to_owned(),
            bytes: fs::read(path).unwrap_or_default(),
            inode: identity(path),
        }
    }

    /// The log's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The entries of the earlier builds.
    pub fn entries(&self) -> Vec<Entry> {
        parse(&String::from_utf8_lossy(&self.bytes))
    }

    /// How many bytes the log held.
    pub fn len(&self) -> u64 {
        self.bytes.len() as u64
    }

    /// Whether there was no log, or an empty one.
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// The entries written since the snapshot. Ninja appends to the log,
    /// unless it first recompacted it into a new file (a new inode, or a
    /// shorter one): then the new entries are the lines the old log lacked.
    pub fn appended(&self) -> Vec<Entry> {
        let Ok(now) = fs::read(&self.path) else {
            return Vec::new();
        };
        let same_file = identity(&self.path) == self.inode && now.starts_with(&self.bytes);
        if same_file {
            return parse(&String::from_utf8_lossy(&now[self.bytes.len()..]));
        }
        let old = String::from_utf8_lossy(&self.bytes);
        let old: HashSet<&str> = old.lines().collect();
        let now = String::from_utf8_lossy(&now);
        now.lines()
            .filter(|line| !old.contains(line))
            .filter_map(parse_line)
            .collect()
    }
}

/// The device and inode of `path`, which a recompacted log changes.
fn identity(path: &Path) -> Option<(u64, u64)> {
    fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

/// One edge of an earlier build: its outputs and how long it took.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PastEdge {
    /// Its outputs.
    pub outputs: Vec<String>,
    /// How long it ran, in ms.
    pub duration_ms: u64,
}

/// What earlier builds took, edge by edge: the last run of every output.
#[derive(Debug, Default)]
pub struct History {
    edges: Vec<PastEdge>,
    by_output: HashMap<String, usize>,
}

impl History {
    /// The latest run of every output in `entries`, grouped into edges.
    pub fn from_entries(entries: &[Entry]) -> Self {
        let mut latest: HashMap<&str, &Entry> = HashMap::new();
        for entry in entries {
            latest.insert(&entry.output, entry);
        }
        let mut edge_of_key: HashMap<(u64, u64, &str), usize> = HashMap::new();
        let mut history = Self::default();
        let mut outputs: Vec<&&Entry> = latest.values().collect();
        outputs.sort_by(|a, b| a.output.cmp(&b.output));
        for entry in outputs {
            let index = *edge_of_key.entry(entry.edge_key()).or_insert_with(|| {
                history.edges.push(PastEdge {
                    outputs: Vec::new(),
                    duration_ms: entry.duration_ms(),
                });
                history.edges.len() - 1
            });
            history.edges[index].outputs.push(entry.output.clone());
            history.by_output.insert(entry.output.clone(), index);
        }
        history
    }

    /// Whether no earlier build is known.
    pub fn is_empty(&self) -> bool {
        self.edges.is_empty()
    }

    /// The edges, in the order of their first output's name.
    pub fn edges(&self) -> &[PastEdge] {
        &self.edges
    }

    /// The index of the edge that wrote `output` last.
    pub fn edge_of(&self, output: &str) -> Option<usize> {
        self.by_output.get(output).copied()
    }
}

/// The edges of `entries` (one build's), slowest first: each edge's first
/// output and its duration.
pub fn slowest(entries: &[Entry], count: usize) -> Vec<(String, u64)> {
    let mut seen = HashSet::new();
    let mut edges: Vec<(String, u64)> = entries
        .iter()
        .filter(|entry| seen.insert(entry.edge_key()))
        .map(|entry| (entry.output.clone(), entry.duration_ms()))
        .collect();
    edges.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    edges.truncate(count);
    edges
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOG: &str = "# ninja log v7\n\
        0\t300\t17\tout/a.ktx2\tab12\n\
        0\t300\t17\tfrag/a.frag\tab12\n\
        5\t40\t18\tout/b.ktx2\tcd34\n\
        310\t320\t19\tout/assets.hman\tef56\n\
        1\t2";

    #[test]
    fn lines_cut_short_and_headers_are_skipped() {
        let entries = parse(LOG);
        assert_eq!(entries.len(), 4);
        assert_eq!(entries[0].output, "out/a.ktx2");
        assert_eq!(entries[2].duration_ms(), 35);
    }

    #[test]
    fn outputs_of_one_edge_make_one_past_edge() {
        let history = History::from_entries(&parse(LOG));
        assert_eq!(history.edges().len(), 3);
        let a = history.edge_of("out/a.ktx2").unwrap();
        assert_eq!(history.edge_of("frag/a.frag"), Some(a));
        assert_eq!(history.edges()[a].duration_ms, 300);
        assert_eq!(history.edge_of("out/missing"), None);
    }

    #[test]
    fn a_later_run_of_an_output_replaces_the_earlier() {
        let text = format!("{LOG}\n0\t900\t20\tout/b.ktx2\tcd35\n");
        let history = History::from_entries(&parse(&text));
        let b = history.edge_of("out/b.ktx2").unwrap();
        assert_eq!(history.edges()[b].duration_ms, 900);
    }

    #[test]
    fn slowest_counts_each_edge_once() {
        let slow = slowest(&parse(LOG), 2);
        assert_eq!(
            slow,
            vec![
                ("out/a.ktx2".to_owned(), 300),
                ("out/b.ktx2".to_owned(), 35)
            ]
        );
    }

    #[test]
    fn appended_entries_survive_a_recompaction() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(".ninja_log");
        fs::write(&path, LOG.replace("\n1\t2", "\n")).unwrap();
        let snapshot = Snapshot::take(&path);
        let grown = format!("{}0\t9\t21\tout/c.ktx2\t77\n", LOG.replace("\n1\t2", "\n"));
        fs::write(&path, &grown).unwrap();
        let appended = snapshot.appended();
        assert_eq!(appended.len(), 1);
        assert_eq!(appended[0].output, "out/c.ktx2");

        // Recompacted: a new, shorter file holding one old line and a new one.
        let snapshot = Snapshot::take(&path);
        fs::remove_file(&path).unwrap();
        fs::write(
            &path,
            "# ninja log v7\n5\t40\t18\tout/b.ktx2\tcd34\n1\t50\t22\tout/d.ktx2\t88\n",
        )
        .unwrap();
        let appended = snapshot.appended();
        assert_eq!(appended.len(), 1);
        assert_eq!(appended[0].output, "out/d.ktx2");
    }
}
