//! The vault's links, kept resolved: each note's outgoing links, each
//! file's backlinks, and for each name the notes whose links use it.
//!
//! A file arriving or leaving can only change what links with its
//! [key](paths::key) point at, so every change re-resolves those links and
//! no others: a note renamed costs its own links and those using its old
//! and new names, never a rescan of the vault.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::Arc;

use super::parse::{Link, parse};
use super::paths;
use super::resolve::{FileSet, Resolution, Vault, Via, candidates, resolve};
use super::rewrite::{
    self, MoveError, Plan, SkipReason, Skipped, TextEdit, ambiguous_among, rename_heading, retarget,
};
use super::settings::LinkSettings;

/// A link of a note, with what it points at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Resolved {
    /// The link as written.
    pub link: Link,
    /// What it points at in the vault as the index has it.
    pub resolution: Resolution,
    via: Via,
}

impl Resolved {
    /// The key of its target's name; `None` for a same-note link. Worked
    /// out when needed rather than kept: most links are never asked.
    fn key(&self) -> Option<String> {
        let path = self.link.path();
        (!path.is_empty()).then(|| paths::key(&path))
    }
}

/// A link and the note it is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LinkAt<'a> {
    /// The note's path.
    pub source: &'a str,
    /// The link, resolved.
    pub link: &'a Resolved,
}

/// The notes holding links of one kind, sorted: a sorted `Vec` is a
/// fraction of a `BTreeSet`'s memory for the one or two notes most names
/// have, and the paths are shared with the index's own.
type Sources = Vec<Arc<str>>;

/// The links of a vault, resolved and kept so as files change. Build it
/// once with [`LinkIndex::build`], then tell it each change: a note's text
/// ([`upsert`](LinkIndex::upsert)), a file added, removed or moved.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LinkIndex {
    vault: Vault,
    /// Each note's links, in document order.
    notes: HashMap<Arc<str>, Vec<Resolved>>,
    /// File → the notes with a link resolving to it.
    backlinks: HashMap<String, Sources>,
    /// Name key → the notes with a link using that name.
    by_key: HashMap<String, Sources>,
}

impl LinkIndex {
    /// The index of a vault: `files` is every file (attachments too),
    /// `notes` the path and text of each note whose links count (a note's
    /// path counts as a file even when missing from `files`).
    pub fn build<F, N, P, T>(files: F, notes: N) -> LinkIndex
    where
        F: IntoIterator,
        F::Item: Into<String>,
        N: IntoIterator<Item = (P, T)>,
        P: Into<String>,
        T: AsRef<str>,
    {
        let mut index = LinkIndex {
            vault: Vault::new(files),
            ..LinkIndex::default()
        };
        let parsed: Vec<(String, Vec<Link>)> = notes
            .into_iter()
            .map(|(path, text)| (path.into(), parse(text.as_ref())))
            .collect();
        for (path, _) in &parsed {
            index.vault.insert(path.clone());
        }
        for (path, links) in parsed {
            let resolved = index.resolve_all(&path, links);
            index.register(path.into(), resolved);
        }
        index
    }

    /// The files of the vault.
    pub fn vault(&self) -> &Vault {
        &self.vault
    }

    /// The links of the note at `path`, in document order (none when it is
    /// not a note of the index).
    pub fn outgoing(&self, path: &str) -> &[Resolved] {
        self.notes.get(path).map_or(&[], Vec::as_slice)
    }

