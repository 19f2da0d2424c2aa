//! Strata: a SPARQL-first temporal knowledge-graph server with commit history.
//!
//! Data flows one way: `log` (the truth) → `store` (versioned indexes derived from it) →
//! `sparql` (evaluation over a snapshot) → `engine` (the façade) → the domain (`query`,
//! `records`: JSON queries and record writes, one contract) → `api` (CLI, HTTP, MCP).
//! See ARCHITECTURE.md for the map and the invariants.

pub mod api;
pub mod engine;
pub mod error;
pub mod log;
mod mapped;
pub mod memory;
pub mod model;
pub mod ontology;
pub mod query;
pub mod records;
pub mod report;
mod scratch;
pub mod search;
pub mod shacl;
pub mod sparql;
pub mod store;

pub use engine::{Engine, EngineConfig, EngineError};
