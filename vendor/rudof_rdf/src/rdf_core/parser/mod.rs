pub mod rdf_node_parser;
mod rdf_parser;

pub use rdf_parser::RDFParse;
