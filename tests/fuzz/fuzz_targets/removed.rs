//! libFuzzer entry point of the `removed` target; the body is `targets::fuzz_removed`.

#![no_main]

#[allow(dead_code)] // each binary uses one target of the shared table
#[path = "../targets.rs"]
mod targets;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    targets::fuzz_removed(data);
});