    /// The links resolving to `path`, by note, each note's in order.
    pub fn backlinks(&self, path: &str) -> Vec<LinkAt<'_>> {
        let mut out = Vec::new();
        for source in self.backlinks.get(path).into_iter().flatten() {
            out.extend(
                self.outgoing(source)
                    .iter()
                    .filter(|r| r.resolution.file() == Some(path))
                    .map(|link| LinkAt {
                        source: source.as_ref(),
                        link,
                    }),
            );
        }
        out
    }

    /// The links of the note at `path` that point at nothing.
    pub fn dangling_in(&self, path: &str) -> impl Iterator<Item = &Resolved> {
        self.outgoing(path)
            .iter()
            .filter(|r| r.resolution.is_dangling())
    }

    /// Every link of the vault that points at nothing (a missing note, or
    /// outside the vault), by note path.
    pub fn dangling(&self) -> Vec<LinkAt<'_>> {
        self.all(|r| r.resolution.is_dangling())
    }

    /// Every link of the vault that several files answer to, by note path.
    pub fn ambiguous(&self) -> Vec<LinkAt<'_>> {
        self.all(|r| matches!(r.resolution, Resolution::Ambiguous(_)))
    }

    fn all(&self, keep: impl Fn(&Resolved) -> bool) -> Vec<LinkAt<'_>> {
        let mut notes: Vec<(&Arc<str>, &Vec<Resolved>)> = self.notes.iter().collect();
        notes.sort_unstable_by_key(|(source, _)| *source);
        notes
            .into_iter()
            .flat_map(|(source, links)| {
                links.iter().filter(|r| keep(r)).map(move |link| LinkAt {
                    source: source.as_ref(),
                    link,
                })
            })
            .collect()
    }

    /// What `link`, written in the note at `source`, points at.
    pub fn resolve(&self, link: &Link, source: &str) -> Resolution {
        self.vault.resolve(link, source)
    }

    /// The files `link`, written in the note at `source`, may mean (see
    /// [`Vault::candidates`]): what an ambiguous link is ambiguous between.
    pub fn candidates(&self, link: &Link, source: &str) -> Vec<String> {
        self.vault.candidates(link, source)
    }

    /// The text of a new link to `file` from the note at `source`, written
    /// as the vault's `settings` say (wikilink or Markdown; its name when
    /// that is unique, else qualified by `newLinkFormat`), with `display` as
    /// its alias or text; `None` when `file` is not in the vault.
    pub fn new_link(
        &self,
        file: &str,
        source: &str,
        settings: &LinkSettings,
        display: Option<&str>,
    ) -> Option<String> {
        if !self.vault.contains(file) {
            return None;
        }
        rewrite::new_link(file, source, settings, display, &self.vault)
    }

    /// Sets the text of the note at `path`, adding the note (and the file)
    /// when new.
    pub fn upsert(&mut self, path: &str, text: &str) {
        let arrived = self.vault.insert(path.to_owned());
        self.unregister(path);
        let resolved = self.resolve_all(path, parse(text));
        self.register(path.into(), resolved);
        if arrived {
            self.refresh(&HashSet::from([paths::key(path)]));
        }
    }

    /// Adds a file with no links of its own (an attachment); `false` when
    /// it was there already.
    pub fn add_file(&mut self, path: &str) -> bool {
        let arrived = self.vault.insert(path.to_owned());
        if arrived {
            self.refresh(&HashSet::from([paths::key(path)]));
        }
        arrived
    }

    /// Removes the file at `path`, and its links when it is a note; `false`
    /// when it was not there. Links to it become dangling, or resolve to
    /// the file their name now means.
    pub fn remove(&mut self, path: &str) -> bool {
        if !self.vault.remove(path) {
            return false;
        }
        self.unregister(path);
        self.refresh(&HashSet::from([paths::key(path)]));
        true
    }

    /// Moves files (`(from, to)`, all at once), their links along; the
    /// texts do not change, so links the move breaks point at nothing
    /// until the planned edits are applied and [upserted](Self::upsert).
    pub fn move_files<S: AsRef<str>>(&mut self, moves: &[(S, S)]) -> Result<(), MoveError> {
        let moves = self.checked(moves)?;
        for &from in moves.keys() {
            self.vault.remove(from);
        }
        for &to in moves.values() {
            self.vault.insert(to.to_owned());
        }
        let mut keys = HashSet::new();
        let mut carried = Vec::new();
        for (&from, &to) in &moves {
            keys.insert(paths::key(from));
            keys.insert(paths::key(to));
            if let Some(links) = self.unregister(from) {
                carried.push((to, links));
            }
        }
        for (to, links) in carried {
            let links = links.into_iter().map(|r| r.link).collect();
            let resolved = self.resolve_all(to, links);
            self.register(to.into(), resolved);
        }
        self.refresh(&keys);
        Ok(())
    }

    /// The moves that move the folder `from` to `to`: one for each file
    /// under it, in path order.
    pub fn folder_moves(&self, from: &str, to: &str) -> Vec<(String, String)> {
        let from = from.trim_end_matches('/');
        let to = to.trim_end_matches('/');
        let mut moves: Vec<(String, String)> = self
            .vault
            .files()
            .filter_map(|file| {
                let rest = file.strip_prefix(from)?.strip_prefix('/')?;
                Some((file.to_owned(), format!("{to}/{rest}")))
            })
            .collect();
        moves.sort();
        moves
    }

    /// The edits that keep every link pointing where it did once `moves`
    /// (`(from, to)`, applied together) are made: links to a moved file,
    /// relative links in a moved note, and links whose name a moved file
    /// would make ambiguous or take over. Links several files answer to,
    /// one of them moving, are left alone and reported.
    pub fn plan_moves<S: AsRef<str>>(
        &self,
        moves: &[(S, S)],
        settings: &LinkSettings,
    ) -> Result<Plan, MoveError> {
        let moves = self.checked(moves)?;
        let after = Moved::new(&self.vault, &moves);
        let keys: HashSet<String> = moves
            .iter()
            .flat_map(|(from, to)| [paths::key(from), paths::key(to)])
            .collect();
        let mut sources: BTreeSet<&str> = moves
            .keys()
            .copied()
            .filter(|from| self.notes.contains_key(*from))
            .collect();
        for key in &keys {
            sources.extend(
                self.by_key
                    .get(key)
                    .into_iter()
                    .flatten()
                    .map(AsRef::as_ref),
            );
        }
        // What ambiguous links are ambiguous between, worked out once for
        // the many links of a name hundreds of notes share.
        let mut listed: HashMap<(String, bool, &str), Vec<String>> = HashMap::new();
        let mut plan = Plan::default();
        for source in sources {
            let moved = moves.get(source).copied();
            let now = moved.unwrap_or(source);
            for r in &self.notes[source] {
                let key = r.key();
                let concerned = moved.is_some() || key.as_ref().is_some_and(|k| keys.contains(k));
                if !concerned {
                    continue;
                }
                if let Resolution::Ambiguous(_) = r.resolution {
                    // Only a file that leaves can be one of those it may mean.
                    if key.is_some_and(|k| after.departed_keys.contains(&k)) {
                        let path = r.link.path();
                        let relative = !r.link.is_wiki() && !path.starts_with('/')
                            || path.starts_with("./")
                            || path.starts_with("../");
                        let context = if relative { paths::folder(source) } else { "" };
                        let among = listed
                            .entry((path.into_owned(), r.link.is_wiki(), context))
                            .or_insert_with(|| candidates(&self.vault, &r.link, source));
                        if let Some(reason) = ambiguous_among(among, |c| moves.contains_key(c)) {
                            plan.skip(source, &r.link, reason);
                        }
                    }
                    continue;
                }
                let Some(target) = r.resolution.file() else {
                    continue;
                };
                let target_now = moves.get(target).copied().unwrap_or(target);
                // A relative link must still be found from its folder, not
                // by the vault-wide fallback that happens to reach its file.
                let (found, via) = resolve(&after, &r.link, now);
                if found.file() == Some(target_now) && (via == r.via || r.via != Via::Relative) {
                    continue;
                }
                match retarget(&r.link, r.via, target, target_now, now, &after, settings) {
                    Some(link) => plan.edit(source, &r.link, link.render()),
                    None => plan.skip(source, &r.link, SkipReason::Unwritable),
                }
            }
        }
        Ok(plan)
    }

    /// The edits that rename heading `old` of the note at `note` to `new` in
    /// the links to it (`[[Note#Old]]`, `[x](Note.md#Old)`, and `[[#Old]]`
    /// in the note itself). Links several files answer to, `note` among
    /// them, are left alone and reported.
    pub fn plan_heading_rename(&self, note: &str, old: &str, new: &str) -> Plan {
        // Its backlinks, and the ambiguous links its name may be meant by.
        let key = paths::key(note);
        let sources: BTreeSet<&str> = self
            .backlinks
            .get(note)
            .into_iter()
            .chain(self.by_key.get(&key))
            .flatten()
            .map(AsRef::as_ref)
            .collect();
        let mut plan = Plan::default();
        for source in sources {
            for r in &self.notes[source] {
                let Some(renamed) = rename_heading(&r.link, old, new) else {
                    continue;
                };
                match &r.resolution {
                    Resolution::File(file) if file == note => {
                        plan.edit(source, &r.link, renamed.render());
                    }
                    Resolution::Ambiguous(_) => {
                        let among = candidates(&self.vault, &r.link, source);
                        if let Some(reason) = ambiguous_among(&among, |c| c == note) {
                            plan.skip(source, &r.link, reason);
                        }
                    }
                    _ => {}
                }
            }
        }
        plan
    }

    /// `moves` as a map, once checked against the vault.
    fn checked<'m, S: AsRef<str>>(
        &self,
        moves: &'m [(S, S)],
    ) -> Result<HashMap<&'m str, &'m str>, MoveError> {
        let mut map = HashMap::with_capacity(moves.len());
        let mut targets = HashSet::with_capacity(moves.len());
        for (from, to) in moves {
            let (from, to) = (from.as_ref(), to.as_ref());
            if !self.vault.contains(from) {
                return Err(MoveError::Missing(from.to_owned()));
            }
            let valid =
                !to.is_empty() && to.split('/').all(|part| !matches!(part, "" | "." | ".."));
            if !valid {
                return Err(MoveError::Invalid(to.to_owned()));
            }
            if map.insert(from, to).is_some() {
                return Err(MoveError::Twice(from.to_owned()));
            }
            if !targets.insert(to) {
                return Err(MoveError::Twice(to.to_owned()));
            }
        }
        for &to in &targets {
            if self.vault.contains(to) && !map.contains_key(to) {
                return Err(MoveError::Taken(to.to_owned()));
            }
        }
        map.retain(|from, to| from != to);
        Ok(map)
    }

    fn resolve_all(&self, source: &str, links: Vec<Link>) -> Vec<Resolved> {
        links
            .into_iter()
            .map(|link| {
                let (resolution, via) = resolve(&self.vault, &link, source);
                Resolved {
                    link,
                    resolution,
                    via,
                }
            })
            .collect()
    }

    /// Records the links of the note at `path` in the maps.
    fn register(&mut self, path: Arc<str>, links: Vec<Resolved>) {
        let (keys, files) = names_of(&links);
        for key in keys {
            add(&mut self.by_key, &key, &path);
        }
        for file in files {
            add(&mut self.backlinks, file, &path);
        }
        self.notes.insert(path, links);
    }

    /// Takes the links of the note at `path` out of the maps.
    fn unregister(&mut self, path: &str) -> Option<Vec<Resolved>> {
        let links = self.notes.remove(path)?;
        let (keys, files) = names_of(&links);
        for key in keys {
            take(&mut self.by_key, &key, path);
        }
        for file in files {
            take(&mut self.backlinks, file, path);
        }
        Some(links)
    }

    /// Resolves again the links using one of `keys`, after files with those
    /// keys arrived or left.
    fn refresh(&mut self, keys: &HashSet<String>) {
        let sources: BTreeSet<Arc<str>> = keys
            .iter()
            .flat_map(|key| self.by_key.get(key).into_iter().flatten().cloned())
            .collect();
        for source in sources {
            let Some(mut links) = self.unregister(&source) else {
                continue;
            };
            for r in &mut links {
                if r.key().is_some_and(|k| keys.contains(&k)) {
                    (r.resolution, r.via) = resolve(&self.vault, &r.link, &source);
                }
            }
            self.register(source, links);
        }
    }
}

