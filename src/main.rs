//! The `strata` binary: parse arguments, run, exit. Everything else is in the library.

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = strata::api::cli::Cli::parse();
    // A server logs each request by default; one-shot commands only warnings.
    let default_filter = match cli.command {
        strata::api::cli::Command::Serve(_) => "warn,strata=info",
        _ => "warn",
    };
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("STRATA_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default_filter)),
        )
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
    strata::api::cli::run(cli)
}
