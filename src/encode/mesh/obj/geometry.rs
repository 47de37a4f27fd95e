//! Triangle lists from the checked OBJ text, through `tobj`.
//!
//! `tobj` (single index, triangulated as fans) yields one model per run of
//! faces sharing an object or group and a material; each non-empty model
//! becomes one [`Primitive`]. Normals and UVs are kept only when every corner
//! of the run has them: `tobj` stores them per vertex only for corners that
//! name one, so a partial set cannot be lined up with the positions and is
//! dropped with a warning (the builder then makes normals, and UV-less
//! vertices get no tangents).

use std::collections::HashMap;

use super::scan::tobj_material_name;
use crate::encode::mesh::scene::Primitive;

/// Runs `tobj` over text from [`super::scan::prepare`]. `names` are the
/// materials in scene order; `index` maps a `usemtl` name to its position.
pub(super) fn load_models(
    text: &str,
    names: &[String],
    index: &HashMap<String, usize>,
) -> Result<Vec<tobj::Model>, String> {
    #[allow(
        clippy::needless_update,
        reason = "tobj has more fields when its merging or reordering feature is on"
    )]
    let options = tobj::LoadOptions {
        single_index: true,
        triangulate: true,
        ignore_points: true,
        ignore_lines: true,
        ..tobj::LoadOptions::default()
    };
    let table = material_table(names, index);
    // The prepared text has exactly one `mtllib` line, the synthetic first
    // one, so every call is for it.
    let loader = |_: &std::path::Path| table.clone();
    let (models, _) = tobj::load_obj_buf(&mut text.as_bytes(), &options, loader)
        .map_err(|error| format!("the OBJ reader failed: {error}"))?;
    Ok(models)
}

/// The materials in the form `tobj` resolves `usemtl` names with.
fn material_table(names: &[String], index: &HashMap<String, usize>) -> tobj::MTLLoadResult {
    let materials = names
        .iter()
        .map(|name| tobj::Material {
            name: tobj_material_name(name).to_owned(),
            ..tobj::Material::default()
        })
        .collect();
    let mut table: tobj::MTLLoadResult = Ok((materials, Default::default()));
    if let Ok((_, map)) = &mut table {
        map.extend(
            index
                .iter()
                .map(|(name, &at)| (tobj_material_name(name).to_owned(), at)),
        );
    }
    table
}

/// Turns `tobj` models into primitives. `names` are the scene's materials.
/// Warnings are appended to `warnings`.
pub(super) fn primitives(
    models: &[tobj::Model],
    names: &[String],
    warnings: &mut Vec<String>,
) -> Result<Vec<Primitive>, String> {
    let mut primitives = Vec::new();
    for model in models.iter().filter(|m| !m.mesh.indices.is_empty()) {
        let material = model.mesh.material_id.filter(|&at| at < names.len());
        let label = label(&model.name, material.and_then(|at| names.get(at)));
        primitives.push(primitive(&model.mesh, label, material, warnings)?);
    }
    Ok(primitives)
}

/// The primitive label: `object "chair", material "Wood"`.
fn label(object: &str, material: Option<&String>) -> String {
    match material {
        Some(material) => format!("object {object:?}, material {material:?}"),
        None => format!("object {object:?}, no material"),
    }
}

/// One model's triangle list.
fn primitive(
    mesh: &tobj::Mesh,
    label: String,
    material: Option<usize>,
    warnings: &mut Vec<String>,
) -> Result<Primitive, String> {
    let positions: Vec<[f32; 3]> = mesh
        .positions
        .chunks_exact(3)
        .map(|c| [c[0], c[1], c[2]])
        .collect();
    if positions.iter().flatten().any(|c| !c.is_finite()) {
        return Err(format!("{label}: a vertex position is not finite"));
    }
    check_indices(&label, &mesh.indices, positions.len())?;
    let normals = per_vertex(
        &mesh.normals,
        3,
        positions.len(),
        &label,
        "normals",
        warnings,
    )
    .map(|flat| flat.chunks_exact(3).map(|c| [c[0], c[1], c[2]]).collect());
    let uvs = per_vertex(&mesh.texcoords, 2, positions.len(), &label, "UVs", warnings)
        .map(|flat| flat.chunks_exact(2).map(|c| [c[0], 1.0 - c[1]]).collect());
    Ok(Primitive {
        label,
        positions,
        normals,
        tangents: None,
        uvs,
        skin: None,
        indices: mesh.indices.clone(),
        material,
    })
}

