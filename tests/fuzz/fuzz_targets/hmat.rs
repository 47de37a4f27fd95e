//! libFuzzer entry point of the `hmat` target; the body is `targets::fuzz_hmat`.

#![no_main]

#[allow(dead_code)] // each binary uses one target of the shared table
#[path = "../targets.rs"]
mod targets;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    targets::fuzz_hmat(data);
});
