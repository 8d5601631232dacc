//! Micro-benchmarks of the core algorithms at growing sizes (issue 8, docs/performance.md):
//! the class assignment ([`Selector`]), the longest common subsequence, the maximum matching
//! and the call pairing, the last two also in their worst case at the size limit
//! (`MAX_PAIRING_SIZE`). Run with `cargo bench -p trailgate-core`; nothing here asserts a
//! time.
//!
//! The inputs are fixed pseudo-random lists (a small linear congruential generator, so the
//! benchmark needs no dependency besides divan), over a universe of 24 tools on 6 servers.

use std::hint::black_box;

use divan::Bencher;
use trailgate_core::{
    Class, ClassSet, Member, Selector, ToolId, longest_common_subsequence, maximum_matching,
    pair_calls,
};

fn main() {
    divan::main();
}

/// The sizes every benchmark is run at: calls in a run, entries in a list.
const SIZES: &[usize] = &[10, 100, 1_000, 10_000];

const SERVERS: usize = 6;
const TOOLS: usize = 24;

/// A deterministic list of `n` numbers below `bound`.
fn numbers(n: usize, bound: usize, seed: u64) -> Vec<usize> {
    let mut state = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
    (0..n)
        .map(|_| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let high = usize::try_from(state >> 33).unwrap_or(0);
            high % bound
        })
        .collect()
}

fn tool(index: usize) -> ToolId {
    ToolId::qualified(format!("server{}", index % SERVERS), format!("tool{index}"))
}

fn member(index: usize) -> Option<Member> {
    Member::parse(&format!("server{}.tool{index}", index % SERVERS)).ok()
}

/// Eight classes over the 24 tools, two to three members each, one of them bare.
fn classes() -> ClassSet {
    let mut classes: Vec<Class> = (0..8)
        .map(|class| {
            let members = [class, class + 8, class + 16]
                .into_iter()
                .take(if class % 2 == 0 { 3 } else { 2 })
                .filter_map(member)
                .collect();
            Class::new(format!("class{class}"), members)
        })
        .collect();
    if let Some(first) = classes.first_mut() {
        first.members.extend(Member::parse("tool23").ok());
    }
    ClassSet::new(classes).unwrap_or_else(|_| unreachable!("the classes are well formed"))
}

/// `Selector` over a run of `n` calls against eight classes: the common case, where most
/// calls repeat an identity seen before.
#[divan::bench(args = SIZES, max_time = 2)]
fn selector_calls(bencher: Bencher<'_, '_>, n: usize) {
    let classes = classes();
    let calls: Vec<ToolId> = numbers(n, TOOLS, 1).into_iter().map(tool).collect();
    bencher.bench_local(|| {
        let mut selector = Selector::new(&classes);
        for call in &calls {
            selector.push(call);
        }
        black_box(selector.finish())
    });
}

/// `Selector` with as many classes as calls, every call a new identity that can satisfy
/// two neighbouring classes: long augmenting paths, the assignment's hard case.
#[divan::bench(args = SIZES, max_time = 2)]
fn selector_chain(bencher: Bencher<'_, '_>, n: usize) {
    let classes: Vec<Class> = (0..n)
        .map(|class| {
            let members = [class, class + 1]
                .into_iter()
                .filter_map(|tool| Member::parse(&format!("s.t{tool}")).ok())
                .collect();
            Class::new(format!("c{class}"), members)
        })
        .collect();
    let classes =
        ClassSet::new(classes).unwrap_or_else(|_| unreachable!("the classes are well formed"));
    // Calls in reverse, so each new call displaces the previous holder along the chain.
    let calls: Vec<ToolId> = (1..=n)
        .rev()
        .map(|tool| ToolId::qualified("s", format!("t{tool}")))
        .collect();
    bencher.bench_local(|| {
        let mut selector = Selector::new(&classes);
        for call in &calls {
            selector.push(call);
        }
        black_box(selector.finish())
    });
}