/// Checks that `indices` form whole triangles over `vertex_count` vertices.
fn check_indices(label: &str, indices: &[u32], vertex_count: usize) -> Result<(), String> {
    if !indices.len().is_multiple_of(3) {
        return Err(format!(
            "{label}: {} indices do not form whole triangles",
            indices.len()
        ));
    }
    match indices
        .iter()
        .find(|&&i| usize::try_from(i).map_or(true, |i| i >= vertex_count))
    {
        Some(bad) => Err(format!(
            "{label}: index {bad} is out of range ({vertex_count} vertices)"
        )),
        None => Ok(()),
    }
}

/// `flat` when it holds one `width`-float entry per vertex; `None` (with a
/// warning when only some corners had one) otherwise.
fn per_vertex<'a>(
    flat: &'a [f32],
    width: usize,
    vertex_count: usize,
    label: &str,
    what: &str,
    warnings: &mut Vec<String>,
) -> Option<&'a [f32]> {
    if flat.is_empty() {
        return None;
    }
    if Some(flat.len()) == vertex_count.checked_mul(width) {
        return Some(flat);
    }
    warnings.push(format!(
        "{label}: only some face corners have {what}; the {what} of this part are dropped"
    ));
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encode::mesh::obj::scan::prepare;

    fn load(text: &str, names: &[&str]) -> (Vec<Primitive>, Vec<String>) {
        let names: Vec<String> = names.iter().map(|n| (*n).to_owned()).collect();
        let index = names
            .iter()
            .enumerate()
            .map(|(at, name)| (name.clone(), at))
            .collect();
        let prepared = prepare(text).unwrap();
        let models = load_models(&prepared.text, &names, &index).unwrap();
        let mut warnings = Vec::new();
        let primitives = primitives(&models, &names, &mut warnings).unwrap();
        (primitives, warnings)
    }

    #[test]
    fn splits_runs_by_object_and_material() {
        let text = "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\no Box\nusemtl B\nf 1 2 3\n\
                    usemtl A\nf 1 3 4\ng Lid\nusemtl Nope\nf 4 3 2 1\n";
        let (primitives, _) = load(text, &["A", "B"]);
        let summary: Vec<(&str, Option<usize>, usize)> = primitives
            .iter()
            .map(|p| (p.label.as_str(), p.material, p.indices.len()))
            .collect();
        assert_eq!(
            summary,
            [
                (r#"object "Box", material "B""#, Some(1), 3),
                (r#"object "Box", material "A""#, Some(0), 3),
                (r#"object "Lid", no material"#, None, 6),
            ]
        );
        assert_eq!(primitives[2].positions.len(), 4);
        assert_eq!(primitives[2].indices, [0, 1, 2, 0, 2, 3]);
    }

    #[test]
    fn flips_v_and_keeps_normals() {
        let text = "v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nvt 1 0.25\nvt 0 1\nvn 0 0 1\n\
                    f 1/1/1 2/2/1 3/3/1\n";
        let (primitives, warnings) = load(text, &[]);
        assert!(warnings.is_empty());
        let primitive = &primitives[0];
        assert_eq!(
            primitive.uvs.as_deref(),
            Some(&[[0.0, 1.0], [1.0, 0.75], [0.0, 0.0]][..])
        );
        assert_eq!(
            primitive.normals.as_deref(),
            Some(&[[0.0, 0.0, 1.0]; 3][..])
        );
        assert_eq!(primitive.tangents, None);
    }

    #[test]
    fn partial_uvs_are_dropped_with_a_warning() {
        let text = "v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nf 1/1 2 3\n";
        let (primitives, warnings) = load(text, &[]);
        assert_eq!(primitives[0].uvs, None);
        assert_eq!(primitives[0].normals, None);
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(warnings[0].contains("UVs"));
    }

    #[test]
    fn homogeneous_w_divides_positions() {
        let (primitives, _) = load("v 2 4 6 2\nv 1 0 0\nv 0 1 0\nf 1 2 3\n", &[]);
        assert_eq!(primitives[0].positions[0], [1.0, 2.0, 3.0]);
    }
}
