//! What the encoders recorded about their outputs, for `assetc-link check`.
//!
//! Every fragment holds the BLAKE3 hash of each file its edge wrote. Given
//! the fragment list (and, for embedded files, the input folder), the check
//! adds three rules to those it applies to the output folder alone:
//!
//! * a listed file's bytes hash to what its encoder recorded; otherwise it was
//!   changed after the build (**tampered**);
//! * an embedded file (a fragment's `copy` record: a verbatim copy, not a
//!   processor's output) whose source still exists is byte-for-byte that source;
//!   otherwise the source changed since the last build (**stale**) or the copy
//!   was tampered with;
//! * a KTX2 file's header describes the texel format and colour space its
//!   encoder recorded (a `format` record); otherwise the file or the record
//!   was changed after the build;
//! * with a pack, every pack entry hashes to the recorded value and has the
//!   recorded format too.
//!
//! Fragments written before the hash record existed have none, and the first
//! and last rules then skip their files.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use crate::fragment::{FileHash, Fragment, FragmentEntry, FragmentError, TextureFormat};
use crate::fsutil;

use super::problem::Problem;
use super::withdraw_failed_sources;

/// The recorded hashes and embedded sources of one build.
#[derive(Debug, Default)]
pub struct Recorded {
    /// The recorded hash of each runtime path.
    hashes: HashMap<String, FileHash>,
    /// The recorded texel format of each KTX2 runtime path.
    formats: HashMap<String, TextureFormat>,
    /// The source file of each embedded runtime path, when the input folder
    /// is known.
    embed_sources: HashMap<String, PathBuf>,
    /// Fragments (or the list) that could not be read, and sources whose
    /// fragment records a failure (a `keep_going` build).
    pub load_problems: Vec<Problem>,
    /// Files of the built edges of failed sources, left out of the output
    /// with their source.
    left_out: HashSet<String>,
    /// Listed fragments that do not exist, as the list names them.
    unfinished: Vec<String>,
    /// The entries of every built fragment.
    entries: Vec<FragmentEntry>,
}

impl Recorded {
    /// Reads the fragment list at `list`, whose lines are paths relative to
    /// `base` (the folder Ninja runs in). `input` is the input folder, for
    /// comparing embedded files with their sources. A fragment that cannot
    /// be read is one of [`Recorded::load_problems`]; the others still count.
    pub fn load(list: &Path, base: &Path, input: Option<&Path>) -> Self {
        let mut recorded = Self::default();
        let text = match fsutil::read(list) {
            Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            Err(e) => {
                let at = list.display().to_string();
                recorded.load_problems.push(problem(&at, error_text(&e)));
                return recorded;
            }
        };
        let mut fragments = Vec::new();
        for line in text.lines().filter(|line| !line.is_empty()) {
            match Fragment::read(&base.join(line)) {
                Ok(fragment) => fragments.push(fragment),
                Err(FragmentError::Io { source, .. })
                    if source.kind() == std::io::ErrorKind::NotFound =>
                {
                    recorded.unfinished.push(line.to_owned());
                }
                Err(e) => recorded.load_problems.push(problem(line, error_text(&e))),
            }
        }
        recorded.left_out = withdraw_failed_sources(&mut fragments)
            .into_iter()
            .collect();
        for fragment in &fragments {
            if fragment.failed() {
                let first = fragment.errors.first().map_or("", String::as_str);
                let what = format!("failed to build and is not in the output ({first})");
                recorded.load_problems.push(problem(&fragment.source, what));
            } else {
                recorded.add(fragment, input);
            }
        }
        recorded
    }

    /// The fragments the list names that do not exist: edges that failed in
    /// a strict build (a failing edge deletes its fragment) or never ran.
    pub fn unfinished(&self) -> &[String] {
        &self.unfinished
    }

    /// Every manifest entry the built fragments register, as the manifest
    /// would list them: what a build that stopped early did produce.
    pub fn built_entries(&self) -> &[FragmentEntry] {
        &self.entries
    }

    /// Whether `path` is a file a built edge of a failed source wrote: left
    /// out of the manifest with its source, which is reported as failed, so
    /// not an orphan.
    pub fn left_out(&self, path: &str) -> bool {
        self.left_out.contains(path)
    }

    /// Adds one fragment's records.
    fn add(&mut self, fragment: &Fragment, input: Option<&Path>) {
        self.entries.extend(fragment.entries.iter().cloned());
        for hash in &fragment.hashes {
            self.hashes.insert(hash.path.clone(), hash.clone());
        }
        for format in &fragment.formats {
            self.formats
                .insert(format.path.clone(), format.format.clone());
        }
        let Some(input) = input else {
            return;
        };
        for copy in &fragment.copies {
            let source = input.join(&fragment.source);
            self.embed_sources.insert(copy.clone(), source);
        }
    }

