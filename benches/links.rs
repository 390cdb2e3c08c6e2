//! Link engine benchmark: a generated vault of 40,000 notes (and 2,000
//! attachments) in memory, one note of it linked from 2,000 notes in
//! assorted forms. Prints the time to build the link index, its resident
//! memory, the time to plan that note's rename (and a rename into a name
//! already taken, which qualifies every link), to plan a folder's move, and
//! to apply a change to the index: one note's new text, and the whole
//! rename (the move and the 2,000 rewritten notes).
//!
//! `cargo bench -- links`; `REDLINE_BENCH_NOTES=10000` picks another
//! size and `REDLINE_BENCH_RUNS=9` the runs per measurement (default 5).

use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::sync::atomic::{AtomicBool, AtomicIsize, Ordering};
use std::time::{Duration, Instant};

use redline::links::{LinkIndex, LinkSettings, apply_edits, parse};

const TARGET: &str = "Projects/Atlas.md";
const LINKERS: usize = 2_000;

/// The system allocator, counting the bytes live while this benchmark
/// runs: the index's own memory, free of what the allocator keeps. (The
/// allocator of the whole benchmark binary; the others never turn it on.)
struct Counting;

static COUNTING: AtomicBool = AtomicBool::new(false);
static LIVE: AtomicIsize = AtomicIsize::new(0);

fn count(bytes: isize) {
    if COUNTING.load(Ordering::Relaxed) {
        LIVE.fetch_add(bytes, Ordering::Relaxed);
    }
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count(layout.size() as isize);
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        count(-(layout.size() as isize));
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count(new_size as isize - layout.size() as isize);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn live_mb() -> f64 {
    LIVE.load(Ordering::Relaxed) as f64 / 1e6
}

/// A deterministic stream of numbers (Knuth's MMIX LCG).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) as usize
    }

    fn below(&mut self, n: usize) -> usize {
        self.next() % n
    }
}

const WORDS: [&str; 16] = [
    "the",
    "plan",
    "review",
    "meeting",
    "notes",
    "budget",
    "draft",
    "and",
    "with",
    "for",
    "team",
    "launch",
    "quarter",
    "risk",
    "client",
    "follow-up",
];

struct Vault {
    files: Vec<String>,
    notes: Vec<(String, String)>,
}

fn note_path(i: usize) -> String {
    // Every 97th note is an `Index` of its folder: a name many notes share.
    let folder = format!("Area {}/Topic {}", i % 20, i % 400);
    if i.is_multiple_of(97) {
        format!("{folder}/Index.md")
    } else {
        format!("{folder}/Note {i}.md")
    }
}

fn generate(count: usize) -> Vault {
    let mut rng = Lcg(0x5eed);
    let mut paths: Vec<String> = (0..count).map(note_path).collect();
    paths.sort();
    paths.dedup();
    paths[0] = TARGET.to_owned();
    let attachments: Vec<String> = (0..count / 20)
        .map(|i| format!("Attachments/img {i}.png"))
        .collect();
    let linkers: std::collections::HashSet<usize> = (0..LINKERS.min(paths.len() - 1))
        .map(|i| 1 + i * (paths.len() - 1) / LINKERS)
        .collect();
    let mut notes = Vec::with_capacity(paths.len());
    for (i, path) in paths.iter().enumerate() {
        let mut text = String::with_capacity(1200);
        if i.is_multiple_of(5) {
            text.push_str("---\ntags: [work]\nrelated: \"[[Note 12]]\"\n---\n");
        }
        text.push_str("# Title\n\n");
        for paragraph in 0..4 {
            for _ in 0..30 {
                text.push_str(WORDS[rng.below(WORDS.len())]);
                text.push(' ');
            }
            let other = &paths[rng.below(paths.len())];
            let name = other.rsplit('/').next().unwrap().trim_end_matches(".md");
            match rng.below(6) {
                0 => text.push_str(&format!("[[{name}]]")),
                1 => text.push_str(&format!("[[{name}|alias]]")),
                2 => text.push_str(&format!("[[{name}#Title]]")),
                3 => text.push_str(&format!("[x](../../{})", other.replace(' ', "%20"))),
                4 => text.push_str(&format!("![[img {}.png]]", rng.below(attachments.len()))),
                _ => text.push_str("`[[not a link]]`"),
            }
            if paragraph == 2 && i.is_multiple_of(7) {
                text.push_str("\n```\n[[Code]] stays\n```\n");
            }
            text.push_str("\n\n");
        }
        if linkers.contains(&i) {
            let link = match i % 8 {
                0 => "[[Atlas]]".to_owned(),
                1 => "[[Atlas|the plan]]".to_owned(),
                2 => "[[Atlas#Goals]]".to_owned(),
                3 => "![[Atlas#Map]]".to_owned(),
                4 => "[[Projects/Atlas]]".to_owned(),
                5 => "[a](../../Projects/Atlas.md)".to_owned(),
                6 => "[a](Atlas.md \"Atlas\")".to_owned(),
                _ => "[[Atlas#^summary]]".to_owned(),
            };
            text.push_str(&format!("See {link}.\n"));
        }
        notes.push((path.clone(), text));
    }
    let mut files = paths;
    files.extend(attachments);
    Vault { files, notes }
}

