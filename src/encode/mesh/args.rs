//! The command line of the mesh edge (`assetc-encode mesh`): [`MeshArgs`],
//! the mesh settings with the defaults of `assetc.yml`, and [`TextureList`],
//! the images configure gave a texture edge.

use clap::Args;

use crate::config::{
    ConeWeight, LodError, LodRatios, MeshSettings, MeshletTriangles, MeshletVertices,
};
use crate::encode::job::JobArgs;

/// Mesh settings; the defaults are those of `assetc.yml`.
#[derive(Debug, Args)]
pub struct MeshArgs {
    /// Bake glTF node transforms into one world-space mesh.
    #[arg(long, default_value_t = MeshSettings::default().merge, action = clap::ArgAction::Set)]
    pub merge: bool,
    /// Build meshlets.
    #[arg(long, default_value_t = MeshSettings::default().meshlets, action = clap::ArgAction::Set)]
    pub meshlets: bool,
    /// Most vertices per meshlet, 3 to 256.
    #[arg(long, default_value_t = MeshSettings::default().meshlet_vertices)]
    pub meshlet_vertices: MeshletVertices,
    /// Most triangles per meshlet, 1 to 512.
    #[arg(long, default_value_t = MeshSettings::default().meshlet_triangles)]
    pub meshlet_triangles: MeshletTriangles,
    /// Meshlet cone weight, 0 to 1.
    #[arg(long, default_value_t = MeshSettings::default().cone_weight)]
    pub cone_weight: ConeWeight,
    /// Reduced levels of detail as fractions of the triangle count, joined by
    /// `,` (for example `0.5,0.25`), or `none`.
    #[arg(long, default_value_t = MeshSettings::default().lods)]
    pub lods: LodRatios,
    /// The simplifier's relative error budget, 0 to 1.
    #[arg(long, default_value_t = MeshSettings::default().lod_error)]
    pub lod_error: LodError,
    /// The images of the source that have a texture edge (`none`, or indices
    /// joined by `,`); a material naming any other image fails the edge.
    /// Configure always passes it; without it nothing is checked.
    #[arg(long)]
    pub textures: Option<TextureList>,
    /// The job.
    #[command(flatten)]
    pub job: JobArgs,
}

/// The images of a mesh source that have a texture edge: `none`, or their
/// indices joined by `,` (`0,2`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TextureList(pub Vec<usize>);

impl std::str::FromStr for TextureList {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        if text == "none" {
            return Ok(Self::default());
        }
        text.split(',')
            .map(|index| {
                index
                    .parse()
                    .map_err(|_| format!("'{index}' is not an image index (use `none` or `0,2`)"))
            })
            .collect::<Result<_, _>>()
            .map(Self)
    }
}

impl std::fmt::Display for TextureList {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.0.is_empty() {
            return f.write_str("none");
        }
        let words: Vec<String> = self.0.iter().map(usize::to_string).collect();
        f.write_str(&words.join(","))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texture_lists_read_and_print_alike() {
        for text in ["none", "0", "0,2,11"] {
            let list: TextureList = text.parse().unwrap();
            assert_eq!(list.to_string(), text);
        }
        assert_eq!(
            "none".parse::<TextureList>().unwrap().0,
            Vec::<usize>::new()
        );
        assert!("".parse::<TextureList>().is_err());
        assert!("1,x".parse::<TextureList>().unwrap_err().contains("'x'"));
    }
}
