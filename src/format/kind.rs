//! The small enumerations stored as single bytes in `.hman` and `.hpack` files.
//!
//! * [`AssetKind`] is the `kind` byte of a manifest entry and also decides which
//!   string is hashed to form an asset's id ([`AssetKind::hash_ref`]).
//! * [`ColorSpace`] is the `colorspace` byte of a manifest entry.
//! * [`PackKind`] is the `kind` byte of a pack TOC entry, derived from the file
//!   extension when the pack is written ([`PackKind::from_path`]).
//!
//! Every enum converts to and from its byte with `from_u8`/`as u8` and to and
//! from a lowercase name with `name`/`from_name`.

use core::fmt;

use super::hash::asset_hash;

/// What a manifest entry points at. Stored as one byte in `.hman`.
#[repr(u8)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum AssetKind {
    /// A `.ktx2` image (glTF texture, standalone PNG, cubemap, array).
    Texture = 0,
    /// A `.hmesh` geometry container.
    Mesh = 1,
    /// A `.hmat` material table.
    Material = 2,
    /// A 3D colour lookup table, stored as `.lut.ktx2`.
    Lut = 3,
    /// A compiled SPIR-V shader stage, stored as `.spv`.
    Shader = 4,
    /// A file copied into the output unchanged.
    Embed = 5,
    /// A `.hanim` animation clip set.
    Animation = 6,
    /// A font (glyph table plus atlas).
    Font = 7,
}

impl AssetKind {
    /// Every kind, in byte order.
    pub const ALL: [AssetKind; 8] = [
        AssetKind::Texture,
        AssetKind::Mesh,
        AssetKind::Material,
        AssetKind::Lut,
        AssetKind::Shader,
        AssetKind::Embed,
        AssetKind::Animation,
        AssetKind::Font,
    ];

    /// The kind stored as `byte`, or `None` if the byte is not a known kind.
    pub const fn from_u8(byte: u8) -> Option<Self> {
        match byte {
            0 => Some(AssetKind::Texture),
            1 => Some(AssetKind::Mesh),
            2 => Some(AssetKind::Material),
            3 => Some(AssetKind::Lut),
            4 => Some(AssetKind::Shader),
            5 => Some(AssetKind::Embed),
            6 => Some(AssetKind::Animation),
            7 => Some(AssetKind::Font),
            _ => None,
        }
    }

    /// The lowercase name used in messages and fragments, e.g. `"texture"`.
    pub const fn name(self) -> &'static str {
        match self {
            AssetKind::Texture => "texture",
            AssetKind::Mesh => "mesh",
            AssetKind::Material => "material",
            AssetKind::Lut => "lut",
            AssetKind::Shader => "shader",
            AssetKind::Embed => "embed",
            AssetKind::Animation => "animation",
            AssetKind::Font => "font",
        }
    }

    /// The kind whose [`name`](Self::name) is exactly `name`, if any.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|kind| kind.name() == name)
    }

    /// The string that is hashed to form the id of a runtime file of this kind.
    ///
    /// `path` is the file's path relative to the output root, `/`-separated.
    ///
    /// * [`Texture`](Self::Texture) and [`Lut`](Self::Lut): the path without a
    ///   trailing `.ktx2`, so `models/court/tex_0.ktx2` is keyed by
    ///   `models/court/tex_0`, the ref a `.hmat` stores for that texture.
    /// * [`Shader`](Self::Shader): the path without a trailing `.spv`.
    /// * Every other kind (mesh, material, embed, animation, font): the whole
    ///   path, extension included, because sibling outputs of one source share a
    ///   stem and only the extension tells them apart.
    ///
    /// The suffix test is exact and case-sensitive (`.KTX2` is not removed);
    /// assetc always writes lowercase extensions. A path without the suffix is
    /// returned unchanged.
    pub fn hash_ref(self, path: &str) -> &str {
        let suffix = match self {
            AssetKind::Texture | AssetKind::Lut => ".ktx2",
            AssetKind::Shader => ".spv",
            AssetKind::Mesh
            | AssetKind::Material
            | AssetKind::Embed
            | AssetKind::Animation
            | AssetKind::Font => return path,
        };
        path.strip_suffix(suffix).unwrap_or(path)
    }

    /// The manifest id of the runtime file at `path`:
    /// [`asset_hash`] of [`hash_ref`](Self::hash_ref).
    pub fn id_for_path(self, path: &str) -> u64 {
        asset_hash(self.hash_ref(path))
    }
}

