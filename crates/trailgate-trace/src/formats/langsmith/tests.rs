//! Unit tests of the `langsmith` adapter, through the public reader: detection, runs grouped
//! by trace id, tool runs as calls in start order, steps, status and results.

use serde_json::json;

use crate::formats::testing::{read, summary};
use crate::{Status, TraceError};

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
