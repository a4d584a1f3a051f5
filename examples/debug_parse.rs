fn main() {
    let path = std::env::args().nth(1).expect("path");
    let text = std::fs::read_to_string(path).expect("read");
    let p = banklint::cuda_frontend::prepare(&text, &Default::default());
    println!("{}", p.text);
    println!("typenames: {:?}", p.typenames);
    for c in &p.chunks {
        let chunk = &p.text[c.span.clone()];
        let cfg = lang_c::driver::Config::default();
        let mut prelude = String::new();
        for n in &p.typenames {
            prelude.push_str(&format!("typedef int {n};"));
        }
        for n in banklint::cuda_frontend::BUILTIN_TYPENAMES {
            if chunk.contains(n) {
                prelude.push_str(&format!("typedef int {n};"));
            }
        }
        match lang_c::driver::parse_preprocessed(&cfg, format!("{prelude}{chunk}")) {
            Ok(_) => println!("chunk {:?} ok", c.kind),
            Err(e) => println!(
                "chunk {:?} error at {} (line {} col {}): expected {:?}",
                c.kind,
                e.offset.saturating_sub(prelude.len()),
                e.line,
                e.column,
                e.expected
            ),
        }
    }
}
