//! Unit tests of the `otel` adapter, through the public reader: detection, the fields of a
//! call, order, status, steps, de-duplication, the messages values, and malformed input.

use crate::formats::testing::{read, summary};
use rstest::rstest;
use serde_json::{Value, json};

use crate::{Run, Status, TraceError};

use Status::{Error as E, Ok as O, Unknown as U};

/// The one run of an `otel` file.
#[track_caller]
fn run(text: &str, lines: bool) -> Run {
    let (format, mut runs) = read(text, lines).unwrap();
    assert_eq!(format, "otel");
    assert_eq!(runs.len(), 1, "a file is one run");
    runs.remove(0)
}

#[track_caller]
fn check(text: &str, lines: bool, expected: &[(&str, u32, bool, Status)]) {
    let got = summary(&run(text, lines));
    let expected: Vec<_> = expected
        .iter()
        .map(|(id, step, done, status)| ((*id).to_owned(), *step, *done, *status))
        .collect();
    assert_eq!(got, expected);
}

// ---------------------------------------------------------------------------------------
// Builders: a span with string attributes, and the two file shapes.

/// A span of trace `t1`, ended one nanosecond after it starts, with string attributes.
fn span(id: &str, parent: &str, start: u64, attributes: &[(&str, &str)]) -> Value {
    json!({
        "traceId": "0af7651916cd43dd8448eb211c80319c",
        "spanId": id,
        "parentSpanId": parent,
        "name": "span",
        "kind": 1,
        "startTimeUnixNano": start.to_string(),
        "endTimeUnixNano": (start + 1).to_string(),
        "attributes": attributes
            .iter()
            .map(|(key, value)| json!({"key": key, "value": {"stringValue": value}}))
            .collect::<Vec<_>>(),
        "status": {}
    })
}

/// `span` with `key` set to `value` (`Value::Null` removes it).
fn with(mut span: Value, key: &str, value: Value) -> Value {
    if let Value::Object(map) = &mut span {
        if value.is_null() {
            map.remove(key);
        } else {
            map.insert(key.to_owned(), value);
        }
    }
    span
}

/// `span` with one more attribute, given as an OTLP `AnyValue`.
fn attr(mut span: Value, key: &str, value: Value) -> Value {
    if let Some(Value::Array(list)) = span.get_mut("attributes") {
        let mut entry = serde_json::Map::new();
        entry.insert("key".to_owned(), Value::from(key));
        entry.insert("value".to_owned(), value);
        list.push(Value::Object(entry));
    }
    span
}

fn tool(id: &str, parent: &str, start: u64, name: &str) -> Value {
    span(
        id,
        parent,
        start,
        &[
            ("gen_ai.operation.name", "execute_tool"),
            ("gen_ai.tool.name", name),
        ],
    )
}

fn mcp(id: &str, parent: &str, start: u64, name: &str, host: &str) -> Value {
    span(
        id,
        parent,
        start,
        &[
            ("mcp.method.name", "tools/call"),
            ("gen_ai.tool.name", name),
            ("server.address", host),
        ],
    )
}

fn chat(id: &str, parent: &str, start: u64) -> Value {
    span(id, parent, start, &[("gen_ai.operation.name", "chat")])
}

fn agent(id: &str, parent: &str, start: u64) -> Value {
    span(
        id,
        parent,
        start,
        &[("gen_ai.operation.name", "invoke_agent")],
    )
}

/// One OTLP JSON document holding `spans`.
fn doc(spans: Vec<Value>) -> String {
    let spans = Value::Array(spans);
    json!({"resourceSpans": [{"resource": {"attributes": []}, "scopeSpans": [{"scope": {"name": "s"}, "spans": spans}]}]})
        .to_string()
}

/// The file exporter's JSON Lines: one request per span, in the order given.
fn lines(spans: Vec<Value>) -> String {
    spans
        .into_iter()
        .map(|span| doc(vec![span]) + "\n")
        .collect()
}

const A: &str = "00000000000000a1";
const B: &str = "00000000000000b2";
const C: &str = "00000000000000c3";
const D: &str = "00000000000000d4";
const F: &str = "00000000000000f5";
const ROOT: &str = "";

// ---------------------------------------------------------------------------------------
// Detection.

#[rstest]
#[case::otlp_document(&doc(vec![]), false, true)]
#[case::otlp_document_array(&format!("[{}]", doc(vec![])), false, true)]
#[case::otlp_line(&lines(vec![tool(A, ROOT, 1, "x")]), true, true)]
#[case::proto_field_names(r#"{"resource_spans": [{"scope_spans": []}]}"#, false, true)]
#[case::messages_value(
    r#"[{"role": "user", "parts": [{"type": "text", "content": "hi"}]}]"#,
    false,
    true
)]
#[case::one_message_per_line(
    r#"{"role": "assistant", "parts": [{"type": "tool_call", "name": "x"}]}"#,
    true,
    true
)]
#[case::native_call_list(r#"{"tool_calls": [{"name": "x"}]}"#, false, false)]
#[case::gemini_contents(
    r#"[{"role": "model", "parts": [{"functionCall": {"name": "x", "args": {}}}]}]"#,
    false,
    false
)]
#[case::ai_sdk_ui_messages(r#"[{"id": "m1", "role": "assistant", "parts": [{"type": "step-start"}, {"type": "tool-weather", "toolCallId": "c1"}]}]"#, false, false)]
#[case::openai_chat_messages(r#"[{"role": "user", "content": "hi"}]"#, false, false)]
#[case::mcp_json_rpc(
    r#"{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "x"}}"#,
    true,
    false
)]
#[case::otlp_logs(r#"{"resourceLogs": []}"#, true, false)]
#[case::json_schema(
    r#"{"$defs": {}, "items": {}, "title": "ToolDefinitions", "type": "array"}"#,
    false,
    false
)]
#[case::resource_spans_not_a_list(r#"{"resourceSpans": {}}"#, false, false)]
#[case::empty_array("[]", false, false)]
fn detection(#[case] text: &str, #[case] lines: bool, #[case] otel: bool) {
    let format = read(text, lines).map(|(format, _)| format);
    assert_eq!(format.as_ref().ok() == Some(&"otel"), otel, "{format:?}");
}

