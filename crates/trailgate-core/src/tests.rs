//! Unit tests of the scoring rules, one `check` per rule and a row per case.

use rstest::rstest;

use crate::{
    AccuracyCounts, CallOutcome, Class, ClassSet, Counts, MAX_PAIRING_PAIRS, MAX_PAIRING_SIZE,
    Member, Percent, Selector, ToolId, ToolRef, check_pairing_size, longest_common_subsequence,
    longest_common_subsequence_of_spans, maximum_matching, pair_calls, pairing_size, score,
};

fn id(text: &str) -> ToolId {
    match text.split_once('.') {
        Some((server, name)) => ToolId::qualified(server, name),
        None => ToolId::bare(text),
    }
}

/// Classes written as `name=member,member;name=member`.
fn classes(spec: &str) -> ClassSet {
    ClassSet::new(
        spec.split(';')
            .filter(|class| !class.is_empty())
            .map(|class| {
                let (name, members) = class.split_once('=').unwrap();
                Class::new(
                    name,
                    members
                        .split(',')
                        .map(|m| Member::parse(m).unwrap())
                        .collect(),
                )
            })
            .collect(),
    )
    .unwrap()
}

const SEARCH_FETCH: &str = "search=brave.web_search,google.search;fetch=http.get";

#[track_caller]
fn check(spec: &str, calls: &[&str], counts: (u64, u64, u64), percents: (u8, u8, u8)) {
    let ids: Vec<ToolId> = calls.iter().map(|c| id(c)).collect();
    let selection = score(&classes(spec), &ids);
    assert_eq!(
        selection.counts,
        Counts::new(counts.0, counts.1, counts.2),
        "counts"
    );
    let m = selection.counts.metrics();
    assert_eq!(
        (m.precision.value(), m.recall.value(), m.f1.value()),
        percents,
        "precision, recall, f1"
    );
}

#[rstest]
#[case::seed_first_run(SEARCH_FETCH, &["brave.web_search", "http.get"], (2, 0, 0), (100, 100, 100))]
#[case::seed_second_run(SEARCH_FETCH, &["google.search", "shell.exec"], (1, 1, 1), (50, 50, 50))]
#[case::repeats_neither_count_nor_penalise(SEARCH_FETCH, &["brave.web_search", "google.search", "http.get", "brave.web_search"], (2, 0, 0), (100, 100, 100))]
#[case::f1_from_counts_not_from_rounded_percents(SEARCH_FETCH, &["brave.web_search", "http.get", "shell.exec"], (2, 1, 0), (66, 100, 80))]
#[case::no_calls_zero_denominator(SEARCH_FETCH, &[], (0, 0, 2), (0, 0, 0))]
#[case::nothing_expected_nothing_called("", &[], (0, 0, 0), (100, 100, 100))]
#[case::nothing_expected_something_called("", &["shell.exec"], (0, 1, 0), (0, 0, 0))]
#[case::bare_member_matches_any_server("search=web_search", &["brave.web_search"], (1, 0, 0), (100, 100, 100))]
#[case::bare_member_matches_serverless_call("search=web_search", &["web_search"], (1, 0, 0), (100, 100, 100))]
#[case::qualified_member_never_matches_serverless_call("search=brave.web_search", &["web_search"], (0, 1, 1), (0, 0, 0))]
#[case::qualified_member_other_server("search=brave.web_search", &["google.web_search"], (0, 1, 1), (0, 0, 0))]
#[case::overlap_needs_maximum_assignment("a=search.web,search.news;b=search.web", &["search.web", "search.news"], (2, 0, 0), (100, 100, 100))]
#[case::overlap_later_call_reroutes_chain("a=x,y;b=y,z;c=z", &["y", "x", "z"], (3, 0, 0), (100, 100, 100))]
#[case::overlap_one_call_one_class("a=x;b=x", &["x"], (1, 0, 1), (100, 50, 66))]
fn scoring_rules(
    #[case] spec: &str,
    #[case] calls: &[&str],
    #[case] counts: (u64, u64, u64),
    #[case] percents: (u8, u8, u8),
) {
    check(spec, calls, counts, percents);
}

#[test]
fn outcomes_name_the_class_and_the_repeat() {
    let ids: Vec<ToolId> = [
        "google.search",
        "brave.web_search",
        "shell.exec",
        "http.get",
    ]
    .iter()
    .map(|c| id(c))
    .collect();
    let selection = score(&classes(SEARCH_FETCH), &ids);
    assert_eq!(selection.satisfied_by, vec![Some(0), Some(3)]);
    assert_eq!(
        selection.calls,
        vec![
            CallOutcome::Satisfied(0),
            CallOutcome::Repeat(0),
            CallOutcome::Unexpected,
            CallOutcome::Satisfied(1),
        ]
    );
}

