//! A line-based reader for Wavefront `.mtl` material libraries.
//!
//! Only what a PBR row needs is kept; everything is reported with its line.
//!
//! - Keywords are matched without regard to ASCII case (`map_Kd`, `map_kd`).
//! - `Kd` and `Ke` take one grey value or three RGB values; the `spectral` and
//!   `xyz` forms are ignored with a warning. `d`, `Tr`, `Ns`, `Pm` and `Pr`
//!   take one number (`d -halo f` is read as `d f`). A malformed or non-finite
//!   number is an error.
//! - `map_Kd`, `map_Bump`/`bump`/`norm` (one normal slot) and `map_Ke` are
//!   kept with their file name and `-bm` multiplier; when a material names a
//!   slot twice, the later statement wins. Texture options are parsed with
//!   their arities so file names may contain spaces: `-o`, `-s` and `-t` that
//!   move the texture are not applied (warning), the other options are read
//!   and ignored, and an unknown option is an error.
//! - Other texture maps (`map_Ks`, `map_Ns`, `map_d`, `map_Ka`, `disp`, ...)
//!   and unknown keywords are ignored with one warning per keyword and
//!   library; the classic lighting statements (`Ka`, `Ks`, `Ni`, `illum`,
//!   ...) are ignored silently.

use std::collections::BTreeSet;

use super::text::{LineError, split_keyword, statement};

/// One `newmtl` block.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct MtlMaterial {
    /// The name after `newmtl`.
    pub name: String,
    /// The `newmtl` line.
    pub line: usize,
    /// `Kd`.
    pub diffuse: Option<[f32; 3]>,
    /// `d`: opacity.
    pub dissolve: Option<f32>,
    /// `Tr`: transparency, `1 - d`.
    pub transparency: Option<f32>,
    /// `Ns`: the Blinn-Phong exponent.
    pub shininess: Option<f32>,
    /// `Pm` (PBR extension).
    pub metallic: Option<f32>,
    /// `Pr` (PBR extension).
    pub roughness: Option<f32>,
    /// `Ke`.
    pub emissive: Option<[f32; 3]>,
    /// `map_Kd`.
    pub diffuse_map: Option<MapStatement>,
    /// `norm`, `map_Bump` or `bump`, whichever came last.
    pub normal_map: Option<MapStatement>,
    /// `map_Ke`.
    pub emissive_map: Option<MapStatement>,
}

/// A texture statement's file and the option assetc uses.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct MapStatement {
    /// The statement's line.
    pub line: usize,
    /// The file name as written (relative to the library's folder).
    pub file: String,
    /// The `-bm` bump multiplier, if given.
    pub bump_multiplier: Option<f32>,
}

/// A library's materials, in file order, and its warnings.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct MtlLibrary {
    /// The materials, in file order.
    pub materials: Vec<MtlMaterial>,
    /// `(line, message)` for things ignored.
    pub warnings: Vec<(usize, String)>,
}

/// Reads a whole library.
pub(super) fn parse_mtl(text: &str) -> Result<MtlLibrary, LineError> {
    let mut reader = Reader::default();
    for (index, raw) in text.lines().enumerate() {
        let line = index + 1;
        reader
            .statement(line, raw)
            .map_err(|what| LineError { line, what })?;
    }
    Ok(reader.finish())
}

/// Parser state while reading a library.
#[derive(Default)]
struct Reader {
    library: MtlLibrary,
    current: Option<MtlMaterial>,
    /// Keywords already warned about, so each is reported once.
    warned: BTreeSet<String>,
}

/// Which texture slot a map statement fills.
#[derive(Clone, Copy)]
enum Slot {
    Diffuse,
    Normal,
    Emissive,
}

/// Statements ignored without a word: classic lighting model terms and PBR
/// extension terms assetc has no field for.
const SILENTLY_IGNORED: &[&str] = &[
    "ka",
    "ks",
    "kt",
    "tf",
    "ni",
    "illum",
    "sharpness",
    "ps",
    "pc",
    "pcr",
    "aniso",
    "anisor",
];

