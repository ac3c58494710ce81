pub mod nbd;
