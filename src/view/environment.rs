//! The image-based lighting sets the mesh view can light with: every
//! `<name>.specular.ktx2` cube of the output (written by the `ibl` encoder,
//! see `docs/ibl.md`), with its irradiance spherical harmonics and the
//! radiance and irradiance cubes beside it when present.
//!
//! The page uploads the specular cube's levels (through
//! `/api/texture/values`) as a float cube map and reads the diffuse light
//! from the harmonics; a set whose cube does not parse is listed with its
//! reader's error instead, so the page can say why it is not offered.

use serde_json::{Value, json};

use crate::format::ktx2;

/// The suffix of the prefiltered specular cube of an IBL set.
pub const SPECULAR_SUFFIX: &str = ".specular.ktx2";

/// The IBL sets among `paths` (runtime paths of the output), each file read
/// through `read`: `{ "environments": [set, …] }` in path order.
pub fn environments_json(paths: &[String], read: impl Fn(&str) -> Option<Vec<u8>>) -> Value {
    let sets: Vec<Value> = paths
        .iter()
        .filter_map(|path| {
            let name = path.strip_suffix(SPECULAR_SUFFIX)?;
            let sibling = |kind: &str| {
                let file = format!("{name}.{kind}.ktx2");
                paths.contains(&file).then_some(file)
            };
            let mut set = json!({
                "name": name,
                "specular": path,
                "radiance": sibling("radiance"),
                "irradiance": sibling("irradiance"),
            });
            match read(path)
                .ok_or_else(|| "cannot be read".to_owned())
                .and_then(|bytes| cube_json(&bytes))
            {
                Ok(Value::Object(fields)) => {
                    for (key, value) in fields {
                        set[key] = value;
                    }
                }
                Ok(_) => {}
                Err(error) => set["error"] = format!("{path}: {error}").into(),
            }
            Some(set)
        })
        .collect();
    json!({ "environments": sets })
}

/// The shape of a specular cube and its harmonics (27 floats, coefficient
/// by coefficient, RGB within each), or why it cannot light a mesh.
fn cube_json(bytes: &[u8]) -> Result<Value, String> {
    let view = ktx2::parse(bytes).map_err(|e| e.to_string())?;
    let header = view.header();
    if header.face_count != 6 {
        return Err(format!("has {} faces, not a cube", header.face_count));
    }
    let sh: Option<Vec<f32>> = view
        .irradiance_sh()
        .map(|coefficients| coefficients.iter().flatten().copied().collect());
    Ok(json!({
        "size": header.pixel_width,
        "levels": header.stored_level_count(),
        "format": view.texel_format().map(|f| f.name()),
        "sh": sh,
        "error": Value::Null,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_specular_cubes_make_sets_and_a_broken_one_says_why() {
        let paths: Vec<String> = ["a.ktx2", "env/sky.radiance.ktx2", "env/sky.specular.ktx2"]
            .map(String::from)
            .to_vec();
        let listed = environments_json(&paths, |_| Some(b"not a ktx2".to_vec()));
        let sets = listed["environments"].as_array().unwrap();
        assert_eq!(sets.len(), 1);
        assert_eq!(sets[0]["name"], "env/sky");
        assert_eq!(sets[0]["radiance"], "env/sky.radiance.ktx2");
        assert_eq!(sets[0]["irradiance"], Value::Null);
        let error = sets[0]["error"].as_str().unwrap();
        assert!(error.starts_with("env/sky.specular.ktx2: "), "{error}");
    }
}
