//! The laws of scoring, checked on generated classes and runs (`docs/robustness.md`,
//! "Properties").
//!
//! Tools come from a small alphabet of servers and names, so generated classes overlap, share
//! members and mix bare and qualified forms: the cases where a greedy walk and the maximum
//! assignment part ways.

#![allow(
    clippy::expect_used,
    reason = "generators build only valid members and classes"
)]

use std::collections::BTreeMap;

use proptest::prelude::*;
use proptest::sample::Index;
use trailgate_core::{
    AccuracyCounts, CallOutcome, Class, ClassSet, Counts, Member, Percent, ToolId, pair_calls,
    score,
};

const SERVERS: &[&str] = &["s", "t"];
const NAMES: &[&str] = &["a", "b", "c", "d", "e"];

/// A recorded call: a name of the alphabet, with or without a server.
fn tool_id() -> impl Strategy<Value = ToolId> {
    (
        prop::option::of(prop::sample::select(SERVERS)),
        prop::sample::select(NAMES),
    )
        .prop_map(|(server, name)| ToolId::new(server.map(str::to_owned), name))
}

/// A member: bare or qualified.
fn member() -> impl Strategy<Value = Member> {
    (
        prop::option::of(prop::sample::select(SERVERS)),
        prop::sample::select(NAMES),
    )
        .prop_map(|(server, name)| Member::new(server, name).expect("non-empty parts"))
}

/// One to five classes of one to four members each, named `c0`, `c1`, ...
fn classes() -> impl Strategy<Value = ClassSet> {
    prop::collection::vec(prop::collection::vec(member(), 1..=4), 1..=5).prop_map(|members| {
        ClassSet::new(
            members
                .into_iter()
                .enumerate()
                .map(|(i, members)| Class::new(format!("c{i}"), members))
                .collect(),
        )
        .expect("unique names, non-empty members")
    })
}

fn calls() -> impl Strategy<Value = Vec<ToolId>> {
    prop::collection::vec(tool_id(), 0..=8)
}

/// Whether a call can satisfy a class: it matches one of the class's members.
fn can_satisfy(class: &Class, call: &ToolId) -> bool {
    class.members.iter().any(|member| member.matches(call))
}

/// The seed's walk, as docs/scoring.md#why-not-the-seeds-greedy-walk describes it: each call
/// satisfies the first class, in
/// declaration order, that it belongs to and that is not yet satisfied. Returns, for each
/// class, the call that satisfied it.
fn first_unsatisfied_walk(classes: &ClassSet, calls: &[ToolId]) -> Vec<Option<usize>> {
    let mut satisfied_by = vec![None; classes.len()];
    for (index, call) in calls.iter().enumerate() {
        if let Some(class) = (0..classes.len())
            .find(|&c| satisfied_by[c].is_none() && can_satisfy(&classes.classes()[c], call))
        {
            satisfied_by[class] = Some(index);
        }
    }
    satisfied_by
}

/// The seed's own implementation: a call is credited to the first class that lists it,
/// and is a repeat when that class is already satisfied, even if a later class is not.
fn first_listing_walk(classes: &ClassSet, calls: &[ToolId]) -> Vec<Option<usize>> {
    let mut satisfied_by = vec![None; classes.len()];
    for (index, call) in calls.iter().enumerate() {
        if let Some(class) = (0..classes.len()).find(|&c| can_satisfy(&classes.classes()[c], call))
            && satisfied_by[class].is_none()
        {
            satisfied_by[class] = Some(index);
        }
    }
    satisfied_by
}

/// The largest number of classes any assignment satisfies, by exhaustive search over which
/// class (if any) each call takes; memoised on the call and the set of classes taken.
fn brute_force_maximum(classes: &ClassSet, calls: &[ToolId]) -> usize {
    fn best(
        classes: &ClassSet,
        calls: &[ToolId],
        taken: u32,
        memo: &mut BTreeMap<(usize, u32), usize>,
    ) -> usize {
        let Some((call, rest)) = calls.split_first() else {
            return 0;
        };
        let key = (rest.len(), taken);
        if let Some(&known) = memo.get(&key) {
            return known;
        }
        let mut found = best(classes, rest, taken, memo);
        for (c, class) in classes.classes().iter().enumerate() {
            if taken & (1 << c) == 0 && can_satisfy(class, call) {
                found = found.max(1 + best(classes, rest, taken | (1 << c), memo));
            }
        }
        memo.insert(key, found);
        found
    }
    best(classes, calls, 0, &mut BTreeMap::new())
}

