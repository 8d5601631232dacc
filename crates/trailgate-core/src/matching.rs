//! Plain algorithms over expected and actual lists: the maximum matching, the longest common
//! subsequence, and the pairing of expected calls with actual ones.
//!
//! Each takes the lists as slices and the relation between their items as a closure, so the
//! caller decides what "matches" and "equal" mean (tool identity, argument equality). The
//! matching and the pairing grow faster than the lists; [`check_pairing_size`] says whether
//! two lengths are within the limits trailgate sets for them.

use crate::percent::Percent;

mod assignment;
mod multiset;

/// A maximum matching between `left` items (tried in order) and `right` items (tried in
/// order), where `edge(l, r)` says whether they may be paired. For each left item, the
/// right item it is paired with.
///
/// Kuhn's augmenting paths with left items in order and right items in order: among the
/// maximum matchings this picks one deterministically, and when every left item can reach
/// a free right item it is the first-come pairing.
///
/// `edge` is called once for every pair. Left items with the same neighbours share one set
/// of them, so many repeats of one tool cost time quadratic in their number, not cubic. The
/// time is within a small factor of [`pairing_size`]`(left, right)` steps and the memory of
/// `left × right` bits: trailgate refuses inputs past [`MAX_PAIRING_SIZE`] or
/// [`MAX_PAIRING_PAIRS`] before calling this ([`check_pairing_size`]).
pub fn maximum_matching(
    left: usize,
    right: usize,
    edge: impl FnMut(usize, usize) -> bool,
) -> Vec<Option<usize>> {
    multiset::first_maximum_matching(left, right, edge)
}

/// Kuhn's augmenting-path search, shared by every matching in this crate.
///
/// Left vertices are added one at a time; `augment` looks for a path from a new, unmatched
/// left vertex to a free right vertex, trying neighbours in the order the adjacency gives,
/// and applies it. An explicit stack keeps deep paths off the thread's stack.
#[derive(Debug)]
pub(crate) struct Augmenter {
    /// The right vertex each left vertex holds.
    pub(crate) left_match: Vec<Option<usize>>,
    /// The left vertex each right vertex is held by.
    pub(crate) right_match: Vec<Option<usize>>,
    /// Per-search visit marks, compared with `stamp` so that they never need clearing.
    visited: Vec<u64>,
    stamp: u64,
    /// The stack of a search, kept between searches to reuse its memory: each frame is a
    /// left vertex and the next of its neighbours to try; `path[i]` is the right vertex
    /// through which frame `i + 1` was reached.
    frames: Vec<(usize, usize)>,
    path: Vec<usize>,
}

impl Augmenter {
    pub(crate) fn new(right: usize) -> Self {
        Self {
            left_match: Vec::new(),
            right_match: vec![None; right],
            visited: vec![0; right],
            stamp: 0,
            frames: Vec::new(),
            path: Vec::new(),
        }
    }

    /// Adds an unmatched left vertex; its index is the number added before it.
    pub(crate) fn push_left(&mut self) {
        self.left_match.push(None);
    }

    /// Looks for an augmenting path from the unmatched left vertex `start` and applies it.
    pub(crate) fn augment<'a>(
        &mut self,
        start: usize,
        adjacency: impl Fn(usize) -> &'a [usize],
    ) -> bool {
        self.stamp += 1;
        let (frames, path) = (&mut self.frames, &mut self.path);
        frames.clear();
        path.clear();
        frames.push((start, 0));
        while let Some(frame) = frames.last_mut() {
            let (l, next) = *frame;
            let Some(&r) = adjacency(l).get(next) else {
                frames.pop();
                path.pop();
                continue;
            };
            frame.1 += 1;
            if self.visited[r] == self.stamp {
                continue;
            }
            self.visited[r] = self.stamp;
            path.push(r);
            if let Some(holder) = self.right_match[r] {
                frames.push((holder, 0));
            } else {
                // A free right vertex ends the path: shift every left vertex on it along.
                for (&(l, _), &r) in frames.iter().zip(path.iter()) {
                    self.right_match[r] = Some(l);
                    self.left_match[l] = Some(r);
                }
                return true;
            }
        }
        false
    }
}

