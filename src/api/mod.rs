//! The surfaces: the command line, the HTTP server and the MCP server. They parse their
//! protocol's arguments, check who may do what, ask people (MCP approvals), and render
//! the domain's answers and errors (`query`, `records`, `error`) their own way.

pub mod access;
pub mod cli;
pub mod http;
pub mod mcp;
