//! Output-name clashes: several sources that would write one output.
//!
//! `icon.png` beside `icon.jpg` both compile to `icon.ktx2`, `X.gltf` beside
//! `X.glb` both to `X.hmesh` and `X.hmat`: a runtime path drops the source's
//! extension. Runtime paths (and the ids derived from them) are also
//! case-insensitive, so `Logo.png` and `logo.png` clash too. Each clash says
//! which of the two it comes from ([`ClashCause`]).
//! No source wins silently: configure finds every clash at once and, in a
//! strict build, refuses the project with one message naming them all. Under
//! `keep_going` it leaves every source of a clash out of the graph (with the
//! edges that belong to it, such as a model's texture edges), warns, and
//! writes a failure fragment for each in `<build-dir>/clash/`, which the
//! part edges, `assetc-link report` and `assetc-link check` read like the
//! failure fragment of a failed encoder.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use super::job::Job;
use super::paths::join;
use crate::fragment::Fragment;
use crate::fsutil::without_extension;

/// The folder of the build folder holding the left-out sources' fragments.
const CLASH_FOLDER: &str = "clash";

/// Sources that would write the same outputs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Clash {
    /// The sources, relative to the input folder, sorted.
    pub sources: Vec<String>,
    /// The outputs they share, as the first source names them, sorted.
    pub outputs: Vec<String>,
    /// Why their outputs meet.
    pub cause: ClashCause,
}

/// Why several sources' outputs meet at one runtime path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClashCause {
    /// The same name with different extensions (`a.png`, `a.jpg`).
    Extension,
    /// Names that differ only in case (`Logo.png`, `logo.png`).
    Case,
    /// Names that differ in case and extension (`Logo.png`, `logo.jpg`).
    CaseAndExtension,
    /// Different names whose outputs meet anyway (a model's `<stem>/tex_<i>`
    /// texture and an image file of that name).
    Other,
}

impl ClashCause {
    /// The cause of a clash among `sources` (at least two, relative paths).
    fn of(sources: &[String]) -> ClashCause {
        let stems: Vec<&str> = sources.iter().map(|s| without_extension(s)).collect();
        let Some((first, rest)) = stems.split_first() else {
            return ClashCause::Other;
        };
        if !rest.iter().all(|stem| stem.eq_ignore_ascii_case(first)) {
            return ClashCause::Other;
        }
        let same_case = rest.iter().all(|stem| stem == first);
        let extensions: BTreeSet<String> = sources
            .iter()
            .map(|source| source[without_extension(source).len()..].to_lowercase())
            .collect();
        match (same_case, extensions.len() == 1) {
            (true, _) => ClashCause::Extension,
            (false, true) => ClashCause::Case,
            (false, false) => ClashCause::CaseAndExtension,
        }
    }

    /// The explanation a message adds, if any.
    fn note(self) -> Option<&'static str> {
        match self {
            ClashCause::Extension => Some("a runtime path drops the source's extension"),
            ClashCause::Case => Some("runtime paths and ids ignore case"),
            ClashCause::CaseAndExtension => {
                Some("a runtime path drops the source's extension, and paths and ids ignore case")
            }
            ClashCause::Other => None,
        }
    }
}

impl Clash {
    /// `a.jpg and a.png both write a.ktx2 (a runtime path drops the source's
    /// extension)` (`all write` for three or more).
    pub fn describe(&self) -> String {
        let verb = if self.sources.len() == 2 {
            "both write"
        } else {
            "all write"
        };
        let note = self
            .cause
            .note()
            .map_or_else(String::new, |note| format!(" ({note})"));
        format!(
            "{} {verb} {}{note}",
            and_list(&self.sources),
            self.outputs.join(", ")
        )
    }
}

