//! The search behind [`maximum_matching`](super::maximum_matching): Kuhn's augmenting paths,
//! left items in order and right items in order, with left items that have the same
//! neighbours sharing one set of them.
//!
//! The result is exactly that of the plain search over one adjacency list per left item
//! (the reference kept in `tests/it/reference.rs`). That search tries a left item's
//! neighbours in order and skips those already visited in the current search, so the next
//! one it tries is always its first unvisited neighbour: the entries before its place in
//! the list were all visited when it passed them, and visits are not undone within a
//! search. Here the neighbours are a bit set, and each set keeps, for the current search, a
//! cursor past the words that hold no unvisited neighbour, so finding the next one does not
//! rescan them. With one tool expected many times and called many times, every left item
//! has the same neighbours and the plain search rescans the whole list at every step of a
//! long augmenting path: cubic, where this is quadratic.

use std::collections::BTreeMap;

/// No left item: a right item nobody holds.
const NOBODY: usize = usize::MAX;

const BITS: usize = u64::BITS as usize;

/// For each left item, the right item it is paired with (see
/// [`maximum_matching`](super::maximum_matching)).
pub(super) fn first_maximum_matching(
    left: usize,
    right: usize,
    mut edge: impl FnMut(usize, usize) -> bool,
) -> Vec<Option<usize>> {
    let words = right.div_ceil(BITS);
    let mut ids: BTreeMap<Vec<u64>, usize> = BTreeMap::new();
    let mut set_of = Vec::with_capacity(left);
    for l in 0..left {
        let mut neighbours = vec![0_u64; words];
        for r in (0..right).filter(|&r| edge(l, r)) {
            neighbours[r / BITS] |= 1 << (r % BITS);
        }
        let next = ids.len();
        set_of.push(*ids.entry(neighbours).or_insert(next));
    }
    let mut sets: Vec<Neighbours> = (0..ids.len()).map(|_| Neighbours::default()).collect();
    for (words, id) in ids {
        sets[id] = Neighbours::new(words);
    }
    let mut left_match = vec![None; left];
    let mut holder = vec![NOBODY; right];
    let mut visited = vec![0_u64; words];
    // What to reset after each search: the right items visited and the sets whose cursor
    // moved.
    let mut visits: Vec<usize> = Vec::new();
    let mut moved: Vec<usize> = Vec::new();
    for start in 0..left {
        // The left items of the path being explored, and the right items joining them.
        let mut frames: Vec<usize> = vec![start];
        let mut path: Vec<usize> = Vec::new();
        while let Some(&l) = frames.last() {
            moved.push(set_of[l]);
            let Some(r) = sets[set_of[l]].first_unvisited(&visited) else {
                frames.pop();
                path.pop();
                continue;
            };
            visited[r / BITS] |= 1 << (r % BITS);
            visits.push(r);
            path.push(r);
            if holder[r] == NOBODY {
                // A free right item ends the path: shift every left item on it along.
                for (&l, &r) in frames.iter().zip(&path) {
                    holder[r] = l;
                    left_match[l] = Some(r);
                }
                break;
            }
            frames.push(holder[r]);
        }
        for r in visits.drain(..) {
            visited[r / BITS] = 0;
        }
        for set in moved.drain(..) {
            sets[set].rewind();
        }
    }
    left_match
}

/// One distinct set of neighbours, and where its first unvisited one may be in this search.
#[derive(Default)]
struct Neighbours {
    words: Vec<u64>,
    /// The first word holding a neighbour.
    first: usize,
    /// No word before this one holds a neighbour not visited in this search.
    cursor: usize,
}

impl Neighbours {
    fn new(words: Vec<u64>) -> Self {
        let first = words
            .iter()
            .position(|&word| word != 0)
            .unwrap_or(words.len());
        Self {
            words,
            first,
            cursor: first,
        }
    }

    /// The first neighbour not visited in this search, if any.
    fn first_unvisited(&mut self, visited: &[u64]) -> Option<usize> {
        while let Some(&word) = self.words.get(self.cursor) {
            let unvisited = word & !visited[self.cursor];
            if unvisited != 0 {
                return Some(self.cursor * BITS + unvisited.trailing_zeros() as usize);
            }
            self.cursor += 1;
        }
        None
    }

    /// Forgets the visits of the search that ended.
    fn rewind(&mut self) {
        self.cursor = self.first;
    }
}