// ---------------------------------------------------------------------------------------
// Which spans are calls, and their name and server.

#[rstest]
#[case::execute_tool(vec![tool(A, ROOT, 1, "get_weather")], &[("get_weather", 0, true, O)])]
#[case::name_from_span_name(vec![with(span(A, ROOT, 1, &[("gen_ai.operation.name", "execute_tool")]), "name", json!("execute_tool get_weather"))], &[("get_weather", 0, true, O)])]
#[case::mcp_client_server_from_address(vec![mcp(A, ROOT, 1, "search_issues", "api.githubcopilot.com")], &[("api.githubcopilot.com.search_issues", 0, true, O)])]
#[case::mcp_name_from_span_name(vec![with(span(A, ROOT, 1, &[("mcp.method.name", "tools/call")]), "name", json!("tools/call get-weather"))], &[("get-weather", 0, true, O)])]
#[case::mcp_server_name_wins(vec![attr(mcp(A, ROOT, 1, "read_file", "localhost"), "mcp.server.name", json!({"stringValue": "filesystem"}))], &[("filesystem.read_file", 0, true, O)])]
#[case::server_address_only_on_mcp_spans(vec![attr(tool(A, ROOT, 1, "fetch"), "server.address", json!({"stringValue": "example.com"}))], &[("fetch", 0, true, O)])]
#[case::naming_splits_mcp_double(vec![tool(A, ROOT, 1, "mcp__github__search_issues")], &[("github.search_issues", 0, true, O)])]
#[case::other_mcp_methods_are_not_calls(vec![span(A, ROOT, 1, &[("mcp.method.name", "tools/list")])], &[])]
#[case::openinference_tool(vec![span(A, ROOT, 1, &[("openinference.span.kind", "TOOL"), ("tool.name", "lookup"), ("input.value", "{\"q\": 1}")])], &[("lookup", 0, true, O)])]
#[case::openinference_name_from_span_name(vec![with(span(A, ROOT, 1, &[("openinference.span.kind", "tool")]), "name", json!("lookup"))], &[("lookup", 0, true, O)])]
#[case::ai_sdk_tool_call(vec![span(A, ROOT, 1, &[("ai.toolCall.name", "weather"), ("ai.toolCall.id", "c1")])], &[("weather", 0, true, O)])]
#[case::inference_and_agent_spans_are_not_calls(vec![agent(A, ROOT, 1), chat(B, A, 2), span(C, A, 3, &[("http.method", "GET")])], &[])]
fn calls(#[case] spans: Vec<Value>, #[case] expected: &[(&str, u32, bool, Status)]) {
    check(&doc(spans), false, expected);
}

#[rstest]
#[case::string(json!({"stringValue": "{\"location\": \"Paris\"}"}), json!({"location": "Paris"}), None)]
#[case::kvlist(json!({"kvlistValue": {"values": [{"key": "n", "value": {"intValue": "3"}}, {"key": "on", "value": {"boolValue": true}}, {"key": "xs", "value": {"arrayValue": {"values": [{"doubleValue": 1.5}, {"intValue": 2}]}}}]}}), json!({"n": 3, "on": true, "xs": [1.5, 2]}), None)]
#[case::not_json(json!({"stringValue": "location=Paris"}), json!("location=Paris"), Some("location=Paris"))]
#[case::empty_string(json!({"stringValue": ""}), json!({}), None)]
#[case::empty_any_value(json!({}), json!({}), None)]
#[case::plain_json_value(json!({"location": "Paris"}), json!({"location": "Paris"}), None)]
fn arguments(#[case] value: Value, #[case] args: Value, #[case] raw: Option<&str>) {
    let text = doc(vec![attr(
        tool(A, ROOT, 1, "x"),
        "gen_ai.tool.call.arguments",
        value,
    )]);
    let call = &run(&text, false).calls[0];
    assert_eq!(call.args, args);
    assert_eq!(call.args_raw.as_deref(), raw);
}

#[test]
fn missing_arguments_are_an_empty_object() {
    let call = &run(&doc(vec![tool(A, ROOT, 1, "x")]), false).calls[0];
    assert_eq!(
        (call.args(), &call.args_raw, call.result()),
        (&json!({}), &None, None)
    );
}

