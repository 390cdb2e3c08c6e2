//! The engine builds on a bare Linux machine: nothing in its dependency
//! graph, for any target, links a system library that needs a development
//! package — no OpenSSL (reqwest uses rustls with ring), no libdbus (the
//! keychain talks to the Secret Service over zbus). Asked of `cargo tree`,
//! which resolves features the way a build does.

use std::process::Command;

/// Packages that would need a system package to build.
const SYSTEM_BINDINGS: &[&str] = &["openssl-sys", "libdbus-sys"];

fn tree(args: &[&str]) -> (bool, String) {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            // Not offline: the graph for every target needs the manifests
            // of crates this platform never builds (fetched once).
            "tree", "-p", "redline", "-e", "normal", "--target", "all",
        ])
        .args(args)
        .output()
        .expect("cargo tree runs");
    assert!(
        out.status.success() || args.iter().any(|a| SYSTEM_BINDINGS.contains(a)),
        "cargo tree failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[test]
fn the_engine_needs_no_system_development_package() {
    // The question is asked right: a binding the engine does use is found.
    let (found, ring) = tree(&["-i", "ring"]);
    assert!(found && ring.contains("redline v"), "{ring}");
    for binding in SYSTEM_BINDINGS {
        let (_, users) = tree(&["-i", binding]);
        assert!(
            !users.contains("redline v"),
            "the engine depends on {binding}:\n{users}"
        );
    }
}
