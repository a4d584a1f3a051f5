fn main() {
    std::process::exit(banklint::cli::main());
}