    /// Checks the bytes of the listed file at `path` (of manifest `kind`).
    pub fn check_output(&self, path: &str, bytes: &[u8], out: &mut Vec<Problem>) {
        if let Some(hash) = self.hashes.get(path).filter(|h| !h.matches(bytes)) {
            out.push(problem(
                path,
                format!(
                    "changed since the build wrote it (BLAKE3 {}, recorded {}); run ninja to \
                     rebuild it",
                    short(&blake3::hash(bytes).to_hex()),
                    short(&hash.blake3)
                ),
            ));
        }
        self.check_copy_of_source(path, bytes, out);
        self.check_format(path, path, bytes, out);
    }

    /// A KTX2 file must have the texel format its encoder recorded; `at`
    /// names it in the problem. A file that does not read as KTX2 at all is
    /// left to the file's own validation, which reports it.
    fn check_format(&self, at: &str, path: &str, bytes: &[u8], out: &mut Vec<Problem>) {
        let Some(recorded) = self.formats.get(path) else {
            return;
        };
        match TextureFormat::of_bytes(bytes) {
            Ok(found) if found != *recorded => out.push(problem(
                at,
                format!(
                    "its header says {found} but the build recorded {recorded}; run ninja to \
                     rebuild it"
                ),
            )),
            _ => {}
        }
    }

    /// A verbatim copy (an embedded file) must equal its source while the
    /// source exists.
    fn check_copy_of_source(&self, path: &str, bytes: &[u8], out: &mut Vec<Problem>) {
        let Some(source) = self.embed_sources.get(path) else {
            return;
        };
        match std::fs::read(source) {
            Ok(original) if original == bytes => {}
            Ok(_) => out.push(problem(
                path,
                format!(
                    "differs from its source {} (a stale or tampered copy; run ninja to copy it again)",
                    fsutil::shown(source)
                ),
            )),
            // A deleted source is the next configure's business.
            Err(_) => {}
        }
    }

    /// Checks the bytes a pack holds for `path`; `pack` names the pack.
    pub fn check_pack_entry(&self, pack: &str, path: &str, data: &[u8], out: &mut Vec<Problem>) {
        if let Some(hash) = self.hashes.get(path).filter(|h| !h.matches(data)) {
            out.push(problem(
                &format!("{pack}: {path}"),
                format!(
                    "pack entry differs from what the build recorded (BLAKE3 {}, recorded {})",
                    short(&blake3::hash(data).to_hex()),
                    short(&hash.blake3)
                ),
            ));
        }
        self.check_format(&format!("{pack}: {path}"), path, data, out);
    }
}

/// The first 16 hex digits of a hash, enough to tell two apart in a message.
fn short(hex: &str) -> &str {
    hex.get(..16).unwrap_or(hex)
}

fn problem(path: &str, what: String) -> Problem {
    Problem {
        path: path.to_owned(),
        what,
    }
}