/// Texture statements whose images assetc does not use.
const UNUSED_MAPS: &[&str] = &[
    "map_ka", "map_ks", "map_ns", "map_d", "map_tr", "map_pr", "map_pm", "map_ps", "map_aat",
    "disp", "decal", "refl",
];

impl Reader {
    /// Reads one line.
    fn statement(&mut self, line: usize, raw: &str) -> Result<(), String> {
        let Some((keyword, rest)) = split_keyword(statement(raw)) else {
            return Ok(());
        };
        let lower = keyword.to_ascii_lowercase();
        if lower == "newmtl" {
            return self.new_material(line, rest);
        }
        if self.current.is_none() {
            self.warn_once(
                "(before newmtl)",
                line,
                format!("{keyword} before any newmtl is ignored"),
            );
            return Ok(());
        }
        self.material_statement(line, keyword, &lower, rest)
    }

    /// Starts a material.
    fn new_material(&mut self, line: usize, rest: &str) -> Result<(), String> {
        if rest.is_empty() {
            self.library.warnings.push((
                line,
                "newmtl has no name; the material is read with an empty name".into(),
            ));
        }
        self.library.materials.extend(self.current.take());
        self.current = Some(MtlMaterial {
            name: rest.to_owned(),
            line,
            ..MtlMaterial::default()
        });
        Ok(())
    }

    /// Reads a statement inside a material.
    fn material_statement(
        &mut self,
        line: usize,
        keyword: &str,
        lower: &str,
        rest: &str,
    ) -> Result<(), String> {
        let slot = match lower {
            "map_kd" => Some(Slot::Diffuse),
            "map_bump" | "bump" | "norm" => Some(Slot::Normal),
            "map_ke" => Some(Slot::Emissive),
            _ => None,
        };
        if let Some(slot) = slot {
            let (map, warnings) = parse_map(line, keyword, rest)?;
            for warning in warnings {
                self.library.warnings.push((line, warning));
            }
            self.set_map(slot, map);
            return Ok(());
        }
        if let Some(warning) = self.factor_statement(keyword, lower, rest)? {
            self.library.warnings.push((line, warning));
        }
        Ok(())
    }

    /// Reads `Kd`, `Ke`, `d`, `Tr`, `Ns`, `Pm` and `Pr`; warns about unused
    /// maps and unknown keywords. Returns a warning for this line, if any.
    fn factor_statement(
        &mut self,
        keyword: &str,
        lower: &str,
        rest: &str,
    ) -> Result<Option<String>, String> {
        let Some(material) = self.current.as_mut() else {
            return Ok(None);
        };
        match lower {
            "kd" => parse_colour(keyword, rest, &mut material.diffuse),
            "ke" => parse_colour(keyword, rest, &mut material.emissive),
            "d" => store(&mut material.dissolve, parse_dissolve(rest)),
            "tr" => store(&mut material.transparency, parse_single(keyword, rest)),
            "ns" => store(&mut material.shininess, parse_single(keyword, rest)),
            "pm" => store(&mut material.metallic, parse_single(keyword, rest)),
            "pr" => store(&mut material.roughness, parse_single(keyword, rest)),
            _ => Ok(self.ignored(keyword, lower)),
        }
    }

    /// The warning for an ignored keyword, once per keyword and library.
    fn ignored(&mut self, keyword: &str, lower: &str) -> Option<String> {
        if SILENTLY_IGNORED.contains(&lower) {
            return None;
        }
        let what = if UNUSED_MAPS.contains(&lower) {
            format!(
                "{keyword} is not used (assetc reads map_Kd, map_Bump/bump/norm and map_Ke); \
                 further {keyword} statements in this file are not reported"
            )
        } else {
            format!(
                "unknown statement {keyword} is ignored; further {keyword} statements in this \
                 file are not reported"
            )
        };
        self.warned.insert(lower.to_owned()).then_some(what)
    }

