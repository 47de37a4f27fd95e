//! SPIR-V modules for the page: reflection and a readable rendering.
//!
//! A module is parsed and validated by naga exactly as `assetc info` and
//! `assetc-link check` do ([`parse_spirv`]). The reflection lists the entry
//! points (stage, name, workgroup size), every resource binding (set,
//! binding, name, what it is, its WGSL type and size, the entry points that
//! use it, from naga's validation info) and the push constants. The
//! "disassembly" is naga's WGSL writer run on the parsed module: WGSL
//! rebuilt from the SPIR-V, not the original source, with naga's names.

use naga::common::wgsl::TypeContext as _;
use naga::valid::ModuleInfo;
use naga::{AddressSpace, ImageClass, Module, StorageAccess, TypeInner};
use serde_json::{Value, json};

use crate::encode::shader::naming::stage_name;
use crate::encode::shader::spirv::{header_version, parse_spirv};

/// The page's view of the SPIR-V module `bytes` at runtime path `path`, or
/// naga's reason for refusing it.
pub fn shader_json(path: &str, bytes: &[u8]) -> Result<Value, String> {
    let (module, info) = parse_spirv(bytes)?;
    let (major, minor) = header_version(bytes);
    let disassembly = match naga::back::wgsl::write_string(
        &module,
        &info,
        naga::back::wgsl::WriterFlags::empty(),
    ) {
        Ok(text) => json!({ "language": "WGSL", "text": text, "error": Value::Null }),
        Err(e) => json!({ "language": "WGSL", "text": Value::Null, "error": e.to_string() }),
    };
    Ok(json!({
        "path": path,
        "spirv": format!("{major}.{minor}"),
        "words": bytes.len() / 4,
        "entry_points": entry_points(&module),
        "bindings": resources(&module, &info, |space| !matches!(space, AddressSpace::Immediate)),
        "push_constants": resources(&module, &info, |space| matches!(space, AddressSpace::Immediate)),
        "disassembly": disassembly,
    }))
}

/// Each entry point: its stage, name and (for compute) workgroup size.
fn entry_points(module: &Module) -> Vec<Value> {
    module
        .entry_points
        .iter()
        .map(|entry| {
            let compute = entry.stage == naga::ShaderStage::Compute;
            json!({
                "name": entry.name,
                "stage": stage_name(entry.stage),
                "workgroup_size": if compute { json!(entry.workgroup_size) } else { Value::Null },
            })
        })
        .collect()
}

/// The module's global resources in an address space `wanted` accepts
/// (bound resources, or push constants), sorted by set and binding: name,
/// kind, WGSL type, size in bytes when sized, and the entry points that
/// use each.
fn resources(
    module: &Module,
    info: &ModuleInfo,
    wanted: impl Fn(AddressSpace) -> bool,
) -> Vec<Value> {
    let ctx = module.to_ctx();
    let mut found: Vec<(Option<(u32, u32)>, Value)> = module
        .global_variables
        .iter()
        .filter(|(_, global)| wanted(global.space))
        .filter(|(_, global)| global.binding.is_some() || global.space == AddressSpace::Immediate)
        .map(|(handle, global)| {
            let ty = &module.types[global.ty];
            let used_by: Vec<&str> = module
                .entry_points
                .iter()
                .enumerate()
                .filter(|(index, _)| !info.get_entry_point(*index)[handle].is_empty())
                .map(|(_, entry)| entry.name.as_str())
                .collect();
            let slot = global.binding.as_ref().map(|b| (b.group, b.binding));
            let sized = !matches!(
                ty.inner,
                TypeInner::Image { .. } | TypeInner::Sampler { .. }
            );
            let value = json!({
                "set": slot.map(|s| s.0),
                "binding": slot.map(|s| s.1),
                "name": global.name,
                "kind": kind_of(global.space, &ty.inner, module),
                "type": type_label(module, global.ty),
                "size": sized.then(|| ty.inner.size(ctx)),
                "used_by": used_by,
            });
            (slot, value)
        })
        .collect();
    found.sort_by_key(|(slot, _)| *slot);
    found.into_iter().map(|(_, value)| value).collect()
}

/// A type as WGSL spells it; a struct with its members (one level deep),
/// and a nameless one-member struct, which is how naga's SPIR-V reader
/// wraps a block, as its member.
fn type_label(module: &Module, handle: naga::Handle<naga::Type>) -> String {
    let ctx = module.to_ctx();
    let ty = &module.types[handle];
    let TypeInner::Struct { members, .. } = &ty.inner else {
        return ctx.type_to_string(handle);
    };
    if let (None, [only]) = (&ty.name, members.as_slice())
        && matches!(module.types[only.ty].inner, TypeInner::Struct { .. })
    {
        return type_label(module, only.ty);
    }
    let fields: Vec<String> = members
        .iter()
        .map(|member| {
            let name = member.name.as_deref().unwrap_or("_");
            format!("{name}: {}", ctx.type_to_string(member.ty))
        })
        .collect();
    let name = ty.name.as_deref().unwrap_or("struct");
    format!("{name} {{ {} }}", fields.join(", "))
}

