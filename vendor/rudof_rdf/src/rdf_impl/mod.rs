pub(crate) mod oxigraph;
#[cfg(all(not(target_family = "wasm"), feature = "qlever"))]
mod qlever;

mod backend;
mod backend_error;
mod endpoint_strategy;

pub use oxigraph::{
    DEFAULT_EXACT_SEARCH_LIMIT, DiffOptions, GraphDiff, GraphRelation, OxigraphInMemory, OxigraphInMemoryError,
    ReaderMode, SubgraphMode, compare_graphs, compare_graphs_with, diff_graphs, is_isomorphic, is_subgraph,
    is_subgraph_with, show_term, show_triple, used_prefixes,
};
#[cfg(any(all(not(target_family = "wasm"), feature = "sparql"), feature = "jspi"))]
pub use oxigraph::{
    DEFAULT_MAX_CONCURRENT_REQUESTS, DEFAULT_MAX_NODES_PER_QUERY, DEFAULT_MIN_REQUEST_INTERVAL_MS, OxigraphEndpoint,
    OxigraphEndpointError, SparqlVars,
};
#[cfg(all(not(target_family = "wasm"), feature = "qlever"))]
pub use qlever::{
    Bzip2Strategy, CliKind, Compression, CompressionStrategy, DecompressorCandidate, DecompressorProbe, GzipStrategy,
    IndexHandle, InputFile, NativeFormat, QleverConfig, QleverError, QleverGraphContainer, QleverServer,
    ResolvedDecompressor, XzStrategy, build_index, decompressor_probe, qlever_probe_cli, runtime as qlever_runtime,
    strip_compression_suffix,
};

pub use backend::RdfBackend;
pub use backend_error::RdfBackendError;
pub use endpoint_strategy::EndpointStrategy;

#[cfg(test)]
mod tests {
    mod graph_comparison_tests;
    mod graph_diff_tests;
    mod in_memory_tests;
    mod neighs_iterator_tests;
    mod shacl_path_eval_tests;
    mod shacl_path_literal_tests;
    mod shacl_path_parser_tests;
    mod shacl_path_writer_tests;
    mod turtle_display_tests;

    #[cfg(feature = "qlever-docker-tests")]
    mod qlever_docker;
}