    /// Records a warning unless `key` was already warned about.
    fn warn_once(&mut self, key: &str, line: usize, what: String) {
        if self.warned.insert(key.to_owned()) {
            self.library.warnings.push((line, what));
        }
    }

    /// Fills a texture slot of the current material.
    fn set_map(&mut self, slot: Slot, map: MapStatement) {
        if let Some(material) = self.current.as_mut() {
            let target = match slot {
                Slot::Diffuse => &mut material.diffuse_map,
                Slot::Normal => &mut material.normal_map,
                Slot::Emissive => &mut material.emissive_map,
            };
            *target = Some(map);
        }
    }

    /// Ends the library.
    fn finish(mut self) -> MtlLibrary {
        self.library.materials.extend(self.current.take());
        self.library
    }
}

/// Stores a parsed number; a statement that sets a number has no warning.
fn store(target: &mut Option<f32>, value: Result<f32, String>) -> Result<Option<String>, String> {
    *target = Some(value?);
    Ok(None)
}

/// Parses a number that must be finite.
fn parse_number(keyword: &str, token: &str) -> Result<f32, String> {
    token
        .parse::<f32>()
        .ok()
        .filter(|value| value.is_finite())
        .ok_or_else(|| format!("{keyword}: {token:?} is not a finite number"))
}

/// Parses a statement that takes exactly one number.
fn parse_single(keyword: &str, rest: &str) -> Result<f32, String> {
    let tokens: Vec<&str> = rest.split_whitespace().collect();
    match tokens.as_slice() {
        [single] => parse_number(keyword, single),
        _ => Err(format!(
            "{keyword} expects one number, found {} values",
            tokens.len()
        )),
    }
}

/// Parses `d factor` or `d -halo factor`.
fn parse_dissolve(rest: &str) -> Result<f32, String> {
    let factor = rest.strip_prefix("-halo").map_or(rest, str::trim_start);
    parse_single("d", factor)
}

/// Parses `Kd`/`Ke`: one grey value or three RGB values. Returns a warning
/// for the `spectral` and `xyz` forms, which leave `target` unchanged.
fn parse_colour(
    keyword: &str,
    rest: &str,
    target: &mut Option<[f32; 3]>,
) -> Result<Option<String>, String> {
    let tokens: Vec<&str> = rest.split_whitespace().collect();
    if let Some(form) = tokens
        .first()
        .filter(|t| t.eq_ignore_ascii_case("spectral") || t.eq_ignore_ascii_case("xyz"))
    {
        return Ok(Some(format!(
            "{keyword} {form} is not supported; the statement is ignored"
        )));
    }
    let colour = match tokens.as_slice() {
        [grey] => [parse_number(keyword, grey)?; 3],
        [r, g, b] => [
            parse_number(keyword, r)?,
            parse_number(keyword, g)?,
            parse_number(keyword, b)?,
        ],
        _ => {
            return Err(format!(
                "{keyword} expects one or three numbers, found {} values",
                tokens.len()
            ));
        }
    };
    *target = Some(colour);
    Ok(None)
}

/// How many arguments a texture option takes.
struct OptionArity {
    /// Arguments that must be present.
    required: usize,
    /// Further arguments taken when they are numbers (and a file name follows).
    optional: usize,
    /// Whether the arguments are numbers.
    numeric: bool,
}

/// The arity of a texture option, or `None` for an unknown one.
fn option_arity(option: &str) -> Option<OptionArity> {
    let (required, optional, numeric) = match option {
        "-blendu" | "-blendv" | "-cc" | "-clamp" | "-imfchan" | "-type" => (1, 0, false),
        "-bm" | "-boost" | "-texres" => (1, 0, true),
        "-mm" => (2, 0, true),
        "-o" | "-s" | "-t" => (1, 2, true),
        _ => return None,
    };
    Some(OptionArity {
        required,
        optional,
        numeric,
    })
}

