//! Fuzzes the CUDA front end and the per-item lang-c parse: any text must come back with
//! the same length (byte offsets preserved) and without a panic.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let text = text.to_string();
    // The parser recurses per nesting level: run with the stack the CLI's workers get.
    let worker = std::thread::Builder::new().stack_size(256 << 20).spawn(move || {
        let prepared = banklint::front::cuda::prepare(&text, &Default::default());
        assert_eq!(prepared.text.len(), text.len(), "the front end must not move offsets");
        let parsed = banklint::front::parse::parse_chunks(&prepared);
        for item in &parsed.items {
            assert!(item.chunk.span.end <= text.len());
        }
    });
    worker.expect("spawn").join().expect("no panic");
});
