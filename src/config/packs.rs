//! `packs:`: named packs ("parcels"), each a set of sources chosen by glob.
//!
//! ```yaml
//! packs:
//!   preload: ["ui/*", "fonts/*"]
//!   level1: "models/*"
//! ```
//!
//! A pack name is lowercase letters, digits, `_` and `-`, starting with a
//! letter or digit, at most 64 characters: it becomes part of a file name
//! (`<output>.<name>.hpack`) on every file system. Each entry is one glob or
//! a list of globs over source paths below the input folder; a source belongs
//! to every pack with a matching glob. Packs are read at the top level only.

use globset::{GlobSet, GlobSetBuilder};

use super::document::Document;
use super::error::ConfigError;
use super::globs::GlobList;
use super::schema::OrderedMap;
use super::yaml::Step;

/// The longest pack name accepted.
const MAX_NAME_LEN: usize = 64;

/// A checked named pack.
#[derive(Debug, Clone)]
pub struct NamedPack {
    /// Its name, safe to use in a file name.
    pub name: String,
    /// Its globs as written.
    pub globs: Vec<String>,
    /// Line of its name in the config file, for messages found later.
    pub line: usize,
    /// Column of its name.
    pub column: usize,
    /// The compiled globs.
    matcher: GlobSet,
}

impl NamedPack {
    /// Whether the source at `rel` (below the input folder) belongs to it.
    pub fn contains(&self, rel: &str) -> bool {
        self.matcher.is_match(rel)
    }
}

/// Whether `name` is a valid pack name.
fn is_pack_name(name: &str) -> bool {
    let lower_or_digit = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit();
    let mut chars = name.chars();
    name.len() <= MAX_NAME_LEN
        && matches!(chars.next(), Some(c) if lower_or_digit(c))
        && chars.all(|c| lower_or_digit(c) || c == '_' || c == '-')
}

/// Checks every `packs:` entry.
pub(crate) fn build(
    doc: &Document<'_>,
    sections: Option<OrderedMap<GlobList>>,
) -> Result<Vec<NamedPack>, ConfigError> {
    sections
        .unwrap_or_default()
        .0
        .into_iter()
        .map(|(name, globs)| build_one(doc, name, globs.0))
        .collect()
}

fn build_one(
    doc: &Document<'_>,
    name: String,
    globs: Vec<String>,
) -> Result<NamedPack, ConfigError> {
    let at = [Step::Key("packs"), Step::Key(&name)];
    if !is_pack_name(&name) {
        return Err(doc.invalid_key(
            &at,
            format!(
                "packs: bad pack name '{name}': lowercase letters, digits, '_' and '-', starting with a letter or digit, at most {MAX_NAME_LEN} characters"
            ),
        ));
    }
    if globs.is_empty() {
        return Err(doc.invalid_key(&at, format!("packs.{name}: lists no globs")));
    }
    let mut builder = GlobSetBuilder::new();
    for (index, pattern) in globs.iter().enumerate() {
        let item = [at[0], at[1], Step::Index(index)];
        let steps = if doc.has(&item) { &item[..] } else { &at[..] };
        builder.add(doc.glob(pattern, steps)?);
    }
    let matcher = builder
        .build()
        .map_err(|e| doc.invalid(&at, format!("packs.{name}: bad globs: {e}")))?;
    let key_at = doc.key_position(&at);
    Ok(NamedPack {
        name,
        globs,
        line: key_at.line,
        column: key_at.column,
        matcher,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;

    fn load(text: &str) -> Config {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("assetc.yml");
        std::fs::write(&file, text).unwrap();
        Config::load(&file).unwrap()
    }

    #[test]
    fn a_source_belongs_to_every_matching_pack_in_file_order() {
        let config = load("packs:\n  preload: [\"ui/*\", \"data/*\"]\n  level1: \"data/*\"\n");
        assert_eq!(config.packs_of("data/a.json"), ["preload", "level1"]);
        assert_eq!(config.packs_of("ui/deep/b.png"), ["preload"]);
        assert!(config.packs_of("models/c.glb").is_empty());
        assert_eq!((config.packs[1].line, config.packs[1].column), (3, 3));
    }

    #[test]
    fn pack_names_are_portable_file_name_parts() {
        assert!(is_pack_name("preload"));
        assert!(is_pack_name("level-1_b"));
        assert!(is_pack_name("2d"));
        assert!(!is_pack_name("Level1"));
        assert!(!is_pack_name("a.b"));
        assert!(!is_pack_name("-x"));
        assert!(!is_pack_name(""));
        assert!(!is_pack_name(&"a".repeat(65)));
    }
}
