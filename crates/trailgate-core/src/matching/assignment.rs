//! The pairing behind [`pair_calls`](super::pair_calls): a maximum-weight matching by the
//! Hungarian algorithm, run on each group of calls that can pair with one another, over
//! only the columns that can still change the outcome.
//!
//! The result is exactly that of the Hungarian algorithm run once on the whole dense problem
//! (the reference kept in `tests/it/reference.rs`, compared on generated lists, ties
//! included): the two reductions below only skip work that could never change a choice.
//!
//! - **Groups.** Rows and columns interact only through chains of possible pairs. A search
//!   that starts in one group can reach another group's columns only through pairs that may
//!   not be made (cost 1) or through the "unpaired" columns; such a path is never strictly
//!   shorter than one that stays in the group, and the columns it does visit are visited at
//!   the final distance, where the potentials do not move. So each group is solved on its
//!   own, with the orientation and the weights of the whole problem, and calls that can pair
//!   with nothing drop out.
//! - **Columns that repeat an earlier one.** Two free columns that every row can pair in the
//!   same way (the same kind of pair, or none) cost the same, or differ by the later one's
//!   larger position, so the earlier is always reached first, at a distance no larger; a
//!   search ends on the first free column it reaches, so the later one is never chosen while
//!   the earlier is free. Each search therefore looks at the held columns and, of each such
//!   class of free columns, only the first; a group of r rows takes at most r columns, so
//!   no class needs more than its first r + 1 members. The free "unpaired" columns are one
//!   more class.
//! - **Rows apart.** When no column can pair with two rows, every row is a group of its own,
//!   and its search ends at once on the cheapest of its columns: the first column of the
//!   best kind (exact before same-tool; the cost of a column grows with its position, or is
//!   the same for all columns and the lowest index is taken first). That is the common case
//!   of `call-accuracy` (expected calls of different tools), answered without building the
//!   groups, and without comparing the arguments of a row's columns past its first exact
//!   one.

use std::collections::BTreeMap;
use std::ops::{Add, AddAssign, Sub, SubAssign};

/// No pair: the tools differ.
pub(super) const NONE: u8 = 0;
/// Same tool, other arguments.
pub(super) const SAME_TOOL: u8 = 1;
/// Same tool and equal arguments.
pub(super) const EXACT: u8 = 2;

/// What each expected call can make with each actual call ([`NONE`], [`SAME_TOOL`] or
/// [`EXACT`]), arranged for the search: the shorter list gives the rows, and each column's
/// kinds against every row are contiguous.
#[derive(Debug)]
pub(super) struct Kinds {
    expected: usize,
    actual: usize,
    /// Whether the rows are the actual calls (there are more expected calls than actual).
    transpose: bool,
    by_column: Vec<u8>,
}

impl Kinds {
    /// `kind(e, a)` for every expected call `e` and actual call `a`, each pair once.
    pub(super) fn new(
        expected: usize,
        actual: usize,
        mut kind: impl FnMut(usize, usize) -> u8,
    ) -> Self {
        let transpose = expected > actual;
        let (rows, columns) = if transpose {
            (actual, expected)
        } else {
            (expected, actual)
        };
        let mut by_column = Vec::with_capacity(rows.saturating_mul(columns));
        for column in 0..columns {
            by_column.extend((0..rows).map(|row| {
                if transpose {
                    kind(column, row)
                } else {
                    kind(row, column)
                }
            }));
        }
        Self {
            expected,
            actual,
            transpose,
            by_column,
        }
    }

    pub(super) fn get(&self, expected: usize, actual: usize) -> u8 {
        if self.transpose {
            self.by_column[expected * self.actual + actual]
        } else {
            self.by_column[actual * self.expected + expected]
        }
    }

    fn rows(&self) -> usize {
        self.expected.min(self.actual)
    }

    /// Turns every [`SAME_TOOL`] pair with equal arguments into [`EXACT`], asking
    /// `equal_args` once for each.
    fn mark_exact(&mut self, mut equal_args: impl FnMut(usize, usize) -> bool) {
        let (rows, transpose) = (self.rows(), self.transpose);
        if rows == 0 {
            return;
        }
        for (column, kinds) in self.by_column.chunks_exact_mut(rows).enumerate() {
            for (row, kind) in kinds.iter_mut().enumerate() {
                let (e, a) = if transpose {
                    (column, row)
                } else {
                    (row, column)
                };
                if *kind == SAME_TOOL && equal_args(e, a) {
                    *kind = EXACT;
                }
            }
        }
    }

