//! End-to-end tests: they run the real `strata` binary in a fresh data directory.

mod beside;
mod cli;
mod clients;
mod cluster;
mod codes;
mod console;
mod crash;
mod docs;
mod http;
mod limits;
mod mcp;
mod mcp_conformance;
mod mcp_modes;
mod mcp_mrtr;
mod oauth;
mod records;
mod recovery_matrix;
mod scopes;
mod search;
mod shacl;
mod tls;
mod util;
mod w3c_protocol;
