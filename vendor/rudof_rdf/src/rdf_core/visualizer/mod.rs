pub mod errors;
mod rdf_visualizer_config;
pub mod utils;
mod visual_rdf_edge;
mod visual_rdf_graph;
mod visual_rdf_node;

pub use rdf_visualizer_config::RDFVisualizationConfig;
pub use rudof_viz::model::Shape as UmlShape;
pub use rudof_viz::style::BoxStyle as NodeStyle;
pub use visual_rdf_edge::VisualRDFEdge;
pub use visual_rdf_graph::{EdgeId, NodeId, VisualRDFGraph};
pub use visual_rdf_node::VisualRDFNode;
