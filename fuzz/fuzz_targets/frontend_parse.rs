//! Fuzzes the CUDA front end and the per-item lang-c parse: any text must come back as an
//! expanded text whose source map covers it and points into the file, with every parsed
//! item inside the expanded text, and without a panic.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let text = text.to_string();
    // The parser recurses per nesting level: run with the stack the CLI's workers get.
    let worker = std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(move || {
            let prepared = banklint::front::cuda::prepare(&text, &Default::default());
            assert_eq!(prepared.source, text, "the file as written is kept");
            let expanded = prepared.text.len();
            assert_eq!(
                prepared.map.expanded_len(),
                expanded,
                "the map covers the expanded text"
            );
            let whole = prepared.map.span(0..expanded);
            assert!(
                whole.start <= whole.end && whole.end <= text.len(),
                "and maps into the file"
            );
            let parsed = banklint::front::parse::parse_chunks(&prepared);
            for item in &parsed.items {
                assert!(item.chunk.span.end <= expanded);
                let file = prepared.map.span(item.chunk.span.clone());
                assert!(file.end <= text.len(), "an item maps into the file");
            }
        });
    worker.expect("spawn").join().expect("no panic");
});