    fn set(&mut self, row: usize, column: usize, kind: u8) {
        let rows = self.rows();
        self.by_column[column * rows + row] = kind;
    }

    fn columns(&self) -> usize {
        if self.transpose {
            self.expected
        } else {
            self.actual
        }
    }

    fn column(&self, column: usize) -> &[u8] {
        let rows = self.rows();
        &self.by_column[column * rows..(column + 1) * rows]
    }

    /// `(expected, actual)` for a row and a column.
    fn pair(&self, row: usize, column: usize) -> (usize, usize) {
        if self.transpose {
            (column, row)
        } else {
            (row, column)
        }
    }
}

/// For each expected call, the actual call it is paired with: most exact pairs, then most
/// pairs, then the earliest actual calls, ties as the Hungarian algorithm over the shorter
/// list breaks them.
///
/// `kinds` comes with [`SAME_TOOL`] for every pair of the same tool; `equal_args(e, a)`
/// turns such a pair into [`EXACT`], and is asked at most once for each. It is asked for
/// every one, unless the rows are apart: then each row stops at its first exact pair.
pub(super) fn best_pairing(
    kinds: &mut Kinds,
    mut equal_args: impl FnMut(usize, usize) -> bool,
) -> Vec<Option<usize>> {
    if let Some(partner) = rows_apart(kinds, &mut equal_args) {
        return partner;
    }
    kinds.mark_exact(equal_args);
    let (expected, actual) = (kinds.expected, kinds.actual);
    // Weights that order pairings by exact pairs, then by pairs, then by the earliest actual
    // calls: `tie` exceeds any sum of actual positions, `pair` any number of pairs. A pair
    // costs minus its weight, so a pair with the actual call at `position` costs
    // `base + position`.
    let tie = i128::try_from(expected.saturating_mul(actual))
        .unwrap_or(i128::MAX / 8)
        .saturating_add(1);
    let pair = tie;
    let exact = tie.saturating_mul(i128::try_from(expected.min(actual)).unwrap_or(0) + 1);
    let base = [1, -pair, -exact.saturating_add(pair)];
    let largest = exact
        .saturating_add(pair)
        .saturating_add(i128::try_from(actual).unwrap_or(i128::MAX));
    // Every value a search holds is within three times the largest cost (see
    // `Search::run`), so 64-bit integers do unless the lists are astronomically long.
    if largest <= 1 << 60 {
        solve::<i64>(kinds, base)
    } else {
        solve::<i128>(kinds, base)
    }
}

/// The pairing when no column can pair with more than one row (see the module's "Rows
/// apart"): each row takes its first column of the best kind, which it finds by asking
/// `equal_args` of its columns in order until one is exact. `None`, having asked nothing,
/// when some column can pair with two rows.
fn rows_apart(
    kinds: &mut Kinds,
    equal_args: &mut impl FnMut(usize, usize) -> bool,
) -> Option<Vec<Option<usize>>> {
    // The one row each column can pair with, if any.
    let mut owner = Vec::with_capacity(kinds.columns());
    for column in 0..kinds.columns() {
        let mut rows = kinds
            .column(column)
            .iter()
            .enumerate()
            .filter(|&(_, &kind)| kind != NONE)
            .map(|(row, _)| row);
        let row = rows.next();
        if rows.next().is_some() {
            return None;
        }
        owner.push(row);
    }
    // Each row's first same-tool column, until an exact one replaces it.
    let mut best: Vec<Option<(usize, u8)>> = vec![None; kinds.rows()];
    for (column, row) in owner.into_iter().enumerate() {
        let Some(row) = row else {
            continue;
        };
        if best[row].is_some_and(|(_, kind)| kind == EXACT) {
            continue;
        }
        let (e, a) = kinds.pair(row, column);
        if equal_args(e, a) {
            kinds.set(row, column, EXACT);
            best[row] = Some((column, EXACT));
        } else if best[row].is_none() {
            best[row] = Some((column, SAME_TOOL));
        }
    }
    let mut partner = vec![None; kinds.expected];
    for (row, best) in best.into_iter().enumerate() {
        if let Some((column, _)) = best {
            let (e, a) = kinds.pair(row, column);
            partner[e] = Some(a);
        }
    }
    Some(partner)
}