/// Every clash among `jobs`, sorted by sources. Outputs compare without
/// regard to ASCII case; the jobs of one source never clash with each other.
pub fn find(jobs: &[Job]) -> Vec<Clash> {
    let mut writers: BTreeMap<String, (&str, BTreeSet<&str>)> = BTreeMap::new();
    for job in jobs {
        for output in &job.outputs {
            writers
                .entry(output.to_lowercase())
                .or_insert_with(|| (output.as_str(), BTreeSet::new()))
                .1
                .insert(&job.source);
        }
    }
    let mut by_sources: BTreeMap<Vec<String>, Vec<String>> = BTreeMap::new();
    for (output, sources) in writers.into_values().filter(|(_, s)| s.len() > 1) {
        let sources = sources.into_iter().map(str::to_owned).collect();
        by_sources
            .entry(sources)
            .or_default()
            .push(output.to_owned());
    }
    by_sources
        .into_iter()
        .map(|(sources, mut outputs)| {
            outputs.sort();
            Clash {
                cause: ClashCause::of(&sources),
                sources,
                outputs,
            }
        })
        .collect()
}

/// Every source of every clash, sorted, each once.
pub fn left_out(clashes: &[Clash]) -> BTreeSet<String> {
    clashes
        .iter()
        .flat_map(|c| c.sources.iter().cloned())
        .collect()
}

/// The warning configure prints for one clash under `keep_going`. `input`
/// is the root-relative input folder, `report` the failure report's path.
pub fn warning(input: &str, clash: &Clash, report: &str) -> String {
    let first = clash.sources.first().map_or("", String::as_str);
    format!(
        "{}: {}; left out of the build and reported in {report}. {RESOLUTION}",
        join(input, first),
        clash.describe()
    )
}

/// A source left out of the build for its clashes, and its failure fragment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeftOut {
    /// The source, relative to the input folder.
    pub source: String,
    /// Its failure fragment, root-relative: `<build>/clash/<source>.frag`.
    pub fragment: String,
    /// The fragment's text.
    pub text: String,
}

/// Every left-out source with its failure fragment, sorted by source. The
/// fragment's error names the source (below `input`, the root-relative
/// input folder) and each clash it is part of, then how to resolve them.
pub fn left_out_sources(build: &str, input: &str, clashes: &[Clash]) -> Vec<LeftOut> {
    left_out(clashes)
        .into_iter()
        .map(|source| {
            let mut errors: Vec<String> = clashes
                .iter()
                .filter(|c| c.sources.contains(&source))
                .map(|c| {
                    format!(
                        "assetc: error: {}: {}; left out of the build",
                        join(input, &source),
                        c.describe()
                    )
                })
                .collect();
            errors.push(format!("  {RESOLUTION}"));
            let fragment = join(build, &format!("{CLASH_FOLDER}/{source}.frag"));
            let text = Fragment {
                source: source.clone(),
                errors,
                ..Fragment::default()
            }
            .render();
            LeftOut {
                source,
                fragment,
                text,
            }
        })
        .collect()
}

/// How a user resolves a clash, as every message about one says.
pub const RESOLUTION: &str =
    "Rename one of them, or leave one out with an `exclude:` glob in assetc.yml";

/// `a`, `a and b`, `a, b and c`.
fn and_list(items: &[String]) -> String {
    match items.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        Some((last, _)) => last.clone(),
        None => String::new(),
    }
}

