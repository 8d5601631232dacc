//! The laws of the reliability statistics, checked on generated counts
//! (`docs/reliability.md`, "What is tested").

use proptest::prelude::*;
use trailgate_core::reliability::{
    Confidence, ReliabilityError, difference_interval, pass_at_k, pass_hat_k, pass_hat_k_decay,
    pass_rate, reliability, wilson_interval,
};

fn confidence() -> impl Strategy<Value = Confidence> {
    prop::sample::select(Confidence::ALL.to_vec())
}

/// n runs (up to `max`), c of them passed, and a k in 1..=n.
fn counts_with_k(max: u64) -> impl Strategy<Value = (u64, u64, u64)> {
    (1..=max).prop_flat_map(|n| (Just(n), 0..=n, 1..=n))
}

fn counts(max: u64) -> impl Strategy<Value = (u64, u64)> {
    (1..=max).prop_flat_map(|n| (Just(n), 0..=n))
}

proptest! {
    /// C(c,k)/C(n,k) ≤ c/n ≤ 1 − C(n−c,k)/C(n,k) holds exactly, and rounding down is
    /// monotone, so the whole percents keep the order with no slack at all.
    #[test]
    fn pass_hat_k_is_at_most_the_rate_and_pass_at_k_at_least((n, c, k) in counts_with_k(400)) {
        let rate = pass_rate(n, c).unwrap();
        prop_assert!(pass_hat_k(n, c, k).unwrap() <= rate);
        prop_assert!(rate <= pass_at_k(n, c, k).unwrap());
    }

    #[test]
    fn k_of_one_is_the_pass_rate((n, c) in counts(100_000)) {
        let rate = pass_rate(n, c).unwrap();
        prop_assert_eq!(pass_hat_k(n, c, 1).unwrap(), rate);
        prop_assert_eq!(pass_at_k(n, c, 1).unwrap(), rate);
    }

    /// Asking more runs to all pass never helps, asking that one of more runs passes never
    /// hurts; the decay lists pass^k in order of k.
    #[test]
    fn pass_hat_k_falls_and_pass_at_k_rises_with_k((n, c, k) in counts_with_k(300)) {
        prop_assume!(k < n);
        prop_assert!(pass_hat_k(n, c, k + 1).unwrap() <= pass_hat_k(n, c, k).unwrap());
        prop_assert!(pass_at_k(n, c, k + 1).unwrap() >= pass_at_k(n, c, k).unwrap());
        let decay = pass_hat_k_decay(n, c).unwrap();
        prop_assert_eq!(decay.len() as u64, n.min(10));
        for (i, value) in decay.iter().enumerate() {
            prop_assert_eq!(*value, pass_hat_k(n, c, i as u64 + 1).unwrap());
        }
    }

    #[test]
    fn the_interval_holds_the_pass_rate((n, c) in counts(1_000_000), confidence in confidence()) {
        let interval = wilson_interval(n, c, confidence).unwrap();
        let rate = pass_rate(n, c).unwrap();
        prop_assert!(interval.lower <= rate && rate <= interval.upper);
        prop_assert!(!interval.is_inconclusive(interval.lower));
        prop_assert!(!interval.is_inconclusive(interval.upper));
    }

    /// A higher confidence widens the interval.
    #[test]
    fn higher_confidence_widens_the_interval((n, c) in counts(5_000)) {
        let [ninety, ninety_five, ninety_nine] =
            Confidence::ALL.map(|level| wilson_interval(n, c, level).unwrap());
        for (narrow, wide) in [(ninety, ninety_five), (ninety_five, ninety_nine)] {
            prop_assert!(wide.lower <= narrow.lower && narrow.upper <= wide.upper);
        }
    }

    /// At the same rate c/n, more runs give a narrower interval (weakly: the whole percents
    /// may stay put).
    #[test]
    fn the_interval_narrows_as_runs_grow_at_a_fixed_rate(
        (n, c) in counts(2_000),
        times in 2u64..50,
        confidence in confidence(),
    ) {
        let few = wilson_interval(n, c, confidence).unwrap();
        let many = wilson_interval(n * times, c * times, confidence).unwrap();
        prop_assert!(few.lower <= many.lower, "{few:?} {many:?}");
        prop_assert!(many.upper <= few.upper, "{few:?} {many:?}");
    }

    /// Shards of a test's runs merge by adding n and c: the statistics of the summed counts
    /// are the statistics of all the runs taken together.
    #[test]
    fn summed_shard_counts_give_the_unsharded_numbers(
        verdicts in prop::collection::vec(any::<bool>(), 1..200),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..6),
        k in any::<prop::sample::Index>(),
        confidence in confidence(),
    ) {
        let mut cuts: Vec<usize> = cuts.iter().map(|cut| cut.index(verdicts.len())).collect();
        cuts.push(verdicts.len());
        cuts.sort_unstable();
        let (mut runs, mut passed, mut start) = (0u64, 0u64, 0);
        for end in cuts {
            let shard = &verdicts[start..end];
            runs += shard.len() as u64;
            passed += shard.iter().filter(|&&v| v).count() as u64;
            start = end;
        }
        let whole_passed = verdicts.iter().filter(|&&v| v).count() as u64;
        let k = k.index(verdicts.len()) as u64 + 1;
        prop_assert_eq!(
            reliability(runs, passed, k, confidence).unwrap(),
            reliability(verdicts.len() as u64, whole_passed, k, confidence).unwrap()
        );
    }

    #[test]
    fn swapping_the_samples_negates_the_difference(
        first in counts(3_000),
        second in counts(3_000),
        confidence in confidence(),
    ) {
        let forward = difference_interval(first, second, confidence).unwrap();
        let backward = difference_interval(second, first, confidence).unwrap();
        prop_assert_eq!(forward.lower.value(), -backward.upper.value());
        prop_assert_eq!(forward.upper.value(), -backward.lower.value());
        prop_assert_eq!(forward.is_significant(), backward.is_significant());
        // The interval holds the observed difference, 100·(p₁ − p₂).
        let d = i128::from(first.1 * second.0) - i128::from(second.1 * first.0);
        let scale = i128::from(first.0 * second.0);
        prop_assert!(i128::from(forward.lower.value()) * scale <= 100 * d);
        prop_assert!(100 * d <= i128::from(forward.upper.value()) * scale);
    }

    #[test]
    fn identical_samples_are_never_significant(sample in counts(100_000), confidence in confidence()) {
        let same = difference_interval(sample, sample, confidence).unwrap();
        prop_assert!(!same.is_significant());
        prop_assert!(same.lower.value() < 0 && same.upper.value() > 0);
    }
}

