//! Which glTF extensions assetc honours, which it skips with a warning, and
//! which it refuses.
//!
//! A glTF file lists the extensions it uses in `extensionsUsed`, and the
//! ones a reader must understand to draw it correctly in
//! `extensionsRequired`. assetc sorts every name into one of three classes
//! ([`Support`]):
//! * **decoded**: the importer reads it (meshopt, Draco or quantized geometry,
//!   GPU instances,
//!   texture transforms, emissive strength, Basis Universal and WebP images);
//! * **skipped**: it carries something the reference formats have no place
//!   for (lights, most `KHR_materials_*` extensions, variants, metadata), and
//!   dropping it leaves the geometry and the `.hmat` row as correct as assetc
//!   can write them: the mesh builds, with one warning naming the extension;
//! * **refused**: assetc cannot decode what it changes (AVIF images,
//!   anything unknown). Required, the file
//!   fails with a message naming the extension; merely used, the core data
//!   the file must then also carry is read instead, with a warning.
//!
//! `docs/meshes.md` has the same table for users.

/// How assetc treats one extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Support {
    /// Read by the importer.
    Decoded,
    /// Dropped with a warning; the reason says what is lost.
    Skipped(&'static str),
    /// Cannot be honoured; the reason says why and what to do.
    Refused(&'static str),
}

/// Extensions the importer reads.
const DECODED: &[&str] = &[
    "KHR_draco_mesh_compression",
    "EXT_mesh_gpu_instancing",
    "EXT_meshopt_compression",
    "KHR_meshopt_compression",
    "KHR_mesh_quantization",
    "KHR_texture_transform",
    "KHR_texture_basisu",
    "EXT_texture_webp",
    "KHR_materials_emissive_strength",
];

/// Extensions dropped with a warning, and what is lost with each.
const SKIPPED: &[(&str, &str)] = &[
    (
        "KHR_lights_punctual",
        "lights are scene content, not part of a mesh",
    ),
    (
        "EXT_lights_image_based",
        "image-based lights are scene content, not part of a mesh",
    ),
    (
        "KHR_materials_variants",
        "each primitive keeps its default material",
    ),
    (
        "KHR_materials_pbrSpecularGlossiness",
        "the .hmat row is metallic-roughness; the core material factors and textures are used",
    ),
    (
        "KHR_xmp_json_ld",
        "metadata has no place in the runtime files",
    ),
    ("KHR_xmp", "metadata has no place in the runtime files"),
    (
        "MSFT_lod",
        "only the base level is read; assetc builds its own LODs",
    ),
    ("MSFT_texture_dds", "the core image of each texture is used"),
    (
        "KHR_animation_pointer",
        "only node translation, rotation and scale of the skeleton are animated",
    ),
    ("KHR_node_visibility", "every node of the scene is built"),
];

/// The reason for the `KHR_materials_*` extensions not listed above.
const MATERIAL_SKIPPED: &str =
    "the reference .hmat row has no field for it; the core material is used";

/// Extensions assetc cannot honour, and why.
const REFUSED: &[(&str, &str)] = &[(
    "EXT_texture_avif",
    "assetc cannot decode AVIF images; export PNG, JPEG, WebP or KTX2 images",
)];

/// How assetc treats the extension `name`.
pub(super) fn support(name: &str) -> Support {
    if DECODED.contains(&name) {
        return Support::Decoded;
    }
    if let Some((_, why)) = SKIPPED.iter().find(|(known, _)| *known == name) {
        return Support::Skipped(why);
    }
    if let Some((_, why)) = REFUSED.iter().find(|(known, _)| *known == name) {
        return Support::Refused(why);
    }
    if name.starts_with("KHR_materials_") {
        return Support::Skipped(MATERIAL_SKIPPED);
    }
    Support::Refused("assetc does not know it, so it cannot tell whether dropping it is safe")
}

/// The error message for a required extension assetc refuses.
pub(super) fn refusal(name: &str) -> Option<String> {
    match support(name) {
        Support::Refused(why) => Some(format!("the file requires the extension {name}: {why}")),
        Support::Decoded | Support::Skipped(_) => None,
    }
}

/// One warning per used extension that is not decoded, sorted by name:
/// what a skipped one loses, or for a refused one that is optional, that
/// its data is ignored in favour of the core fallback.
pub(super) fn warnings(used: &[String]) -> Vec<String> {
    let mut names: Vec<&String> = used.iter().collect();
    names.sort();
    names.dedup();
    names
        .into_iter()
        .filter_map(|name| match support(name) {
            Support::Decoded => None,
            Support::Skipped(why) => Some(format!("extension {name} is skipped: {why}")),
            Support::Refused(why) => Some(format!(
                "extension {name} is ignored and the core data is read instead ({why})"
            )),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_class_is_recognised() {
        assert_eq!(support("KHR_mesh_quantization"), Support::Decoded);
        assert!(matches!(
            support("KHR_lights_punctual"),
            Support::Skipped(_)
        ));
        assert!(matches!(
            support("KHR_materials_clearcoat"),
            Support::Skipped(_)
        ));
        assert!(matches!(support("EXT_texture_avif"), Support::Refused(_)));
        assert!(matches!(support("VENDOR_made_up"), Support::Refused(_)));
    }

    #[test]
    fn refusals_name_the_extension_and_the_way_out() {
        let message = refusal("EXT_texture_avif").unwrap();
        assert!(message.contains("EXT_texture_avif"), "{message}");
        assert!(
            message.contains("export PNG, JPEG, WebP or KTX2"),
            "{message}"
        );
        assert_eq!(refusal("EXT_texture_webp"), None);
        assert_eq!(refusal("KHR_lights_punctual"), None);
        assert_eq!(refusal("EXT_meshopt_compression"), None);
        assert_eq!(refusal("KHR_draco_mesh_compression"), None);
    }

    #[test]
    fn warnings_are_one_per_dropped_extension_in_name_order() {
        let used = [
            "KHR_materials_sheen",
            "KHR_texture_transform",
            "KHR_lights_punctual",
            "KHR_lights_punctual",
            "EXT_texture_avif",
            "EXT_texture_webp",
        ]
        .map(str::to_owned);
        let found = warnings(&used);
        assert_eq!(found.len(), 3, "{found:?}");
        assert!(found[0].starts_with("extension EXT_texture_avif is ignored"));
        assert!(found[1].starts_with("extension KHR_lights_punctual is skipped"));
        assert!(found[2].starts_with("extension KHR_materials_sheen is skipped"));
    }
}