/// The strict build's error: every clash, one line each, under a line naming
/// the input folder, then how to resolve them.
pub fn refusal(input: &Path, clashes: &[Clash]) -> String {
    let mut text = format!(
        "{}: {} output clash(es): several sources would write one file, and no source wins \
         silently:",
        input.display(),
        clashes.len()
    );
    for clash in clashes {
        text.push_str("\n  ");
        text.push_str(&clash.describe());
    }
    text.push_str(&format!(
        "\n{RESOLUTION}; or build the rest with `assetc configure --keep-going`"
    ));
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::configure::classify::{self, SourceKind};
    use crate::encode::texture::TextureMode;

    fn job(source: &str, kind: SourceKind) -> Job {
        Job {
            source: source.into(),
            input: source.into(),
            name: source.into(),
            kind,
            outputs: classify::outputs(kind, source),
            flags: Vec::new(),
            shares: None,
            image: None,
            sprites: None,
        }
    }

    fn texture(source: &str) -> Job {
        job(source, SourceKind::Texture(TextureMode::Color))
    }

    fn project() -> Vec<Job> {
        let mut mesh_texture = texture("X.gltf");
        mesh_texture.outputs = vec![classify::mesh_texture_output("X.gltf", 0)];
        vec![
            texture("Icon.png"),
            texture("icon.jpg"),
            texture("icon.jpeg"),
            job("X.glb", SourceKind::Mesh),
            job("X.gltf", SourceKind::Mesh),
            mesh_texture,
            texture("X/tex_0.png"),
            texture("alone.png"),
        ]
    }

    #[test]
    fn every_clash_is_found_once_with_all_its_sources_ignoring_case() {
        let clashes = find(&project());
        let described: Vec<String> = clashes.iter().map(Clash::describe).collect();
        assert_eq!(
            described,
            [
                "Icon.png, icon.jpeg and icon.jpg all write Icon.ktx2 (a runtime path drops \
                 the source's extension, and paths and ids ignore case)",
                "X.glb and X.gltf both write X.hmat, X.hmesh (a runtime path drops the \
                 source's extension)",
                "X.gltf and X/tex_0.png both write X/tex_0.ktx2",
            ]
        );
        let case_only = find(&[texture("ui/Logo.png"), texture("ui/logo.png")]);
        assert_eq!(
            case_only[0].describe(),
            "ui/Logo.png and ui/logo.png both write ui/Logo.ktx2 (runtime paths and ids ignore \
             case)"
        );
        assert_eq!(
            left_out(&clashes).into_iter().collect::<Vec<_>>(),
            [
                "Icon.png",
                "X.glb",
                "X.gltf",
                "X/tex_0.png",
                "icon.jpeg",
                "icon.jpg"
            ]
        );
        assert!(find(&[texture("a.png"), texture("b.png")]).is_empty());
    }

    #[test]
    fn the_refusal_names_every_clash_and_the_way_out() {
        let text = refusal(Path::new("/p/assets"), &find(&project()));
        let lines: Vec<&str> = text.lines().collect();
        assert!(
            lines[0].starts_with("/p/assets: 3 output clash(es)"),
            "{text}"
        );
        assert!(
            lines[1].starts_with("  Icon.png, icon.jpeg and icon.jpg all write Icon.ktx2 ("),
            "{text}"
        );
        assert_eq!(lines.len(), 5);
        assert!(lines[4].contains("`exclude:`") && lines[4].contains("--keep-going"));
    }

    #[test]
    fn each_left_out_source_gets_a_failure_fragment_naming_its_clashes() {
        let clashes = find(&project());
        let left = left_out_sources(".assetc/default", "assets", &clashes);
        assert_eq!(left.len(), 6);
        let gltf = left.iter().find(|l| l.source == "X.gltf").unwrap();
        assert_eq!(gltf.fragment, ".assetc/default/clash/X.gltf.frag");
        let fragment = Fragment::parse(&gltf.text).unwrap();
        assert!(fragment.failed() && fragment.entries.is_empty() && fragment.files.is_empty());
        assert_eq!(fragment.source, "X.gltf");
        assert_eq!(
            fragment.errors[..2],
            [
                "assetc: error: assets/X.gltf: X.glb and X.gltf both write X.hmat, X.hmesh (a runtime path drops the source's extension); left out of the build",
                "assetc: error: assets/X.gltf: X.gltf and X/tex_0.png both write X/tex_0.ktx2; left out of the build",
            ]
        );
        assert!(fragment.errors[2].contains("Rename one of them"));
        let warning = warning("assets", &clashes[1], ".assetc/default/failed.txt");
        assert!(
            warning.starts_with("assets/X.glb: X.glb and X.gltf both write")
                && warning.contains("reported in .assetc/default/failed.txt"),
            "{warning}"
        );
    }
}