impl fmt::Display for AssetKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How the texels of an image are encoded. Stored as one byte in `.hman`.
#[repr(u8)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ColorSpace {
    /// Linear data: normal maps, masks, non-image files.
    Linear = 0,
    /// sRGB-encoded colour.
    Srgb = 1,
}

impl ColorSpace {
    /// Every colour space, in byte order.
    pub const ALL: [ColorSpace; 2] = [ColorSpace::Linear, ColorSpace::Srgb];

    /// The colour space stored as `byte`, or `None` if the byte is unknown.
    pub const fn from_u8(byte: u8) -> Option<Self> {
        match byte {
            0 => Some(ColorSpace::Linear),
            1 => Some(ColorSpace::Srgb),
            _ => None,
        }
    }

    /// The lowercase name: `"linear"` or `"srgb"`.
    pub const fn name(self) -> &'static str {
        match self {
            ColorSpace::Linear => "linear",
            ColorSpace::Srgb => "srgb",
        }
    }

    /// The colour space whose [`name`](Self::name) is exactly `name`, if any.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|space| space.name() == name)
    }
}

impl fmt::Display for ColorSpace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The file type of a pack entry. Stored as one byte in the `.hpack` TOC.
#[repr(u8)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PackKind {
    /// Any file whose extension is not listed below.
    Other = 0,
    /// `.hmesh`.
    Mesh = 1,
    /// `.hmat`.
    Material = 2,
    /// `.hman`.
    Manifest = 3,
    /// `.hanim`.
    Animation = 4,
    /// `.ktx2`.
    Texture = 5,
    /// `.spv`.
    Shader = 6,
    /// `.hfont`.
    Font = 7,
}

impl PackKind {
    /// Every pack kind, in byte order.
    pub const ALL: [PackKind; 8] = [
        PackKind::Other,
        PackKind::Mesh,
        PackKind::Material,
        PackKind::Manifest,
        PackKind::Animation,
        PackKind::Texture,
        PackKind::Shader,
        PackKind::Font,
    ];

    /// The pack kind stored as `byte`, or `None` if the byte is unknown.
    pub const fn from_u8(byte: u8) -> Option<Self> {
        match byte {
            0 => Some(PackKind::Other),
            1 => Some(PackKind::Mesh),
            2 => Some(PackKind::Material),
            3 => Some(PackKind::Manifest),
            4 => Some(PackKind::Animation),
            5 => Some(PackKind::Texture),
            6 => Some(PackKind::Shader),
            7 => Some(PackKind::Font),
            _ => None,
        }
    }

    /// The lowercase name, e.g. `"manifest"`.
    pub const fn name(self) -> &'static str {
        match self {
            PackKind::Other => "other",
            PackKind::Mesh => "mesh",
            PackKind::Material => "material",
            PackKind::Manifest => "manifest",
            PackKind::Animation => "animation",
            PackKind::Texture => "texture",
            PackKind::Shader => "shader",
            PackKind::Font => "font",
        }
    }

    /// The pack kind whose [`name`](Self::name) is exactly `name`, if any.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|kind| kind.name() == name)
    }

    /// The pack kind of the file at `path`, judged by how the path ends.
    ///
    /// The test is a case-sensitive suffix match on the lowercase extensions
    /// `.hmesh`, `.hmat`, `.hman`, `.hanim`, `.ktx2`, `.spv` and `.hfont`, the same test
    /// the reference packer applies; anything else (including `.KTX2`) is
    /// [`Other`](Self::Other).
    pub fn from_path(path: &str) -> PackKind {
        const BY_SUFFIX: [(&str, PackKind); 7] = [
            (".hmesh", PackKind::Mesh),
            (".hmat", PackKind::Material),
            (".hman", PackKind::Manifest),
            (".hanim", PackKind::Animation),
            (".ktx2", PackKind::Texture),
            (".spv", PackKind::Shader),
            (".hfont", PackKind::Font),
        ];
        BY_SUFFIX
            .into_iter()
            .find(|(suffix, _)| path.ends_with(suffix))
            .map_or(PackKind::Other, |(_, kind)| kind)
    }
}

