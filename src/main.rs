// The allocator: see Cargo.toml for why and what it measured.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    std::process::exit(banklint::app::cli::main());
}
