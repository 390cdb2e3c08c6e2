//! Traces for Redline's binaries (the command line and the desktop shell):
//! to standard error, filtered by `REDLINE_LOG` (default: warnings); and
//! panics logged once a place.

use std::collections::HashSet;
use std::panic::PanicHookInfo;
use std::sync::Mutex;

/// Installs the trace subscriber and the panic hook ([`log_panics`]). Call
/// once, at the start of `main`.
pub fn init() {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("REDLINE_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .init();
    log_panics();
}

/// Logs each distinct panic once, as an error with its place, message and
/// (with `RUST_BACKTRACE`) its backtrace, instead of the default hook's
/// lines on every panic. A panic is contained where it happens (its job
/// fails, its request answers 500), so a bug hit on every keystroke would
/// otherwise fill the log with the same lines.
pub fn log_panics() {
    static SEEN: Mutex<Option<HashSet<String>>> = Mutex::new(None);
    std::panic::set_hook(Box::new(|info: &PanicHookInfo<'_>| {
        let place = info
            .location()
            .map_or_else(|| "an unknown place".to_owned(), ToString::to_string);
        let first = SEEN
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get_or_insert_with(HashSet::new)
            .insert(place.clone());
        if !first {
            return;
        }
        let message = panic_message(info.payload());
        let backtrace = std::backtrace::Backtrace::capture();
        match backtrace.status() {
            std::backtrace::BacktraceStatus::Captured => tracing::error!(
                "Redline hit a bug at {place}: {message} (logged once; later panics here are not)\n{backtrace}"
            ),
            _ => tracing::error!(
                "Redline hit a bug at {place}: {message} (logged once; later panics here are not)"
            ),
        }
    }));
}

/// What a panic said, from its payload.
pub fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic with no message".to_owned())
}