/// The best `(exact pairs, pairs)` of any pairing, by exhaustive search: each expected call
/// takes a free actual call of its tool, or none; memoised on the position and the actual
/// calls taken.
fn best_pairing(expected: &[(Member, u8)], actual: &[(ToolId, u8)]) -> (usize, usize) {
    fn best(
        expected: &[(Member, u8)],
        actual: &[(ToolId, u8)],
        taken: u32,
        memo: &mut BTreeMap<(usize, u32), (usize, usize)>,
    ) -> (usize, usize) {
        let Some(((member, args), rest)) = expected.split_first() else {
            return (0, 0);
        };
        if let Some(&known) = memo.get(&(rest.len(), taken)) {
            return known;
        }
        let mut found = best(rest, actual, taken, memo);
        for (a, (call, call_args)) in actual.iter().enumerate() {
            if taken & (1 << a) == 0 && member.matches(call) {
                let (exact, pairs) = best(rest, actual, taken | (1 << a), memo);
                found = found.max((exact + usize::from(args == call_args), pairs + 1));
            }
        }
        memo.insert((rest.len(), taken), found);
        found
    }
    best(expected, actual, 0, &mut BTreeMap::new())
}

fn true_positives(satisfied_by: &[Option<usize>]) -> u64 {
    satisfied_by.iter().flatten().count() as u64
}

fn all_in_range(percents: [Percent; 3]) -> bool {
    percents.iter().all(|p| p.value() <= 100)
}

