//! Constant names for asset ids: `<KIND>_<PATH>` in `[A-Z0-9_]`.
//!
//! The kind comes first, so the mesh, the material table and a texture that
//! share one stem never share a name (`MESH_MODELS_CRATE`,
//! `MATERIAL_MODELS_CRATE`, `TEXTURE_MODELS_CRATE_TEX_0`), and because it is a
//! word of letters, a path that starts with a digit still gives a valid C and
//! Rust identifier. The path part is the runtime path without the extension
//! the kind always has (`.ktx2`, `.lut.ktx2`, `.spv`, `.hmesh`, `.hmat`,
//! `.hanim`, `.hfont`); embedded files keep theirs, since it is all that tells
//! `data/level.json` from `data/level.bin`. ASCII letters and digits are kept
//! (uppercased), every non-ASCII character becomes `U` and its code point in
//! hex as a word of its own, and every other run of characters becomes one `_`.

use crate::format::kind::AssetKind;

/// The word a kind's names start with.
pub fn kind_word(kind: AssetKind) -> &'static str {
    match kind {
        AssetKind::Texture => "TEXTURE",
        AssetKind::Mesh => "MESH",
        AssetKind::Material => "MATERIAL",
        AssetKind::Lut => "LUT",
        AssetKind::Shader => "SHADER",
        AssetKind::Embed => "EMBED",
        AssetKind::Animation => "ANIMATION",
        AssetKind::Font => "FONT",
    }
}

/// The extension every runtime file of `kind` carries, left out of its name.
fn implied_suffix(kind: AssetKind) -> &'static [&'static str] {
    match kind {
        AssetKind::Texture => &[".ktx2"],
        AssetKind::Lut => &[".lut.ktx2", ".ktx2"],
        AssetKind::Shader => &[".spv"],
        AssetKind::Mesh => &[".hmesh"],
        AssetKind::Material => &[".hmat"],
        AssetKind::Animation => &[".hanim"],
        AssetKind::Font => &[".hfont"],
        AssetKind::Embed => &[],
    }
}

/// The constant name of the runtime file at `path` of `kind`, or `None` when
/// the path has no letter or digit to name it by.
pub fn constant_name(kind: AssetKind, path: &str) -> Option<String> {
    let stem = implied_suffix(kind)
        .iter()
        .find_map(|suffix| path.strip_suffix(suffix))
        .unwrap_or(path);
    let words = sanitise(stem);
    if words.is_empty() {
        return None;
    }
    Some(format!("{}_{words}", kind_word(kind)))
}

/// `text` as `_`-separated uppercase words of `[A-Z0-9]`.
fn sanitise(text: &str) -> String {
    let mut words = Words::default();
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            words.push(c.to_ascii_uppercase());
        } else if c.is_ascii() {
            words.break_word();
        } else {
            words.break_word();
            for digit in format!("U{:X}", u32::from(c)).chars() {
                words.push(digit);
            }
            words.break_word();
        }
    }
    words.text
}

/// Builds `_`-separated words, never with a leading, trailing or doubled `_`.
#[derive(Default)]
struct Words {
    /// The words so far.
    text: String,
    /// Whether the next character starts a new word.
    at_break: bool,
}

impl Words {
    fn push(&mut self, c: char) {
        if self.at_break && !self.text.is_empty() {
            self.text.push('_');
        }
        self.at_break = false;
        self.text.push(c);
    }

    fn break_word(&mut self) {
        self.at_break = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(kind: AssetKind, path: &str) -> String {
        constant_name(kind, path).unwrap()
    }

    #[test]
    fn siblings_of_one_source_get_distinct_names() {
        assert_eq!(
            name(AssetKind::Mesh, "models/crate.hmesh"),
            "MESH_MODELS_CRATE"
        );
        assert_eq!(
            name(AssetKind::Material, "models/crate.hmat"),
            "MATERIAL_MODELS_CRATE"
        );
        assert_eq!(
            name(AssetKind::Animation, "models/crate.hanim"),
            "ANIMATION_MODELS_CRATE"
        );
        assert_eq!(
            name(AssetKind::Texture, "models/crate/tex_0.ktx2"),
            "TEXTURE_MODELS_CRATE_TEX_0"
        );
        assert_eq!(
            name(AssetKind::Texture, "models/crate.ktx2"),
            "TEXTURE_MODELS_CRATE"
        );
    }

    #[test]
    fn kinds_drop_only_their_own_extension() {
        assert_eq!(
            name(AssetKind::Lut, "grades/warm.lut.ktx2"),
            "LUT_GRADES_WARM"
        );
        assert_eq!(name(AssetKind::Texture, "rock.n.ktx2"), "TEXTURE_ROCK_N");
        assert_eq!(name(AssetKind::Texture, "sky.env.ktx2"), "TEXTURE_SKY_ENV");
        assert_eq!(name(AssetKind::Shader, "pbr.frag.spv"), "SHADER_PBR_FRAG");
        assert_eq!(name(AssetKind::Font, "ui/inter.hfont"), "FONT_UI_INTER");
        assert_eq!(
            name(AssetKind::Embed, "data/level1.json"),
            "EMBED_DATA_LEVEL1_JSON"
        );
        assert_eq!(name(AssetKind::Mesh, "odd.hmat"), "MESH_ODD_HMAT");
    }

    #[test]
    fn separators_collapse_and_case_folds() {
        assert_eq!(
            name(AssetKind::Embed, "ui/My  Logo--v2 (final).PNG"),
            "EMBED_UI_MY_LOGO_V2_FINAL_PNG"
        );
        assert_eq!(name(AssetKind::Embed, "__a__/.b."), "EMBED_A_B");
        assert_eq!(
            name(AssetKind::Embed, "ui/my-logo.png"),
            "EMBED_UI_MY_LOGO_PNG"
        );
        assert_eq!(
            name(AssetKind::Embed, "ui/my_logo.png"),
            "EMBED_UI_MY_LOGO_PNG"
        );
    }

    #[test]
    fn leading_digits_follow_the_kind_word() {
        assert_eq!(
            name(AssetKind::Texture, "3d/9lives.ktx2"),
            "TEXTURE_3D_9LIVES"
        );
    }

    #[test]
    fn non_ascii_characters_become_code_point_words() {
        assert_eq!(
            name(AssetKind::Texture, "ui/café.ktx2"),
            "TEXTURE_UI_CAF_UE9"
        );
        assert_eq!(name(AssetKind::Texture, "ui/cafe.ktx2"), "TEXTURE_UI_CAFE");
        assert_eq!(name(AssetKind::Embed, "日本.txt"), "EMBED_U65E5_U672C_TXT");
        assert_eq!(name(AssetKind::Embed, "aéb"), "EMBED_A_UE9_B");
    }

    #[test]
    fn a_path_without_letters_or_digits_has_no_name() {
        assert_eq!(constant_name(AssetKind::Embed, "-/_."), None);
        assert_eq!(constant_name(AssetKind::Texture, "--.ktx2"), None);
    }
}
