//! `processors:`: user commands that compile sources assetc has no built-in
//! encoder for (a Tiled map, a CSV table, a dialogue script).
//!
//! ```yaml
//! processors:
//!   - name: tiled                  # Ninja rule name: [A-Za-z_][A-Za-z0-9_]*
//!     match: "maps/*.tmj"          # glob or list of globs over source paths
//!     command: python3 tools/processors/tiled.py $in $out $depfile
//!     extension: .tmap             # or output: "{dir}/{stem}.tmap"
//!     kind: embed                  # manifest kind of the output
//!     colorspace: linear           # optional; srgb only for kind texture
//!     inputs: [tools/processors/tiled.py]  # optional: edits rebuild
//! ```
//!
//! Processors are read at the top level only (presets do not change them).
//! The first processor whose glob matches a file claims it, before `embed:`
//! and before the built-in suffix table. Everything is checked here, with the
//! line and column of the offending value: the name, the globs, the kind,
//! the output naming (its extension must fit the kind: `.ktx2` for textures
//! and LUTs, `.spv` for shaders, `.hmesh`, `.hmat`, `.hanim`, `.hfont`), the
//! command (one line) and that every `inputs:` file exists.

use std::path::PathBuf;

use globset::{GlobSet, GlobSetBuilder};
use serde::Deserialize;

use super::document::Document;
use super::error::ConfigError;
use super::globs::GlobList;
use super::yaml::Step;
use crate::format::kind::{AssetKind, ColorSpace};

/// One entry of `processors:` exactly as written.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct ProcessorSection {
    /// The processor's name; it becomes the Ninja rule name.
    pub(crate) name: Option<String>,
    /// The glob (or globs) of the sources it compiles.
    #[serde(rename = "match")]
    pub(crate) pattern: Option<GlobList>,
    /// The shell command, with `$in`, `$out` and `$depfile`.
    pub(crate) command: Option<String>,
    /// Output path template, e.g. `{dir}/{stem}.tmap`.
    pub(crate) output: Option<String>,
    /// Output extension replacing the source's last one, e.g. `.tmap`.
    pub(crate) extension: Option<String>,
    /// Manifest kind of the output.
    pub(crate) kind: Option<String>,
    /// Colour space recorded in the manifest (`linear` unless given).
    pub(crate) colorspace: Option<String>,
    /// Files the command reads on every run (its script), relative to the
    /// config file's folder.
    pub(crate) inputs: Option<Vec<String>>,
}

/// A checked processor, ready for configure.
#[derive(Debug, Clone)]
pub struct Processor {
    /// Its name, a valid identifier; the Ninja rule name.
    pub name: String,
    /// Its globs as written.
    pub globs: Vec<String>,
    /// The command template, trimmed, on one line.
    pub command: String,
    /// How a source path becomes the output's runtime path.
    pub naming: OutputNaming,
    /// The manifest kind of the output.
    pub kind: AssetKind,
    /// The colour space recorded for the output.
    pub colorspace: ColorSpace,
    /// Absolute paths of the files named by `inputs:`.
    pub inputs: Vec<PathBuf>,
    /// Line of the processor's `name:` value, for errors found later.
    pub line: usize,
    /// Column of the processor's `name:` value.
    pub column: usize,
    /// The compiled globs.
    pub(super) matcher: GlobSet,
}

/// How a processor names its output, relative to the output folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OutputNaming {
    /// `extension: .tmap`: the source path with its last extension replaced
    /// (or this one appended when the file name has none).
    Extension(String),
    /// `output: "{dir}/{stem}.tmap"`: a template; see [`OutputNaming::output_for`].
    Template(String),
}

/// The placeholders an `output:` template may use.
const PLACEHOLDERS: [&str; 5] = ["path", "dir", "name", "stem", "ext"];

/// Placeholders of which a template needs at least one, so two sources do not
/// share an output by construction.
const NAMING_PLACEHOLDERS: [&str; 3] = ["path", "name", "stem"];

impl OutputNaming {
    /// The output runtime path of the source at `rel` (`/`-separated, below
    /// the input folder).
    ///
    /// Template placeholders, for `maps/forest/one.tmj`: `{path}` is
    /// `maps/forest/one.tmj`, `{dir}` is `maps/forest` (empty at the top),
    /// `{name}` is `one.tmj`, `{stem}` is `one`, `{ext}` is `tmj`. Empty path
    /// segments are dropped after expansion, so `{dir}/{stem}.tmap` gives
    /// `one.tmap` for a source at the top of the input folder.
    pub fn output_for(&self, rel: &str) -> String {
        let parts = PathParts::of(rel);
        match self {
            OutputNaming::Extension(extension) => {
                let stem = join_segments(&[parts.dir, parts.stem]);
                format!("{stem}{extension}")
            }
            OutputNaming::Template(template) => {
                let expanded = expand(template, &parts);
                let segments: Vec<&str> = expanded.split('/').filter(|s| !s.is_empty()).collect();
                segments.join("/")
            }
        }
    }

