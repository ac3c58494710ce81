//! `tierlab`: evaluate storage built from unlike devices — performance, energy, wear, cost.

fn main() -> std::process::ExitCode {
    tierlab_cli::main(std::env::args_os())
}
