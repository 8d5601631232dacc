//! Tool identity: the `(server, name)` of a recorded call and the members that match it.

use std::fmt;

/// The identity of one recorded tool call: the server it went to, if the trace recorded one,
/// and the tool's name.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ToolId {
    server: Option<String>,
    name: String,
}

impl ToolId {
    /// A call recorded with a server.
    pub fn qualified(server: impl Into<String>, name: impl Into<String>) -> Self {
        Self {
            server: Some(server.into()),
            name: name.into(),
        }
    }

    /// A call recorded without a server.
    pub fn bare(name: impl Into<String>) -> Self {
        Self {
            server: None,
            name: name.into(),
        }
    }

    /// A call with an optional server.
    pub fn new(server: Option<String>, name: impl Into<String>) -> Self {
        Self {
            server,
            name: name.into(),
        }
    }

    /// The server the call went to, if the trace recorded one.
    pub fn server(&self) -> Option<&str> {
        self.server.as_deref()
    }

    /// The tool's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The identity as borrowed parts, for look-ups that need no owned copy.
    pub fn as_tool_ref(&self) -> ToolRef<'_> {
        ToolRef {
            server: self.server.as_deref(),
            name: &self.name,
        }
    }
}

impl<'a> From<&'a ToolId> for ToolRef<'a> {
    fn from(id: &'a ToolId) -> Self {
        id.as_tool_ref()
    }
}

/// A borrowed [`ToolId`]: the `(server, name)` of a call, pointing into whatever holds them.
///
/// Matching a call against members and classes needs only its parts; scoring a run through
/// this view builds an owned [`ToolId`] only for what an outcome keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ToolRef<'a> {
    server: Option<&'a str>,
    name: &'a str,
}

impl<'a> ToolRef<'a> {
    /// A call with an optional server.
    pub fn new(server: Option<&'a str>, name: &'a str) -> Self {
        Self { server, name }
    }

    /// The server the call went to, if the trace recorded one.
    pub fn server(self) -> Option<&'a str> {
        self.server
    }

    /// The tool's name.
    pub fn name(self) -> &'a str {
        self.name
    }

    /// An owned copy.
    pub fn to_tool_id(self) -> ToolId {
        ToolId::new(self.server.map(str::to_owned), self.name)
    }
}

/// `server.name`, or `name` when no server was recorded, as for [`ToolId`].
impl fmt::Display for ToolRef<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.server {
            Some(server) => write!(f, "{server}.{}", self.name),
            None => f.write_str(self.name),
        }
    }
}

/// `server.name`, or `name` when no server was recorded.
impl fmt::Display for ToolId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.server {
            Some(server) => write!(f, "{server}.{}", self.name),
            None => f.write_str(&self.name),
        }
    }
}

/// One acceptable tool: in a class, or in an expected list.
///
/// A qualified member (`brave.web_search`) matches only calls to that server and tool; a bare
/// member (`web_search`) matches that tool on any server, and a call recorded without a server.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Member {
    server: Option<String>,
    tool: String,
}

impl Member {
    /// Parses the string form: split at the first `.` into server and tool, or a bare tool
    /// when there is no `.`.
    ///
    /// `"github.repos.list"` is server `github`, tool `repos.list`; use [`Member::new`] for a
    /// bare tool whose name contains a dot.
    pub fn parse(text: &str) -> Result<Self, MemberError> {
        match text.split_once('.') {
            Some((server, tool)) => Self::new(Some(server), tool),
            None => Self::new(None, text),
        }
    }

    /// The object form: an optional server and a tool, taken as they are.
    pub fn new(server: Option<&str>, tool: &str) -> Result<Self, MemberError> {
        if server.is_some_and(str::is_empty) {
            return Err(MemberError::EmptyServer);
        }
        if tool.is_empty() {
            return Err(MemberError::EmptyTool);
        }
        Ok(Self {
            server: server.map(str::to_owned),
            tool: tool.to_owned(),
        })
    }

    /// The server this member requires, if it is qualified.
    pub fn server(&self) -> Option<&str> {
        self.server.as_deref()
    }

    /// The tool name this member requires.
    pub fn tool(&self) -> &str {
        &self.tool
    }

    /// Whether a call with this identity is an instance of this member.
    ///
    /// Compares the structured parts, never concatenated text, so `a.b` + `c` and `a` + `b.c`
    /// stay distinct.
    pub fn matches(&self, call: &ToolId) -> bool {
        self.matches_ref(call.as_tool_ref())
    }

    /// [`Member::matches`] on a borrowed identity.
    pub fn matches_ref(&self, call: ToolRef<'_>) -> bool {
        self.tool == call.name
            && match &self.server {
                None => true,
                Some(server) => call.server == Some(server.as_str()),
            }
    }
}

/// `server.tool`, or `tool` for a bare member.
impl fmt::Display for Member {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.server {
            Some(server) => write!(f, "{server}.{}", self.tool),
            None => f.write_str(&self.tool),
        }
    }
}

/// Why a member could not be built.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum MemberError {
    /// The server part is present but empty (`".web_search"`).
    EmptyServer,
    /// The tool part is empty (`""`, `"brave."`).
    EmptyTool,
}

impl fmt::Display for MemberError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::EmptyServer => "the server part of the member is empty",
            Self::EmptyTool => "the tool part of the member is empty",
        })
    }
}

impl std::error::Error for MemberError {}
