#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| redline_fuzz::expand(data));
