//! libFuzzer entry point of the `hatlas` target; the body is `targets::fuzz_hatlas`.

#![no_main]

#[allow(dead_code)] // each binary uses one target of the shared table
#[path = "../targets.rs"]
mod targets;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    targets::fuzz_hatlas(data);
});