/// Splits `text` into whitespace-separated tokens with their byte offsets.
fn tokens_with_offsets(text: &str) -> Vec<(usize, &str)> {
    let mut tokens = Vec::new();
    let mut start = None;
    for (offset, ch) in text.char_indices() {
        match (ch.is_whitespace(), start) {
            (true, Some(begin)) => {
                tokens.push((begin, &text[begin..offset]));
                start = None;
            }
            (false, None) => start = Some(offset),
            _ => {}
        }
    }
    if let Some(begin) = start {
        tokens.push((begin, &text[begin..]));
    }
    tokens
}

/// Parses `map_xx [options] file name`. Returns the statement and warnings.
fn parse_map(
    line: usize,
    keyword: &str,
    rest: &str,
) -> Result<(MapStatement, Vec<String>), String> {
    let tokens = tokens_with_offsets(rest);
    let mut warnings = Vec::new();
    let mut bump_multiplier = None;
    let mut next = 0;
    while let Some(&(_, option)) = tokens.get(next).filter(|(_, t)| t.starts_with('-')) {
        let arity = option_arity(option)
            .ok_or_else(|| format!("{keyword}: unknown texture option {option}"))?;
        let arguments = take_option_arguments(keyword, option, &arity, &tokens, next + 1)?;
        next += 1 + arguments.len();
        match option {
            "-bm" => bump_multiplier = arguments.first().copied().flatten(),
            "-o" | "-s" | "-t" if moves_texture(option, &arguments) => warnings.push(format!(
                "{keyword} {option}: texture offsets and scales are not applied"
            )),
            _ => {}
        }
    }
    let Some(&(offset, _)) = tokens.get(next) else {
        return Err(format!("{keyword} needs a file name"));
    };
    let file = rest.get(offset..).unwrap_or_default().trim_end().to_owned();
    Ok((
        MapStatement {
            line,
            file,
            bump_multiplier,
        },
        warnings,
    ))
}

/// Takes an option's arguments starting at token `first`; numeric ones are
/// returned parsed, others as `None`. Optional numeric arguments are taken
/// only while they parse and a further token (the file name) follows.
fn take_option_arguments(
    keyword: &str,
    option: &str,
    arity: &OptionArity,
    tokens: &[(usize, &str)],
    first: usize,
) -> Result<Vec<Option<f32>>, String> {
    let mut arguments = Vec::new();
    for index in first..first + arity.required {
        let Some(&(_, token)) = tokens.get(index) else {
            return Err(format!("{keyword}: option {option} is missing its value"));
        };
        let value = if arity.numeric {
            Some(parse_number(&format!("{keyword} {option}"), token)?)
        } else {
            None
        };
        arguments.push(value);
    }
    for index in first + arity.required..first + arity.required + arity.optional {
        let has_following = tokens.get(index + 1).is_some();
        let value = tokens
            .get(index)
            .and_then(|(_, t)| t.parse::<f32>().ok())
            .filter(|v| v.is_finite() && has_following);
        match value {
            Some(value) => arguments.push(Some(value)),
            None => break,
        }
    }
    Ok(arguments)
}