/// The longest common subsequence of two lists under `matches(a, b)`, as index pairs in
/// increasing order of both. Among the longest, the one returned walks both lists from the
/// front, pairing an item of `a` with the first item of `b` that keeps the length, and
/// skipping items of `b` before items of `a`.
pub fn longest_common_subsequence(
    a: usize,
    b: usize,
    mut matches: impl FnMut(usize, usize) -> bool,
) -> Vec<(usize, usize)> {
    // lengths[i][j]: the LCS length of a[i..] and b[j..], one row of `b + 1` per `a` item.
    let width = b + 1;
    let mut lengths = vec![0_u32; (a + 1) * width];
    for i in (0..a).rev() {
        for j in (0..b).rev() {
            lengths[i * width + j] = if matches(i, j) {
                lengths[(i + 1) * width + j + 1] + 1
            } else {
                lengths[(i + 1) * width + j].max(lengths[i * width + j + 1])
            };
        }
    }
    let mut pairs = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < a && j < b {
        if matches(i, j) && lengths[i * width + j] == lengths[(i + 1) * width + j + 1] + 1 {
            pairs.push((i, j));
            i += 1;
            j += 1;
        } else if lengths[i * width + j + 1] >= lengths[(i + 1) * width + j] {
            j += 1;
        } else {
            i += 1;
        }
    }
    pairs
}

/// [`longest_common_subsequence`] where item `i` of `a` stands for `width(i)` consecutive
/// items of `b` (at least one): `matches(i, j)` says whether it matches the items of `b`
/// from `j` to `j + width(i)`, and it is asked only where they fit. The pairs are `(i, j)`,
/// `j` the first item of `b` that `i` takes, in increasing order of both, and the spans of
/// two pairs never overlap. Among the longest, the one returned is chosen as
/// [`longest_common_subsequence`] chooses.
///
/// A trajectory's parallel group is such an item: several expected steps matched by calls
/// that share one agent turn, occupying one position of the sequence. The table and the
/// time grow as `a × b`, as [`longest_common_subsequence`]'s do
/// ([`check_sequence_size`]).
pub fn longest_common_subsequence_of_spans(
    a: usize,
    b: usize,
    width: impl Fn(usize) -> usize,
    mut matches: impl FnMut(usize, usize) -> bool,
) -> Vec<(usize, usize)> {
    let row = b + 1;
    // fits[i * b + j]: whether item i matches the span of b from j; asked once per pair.
    let mut fits = vec![false; a * b];
    for i in 0..a {
        let span = width(i).max(1);
        for j in 0..b {
            fits[i * b + j] = j + span <= b && matches(i, j);
        }
    }
    let mut lengths = vec![0_u32; (a + 1) * row];
    for i in (0..a).rev() {
        let span = width(i).max(1);
        for j in (0..b).rev() {
            let skip = lengths[(i + 1) * row + j].max(lengths[i * row + j + 1]);
            lengths[i * row + j] = if fits[i * b + j] {
                skip.max(lengths[(i + 1) * row + j + span] + 1)
            } else {
                skip
            };
        }
    }
    let mut pairs = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < a && j < b {
        let span = width(i).max(1);
        if fits[i * b + j] && lengths[i * row + j] == lengths[(i + 1) * row + j + span] + 1 {
            pairs.push((i, j));
            i += 1;
            j += span;
        } else if lengths[i * row + j + 1] >= lengths[(i + 1) * row + j] {
            j += 1;
        } else {
            i += 1;
        }
    }
    pairs
}

/// Expected calls paired with actual ones (docs/graders/call-accuracy.md).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct CallPairing {
    /// `(expected, actual)` pairs with the same tool and equal arguments, by expected index.
    pub correct: Vec<(usize, usize)>,
    /// `(expected, actual)` pairs with the same tool and other arguments, by expected index.
    pub incorrect: Vec<(usize, usize)>,
    /// Expected calls left unpaired, in order.
    pub missed: Vec<usize>,
    /// Actual calls left unpaired, in order.
    pub extra: Vec<usize>,
}

