//! Tool matchers: members, classes, server patterns and agents, alone and together.

use rstest::rstest;
use trailgate_core::{Member, ToolRef};
use trailgate_trace::{Call, Status};

use super::{AgentMatcher, ClassTools, Pattern, ToolMatcher};
use crate::error::Problem;
use crate::matchers::ValueMatcher;
use crate::suite_file::read_fragment;

fn member(text: &str) -> Member {
    Member::parse(text).expect("a valid member")
}

fn search_class() -> ClassTools {
    ClassTools::new(
        "search",
        vec![member("brave.web_search"), member("tavily.search")],
    )
}

#[track_caller]
fn check(matcher: &ToolMatcher, server: Option<&str>, name: &str, expected: bool) {
    assert_eq!(
        matcher.matches_tool(ToolRef::new(server, name)),
        expected,
        "{matcher} against {server:?} {name}"
    );
}

#[rstest]
#[case::member_of_class(Some("tavily"), "search", true)]
#[case::other_member(Some("brave"), "web_search", true)]
#[case::not_a_member(Some("google"), "search", false)]
#[case::qualified_member_needs_its_server(None, "search", false)]
fn class_matches_its_members(
    #[case] server: Option<&str>,
    #[case] name: &str,
    #[case] expected: bool,
) {
    check(&ToolMatcher::class(search_class()), server, name, expected);
}

#[rstest]
#[case::server_found(Some("brave"), "web_search", true)]
#[case::pattern_is_searched_unanchored(Some("brave-eu"), "web_search", true)]
#[case::other_server(Some("tavily"), "search", false)]
#[case::no_server_matches_no_pattern(None, "web_search", false)]
fn server_pattern_limits_a_member(
    #[case] server: Option<&str>,
    #[case] name: &str,
    #[case] expected: bool,
) {
    let matcher = ToolMatcher::member(member("web_search"))
        .on_server(Pattern::new("brave").expect("a valid pattern"));
    check(&matcher, server, name, expected);
}

#[rstest]
#[case::member_and_server(Some("tavily"), "search", true)]
#[case::member_on_other_server(Some("brave"), "web_search", false)]
fn class_and_server_must_both_hold(
    #[case] server: Option<&str>,
    #[case] name: &str,
    #[case] expected: bool,
) {
    let matcher =
        ToolMatcher::class(search_class()).on_server(Pattern::new("^tavily$").expect("valid"));
    check(&matcher, server, name, expected);
}

#[test]
fn shown_as_written() {
    let matcher =
        ToolMatcher::class(search_class()).on_server(Pattern::new("^brave$").expect("valid"));
    assert_eq!(matcher.to_string(), "class:search server:^brave$");
    assert_eq!(
        ToolMatcher::member(member("brave.web_search")).to_string(),
        "brave.web_search"
    );
}

fn agent(yaml: &str) -> AgentMatcher {
    let matcher: ValueMatcher =
        read_fragment(yaml).unwrap_or_else(|problem: Problem| panic!("{yaml}: {problem:?}"));
    AgentMatcher::new(matcher)
}

fn call_by(name: &str, agent: Option<&str>) -> Call {
    Call {
        server: None,
        name: name.to_owned(),
        args: serde_json::json!({}).into(),
        args_raw: None,
        result: None,
        status: Status::Ok,
        step: 0,
        completed: true,
        agent: agent.map(str::to_owned),
        time: None,
    }
}

/// `agent:` is an exact name or a value matcher on the name; a call without an agent
/// matches no agent matcher, not even a negated one.
#[rstest]
#[case::exact_name("router", Some("router"), true)]
#[case::exact_name_is_not_searched("route", Some("router"), false)]
#[case::other_agent("router", Some("researcher"), false)]
#[case::regex("{$regex: '^research'}", Some("researcher"), true)]
#[case::regex_misses("{$regex: '^research'}", Some("router"), false)]
#[case::negation("{$not: router}", Some("writer"), true)]
#[case::negation_of_the_agent("{$not: router}", Some("router"), false)]
#[case::no_agent_matches_no_name("router", None, false)]
#[case::no_agent_matches_no_negation("{$not: router}", None, false)]
#[case::no_agent_matches_no_presence_test("{$type: string}", None, false)]
#[case::any_of("{$any_of: [planner, router]}", Some("planner"), true)]
fn agent_limits_a_member(#[case] yaml: &str, #[case] by: Option<&str>, #[case] expected: bool) {
    let matcher = ToolMatcher::member(member("write_file")).by_agent(agent(yaml));
    assert_eq!(
        matcher.matches(&call_by("write_file", by)),
        expected,
        "{matcher} against a call by {by:?}"
    );
    // The agent never widens the tool: another tool by the same agent is not a match.
    assert!(!matcher.matches(&call_by("read_file", by)));
}

#[test]
fn agent_shown_as_written() {
    let matcher = ToolMatcher::member(member("write_file")).by_agent(agent("router"));
    assert_eq!(matcher.to_string(), "write_file agent:router");
    let matcher = ToolMatcher::class(search_class()).by_agent(agent("{$regex: '^r'}"));
    assert_eq!(matcher.to_string(), r#"class:search agent:{"$regex":"^r"}"#);
}
