//! Text people write, for every generator of test data: the vault
//! generator, the reference model, the property tests and the fuzz targets
//! draw from here so that none of them writes only ASCII.
//!
//! Each sample is a real-looking phrase or name in one script or with one
//! trap: accented Latin, a decomposed accent (NFD), German `ß`, Greek with
//! a final sigma, Cyrillic, CJK, Arabic and Hebrew (right to left),
//! Bengali with a conjunct, emoji with a ZWJ sequence and a flag, a
//! no-break space, typographic quotes and dashes.

/// Phrases for prose, front matter values and headings.
pub const PHRASES: &[&str] = &[
    "Café au lait, déjà vu",
    "Cafe\u{301} decomposed",
    "Grüße aus München: Straße",
    "Σοφία και λόγος",
    "Привет, мир — заметка",
    "日本語のメモ：会議は金曜日",
    "中文笔记与计划",
    "한국어 회의록",
    "مرحبا بالعالم، ملاحظة",
    "שלום עולם, פגישה",
    "বাংলা নোট: ক্ষমা",
    "Launch day 🚀 and ☕",
    "Family 👩\u{200d}👩\u{200d}👧 in 🇵🇹",
    "Q3\u{a0}plan – “draft” ‘v2’",
    "naïve coöperation, Zoë",
];

/// Names for notes, folders, tags and aliases: no `/ \ : # ^ | [ ]`, which
/// a note's name cannot hold in a vault.
pub const NAMES: &[&str] = &[
    "Café",
    "Cafe\u{301} Noir",
    "Straße",
    "Σοφία",
    "Заметка",
    "日本語",
    "会議メモ",
    "مشروع",
    "פגישה",
    "বাংলা",
    "Idées 🚀",
    "Q3\u{a0}Plan",
    "“Draft” notes",
    "Zoë’s list",
];

/// The `n`th name, in turn.
pub fn name(n: usize) -> &'static str {
    NAMES[n % NAMES.len()]
}

/// The `n`th phrase, in turn.
pub fn phrase(n: usize) -> &'static str {
    PHRASES[n % PHRASES.len()]
}
