//! End-to-end tests: they run the real `strata` binary in a fresh data directory.

mod cli;
mod crash;
mod docs;
mod util;
