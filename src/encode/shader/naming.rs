//! The name each compiled entry point gets on disk.
//!
//! A shader folder becomes one `.spv` per entry point, so the file name has to
//! come from the entry point. The rule (the reference tool's):
//!
//! * an entry point called `main`, in any case, carries no information beyond
//!   its stage, so it is named after the stage: `vertex`, `fragment`,
//!   `compute`, …;
//! * a name ending in exactly `Main` (capital M) loses that suffix, so
//!   `vsMain` becomes `vs` while `domain` stays `domain`;
//! * any other name is kept as written.

use naga::ShaderStage;

/// The `.spv` stem of the entry point `entry` of stage `stage`.
pub fn output_name(entry: &str, stage: ShaderStage) -> String {
    const SUFFIX: &str = "Main";
    if entry.eq_ignore_ascii_case("main") {
        return stage_name(stage).to_string();
    }
    match entry.strip_suffix(SUFFIX) {
        Some(stem) if !stem.is_empty() => stem.to_string(),
        _ => entry.to_string(),
    }
}

/// The lowercase name of a stage, as used for `main` entry points.
pub fn stage_name(stage: ShaderStage) -> &'static str {
    match stage {
        ShaderStage::Vertex => "vertex",
        ShaderStage::Fragment => "fragment",
        ShaderStage::Compute => "compute",
        ShaderStage::Task => "task",
        ShaderStage::Mesh => "mesh",
        ShaderStage::RayGeneration => "raygen",
        ShaderStage::Miss => "miss",
        ShaderStage::AnyHit => "anyhit",
        ShaderStage::ClosestHit => "closesthit",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn main_in_any_case_is_named_after_its_stage() {
        assert_eq!(output_name("main", ShaderStage::Vertex), "vertex");
        assert_eq!(output_name("MAIN", ShaderStage::Fragment), "fragment");
        assert_eq!(output_name("Main", ShaderStage::Compute), "compute");
    }

    #[test]
    fn only_an_exact_main_suffix_is_dropped() {
        assert_eq!(output_name("vsMain", ShaderStage::Vertex), "vs");
        assert_eq!(output_name("blurMain", ShaderStage::Compute), "blur");
        assert_eq!(output_name("domain", ShaderStage::Fragment), "domain");
        assert_eq!(output_name("vsMAIN", ShaderStage::Vertex), "vsMAIN");
        assert_eq!(output_name("down", ShaderStage::Compute), "down");
        assert_eq!(output_name("MainMain", ShaderStage::Vertex), "Main");
    }
}