#[test]
fn assignment_is_the_first_come_walk_when_classes_do_not_overlap() {
    let ids: Vec<ToolId> = ["google.search", "brave.web_search"]
        .iter()
        .map(|c| id(c))
        .collect();
    let selection = score(&classes(SEARCH_FETCH), &ids);
    assert_eq!(selection.satisfied_by, vec![Some(0), None]);
}

#[test]
fn a_call_rerouted_by_a_later_call_keeps_a_class() {
    // `search.web` first takes `a`; `search.news` can only satisfy `a`, so the augmenting
    // path moves `search.web` to `b`.
    let spec = "a=search.web,search.news;b=search.web";
    let ids = [id("search.web"), id("search.news")];
    let selection = score(&classes(spec), &ids);
    assert_eq!(selection.satisfied_by, vec![Some(1), Some(0)]);
}

#[test]
fn micro_average_sums_counts_in_any_order() {
    let runs = [
        Counts::new(2, 0, 0),
        Counts::new(0, 3, 2),
        Counts::new(1, 1, 1),
    ];
    let forward: Counts = runs.iter().copied().sum();
    let backward: Counts = runs.iter().rev().copied().sum();
    assert_eq!(forward, backward);
    assert_eq!(forward, Counts::new(3, 4, 3));
    let m = forward.metrics();
    // 3/7 = 42.8 -> 42; 3/6 = 50; 6/13 = 46.1 -> 46
    assert_eq!(
        (m.precision.value(), m.recall.value(), m.f1.value()),
        (42, 50, 46)
    );
}

#[rstest]
#[case::dotted_tool("github.repos.list", Some("github"), "repos.list")]
#[case::bare("web_search", None, "web_search")]
fn member_splits_at_the_first_dot(
    #[case] text: &str,
    #[case] server: Option<&str>,
    #[case] tool: &str,
) {
    let member = Member::parse(text).unwrap();
    assert_eq!((member.server(), member.tool()), (server, tool));
}

#[rstest]
#[case::empty("")]
#[case::empty_server(".web_search")]
#[case::empty_tool("brave.")]
fn member_rejects_empty_parts(#[case] text: &str) {
    assert!(Member::parse(text).is_err());
}

#[test]
fn member_compares_parts_not_text() {
    let member = Member::new(Some("a.b"), "c").unwrap();
    assert!(member.matches(&ToolId::qualified("a.b", "c")));
    assert!(!member.matches(&ToolId::qualified("a", "b.c")));
}

#[rstest]
#[case::qualified("brave.web_search", Some("brave"), "web_search", "brave.web_search")]
#[case::bare("web_search", None, "web_search", "web_search")]
fn tool_ref_is_the_borrowed_tool_id(
    #[case] text: &str,
    #[case] server: Option<&str>,
    #[case] name: &str,
    #[case] shown: &str,
) {
    let owned = id(text);
    let borrowed = ToolRef::new(server, name);
    assert_eq!(owned.as_tool_ref(), borrowed);
    assert_eq!(ToolRef::from(&owned), borrowed);
    assert_eq!((borrowed.server(), borrowed.name()), (server, name));
    assert_eq!(borrowed.to_tool_id(), owned);
    assert_eq!(borrowed.to_string(), shown);
    assert_eq!(owned.to_string(), shown);
}

#[rstest]
#[case::qualified_same_server("brave.web_search", Some("brave"), "web_search", true)]
#[case::qualified_other_server("brave.web_search", Some("google"), "web_search", false)]
#[case::qualified_no_server("brave.web_search", None, "web_search", false)]
#[case::bare_any_server("web_search", Some("google"), "web_search", true)]
#[case::bare_no_server("web_search", None, "web_search", true)]
#[case::other_tool("web_search", None, "search", false)]
fn member_matches_a_borrowed_id_as_an_owned_one(
    #[case] member: &str,
    #[case] server: Option<&str>,
    #[case] name: &str,
    #[case] matches: bool,
) {
    let member = Member::parse(member).unwrap();
    let call = ToolRef::new(server, name);
    assert_eq!(member.matches_ref(call), matches);
    assert_eq!(member.matches(&call.to_tool_id()), matches);
}