/// `longest_common_subsequence` of a 4-tool expected list against a run of `n` calls: what
/// `tool-correctness` with `check_ordering` does per run.
#[divan::bench(args = SIZES, max_time = 2)]
fn lcs_expected_4(bencher: Bencher<'_, '_>, n: usize) {
    let expected = [0, 3, 7, 11];
    let calls = numbers(n, TOOLS, 2);
    bencher.bench_local(|| {
        black_box(longest_common_subsequence(
            expected.len(),
            calls.len(),
            |e, c| expected[e] == calls[c],
        ))
    });
}

/// `longest_common_subsequence` of two lists of `n`: the quadratic table at full size.
#[divan::bench(args = [10, 100, 1_000, 4_000], max_time = 2)]
fn lcs_square(bencher: Bencher<'_, '_>, n: usize) {
    let a = numbers(n, TOOLS, 3);
    let b = numbers(n, TOOLS, 4);
    bencher.bench_local(|| black_box(longest_common_subsequence(n, n, |i, j| a[i] == b[j])));
}

/// `maximum_matching` of `n` expected tools against `n` calls (non-exact
/// `tool-correctness`).
#[divan::bench(args = SIZES, max_time = 2)]
fn maximum_matching_square(bencher: Bencher<'_, '_>, n: usize) {
    let expected = numbers(n, TOOLS, 5);
    let calls = numbers(n, TOOLS, 6);
    bencher.bench_local(|| black_box(maximum_matching(n, n, |e, c| expected[e] == calls[c])));
}

/// `pair_calls` of `n` expected calls against `n` calls (call accuracy): same tool over 24
/// tools, equal arguments over 4 argument values.
#[divan::bench(args = SIZES, max_time = 2)]
fn pair_calls_square(bencher: Bencher<'_, '_>, n: usize) {
    let expected_tools = numbers(n, TOOLS, 7);
    let expected_args = numbers(n, 4, 8);
    let tools = numbers(n, TOOLS, 9);
    let args = numbers(n, 4, 10);
    bencher.bench_local(|| {
        black_box(pair_calls(
            n,
            n,
            |e, a| expected_tools[e] == tools[a],
            |e, a| expected_args[e] == args[a],
        ))
    });
}

/// `pair_calls` of 4 expected calls against a run of `n` calls: what `call-accuracy` does
/// per run of the benchmark suite.
#[divan::bench(args = SIZES, max_time = 2)]
fn pair_calls_expected_4(bencher: Bencher<'_, '_>, n: usize) {
    let expected_tools = [0, 3, 7, 11];
    let tools = numbers(n, TOOLS, 11);
    let args = numbers(n, 4, 12);
    bencher.bench_local(|| {
        black_box(pair_calls(
            4,
            n,
            |e, a| expected_tools[e] == tools[a],
            |_, a| args[a] == 0,
        ))
    });
}

/// The largest square within `MAX_PAIRING_SIZE`: 645 × 645 × 645 is at most 2^28.
const ONE_TOOL_SIZES: &[usize] = &[10, 100, 645];

/// `maximum_matching` of `n` expected entries of one tool against `n` calls of it: every
/// pair is possible, and each new entry's augmenting path runs through every earlier one.
#[divan::bench(args = ONE_TOOL_SIZES, max_time = 2)]
fn maximum_matching_one_tool(bencher: Bencher<'_, '_>, n: usize) {
    bencher.bench_local(|| black_box(maximum_matching(n, n, |_, _| true)));
}

/// `pair_calls` of `n` expected calls of one tool against `n` calls of it, all with other
/// arguments: every pair is possible and every pairing of the same calls ties, the worst
/// case of the Hungarian algorithm's searches.
#[divan::bench(args = ONE_TOOL_SIZES, max_time = 2)]
fn pair_calls_one_tool(bencher: Bencher<'_, '_>, n: usize) {
    bencher.bench_local(|| black_box(pair_calls(n, n, |_, _| true, |_, _| false)));
}
