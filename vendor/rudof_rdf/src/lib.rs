pub mod cancellation;
#[cfg(all(target_family = "wasm", feature = "jspi"))]
pub mod jspi;
pub mod rdf_core;
pub mod rdf_impl;