#[rstest]
#[case::text(json!({"stringValue": "rainy, 57°F"}), Some(json!("rainy, 57°F")), O)]
#[case::json_object_text(json!({"stringValue": "{\"temp\": 57}"}), Some(json!({"temp": 57})), O)]
#[case::json_scalar_text_stays_text(json!({"stringValue": "42"}), Some(json!("42")), O)]
#[case::structured(json!({"kvlistValue": {"values": [{"key": "temp", "value": {"intValue": 57}}]}}), Some(json!({"temp": 57})), O)]
#[case::call_tool_result_text(json!({"stringValue": "{\"content\": [{\"type\": \"text\", \"text\": \"a\"}, {\"type\": \"text\", \"text\": \"b\"}], \"isError\": false}"}), Some(json!("a\nb")), O)]
#[case::call_tool_result_structured(json!({"stringValue": "{\"content\": [], \"structuredContent\": {\"n\": 1}}"}), Some(json!({"n": 1})), O)]
#[case::call_tool_result_is_error(json!({"stringValue": "{\"content\": [{\"type\": \"text\", \"text\": \"bad date\"}], \"isError\": true}"}), Some(json!("bad date")), E)]
#[case::error_text_is_not_an_error(json!({"stringValue": "Error: not found"}), Some(json!("Error: not found")), O)]
fn results(#[case] value: Value, #[case] result: Option<Value>, #[case] status: Status) {
    let text = doc(vec![attr(
        tool(A, ROOT, 1, "x"),
        "gen_ai.tool.call.result",
        value,
    )]);
    let call = &run(&text, false).calls[0];
    assert_eq!(
        (call.result(), call.status, call.completed),
        (result.as_ref(), status, true)
    );
}

// ---------------------------------------------------------------------------------------
// Status and completion.

#[rstest]
#[case::unset_and_ended(tool(A, ROOT, 1, "x"), true, O)]
#[case::ok_code(with(tool(A, ROOT, 1, "x"), "status", json!({"code": 1})), true, O)]
#[case::error_code(with(tool(A, ROOT, 1, "x"), "status", json!({"code": 2, "message": "boom"})), true, E)]
#[case::error_code_name(with(tool(A, ROOT, 1, "x"), "status", json!({"code": "STATUS_CODE_ERROR"})), true, E)]
#[case::ok_code_name(with(tool(A, ROOT, 1, "x"), "status", json!({"code": "STATUS_CODE_OK"})), true, O)]
#[case::error_type(attr(tool(A, ROOT, 1, "x"), "error.type", json!({"stringValue": "tool_error"})), true, E)]
#[case::empty_error_type(attr(tool(A, ROOT, 1, "x"), "error.type", json!({"stringValue": ""})), true, O)]
#[case::not_ended(with(tool(A, ROOT, 1, "x"), "endTimeUnixNano", Value::Null), false, U)]
#[case::zero_end(with(tool(A, ROOT, 1, "x"), "endTimeUnixNano", json!("0")), false, U)]
#[case::not_ended_with_error(with(with(tool(A, ROOT, 1, "x"), "endTimeUnixNano", Value::Null), "status", json!({"code": 2})), true, E)]
fn statuses(#[case] span: Value, #[case] completed: bool, #[case] status: Status) {
    check(&doc(vec![span]), false, &[("x", 0, completed, status)]);
}

// ---------------------------------------------------------------------------------------
// Order.

#[rstest]
#[case::start_time_not_file_order(vec![tool(A, ROOT, 30, "c"), tool(B, ROOT, 10, "a"), tool(C, ROOT, 20, "b")], &["a", "b", "c"])]
#[case::start_time_as_number(vec![with(tool(A, ROOT, 1, "b"), "startTimeUnixNano", json!(20)), with(tool(B, ROOT, 1, "a"), "startTimeUnixNano", json!(10))], &["a", "b"])]
#[case::ties_by_span_id(vec![tool(B, ROOT, 5, "second"), tool(A, ROOT, 5, "first")], &["first", "second"])]
#[case::then_file_order(vec![with(tool(A, ROOT, 5, "first"), "spanId", Value::Null), with(tool(A, ROOT, 5, "second"), "spanId", Value::Null)], &["first", "second"])]
#[case::no_start_time_last(vec![with(tool(A, ROOT, 1, "late"), "startTimeUnixNano", Value::Null), tool(B, ROOT, 9, "early")], &["early", "late"])]
#[case::large_times_compare_as_integers(vec![tool(A, ROOT, 1_795_295_406_364_483_582, "b"), tool(B, ROOT, 1_795_295_406_364_300_950, "a")], &["a", "b"])]
fn order(#[case] spans: Vec<Value>, #[case] names: &[&str]) {
    let got: Vec<String> = run(&lines(spans), true)
        .calls
        .into_iter()
        .map(|call| call.name)
        .collect();
    assert_eq!(got, names);
}

// ---------------------------------------------------------------------------------------
// Steps.

#[rstest]
#[case::no_inference_is_step_zero(vec![tool(A, ROOT, 1, "a"), tool(B, ROOT, 2, "b")], &[("a", 0, true, O), ("b", 0, true, O)])]
#[case::chat_parent(vec![agent(F, ROOT, 1), chat(A, F, 2), tool(B, A, 3, "a"), chat(C, F, 10), tool(D, C, 11, "b")], &[("a", 0, true, O), ("b", 1, true, O)])]
#[case::siblings_follow_the_last_chat(vec![agent(F, ROOT, 1), chat(A, F, 2), tool(B, F, 4, "a"), tool(C, F, 5, "a2"), chat(D, F, 10), tool("00000000000000e6", F, 12, "b")], &[("a", 0, true, O), ("a2", 0, true, O), ("b", 1, true, O)])]
#[case::before_any_chat(vec![tool(A, ROOT, 1, "pre"), chat(B, ROOT, 5), tool(C, ROOT, 6, "post")], &[("pre", 0, true, O), ("post", 0, true, O)])]
#[case::nested_inference_is_one_step(vec![chat(A, ROOT, 1), span(B, A, 2, &[("openinference.span.kind", "LLM")]), tool(C, B, 3, "a"), chat(D, ROOT, 10), tool(F, D, 11, "b")], &[("a", 0, true, O), ("b", 1, true, O)])]
#[case::end_order_lines(vec![chat(B, A, 2), tool(C, A, 4, "a"), chat(D, A, 6), tool(F, A, 8, "b"), agent(A, ROOT, 1)], &[("a", 0, true, O), ("b", 1, true, O)])]
#[case::sub_agent_has_its_own_steps(vec![chat(A, ROOT, 1), tool(B, A, 2, "delegate"), agent(C, B, 3), chat(D, C, 4), tool(F, D, 5, "inner")], &[("delegate", 0, true, O), ("inner", 1, true, O)])]
fn steps(#[case] spans: Vec<Value>, #[case] expected: &[(&str, u32, bool, Status)]) {
    check(&lines(spans), true, expected);
}

