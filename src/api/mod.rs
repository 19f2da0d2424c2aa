pub mod cli;
pub mod error;