/// `bare` and qualified members of one tool in several classes: the look-up merges them.
#[rstest]
#[case::bare_and_qualified_merged("brave.search", &[0, 1, 2])]
#[case::bare_only_on_another_server("google.search", &[0, 2])]
#[case::bare_only_without_a_server("search", &[0, 2])]
#[case::qualified_only("brave.fetch", &[1])]
#[case::nothing("shell.exec", &[])]
fn class_set_candidates_of_a_borrowed_id(#[case] call: &str, #[case] expected: &[usize]) {
    let classes = classes("a=search;b=brave.search,brave.fetch;c=brave.search,search");
    let call = id(call);
    assert_eq!(classes.candidates_of(call.as_tool_ref()), expected);
    assert_eq!(classes.candidates(&call), expected);
}

#[test]
fn selector_with_capacity_and_push_ref_score_as_new_and_push() {
    let classes = classes("a=x,y;b=y,z;c=z;d=brave.w,w");
    let calls = ["y", "x", "q", "z", "y", "brave.w", "google.w", "q"].map(id);
    let mut borrowed = Selector::with_capacity(&classes, calls.len());
    for call in &calls {
        borrowed.push_ref(call.as_tool_ref());
    }
    let borrowed = borrowed.finish();
    assert_eq!(borrowed, score(&classes, &calls));
    assert_eq!(
        borrowed.satisfied_by,
        vec![Some(1), Some(0), Some(3), Some(5)]
    );
    assert_eq!(borrowed.counts, Counts::new(4, 2, 0));
}

#[test]
fn class_set_refuses_duplicates_and_empty_classes() {
    let dup = ClassSet::new(vec![
        Class::new("x", vec![Member::parse("a").unwrap()]),
        Class::new("x", vec![Member::parse("b").unwrap()]),
    ]);
    assert!(dup.is_err());
    assert!(ClassSet::new(vec![Class::new("x", vec![])]).is_err());
}

#[test]
fn percent_floors_once_and_guards_zero() {
    assert_eq!(Percent::floor_of(2, 3), Percent::new(66).unwrap());
    assert_eq!(Percent::floor_of(1, 0), Percent::ZERO);
    assert_eq!(Percent::floor_of(u64::MAX, u64::MAX), Percent::FULL);
    assert_eq!(Percent::new(101), None);
}

#[test]
fn a_long_augmenting_path_does_not_exhaust_the_stack() {
    // Class i is satisfied by tool i or tool i+1. Tools 1..=n take classes 0..n, leaving
    // class n free; tool 0 can only take class 0, so its augmenting path shifts every one
    // of the n calls along by one class.
    let n: usize = 20_000;
    let spec: Vec<Class> = (0..=n)
        .map(|i| {
            Class::new(
                format!("c{i}"),
                vec![
                    Member::parse(&format!("t{i}")).unwrap(),
                    Member::parse(&format!("t{}", i + 1)).unwrap(),
                ],
            )
        })
        .collect();
    let set = ClassSet::new(spec).unwrap();
    let mut ids: Vec<ToolId> = (1..=n).map(|i| ToolId::bare(format!("t{i}"))).collect();
    ids.push(ToolId::bare("t0"));
    let selection = score(&set, &ids);
    let satisfied = u64::try_from(n + 1).unwrap();
    assert_eq!(selection.counts, Counts::new(satisfied, 0, 0));
    assert_eq!(selection.satisfied_by[0], Some(n), "tool 0 holds class 0");
    assert_eq!(
        selection.satisfied_by[n],
        Some(n - 1),
        "tool n moved to class n"
    );
}

/// Lists of single letters: an item matches an item with the same letter.
fn letters(text: &str) -> Vec<char> {
    text.chars().collect()
}

#[rstest]
#[case::all_found("sb", "svb", 2)]
#[case::one_found("sb", "s", 1)]
#[case::none_found("sb", "v", 0)]
#[case::each_expected_item_takes_a_distinct_call("ssb", "sb", 2)]
#[case::repeated_calls_do_not_count_twice("s", "sss", 1)]
#[case::order_does_not_matter("sb", "bs", 2)]
fn multiset_match(#[case] expected: &str, #[case] called: &str, #[case] matched: usize) {
    let (e, c) = (letters(expected), letters(called));
    let matching = maximum_matching(e.len(), c.len(), |i, j| e[i] == c[j]);
    assert_eq!(matching.iter().flatten().count(), matched);
}

