//! `assetc-link ids`: the manifest's ids as a C header and a Rust module, so
//! game code names assets by constants computed offline instead of hashing
//! strings at run time.
//!
//! The step reads the same fragment list as the manifest step, takes every
//! manifest entry, names it ([`names`]) and renders both files ([`render`]).
//! Two different entries whose names come out equal (`ui/my-logo.png` and
//! `ui/my_logo.png`), or whose ids do, stop the step before anything is
//! written; otherwise each file is written atomically and only when its bytes
//! change, so Ninja's `restat` keeps the game's own build from recompiling.

pub mod names;
pub mod render;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::{LinkError, read_fragments};
use crate::format::kind::AssetKind;
use crate::fragment::Fragment;
use crate::fsutil::write_output;

/// File name of the C header when no other is configured (in the output folder).
pub const C_HEADER_FILE: &str = "assets.h";
/// File name of the Rust module when no other is configured (in the output folder).
pub const RUST_MODULE_FILE: &str = "assets.rs";

/// One named id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IdEntry {
    /// The constant's name, `<KIND>_<PATH>`.
    pub name: String,
    /// The manifest kind.
    pub kind: AssetKind,
    /// The runtime path.
    pub path: String,
    /// The manifest id.
    pub id: u64,
}

/// Where the step writes; `None` skips that language.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IdsTargets {
    /// The C header.
    pub c: Option<PathBuf>,
    /// The Rust module.
    pub rust: Option<PathBuf>,
}

/// Names every entry of the fragments in `list` and writes the files of
/// `targets`. Returns the number of ids.
pub fn link_ids(list: &Path, targets: &IdsTargets) -> Result<usize, LinkError> {
    let fragments = read_fragments(list)?;
    let first_target = targets.c.as_deref().or(targets.rust.as_deref());
    let at = first_target.unwrap_or(list);
    let entries = named_entries(&fragments).map_err(|what| LinkError::Invalid {
        path: at.to_owned(),
        what,
        source: None,
    })?;
    let outputs = [
        (&targets.c, render::render_c(&entries)),
        (&targets.rust, render::render_rust(&entries)),
    ];
    for (path, text) in &outputs {
        if let Some(path) = path {
            write_output(path, text.as_bytes())?;
        }
    }
    Ok(entries.len())
}

/// Every distinct manifest entry of `fragments`, named and sorted by name.
/// Fails, naming both paths, when two entries share a name or an id.
pub fn named_entries(fragments: &[Fragment]) -> Result<Vec<IdEntry>, String> {
    let mut by_name: BTreeMap<String, IdEntry> = BTreeMap::new();
    let mut by_id: BTreeMap<u64, String> = BTreeMap::new();
    for (fragment, entry) in fragments
        .iter()
        .flat_map(|f| f.entries.iter().map(move |e| (f, e)))
    {
        let name = names::constant_name(entry.kind, &entry.path).ok_or_else(|| {
            format!(
                "'{}' (from '{}') has no letter or digit to name its id by; rename it",
                entry.path, fragment.source
            )
        })?;
        let named = IdEntry {
            id: entry.kind.id_for_path(&entry.path),
            name,
            kind: entry.kind,
            path: entry.path.clone(),
        };
        if let Some(other) = by_name.get(&named.name) {
            if *other == named {
                continue;
            }
            return Err(clash("name", &named.name, other, &named, fragments));
        }
        if let Some(other) = by_id.get(&named.id).and_then(|name| by_name.get(name)) {
            let id = format!("{:#018x}", named.id);
            return Err(clash("id", &id, other, &named, fragments));
        }
        by_id.insert(named.id, named.name.clone());
        by_name.insert(named.name.clone(), named);
    }
    Ok(by_name.into_values().collect())
}

/// The message for two entries that share a name (or an id).
fn clash(
    what: &str,
    value: &str,
    first: &IdEntry,
    second: &IdEntry,
    fragments: &[Fragment],
) -> String {
    let (a, b) = if first.path <= second.path {
        (first, second)
    } else {
        (second, first)
    };
    format!(
        "'{}' (from '{}') and '{}' (from '{}') both get the {what} {value}; rename one of them",
        a.path,
        source_of(fragments, &a.path),
        b.path,
        source_of(fragments, &b.path)
    )
}