/// Pairs `expected` calls with `actual` ones: as many exact pairs (`same_tool` and
/// `equal_args`) as possible, and among the pairings with that many exact pairs, as many
/// same-tool pairs in all as possible.
///
/// The two counts are maximised together, not one after the other: when a member matches
/// calls of several tools (a bare member and a qualified one), the exact pairs a first
/// matching happens to pick can leave fewer same-tool pairs for the rest, and which ones it
/// picks depends on the order of the lists. Maximising the pair (exact, all) as one objective
/// makes every count independent of the order of either list, and a partial match never
/// takes an exact match's place. Among the pairings with the best counts, the one that
/// pairs the earliest actual calls is taken (the sum of their positions is smallest); the
/// remaining ties are broken as the Hungarian algorithm over the shorter list, its items in
/// order, breaks them.
///
/// `same_tool` is called once for every pair, and `equal_args` at most once for a pair of
/// the same tool: for every one, unless no call can pair with two calls of the other list;
/// then each call of the shorter list is asked about its partners in order only until one
/// has equal arguments, and takes the first such partner, or else the first of the same
/// tool (the best pairing in that case). Otherwise the Hungarian algorithm runs on each group of calls that can pair with one
/// another, looking at only the first free call of each kind, with the result it would have
/// on the whole lists. The time is within a small factor of [`pairing_size`]`(expected,
/// actual)` steps and the memory of `expected × actual` bytes: trailgate refuses inputs past
/// [`MAX_PAIRING_SIZE`] or [`MAX_PAIRING_PAIRS`] before calling this ([`check_pairing_size`]).
pub fn pair_calls(
    expected: usize,
    actual: usize,
    mut same_tool: impl FnMut(usize, usize) -> bool,
    mut equal_args: impl FnMut(usize, usize) -> bool,
) -> CallPairing {
    let mut kinds = assignment::Kinds::new(expected, actual, |e, a| {
        if same_tool(e, a) {
            assignment::SAME_TOOL
        } else {
            assignment::NONE
        }
    });
    let partner = assignment::best_pairing(&mut kinds, &mut equal_args);
    let mut pairing = CallPairing::default();
    let mut actual_taken = vec![false; actual];
    for (e, paired) in partner.into_iter().enumerate() {
        match paired {
            Some(a) if kinds.get(e, a) == assignment::EXACT => pairing.correct.push((e, a)),
            Some(a) => pairing.incorrect.push((e, a)),
            None => {
                pairing.missed.push(e);
                continue;
            }
        }
        if let Some(a) = paired {
            actual_taken[a] = true;
        }
    }
    pairing.extra = (0..actual).filter(|&a| !actual_taken[a]).collect();
    pairing
}

/// The most pairs of an expected and an actual item that trailgate gives [`pair_calls`] or
/// [`maximum_matching`]: `expected × actual` at most 2^24 (16,777,216), such as 16 expected
/// calls against a run of a million. Both look at every pair once and keep a byte or a bit
/// for it, so this bounds the time and memory that do not depend on how the items pair up.
pub const MAX_PAIRING_PAIRS: u64 = 1 << 24;

/// The largest [`pairing_size`] trailgate gives [`pair_calls`] or [`maximum_matching`]: 2^28
/// (268,435,456), such as 645 expected items against 645 actual ones, 100 against 26,843,
/// or 20 against 671,088. Past looking at the pairs, both take at most a small multiple of
/// this many steps whatever the items are: well under a second in release at the limit.
pub const MAX_PAIRING_SIZE: u64 = 1 << 28;

/// The size of pairing `expected` items with `actual` ones: the shorter list's length times
/// both lengths, `min(e, a) · e · a`, saturating at `u64::MAX`.
///
/// The Hungarian algorithm of [`pair_calls`] adds the shorter list's items one at a time,
/// each by a search over at most that many held items plus the free ones; the augmenting
/// paths of [`maximum_matching`] visit at most as many items as are already paired. Either
/// way the worst case grows as this product.
pub fn pairing_size(expected: usize, actual: usize) -> u64 {
    pairs(expected, actual).saturating_mul(u64::try_from(expected.min(actual)).unwrap_or(u64::MAX))
}

/// `expected × actual`, saturating at `u64::MAX`.
fn pairs(expected: usize, actual: usize) -> u64 {
    u64::try_from(expected)
        .unwrap_or(u64::MAX)
        .saturating_mul(u64::try_from(actual).unwrap_or(u64::MAX))
}

