//! One span as read: its ids, times and place in the file, and its role, worked out from
//! its attributes and name: a tool call (which layer recorded it, the tool's name and
//! server, its call and request ids, arguments and result), a model inference, an agent
//! invocation, or another span.

use std::collections::BTreeMap;

use serde_json::Value;

use super::messages::tool_result;
use super::shape;
use crate::formats::RecordError;

pub(super) struct Span {
    /// The position in the file, the last tie-breaker of the order.
    pub(super) order: usize,
    /// The trace id, lower-case hex; empty when the span has none.
    pub(super) trace: String,
    pub(super) id: Option<String>,
    pub(super) parent: Option<String>,
    pub(super) start: Option<u64>,
    pub(super) end: Option<u64>,
    pub(super) role: Role,
    /// The span's own `gen_ai.agent.name`, when it has one.
    pub(super) agent: Option<String>,
}

impl Span {
    /// The order of calls and of steps: start time (spans without one last), span id, file
    /// order.
    pub(super) fn key(&self) -> (bool, u64, &str, usize) {
        (
            self.start.is_none(),
            self.start.unwrap_or(0),
            self.id.as_deref().unwrap_or(""),
            self.order,
        )
    }

    pub(super) fn tool(&self) -> Option<&ToolSpan> {
        match &self.role {
            Role::Tool(tool) => Some(tool),
            _ => None,
        }
    }
}

pub(super) enum Role {
    Tool(Box<ToolSpan>),
    /// A model inference (`chat`, `text_completion`, `generate_content`, `OpenInference` `LLM`):
    /// one step.
    Inference,
    /// An agent invocation: the calls under it belong to that agent's own steps.
    Agent,
    Other,
}

/// Which side recorded a tool span. The order is the preference when one call was recorded
/// by several: the agent's own span knows the name the model used and the arguments it gave.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Layer {
    /// `execute_tool`, `OpenInference` `TOOL`, AI SDK `ai.toolCall`.
    Tool,
    McpClient,
    McpServer,
}

impl Layer {
    pub(super) fn bit(self) -> u8 {
        match self {
            Self::Tool => 1,
            Self::McpClient => 2,
            Self::McpServer => 4,
        }
    }
}

pub(super) struct ToolSpan {
    pub(super) layer: Layer,
    pub(super) name: String,
    pub(super) server: Option<String>,
    pub(super) call_id: Option<String>,
    /// `jsonrpc.request.id` and `mcp.session.id`, which tie an MCP client span to the
    /// server's span of the same request.
    pub(super) request: Option<(String, String)>,
    pub(super) args: Option<Value>,
    pub(super) result: Option<Value>,
    /// The span's status is an error, `error.type` is set, or the result is a
    /// `CallToolResult` with `isError: true`.
    pub(super) error: bool,
}

/// Attribute keys tried in order for each field. The `GenAI` keys come first; the others
/// are what `OpenInference`, the AI SDK, Google ADK and Codex write.
/// Claude Code's `claude_code.tool` spans write `tool_name`, `tool_use_id` and, with
/// `OTEL_LOG_TOOL_DETAILS`, `tool_input`; some `execute_tool` spans carry bare `input` and
/// `output` (`OpenInference`'s `GenAI` test spans).
const NAME_KEYS: &[&str] = &[
    "gen_ai.tool.name",
    "tool.name",
    "mcp.tool.name",
    "ai.toolCall.name",
    "tool_name",
];
const CALL_ID_KEYS: &[&str] = &[
    "gen_ai.tool.call.id",
    "tool.call_id",
    "tool.id",
    "ai.toolCall.id",
    "tool_use_id",
];
const ARGS_KEYS: &[&str] = &[
    "gen_ai.tool.call.arguments",
    "ai.toolCall.args",
    "input.value",
    "gcp.vertex.agent.tool_call_args",
    "tool_input",
    "input",
];
const RESULT_KEYS: &[&str] = &[
    "gen_ai.tool.call.result",
    "ai.toolCall.result",
    "output.value",
    "gcp.vertex.agent.tool_response",
    "output",
];