/// The integers the search computes in: `i64`, or `i128` for costs too large for it.
trait Int:
    Copy + Ord + Add<Output = Self> + Sub<Output = Self> + AddAssign + SubAssign + From<i32>
{
    const MAX: Self;
    /// `value`, which the caller has checked fits.
    fn of(value: i128) -> Self;
}

impl Int for i64 {
    const MAX: Self = i64::MAX;
    fn of(value: i128) -> Self {
        // `best_pairing` picks `i64` only when every cost fits.
        i64::try_from(value).unwrap_or(i64::MAX)
    }
}

impl Int for i128 {
    const MAX: Self = i128::MAX;
    fn of(value: i128) -> Self {
        value
    }
}

/// Splits the problem into groups and solves each.
fn solve<N: Int>(kinds: &Kinds, base: [i128; 3]) -> Vec<Option<usize>> {
    let mut partner = vec![None; kinds.expected];
    for group in groups(kinds) {
        let problem = Problem::<N>::new(kinds, &group, base);
        for (row, column) in problem.solve().into_iter().enumerate() {
            if let Some(column) = column {
                let (e, a) = kinds.pair(group.rows[row], group.columns[column]);
                partner[e] = Some(a);
            }
        }
    }
    partner
}

/// Rows joined by columns they can both pair with, and the columns a search over them may
/// take.
#[derive(Debug, Default)]
struct Group {
    /// The rows, in order.
    rows: Vec<usize>,
    /// Of each class of columns, its first `rows + 1` members; all in order.
    columns: Vec<usize>,
    /// The class of each of `columns`, numbered within the group.
    class_of: Vec<usize>,
}

/// The groups, each with the columns worth searching; a row or a column that can pair with
/// nothing is in none.
fn groups(kinds: &Kinds) -> Vec<Group> {
    let (rows, columns) = (kinds.rows(), kinds.columns());
    // Union-find over the rows: rows that can pair with one column are joined.
    let mut parent: Vec<usize> = (0..rows).collect();
    let find = |parent: &mut [usize], mut row: usize| {
        while parent[row] != row {
            parent[row] = parent[parent[row]];
            row = parent[row];
        }
        row
    };
    // Rows that can pair with nothing join no group.
    let mut paired = vec![false; rows];
    for column in 0..columns {
        let mut joined: Option<usize> = None;
        for (row, &kind) in kinds.column(column).iter().enumerate() {
            if kind == NONE {
                continue;
            }
            paired[row] = true;
            let root = find(&mut parent, row);
            if let Some(other) = joined
                && other != root
            {
                parent[root.max(other)] = root.min(other);
            }
            joined = Some(joined.map_or(root, |other| other.min(root)));
        }
    }
    let mut group_of = vec![usize::MAX; rows];
    let mut groups: Vec<Group> = Vec::new();
    for row in (0..rows).filter(|&row| paired[row]) {
        let root = find(&mut parent, row);
        if group_of[root] == usize::MAX {
            group_of[root] = groups.len();
            groups.push(Group::default());
        }
        group_of[row] = group_of[root];
        groups[group_of[row]].rows.push(row);
    }
    // Classes of columns by their kinds against every row, numbered in order of their
    // first column; the look-up is by a hash of the kinds, checked against the class's
    // first column.
    let mut classes: Vec<Class> = Vec::new();
    let mut by_hash: BTreeMap<u64, Vec<usize>> = BTreeMap::new();
    let mut previous: Option<(usize, usize)> = None;
    for column in 0..columns {
        let pattern = kinds.column(column);
        let Some(row) = pattern.iter().position(|&kind| kind != NONE) else {
            continue;
        };
        let class = match previous {
            // Runs of alike columns are common: one tool called many times.
            Some((last, class)) if kinds.column(last) == pattern => class,
            _ => {
                let same_hash = by_hash.entry(hash(pattern)).or_default();
                if let Some(&class) = same_hash
                    .iter()
                    .find(|&&class| kinds.column(classes[class].members[0]) == pattern)
                {
                    class
                } else {
                    same_hash.push(classes.len());
                    classes.push(Class {
                        group: group_of[row],
                        members: Vec::new(),
                    });
                    classes.len() - 1
                }
            }
        };
        previous = Some((column, class));
        let class = &mut classes[class];
        if class.members.len() <= groups[class.group].rows.len() {
            class.members.push(column);
        }
    }
    let mut numbered = vec![0_usize; groups.len()];
    let mut members: Vec<Vec<(usize, usize)>> = (0..groups.len()).map(|_| Vec::new()).collect();
    for class in &classes {
        let local = numbered[class.group];
        numbered[class.group] += 1;
        members[class.group].extend(class.members.iter().map(|&column| (column, local)));
    }
    for (group, mut members) in groups.iter_mut().zip(members) {
        members.sort_unstable();
        (group.columns, group.class_of) = members.into_iter().unzip();
    }
    groups
}

