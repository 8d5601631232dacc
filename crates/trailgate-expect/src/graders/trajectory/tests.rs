//! The unordered modes' parallel groups: the work over a long run is bounded by counting it,
//! and the placement and the explanation are those of the earlier code, which went over the
//! whole run for each turn (kept here as the reference).

use proptest::prelude::*;
use rstest::rstest;
use trailgate_core::maximum_matching;
use trailgate_trace::{Call, Run, Status};

use super::{Closest, StepMatcher, TrajectoryGrader, Turns, WEIGHED_TURNS};
use crate::{SuiteFile, work};

/// The `trajectory` grader of a suite whose one test has it, in `mode` over `expected`.
fn grader(mode: &str, expected: &str) -> TrajectoryGrader {
    let suite = format!(
        "tests:\n  - name: path\n    graders:\n      - type: trajectory\n        config:\n          \
         mode: {mode}\n          expected: [{expected}]\n"
    );
    let mut suite = SuiteFile::new("suite.yaml", suite).parse().unwrap();
    suite.tests.remove(0).graders.trajectory.unwrap()
}

fn call(name: &str, step: u32) -> Call {
    Call {
        server: None,
        name: name.to_owned(),
        args: serde_json::json!({}).into(),
        args_raw: None,
        result: None,
        status: Status::Ok,
        step,
        completed: true,
        agent: None,
        time: None,
    }
}

fn run(calls: Vec<Call>) -> Run {
    Run {
        calls,
        format: "trailgate",
        line: None,
        ..Default::default()
    }
}

/// Ten groups `{parallel: [a<g>, b<g>]}` over a long run of their tools: 30,000 calls, each
/// a turn of its own, so that no group fits a turn; or 6,000 calls two to a turn, a group's
/// pair, so that each fits in many turns. The earlier code went over every call for every
/// turn, per group: 9 billion calls visited for the first run. Now the work (calls visited,
/// and step-call pairs asked about by the matchings) stays within a small multiple of the
/// calls times the groups times the steps (docs/graders/trajectory.md), and the verdict is
/// the small run's.
#[rstest]
#[case::fit_no_turn(1, 30_000)]
#[case::fit_many_turns(2, 6_000)]
fn groups_over_a_long_run_visit_each_call_a_few_times(
    #[case] per_turn: usize,
    #[case] length: usize,
) {
    let groups = 10;
    let expected: Vec<String> = (0..groups)
        .map(|g| format!("{{parallel: [a{g}, b{g}]}}"))
        .collect();
    let calls: Vec<Call> = (0..length)
        .map(|c| {
            let tool = if c % 2 == 0 { "a" } else { "b" };
            call(
                &format!("{tool}{}", c / 2 % groups),
                u32::try_from(c / per_turn).unwrap(),
            )
        })
        .collect();
    let run = run(calls);
    let steps = 2 * groups;
    for mode in ["any_order", "subset"] {
        let grader = grader(mode, &expected.join(", "));
        let (verdict, work) = work::counted(|| grader.grade(&run));
        assert!(
            work <= (WEIGHED_TURNS + 2) * groups * steps * length,
            "{mode}: {work} calls and pairs for {length} calls"
        );
        if per_turn == 1 {
            assert!(!verdict.matches);
            let missing = verdict
                .missing
                .map(|missing| (missing.entry, missing.closest));
            if mode == "any_order" {
                let closest = Closest::Turn {
                    step: 0,
                    found: 1,
                    of: 2,
                };
                assert_eq!(missing, Some((0, Some(closest))));
            }
        } else {
            // Each group takes its first turn; the rest of the calls are extra.
            assert_eq!(verdict.matched, if mode == "subset" { 20 } else { 10 });
            for (g, calls) in verdict.entries.iter().enumerate() {
                let numbers: Vec<usize> = calls.iter().map(|call| call.call).collect();
                assert_eq!(numbers, [2 * g + 1, 2 * g + 2], "{mode}: group {g}");
            }
        }
    }
}

