fn main() {
    std::process::exit(banklint::app::cli::main());
}
