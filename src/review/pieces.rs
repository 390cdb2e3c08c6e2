//! A file under review as a sequence of pieces, each inserted by one change
//! and possibly deleted by others (after Zed's `text` crate: fragments with
//! their insertion and deletions).
//!
//! A piece is visible when the change that inserted it counts, none of the
//! changes that deleted it counts, and the change it was typed inside (if
//! any) counts. Which changes count is the caller's: the working buffer
//! counts every change not rejected, the disk every accepted one. So the
//! text for any set of decisions is a function of that set alone, whatever
//! order the decisions came in.
//!
//! Rules for where new text goes, each fixed so the sequence is the same
//! whatever happens later:
//! - Where an insertion lands among the invisible pieces at its point (text
//!   deleted there) follows the lines: one that ends a line (whole lines
//!   added) goes before them, just after the line end it was typed after;
//!   anything else goes after them, onto the visible text it was typed
//!   against. So whatever is decided about the deleted text, a line added
//!   stays a line and a word typed at a line's start stays on that line.
//!   A replacement reads as its deleted text, then its new text.
//! - An insertion strictly inside text that one agent change owns (its
//!   visible neighbours on both sides are that change's) is *within* it:
//!   it shows only while that change counts. A piece's owner is the agent
//!   change that inserted it, else the change it was typed within.

use std::sync::Arc;

use ropey::Rope;

/// The change that inserted the file's text before any run.
pub(crate) const BASE: u32 = u32::MAX;

/// One run of text and the changes that put it there and took it out.
#[derive(Clone, Debug)]
pub(crate) struct Piece {
    text: Arc<str>,
    start: usize,
    end: usize,
    /// The change that inserted it ([`BASE`] for the base text).
    pub ins: u32,
    /// The changes that deleted it.
    pub del: Vec<u32>,
    /// The agent change it was typed inside, if any.
    pub within: Option<u32>,
}

impl Piece {
    /// A piece of the whole of `text`.
    pub fn new(text: &str, ins: u32, del: Vec<u32>, within: Option<u32>) -> Piece {
        Piece {
            end: text.len(),
            text: Arc::from(text),
            start: 0,
            ins,
            del,
            within,
        }
    }

    /// Its text.
    pub fn text(&self) -> &str {
        &self.text[self.start..self.end]
    }

    /// Its length in bytes.
    pub fn len(&self) -> usize {
        self.end - self.start
    }

    /// Whether it shows when the changes `counts` says count do.
    pub fn visible(&self, counts: &impl Fn(u32) -> bool) -> bool {
        counts(self.ins) && !self.del.iter().any(|&d| counts(d)) && self.within.is_none_or(counts)
    }

    /// The agent change whose text it is: the one that inserted it, or the
    /// one it was typed within.
    pub fn owner(&self, is_agent: &impl Fn(u32) -> bool) -> Option<u32> {
        if self.ins != BASE && is_agent(self.ins) {
            Some(self.ins)
        } else {
            self.within
        }
    }

    /// Cuts it in two at byte `at` of its text.
    fn split(mut self, at: usize) -> (Piece, Piece) {
        let mut right = self.clone();
        right.start = self.start + at;
        self.end = self.start + at;
        (self, right)
    }
}

/// One change to the visible text: at byte `at`, `del` bytes deleted and
/// `ins` inserted, by change `who`.
#[derive(Clone, Debug)]
pub(crate) struct Op {
    /// Where, in the visible text before any op of the batch.
    pub at: usize,
    /// How many visible bytes it deletes.
    pub del: usize,
    /// What it inserts.
    pub ins: String,
    /// The change making it.
    pub who: u32,
}