#[test]
fn base64_and_upper_case_ids_link_to_hex_parents() {
    // `AAAAAAAAAKE=` is the base64 of the span id 00000000000000a1.
    let spans = vec![
        chat(A, ROOT, 1),
        chat(B, ROOT, 5),
        with(tool(C, ROOT, 9, "a"), "parentSpanId", json!("AAAAAAAAAKE=")),
        with(
            tool(D, ROOT, 10, "b"),
            "parentSpanId",
            json!("00000000000000A1"),
        ),
    ];
    check(&doc(spans), false, &[("a", 0, true, O), ("b", 0, true, O)]);
}

#[test]
fn enum_names_and_proto_field_names_are_read() {
    let text = json!({"resource_spans": [{"scope_spans": [{"spans": [{
        "trace_id": "S/kvNXezTaajzpKdDg5HNg==",
        "span_id": "EjRWeJCrze8=",
        "name": "tools/call read",
        "kind": "SPAN_KIND_CLIENT",
        "start_time_unix_nano": 5,
        "end_time_unix_nano": "6",
        "attributes": [
            {"key": "mcp.method.name", "value": {"string_value": "tools/call"}},
            {"key": "server.port", "value": {"int_value": 443}},
            {"key": "server.address", "value": {"string_value": "files.local"}}
        ],
        "status": {"code": "STATUS_CODE_ERROR"}
    }]}]}]});
    check(
        &text.to_string(),
        false,
        &[("files.local.read", 0, true, E)],
    );
}

// ---------------------------------------------------------------------------------------
// One call recorded by several spans.

#[rstest]
#[case::execute_tool_with_mcp_child(vec![tool(A, ROOT, 1, "mcp__github__search_issues"), mcp(B, A, 2, "search_issues", "api.githubcopilot.com")], &[("api.githubcopilot.com.search_issues", 0, true, O)])]
#[case::mcp_child_without_server_keeps_the_agent_name(vec![tool(A, ROOT, 1, "mcp__github__search_issues"), span(B, A, 2, &[("mcp.method.name", "tools/call"), ("gen_ai.tool.name", "search_issues")])], &[("github.search_issues", 0, true, O)])]
#[case::child_error_makes_the_call_an_error(vec![tool(A, ROOT, 1, "search"), attr(mcp(B, A, 2, "search", "h"), "error.type", json!({"stringValue": "tool_error"}))], &[("h.search", 0, true, E)])]
#[case::through_an_unrelated_span(vec![tool(A, ROOT, 1, "search"), span(B, A, 2, &[("http.method", "POST")]), mcp(C, B, 3, "search", "h")], &[("h.search", 0, true, O)])]
#[case::same_call_id_siblings(vec![attr(tool(A, ROOT, 1, "search"), "gen_ai.tool.call.id", json!({"stringValue": "c1"})), attr(mcp(B, ROOT, 2, "search", "h"), "gen_ai.tool.call.id", json!({"stringValue": "c1"}))], &[("h.search", 0, true, O)])]
#[case::mcp_client_and_server_by_request_id(vec![attr(mcp(A, ROOT, 1, "search", "h"), "jsonrpc.request.id", json!({"stringValue": "7"})), attr(with(span("00000000000000e1", ROOT, 2, &[("mcp.method.name", "tools/call"), ("gen_ai.tool.name", "search")]), "kind", json!(2)), "jsonrpc.request.id", json!({"intValue": "7"}))], &[("h.search", 0, true, O)])]
#[case::mcp_client_and_server_parent_child(vec![mcp(A, ROOT, 1, "search", "h"), with(span(B, A, 2, &[("mcp.method.name", "tools/call"), ("gen_ai.tool.name", "search")]), "kind", json!("SPAN_KIND_SERVER"))], &[("h.search", 0, true, O)])]
#[case::wrapper_tool_calling_other_tools(vec![tool(A, ROOT, 1, "research"), mcp(B, A, 2, "search", "h"), mcp(C, A, 3, "fetch", "h")], &[("research", 0, true, O), ("h.search", 0, true, O), ("h.fetch", 0, true, O)])]
#[case::conflicting_call_ids(vec![attr(tool(A, ROOT, 1, "x"), "gen_ai.tool.call.id", json!({"stringValue": "c1"})), attr(tool(B, A, 2, "x"), "gen_ai.tool.call.id", json!({"stringValue": "c2"}))], &[("x", 0, true, O), ("x", 0, true, O)])]
#[case::duplicate_call_id_on_two_execute_tool_spans(vec![attr(tool(A, ROOT, 1, "x"), "gen_ai.tool.call.id", json!({"stringValue": "c1"})), attr(tool(B, ROOT, 2, "x"), "gen_ai.tool.call.id", json!({"stringValue": "c1"}))], &[("x", 0, true, O), ("x", 0, true, O)])]
#[case::nested_same_name_is_one_call(vec![tool(A, ROOT, 1, "x"), span(B, A, 2, &[("openinference.span.kind", "TOOL"), ("tool.name", "x")])], &[("x", 0, true, O)])]
#[case::agent_between_is_two_calls(vec![tool(A, ROOT, 1, "x"), agent(B, A, 2), tool(C, B, 3, "x")], &[("x", 0, true, O), ("x", 0, true, O)])]
#[case::span_exported_twice(vec![tool(A, ROOT, 1, "x"), tool(A, ROOT, 1, "x")], &[("x", 0, true, O)])]
fn one_call_from_several_spans(
    #[case] spans: Vec<Value>,
    #[case] expected: &[(&str, u32, bool, Status)],
) {
    check(&lines(spans), true, expected);
}