/// An error with its causes on one line.
fn error_text(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut cause = error.source();
    while let Some(c) = cause {
        text.push_str(": ");
        text.push_str(&c.to_string());
        cause = c.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::kind::{AssetKind, ColorSpace};
    use crate::fragment::FragmentEntry;

    fn embed_fragment(path: &str, bytes: &[u8]) -> Fragment {
        Fragment {
            source: path.into(),
            entries: vec![FragmentEntry {
                kind: AssetKind::Embed,
                colorspace: ColorSpace::Linear,
                path: path.into(),
            }],
            files: vec![path.into()],
            hashes: vec![FileHash::of(path, bytes)],
            copies: vec![path.into()],
            formats: Vec::new(),
            errors: Vec::new(),
        }
    }

    fn messages(problems: &[Problem]) -> Vec<String> {
        problems.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn tampered_and_stale_copies_are_told_apart() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("assets");
        std::fs::create_dir_all(input.join("data")).unwrap();
        std::fs::write(input.join("data/a.bin"), b"v1").unwrap();
        let mut recorded = Recorded::default();
        recorded.add(&embed_fragment("data/a.bin", b"v1"), Some(&input));

        let mut out = Vec::new();
        recorded.check_output("data/a.bin", b"v1", &mut out);
        assert!(out.is_empty(), "{out:?}");

        recorded.check_output("data/a.bin", b"v2", &mut out);
        let text = messages(&out);
        assert_eq!(text.len(), 2, "{text:?}");
        assert!(text[0].starts_with("data/a.bin: changed since the build wrote it"));
        assert!(text[1].contains("differs from its source") && text[1].contains("data/a.bin"));

        out.clear();
        std::fs::write(input.join("data/a.bin"), b"v3").unwrap();
        recorded.check_output("data/a.bin", b"v1", &mut out);
        let text = messages(&out);
        assert_eq!(
            text.len(),
            1,
            "a stale copy still matches its record: {text:?}"
        );
        assert!(text[0].contains("differs from its source"));

        out.clear();
        std::fs::remove_file(input.join("data/a.bin")).unwrap();
        recorded.check_output("data/a.bin", b"v1", &mut out);
        assert!(out.is_empty(), "a deleted source is not compared");
    }

    #[test]
    fn only_verbatim_copies_are_compared_with_their_source() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("maps")).unwrap();
        std::fs::write(dir.path().join("maps/a.tmj"), b"{}").unwrap();
        let mut processed = embed_fragment("maps/a.tmj", b"binary");
        processed.copies.clear();
        let mut recorded = Recorded::default();
        recorded.add(&processed, Some(dir.path()));
        let mut out = Vec::new();
        recorded.check_output("maps/a.tmj", b"binary", &mut out);
        assert!(out.is_empty(), "{out:?}");
    }

    #[test]
    fn a_texture_whose_header_disagrees_with_its_format_record_is_named() {
        use crate::format::texel::TexelFormat;
        use crate::fragment::tests::ktx2_of;
        use crate::fragment::{FileFormat, TextureFormat};
        let bc7 = ktx2_of(TexelFormat::Bc7 { srgb: true });
        let fragment = Fragment {
            source: "ui/a.png".into(),
            formats: vec![FileFormat {
                path: "ui/a.ktx2".into(),
                format: TextureFormat::of_bytes(&bc7).unwrap(),
            }],
            ..Fragment::default()
        };
        let mut recorded = Recorded::default();
        recorded.add(&fragment, None);
        let mut out = Vec::new();
        recorded.check_output("ui/a.ktx2", &bc7, &mut out);
        recorded.check_pack_entry("p.hpack", "ui/a.ktx2", &bc7, &mut out);
        assert!(out.is_empty(), "{out:?}");

        let linear = ktx2_of(TexelFormat::Bc7 { srgb: false });
        recorded.check_output("ui/a.ktx2", &linear, &mut out);
        recorded.check_pack_entry("p.hpack", "ui/a.ktx2", &ktx2_of(TexelFormat::Bc5), &mut out);
        assert_eq!(
            messages(&out),
            [
                "ui/a.ktx2: its header says bc7 linear but the build recorded bc7 srgb; run \
                 ninja to rebuild it",
                "p.hpack: ui/a.ktx2: its header says bc5 linear but the build recorded bc7 \
                 srgb; run ninja to rebuild it"
            ]
        );
    }

    #[test]
    fn pack_entries_are_checked_against_the_record() {
        let mut recorded = Recorded::default();
        recorded.add(&embed_fragment("a.bin", b"ok"), None);
        let mut out = Vec::new();
        recorded.check_pack_entry("p.hpack", "a.bin", b"ok", &mut out);
        recorded.check_pack_entry("p.hpack", "unrecorded.bin", b"?", &mut out);
        assert!(out.is_empty());
        recorded.check_pack_entry("p.hpack", "a.bin", b"no", &mut out);
        assert!(messages(&out)[0].starts_with("p.hpack: a.bin: pack entry differs"));
    }

    #[test]
    fn failed_sources_are_problems() {
        let dir = tempfile::tempdir().unwrap();
        let failed = Fragment {
            source: "ui/bad.png".into(),
            errors: vec!["assetc-encode: error: assets/ui/bad.png: corrupt".into()],
            ..Fragment::default()
        };
        std::fs::write(dir.path().join("bad.frag"), failed.render()).unwrap();
        std::fs::write(dir.path().join("list"), "bad.frag\n").unwrap();
        let recorded = Recorded::load(&dir.path().join("list"), dir.path(), None);
        assert_eq!(
            messages(&recorded.load_problems),
            [
                "ui/bad.png: failed to build and is not in the output (assetc-encode: error: assets/ui/bad.png: corrupt)"
            ]
        );
    }

    #[test]
    fn unreadable_fragments_are_problems_and_missing_ones_an_unfinished_build() {
        let dir = tempfile::tempdir().unwrap();
        let list = dir.path().join("fragments.list");
        std::fs::create_dir(dir.path().join("frag")).unwrap();
        std::fs::write(dir.path().join("frag/bad.frag"), "not a fragment\n").unwrap();
        std::fs::write(&list, "frag/missing.frag\nfrag/bad.frag\n").unwrap();
        let recorded = Recorded::load(&list, dir.path(), None);
        assert_eq!(recorded.unfinished(), ["frag/missing.frag"]);
        let problems = recorded.load_problems;
        assert_eq!(problems.len(), 1);
        assert_eq!(problems[0].path, "frag/bad.frag");
        let problems =
            Recorded::load(&dir.path().join("nope.list"), dir.path(), None).load_problems;
        assert!(problems[0].what.contains("cannot read"), "{problems:?}");
    }
}
