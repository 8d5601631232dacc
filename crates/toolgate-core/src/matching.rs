//! Plain algorithms over expected and actual lists: the maximum matching, the longest common
//! subsequence, and the pairing of expected calls with actual ones.
//!
//! Each takes the lists as slices and the relation between their items as a closure, so the
//! caller decides what "matches" and "equal" mean (tool identity, argument equality).

use crate::percent::Percent;

/// A maximum matching between `left` items (tried in order) and `right` items (tried in
/// order), where `edge(l, r)` says whether they may be paired. For each left item, the
/// right item it is paired with.
///
/// Kuhn's augmenting paths with left items in order and right items in order: among the
/// maximum matchings this picks one deterministically, and when every left item can reach
/// a free right item it is the first-come pairing.
pub fn maximum_matching(
    left: usize,
    right: usize,
    mut edge: impl FnMut(usize, usize) -> bool,
) -> Vec<Option<usize>> {
    let adjacency: Vec<Vec<usize>> = (0..left)
        .map(|l| (0..right).filter(|&r| edge(l, r)).collect())
        .collect();
    let mut augmenter = Augmenter::new(right);
    for l in 0..left {
        augmenter.push_left();
        augmenter.augment(l, |l| &adjacency[l]);
    }
    augmenter.left_match
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
}

impl Augmenter {
    pub(crate) fn new(right: usize) -> Self {
        Self {
            left_match: Vec::new(),
            right_match: vec![None; right],
            visited: vec![0; right],
            stamp: 0,
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
        // Each frame is a left vertex and the next of its neighbours to try; `path[i]` is
        // the right vertex through which frame `i + 1` was reached.
        let mut frames: Vec<(usize, usize)> = vec![(start, 0)];
        let mut path: Vec<usize> = Vec::new();
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
                for (&(l, _), &r) in frames.iter().zip(&path) {
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

/// Expected calls paired with actual ones (SPEC section 9).
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
/// pairs the earliest actual calls is taken (the sum of their positions is smallest).
pub fn pair_calls(
    expected: usize,
    actual: usize,
    mut same_tool: impl FnMut(usize, usize) -> bool,
    mut equal_args: impl FnMut(usize, usize) -> bool,
) -> CallPairing {
    // 2: exact, 1: same tool, 0: no pair.
    let kinds: Vec<Vec<u8>> = (0..expected)
        .map(|e| {
            (0..actual)
                .map(
                    |a| match (same_tool(e, a), same_tool(e, a) && equal_args(e, a)) {
                        (_, true) => 2,
                        (true, false) => 1,
                        (false, _) => 0,
                    },
                )
                .collect()
        })
        .collect();
    // Weights that order pairings by exact pairs, then by pairs, then by the earliest
    // actual calls: `tie` exceeds any sum of actual positions, `pair` any number of pairs.
    let tie = i128::try_from(expected.saturating_mul(actual))
        .unwrap_or(i128::MAX / 8)
        .saturating_add(1);
    let pair = tie;
    let exact = tie.saturating_mul(i128::try_from(expected.min(actual)).unwrap_or(0) + 1);
    let weight = |e: usize, a: usize| -> Option<i128> {
        let position = i128::try_from(a).unwrap_or(0);
        match kinds[e][a] {
            2 => Some(exact.saturating_add(pair).saturating_sub(position)),
            1 => Some(pair.saturating_sub(position)),
            _ => None,
        }
    };
    let mut pairing = CallPairing::default();
    let mut actual_taken = vec![false; actual];
    let assignment = maximum_weight_matching(expected, actual, weight);
    for (e, paired) in assignment.into_iter().enumerate() {
        match paired {
            Some(a) if kinds[e][a] == 2 => pairing.correct.push((e, a)),
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

/// A matching of maximum total weight between `left` and `right` items, where `weight(l, r)`
/// is `Some(w)` with `w > 0` for a pair that may be made. For each left item, its partner.
///
/// The Hungarian algorithm (Kuhn-Munkres, with potentials) on the smaller side as rows,
/// each row also given a column of its own that stands for "unpaired": O(n^2 (n + m)) for
/// n rows and m columns, integers only.
fn maximum_weight_matching(
    left: usize,
    right: usize,
    weight: impl Fn(usize, usize) -> Option<i128>,
) -> Vec<Option<usize>> {
    let transpose = left > right;
    let (rows, columns) = if transpose {
        (right, left)
    } else {
        (left, right)
    };
    // Costs to minimise: a pair costs minus its weight, "unpaired" 0, and a pair that may
    // not be made more than "unpaired", so that it is never chosen.
    let cost = |row: usize, column: usize| -> i128 {
        if column >= columns {
            return 0;
        }
        let (l, r) = if transpose {
            (column, row)
        } else {
            (row, column)
        };
        weight(l, r).map_or(1, |w| -w)
    };
    let width = columns + rows;
    // 1-based as in the textbook: column 0 and row 0 are the virtual start.
    let mut u = vec![0_i128; rows + 1];
    let mut v = vec![0_i128; width + 1];
    let mut row_of = vec![0_usize; width + 1];
    let mut way = vec![0_usize; width + 1];
    for row in 1..=rows {
        row_of[0] = row;
        let mut column = 0;
        let mut min_slack = vec![i128::MAX; width + 1];
        let mut used = vec![false; width + 1];
        loop {
            used[column] = true;
            let current = row_of[column];
            let mut delta = i128::MAX;
            let mut next = 0;
            for j in 1..=width {
                if used[j] {
                    continue;
                }
                let slack = cost(current - 1, j - 1) - u[current] - v[j];
                if slack < min_slack[j] {
                    min_slack[j] = slack;
                    way[j] = column;
                }
                if min_slack[j] < delta {
                    delta = min_slack[j];
                    next = j;
                }
            }
            for j in 0..=width {
                if used[j] {
                    u[row_of[j]] += delta;
                    v[j] -= delta;
                } else {
                    min_slack[j] -= delta;
                }
            }
            column = next;
            if row_of[column] == 0 {
                break;
            }
        }
        while column != 0 {
            let previous = way[column];
            row_of[column] = row_of[previous];
            column = previous;
        }
    }
    let mut partner = vec![None; left];
    for (column, &row) in row_of.iter().enumerate().take(columns + 1).skip(1) {
        // Row 0 is no row; a row on a pair that may not be made stays unpaired.
        if row == 0 || cost(row - 1, column - 1) >= 0 {
            continue;
        }
        let (l, r) = if transpose {
            (column - 1, row - 1)
        } else {
            (row - 1, column - 1)
        };
        partner[l] = Some(r);
    }
    partner
}

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