#[test]
fn merged_spans_share_their_fields() {
    let spans = vec![
        attr(
            tool(A, ROOT, 1, "mcp__github__search_issues"),
            "gen_ai.tool.call.arguments",
            json!({"stringValue": "{\"q\": \"bug\"}"}),
        ),
        attr(
            mcp(B, A, 2, "search_issues", "api.githubcopilot.com"),
            "gen_ai.tool.call.result",
            json!({"stringValue": "3 issues"}),
        ),
    ];
    let calls = run(&lines(spans), true).calls;
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].args, json!({"q": "bug"}));
    assert_eq!(calls[0].result().cloned(), Some(json!("3 issues")));
}

// ---------------------------------------------------------------------------------------
// Robustness.

#[test]
fn unknown_fields_and_records_are_skipped() {
    let mut text = String::from("{\"resourceMetrics\": []}\n");
    text.insert_str(0, &lines(vec![tool(A, ROOT, 1, "a")]));
    text.push_str("\n   \n");
    text.push_str(&lines(vec![with(
        tool(B, ROOT, 2, "b"),
        "droppedAttributesCount",
        json!(3),
    )]));
    text.push_str("{\"resourceSpans\": [{\"resource\": {}, \"extra\": 1}, {\"scopeSpans\": [{\"scope\": {}}]}]}\n");
    check(&text, true, &[("a", 0, true, O), ("b", 0, true, O)]);
}

#[test]
fn attributes_may_be_a_plain_object() {
    let text = json!({"resourceSpans": [{"scopeSpans": [{"spans": [{
        "spanId": A, "startTimeUnixNano": "1", "endTimeUnixNano": "2",
        "attributes": {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "x",
                       "gen_ai.tool.call.arguments": {"q": 1}}
    }]}]}]});
    let calls = run(&text.to_string(), false).calls;
    assert_eq!(
        (calls[0].name.as_str(), calls[0].args()),
        ("x", &json!({"q": 1}))
    );
}

#[test]
fn a_file_without_tool_spans_is_one_empty_run() {
    assert!(run(&doc(vec![chat(A, ROOT, 1)]), false).calls.is_empty());
    assert!(run("{\"resourceSpans\": []}", false).calls.is_empty());
}

#[test]
fn parent_cycles_end() {
    let spans = vec![
        with(chat(A, ROOT, 1), "parentSpanId", json!(B)),
        with(tool(B, ROOT, 2, "x"), "parentSpanId", json!(A)),
        with(tool(C, ROOT, 3, "y"), "parentSpanId", json!(C)),
    ];
    check(&doc(spans), false, &[("x", 0, true, O), ("y", 0, true, O)]);
}

// ---------------------------------------------------------------------------------------
// GenAI messages values.

const SAMPLE_MESSAGES: &str = r#"[
  {"role": "user", "parts": [{"type": "text", "content": "Weather in Paris?"}]},
  {"role": "assistant", "parts": [{"type": "tool_call", "id": "call_1", "name": "get_weather", "arguments": {"location": "Paris"}}]},
  {"role": "tool", "parts": [{"type": "tool_call_response", "id": "call_1", "response": "rainy, 57°F"}]}
]"#;

#[test]
fn messages_pair_calls_and_responses() {
    let call = &run(SAMPLE_MESSAGES, false).calls[0];
    assert_eq!(call.name, "get_weather");
    assert_eq!(call.args, json!({"location": "Paris"}));
    assert_eq!(call.result().cloned(), Some(json!("rainy, 57°F")));
    assert_eq!((call.status, call.completed, call.step), (U, true, 0));
}

