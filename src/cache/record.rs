//! The two small text records the cache keeps besides file contents.
//!
//! * A **deps record**, under a source key, lists the files besides the
//!   source that the edge read last time it was encoded.
//! * An **action record**, under a result key, lists the content hash and
//!   size of every file the edge produced (by runtime path, as its fragment
//!   lists them: a shader folder's `.spv` files are not declared to Ninja)
//!   and of the fragment, the inputs for the depfile, and the warnings the
//!   encoder printed.
//!
//! Both end in a `check` line holding the BLAKE3 hash of everything before
//! it, so a truncated or altered record is told from a good one (see
//! `docs/cache.md`).

use super::key::Key;

/// The first line of a deps record.
const DEPS_MAGIC: &str = "assetc cache deps 1";
/// The first line of an action record.
const ACTION_MAGIC: &str = "assetc cache action 1";

/// A file's content as stored: its hash (the blob's name) and its size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlobRef {
    /// BLAKE3 of the bytes.
    pub hash: Key,
    /// Length in bytes.
    pub size: u64,
}

impl BlobRef {
    /// The reference to `bytes`.
    pub fn of(bytes: &[u8]) -> Self {
        Self {
            hash: Key::of(bytes),
            size: bytes.len() as u64,
        }
    }

    /// `<hash> <size>`.
    fn render(&self) -> String {
        format!("{} {}", self.hash.hex(), self.size)
    }

    fn parse(text: &str) -> Option<Self> {
        let (hash, size) = text.split_once(' ')?;
        Some(Self {
            hash: Key::from_hex(hash)?,
            size: size.parse().ok()?,
        })
    }
}

/// What one successful encode produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActionRecord {
    /// Files read besides the source, in depfile order.
    pub deps: Vec<String>,
    /// Every file produced, by runtime path, in the fragment's order.
    pub files: Vec<(String, BlobRef)>,
    /// The manifest fragment.
    pub fragment: BlobRef,
    /// Warning lines the encoder printed, replayed on a hit.
    pub warnings: Vec<String>,
}

impl ActionRecord {
    /// The sealed text of the record.
    pub fn render(&self) -> String {
        let mut text = format!("{ACTION_MAGIC}\n");
        for dep in &self.deps {
            text.push_str(&format!("dep {dep}\n"));
        }
        for (path, blob) in &self.files {
            text.push_str(&format!("file {} {path}\n", blob.render()));
        }
        text.push_str(&format!("fragment {}\n", self.fragment.render()));
        for warning in self.warnings.iter().flat_map(|w| w.lines()) {
            text.push_str(&format!("warning {warning}\n"));
        }
        seal(text)
    }

    /// Reads a sealed record; `None` for anything torn, altered or unknown.
    pub fn parse(text: &str) -> Option<Self> {
        let mut lines = unseal(text, ACTION_MAGIC)?;
        let mut record = Self {
            deps: Vec::new(),
            files: Vec::new(),
            fragment: BlobRef::of(b""),
            warnings: Vec::new(),
        };
        let mut fragment = None;
        for line in lines.by_ref() {
            let (tag, rest) = line.split_once(' ')?;
            match tag {
                "dep" => record.deps.push(rest.to_owned()),
                "file" => record.files.push(parse_file(rest)?),
                "fragment" => fragment = Some(BlobRef::parse(rest)?),
                "warning" => record.warnings.push(rest.to_owned()),
                _ => return None,
            }
        }
        record.fragment = fragment?;
        Some(record)
    }
}

/// A `file` line's `<hash> <size> <runtime path>`.
fn parse_file(text: &str) -> Option<(String, BlobRef)> {
    let mut parts = text.splitn(3, ' ');
    let hash = Key::from_hex(parts.next()?)?;
    let size = parts.next()?.parse().ok()?;
    let path = parts.next()?.to_owned();
    Some((path, BlobRef { hash, size }))
}

/// The sealed text of a deps record listing `deps`.
pub fn render_deps(deps: &[String]) -> String {
    let mut text = format!("{DEPS_MAGIC}\n");
    for dep in deps {
        text.push_str(&format!("dep {dep}\n"));
    }
    seal(text)
}

/// Reads a sealed deps record.
pub fn parse_deps(text: &str) -> Option<Vec<String>> {
    unseal(text, DEPS_MAGIC)?
        .map(|line| line.strip_prefix("dep ").map(str::to_owned))
        .collect()
}

/// Appends the `check` line.
fn seal(mut body: String) -> String {
    let check = Key::of(body.as_bytes()).hex();
    body.push_str(&format!("check {check}\n"));
    body
}

/// The body lines after the magic line, when the check line matches.
fn unseal<'a>(text: &'a str, magic: &str) -> Option<impl Iterator<Item = &'a str>> {
    let body_end = text.strip_suffix('\n')?.rfind('\n')? + 1;
    let (body, check) = text.split_at(body_end);
    let check = Key::from_hex(check.strip_prefix("check ")?.trim_end())?;
    if Key::of(body.as_bytes()) != check {
        return None;
    }
    let mut lines = body.lines();
    (lines.next()? == magic).then_some(lines)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record() -> ActionRecord {
        ActionRecord {
            deps: vec!["assets/models/a.bin".into(), "/usr/a b.ttf".into()],
            files: vec![
                ("ui/a b.ktx2".into(), BlobRef::of(b"one")),
                ("ui/c.ktx2".into(), BlobRef::of(b"two")),
            ],
            fragment: BlobRef::of(b"frag"),
            warnings: vec!["assetc-encode: warning: x: skipped".into()],
        }
    }

    #[test]
    fn records_read_back() {
        let text = record().render();
        assert_eq!(ActionRecord::parse(&text), Some(record()));
        let deps = render_deps(&record().deps);
        assert_eq!(parse_deps(&deps), Some(record().deps));
        assert_eq!(parse_deps(&render_deps(&[])), Some(vec![]));
    }

    #[test]
    fn torn_or_altered_records_are_refused() {
        let text = record().render();
        for cut in 0..text.len() - 1 {
            assert_eq!(ActionRecord::parse(&text[..cut]), None, "cut at {cut}");
        }
        let altered = text.replacen(" 3 ui/", " 4 ui/", 1);
        assert_ne!(altered, text);
        assert_eq!(ActionRecord::parse(&altered), None);
        assert_eq!(
            parse_deps(&text),
            None,
            "an action record is not a deps record"
        );
    }
}