/// The keys and the files `links` use, each once.
fn names_of(links: &[Resolved]) -> (Vec<String>, Vec<&str>) {
    let mut keys: Vec<String> = links.iter().filter_map(Resolved::key).collect();
    let mut files: Vec<&str> = links.iter().filter_map(|r| r.resolution.file()).collect();
    keys.sort_unstable();
    keys.dedup();
    files.sort_unstable();
    files.dedup();
    (keys, files)
}

fn add(map: &mut HashMap<String, Sources>, key: &str, path: &Arc<str>) {
    match map.get_mut(key) {
        // Built in path order, a set mostly grows at its end.
        Some(sources) if sources.last().is_none_or(|last| last < path) => {
            sources.push(path.clone());
        }
        Some(sources) => {
            if let Err(at) = sources.binary_search(path) {
                sources.insert(at, path.clone());
            }
        }
        None => {
            map.insert(key.to_owned(), vec![path.clone()]);
        }
    }
}

fn take(map: &mut HashMap<String, Sources>, key: &str, path: &str) {
    if let Some(sources) = map.get_mut(key) {
        if let Ok(at) = sources.binary_search_by(|s| s.as_ref().cmp(path)) {
            sources.remove(at);
        }
        if sources.is_empty() {
            map.remove(key);
        }
    }
}