#[rstest]
#[case::steps_by_model_message(r#"[{"role": "assistant", "parts": [{"type": "text", "content": "hm"}]}, {"role": "assistant", "parts": [{"type": "tool_call", "id": "1", "name": "a"}, {"type": "tool_call", "id": "2", "name": "b"}]}, {"role": "tool", "parts": [{"type": "tool_call_response", "id": "2", "response": "ok"}]}, {"role": "model", "parts": [{"type": "tool_call", "name": "c", "arguments": "{\"x\": 1}"}]}]"#, &[("a", 1, false, U), ("b", 1, true, U), ("c", 2, false, U)])]
#[case::response_before_call_is_ignored(r#"[{"role": "tool", "parts": [{"type": "tool_call_response", "id": "1", "response": "early"}]}, {"role": "assistant", "parts": [{"type": "tool_call", "id": "1", "name": "a"}]}]"#, &[("a", 0, false, U)])]
#[case::repeated_history_counts_once(r#"[{"role": "assistant", "parts": [{"type": "tool_call", "id": 7, "name": "a"}]}, {"role": "assistant", "parts": [{"type": "tool_call", "id": "7", "name": "a"}]}]"#, &[("a", 0, false, U)])]
#[case::is_error_response(r#"[{"role": "assistant", "parts": [{"type": "tool_call", "id": "1", "name": "a"}]}, {"role": "tool", "parts": [{"type": "tool_call_response", "id": "1", "response": {"content": [{"type": "text", "text": "no"}], "isError": true}}]}]"#, &[("a", 0, true, E)])]
#[case::unknown_parts_and_fields(r#"[{"role": "assistant", "name": "bot", "parts": [{"type": "reasoning", "content": "..."}, {"type": "server_tool_call", "name": "web_search", "server_tool_call": {"type": "web_search"}}, {"type": "tool_call", "name": "mcp__fs__read", "extra": true}]}]"#, &[("fs.read", 0, false, U)])]
fn messages(#[case] text: &str, #[case] expected: &[(&str, u32, bool, Status)]) {
    check(text, false, expected);
}

#[test]
fn messages_one_per_line_are_one_run() {
    let text = "{\"role\": \"assistant\", \"parts\": [{\"type\": \"tool_call\", \"id\": \"1\", \"name\": \"a\"}]}\n\
                {\"role\": \"tool\", \"parts\": [{\"type\": \"tool_call_response\", \"id\": \"1\", \"response\": \"r\"}]}\n";
    check(text, true, &[("a", 0, true, U)]);
}

// ---------------------------------------------------------------------------------------
// Malformed input: an error, never a panic.

#[rstest]
#[case::not_json("{\"resourceSpans\": [", false, "syntax")]
#[case::later_line_not_json(&(lines(vec![tool(A, ROOT, 1, "x")]) + "{oops\n"), true, "syntax")]
#[case::resource_spans_not_a_list(&(lines(vec![tool(A, ROOT, 1, "x")]) + "{\"resourceSpans\": 3}\n"), true, "shape")]
#[case::scope_spans_not_a_list("{\"resourceSpans\": [{\"scopeSpans\": {}}]}", false, "shape")]
#[case::spans_not_a_list(
    "{\"resourceSpans\": [{\"scopeSpans\": [{\"spans\": \"x\"}]}]}",
    false,
    "shape"
)]
#[case::span_not_an_object(
    "{\"resourceSpans\": [{\"scopeSpans\": [{\"spans\": [5]}]}]}",
    false,
    "shape"
)]
#[case::tool_span_without_a_name(&doc(vec![with(span(A, ROOT, 1, &[("gen_ai.operation.name", "execute_tool")]), "name", json!("execute_tool"))]), false, "shape")]
#[case::mcp_span_without_a_name(&doc(vec![with(span(A, ROOT, 1, &[("mcp.method.name", "tools/call")]), "name", Value::Null)]), false, "shape")]
#[case::tool_call_part_without_a_name(
    r#"[{"role": "assistant", "parts": [{"type": "tool_call", "id": "1"}]}]"#,
    false,
    "shape"
)]
fn malformed(#[case] text: &str, #[case] lines: bool, #[case] kind: &str) {
    let error = read(text, lines).unwrap_err();
    let got = match &error {
        TraceError::Syntax { .. } => "syntax",
        TraceError::Shape { .. } => "shape",
        _ => "other",
    };
    assert_eq!(got, kind, "{error:?}");
}

#[test]
fn shape_errors_say_where() {
    let error = read(
        "{\"resourceSpans\": [{\"scopeSpans\": [{\"spans\": [{}, 5]}]}]}",
        false,
    )
    .unwrap_err();
    let TraceError::Shape { message, .. } = &error else {
        panic!("{error:?}")
    };
    assert!(
        message.contains("`resourceSpans[0].scopeSpans[0].spans[1]`"),
        "{message}"
    );
}

#[rstest]
#[case::odd_values(r#"{"resourceSpans": [{"scopeSpans": [{"spans": [{"spanId": 5, "parentSpanId": [], "traceId": null, "startTimeUnixNano": "soon", "endTimeUnixNano": -1, "kind": {}, "status": [], "attributes": [{"key": 1}, {"value": {}}, {"key": "gen_ai.operation.name", "value": {"stringValue": "execute_tool"}}, {"key": "gen_ai.tool.name", "value": {"intValue": "x"}}], "name": "execute_tool x"}]}]}]}"#)]
#[case::deep_values(r#"{"resourceSpans": [{"scopeSpans": [{"spans": [{"name": "execute_tool x", "attributes": [{"key": "gen_ai.operation.name", "value": {"stringValue": "execute_tool"}}, {"key": "gen_ai.tool.call.arguments", "value": {"arrayValue": {"values": [{"kvlistValue": {"values": [{"key": "a", "value": {"arrayValue": {}}}]}}, {"doubleValue": "NaN"}, {"bytesValue": "AAE="}]}}}]}]}]}]}"#)]
#[case::ids_not_hex_or_base64(r#"{"resourceSpans": [{"scopeSpans": [{"spans": [{"spanId": "not an id!", "traceId": "zz", "parentSpanId": "0000000000000000", "name": "execute_tool x", "attributes": [{"key": "gen_ai.operation.name", "value": {"stringValue": "execute_tool"}}]}]}]}]}"#)]
fn odd_input_reads_without_panic(#[case] text: &str) {
    let calls = run(text, false).calls;
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].name, "x");
}

