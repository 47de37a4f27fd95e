//! Precompiled `.spv` files: parsed and validated by naga, then copied as they
//! are.
//!
//! The same check backs `assetc-link check`, so a `.spv` in an output folder
//! is held to the rule the encoder applied when it wrote or copied it.

use naga::front::spv;

use super::compile::validator;
use super::diagnostic::message_with_causes;
use super::naming::stage_name;

/// The first word of every SPIR-V module, as little-endian bytes.
pub const MAGIC: [u8; 4] = [0x03, 0x02, 0x23, 0x07];

/// The size of the SPIR-V header: magic, version, generator, bound, schema.
const HEADER_BYTES: usize = 20;

/// What a valid module holds, for reports such as `assetc info`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpirvSummary {
    /// The SPIR-V version of the header, major and minor.
    pub version: (u8, u8),
    /// Every entry point as its stage name and its own name, e.g.
    /// `("vertex", "main")`, in module order.
    pub entry_points: Vec<(&'static str, String)>,
}

/// Checks that `bytes` is a SPIR-V module that naga parses and validates, and
/// says what it holds; the error says what is wrong.
pub fn validate_spirv(bytes: &[u8]) -> Result<SpirvSummary, String> {
    let (module, _) = parse_spirv(bytes)?;
    Ok(SpirvSummary {
        version: header_version(bytes),
        entry_points: module
            .entry_points
            .iter()
            .map(|entry| (stage_name(entry.stage), entry.name.clone()))
            .collect(),
    })
}

/// The SPIR-V version in a module's header, major and minor: the version
/// word is 0x00MMmm00, little-endian. `(0, 0)` for bytes too short to hold
/// it, which [`parse_spirv`] refuses.
pub fn header_version(bytes: &[u8]) -> (u8, u8) {
    match bytes.get(5..7) {
        Some(&[minor, major]) => (major, minor),
        _ => (0, 0),
    }
}

/// Parses `bytes` as a SPIR-V module and validates it with naga, as
/// [`validate_spirv`] does: the module and its validation info (what each
/// entry point uses), or what is wrong.
pub fn parse_spirv(bytes: &[u8]) -> Result<(naga::Module, naga::valid::ModuleInfo), String> {
    if bytes.len() < HEADER_BYTES {
        return Err(format!(
            "is {} bytes, shorter than the {HEADER_BYTES}-byte SPIR-V header",
            bytes.len()
        ));
    }
    if bytes[..4] != MAGIC {
        return Err(format!(
            "does not start with the SPIR-V magic number 0x07230203 (found {:02x} {:02x} {:02x} {:02x})",
            bytes[0], bytes[1], bytes[2], bytes[3]
        ));
    }
    if !bytes.len().is_multiple_of(4) {
        return Err(format!(
            "is {} bytes, not a whole number of 4-byte SPIR-V words",
            bytes.len()
        ));
    }
    let options = spv::Options {
        adjust_coordinate_space: false,
        ..spv::Options::default()
    };
    let module = spv::parse_u8_slice(bytes, &options)
        .map_err(|error| format!("cannot parse SPIR-V: {}", message_with_causes(&error)))?;
    if module.entry_points.is_empty() {
        return Err("has no entry point".into());
    }
    let info = validator()
        .validate(&module)
        .map_err(|error| format!("invalid SPIR-V: {}", message_with_causes(error.as_inner())))?;
    Ok((module, info))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broken_modules_say_what_is_wrong() {
        assert!(validate_spirv(&[3, 2, 35]).unwrap_err().contains("shorter"));
        let mut header = MAGIC.to_vec();
        header.extend([0; 16]);
        header[0] = 0xff;
        assert!(validate_spirv(&header).unwrap_err().contains("magic"));
        header[0] = 0x03;
        header.push(0);
        assert!(validate_spirv(&header).unwrap_err().contains("4-byte"));
        header.pop();
        assert!(
            validate_spirv(&header)
                .unwrap_err()
                .contains("no entry point")
        );
    }

    /// A small compute module, written by naga.
    fn module() -> Vec<u8> {
        let source = "@compute @workgroup_size(1) fn main() {}";
        let module = naga::front::wgsl::parse_str(source).unwrap();
        let info = validator().validate(&module).unwrap();
        let options = naga::back::spv::Options::default();
        let words = naga::back::spv::write_vec(&module, &info, &options, None).unwrap();
        words.iter().flat_map(|w| w.to_le_bytes()).collect()
    }

    #[test]
    fn a_whole_module_passes_and_a_truncated_one_does_not() {
        let bytes = module();
        let summary = validate_spirv(&bytes).unwrap();
        assert_eq!(summary.entry_points, [("compute", "main".to_string())]);
        let truncated = &bytes[..bytes.len() - 8];
        let what = validate_spirv(truncated).unwrap_err();
        assert!(what.contains("cannot parse SPIR-V"), "{what}");
    }
}