/// The source whose fragment registers `path`.
fn source_of<'a>(fragments: &'a [Fragment], path: &str) -> &'a str {
    fragments
        .iter()
        .find(|f| f.entries.iter().any(|e| e.path == path))
        .map_or("?", |f| f.source.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::kind::ColorSpace;
    use crate::fragment::FragmentEntry;

    fn fragment(source: &str, entries: &[(AssetKind, &str)]) -> Fragment {
        Fragment {
            source: source.into(),
            entries: entries
                .iter()
                .map(|&(kind, path)| FragmentEntry {
                    kind,
                    colorspace: ColorSpace::Linear,
                    path: path.into(),
                })
                .collect(),
            ..Fragment::default()
        }
    }

    #[test]
    fn entries_are_named_deduplicated_and_sorted() {
        let fragments = [
            fragment(
                "models/crate.glb",
                &[
                    (AssetKind::Mesh, "models/crate.hmesh"),
                    (AssetKind::Material, "models/crate.hmat"),
                ],
            ),
            fragment(
                "models/crate.glb",
                &[(AssetKind::Texture, "models/crate/tex_0.ktx2")],
            ),
            fragment("data/a.json", &[(AssetKind::Embed, "data/a.json")]),
            fragment("data/a.json", &[(AssetKind::Embed, "data/a.json")]),
        ];
        let entries = named_entries(&fragments).unwrap();
        let names: Vec<&str> = entries.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "EMBED_DATA_A_JSON",
                "MATERIAL_MODELS_CRATE",
                "MESH_MODELS_CRATE",
                "TEXTURE_MODELS_CRATE_TEX_0"
            ]
        );
        assert_eq!(
            entries[3].id,
            crate::format::hash::asset_hash("models/crate/tex_0")
        );
    }

    #[test]
    fn a_name_collision_names_both_paths_and_sources() {
        let fragments = [
            fragment("ui/my_logo.png", &[(AssetKind::Texture, "ui/my_logo.ktx2")]),
            fragment("ui/my-logo.png", &[(AssetKind::Texture, "ui/my-logo.ktx2")]),
        ];
        let err = named_entries(&fragments).unwrap_err();
        assert_eq!(
            err,
            "'ui/my-logo.ktx2' (from 'ui/my-logo.png') and 'ui/my_logo.ktx2' (from \
             'ui/my_logo.png') both get the name TEXTURE_UI_MY_LOGO; rename one of them"
        );
    }

    #[test]
    fn an_id_collision_is_refused_too() {
        // Ids fold ASCII case, names do not see case either, so pick two
        // paths whose names differ but whose ids are equal: a texture and an
        // embed keyed by the same string.
        let fragments = [
            fragment("a.png", &[(AssetKind::Texture, "a.ktx2")]),
            fragment("a", &[(AssetKind::Embed, "a")]),
        ];
        let err = named_entries(&fragments).unwrap_err();
        assert!(err.contains("both get the id"), "{err}");
        assert!(
            err.contains("'a' (from 'a')") && err.contains("'a.ktx2'"),
            "{err}"
        );
    }

    #[test]
    fn a_nameless_path_is_an_error() {
        let fragments = [fragment("-.json", &[(AssetKind::Embed, "-._")])];
        assert!(
            named_entries(&fragments)
                .unwrap_err()
                .contains("'-._' (from '-.json')")
        );
    }

    #[test]
    fn a_collision_writes_neither_file() {
        let dir = tempfile::tempdir().unwrap();
        let frag_a = dir.path().join("a.frag");
        let frag_b = dir.path().join("b.frag");
        let list = dir.path().join("fragments.list");
        let a = fragment("x-y.json", &[(AssetKind::Embed, "x-y.json")]);
        let b = fragment("x_y.json", &[(AssetKind::Embed, "x_y.json")]);
        std::fs::write(&frag_a, a.render()).unwrap();
        std::fs::write(&frag_b, b.render()).unwrap();
        std::fs::write(
            &list,
            format!("{}\n{}\n", frag_a.display(), frag_b.display()),
        )
        .unwrap();
        let targets = IdsTargets {
            c: Some(dir.path().join("out/assets.h")),
            rust: Some(dir.path().join("out/assets.rs")),
        };
        let err = link_ids(&list, &targets).unwrap_err();
        assert!(err.to_string().contains("EMBED_X_Y_JSON"), "{err}");
        assert!(!dir.path().join("out").exists());

        std::fs::write(&list, format!("{}\n", frag_a.display())).unwrap();
        assert_eq!(link_ids(&list, &targets).unwrap(), 1);
        let header = std::fs::read_to_string(targets.c.as_ref().unwrap()).unwrap();
        assert!(
            header.contains("#define EMBED_X_Y_JSON UINT64_C("),
            "{header}"
        );
        assert!(targets.rust.as_ref().unwrap().is_file());
    }
}