/// Ancestry is worked out once per file: a chain of thousands of plain spans above
/// thousands of tool spans (each of which once walked the whole chain, through a map
/// look-up per step: minutes for a megabyte) reads in linear time, with the same answers
/// as a short chain.
#[test]
fn long_parent_chains_read_in_linear_time() {
    const N: usize = 5_000;
    let id = |i: usize| format!("{:016x}", i + 1);
    let mut spans = vec![chat(&id(0), "", 1)];
    for i in 1..N {
        spans.push(span(&id(i), &id(i - 1), 1 + i as u64, &[]));
    }
    // Nested chat spans under the chain: one model call instrumented twice, so one step.
    spans.push(chat(&id(N), &id(N - 1), 100_000));
    for j in 0..N {
        spans.push(tool(&id(N + 1 + j), &id(N), 200_000 + j as u64, "t"));
    }
    // A loop of plain spans with a tool below it: no ancestor, step from the start times.
    spans.push(span("aaaaaaaaaaaaaaa1", "aaaaaaaaaaaaaaa2", 300_000, &[]));
    spans.push(span("aaaaaaaaaaaaaaa2", "aaaaaaaaaaaaaaa1", 300_001, &[]));
    spans.push(tool("aaaaaaaaaaaaaaa3", "aaaaaaaaaaaaaaa1", 300_002, "u"));
    let run = run(&doc(spans), false);
    assert_eq!(run.calls.len(), N + 1);
    // Every tool under the chain is in the one step of the chat spans above it.
    assert!(run.calls[..N].iter().all(|c| c.name == "t" && c.step == 0));
    assert_eq!(run.calls[N].name, "u");
}

// ---------------------------------------------------------------------------------------
// Claude Code's spans, Python SDK span dumps, and span attribute maps.

/// `OpenInference`'s fixtures, copied into the wild files of the integration tests.
const OPENINFERENCE_TOOL_SPAN: &str = include_str!(
    "../../../tests/wild/more/otel/openinference__otel_genai_tool_execution_span.json"
);
const OPENINFERENCE_LLM_SPAN: &str = include_str!(
    "../../../tests/wild/more/otel/openinference__openinference_client_span_tool_calls.json"
);
const GENAI_DEPRECATED_SPAN: &str = include_str!(
    "../../../tests/wild/otel/openinference__otel_genai_deprecated_client_span_tool_calls.json"
);

#[test]
fn claude_code_tool_spans_are_calls() {
    let mut read = span(
        "a1",
        "",
        10,
        &[("tool_name", "Read"), ("tool_use_id", "toolu_1")],
    );
    read = with(read, "name", json!("claude_code.tool"));
    let mut bash = span(
        "a2",
        "",
        20,
        &[
            ("tool_name", "mcp__github__list_issues"),
            ("tool_input", "{\"repo\": \"x\"}"),
        ],
    );
    bash = attr(
        with(bash, "name", json!("claude_code.tool")),
        "success",
        json!({"boolValue": false}),
    );
    // A span that merely has `tool_name` is not a call.
    let other = span("a3", "", 30, &[("tool_name", "Read")]);
    let run = run(&doc(vec![read, bash, other]), false);
    assert_eq!(
        summary(&run),
        [
            ("Read".to_owned(), 0, true, O),
            ("github.list_issues".to_owned(), 0, true, E)
        ]
    );
    assert_eq!(run.calls[1].args(), &json!({"repo": "x"}));
}

/// A span as the Python SDK's console exporter writes it.
fn sdk_span(id: &str, parent: Option<&str>, start: &str, name: &str, status: &str) -> Value {
    json!({
        "name": name,
        "context": {"trace_id": "0x5b8aa5a2d2c872e8321cf37308d69df2", "span_id": id, "trace_state": "[]"},
        "kind": "SpanKind.INTERNAL",
        "parent_id": parent,
        "start_time": start,
        "end_time": start,
        "status": {"status_code": status},
        "attributes": {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name},
        "events": [],
        "links": [],
        "resource": {"attributes": {"service.name": "agent"}, "schema_url": ""}
    })
}

#[rstest]
#[case::a_list_ordered_by_start_time(false, vec![
    sdk_span("0x02", Some("0x01"), "2025-01-01T10:00:02.5Z", "second", "ERROR"),
    sdk_span("0x03", Some("0x01"), "2025-01-01T10:00:01.000001Z", "first", "UNSET"),
], &[("first", 0, true, O), ("second", 0, true, E)])]
#[case::one_per_line(true, vec![
    sdk_span("0x02", None, "2025-01-01T10:00:02Z", "b", "OK"),
    sdk_span("0x01", None, "2024-12-31T23:59:59Z", "a", "OK"),
    sdk_span("0x01", None, "2024-12-31T23:59:59Z", "a", "OK"),
], &[("a", 0, true, O), ("b", 0, true, O)])]
fn python_sdk_spans(
    #[case] lines: bool,
    #[case] spans: Vec<Value>,
    #[case] expected: &[(&str, u32, bool, Status)],
) {
    let text = if lines {
        let mut text = String::new();
        for span in &spans {
            text.push_str(&span.to_string());
            text.push('\n');
        }
        text
    } else {
        Value::Array(spans).to_string()
    };
    check(&text, lines, expected);
}

