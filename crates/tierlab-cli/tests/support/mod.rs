pub mod cli;
pub mod nbd;