/// Whether pairing `expected` items with `actual` ones is within [`MAX_PAIRING_PAIRS`] and
/// [`MAX_PAIRING_SIZE`]: the check trailgate makes before calling [`pair_calls`] or
/// [`maximum_matching`], so that no input takes more than about a second to pair.
pub fn check_pairing_size(expected: usize, actual: usize) -> Result<(), PairingTooLarge> {
    if pairs(expected, actual) > MAX_PAIRING_PAIRS
        || pairing_size(expected, actual) > MAX_PAIRING_SIZE
    {
        Err(PairingTooLarge { expected, actual })
    } else {
        Ok(())
    }
}

/// Whether the longest common subsequence of `expected` items and `actual` ones is within
/// [`MAX_PAIRING_PAIRS`]: the check trailgate makes before calling
/// [`longest_common_subsequence`], whose table holds four bytes per pair (64 MiB at the
/// limit) and whose time grows as the pairs.
pub fn check_sequence_size(expected: usize, actual: usize) -> Result<(), PairingTooLarge> {
    if pairs(expected, actual) > MAX_PAIRING_PAIRS {
        Err(PairingTooLarge { expected, actual })
    } else {
        Ok(())
    }
}

/// Two lists too long to pair within the limits (see [`check_pairing_size`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct PairingTooLarge {
    /// The expected list's length.
    pub expected: usize,
    /// The actual list's length.
    pub actual: usize,
}

impl PairingTooLarge {
    /// `expected × actual`, saturating.
    pub fn pairs(&self) -> u64 {
        pairs(self.expected, self.actual)
    }

    /// [`pairing_size`] of the two lengths.
    pub fn size(&self) -> u64 {
        pairing_size(self.expected, self.actual)
    }
}

impl std::fmt::Display for PairingTooLarge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.pairs() > MAX_PAIRING_PAIRS {
            write!(
                f,
                "{} expected items against {} actual ones make {} pairs, more than {MAX_PAIRING_PAIRS}",
                self.expected,
                self.actual,
                self.pairs()
            )
        } else {
            write!(
                f,
                "{} expected items against {} actual ones have a pairing size of {}, more than {MAX_PAIRING_SIZE}",
                self.expected,
                self.actual,
                self.size()
            )
        }
    }
}

impl std::error::Error for PairingTooLarge {}

/// Correct calls over the sizes of the expected and actual lists; they add up over runs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct AccuracyCounts {
    /// Pairs with the same tool and equal arguments.
    pub correct: u64,
    /// The number of expected calls.
    pub expected: u64,
    /// The number of actual calls.
    pub actual: u64,
}

impl AccuracyCounts {
    /// The counts of one pairing.
    pub fn of(pairing: &CallPairing, expected: usize, actual: usize) -> Self {
        Self {
            correct: pairing.correct.len() as u64,
            expected: expected as u64,
            actual: actual as u64,
        }
    }

    /// Precision (correct / actual), recall (correct / expected) and F1
    /// (2·correct / (actual + expected)), each rounded down once; a zero denominator gives
    /// 0, except that both lists empty gives 100 for all three.
    pub fn metrics(self) -> AccuracyMetrics {
        if self.expected == 0 && self.actual == 0 {
            return AccuracyMetrics {
                precision: Percent::FULL,
                recall: Percent::FULL,
                f1: Percent::FULL,
            };
        }
        AccuracyMetrics {
            precision: Percent::floor_of(self.correct, self.actual),
            recall: Percent::floor_of(self.correct, self.expected),
            f1: Percent::floor_of(
                self.correct.saturating_mul(2),
                self.actual.saturating_add(self.expected),
            ),
        }
    }
}

impl std::ops::Add for AccuracyCounts {
    type Output = Self;

    fn add(self, other: Self) -> Self {
        Self {
            correct: self.correct.saturating_add(other.correct),
            expected: self.expected.saturating_add(other.expected),
            actual: self.actual.saturating_add(other.actual),
        }
    }
}

impl std::iter::Sum for AccuracyCounts {
    fn sum<I: Iterator<Item = Self>>(iter: I) -> Self {
        iter.fold(Self::default(), std::ops::Add::add)
    }
}

/// Call-accuracy precision, recall and F1 as whole percents.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct AccuracyMetrics {
    /// Of the actual calls, the share correct.
    pub precision: Percent,
    /// Of the expected calls, the share made correctly.
    pub recall: Percent,
    /// The harmonic mean, from the counts.
    pub f1: Percent,
}