#[rstest]
#[case::tool_span_with_input_and_output(OPENINFERENCE_TOOL_SPAN, json!({"city": "New York"}), O)]
#[case::openinference_flattened_messages(OPENINFERENCE_LLM_SPAN, json!({"location": "Paris"}), U)]
#[case::genai_prompt_messages(GENAI_DEPRECATED_SPAN, json!({"location": "Paris"}), U)]
fn span_attribute_maps(#[case] text: &str, #[case] args: Value, #[case] status: Status) {
    let run = run(text, false);
    assert_eq!(summary(&run), [("get_weather".to_owned(), 0, true, status)]);
    assert_eq!(run.calls[0].args(), &args);
}

#[test]
fn flattened_messages_keep_index_order_and_pair_by_id() {
    let text = json!({
        "openinference.span.kind": "LLM",
        "llm.input_messages.10.message.role": "tool",
        "llm.input_messages.10.message.tool_call_id": "b",
        "llm.input_messages.10.message.content": "second",
        "llm.input_messages.2.message.role": "assistant",
        "llm.input_messages.2.message.tool_calls.0.tool_call.id": "a",
        "llm.input_messages.2.message.tool_calls.0.tool_call.function.name": "x",
        "llm.input_messages.2.message.tool_calls.1.tool_call.id": "b",
        "llm.input_messages.2.message.tool_calls.1.tool_call.function.name": "y",
        "llm.input_messages.9.message.role": "tool",
        "llm.input_messages.9.message.tool_call_id": "a",
        "llm.input_messages.9.message.content": "first",
    })
    .to_string();
    let run = run(&text, false);
    assert_eq!(
        summary(&run),
        [("x".to_owned(), 0, true, U), ("y".to_owned(), 0, true, U)]
    );
    assert_eq!(run.calls[1].result(), Some(&json!("second")));
}

/// An export request holding `spans`, each `(trace id, span id, start, operation, tool)`:
/// an `execute_tool` span of `tool`, or a span of another operation (`chat`, or `""` for
/// a span that is none of `GenAI`'s).
fn export(spans: &[(&str, &str, u64, &str, &str)]) -> String {
    let spans: Vec<Value> = spans
        .iter()
        .map(|(trace, id, start, operation, tool)| {
            let mut attributes = vec![];
            if !operation.is_empty() {
                attributes.push(
                    json!({"key": "gen_ai.operation.name", "value": {"stringValue": operation}}),
                );
            }
            if !tool.is_empty() {
                attributes.push(json!({"key": "gen_ai.tool.name", "value": {"stringValue": tool}}));
            }
            json!({"traceId": trace, "spanId": id, "name": format!("{operation} {tool}"),
                   "startTimeUnixNano": start.to_string(), "attributes": attributes})
        })
        .collect();
    json!({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}).to_string()
}

fn runs_of(text: &str, lines: bool) -> Vec<(Option<String>, Vec<String>)> {
    let (format, runs) = read(text, lines).unwrap();
    assert_eq!(format, "otel");
    runs.into_iter()
        .map(|run| {
            let names = run.calls.iter().map(|call| call.name.clone()).collect();
            (run.trace_id, names)
        })
        .collect()
}

const LATE: &str = "0af7651916cd43dd8448eb211c80319c";
const EARLY: &str = "5b8efff798038103d269b633813fc60c";

#[test]
fn each_trace_id_is_a_run_in_order_of_its_earliest_span() {
    // The file exporter's batches: two traces interleaved, children first.
    let text = [
        export(&[
            (LATE, "b1", 40, "execute_tool", "lookup"),
            (EARLY, "a1", 2, "chat", ""),
        ]),
        export(&[
            (EARLY, "a2", 5, "execute_tool", "lookup"),
            (LATE, "b2", 50, "execute_tool", "reply"),
        ]),
        export(&[(EARLY, "a3", 9, "execute_tool", "reply")]),
    ]
    .join("\n");
    assert_eq!(
        runs_of(&text, true),
        [
            (
                Some(EARLY.to_owned()),
                vec!["lookup".to_owned(), "reply".to_owned()]
            ),
            (
                Some(LATE.to_owned()),
                vec!["lookup".to_owned(), "reply".to_owned()]
            ),
        ]
    );
}

#[test]
fn traces_that_start_together_are_in_trace_id_order() {
    let text = export(&[
        (EARLY, "a1", 7, "execute_tool", "x"),
        (LATE, "b1", 7, "execute_tool", "y"),
    ]);
    let ids: Vec<_> = runs_of(&text, false)
        .into_iter()
        .map(|(id, _)| id)
        .collect();
    assert_eq!(ids, [Some(LATE.to_owned()), Some(EARLY.to_owned())]);
}

#[test]
fn a_trace_of_other_spans_only_is_not_a_run() {
    // An HTTP handler's trace beside the agent's: only the agent's is a run.
    let text = export(&[
        (LATE, "h1", 1, "", ""),
        (EARLY, "a1", 5, "execute_tool", "lookup"),
    ]);
    assert_eq!(
        runs_of(&text, false),
        [(Some(EARLY.to_owned()), vec!["lookup".to_owned()])]
    );
    // A file of such spans only is one run without calls, as any file without calls.
    let text = export(&[(LATE, "h1", 1, "", "")]);
    assert_eq!(runs_of(&text, false), [(None, vec![])]);
}

#[test]
fn a_trace_of_inferences_without_calls_is_a_run_without_calls() {
    let text = export(&[
        (LATE, "c1", 1, "chat", ""),
        (EARLY, "a1", 5, "execute_tool", "lookup"),
    ]);
    assert_eq!(
        runs_of(&text, false),
        [
            (Some(LATE.to_owned()), vec![]),
            (Some(EARLY.to_owned()), vec!["lookup".to_owned()])
        ]
    );
}