/// What a resource is, in Vulkan's words: `uniform buffer`, `storage buffer
/// (read-only)`, `sampled image`, `storage image`, `sampler`, ….
fn kind_of(space: AddressSpace, inner: &TypeInner, module: &Module) -> String {
    match (space, inner) {
        (AddressSpace::Uniform, _) => "uniform buffer".into(),
        (AddressSpace::Storage { access }, _) if !access.contains(StorageAccess::STORE) => {
            "storage buffer (read-only)".into()
        }
        (AddressSpace::Storage { .. }, _) => "storage buffer".into(),
        (AddressSpace::Immediate, _) => "push constant".into(),
        (_, TypeInner::Image { class, .. }) => match class {
            ImageClass::Sampled { .. } => "sampled image".into(),
            ImageClass::Depth { .. } => "depth image".into(),
            ImageClass::Storage { .. } => "storage image".into(),
            ImageClass::External => "external image".into(),
        },
        (_, TypeInner::Sampler { comparison: true }) => "comparison sampler".into(),
        (_, TypeInner::Sampler { .. }) => "sampler".into(),
        (_, TypeInner::BindingArray { base, .. }) => {
            format!(
                "array of {}",
                kind_of(space, &module.types[*base].inner, module)
            )
        }
        (_, TypeInner::AccelerationStructure { .. }) => "acceleration structure".into(),
        _ => "resource".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encode::shader::compile::validator;

    /// `source` (WGSL) compiled to SPIR-V by naga.
    fn spirv(source: &str) -> Vec<u8> {
        let module = naga::front::wgsl::parse_str(source).unwrap();
        let info = validator().validate(&module).unwrap();
        let words = naga::back::spv::write_vec(&module, &info, &Default::default(), None).unwrap();
        words.iter().flat_map(|w| w.to_le_bytes()).collect()
    }

    const SOURCE: &str = "
        struct Light { colour: vec4<f32>, strength: f32 }
        struct Tint { value: vec4<f32> }
        @group(1) @binding(3) var<uniform> light: Light;
        @group(0) @binding(0) var picture: texture_2d<f32>;
        @group(0) @binding(1) var smooth_sampler: sampler;
        @group(0) @binding(2) var<storage, read> weights: array<f32>;
        var<immediate> tint: Tint;
        @fragment fn shade(@location(0) uv: vec2<f32>) -> @location(0) vec4<f32> {
            return textureSample(picture, smooth_sampler, uv) * light.colour * tint.value;
        }
        @compute @workgroup_size(8, 4, 1) fn sum() { let w = weights[0]; }
    ";

    #[test]
    fn entry_points_bindings_and_push_constants_are_listed() {
        let shown = shader_json("fx/a.spv", &spirv(SOURCE)).unwrap();
        let entries = shown["entry_points"].as_array().unwrap();
        let names: Vec<(&str, &str)> = entries
            .iter()
            .map(|e| (e["stage"].as_str().unwrap(), e["name"].as_str().unwrap()))
            .collect();
        assert_eq!(names, [("fragment", "shade"), ("compute", "sum")]);
        assert_eq!(entries[1]["workgroup_size"], json!([8, 4, 1]));
        let bindings = shown["bindings"].as_array().unwrap();
        let slots: Vec<(u64, u64, &str)> = bindings
            .iter()
            .map(|b| {
                (
                    b["set"].as_u64().unwrap(),
                    b["binding"].as_u64().unwrap(),
                    b["kind"].as_str().unwrap(),
                )
            })
            .collect();
        assert_eq!(
            slots,
            [
                (0, 0, "sampled image"),
                (0, 1, "sampler"),
                (0, 2, "storage buffer (read-only)"),
                (1, 3, "uniform buffer"),
            ]
        );
        assert_eq!(bindings[3]["size"], 32);
        assert_eq!(
            bindings[3]["type"],
            "Light { colour: vec4<f32>, strength: f32 }"
        );
        assert_eq!(bindings[0]["used_by"], json!(["shade"]));
        assert_eq!(bindings[2]["used_by"], json!(["sum"]));
        let push = shown["push_constants"].as_array().unwrap();
        assert_eq!(push.len(), 1);
        assert_eq!(push[0]["size"], 16);
        let wgsl = shown["disassembly"]["text"].as_str().unwrap();
        assert!(wgsl.contains("@compute @workgroup_size(8, 4, 1)"), "{wgsl}");
    }

    #[test]
    fn a_broken_module_gives_the_readers_reason() {
        let mut bytes = spirv(SOURCE);
        bytes.truncate(bytes.len() - 8);
        let error = shader_json("fx/a.spv", &bytes).unwrap_err();
        assert!(error.contains("SPIR-V"), "{error}");
    }
}
