//! The files configure ignores, and what would take them.
//!
//! A file that no processor, `embed:` glob or built-in suffix claims is not
//! built. Configure says so instead of only counting them: its output lists
//! them by extension (the count, the first few names and the setting that
//! would take them), and `<build-dir>/ignored.txt` lists every one, one path
//! (relative to the input folder) per line, sorted, rewritten only when its
//! bytes change. Both come from the names the walk already saw: nothing more
//! is read or statted, so a no-op regeneration stays cheap.

use std::collections::BTreeMap;

/// The full list's name in the build folder.
pub const IGNORED_FILE: &str = "ignored.txt";

/// How many names of each extension the summary shows.
const EXAMPLES: usize = 3;

/// Formats that are planned as kinds of their own.
const FUTURE_KINDS: [&str; 1] = ["woff2"];

/// The ignored files of one extension.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Extension {
    /// `.webp`, lower case; `(no extension)` for names without a dot.
    pub name: String,
    /// How many files have it.
    pub count: usize,
    /// The first few of them, sorted.
    pub examples: Vec<String>,
}

impl Extension {
    /// `.webp 60 (ui/a.webp, ui/b.webp, ui/c.webp, …): <what would take them>`.
    pub fn describe(&self) -> String {
        let more = if self.count > self.examples.len() {
            ", …"
        } else {
            ""
        };
        format!(
            "{} {} ({}{more}): {}",
            self.name,
            self.count,
            self.examples.join(", "),
            advice(&self.name)
        )
    }
}

/// The text of `ignored.txt`: every path, sorted, one per line.
pub fn list_text(ignored: &[String]) -> String {
    let mut sorted: Vec<&String> = ignored.iter().collect();
    sorted.sort();
    sorted.into_iter().map(|p| format!("{p}\n")).collect()
}

/// The ignored files grouped by extension, most numerous first (then by
/// name).
pub fn by_extension(ignored: &[String]) -> Vec<Extension> {
    let mut groups: BTreeMap<String, Vec<&str>> = BTreeMap::new();
    for path in ignored {
        groups.entry(extension(path)).or_default().push(path);
    }
    let mut extensions: Vec<Extension> = groups
        .into_iter()
        .map(|(name, mut paths)| {
            paths.sort_unstable();
            Extension {
                name,
                count: paths.len(),
                examples: paths
                    .iter()
                    .take(EXAMPLES)
                    .map(|p| (*p).to_owned())
                    .collect(),
            }
        })
        .collect();
    extensions.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.name.cmp(&b.name)));
    extensions
}

/// The lines configure prints: a heading naming the full list at `list`,
/// then one line per extension. None when nothing was ignored.
pub fn summary(ignored: &[String], list: &str) -> Vec<String> {
    if ignored.is_empty() {
        return Vec::new();
    }
    let mut lines = vec![format!(
        "assetc: ignored {} file(s) that no kind, `embed:` glob or processor takes (all listed in {list}):",
        ignored.len()
    )];
    lines.extend(
        by_extension(ignored)
            .iter()
            .map(|e| format!("  {}", e.describe())),
    );
    lines
}

/// The lower-case extension of a path's file name, with its dot.
fn extension(path: &str) -> String {
    let name = path.rsplit('/').next().unwrap_or(path);
    match name.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() && !ext.is_empty() => {
            format!(".{}", ext.to_ascii_lowercase())
        }
        _ => "(no extension)".to_owned(),
    }
}

/// The setting that would take files of `extension` (as [`extension`]
/// writes it).
fn advice(extension: &str) -> &'static str {
    let bare = extension.trim_start_matches('.');
    match bare {
        _ if FUTURE_KINDS.contains(&bare) => {
            "a future kind; until then `embed:` copies them verbatim, or a `processors:` entry converts them"
        }
        "bin" => {
            "a glTF model's buffers are read by the model that names them; `embed:` copies other data verbatim"
        }
        "mtl" => "read by the OBJ models that name them; nothing to do",
        "xm" | "mod" | "it" | "s3m" | "mid" | "midi" => {
            "music the game's player renders itself (a tracker module or MIDI); `embed:` copies them verbatim"
        }
        _ => "`embed:` copies them verbatim, or a `processors:` entry compiles them",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(names: &[&str]) -> Vec<String> {
        names.iter().map(|n| (*n).to_owned()).collect()
    }

    #[test]
    fn extensions_are_grouped_counted_and_sampled() {
        let ignored = paths(&[
            "ui/d.psd",
            "ui/a.psd",
            "README",
            "ui/c.PSD",
            "fonts/a.woff2",
            "ui/b.psd",
            "docs/x.txt",
        ]);
        let groups = by_extension(&ignored);
        let names: Vec<(&str, usize)> = groups.iter().map(|g| (g.name.as_str(), g.count)).collect();
        assert_eq!(
            names,
            [
                (".psd", 4),
                ("(no extension)", 1),
                (".txt", 1),
                (".woff2", 1)
            ]
        );
        assert_eq!(groups[0].examples, ["ui/a.psd", "ui/b.psd", "ui/c.PSD"]);
        assert_eq!(
            groups[0].describe(),
            ".psd 4 (ui/a.psd, ui/b.psd, ui/c.PSD, …): `embed:` copies them verbatim, or a \
             `processors:` entry compiles them"
        );
        assert!(groups[2].describe().ends_with(
            "(docs/x.txt): `embed:` copies them verbatim, or a `processors:` entry compiles them"
        ));
    }

    #[test]
    fn tracker_modules_and_midi_are_advised_to_be_embedded() {
        for extension in [".xm", ".mod", ".it", ".s3m", ".mid", ".midi"] {
            let text = advice(extension);
            assert!(
                text.contains("tracker module or MIDI") && text.contains("`embed:`"),
                "{text}"
            );
        }
    }

    #[test]
    fn a_dot_file_name_or_a_trailing_dot_has_no_extension() {
        assert_eq!(extension("a/.profile"), "(no extension)");
        assert_eq!(extension("notes."), "(no extension)");
        assert_eq!(extension("a.b/c"), "(no extension)");
        assert_eq!(extension("a/b.tar.GZ"), ".gz");
    }

    #[test]
    fn the_list_is_sorted_and_the_summary_names_it() {
        let ignored = paths(&["b.txt", "a/z.bin", "a.txt"]);
        assert_eq!(list_text(&ignored), "a.txt\na/z.bin\nb.txt\n");
        let lines = summary(&ignored, ".assetc/default/ignored.txt");
        assert_eq!(lines.len(), 3);
        assert!(
            lines[0].contains("ignored 3 file(s)")
                && lines[0].contains(".assetc/default/ignored.txt")
        );
        assert!(
            lines[1].starts_with("  .txt 2 (a.txt, b.txt): "),
            "{lines:?}"
        );
        assert!(
            lines[2].contains("read by the model that names them"),
            "{lines:?}"
        );
        assert!(summary(&[], "x").is_empty());
    }
}