pub(super) fn classify(
    attributes: &BTreeMap<String, Value>,
    span_name: &str,
    server_kind: bool,
    status_error: bool,
    path: &str,
) -> Result<Role, RecordError> {
    let text = |key: &str| {
        attributes
            .get(key)
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|text| !text.is_empty())
    };
    let id = |key: &str| match attributes.get(key)? {
        Value::String(text) if !text.trim().is_empty() => Some(text.trim().to_owned()),
        Value::Number(number) => Some(number.to_string()),
        _ => None,
    };
    let operation = text("gen_ai.operation.name");
    let openinference = text("openinference.span.kind").map(str::to_ascii_uppercase);
    let openinference = openinference.as_deref();
    let layer = if text("mcp.method.name") == Some("tools/call") {
        if server_kind {
            Layer::McpServer
        } else {
            Layer::McpClient
        }
    } else if operation == Some("execute_tool")
        || openinference == Some("TOOL")
        || text("ai.toolCall.name").is_some()
        || (span_name == "claude_code.tool" && text("tool_name").is_some())
    {
        Layer::Tool
    } else if matches!(
        operation,
        Some("chat" | "text_completion" | "generate_content")
    ) || openinference == Some("LLM")
        || text("ai.operationId")
            .is_some_and(|op| op.ends_with(".doGenerate") || op.ends_with(".doStream"))
    {
        return Ok(Role::Inference);
    } else if matches!(operation, Some("invoke_agent" | "create_agent"))
        || openinference == Some("AGENT")
    {
        return Ok(Role::Agent);
    } else {
        return Ok(Role::Other);
    };
    let name = NAME_KEYS
        .iter()
        .find_map(|key| text(key))
        .or_else(|| name_from_span(span_name))
        .ok_or_else(|| {
            shape(
                "a tool span without `gen_ai.tool.name` or a span name",
                path,
            )
        })?;
    // MCP has no server-name attribute; Codex writes `mcp.server.name`, and an MCP client
    // span names the host it called in `server.address`.
    let server = text("mcp.server.name").or_else(|| {
        if layer == Layer::Tool {
            None
        } else {
            text("server.address")
        }
    });
    let (result, result_error) = match RESULT_KEYS.iter().find_map(|key| attributes.get(*key)) {
        Some(value) if !value.is_null() => {
            let (result, error) = tool_result(value);
            (Some(result), error)
        }
        _ => (None, false),
    };
    Ok(Role::Tool(Box::new(ToolSpan {
        layer,
        name: name.to_owned(),
        server: server.map(str::to_owned),
        call_id: CALL_ID_KEYS.iter().find_map(|key| id(key)),
        request: id("jsonrpc.request.id").map(|request| {
            (
                request,
                text("mcp.session.id").unwrap_or_default().to_owned(),
            )
        }),
        args: ARGS_KEYS
            .iter()
            .find_map(|key| attributes.get(*key))
            .filter(|value| !value.is_null())
            .cloned(),
        result,
        // Claude Code writes `success: false` on a tool that failed.
        error: status_error
            || text("error.type").is_some()
            || result_error
            || matches!(attributes.get("success"), Some(Value::Bool(false)))
            || text("success") == Some("false"),
    })))
}

/// The tool name in a span name: `execute_tool get_weather`, `tools/call get-weather`, or
/// the bare tool name `OpenInference` uses.
fn name_from_span(span_name: &str) -> Option<&str> {
    let name = span_name.trim();
    let name = name
        .strip_prefix("execute_tool ")
        .or_else(|| name.strip_prefix("tools/call "))
        .unwrap_or(name)
        .trim();
    (!name.is_empty() && name != "execute_tool" && name != "tools/call").then_some(name)
}

/// A span's `gen_ai.agent.name` (docs/formats.md#agents), when it is a non-empty string.
pub(super) fn agent_name(attributes: &BTreeMap<String, Value>) -> Option<String> {
    attributes
        .get("gen_ai.agent.name")
        .and_then(Value::as_str)
        .and_then(crate::formats::agent_name)
}