impl fmt::Display for PackKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn asset_kind_bytes_and_names_round_trip() {
        for (byte, kind) in AssetKind::ALL.into_iter().enumerate() {
            assert_eq!(kind as u8 as usize, byte);
            assert_eq!(AssetKind::from_u8(byte as u8), Some(kind));
            assert_eq!(AssetKind::from_name(kind.name()), Some(kind));
        }
        assert_eq!(AssetKind::from_u8(8), None);
        assert_eq!(AssetKind::from_u8(255), None);
        assert_eq!(AssetKind::from_name("Texture"), None);
        assert_eq!(AssetKind::Lut.name(), "lut");
        assert_eq!(AssetKind::Font as u8, 7);
    }

    #[test]
    fn color_space_bytes_and_names_round_trip() {
        assert_eq!(ColorSpace::from_u8(0), Some(ColorSpace::Linear));
        assert_eq!(ColorSpace::from_u8(1), Some(ColorSpace::Srgb));
        assert_eq!(ColorSpace::from_u8(2), None);
        assert_eq!(ColorSpace::from_name("srgb"), Some(ColorSpace::Srgb));
        assert_eq!(ColorSpace::from_name("linear"), Some(ColorSpace::Linear));
        assert_eq!(ColorSpace::from_name("sRGB"), None);
    }

    #[test]
    fn pack_kind_bytes_and_names_round_trip() {
        for (byte, kind) in PackKind::ALL.into_iter().enumerate() {
            assert_eq!(kind as u8 as usize, byte);
            assert_eq!(PackKind::from_u8(byte as u8), Some(kind));
            assert_eq!(PackKind::from_name(kind.name()), Some(kind));
        }
        assert_eq!(PackKind::from_u8(8), None);
    }

    #[test]
    fn hash_ref_strips_only_the_documented_suffixes() {
        let tex = "models/court/tex_0.ktx2";
        assert_eq!(AssetKind::Texture.hash_ref(tex), "models/court/tex_0");
        assert_eq!(
            AssetKind::Lut.hash_ref("grade/warm.lut.ktx2"),
            "grade/warm.lut"
        );
        assert_eq!(
            AssetKind::Shader.hash_ref("fx/blur/vertex.spv"),
            "fx/blur/vertex"
        );
        assert_eq!(AssetKind::Shader.hash_ref("fx/x.ktx2"), "fx/x.ktx2");
        assert_eq!(AssetKind::Texture.hash_ref("ui/logo.KTX2"), "ui/logo.KTX2");
        assert_eq!(AssetKind::Texture.hash_ref("noext"), "noext");
        for kind in [
            AssetKind::Mesh,
            AssetKind::Material,
            AssetKind::Embed,
            AssetKind::Animation,
            AssetKind::Font,
        ] {
            assert_eq!(kind.hash_ref(tex), tex, "{kind}");
        }
    }

    #[test]
    fn id_for_path_hashes_the_hash_ref() {
        assert_eq!(
            AssetKind::Texture.id_for_path("court/tex_0.ktx2"),
            0xad44_c4a2_9704_95b9
        );
        assert_eq!(
            AssetKind::Mesh.id_for_path("models/chair.hmesh"),
            asset_hash("models/chair.hmesh")
        );
        assert_ne!(
            AssetKind::Mesh.id_for_path("models/chair.hmesh"),
            AssetKind::Material.id_for_path("models/chair.hmat")
        );
    }

    #[test]
    fn pack_kind_follows_the_extension() {
        assert_eq!(PackKind::from_path("models/chair.hmesh"), PackKind::Mesh);
        assert_eq!(PackKind::from_path("models/chair.hmat"), PackKind::Material);
        assert_eq!(PackKind::from_path("assets.hman"), PackKind::Manifest);
        assert_eq!(
            PackKind::from_path("models/chair.hanim"),
            PackKind::Animation
        );
        assert_eq!(
            PackKind::from_path("grade/warm.lut.ktx2"),
            PackKind::Texture
        );
        assert_eq!(PackKind::from_path("fx/blur/vertex.spv"), PackKind::Shader);
        assert_eq!(PackKind::from_path("fonts/ui.hfont"), PackKind::Font);
        assert_eq!(PackKind::from_path("ui/logo.KTX2"), PackKind::Other);
        assert_eq!(PackKind::from_path("readme"), PackKind::Other);
        assert_eq!(PackKind::from_path(""), PackKind::Other);
    }
}
