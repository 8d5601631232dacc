//! Unit tests of the `langsmith` adapter, through the public reader: detection, runs grouped
//! by trace id, tool runs as calls in start order, steps, status and results, usage and
//! times.

use rstest::rstest;
use serde_json::json;

use crate::formats::testing::{assert_bad_count, ns, read, summary, usage};
use crate::{Interval, Status, TraceError};

use Status::{Error as E, Ok as O, Unknown as U};

fn line(trace: &str, run_type: &str, name: &str, start: &str, extra: &serde_json::Value) -> String {
    let mut run = json!({
        "id": format!("{trace}-{name}-{start}"),
        "trace_id": trace,
        "run_type": run_type,
        "name": name,
        "start_time": start,
    });
    if let (Some(run), Some(extra)) = (run.as_object_mut(), extra.as_object()) {
        run.extend(extra.clone());
    }
    run.to_string()
}

#[test]
fn groups_runs_by_trace_in_start_order_with_steps() {
    let text = [
        // Trace b starts later than trace a, though its line comes first.
        line("b", "tool", "fetch", "2025-01-01T00:00:09", &json!({"end_time": "2025-01-01T00:00:10", "inputs": {"url": "x"}, "outputs": {"output": "page"}})),
        line("a", "chain", "agent", "2025-01-01T00:00:00", &json!({})),
        line("a", "llm", "model", "2025-01-01T00:00:01", &json!({})),
        line("a", "tool", "search", "2025-01-01T00:00:03", &json!({"inputs": {"q": "rust"}, "error": "timeout", "end_time": "2025-01-01T00:00:04"})),
        line("a", "tool", "lookup", "2025-01-01T00:00:02", &json!({"inputs": {"id": 1}})),
        line("a", "llm", "model", "2025-01-01T00:00:05", &json!({})),
        line("a", "tool", "open", "2025-01-01T00:00:06+00:00", &json!({"outputs": {"text": "t", "pages": 2}})),
    ]
    .join("\n");
    let (format, runs) = read(&text, true).unwrap();
    assert_eq!(format, "langsmith");
    assert_eq!(runs.len(), 2);
    let rows = |rows: &[(&str, u32, bool, Status)]| {
        rows.iter()
            .map(|(id, step, done, status)| ((*id).to_owned(), *step, *done, *status))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        summary(&runs[0]),
        rows(&[
            ("lookup", 0, false, U),
            ("search", 0, true, E),
            ("open", 1, true, O)
        ])
    );
    assert_eq!(runs[0].calls[0].args(), &json!({"id": 1}));
    assert_eq!(runs[0].calls[1].result(), Some(&json!("timeout")));
    assert_eq!(
        runs[0].calls[2].result(),
        Some(&json!({"text": "t", "pages": 2}))
    );
    assert_eq!(summary(&runs[1]), rows(&[("fetch", 0, true, O)]));
    assert_eq!(runs[1].calls[0].result(), Some(&json!("page")));
    let time = runs[1].calls[0].time.unwrap();
    assert_eq!(time.end_ns - time.start_ns, 1_000_000_000);
}

#[test]
fn a_tool_run_without_a_name_is_refused() {
    let text = line("a", "tool", "", "2025-01-01T00:00:00", &json!({}));
    let error = read(&text, true).unwrap_err();
    assert!(matches!(error, TraceError::Shape { .. }), "{error:?}");
}

#[test]
fn usage_of_llm_runs_and_times_per_trace() {
    let text = [
        line("a", "chain", "agent", "2025-01-01T00:00:00", &json!({"end_time": "2025-01-01T00:00:09", "prompt_tokens": 999, "completion_tokens": 999})),
        line("a", "llm", "ChatOpenAI", "2025-01-01T00:00:01", &json!({"end_time": "2025-01-01T00:00:02", "prompt_tokens": 120, "completion_tokens": 20, "total_tokens": 140, "prompt_token_details": {"cache_read": 64},
            "extra": {"metadata": {"ls_model_name": "gpt-4o"}, "invocation_params": {"model": "gpt-4o"}}, "outputs": {"llm_output": {"model_name": "gpt-4o-2024-08-06"}}})),
        line("a", "tool", "search", "2025-01-01T00:00:03", &json!({"end_time": "2025-01-01T00:00:04.5", "outputs": {"output": "r"}})),
        line("a", "llm", "ChatOpenAI", "2025-01-01T00:00:05", &json!({"end_time": "2025-01-01T00:00:06", "prompt_tokens": 200, "completion_tokens": 10,
            "extra": {"metadata": {"ls_model_name": "gpt-4o"}}})),
        line("a", "llm", "ChatAnthropic", "2025-01-01T00:00:07", &json!({"prompt_tokens": 50, "completion_tokens": 5, "extra": {"invocation_params": {"model_name": "claude-sonnet-4-0"}}})),
        // A total alone does not say input from output.
        line("a", "llm", "ChatOpenAI", "2025-01-01T00:00:08", &json!({"total_tokens": 77})),
        line("b", "tool", "fetch", "2025-01-01T00:01:00", &json!({})),
    ]
    .join("\n");
    let (_, runs) = read(&text, true).unwrap();
    assert_eq!(
        usage(&runs[0]),
        [
            ("claude-sonnet-4-0".to_owned(), 50, 5, None),
            ("gpt-4o".to_owned(), 200, 10, None),
            ("gpt-4o-2024-08-06".to_owned(), 120, 20, Some(64)),
        ]
    );
    assert_eq!(
        runs[0].time,
        Some(Interval {
            start_ns: ns("2025-01-01T00:00:00Z"),
            end_ns: ns("2025-01-01T00:00:09Z")
        })
    );
    assert_eq!(
        runs[0].calls[0].time,
        Some(Interval {
            start_ns: ns("2025-01-01T00:00:03Z"),
            end_ns: ns("2025-01-01T00:00:04.5Z")
        })
    );
    assert!(runs[1].usage.models.is_empty());
    let at = ns("2025-01-01T00:01:00Z");
    assert_eq!(
        runs[1].time,
        Some(Interval {
            start_ns: at,
            end_ns: at
        })
    );
}

#[rstest]
#[case::negative("prompt_tokens", "-1")]
#[case::fraction("completion_tokens", "1.5")]
#[case::past_64_bits("prompt_tokens", "18446744073709551616")]
fn a_bad_token_count_is_an_error(#[case] key: &str, #[case] count: &str) {
    let mut counts = json!({"prompt_tokens": 1, "completion_tokens": 1});
    counts[key] = serde_json::from_str(count).unwrap();
    let text = line("a", "llm", "m", "2025-01-01T00:00:00", &counts);
    assert_bad_count(&text, true, key, count);
}
