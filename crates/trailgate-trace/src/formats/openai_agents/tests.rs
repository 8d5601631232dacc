//! Unit tests of the `openai-agents` adapter, through the public reader: detection in its
//! three layouts, function spans as calls, the agent of each call, steps and status.

use rstest::rstest;
use serde_json::json;

use crate::formats::testing::{assert_bad_count, read, summary, usage};
use crate::{Run, Status};

use Status::{Error as E, Ok as O, Unknown as U};

/// The export of the handoff fixture.
const EXPORT: &str =
    include_str!("../../../../../fixtures/agents-openai-agents-handoff/customer-service.jsonl");

#[track_caller]
fn runs(text: &str, lines: bool) -> Vec<Run> {
    let (format, runs) = read(text, lines).unwrap();
    assert_eq!(format, "openai-agents");
    runs
}

fn agents(run: &Run) -> Vec<Option<&str>> {
    run.calls.iter().map(|call| call.agent.as_deref()).collect()
}

#[test]
fn reads_a_handoff_with_each_call_s_agent() {
    let runs = runs(EXPORT, true);
    assert_eq!(runs.len(), 1);
    let run = &runs[0];
    assert_eq!(
        summary(run),
        vec![
            ("lookup_customer".to_owned(), 0, true, O),
            ("billing-db.list_invoices".to_owned(), 2, true, O),
            ("billing-db.issue_refund".to_owned(), 3, true, E),
        ]
    );
    assert_eq!(
        agents(run),
        [
            Some("Triage Agent"),
            Some("Billing Agent"),
            Some("Billing Agent")
        ]
    );
    assert_eq!(run.calls[0].args(), &json!({"email": "dana@example.com"}));
    assert_eq!(
        run.calls[2].result(),
        Some(&json!("Error running tool (non-fatal)"))
    );
}

/// A span list, the same spans as a JSON array, and the ingest body `{data: [...]}` read
/// alike; a span that has not ended and has no output is an open call.
#[rstest]
#[case::array(false)]
#[case::ingest_body(true)]
fn reads_every_layout(#[case] body: bool) {
    let spans = json!([
        {"object": "trace.span", "id": "span_a", "trace_id": "trace_1", "parent_id": null,
         "started_at": "2025-06-02T09:14:02.000001+00:00", "ended_at": null,
         "span_data": {"type": "agent", "name": "Researcher", "handoffs": [], "tools": ["search"], "output_type": "str"},
         "error": null},
        {"object": "trace.span", "id": "span_b", "trace_id": "trace_1", "parent_id": "span_a",
         "started_at": "2025-06-02T09:14:03.000001+00:00", "ended_at": null,
         "span_data": {"type": "function", "name": "search", "input": "{\"q\":\"rust\"}", "output": null, "mcp_data": null},
         "error": null}
    ]);
    let text = if body {
        json!({ "data": spans }).to_string()
    } else {
        spans.to_string()
    };
    let runs = runs(&text, false);
    assert_eq!(summary(&runs[0]), vec![("search".to_owned(), 0, false, U)]);
    assert_eq!(agents(&runs[0]), [Some("Researcher")]);
}

/// Under no agent span, a call belongs to the agent the last handoff went to; with no
/// handoff either, to none. A loop of parent links names no agent and does not hang.
#[test]
fn a_call_outside_any_agent_span_follows_the_last_handoff() {
    let span = |id: &str, parent: Option<&str>, start: u32, data: serde_json::Value| {
        json!({"object": "trace.span", "id": id, "trace_id": "trace_1", "parent_id": parent,
               "started_at": format!("2025-06-02T09:14:{start:02}.000000+00:00"),
               "ended_at": format!("2025-06-02T09:14:{start:02}.500000+00:00"),
               "span_data": data, "error": null})
        .to_string()
    };
    let function =
        |name: &str| json!({"type": "function", "name": name, "input": "{}", "output": "ok"});
    let text = [
        span("span_x", Some("span_y"), 1, function("early")),
        span("span_y", Some("span_x"), 2, function("looped")),
        span(
            "span_h",
            None,
            3,
            json!({"type": "handoff", "from_agent": "Triage", "to_agent": "Writer"}),
        ),
        span("span_f", None, 4, function("late")),
    ]
    .join("\n");
    let runs = runs(&text, true);
    assert_eq!(agents(&runs[0]), [None, None, Some("Writer")]);
}

/// An export of an agent on a Chat Completions model: two `generation` spans with usage.
const GENERATIONS: &str =
    include_str!("../../../../../fixtures/usage-openai-agents-generations/weather.jsonl");

#[test]
fn usage_is_each_generation_s_under_its_model_and_times_are_the_spans() {
    let run = &runs(GENERATIONS, true)[0];
    assert_eq!(
        usage(run),
        [("gpt-4.1-2025-04-14".to_owned(), 1673, 31, None)]
    );
    let time = run.time.expect("the run's times");
    assert_eq!(time.end_ns - time.start_ns, 3_500_000_000);
    let call = run.calls[0].time.expect("the call's times");
    assert_eq!(call.end_ns - call.start_ns, 480_500_000);
}

#[test]
fn response_spans_record_no_usage_but_times() {
    let run = &runs(EXPORT, true)[0];
    assert!(run.usage.models.is_empty());
    assert!(run.time.is_some());
    assert!(run.calls.iter().all(|call| call.time.is_some()));
}

#[rstest]
#[case::negative("input_tokens", "-1")]
#[case::fraction("output_tokens", "1.5")]
#[case::past_64_bits("input_tokens", "18446744073709551616")]
fn a_bad_token_count_is_an_error(#[case] key: &str, #[case] count: &str) {
    let text = GENERATIONS.replacen(
        "\"input_tokens\":812,\"output_tokens\":17",
        &match key {
            "input_tokens" => format!("\"input_tokens\":{count},\"output_tokens\":17"),
            _ => format!("\"input_tokens\":812,\"output_tokens\":{count}"),
        },
        1,
    );
    assert_bad_count(&text, true, key, count);
}

/// A time written without an offset is read as UTC, and one with another offset as written,
/// for the calls' order and their times alike: both read `started_at` once.
#[test]
fn the_order_and_the_times_read_the_same_start() {
    let utc = runs(GENERATIONS, true);
    assert_eq!(runs(&GENERATIONS.replace("+00:00", ""), true), utc);
    // Two hours east of UTC: the same clock readings are two hours earlier.
    let east = runs(&GENERATIONS.replace("+00:00", "+02:00"), true);
    let two_hours = 2 * 3_600 * 1_000_000_000;
    let shifted = |run: &Run| {
        let time = run.time.expect("the run's times");
        (time.start_ns + two_hours, time.end_ns + two_hours)
    };
    let utc_time = utc[0].time.expect("the run's times");
    assert_eq!(shifted(&east[0]), (utc_time.start_ns, utc_time.end_ns));
    assert_eq!(summary(&east[0]), summary(&utc[0]));
}