/// Columns with the same kinds against every row.
struct Class {
    /// The group of its rows.
    group: usize,
    /// Its first columns, up to one more than the group has rows.
    members: Vec<usize>,
}

/// FNV-1a: a hash of a column's kinds, to find its class without comparing it with each.
fn hash(pattern: &[u8]) -> u64 {
    pattern.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// One group in the orientation of the search: its rows look for its columns, and each row
/// may stay unpaired instead.
struct Problem<N> {
    rows: usize,
    columns: usize,
    /// The kind of each (row, column), column by column: `kinds[column * rows + row]`.
    kinds: Vec<u8>,
    /// The cost of each (row, column) that may be paired, but for the actual call's
    /// position: `base[kind]`.
    base: [N; 3],
    /// The actual call's position, on whichever side the actual calls are; 0 on the other.
    row_position: Vec<N>,
    column_position: Vec<N>,
    /// Each class's columns, in order.
    members: Vec<Vec<usize>>,
}

/// No column: the virtual start of a search, or a column nobody holds.
const NOBODY: usize = usize::MAX;

impl<N: Int> Problem<N> {
    fn new(kinds: &Kinds, group: &Group, base: [i128; 3]) -> Self {
        let mut local = Vec::with_capacity(group.rows.len() * group.columns.len());
        for &column in &group.columns {
            let pattern = kinds.column(column);
            local.extend(group.rows.iter().map(|&row| pattern[row]));
        }
        // The actual calls' positions, on whichever side they are.
        let positions = |indices: &[usize], actual: bool| -> Vec<N> {
            indices
                .iter()
                .map(|&index| {
                    if actual {
                        N::of(i128::try_from(index).unwrap_or(i128::MAX))
                    } else {
                        N::from(0)
                    }
                })
                .collect()
        };
        let classes = group.class_of.iter().max().map_or(0, |&last| last + 1);
        let mut members = vec![Vec::new(); classes];
        for (column, &class) in group.class_of.iter().enumerate() {
            members[class].push(column);
        }
        Self {
            rows: group.rows.len(),
            columns: group.columns.len(),
            kinds: local,
            base: base.map(N::of),
            row_position: positions(&group.rows, kinds.transpose),
            column_position: positions(&group.columns, !kinds.transpose),
            members,
        }
    }

    /// Each row's column, for rows paired with a real column.
    ///
    /// The Hungarian algorithm with potentials, rows added one at a time, each by a
    /// shortest augmenting path (Dijkstra over reduced costs). Columns `0..columns` are
    /// real; `columns..columns + rows` are "unpaired", cost 0 for every row. Among columns
    /// at the same distance the lowest index is taken first, and a column's path is only
    /// replaced by a strictly shorter one: the reference's tie-breaking, which this keeps.
    fn solve(&self) -> Vec<Option<usize>> {
        let (rows, columns) = (self.rows, self.columns);
        let width = columns + rows;
        let mut class_of = vec![self.members.len(); width];
        for (class, members) in self.members.iter().enumerate() {
            for &column in members {
                class_of[column] = class;
            }
        }
        // Of each class, the next free member; the "unpaired" columns are the last class.
        let unpaired = self.members.len();
        let member = |class: usize, at: usize| {
            if class == unpaired {
                Some(columns + at).filter(|&column| column < width)
            } else {
                self.members[class].get(at).copied()
            }
        };
        let mut taken = vec![0_usize; unpaired + 1];
        // The columns a search looks at, in increasing order: every held column, and the
        // first free member of each class.
        let mut candidates: Vec<usize> = (0..=unpaired).filter_map(|c| member(c, 0)).collect();
        candidates.sort_unstable();
        let mut u = vec![N::from(0); rows];
        let mut v = vec![N::from(0); width];
        let mut holder = vec![NOBODY; width];
        let mut search = Search::new();
        for row in 0..rows {
            let free = search.run(self, row, &candidates, &mut u, &mut v, &mut holder);
            let class = class_of[free];
            taken[class] += 1;
            if let Some(next) = member(class, taken[class]) {
                let at = candidates.partition_point(|&c| c < next);
                candidates.insert(at, next);
            }
        }
        let mut partner = vec![None; rows];
        for (column, &row) in holder.iter().enumerate().take(columns) {
            // A row on a pair that may not be made stays unpaired, as in the reference.
            if row != NOBODY && self.kind(row, column) != NONE {
                partner[row] = Some(column);
            }
        }
        partner
    }

    fn kind(&self, row: usize, column: usize) -> u8 {
        self.kinds[column * self.rows + row]
    }

    /// The cost of `row` taking `column`, "unpaired" columns included.
    fn cost(&self, row: usize, column: usize) -> N {
        if column >= self.columns {
            return N::from(0);
        }
        match self.kind(row, column) {
            NONE => self.base[usize::from(NONE)],
            kind => {
                self.base[usize::from(kind)] + self.row_position[row] + self.column_position[column]
            }
        }
    }
}

/// The state of one shortest-path search, kept between searches to reuse its memory. Each
/// vector is indexed like the candidate columns.
struct Search<N> {
    /// The best distance found to each candidate.
    distance: Vec<N>,
    /// The candidate whose holder reached each one at that distance ([`NOBODY`]: the new
    /// row itself).
    via: Vec<usize>,
    done: Vec<bool>,
    /// The held candidates reached, in order.
    reached: Vec<usize>,
}

impl<N: Int> Search<N> {
    fn new() -> Self {
        Self {
            distance: Vec::new(),
            via: Vec::new(),
            done: Vec::new(),
            reached: Vec::new(),
        }
    }

    /// Adds `row` by a shortest augmenting path and returns the free column it ends on.
    ///
    /// Distances are kept absolute rather than relative to the last one taken, and the
    /// potentials are moved once at the end, by how much shorter than the final distance
    /// each reached column was: the same integers as moving them at every step.
    ///
    /// Bounds: every reduced cost is at least 0, and a free "unpaired" column has potential
    /// 0 and costs 0, so every potential is at most 0, and at least the cost of the pair its
    /// row or column is in; distances stay within three times the largest cost.
    fn run(
        &mut self,
        problem: &Problem<N>,
        row: usize,
        candidates: &[usize],
        u: &mut [N],
        v: &mut [N],
        holder: &mut [usize],
    ) -> usize {
        let n = candidates.len();
        self.distance.clear();
        self.distance.resize(n, N::MAX);
        self.via.clear();
        self.via.resize(n, NOBODY);
        self.done.clear();
        self.done.resize(n, false);
        self.reached.clear();
        let mut current = row;
        let mut from = NOBODY;
        let mut level = N::from(0);
        let end = loop {
            let offset = level - u[current];
            let mut best = N::MAX;
            let mut next = NOBODY;
            for (p, &column) in candidates.iter().enumerate() {
                if self.done[p] {
                    continue;
                }
                let distance = offset + problem.cost(current, column) - v[column];
                if distance < self.distance[p] {
                    self.distance[p] = distance;
                    self.via[p] = from;
                }
                if self.distance[p] < best {
                    best = self.distance[p];
                    next = p;
                }
            }
            // There is always a free "unpaired" column among the candidates.
            level = best;
            self.done[next] = true;
            let held_by = holder[candidates[next]];
            if held_by == NOBODY {
                break next;
            }
            self.reached.push(next);
            current = held_by;
            from = next;
        };
        u[row] += level;
        for &p in &self.reached {
            let column = candidates[p];
            let shift = level - self.distance[p];
            u[holder[column]] += shift;
            v[column] -= shift;
        }
        // Shift the path: each column on it goes to the row that reached it.
        let mut p = end;
        loop {
            let column = candidates[p];
            let before = self.via[p];
            if before == NOBODY {
                holder[column] = row;
                break;
            }
            holder[column] = holder[candidates[before]];
            p = before;
        }
        candidates[end]
    }
}