#[test]
fn maximum_matching_reroutes_for_more_pairs() {
    // Left 0 can take right 0 or 1, left 1 only right 0: both are paired.
    let edges = [[true, true], [true, false]];
    let matching = maximum_matching(2, 2, |l, r| edges[l][r]);
    assert_eq!(matching, vec![Some(1), Some(0)]);
}

#[rstest]
#[case::in_order("sb", "svb", &[(0, 0), (1, 2)])]
#[case::reversed("sb", "bs", &[(0, 1)])]
#[case::nothing("sb", "v", &[])]
#[case::repeats("ssb", "sbsb", &[(0, 0), (1, 2), (2, 3)])]
fn lcs(#[case] a: &str, #[case] b: &str, #[case] pairs: &[(usize, usize)]) {
    let (a, b) = (letters(a), letters(b));
    assert_eq!(
        longest_common_subsequence(a.len(), b.len(), |i, j| a[i] == b[j]),
        pairs
    );
}

/// Items of `a` are letters or groups `(xy)` that match the letters of `b` in any order.
#[rstest]
#[case::letters_as_lcs("sb", "svb", &[(0, 0), (1, 2)])]
#[case::group_in_place("s(ab)f", "sbaf", &[(0, 0), (1, 1), (2, 3)])]
#[case::group_apart("s(ab)f", "savbf", &[(0, 0), (2, 4)])]
#[case::group_with_extra("s(ab)f", "sabvf", &[(0, 0), (1, 1), (2, 4)])]
#[case::spans_do_not_overlap("a(ab)", "ab", &[(0, 0)])]
#[case::group_past_end("(ab)", "a", &[])]
fn lcs_of_spans(#[case] a: &str, #[case] b: &str, #[case] pairs: &[(usize, usize)]) {
    let mut items: Vec<Vec<char>> = Vec::new();
    let mut group: Option<Vec<char>> = None;
    for c in a.chars() {
        match (c, &mut group) {
            ('(', _) => group = Some(Vec::new()),
            (')', _) => items.extend(group.take()),
            (c, Some(open)) => open.push(c),
            (c, None) => items.push(vec![c]),
        }
    }
    let b = letters(b);
    let found = longest_common_subsequence_of_spans(
        items.len(),
        b.len(),
        |i| items[i].len(),
        |i, j| {
            let mut span: Vec<char> = b[j..j + items[i].len()].to_vec();
            let mut want = items[i].clone();
            span.sort_unstable();
            want.sort_unstable();
            span == want
        },
    );
    assert_eq!(found, pairs);
}

/// Calls written as `tool:args`; a pairing summary `(correct, incorrect, missed, extra)`.
fn pairing_counts(expected: &[&str], actual: &[&str]) -> (usize, usize, usize, usize) {
    let split = |text: &&str| {
        let (tool, args) = text.split_once(':').unwrap_or((text, ""));
        (tool.to_owned(), args.to_owned())
    };
    let e: Vec<_> = expected.iter().map(split).collect();
    let a: Vec<_> = actual.iter().map(split).collect();
    let p = pair_calls(
        e.len(),
        a.len(),
        |i, j| e[i].0 == a[j].0,
        |i, j| e[i].1 == a[j].1,
    );
    (
        p.correct.len(),
        p.incorrect.len(),
        p.missed.len(),
        p.extra.len(),
    )
}

#[rstest]
#[case::seed_first(&["search:ai", "sum:long"], &["search:ai", "sum:other", "translate:es"], (1, 1, 0, 1))]
#[case::seed_second(&["search:q", "fetch:u", "sum:5"], &["search:q", "fetch:u"], (2, 0, 1, 0))]
#[case::partial_never_steals_exact(&["s:a", "s:b"], &["s:b", "s:a"], (2, 0, 0, 0))]
#[case::repeats(&["s:a", "s:a"], &["s:a", "s:a", "s:a"], (2, 0, 0, 1))]
#[case::empty(&[], &[], (0, 0, 0, 0))]
fn call_pairing(
    #[case] expected: &[&str],
    #[case] actual: &[&str],
    #[case] counts: (usize, usize, usize, usize),
) {
    assert_eq!(pairing_counts(expected, actual), counts);
    let reversed: Vec<&str> = actual.iter().rev().copied().collect();
    assert_eq!(
        pairing_counts(expected, &reversed),
        counts,
        "order of the actual calls"
    );
}