#[track_caller]
fn check_error(result: Result<impl std::fmt::Debug, ReliabilityError>, message: &str) {
    assert_eq!(
        result.err().map(|error| error.to_string()).as_deref(),
        Some(message)
    );
}

#[test]
fn bad_counts_are_errors_that_name_the_numbers() {
    check_error(
        pass_rate(0, 0),
        "0 runs with 0 passed: the statistics need at least one run",
    );
    check_error(
        pass_rate(3, 4),
        "4 runs passed out of 3: the passed runs cannot outnumber the runs",
    );
    check_error(
        pass_at_k(5, 4, 0),
        "`k` is 0 with 5 runs: it must be at least 1 and at most the number of runs",
    );
    check_error(
        pass_hat_k(5, 4, 6),
        "`k` is 6 with 5 runs: it must be at least 1 and at most the number of runs",
    );
    check_error(
        Confidence::from_percent(80),
        "confidence `80` is not one of 90, 95 or 99 (percent)",
    );
    check_error(
        wilson_interval(0, 1, Confidence::NinetyFive),
        "0 runs with 1 passed: the statistics need at least one run",
    );
    check_error(
        pass_hat_k_decay(2, 3),
        "3 runs passed out of 2: the passed runs cannot outnumber the runs",
    );
    check_error(
        difference_interval((10, 5), (0, 0), Confidence::NinetyFive),
        "0 runs with 0 passed: the statistics need at least one run",
    );
    check_error(
        reliability(10, 5, 11, Confidence::Ninety),
        "`k` is 11 with 10 runs: it must be at least 1 and at most the number of runs",
    );
    assert_eq!(
        pass_at_k(0, 0, 0),
        Err(ReliabilityError::NoRuns { passed: 0 })
    );
}

#[test]
fn the_section_s_examples_and_extremes() {
    let interval = wilson_interval(20, 20, Confidence::NinetyFive).unwrap();
    assert_eq!((interval.lower.value(), interval.upper.value()), (83, 100));
    let none = wilson_interval(20, 0, Confidence::NinetyFive).unwrap();
    assert_eq!((none.lower.value(), none.upper.value()), (0, 17));
    let runs: Vec<u64> = Confidence::ALL
        .iter()
        .map(|c| c.runs_to_resolve())
        .collect();
    assert_eq!(runs, [268, 381, 657]);
    // Counts near the top of u64 neither panic nor overflow.
    let huge = wilson_interval(u64::MAX, u64::MAX / 2, Confidence::NinetyNine).unwrap();
    assert_eq!((huge.lower.value(), huge.upper.value()), (49, 51));
    assert_eq!(pass_at_k(u64::MAX, 1, 3).unwrap().value(), 0);
}
