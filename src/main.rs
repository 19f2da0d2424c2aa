//! The `strata` binary: parse arguments, run, exit. Everything else is in the library.

use std::process::ExitCode;

use clap::Parser;
use clap::error::{ContextKind, ErrorKind};

fn main() -> ExitCode {
    let cli = match strata::api::cli::Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => return usage_error(&error),
    };
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

/// A command line clap refused, as every other CLI error: one line `error[code] param:
/// message` (the code `invalid_argument`, the param the option or argument at fault),
/// then clap's own hints; exit status 2 (a usage error). Help and version print as clap
/// prints them.
fn usage_error(error: &clap::Error) -> ExitCode {
    if matches!(
        error.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        let _ = error.print();
        return ExitCode::SUCCESS;
    }
    let rendered = error.render().to_string();
    let mut lines = rendered.lines();
    let first = lines.next().unwrap_or_default();
    let message = first.strip_prefix("error: ").unwrap_or(first);
    let param = error
        .get(ContextKind::InvalidArg)
        .or_else(|| error.get(ContextKind::InvalidSubcommand))
        .map(|arg| {
            let arg = arg.to_string();
            // `--as-of <AS_OF>` → `--as-of`; a positional `<QUERY>` stays as it is.
            match arg.split_once(' ') {
                Some((flag, _)) if flag.starts_with('-') => flag.to_owned(),
                _ => arg,
            }
        });
    match param {
        Some(param) => eprintln!("error[invalid_argument] {param}: {message}"),
        None => eprintln!("error[invalid_argument]: {message}"),
    }
    for line in lines {
        eprintln!("{line}");
    }
    ExitCode::from(2)
}