fn timed<T>(runs: usize, mut f: impl FnMut() -> T) -> (Duration, T) {
    let mut times = Vec::with_capacity(runs);
    let mut last = None;
    for _ in 0..runs {
        let start = Instant::now();
        let out = f();
        times.push(start.elapsed());
        last = Some(out);
    }
    times.sort();
    (times[runs / 2], last.expect("at least one run"))
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// This process's resident memory in MB (`VmRSS`; 0 where unknown).
fn rss_mb() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            let line = s.lines().find(|l| l.starts_with("VmRSS:"))?;
            line.split_whitespace().nth(1)?.parse::<f64>().ok()
        })
        .map_or(0.0, |kb| kb / 1024.0)
}

pub fn main() {
    COUNTING.store(true, Ordering::Relaxed);
    run();
    COUNTING.store(false, Ordering::Relaxed);
}

fn run() {
    let count: usize = std::env::var("REDLINE_BENCH_NOTES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(40_000);
    let runs: usize = std::env::var("REDLINE_BENCH_RUNS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(5)
        .max(1);
    let vault = generate(count);
    let bytes: usize = vault.notes.iter().map(|(_, t)| t.len()).sum();
    println!(
        "vault: {} notes ({:.1} MB of text), {} files, {LINKERS} notes linking {TARGET}",
        vault.notes.len(),
        bytes as f64 / 1e6,
        vault.files.len()
    );
    let settings = LinkSettings::default();
    let notes = || vault.notes.iter().map(|(p, t)| (p.as_str(), t.as_str()));

    let (rss, live) = (rss_mb(), live_mb());
    let mut index = LinkIndex::build(vault.files.iter().cloned(), notes());
    let (rss, live) = (rss_mb() - rss, live_mb() - live);
    let (build, _) = timed(runs, || {
        black_box(LinkIndex::build(vault.files.iter().cloned(), notes()))
    });
    let links: usize = vault
        .notes
        .iter()
        .map(|(p, _)| index.outgoing(p).len())
        .sum();
    println!(
        "index build: {:.1} ms ({links} links); memory {live:.1} MB live, {rss:.1} MB resident",
        ms(build),
    );
    let (parsing, _) = timed(runs, || {
        vault
            .notes
            .iter()
            .map(|(_, text)| black_box(parse(text)).len())
            .sum::<usize>()
    });
    println!("  of which parsing every note: {:.1} ms", ms(parsing));
    println!("backlinks of {TARGET}: {}", index.backlinks(TARGET).len());

    let rename = [(TARGET, "Archive/Atlas 2024.md")];
    let (plan_time, plan) = timed(runs * 2, || index.plan_moves(&rename, &settings).unwrap());
    let edits: usize = plan.edits.values().map(Vec::len).sum();
    println!(
        "plan rename {TARGET} -> {}: {:.2} ms ({edits} edits in {} notes, {} skipped)",
        rename[0].1,
        ms(plan_time),
        plan.edits.len(),
        plan.skipped.len()
    );

    let taken = [(TARGET, "Projects/Index.md")];
    let (taken_time, taken_plan) = timed(runs * 2, || index.plan_moves(&taken, &settings).unwrap());
    println!(
        "plan rename into a name 400 notes share: {:.2} ms ({} notes edited)",
        ms(taken_time),
        taken_plan.edits.len()
    );

    let folder = index.folder_moves("Area 3/Topic 3", "Archive/Topic 3");
    let (folder_time, folder_plan) =
        timed(runs * 2, || index.plan_moves(&folder, &settings).unwrap());
    println!(
        "plan folder move of {} notes: {:.2} ms ({} notes edited)",
        folder.len(),
        ms(folder_time),
        folder_plan.edits.len()
    );

    let (path, text) = &vault.notes[vault.notes.len() / 2];
    let changed = format!("{text}\nNow also [[Atlas]] and [[Note 77|seventy-seven]].\n");
    let (upsert, _) = timed(runs * 20, || {
        index.upsert(path, &changed);
        index.upsert(path, text);
    });
    println!(
        "apply one note's new text to the index: {:.3} ms",
        ms(upsert) / 2.0
    );

    let start = Instant::now();
    index.move_files(&rename).unwrap();
    for (path, text) in &vault.notes {
        if let Some(edits) = plan.edits.get(path) {
            let now = if path == TARGET { rename[0].1 } else { path };
            index.upsert(now, &apply_edits(text, edits));
        }
    }
    let applied = start.elapsed();
    println!(
        "apply the whole rename to the index (move + {} notes): {:.1} ms; dangling links to it after: {}",
        plan.edits.len(),
        ms(applied),
        index
            .dangling()
            .iter()
            .filter(|d| d.link.link.path().contains("Atlas"))
            .count()
    );
}
