//! `budget`'s repeats: one tool with equal arguments, by value.

use serde_json::json;
use trailgate_trace::{Call, Status};

fn call(server: Option<&str>, name: &str, args: serde_json::Value) -> Call {
    Call {
        server: server.map(str::to_owned),
        name: name.to_owned(),
        args: args.into(),
        args_raw: None,
        result: None,
        status: Status::Ok,
        step: 0,
        completed: true,
    }
}

/// A repeat is the same tool with equal arguments: keys in any order, numbers by value
/// (`-0` is `0`), never a call of another tool or with other arguments.
#[test]
fn repeats_are_calls_of_one_tool_with_equal_arguments() {
    let calls = [
        call(None, "get", json!({ "page": 1, "q": "a" })),
        call(None, "get", json!({ "q": "a", "page": 1.0 })),
        call(Some("http"), "get", json!({ "page": 1, "q": "a" })),
        call(None, "get", json!({ "page": 2, "q": "a" })),
        call(None, "get", json!({ "page": -0.0 })),
        call(None, "get", json!({ "page": 0 })),
        call(None, "search", json!({ "page": 1, "q": "a" })),
        call(None, "get", json!({ "page": 1e0, "q": "a" })),
    ];
    assert_eq!(super::repeats(&calls), (3, Some((1, 0))));
}