    /// Whether every output this naming produces ends with `suffix`.
    fn always_ends_with(&self, suffix: &str) -> bool {
        match self {
            OutputNaming::Extension(extension) => extension == suffix,
            OutputNaming::Template(template) => template.ends_with(suffix),
        }
    }
}

/// The pieces of a source path the placeholders stand for.
struct PathParts<'a> {
    path: &'a str,
    dir: &'a str,
    name: &'a str,
    stem: &'a str,
    ext: &'a str,
}

impl<'a> PathParts<'a> {
    fn of(rel: &'a str) -> Self {
        let (dir, name) = rel.rsplit_once('/').unwrap_or(("", rel));
        let (stem, ext) = match name.rsplit_once('.') {
            Some((stem, ext)) if !stem.is_empty() => (stem, ext),
            _ => (name, ""),
        };
        PathParts {
            path: rel,
            dir,
            name,
            stem,
            ext,
        }
    }

    fn get(&self, placeholder: &str) -> &'a str {
        match placeholder {
            "path" => self.path,
            "dir" => self.dir,
            "name" => self.name,
            "stem" => self.stem,
            _ => self.ext,
        }
    }
}

/// `a` and `b` joined by `/`, skipping empty ones.
fn join_segments(parts: &[&str]) -> String {
    parts
        .iter()
        .filter(|p| !p.is_empty())
        .copied()
        .collect::<Vec<_>>()
        .join("/")
}

/// Replaces every `{placeholder}` of a checked template.
fn expand(template: &str, parts: &PathParts<'_>) -> String {
    let mut out = String::with_capacity(template.len() + parts.path.len());
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let Some(close) = after.find('}') else {
            out.push_str(&rest[open..]);
            return out;
        };
        out.push_str(parts.get(&after[..close]));
        rest = &after[close + 1..];
    }
    out.push_str(rest);
    out
}

/// The placeholders `template` uses, or why it is malformed.
fn template_placeholders(template: &str) -> Result<Vec<&str>, String> {
    let mut found = Vec::new();
    let mut rest = template;
    loop {
        let open = rest.find('{');
        let close = rest.find('}');
        match (open, close) {
            (None, None) => return Ok(found),
            (Some(open), Some(close)) if open < close => {
                let name = &rest[open + 1..close];
                if !PLACEHOLDERS.contains(&name) {
                    return Err(format!(
                        "unknown placeholder '{{{name}}}' (known: {{path}}, {{dir}}, {{name}}, {{stem}}, {{ext}})"
                    ));
                }
                found.push(name);
                rest = &rest[close + 1..];
            }
            _ => return Err("unbalanced '{' or '}'".into()),
        }
    }
}

/// The extension an output of `kind` must have, so its id and pack kind follow
/// the same rules as built-in outputs; `None` for `embed` (any name).
pub fn required_extension(kind: AssetKind) -> Option<&'static str> {
    match kind {
        AssetKind::Texture | AssetKind::Lut => Some(".ktx2"),
        AssetKind::Shader => Some(".spv"),
        AssetKind::Mesh => Some(".hmesh"),
        AssetKind::Material => Some(".hmat"),
        AssetKind::Animation => Some(".hanim"),
        AssetKind::Font => Some(".hfont"),
        AssetKind::Embed => None,
    }
}

/// Whether `name` is a valid processor (Ninja rule) name.
fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Checks every `processors:` entry; `root` resolves `inputs:`.
pub(crate) fn build(
    doc: &Document<'_>,
    root: &std::path::Path,
    sections: Option<Vec<ProcessorSection>>,
) -> Result<Vec<Processor>, ConfigError> {
    let mut processors: Vec<Processor> = Vec::new();
    for (index, section) in sections.unwrap_or_default().into_iter().enumerate() {
        let entry = Entry { doc, index };
        let processor = entry.build(root, section)?;
        if processors.iter().any(|p| p.name == processor.name) {
            return Err(entry.invalid(
                "name",
                format!("processor '{}' is defined twice", processor.name),
            ));
        }
        processors.push(processor);
    }
    Ok(processors)
}

/// One `processors:` entry being checked, for error positions.
struct Entry<'a, 'd> {
    doc: &'a Document<'d>,
    index: usize,
}

