//! `assetc-link check` for sprite atlases: does every `.hatlas` table agree
//! with the texture array holding its pages?
//!
//! An embedded file whose path ends in `.hatlas` must be a valid table
//! (`format::hatlas`: among its rules, every rect lies inside a page of the
//! size the table states, and no two overlap), and the texture its
//! `atlasTex` id names must be in the manifest, as wide and tall as the
//! table's pages, with one array layer per page. A table left over from an
//! older build of its pages is reported against the table.

use std::collections::{BTreeMap, HashMap};

use super::problem::Problem;
use crate::format::hatlas::AtlasTable;

/// The tables found in the manifest, by runtime path.
pub type Tables = BTreeMap<String, AtlasTable>;

/// A texture's level-0 width and height and its array layers (1 when it is
/// not an array).
pub type TextureShape = (u32, u32, u32);

/// Checks each table against its texture; `paths` gives the runtime path of
/// every manifest id, `textures` the shape of every texture that parsed.
pub fn check_atlases(
    tables: &Tables,
    paths: &HashMap<u64, String>,
    textures: &HashMap<String, TextureShape>,
    problems: &mut Vec<Problem>,
) {
    for (path, table) in tables {
        if let Err(what) = check_atlas(table, paths, textures) {
            problems.push(Problem {
                path: path.clone(),
                what,
            });
        }
    }
}

/// Why `table` disagrees with its pages, if it does.
fn check_atlas(
    table: &AtlasTable,
    paths: &HashMap<u64, String>,
    textures: &HashMap<String, TextureShape>,
) -> Result<(), String> {
    let id = table.atlas_tex;
    let (pages_path, &(width, height, layers)) = paths
        .get(&id)
        .and_then(|path| Some((path, textures.get(path)?)))
        .ok_or_else(|| format!("its pages {id:#018x} are not a texture in the manifest"))?;
    if (width, height) != (table.page_width, table.page_height) {
        return Err(format!(
            "states {}x{} pages but {pages_path} is {width}x{height}",
            table.page_width, table.page_height
        ));
    }
    if layers != table.page_count {
        return Err(format!(
            "states {} pages but {pages_path} has {layers} layers",
            table.page_count
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table() -> AtlasTable {
        AtlasTable {
            atlas_tex: 5,
            page_count: 2,
            page_width: 64,
            page_height: 32,
            flags: 0,
            sprites: Vec::new(),
        }
    }

    fn problems(shape: Option<TextureShape>) -> Vec<String> {
        let tables = Tables::from([("ui/icons.hatlas".to_string(), table())]);
        let paths = HashMap::from([(5, "ui/icons.atlas.ktx2".to_string())]);
        let textures: HashMap<String, TextureShape> = shape
            .map(|s| ("ui/icons.atlas.ktx2".to_string(), s))
            .into_iter()
            .collect();
        let mut found = Vec::new();
        check_atlases(&tables, &paths, &textures, &mut found);
        found.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn a_table_must_match_its_pages() {
        assert!(problems(Some((64, 32, 2))).is_empty());
        assert_eq!(
            problems(None),
            ["ui/icons.hatlas: its pages 0x0000000000000005 are not a texture in the manifest"]
        );
        assert_eq!(
            problems(Some((64, 64, 2))),
            ["ui/icons.hatlas: states 64x32 pages but ui/icons.atlas.ktx2 is 64x64"]
        );
        assert_eq!(
            problems(Some((64, 32, 1))),
            ["ui/icons.hatlas: states 2 pages but ui/icons.atlas.ktx2 has 1 layers"]
        );
    }
}
