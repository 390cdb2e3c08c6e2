//! Redline's benchmarks, one binary: each prints its figures and, where
//! there is one, the same work done by the peer tool on the same input (`rg`,
//! `git diff`, the file system's own floor). They assert that the work was
//! done, never how fast.
//!
//! `cargo bench` runs them all, in the order below; `cargo bench -- NAME...`
//! runs the named ones. Each module's documentation gives its sizes and the
//! variables that change them.

// What the integration tests share, shared here too: a runtime on a small
// vault with a scripted model, and the peer `rg` for the search benchmark.
#[path = "../tests/support/rg.rs"]
mod rg;
#[path = "../tests/support/agent.rs"]
mod support;

mod agent;
mod api;
mod crash_trials;
mod eval;
mod fan_out;
mod links;
mod moves;
mod operations;
mod outside;
mod review;
mod scale;
mod search;

/// Every benchmark, by name, in the order a full run takes them: the
/// quick in-process ones first, the servers and child processes last.
const BENCHMARKS: [(&str, fn()); 12] = [
    ("search", search::main),
    ("review", review::main),
    ("scale", scale::main),
    ("operations", operations::main),
    ("links", links::main),
    ("moves", moves::main),
    ("outside", outside::main),
    ("crash_trials", crash_trials::main),
    ("agent", agent::main),
    ("fan_out", fan_out::main),
    ("api", api::main),
    ("eval", eval::main),
];

fn main() {
    // `cargo bench` passes `--bench`; every other word names a benchmark.
    let named: Vec<String> = std::env::args()
        .skip(1)
        .filter(|arg| !arg.starts_with('-'))
        .collect();
    if let Some(unknown) = named
        .iter()
        .find(|n| BENCHMARKS.iter().all(|(b, _)| b != n))
    {
        let known: Vec<&str> = BENCHMARKS.iter().map(|(name, _)| *name).collect();
        eprintln!(
            "no benchmark `{unknown}`; the benchmarks are: {}",
            known.join(", ")
        );
        std::process::exit(2);
    }
    for (name, run) in BENCHMARKS {
        if named.is_empty() || named.iter().any(|n| n == name) {
            println!("==> benchmark {name}");
            run();
        }
    }
}