/// Applies `ops` (sorted by `at`, not overlapping) to `pieces` in one pass.
/// `counts` says which changes count in the visible text the ops are
/// positioned in; it must count every `who` of the batch.
pub(crate) fn apply(
    pieces: Vec<Piece>,
    ops: &[Op],
    counts: &impl Fn(u32) -> bool,
    is_agent: &impl Fn(u32) -> bool,
) -> Vec<Piece> {
    let mut out = Vec::with_capacity(pieces.len() + ops.len() * 3);
    let mut rest = pieces.into_iter();
    let mut cur = rest.next();
    // Where `cur` starts in the visible text before the batch, and the owner
    // of the last visible piece passed.
    let mut vis = 0;
    let mut left_owner: Option<Option<u32>> = None;
    for op in ops {
        debug_assert!(op.at >= vis, "ops are sorted");
        // Up to the op: a piece that straddles it is cut; the invisible
        // pieces at its very point are not passed.
        while let Some(p) = cur.take() {
            if !p.visible(counts) {
                if vis == op.at {
                    cur = Some(p);
                    break;
                }
                out.push(p);
            } else if vis + p.len() <= op.at {
                vis += p.len();
                left_owner = Some(p.owner(is_agent));
                out.push(p);
            } else if vis < op.at {
                let (l, r) = p.split(op.at - vis);
                vis = op.at;
                left_owner = Some(l.owner(is_agent));
                out.push(l);
                cur = Some(r);
                break;
            } else {
                cur = Some(p);
                break;
            }
            cur = rest.next();
        }
        // The deleted text stays where it is, marked.
        let mut left = op.del;
        while left > 0 {
            let Some(mut p) = cur.take() else {
                debug_assert!(false, "an op deletes past the end");
                break;
            };
            if !p.visible(counts) {
                out.push(p);
                cur = rest.next();
                continue;
            }
            if p.len() > left {
                let (l, r) = p.split(left);
                p = l;
                cur = Some(r);
            } else {
                cur = rest.next();
            }
            left -= p.len();
            p.del.push(op.who);
            out.push(p);
        }
        // `vis` counts in the text before the batch, where this was visible.
        vis += op.del;
        if op.ins.is_empty() {
            continue;
        }
        // Lines go before the invisible text at their point (after the line
        // end before them), and so does a replacement, beside the text it
        // took out: the text another change took out there (its own
        // replacement's old words) is not this change's to sit inside, and
        // comes back whole when that change is rejected. A bare insertion
        // goes after it, onto the visible text it was typed against.
        if !op.ins.ends_with('\n') && op.del == 0 {
            while let Some(p) = cur.take() {
                if p.visible(counts) {
                    cur = Some(p);
                    break;
                }
                out.push(p);
                cur = rest.next();
            }
        }
        let right_owner = cur
            .iter()
            .chain(rest.as_slice())
            .find(|p| p.visible(counts))
            .map(|p| p.owner(is_agent));
        let within = match (left_owner, right_owner) {
            (Some(Some(l)), Some(Some(r))) if l == r && l != op.who => Some(l),
            _ => None,
        };
        let piece = Piece::new(&op.ins, op.who, Vec::new(), within);
        left_owner = Some(piece.owner(is_agent));
        out.push(piece);
    }
    out.extend(cur);
    out.extend(rest);
    out
}

/// The visible text of `pieces`.
pub(crate) fn render(pieces: &[Piece], counts: &impl Fn(u32) -> bool) -> String {
    let mut out = String::new();
    for p in pieces.iter().filter(|p| p.visible(counts)) {
        out.push_str(p.text());
    }
    out
}

/// Moves `rope` (the visible text under `before`) to the visible text under
/// `after`, piece by piece.
pub(crate) fn flip(
    pieces: &[Piece],
    rope: &mut Rope,
    before: &impl Fn(u32) -> bool,
    after: &impl Fn(u32) -> bool,
) {
    let mut at = 0;
    for p in pieces {
        match (p.visible(before), p.visible(after)) {
            (true, false) => {
                let start = rope.byte_to_char(at);
                let end = rope.byte_to_char(at + p.len());
                rope.remove(start..end);
            }
            (false, true) => {
                rope.insert(rope.byte_to_char(at), p.text());
                at += p.len();
            }
            (true, true) => at += p.len(),
            (false, false) => {}
        }
    }
}

