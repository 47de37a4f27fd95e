//! `assetc-link report`: under `keep_going`, the list of assets that failed.
//!
//! It reads the entries parts (which keep each failure fragment's `error`
//! records) after the manifest, packs and ids are written, and writes the
//! report: one block per failed source, sorted by source path, each the error
//! as the encoder printed it, blocks separated by a blank line; empty when
//! every asset built. The report is written only when its bytes change. The
//! step then fails while the report is not empty, so the build's exit status
//! stays non-zero (and Ninja runs the step again next time) until every
//! source is fixed.

use std::path::Path;

use super::{LinkError, read_fragments};
use crate::fsutil::write_output;

/// What [`link_report`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    /// The failed sources, sorted.
    pub failed: Vec<String>,
    /// The report text.
    pub text: String,
}

/// Writes the failure report `output` from the fragments or parts in `list`.
pub fn link_report(list: &Path, output: &Path) -> Result<Report, LinkError> {
    let mut failures: Vec<_> = read_fragments(list)?
        .into_iter()
        .filter(|f| f.failed())
        .collect();
    failures.sort_by(|a, b| a.source.cmp(&b.source));
    let blocks: Vec<String> = failures
        .iter()
        .map(|f| f.errors.iter().map(|line| format!("{line}\n")).collect())
        .collect();
    let text = blocks.join("\n");
    write_output(output, text.as_bytes())?;
    Ok(Report {
        failed: failures.into_iter().map(|f| f.source).collect(),
        text,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fragment::Fragment;

    #[test]
    fn failures_are_listed_by_source_and_built_assets_left_out() {
        let dir = tempfile::tempdir().unwrap();
        let fragment = |name: &str, errors: &[&str]| {
            let path = dir.path().join(format!("{name}.frag"));
            let fragment = Fragment {
                source: name.to_owned(),
                errors: errors.iter().map(|e| (*e).to_owned()).collect(),
                ..Fragment::default()
            };
            std::fs::write(&path, fragment.render()).unwrap();
            path.display().to_string()
        };
        let list = [
            fragment(
                "z.png",
                &["assetc-encode: error: z.png: bad", "  caused by: crc"],
            ),
            fragment("ok.png", &[]),
            fragment("a.obj", &["assetc-encode: error: a.obj: worse"]),
        ]
        .join("\n");
        std::fs::write(dir.path().join("list"), list).unwrap();
        let out = dir.path().join("failed.txt");
        let report = link_report(&dir.path().join("list"), &out).unwrap();
        assert_eq!(report.failed, ["a.obj", "z.png"]);
        assert_eq!(
            std::fs::read_to_string(&out).unwrap(),
            "assetc-encode: error: a.obj: worse\n\nassetc-encode: error: z.png: bad\n  caused by: crc\n"
        );
    }
}
