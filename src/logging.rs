//! Traces for Redline's binaries (the command line and the desktop shell):
//! to standard error, filtered by `REDLINE_LOG` (default: warnings).

/// Installs the trace subscriber. Call once, at the start of `main`.
pub fn init() {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("REDLINE_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .init();
}