impl Entry<'_, '_> {
    /// The path to `key` of this entry.
    fn steps<'k>(&self, key: &'k str) -> [Step<'k>; 3] {
        [
            Step::Key("processors"),
            Step::Index(self.index),
            Step::Key(key),
        ]
    }

    /// An error at `key` of this entry (at the entry itself when the key is
    /// missing).
    fn invalid(&self, key: &str, message: String) -> ConfigError {
        let steps = self.steps(key);
        let at = if self.doc.has(&steps) {
            &steps[..]
        } else {
            &steps[..2]
        };
        self.doc
            .invalid(at, format!("processors[{}]: {message}", self.index))
    }

    /// A required key's value, or an error naming the key.
    fn required<T>(&self, key: &str, value: Option<T>) -> Result<T, ConfigError> {
        value.ok_or_else(|| self.invalid(key, format!("`{key}:` is required")))
    }

    fn build(
        &self,
        root: &std::path::Path,
        section: ProcessorSection,
    ) -> Result<Processor, ConfigError> {
        let name = self.name(section.name)?;
        let globs = self.required("match", section.pattern)?.0;
        let kind = self.kind(section.kind)?;
        let naming = self.naming(section.output, section.extension, kind)?;
        let at = self.doc.position(&self.steps("name"));
        Ok(Processor {
            matcher: self.matcher(&globs)?,
            command: self.command(section.command)?,
            colorspace: self.colorspace(section.colorspace, kind)?,
            inputs: self.inputs(root, section.inputs.unwrap_or_default())?,
            line: at.line,
            column: at.column,
            name,
            globs,
            naming,
            kind,
        })
    }

    fn name(&self, name: Option<String>) -> Result<String, ConfigError> {
        let name = self.required("name", name)?;
        if is_identifier(&name) {
            Ok(name)
        } else {
            Err(self.invalid(
                "name",
                format!(
                    "bad name '{name}': a processor name is a Ninja rule name, letters, digits and '_', not starting with a digit"
                ),
            ))
        }
    }

    fn matcher(&self, globs: &[String]) -> Result<GlobSet, ConfigError> {
        if globs.is_empty() {
            return Err(self.invalid("match", "`match:` lists no globs".into()));
        }
        let mut builder = GlobSetBuilder::new();
        for (i, pattern) in globs.iter().enumerate() {
            let mut steps = self.steps("match").to_vec();
            if self.doc.has(&[&steps[..], &[Step::Index(i)]].concat()) {
                steps.push(Step::Index(i));
            }
            builder.add(self.doc.glob(pattern, &steps)?);
        }
        builder
            .build()
            .map_err(|e| self.invalid("match", format!("bad globs: {e}")))
    }

    fn kind(&self, kind: Option<String>) -> Result<AssetKind, ConfigError> {
        let kind = self.required("kind", kind)?;
        AssetKind::from_name(&kind).ok_or_else(|| {
            let known: Vec<&str> = AssetKind::ALL.iter().map(|k| k.name()).collect();
            self.invalid(
                "kind",
                format!("unknown kind '{kind}' (one of: {})", known.join(", ")),
            )
        })
    }

    fn colorspace(
        &self,
        space: Option<String>,
        kind: AssetKind,
    ) -> Result<ColorSpace, ConfigError> {
        let Some(space) = space else {
            return Ok(ColorSpace::Linear);
        };
        match ColorSpace::from_name(&space) {
            Some(ColorSpace::Srgb) if kind != AssetKind::Texture => Err(self.invalid(
                "colorspace",
                format!("colorspace srgb needs kind texture, not {kind}"),
            )),
            Some(space) => Ok(space),
            None => Err(self.invalid(
                "colorspace",
                format!("unknown colour space '{space}' (linear or srgb)"),
            )),
        }
    }

    fn command(&self, command: Option<String>) -> Result<String, ConfigError> {
        let command = self.required("command", command)?;
        let command = command.trim();
        if command.is_empty() {
            return Err(self.invalid("command", "the command is empty".into()));
        }
        if command.contains(['\n', '\r', '\0']) {
            return Err(self.invalid(
                "command",
                "the command must be one line (chain steps with && or call a script)".into(),
            ));
        }
        Ok(command.to_owned())
    }

    fn naming(
        &self,
        output: Option<String>,
        extension: Option<String>,
        kind: AssetKind,
    ) -> Result<OutputNaming, ConfigError> {
        let (key, naming) = match (output, extension) {
            (Some(_), Some(_)) => {
                return Err(self.invalid(
                    "extension",
                    "give `output:` or `extension:`, not both".into(),
                ));
            }
            (None, None) => {
                return Err(self.invalid(
                    "output",
                    "`output:` (a template such as \"{dir}/{stem}.bin\") or `extension:` is required"
                        .into(),
                ));
            }
            (Some(template), None) => ("output", self.template(template)?),
            (None, Some(extension)) => ("extension", self.extension(extension)?),
        };
        match required_extension(kind) {
            Some(suffix) if !naming.always_ends_with(suffix) => {
                Err(self.invalid(key, format!("kind {kind} outputs must end with '{suffix}'")))
            }
            _ => Ok(naming),
        }
    }

    fn template(&self, template: String) -> Result<OutputNaming, ConfigError> {
        let bad = |what: String| self.invalid("output", format!("bad output '{template}': {what}"));
        let used = template_placeholders(&template).map_err(&bad)?;
        if !used.iter().any(|p| NAMING_PLACEHOLDERS.contains(p)) {
            return Err(bad(
                "use {path}, {name} or {stem} so each source gets its own output".into(),
            ));
        }
        let literal_dots = template
            .split('/')
            .any(|segment| segment == "." || segment == "..");
        if template.starts_with('/') || literal_dots || template.contains(['\\', '\n', '|']) {
            return Err(bad(
                "must be a relative path inside the output folder, without '.', '..', '\\' or '|'"
                    .into(),
            ));
        }
        Ok(OutputNaming::Template(template))
    }

    fn extension(&self, extension: String) -> Result<OutputNaming, ConfigError> {
        let valid = extension.len() > 1
            && extension.starts_with('.')
            && !extension.contains(['/', '\\', '|', '{', '}', '\n']);
        if valid {
            Ok(OutputNaming::Extension(extension))
        } else {
            Err(self.invalid(
                "extension",
                format!("bad extension '{extension}': a dot and a name, such as '.bin'"),
            ))
        }
    }

    fn inputs(
        &self,
        root: &std::path::Path,
        inputs: Vec<String>,
    ) -> Result<Vec<PathBuf>, ConfigError> {
        inputs
            .into_iter()
            .map(|input| {
                let path = super::paths::join(root, std::path::Path::new(&input));
                if path.is_file() {
                    Ok(path)
                } else {
                    Err(self.invalid(
                        "inputs",
                        format!("input '{input}' is not a file ({})", path.display()),
                    ))
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;

    fn template(t: &str) -> OutputNaming {
        OutputNaming::Template(t.into())
    }

    #[test]
    fn templates_expand_every_placeholder() {
        let naming = template("{dir}/{stem}.tmap");
        assert_eq!(
            naming.output_for("maps/forest/one.tmj"),
            "maps/forest/one.tmap"
        );
        assert_eq!(naming.output_for("one.tmj"), "one.tmap");
        let all = template("out/{path}/{name}-{ext}");
        assert_eq!(all.output_for("a/b.c.d"), "out/a/b.c.d/b.c.d-d");
        assert_eq!(
            template("{dir}/{stem}.x").output_for(".hidden"),
            ".hidden.x"
        );
    }

    #[test]
    fn extensions_replace_the_last_one() {
        let naming = OutputNaming::Extension(".bin".into());
        assert_eq!(naming.output_for("data/table.csv"), "data/table.bin");
        assert_eq!(naming.output_for("data/table.v2.csv"), "data/table.v2.bin");
        assert_eq!(naming.output_for("README"), "README.bin");
    }

    #[test]
    fn template_syntax_is_checked() {
        assert_eq!(
            template_placeholders("{dir}/{stem}.x").unwrap(),
            ["dir", "stem"]
        );
        assert!(
            template_placeholders("{dirr}/x")
                .unwrap_err()
                .contains("{dirr}")
        );
        assert!(template_placeholders("{dir/x").is_err());
        assert!(template_placeholders("dir}/x").is_err());
    }

    #[test]
    fn the_first_matching_processor_claims_a_source() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("assetc.yml");
        let entry = |name: &str, glob: &str| {
            format!(
                "  - name: {name}\n    match: {glob}\n    command: c\n    extension: .x\n    kind: embed\n"
            )
        };
        let text = format!(
            "processors:\n{}{}",
            entry("maps", "\"maps/*\""),
            entry("any", "[\"*.tmj\", \"*.csv\"]")
        );
        std::fs::write(&file, text).unwrap();
        let config = Config::load(&file).unwrap();
        assert_eq!(config.processor_for("maps/a.tmj"), Some(0));
        assert_eq!(config.processor_for("b.tmj"), Some(1));
        assert_eq!(config.processor_for("t/c.csv"), Some(1));
        assert_eq!(config.processor_for("d.png"), None);
        assert_eq!(config.processors[1].globs, ["*.tmj", "*.csv"]);
    }

    #[test]
    fn names_are_identifiers() {
        assert!(is_identifier("tiled"));
        assert!(is_identifier("_csv2"));
        assert!(!is_identifier("2csv"));
        assert!(!is_identifier("my-proc"));
        assert!(!is_identifier(""));
    }
}