impl Plan {
    fn edit(&mut self, source: &str, link: &Link, text: String) {
        if text == link.render() {
            return;
        }
        let edits = self.edits.entry(source.to_owned()).or_default();
        edits.push(TextEdit {
            range: link.span.clone(),
            text,
        });
    }

    fn skip(&mut self, source: &str, link: &Link, reason: SkipReason) {
        self.skipped.push(Skipped {
            source: source.to_owned(),
            span: link.span.clone(),
            reason,
        });
    }
}

/// The vault as it will be once moves are made, without copying it.
struct Moved<'a> {
    before: &'a Vault,
    moves: &'a HashMap<&'a str, &'a str>,
    arrived: HashSet<&'a str>,
    arrived_by_key: HashMap<String, Vec<&'a str>>,
    /// The keys of the files that leave: only files with one of them need
    /// checking against the moves.
    departed_keys: HashSet<String>,
}

impl<'a> Moved<'a> {
    fn new(before: &'a Vault, moves: &'a HashMap<&'a str, &'a str>) -> Moved<'a> {
        let mut arrived_by_key: HashMap<String, Vec<&str>> = HashMap::new();
        for &to in moves.values() {
            arrived_by_key.entry(paths::key(to)).or_default().push(to);
        }
        Moved {
            before,
            moves,
            arrived: moves.values().copied().collect(),
            arrived_by_key,
            departed_keys: moves.keys().map(|from| paths::key(from)).collect(),
        }
    }
}

impl FileSet for Moved<'_> {
    fn contains(&self, path: &str) -> bool {
        self.arrived.contains(path)
            || (self.before.contains(path) && !self.moves.contains_key(path))
    }

    fn each_with_key(&self, key: &str, f: &mut dyn FnMut(&str)) {
        if self.departed_keys.contains(key) {
            self.before.each_with_key(key, &mut |path| {
                if !self.moves.contains_key(path) {
                    f(path);
                }
            });
        } else {
            self.before.each_with_key(key, f);
        }
        for path in self.arrived_by_key.get(key).into_iter().flatten() {
            f(path);
        }
    }
}