/// Found by `call_accuracy_does_not_depend_on_the_order_of_either_list`: pairing exact
/// pairs first and then the leftovers gave `s.b` the only call it matches or not, depending
/// on which expected entry came first (incorrect 1, or missed 1 and extra 1).
#[test]
fn call_accuracy_counts_survive_overlapping_members_in_either_order() {
    let member = |text: &str| Member::parse(text).unwrap();
    let actual = [(ToolId::bare("b"), 0_u8), (ToolId::qualified("s", "b"), 1)];
    for expected in [
        [(member("s.b"), 1_u8), (member("b"), 1)],
        [(member("b"), 1), (member("s.b"), 1)],
    ] {
        let pairing = pair_calls(
            2,
            2,
            |e, a| expected[e].0.matches(&actual[a].0),
            |e, a| expected[e].1 == actual[a].1,
        );
        assert_eq!(
            (
                pairing.correct.len(),
                pairing.incorrect.len(),
                pairing.missed.len(),
                pairing.extra.len()
            ),
            (1, 1, 0, 0),
            "{expected:?}"
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Every percent is a whole number from 0 to 100, whatever the counts, even near
    /// `u64::MAX` where sums saturate.
    #[test]
    fn percents_are_always_between_0_and_100(
        tp in any::<u64>(), fp in any::<u64>(), fn_ in any::<u64>(),
        small in (0_u64..4, 0_u64..4, 0_u64..4),
        numerator in any::<u64>(), denominator in any::<u64>(),
    ) {
        for counts in [Counts::new(tp, fp, fn_), Counts::new(small.0, small.1, small.2)] {
            let m = counts.metrics();
            prop_assert!(all_in_range([m.precision, m.recall, m.f1]), "{counts:?} gave {m:?}");
        }
        for counts in [
            AccuracyCounts { correct: tp, expected: fp, actual: fn_ },
            AccuracyCounts { correct: small.0, expected: small.1, actual: small.2 },
        ] {
            let m = counts.metrics();
            prop_assert!(all_in_range([m.precision, m.recall, m.f1]), "{counts:?} gave {m:?}");
        }
        prop_assert!(Percent::floor_of(numerator, denominator).value() <= 100);
    }

    /// The same holds for every run actually scored, and the counts add up: one true
    /// positive or false negative per class, one false positive at most per call.
    #[test]
    fn scored_runs_have_percents_in_range(classes in classes(), calls in calls()) {
        let run = score(&classes, &calls);
        let m = run.counts.metrics();
        prop_assert!(all_in_range([m.precision, m.recall, m.f1]));
        prop_assert_eq!(
            run.counts.true_positives + run.counts.false_negatives,
            classes.len() as u64
        );
        prop_assert!(run.counts.false_positives <= calls.len() as u64);
    }

    /// Micro-averaging sums the runs' counts before computing the percents once, so the
    /// order in which the runs are read cannot matter.
    #[test]
    fn micro_average_does_not_depend_on_run_order(
        classes in classes(),
        (runs, shuffled) in prop::collection::vec(calls(), 0..=6)
            .prop_flat_map(|runs| (Just(runs.clone()), Just(runs).prop_shuffle())),
    ) {
        let total = |runs: &[Vec<ToolId>]| -> Counts {
            runs.iter().map(|calls| score(&classes, calls).counts).sum()
        };
        let (a, b) = (total(&runs), total(&shuffled));
        prop_assert_eq!(a, b);
        prop_assert_eq!(a.metrics(), b.metrics());
    }

    /// A run's counts depend on which calls it made, not on their order: the true positives
    /// are the size of a maximum assignment, and the false positives exactly the calls that
    /// match no class at all (a call that matches a class but is left out of a maximum
    /// assignment always repeats a satisfied class).
    #[test]
    fn run_counts_do_not_depend_on_call_order(
        classes in classes(),
        (calls, shuffled) in calls().prop_flat_map(|c| (Just(c.clone()), Just(c).prop_shuffle())),
    ) {
        let a = score(&classes, &calls).counts;
        prop_assert_eq!(a, score(&classes, &shuffled).counts);
        let unmatched = calls
            .iter()
            .filter(|call| classes.classes().iter().all(|class| !can_satisfy(class, call)))
            .count() as u64;
        prop_assert_eq!(a.false_positives, unmatched);
    }

    /// The maximum assignment never satisfies fewer classes than either reading of the
    /// seed's first-class walk, and it is truly maximum (an exhaustive search finds no
    /// better assignment).
    #[test]
    fn maximum_assignment_is_never_worse_than_the_seed_walk(
        classes in classes(),
        calls in calls(),
    ) {
        let run = score(&classes, &calls);
        let tp = run.counts.true_positives;
        prop_assert!(tp >= true_positives(&first_unsatisfied_walk(&classes, &calls)));
        prop_assert!(tp >= true_positives(&first_listing_walk(&classes, &calls)));
        prop_assert_eq!(tp, brute_force_maximum(&classes, &calls) as u64);
        // The assignment is consistent: each class's call is Satisfied(that class).
        for (class, call) in run.satisfied_by.iter().enumerate() {
            if let Some(call) = call {
                prop_assert_eq!(run.calls[*call], CallOutcome::Satisfied(class));
                prop_assert!(can_satisfy(&classes.classes()[class], &calls[*call]));
            }
        }
    }

    /// When no call can satisfy two classes (the seed's own setting), the maximum assignment
    /// is exactly the seed's walk: a class is taken by the first call that names a member.
    #[test]
    fn without_overlap_the_assignment_is_the_seed_walk(
        classes in classes(),
        calls in calls(),
    ) {
        let overlapping = calls.iter().any(|call| {
            classes.classes().iter().filter(|class| can_satisfy(class, call)).count() > 1
        });
        prop_assume!(!overlapping);
        let run = score(&classes, &calls);
        prop_assert_eq!(&run.satisfied_by, &first_unsatisfied_walk(&classes, &calls));
        prop_assert_eq!(&run.satisfied_by, &first_listing_walk(&classes, &calls));
    }

    /// Adding a repeat changes nothing. A call that matches a member of a satisfied class,
    /// inserted anywhere, never adds a false positive. When it comes out as a repeat, the
    /// counts, the assignment and every other call's outcome are exactly as before. It may
    /// instead take the class from the call that held it (inserted before that call; the
    /// counts stay), or open a better assignment when classes overlap (it stands in for a
    /// call that then moves on to an unsatisfied class): one more true positive, one fewer
    /// false negative.
    #[test]
    fn adding_a_repeat_of_a_satisfied_class_changes_nothing(
        classes in classes(),
        calls in calls(),
        pick in any::<Index>(),
        server in prop::option::of(prop::sample::select(SERVERS)),
        position in any::<Index>(),
    ) {
        let before = score(&classes, &calls);
        let members: Vec<&Member> = before
            .satisfied_by
            .iter()
            .enumerate()
            .filter(|(_, call)| call.is_some())
            .flat_map(|(class, _)| &classes.classes()[class].members)
            .collect();
        prop_assume!(!members.is_empty());
        let member = pick.get(&members);
        // A call of that member: its own server when qualified, any or none when bare.
        let repeat = ToolId::new(
            member.server().or(server).map(str::to_owned),
            member.tool(),
        );
        let at = position.index(calls.len() + 1);
        let mut longer = calls.clone();
        longer.insert(at, repeat);
        let after = score(&classes, &longer);

        prop_assert_eq!(after.counts.false_positives, before.counts.false_positives);
        if let CallOutcome::Repeat(_) = after.calls[at] {
            prop_assert_eq!(after.counts, before.counts);
            let shifted: Vec<Option<usize>> = before
                .satisfied_by
                .iter()
                .map(|call| call.map(|c| if c >= at { c + 1 } else { c }))
                .collect();
            prop_assert_eq!(&after.satisfied_by, &shifted);
            let mut others = after.calls.clone();
            others.remove(at);
            prop_assert_eq!(others, before.calls);
        } else if after.counts != before.counts {
            prop_assert_eq!(after.counts.true_positives, before.counts.true_positives + 1);
            prop_assert_eq!(after.counts.false_negatives + 1, before.counts.false_negatives);
            prop_assert_eq!(
                after.counts.true_positives,
                brute_force_maximum(&classes, &longer) as u64
            );
        }
        // Appended after every other call, it never takes a class from another call.
        let mut appended = calls.clone();
        appended.push(ToolId::new(member.server().or(server).map(str::to_owned), member.tool()));
        let last = score(&classes, &appended);
        if let CallOutcome::Repeat(_) = last.calls[calls.len()] {
            prop_assert_eq!(&last.satisfied_by, &before.satisfied_by);
            prop_assert_eq!(last.counts, before.counts);
        } else {
            prop_assert_eq!(last.counts.true_positives, before.counts.true_positives + 1);
        }
    }

    /// Where no call can satisfy two classes, a repeat is always a repeat: adding it never
    /// changes the counts.
    #[test]
    fn without_overlap_a_repeat_never_changes_the_counts(
        classes in classes(),
        calls in calls(),
        pick in any::<Index>(),
        position in any::<Index>(),
    ) {
        let before = score(&classes, &calls);
        let satisfying: Vec<&ToolId> = before.satisfied_by.iter().flatten().map(|&c| &calls[c]).collect();
        prop_assume!(!satisfying.is_empty());
        let repeat = pick.get(&satisfying);
        prop_assume!(classes.classes().iter().filter(|class| can_satisfy(class, repeat)).count() == 1);
        let mut longer = calls.clone();
        longer.insert(position.index(calls.len() + 1), (*repeat).clone());
        prop_assert_eq!(score(&classes, &longer).counts, before.counts);
    }

    /// A call that matches no class is one more false positive and nothing else: precision
    /// and F1 never rise, recall never changes.
    #[test]
    fn adding_a_call_that_matches_no_class_never_raises_precision_nor_changes_recall(
        classes in classes(),
        calls in calls(),
        position in any::<Index>(),
    ) {
        // `z` is outside the alphabet, so no member names it.
        let stranger = ToolId::qualified("s", "z");
        let at = position.index(calls.len() + 1);
        let mut longer = calls.clone();
        longer.insert(at, stranger);
        let (before, after) = (score(&classes, &calls), score(&classes, &longer));
        prop_assert_eq!(after.calls[at], CallOutcome::Unexpected);
        prop_assert_eq!(
            after.counts,
            Counts::new(
                before.counts.true_positives,
                before.counts.false_positives + 1,
                before.counts.false_negatives,
            )
        );
        let (b, a) = (before.counts.metrics(), after.counts.metrics());
        prop_assert!(a.precision <= b.precision);
        prop_assert!(a.f1 <= b.f1);
        prop_assert_eq!(a.recall, b.recall);
    }

    /// Call accuracy pairs by counts: reordering the expected list, the actual list or both
    /// changes neither how many calls are correct, incorrect, missed and extra, nor the
    /// metrics. The pairing is also a proper one: exact pairs have the same tool and equal
    /// arguments, and no call is paired twice.
    #[test]
    fn call_accuracy_does_not_depend_on_the_order_of_either_list(
        (expected, expected_shuffled) in prop::collection::vec((member(), 0_u8..3), 0..=7)
            .prop_flat_map(|list| (Just(list.clone()), Just(list).prop_shuffle())),
        (actual, actual_shuffled) in prop::collection::vec((tool_id(), 0_u8..3), 0..=7)
            .prop_flat_map(|list| (Just(list.clone()), Just(list).prop_shuffle())),
    ) {
        let tally = |expected: &[(Member, u8)], actual: &[(ToolId, u8)]| {
            let pairing = pair_calls(
                expected.len(),
                actual.len(),
                |e, a| expected[e].0.matches(&actual[a].0),
                |e, a| expected[e].1 == actual[a].1,
            );
            for &(e, a) in &pairing.correct {
                assert!(expected[e].0.matches(&actual[a].0) && expected[e].1 == actual[a].1);
            }
            for &(e, a) in &pairing.incorrect {
                assert!(expected[e].0.matches(&actual[a].0));
            }
            let mut used: Vec<usize> = pairing
                .correct
                .iter()
                .chain(&pairing.incorrect)
                .map(|&(_, a)| a)
                .chain(pairing.extra.iter().copied())
                .collect();
            used.sort_unstable();
            assert_eq!(used, (0..actual.len()).collect::<Vec<_>>(), "each actual call once");
            let counts = AccuracyCounts::of(&pairing, expected.len(), actual.len());
            (
                pairing.correct.len(),
                pairing.incorrect.len(),
                pairing.missed.len(),
                pairing.extra.len(),
                counts.metrics(),
            )
        };
        let reference = tally(&expected, &actual);
        let best = best_pairing(&expected, &actual);
        prop_assert_eq!((reference.0, reference.0 + reference.1), best, "not the best pairing");
        prop_assert_eq!(&tally(&expected_shuffled, &actual), &reference);
        prop_assert_eq!(&tally(&expected, &actual_shuffled), &reference);
        prop_assert_eq!(&tally(&expected_shuffled, &actual_shuffled), &reference);
    }
}
