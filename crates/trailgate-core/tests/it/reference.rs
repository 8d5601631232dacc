//! The pairing and the maximum matching as they were before groups, classes of columns and
//! shared neighbour lists made them fast, kept as the reference: `trailgate-core` must give
//! exactly their result, ties included, on every input (`docs/robustness.md`, "Limits").
//!
//! `reference_pair_calls`, `maximum_weight_matching`, `reference_maximum_matching` and
//! `Augmenter` are the earlier `matching.rs`, unchanged but for their names.

#![allow(
    clippy::expect_used,
    reason = "generators build only valid members, and the sweep's numbers are small"
)]

use proptest::prelude::*;
use trailgate_core::{CallPairing, Member, ToolId, maximum_matching, pair_calls};

/// The earlier `pair_calls`: the Hungarian algorithm on the whole dense problem.
fn reference_pair_calls(
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
/// The earlier `maximum_matching`: Kuhn's search over one adjacency list per left item.
fn reference_maximum_matching(
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
struct Augmenter {
    /// The right vertex each left vertex holds.
    left_match: Vec<Option<usize>>,
    /// The left vertex each right vertex is held by.
    right_match: Vec<Option<usize>>,
    /// Per-search visit marks, compared with `stamp` so that they never need clearing.
    visited: Vec<u64>,
    stamp: u64,
}

impl Augmenter {
    fn new(right: usize) -> Self {
        Self {
            left_match: Vec::new(),
            right_match: vec![None; right],
            visited: vec![0; right],
            stamp: 0,
        }
    }

    /// Adds an unmatched left vertex; its index is the number added before it.
    fn push_left(&mut self) {
        self.left_match.push(None);
    }

    /// Looks for an augmenting path from the unmatched left vertex `start` and applies it.
    fn augment<'a>(&mut self, start: usize, adjacency: impl Fn(usize) -> &'a [usize]) -> bool {
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

const SERVERS: &[&str] = &["s", "t"];
/// Few names, so that most calls can pair with most expected ones and ties abound.
const NAMES: &[&str] = &["a", "b", "c"];

/// A member or a recorded tool: a name of the alphabet, with or without a server.
fn parts() -> impl Strategy<Value = (Option<&'static str>, &'static str)> {
    (
        prop::option::of(prop::sample::select(SERVERS)),
        prop::sample::select(NAMES),
    )
}

fn member((server, name): (Option<&str>, &str)) -> Member {
    Member::new(server, name).expect("non-empty parts")
}

fn tool_id((server, name): (Option<&str>, &str)) -> ToolId {
    ToolId::new(server.map(str::to_owned), name)
}

/// Expected calls: a member and arguments, drawn from three values.
type Expected = Vec<(Member, u8)>;
/// Actual calls: a tool and arguments.
type Actual = Vec<(ToolId, u8)>;

/// Expected and actual calls.
fn calls() -> impl Strategy<Value = (Expected, Actual)> {
    (
        prop::collection::vec((parts().prop_map(member), 0_u8..3), 0..=10),
        prop::collection::vec((parts().prop_map(tool_id), 0_u8..3), 0..=10),
    )
}

/// Any relation between up to 9 left and 9 right items, at any density, with arguments.
fn relation() -> impl Strategy<Value = (Vec<Vec<bool>>, Vec<u8>, Vec<u8>)> {
    (0_usize..=9, 0_usize..=9, 1_u32..=4).prop_flat_map(|(left, right, sparsity)| {
        (
            prop::collection::vec(
                prop::collection::vec((0..sparsity + 1).prop_map(|x| x != 0), right),
                left,
            ),
            prop::collection::vec(0_u8..3, left),
            prop::collection::vec(0_u8..3, right),
        )
    })
}

/// A call as a tool number and an argument value.
type ToolAndArgs = (usize, u8);

/// Lists where no call can pair with two of the other side's, so that the pairing splits
/// into single rows ("rows apart" in `assignment.rs`, the common case of `call-accuracy`):
/// the items of one side have distinct tools, those of the other side any of them or a tool
/// of their own; each item has one of three argument values. The side with distinct tools
/// is the expected one or the actual one, and the shorter or the longer.
fn apart() -> impl Strategy<Value = (Vec<ToolAndArgs>, Vec<ToolAndArgs>)> {
    (0_usize..=9, 0_usize..=12, any::<bool>()).prop_flat_map(|(distinct, other, flip)| {
        let distinct_side: Vec<_> = (0..distinct).map(|tool| (Just(tool), 0_u8..3)).collect();
        let other_side = prop::collection::vec((0..=distinct, 0_u8..3), other);
        (distinct_side, other_side).prop_map(move |(d, o)| if flip { (o, d) } else { (d, o) })
    })
}

#[track_caller]
fn check_pairing(
    expected: usize,
    actual: usize,
    same_tool: impl Fn(usize, usize) -> bool,
    equal_args: impl Fn(usize, usize) -> bool,
) {
    assert_eq!(
        pair_calls(expected, actual, &same_tool, &equal_args),
        reference_pair_calls(expected, actual, &same_tool, &equal_args),
        "{expected} expected against {actual} actual"
    );
}

#[track_caller]
fn check_matching(left: usize, right: usize, edge: impl Fn(usize, usize) -> bool) {
    assert_eq!(
        maximum_matching(left, right, &edge),
        reference_maximum_matching(left, right, &edge),
        "{left} left against {right} right"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// The same pairs as the reference, not only the same counts: the same actual call for
    /// each expected call, among tied pairings too.
    #[test]
    fn pair_calls_gives_the_reference_pairing((expected, actual) in calls()) {
        check_pairing(
            expected.len(),
            actual.len(),
            |e, a| expected[e].0.matches(&actual[a].0),
            |e, a| expected[e].1 == actual[a].1,
        );
    }

    /// The same for any relation of "same tool", not only what members make.
    #[test]
    fn pair_calls_gives_the_reference_pairing_for_any_relation(
        (edges, expected_args, actual_args) in relation()
    ) {
        check_pairing(
            expected_args.len(),
            actual_args.len(),
            |e, a| edges[e][a],
            |e, a| expected_args[e] == actual_args[a],
        );
    }

    /// The same pairs as the reference when every call can pair with at most one call of
    /// the other side.
    #[test]
    fn pair_calls_gives_the_reference_pairing_when_rows_are_apart((expected, actual) in apart()) {
        check_pairing(
            expected.len(),
            actual.len(),
            |e, a| expected[e].0 == actual[a].0,
            |e, a| expected[e].1 == actual[a].1,
        );
    }

    /// The same matching as the reference, pair for pair.
    #[test]
    fn maximum_matching_gives_the_reference_matching((expected, actual) in calls()) {
        check_matching(expected.len(), actual.len(), |e, a| expected[e].0.matches(&actual[a].0));
    }

    /// The same for any relation.
    #[test]
    fn maximum_matching_gives_the_reference_matching_for_any_relation(
        (edges, _, _) in relation()
    ) {
        check_matching(edges.len(), edges.first().map_or(0, Vec::len), |l, r| edges[l][r]);
    }
}

/// Longer lists than the properties draw, where long augmenting paths and many tied
/// columns appear: one to four tools, one to five argument values, up to 40 items a side,
/// from a fixed pseudo-random sequence.
#[test]
fn longer_lists_pair_as_the_reference_does() {
    let mut state = 7_u64;
    let mut next = |bound: u64| {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        usize::try_from((state >> 33) % bound).expect("small")
    };
    for _ in 0..60 {
        let (expected, actual) = (next(41), next(41));
        let (tools, args) = (1 + next(4) as u64, 1 + next(5) as u64);
        let draw = |n: usize, next: &mut dyn FnMut(u64) -> usize| -> Vec<(usize, usize)> {
            (0..n).map(|_| (next(tools), next(args))).collect()
        };
        let e = draw(expected, &mut next);
        let a = draw(actual, &mut next);
        check_pairing(
            expected,
            actual,
            |i, j| e[i].0 == a[j].0,
            |i, j| e[i].1 == a[j].1,
        );
        check_matching(expected, actual, |i, j| e[i].0 == a[j].0);
    }
}
