fn main() {
    let path = std::env::args().nth(1).expect("path");
    let text = std::fs::read_to_string(path).expect("read");
    let p = banklint::cuda_frontend::prepare(&text, &Default::default());
    println!("templates: {:?}", p.templates);
    println!("launches: {:?}", p.launches);
    let parsed = banklint::parse::parse_chunks(&p);
    let unit = banklint::extraction::extract(&p, parsed);
    for f in &unit.functions {
        println!(
            "fn {} kernel={} template={:?} span={:?}",
            f.name, f.kernel, f.template, f.span
        );
    }
}
