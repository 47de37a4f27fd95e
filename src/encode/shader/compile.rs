//! GLSL and WGSL sources to validated SPIR-V, one module per entry point.
//!
//! The expanded text goes through naga's front end for its language, naga's
//! validator (every check, every capability naga knows), then naga's SPIR-V
//! back end once per entry point. Parse and validation errors come back as
//! `file:line:column: message`, mapped through the include line map to the
//! file that holds the line.
//!
//! The back end is set up per language so each keeps the meaning its authors
//! expect:
//!
//! * GLSL is Vulkan GLSL: written as is, with no coordinate flip and none of
//!   WebGPU's safety code (integer division checks, loop bounding, zeroed
//!   workgroup memory), as `glslang` would compile it;
//! * WGSL keeps WebGPU semantics, as wgpu compiles it for Vulkan: clip-space
//!   Y is flipped from WebGPU's up to Vulkan's down, and the safety code stays.
//!
//! Both target SPIR-V 1.0 (any Vulkan 1.0 driver) and carry debug names
//! (`OpName`), as `glslang` emits by default: shader debuggers and reflection
//! show the source's names. The output never depends on how assetc itself
//! was built.

use naga::back::spv;
use naga::front::{glsl, wgsl};
use naga::valid::{Capabilities, ModuleInfo, ValidationFlags, Validator};
use naga::{Module, ShaderStage};

use super::diagnostic::{Diagnostic, ShaderError, message_with_causes};
use super::include::{Dialect, Expanded};

/// At most this many parse errors of one file are reported.
const MAX_REPORTED_ERRORS: usize = 8;

/// The SPIR-V version written: 1.0, which every Vulkan driver accepts.
pub const SPIRV_VERSION: (u8, u8) = (1, 0);

/// One entry point compiled to SPIR-V.
#[derive(Debug, Clone)]
pub struct CompiledEntry {
    /// The entry point's name in the source.
    pub entry: String,
    /// Its stage.
    pub stage: ShaderStage,
    /// The SPIR-V module, little-endian words.
    pub bytes: Vec<u8>,
}

/// The language of a source, with the stage GLSL needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Language {
    /// GLSL of one stage.
    Glsl(ShaderStage),
    /// WGSL.
    Wgsl,
}

impl Language {
    /// The include dialect of the language.
    pub fn dialect(self) -> Dialect {
        match self {
            Language::Glsl(_) => Dialect::Glsl,
            Language::Wgsl => Dialect::Wgsl,
        }
    }
}

/// Parses, validates and writes every entry point of an expanded source.
pub fn compile(source: &Expanded, language: Language) -> Result<Vec<CompiledEntry>, ShaderError> {
    let module = match language {
        Language::Glsl(stage) => parse_glsl(source, stage)?,
        Language::Wgsl => parse_wgsl(source)?,
    };
    let info = validate(&module, source)?;
    let options = backend_options(language);
    module
        .entry_points
        .iter()
        .map(|entry| {
            let pipeline = spv::PipelineOptions {
                shader_stage: entry.stage,
                entry_point: entry.name.clone(),
            };
            let words = spv::write_vec(&module, &info, &options, Some(&pipeline)).map_err(|e| {
                Diagnostic::file(
                    &source.root_path(),
                    format!(
                        "cannot write SPIR-V for entry point `{}`: {}",
                        entry.name,
                        message_with_causes(&e)
                    ),
                )
            })?;
            Ok(CompiledEntry {
                entry: entry.name.clone(),
                stage: entry.stage,
                bytes: words_to_bytes(&words),
            })
        })
        .collect()
}

fn parse_glsl(source: &Expanded, stage: ShaderStage) -> Result<Module, ShaderError> {
    let options = glsl::Options::from(stage);
    glsl::Frontend::default()
        .parse(&options, &source.text)
        .map_err(|errors| {
            let diagnostics = errors
                .errors
                .iter()
                .take(MAX_REPORTED_ERRORS)
                .map(|error| {
                    let message = error.kind.to_string();
                    match error
                        .location(&source.text)
                        .filter(|_| error.meta.is_defined())
                    {
                        Some(at) => Diagnostic::at(source.locate(at), message),
                        None => Diagnostic::file(&source.root_path(), message),
                    }
                })
                .collect();
            ShaderError { diagnostics }
        })
}

fn parse_wgsl(source: &Expanded) -> Result<Module, ShaderError> {
    wgsl::parse_str(&source.text).map_err(|error| {
        let mut message = error.message().to_string();
        for note in error.notes() {
            message.push_str(&format!(" (note: {note})"));
        }
        let diagnostic = match error.location(&source.text) {
            Some(at) => Diagnostic::at(source.locate(at), message),
            None => Diagnostic::file(&source.root_path(), message),
        };
        diagnostic.into()
    })
}

/// Runs naga's validator with every check and every capability.
pub fn validator() -> Validator {
    Validator::new(ValidationFlags::all(), Capabilities::all())
}

fn validate(module: &Module, source: &Expanded) -> Result<ModuleInfo, ShaderError> {
    validator().validate(module).map_err(|error| {
        let message = format!("invalid shader: {}", message_with_causes(error.as_inner()));
        let diagnostic = match error.location(&source.text) {
            Some(at) => Diagnostic::at(source.locate(at), message),
            None => Diagnostic::file(&source.root_path(), message),
        };
        diagnostic.into()
    })
}

/// The SPIR-V writer settings for a language (see the module docs).
fn backend_options(language: Language) -> spv::Options<'static> {
    let defaults = spv::Options::default();
    match language {
        Language::Glsl(_) => spv::Options {
            lang_version: SPIRV_VERSION,
            flags: spv::WriterFlags::DEBUG,
            zero_initialize_workgroup_memory: spv::ZeroInitializeWorkgroupMemoryMode::None,
            force_loop_bounding: false,
            ray_query_initialization_tracking: false,
            trace_ray_argument_validation: false,
            emit_int_div_checks: false,
            ..defaults
        },
        Language::Wgsl => spv::Options {
            lang_version: SPIRV_VERSION,
            flags: spv::WriterFlags::DEBUG
                | spv::WriterFlags::ADJUST_COORDINATE_SPACE
                | spv::WriterFlags::LABEL_VARYINGS
                | spv::WriterFlags::CLAMP_FRAG_DEPTH,
            ..defaults
        },
    }
}

/// SPIR-V words as little-endian bytes.
fn words_to_bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|word| word.to_le_bytes()).collect()
}