/// Which pairs `pair_calls` asks `equal_args` about, in order: each at most once, and,
/// when no call can pair with two of the other list's, none past a call's first exact one.
#[rstest]
#[case::apart_stops_at_the_first_exact(&["s:a", "f:b"], &["s:x", "s:a", "s:a", "f:b"], &[(0, 0), (0, 1), (1, 3)])]
#[case::apart_transposed(&["s:x", "s:a", "s:a"], &["s:a"], &[(0, 0), (1, 0)])]
#[case::shared_calls_ask_every_pair(&["s:a", "s:b"], &["s:b", "s:a"], &[(0, 0), (1, 0), (0, 1), (1, 1)])]
fn pairing_asks_for_arguments_only_as_needed(
    #[case] expected: &[&str],
    #[case] actual: &[&str],
    #[case] asked: &[(usize, usize)],
) {
    let split = |calls: &[&str]| -> Vec<(String, String)> {
        calls
            .iter()
            .map(|call| {
                let (tool, args) = call.split_once(':').unwrap();
                (tool.to_owned(), args.to_owned())
            })
            .collect()
    };
    let (expected, actual) = (split(expected), split(actual));
    let asked_for = std::cell::RefCell::new(Vec::new());
    pair_calls(
        expected.len(),
        actual.len(),
        |e, a| expected[e].0 == actual[a].0,
        |e, a| {
            asked_for.borrow_mut().push((e, a));
            expected[e].1 == actual[a].1
        },
    );
    assert_eq!(asked_for.into_inner(), asked);
}

#[rstest]
#[case::seed_first(1, 2, 3, (33, 50, 40))]
#[case::seed_second(2, 3, 2, (100, 66, 80))]
#[case::both_empty(0, 0, 0, (100, 100, 100))]
#[case::nothing_expected(0, 0, 2, (0, 0, 0))]
#[case::nothing_made(0, 2, 0, (0, 0, 0))]
fn accuracy_metrics(
    #[case] correct: u64,
    #[case] expected: u64,
    #[case] actual: u64,
    #[case] percents: (u8, u8, u8),
) {
    let m = AccuracyCounts {
        correct,
        expected,
        actual,
    }
    .metrics();
    assert_eq!(
        (m.precision.value(), m.recall.value(), m.f1.value()),
        percents
    );
}

/// The limits on pairing, at and just past each bound (`MAX_PAIRING_PAIRS`,
/// `MAX_PAIRING_SIZE`), in both orders of the lists.
#[rstest]
#[case::square_at_the_size_limit(645, 645, true)]
#[case::square_past_the_size_limit(646, 645, false)]
#[case::long_run_at_both_limits(16, 1 << 20, true)]
#[case::long_run_past_the_pairs_limit(16, (1 << 20) + 1, false)]
#[case::one_expected_at_the_pairs_limit(1, 1 << 24, true)]
#[case::one_expected_past_the_pairs_limit(1, (1 << 24) + 1, false)]
#[case::hundred_expected_at_the_size_limit(100, 26_843, true)]
#[case::hundred_expected_past_the_size_limit(100, 26_844, false)]
#[case::nothing_expected(0, usize::MAX, true)]
#[case::saturating(usize::MAX, usize::MAX, false)]
fn pairing_limits(#[case] expected: usize, #[case] actual: usize, #[case] within: bool) {
    for (e, a) in [(expected, actual), (actual, expected)] {
        let checked = check_pairing_size(e, a);
        assert_eq!(checked.is_ok(), within, "{e} against {a}");
        if let Err(error) = checked {
            assert_eq!((error.expected, error.actual), (e, a));
            assert!(error.pairs() > MAX_PAIRING_PAIRS || error.size() > MAX_PAIRING_SIZE);
        }
    }
    assert_eq!(pairing_size(3, 5), 45);
}

#[test]
fn a_lookup_map_looks_up_and_lists_nothing() {
    use crate::lookup::LookupMap;
    let mut map: LookupMap<String, usize> = [("b".to_owned(), 2)].into_iter().collect();
    assert_eq!(map.insert("a".to_owned(), 1), None);
    assert_eq!(map.insert("c".to_owned(), 9), None);
    assert_eq!(map.insert("c".to_owned(), 3), Some(9));
    assert_eq!(
        (map.get("a"), map.get("b"), map.get("d")),
        (Some(&1), Some(&2), None)
    );
    assert_eq!(map.len(), 3);
    // Its entries would show in hash order: `Debug` gives the count only.
    assert_eq!(format!("{map:?}"), "LookupMap(3 entries)");
}
