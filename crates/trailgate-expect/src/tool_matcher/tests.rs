//! Tool matchers: members, classes and server patterns, alone and together.

use rstest::rstest;
use trailgate_core::{Member, ToolRef};

use super::{ClassTools, Pattern, ToolMatcher};

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
        matcher.matches(ToolRef::new(server, name)),
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
