mod combinators;
pub mod constructors;
mod core;
pub mod utils;

pub use combinators::ParserExt;
pub use core::RDFNodeParse;