/// The text of the pieces in storage form: every piece's text end to end,
/// invisible ones included, and each piece's length and changes.
pub(crate) fn texts(pieces: &[Piece]) -> String {
    let mut out = String::with_capacity(pieces.iter().map(Piece::len).sum());
    for p in pieces {
        out.push_str(p.text());
    }
    out
}

/// Cuts `text` (as [`texts`] wrote it) back into pieces of the given lengths
/// and changes; `None` when they do not add up or cut inside a character.
pub(crate) fn from_texts(
    text: &str,
    parts: impl IntoIterator<Item = (usize, u32, Vec<u32>, Option<u32>)>,
) -> Option<Vec<Piece>> {
    let whole: Arc<str> = Arc::from(text);
    let mut at = 0;
    let mut out = Vec::new();
    for (len, ins, del, within) in parts {
        let end = at + len;
        if end > whole.len() || !whole.is_char_boundary(end) {
            return None;
        }
        out.push(Piece {
            text: whole.clone(),
            start: at,
            end,
            ins,
            del,
            within,
        });
        at = end;
    }
    (at == whole.len()).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(_: u32) -> bool {
        true
    }

    fn agents(c: u32) -> bool {
        c != BASE && c < 100
    }

    #[test]
    fn a_replacement_keeps_the_old_text_invisible_before_the_new() {
        let base = vec![Piece::new("Atlas 2.0 ships\n", BASE, vec![], None)];
        let ops = [Op {
            at: 0,
            del: 5,
            ins: "Meridian".into(),
            who: 0,
        }];
        let pieces = apply(base, &ops, &all, &agents);
        assert_eq!(render(&pieces, &all), "Meridian 2.0 ships\n");
        assert_eq!(render(&pieces, &|c| c != 0), "Atlas 2.0 ships\n");
        let texts: Vec<&str> = pieces.iter().map(Piece::text).collect();
        assert_eq!(texts, ["Atlas", "Meridian", " 2.0 ships\n"]);
        // Typed inside the new word: within change 0; at its edge: not.
        let ops = [
            Op {
                at: 4,
                del: 0,
                ins: "-".into(),
                who: 100,
            },
            Op {
                at: 8,
                del: 0,
                ins: "!".into(),
                who: 101,
            },
        ];
        let pieces = apply(pieces, &ops, &all, &agents);
        assert_eq!(render(&pieces, &all), "Meri-dian! 2.0 ships\n");
        assert_eq!(render(&pieces, &|c| c != 0), "Atlas! 2.0 ships\n");
    }

    #[test]
    fn the_rope_follows_a_flip_and_stored_pieces_come_back() {
        let base = vec![Piece::new("one two three\n", BASE, vec![], None)];
        let ops = [
            Op {
                at: 0,
                del: 3,
                ins: "1".into(),
                who: 0,
            },
            Op {
                at: 8,
                del: 5,
                ins: "3é".into(),
                who: 1,
            },
        ];
        let pieces = apply(base, &ops, &all, &agents);
        let mut rope = Rope::from_str(&render(&pieces, &all));
        let without_1 = |c: u32| c != 1;
        flip(&pieces, &mut rope, &all, &without_1);
        assert_eq!(rope.to_string(), "1 two three\n");
        flip(&pieces, &mut rope, &without_1, &|c| c == BASE);
        assert_eq!(rope.to_string(), "one two three\n");
        let parts = pieces
            .iter()
            .map(|p| (p.len(), p.ins, p.del.clone(), p.within));
        let back = from_texts(&texts(&pieces), parts).unwrap();
        assert_eq!(render(&back, &all), render(&pieces, &all));
        assert!(from_texts("ab", [(1, BASE, vec![], None)]).is_none());
    }
}
