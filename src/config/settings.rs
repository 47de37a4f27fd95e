//! Per-asset settings: the resolved values an encoder reads, and the partial
//! layers (`default:`, a preset, a rule) that are overlaid to produce them.
//!
//! Each settings group is declared once with [`settings_group!`]: one line per
//! knob gives its name, type, built-in default and documentation. The macro
//! writes both the resolved struct (every field set) and the layer struct (every
//! field optional, read from YAML), plus the overlay between them, so adding a
//! knob never means touching more than that one line.

use serde::Deserialize;

/// Declares a resolved settings group, its optional layer twin and the overlay.
///
/// `layer.apply_to(&mut resolved)` copies every field the layer sets and leaves
/// the others alone; this is the whole layering rule.
macro_rules! settings_group {
    (
        $(#[$resolved_doc:meta])*
        resolved $resolved:ident;
        $(#[$layer_doc:meta])*
        layer $layer:ident;
        {
            $(
                $(#[$field_doc:meta])*
                $field:ident : $ty:ty = $default:expr
            ),* $(,)?
        }
    ) => {
        $(#[$resolved_doc])*
        #[derive(Debug, Clone, PartialEq, Eq)]
        pub struct $resolved {
            $( $(#[$field_doc])* pub $field: $ty, )*
        }

        impl Default for $resolved {
            /// The built-in defaults: the bottom layer of every resolution.
            fn default() -> Self {
                Self { $( $field: $default, )* }
            }
        }

        $(#[$layer_doc])*
        #[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
        pub(crate) struct $layer {
            $( $(#[$field_doc])* pub(crate) $field: Option<$ty>, )*
        }

        impl $layer {
            /// Overwrites the fields of `target` that this layer sets.
            pub(crate) fn apply_to(&self, target: &mut $resolved) {
                $(
                    if let Some(value) = &self.$field {
                        target.$field = value.clone();
                    }
                )*
            }
        }
    };
}

settings_group! {
    /// Resolved texture settings for one source.
    resolved TextureSettings;
    /// Texture settings as one layer of `assetc.yml` states them.
    layer TextureLayer;
    {
        /// `true` encodes UASTC; `false` writes raw RGBA8 with lossless Zstd,
        /// pixel-exact.
        compress: bool = true,
    }
}

settings_group! {
    /// Resolved mesh settings for one source.
    resolved MeshSettings;
    /// Mesh settings as one layer of `assetc.yml` states them.
    layer MeshLayer;
    {
        /// `true` bakes glTF node transforms into one world-space mesh; `false`
        /// keeps geometry in its source-local space.
        merge: bool = true,
    }
}

/// Every setting that applies to one source file, fully resolved.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Settings {
    /// Settings read by the texture encoders.
    pub texture: TextureSettings,
    /// Settings read by the mesh encoder.
    pub mesh: MeshSettings,
}

/// One layer of settings: the groups a `default:`, preset or rule section sets.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct SettingsLayer {
    /// Texture fields this layer sets, if any.
    pub(crate) texture: Option<TextureLayer>,
    /// Mesh fields this layer sets, if any.
    pub(crate) mesh: Option<MeshLayer>,
}

impl SettingsLayer {
    /// Overwrites the fields of `target` that this layer sets.
    pub(crate) fn apply_to(&self, target: &mut Settings) {
        if let Some(texture) = &self.texture {
            texture.apply_to(&mut target.texture);
        }
        if let Some(mesh) = &self.mesh {
            mesh.apply_to(&mut target.mesh);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_layer_overrides_only_the_fields_it_sets() {
        let mut settings = Settings::default();
        let layer = SettingsLayer {
            texture: Some(TextureLayer {
                compress: Some(false),
            }),
            mesh: Some(MeshLayer { merge: None }),
        };
        layer.apply_to(&mut settings);
        assert!(!settings.texture.compress);
        assert!(settings.mesh.merge);
    }
}
