//! libFuzzer entry point of the `open` target; the body is `targets::fuzz_open`.

#![no_main]

#[allow(dead_code)] // each binary uses one target of the shared table
#[path = "../targets.rs"]
mod targets;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    targets::fuzz_open(data);
});
