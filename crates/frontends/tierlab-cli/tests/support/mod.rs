pub mod browser;
pub mod cli;
pub mod nbd;
