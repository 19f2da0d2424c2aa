//! The surfaces: the command line, the HTTP server and the MCP server. Only this layer
//! knows about JSON bodies, HTTP, MCP and exit codes.

pub mod cli;
pub mod envelope;
pub mod error;
pub mod http;
pub mod index_status;
pub mod mcp;
pub mod report;
