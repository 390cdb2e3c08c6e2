//! An axum app served on loopback in the background, stopped when its handle
//! is dropped: the one way Redline listens (the API, the scripted model).

use std::net::SocketAddr;

use axum::Router;

/// A running loopback server. Dropping it shuts the server down gracefully.
#[derive(Debug)]
pub struct Loopback {
    /// Where it listens.
    pub addr: SocketAddr,
    _shutdown: tokio::sync::oneshot::Sender<()>,
}

/// Binds `127.0.0.1:port` (0 picks a free port) and serves the app
/// `make_app` builds for the bound address. Needs a tokio runtime.
pub async fn spawn(
    port: u16,
    make_app: impl FnOnce(SocketAddr) -> Router,
) -> std::io::Result<Loopback> {
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    let addr = listener.local_addr()?;
    let app = make_app(addr);
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(async move {
        let _ = axum::serve(listener, app)
            .with_graceful_shutdown(async {
                let _ = rx.await;
            })
            .await;
    });
    Ok(Loopback {
        addr,
        _shutdown: tx,
    })
}
