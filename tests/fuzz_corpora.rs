//! The fuzz targets (`fuzz/`, run with cargo-fuzz) replayed on
//! stable over every file of their corpora (`fuzz/corpus/<target>/`): the
//! seeds, and each input the fuzzer found that broke something, kept there
//! as a regression once fixed.

#[path = "../fuzz/src/lib.rs"]
mod targets;

use std::path::Path;

/// A target's body: the fuzzer's bytes in, a panic on what must never happen.
type Target = fn(&[u8]);

#[test]
fn every_corpus_file_passes_its_target() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus");
    let all: [(&str, Target); 10] = [
        ("stream", targets::stream),
        ("links", targets::links),
        ("front_matter", targets::front_matter),
        ("prose", targets::prose),
        ("expand", targets::expand),
        ("edits", targets::edits),
        ("patch", targets::patch),
        ("paths", targets::paths),
        ("config", targets::config),
        ("tool_args", targets::tool_args),
    ];
    for (name, target) in all {
        let mut files: Vec<_> = std::fs::read_dir(corpus.join(name))
            .unwrap_or_else(|e| panic!("the corpus of {name}: {e}"))
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        assert!(!files.is_empty(), "{name} has a corpus");
        for file in files {
            // Named before it runs: a panic below is this file's.
            eprintln!("{name}: {}", file.display());
            target(&std::fs::read(&file).unwrap());
        }
    }
}