/// Whether `-o`/`-t` (default 0) or `-s` (default 1) changes the mapping.
fn moves_texture(option: &str, arguments: &[Option<f32>]) -> bool {
    let identity = if option == "-s" { 1.0 } else { 0.0 };
    arguments.iter().flatten().any(|&value| value != identity)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_factors_and_maps() {
        let text = "# library\nnewmtl Wood\nKd 0.5 0.25 1\nd 0.5\nNs 10\n\
                    map_Kd -s 1 1 1 tex/wood grain.png\nmap_Bump -bm 0.5 wood_n.png\n\
                    newmtl Glow\nKe 2\nTr 0.25\nPm 0.5\nPr 0.125\nmap_Ke glow.png\n";
        let library = parse_mtl(text).unwrap();
        let [wood, glow] = library.materials.as_slice() else {
            panic!("two materials expected: {library:?}");
        };
        assert_eq!((wood.name.as_str(), wood.line), ("Wood", 2));
        assert_eq!(wood.diffuse, Some([0.5, 0.25, 1.0]));
        assert_eq!((wood.dissolve, wood.shininess), (Some(0.5), Some(10.0)));
        let diffuse = wood.diffuse_map.as_ref().unwrap();
        assert_eq!(
            (diffuse.file.as_str(), diffuse.line),
            ("tex/wood grain.png", 6)
        );
        let normal = wood.normal_map.as_ref().unwrap();
        assert_eq!(normal.bump_multiplier, Some(0.5));
        assert_eq!(normal.file, "wood_n.png");
        assert_eq!(glow.emissive, Some([2.0; 3]));
        assert_eq!(glow.transparency, Some(0.25));
        assert_eq!((glow.metallic, glow.roughness), (Some(0.5), Some(0.125)));
        assert_eq!(glow.emissive_map.as_ref().unwrap().file, "glow.png");
        assert!(library.warnings.is_empty(), "{:?}", library.warnings);
    }

    #[test]
    fn malformed_numbers_name_their_line() {
        let error = parse_mtl("newmtl a\nKd 1 1 1\nNs 1O\n").unwrap_err();
        assert_eq!(error.line, 3);
        assert!(error.what.contains("\"1O\""), "{}", error.what);
        assert_eq!(parse_mtl("newmtl a\nKd 1 1\n").unwrap_err().line, 2);
        assert_eq!(parse_mtl("newmtl a\nd nan\n").unwrap_err().line, 2);
        let bad_option = parse_mtl("newmtl a\n\nmap_Bump -bm x n.png\n").unwrap_err();
        assert_eq!(bad_option.line, 3);
        let unknown = parse_mtl("newmtl a\nmap_Kd -zz 1 a.png\n").unwrap_err();
        assert!(unknown.what.contains("-zz"), "{}", unknown.what);
        assert!(
            parse_mtl("newmtl a\nmap_Kd -bm 1\n")
                .unwrap_err()
                .what
                .contains("file name")
        );
    }

    #[test]
    fn later_normal_statement_wins_and_keywords_ignore_case() {
        let text = "newmtl a\nbump h.png\nNORM -bm 2 n.png\nmap_kd c.png\n";
        let library = parse_mtl(text).unwrap();
        let material = &library.materials[0];
        assert_eq!(material.normal_map.as_ref().unwrap().file, "n.png");
        assert_eq!(
            material.normal_map.as_ref().unwrap().bump_multiplier,
            Some(2.0)
        );
        assert_eq!(material.diffuse_map.as_ref().unwrap().file, "c.png");
    }

    #[test]
    fn warns_once_per_ignored_keyword() {
        let text = "newmtl a\nmap_Ks s.png\nmap_Ks s2.png\nKs 1 1 1\nillum 2\nfoo 1\n\
                    map_Kd -o 0.5 c.png\nKd spectral x.rfl\n";
        let library = parse_mtl(text).unwrap();
        let lines: Vec<usize> = library.warnings.iter().map(|(line, _)| *line).collect();
        assert_eq!(lines, [2, 6, 7, 8], "{:?}", library.warnings);
        assert!(library.warnings[0].1.contains("map_Ks"));
        assert_eq!(library.materials[0].diffuse, None);
    }

    #[test]
    fn halo_dissolve_and_comments() {
        let library = parse_mtl("newmtl a # trailing\nd -halo 0.25 # half\n").unwrap();
        assert_eq!(library.materials[0].name, "a");
        assert_eq!(library.materials[0].dissolve, Some(0.25));
    }
}
