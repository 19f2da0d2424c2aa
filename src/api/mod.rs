pub mod cli;
pub mod error;
pub mod http;