/// The earlier placement of the unordered modes, which listed the calls of a turn by going
/// over the whole run for each turn of each group.
fn unordered_reference(grader: &TrajectoryGrader, calls: &[Call]) -> Vec<Vec<usize>> {
    let mut taken = vec![Vec::new(); grader.expected.len()];
    let mut claimed = vec![false; calls.len()];
    let singles: Vec<usize> = (0..grader.expected.len())
        .filter(|&e| !grader.expected[e].parallel)
        .collect();
    let single_step = |e: usize| &grader.expected[e].steps()[0];
    let mut turns: Vec<u32> = Vec::new();
    for call in calls {
        if !turns.contains(&call.step) {
            turns.push(call.step);
        }
    }
    for (g, entry) in grader.expected.iter().enumerate() {
        if !entry.parallel {
            continue;
        }
        let steps = &entry.steps;
        let rest: Vec<&StepMatcher> = grader.expected[g + 1..]
            .iter()
            .filter(|later| later.parallel)
            .flat_map(|later| later.steps.iter())
            .chain(singles.iter().map(|&e| single_step(e)))
            .collect();
        let free: Vec<usize> = (0..calls.len()).filter(|&c| !claimed[c]).collect();
        let best = maximum_matching(rest.len(), free.len(), |s, c| {
            rest[s].matches(&calls[free[c]])
        })
        .iter()
        .flatten()
        .count();
        let mut chosen: Option<Vec<usize>> = None;
        let mut weighed = 0;
        for &turn in &turns {
            if weighed == WEIGHED_TURNS && chosen.is_some() {
                break;
            }
            let in_turn: Vec<usize> = free
                .iter()
                .copied()
                .filter(|&c| calls[c].step == turn)
                .collect();
            let alone = maximum_matching(steps.len(), in_turn.len(), |s, c| {
                steps[s].matches(&calls[in_turn[c]])
            });
            if !alone.iter().all(Option::is_some) {
                continue;
            }
            weighed += 1;
            let k = steps.len();
            let joint = maximum_matching(k + rest.len(), free.len(), |l, c| {
                let call = &calls[free[c]];
                if l < k {
                    call.step == turn && steps[l].matches(call)
                } else {
                    rest[l - k].matches(call)
                }
            });
            let group: Vec<usize> = joint[..k].iter().flatten().map(|&c| free[c]).collect();
            let kept = joint[k..].iter().flatten().count();
            if chosen.is_none() {
                chosen = Some(group.clone());
            }
            if kept == best {
                chosen = Some(group);
                break;
            }
        }
        if let Some(group) = chosen {
            for &c in &group {
                claimed[c] = true;
            }
            taken[g] = group;
        }
    }
    let free: Vec<usize> = (0..calls.len()).filter(|&c| !claimed[c]).collect();
    let pairs = maximum_matching(singles.len(), free.len(), |s, c| {
        single_step(singles[s]).matches(&calls[free[c]])
    });
    for (s, c) in pairs.into_iter().enumerate() {
        if let Some(c) = c {
            taken[singles[s]] = vec![free[c]];
        }
    }
    taken
}

/// The earlier closest turn of a group, found by going over the whole run for each turn.
fn closest_turn_reference(steps: &[StepMatcher], calls: &[Call]) -> Option<Closest> {
    let mut best: Option<(u32, usize)> = None;
    let mut seen: Vec<u32> = Vec::new();
    for call in calls {
        if seen.contains(&call.step) {
            continue;
        }
        seen.push(call.step);
        let in_turn: Vec<&Call> = calls
            .iter()
            .filter(|other| other.step == call.step)
            .collect();
        let found = maximum_matching(steps.len(), in_turn.len(), |s, c| {
            steps[s].matches(in_turn[c])
        })
        .iter()
        .flatten()
        .count();
        if found > 0 && best.is_none_or(|(_, most)| found > most) {
            best = Some((call.step, found));
        }
    }
    best.map(|(step, found)| Closest::Turn {
        step,
        found,
        of: steps.len(),
    })
}

/// An expected path of steps and groups over the tools `a`, `b`, `c`.
fn path() -> impl Strategy<Value = String> {
    let tool = prop::sample::select(&["a", "b", "c"][..]);
    let entry = prop_oneof![
        tool.clone().prop_map(str::to_owned),
        prop::collection::vec(tool, 2..=3)
            .prop_map(|steps| format!("{{parallel: [{}]}}", steps.join(", "))),
    ];
    prop::collection::vec(entry, 1..=5).prop_map(|entries| entries.join(", "))
}

/// Calls of the tools `a`, `b`, `c` in turns 0 to 3, in any order: a turn's calls need not
/// be together.
fn calls() -> impl Strategy<Value = Vec<Call>> {
    let call = (prop::sample::select(&["a", "b", "c"][..]), 0_u32..4)
        .prop_map(|(name, step)| call(name, step));
    prop::collection::vec(call, 0..=14)
}

proptest! {
    /// The calls each entry takes, and the closest turn of each group, are the earlier
    /// code's.
    #[test]
    fn groups_are_placed_and_explained_as_before(
        expected in path(),
        calls in calls(),
        mode in prop::sample::select(&["any_order", "superset", "subset"][..]),
    ) {
        let grader = grader(mode, &expected);
        let turns = Turns::new(&calls);
        prop_assert_eq!(
            grader.unordered(&calls, || &turns),
            unordered_reference(&grader, &calls)
        );
        let covered = vec![false; calls.len()];
        for (e, entry) in grader.expected.iter().enumerate() {
            if entry.parallel {
                prop_assert_eq!(
                    grader.closest(e, &calls, &covered, || &turns),
                    closest_turn_reference(&entry.steps, &calls)
                );
            }
        }
    }
}
