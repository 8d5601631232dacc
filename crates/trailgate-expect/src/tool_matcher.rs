//! Tool matchers (docs/matchers.md): which calls an expected tool stands for. Every grader
//! that names a tool uses them: a member (docs/scoring.md#tool-identity), any member of an
//! equal-function
//! class of the test (`class:`), a regex on the call's server (`server:`), and the agent
//! that made the call (`agent:`).

pub(crate) mod config;

use std::fmt;

use serde_json::Value;
use trailgate_core::{Member, ToolRef};
use trailgate_trace::{Call, ValueRef};

use crate::matchers::{ArgsMode, ValueMatcher};
use crate::pattern::Pattern;

/// An equal-function class named by a matcher (`class: search`), with its members copied
/// from the test's classes when the suite was read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClassTools {
    name: String,
    members: Vec<Member>,
}

impl ClassTools {
    /// The class `name` with its `members`.
    pub fn new(name: impl Into<String>, members: Vec<Member>) -> Self {
        Self {
            name: name.into(),
            members,
        }
    }

    /// The class's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Whether `call` is one of the class's members.
    pub fn contains(&self, call: ToolRef<'_>) -> bool {
        self.members.iter().any(|member| member.matches_ref(call))
    }
}

/// Which agent made a call (docs/matchers.md#agents): an exact name, or a value matcher
/// on the name (`{$regex: "^research"}`). A call the trace records without an agent
/// matches no agent matcher, whatever its value matcher (`{$not: router}` included).
#[derive(Debug, Clone)]
pub struct AgentMatcher {
    matcher: ValueMatcher,
}

impl AgentMatcher {
    /// The agent matcher of `matcher`: a literal string is the agent's exact name.
    pub fn new(matcher: ValueMatcher) -> Self {
        Self { matcher }
    }

    /// Whether a call made by `agent` (`None`: the trace does not say) matches.
    pub fn matches(&self, agent: Option<&str>) -> bool {
        let Some(agent) = agent else {
            return false;
        };
        if let Some(Value::String(name)) = self.matcher.as_literal() {
            return name == agent;
        }
        let value = Value::String(agent.to_owned());
        self.matcher
            .matches(Some(ValueRef::parsed(&value)), ArgsMode::Exact)
    }
}

impl fmt::Display for AgentMatcher {
    /// An exact name as it is (`router`), any other matcher as compact JSON.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.matcher.as_literal() {
            Some(Value::String(name)) => f.write_str(name),
            _ => write!(f, "{}", self.matcher),
        }
    }
}

/// An expected tool: a member, a class, or both, and optionally a pattern that the call's
/// server must contain and the agent that must have made it. Each part given must hold.
#[derive(Debug, Clone)]
pub struct ToolMatcher {
    member: Option<Member>,
    class: Option<ClassTools>,
    server: Option<Pattern>,
    agent: Option<AgentMatcher>,
}

impl ToolMatcher {
    /// The calls that `member` matches (docs/scoring.md#tool-identity).
    pub fn member(member: Member) -> Self {
        Self {
            member: Some(member),
            class: None,
            server: None,
            agent: None,
        }
    }

    /// The calls of any member of `class`.
    pub fn class(class: ClassTools) -> Self {
        Self {
            member: None,
            class: Some(class),
            server: None,
            agent: None,
        }
    }

    /// The matcher, further limited to the members of `class`.
    #[must_use]
    pub fn in_class(mut self, class: ClassTools) -> Self {
        self.class = Some(class);
        self
    }

    /// The matcher, further limited to calls whose server contains `server`. A call
    /// recorded without a server matches no server pattern.
    #[must_use]
    pub fn on_server(mut self, server: Pattern) -> Self {
        self.server = Some(server);
        self
    }

    /// The matcher, further limited to calls made by an agent that `agent` matches. A call
    /// recorded without an agent matches no agent matcher.
    #[must_use]
    pub fn by_agent(mut self, agent: AgentMatcher) -> Self {
        self.agent = Some(agent);
        self
    }

    /// The member, when the matcher names one.
    pub fn as_member(&self) -> Option<&Member> {
        self.member.as_ref()
    }

    /// Whether `call` is the expected tool: its tool id, and the agent that made it when
    /// the matcher names one.
    pub fn matches(&self, call: &Call) -> bool {
        self.matches_tool(ToolRef::new(call.server.as_deref(), &call.name))
            && self
                .agent
                .as_ref()
                .is_none_or(|agent| agent.matches(call.agent.as_deref()))
    }

    /// Whether a call of the tool `call` can be the expected tool: every part of the
    /// matcher but the agent holds.
    fn matches_tool(&self, call: ToolRef<'_>) -> bool {
        self.member
            .as_ref()
            .is_none_or(|member| member.matches_ref(call))
            && self.class.as_ref().is_none_or(|class| class.contains(call))
            && self
                .server
                .as_ref()
                .is_none_or(|pattern| call.server().is_some_and(|server| pattern.is_match(server)))
    }
}

impl fmt::Display for ToolMatcher {
    /// A member as written (`brave.web_search`), a class as `class:search`, a server
    /// pattern after either as `server:^brave$`, and an agent as `agent:router`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts = Vec::new();
        if let Some(member) = &self.member {
            parts.push(member.to_string());
        }
        if let Some(class) = &self.class {
            parts.push(format!("class:{}", class.name));
        }
        if let Some(server) = &self.server {
            parts.push(format!("server:{}", server.as_str()));
        }
        if let Some(agent) = &self.agent {
            parts.push(format!("agent:{agent}"));
        }
        f.write_str(&parts.join(" "))
    }
}

#[cfg(test)]
mod tests;
