//! Naming schemes: how a tool name that carries its server (`mcp__github__list_issues`) is
//! split into server and tool. A server recorded in a field of its own always wins.

use std::fmt;

use regex::{Regex, RegexBuilder};
use regex_automata::util::syntax;
use regex_automata::{MatchKind, meta};

/// The most memory one regular expression of a suite or of `--naming-pattern` may compile
/// to: 4 MiB, less than half the `regex` crate's default of 10 MiB.
///
/// A tool-name pattern compiles to a few kilobytes, and `^\w{1,64}$`, with its Unicode
/// classes, to under 4 MiB; but a short pattern can ask for a huge program (`\w{1000}`
/// is tens of megabytes), and every pattern is compiled while the suite is read. Past the limit compilation stops at once with
/// `trailgate::suite::regex_too_big`. The lazy DFA that searches with it keeps its cache
/// within [`REGEX_DFA_CACHE_BYTES`].
pub const MAX_REGEX_BYTES: usize = 4 << 20;

/// The cache each compiled regular expression's lazy DFA may use while searching: 2 MiB,
/// the `regex` crate's default, set here so that it is written down.
pub const REGEX_DFA_CACHE_BYTES: usize = 2 << 20;

/// The longest pattern compiled: 64 KiB. Parsing a pattern takes memory in proportion to
/// its length before the [`MAX_REGEX_BYTES`] limit on the compiled program can act (a
/// 10 MB pattern took a gigabyte to refuse), and no tool-name pattern comes near it.
pub const MAX_REGEX_PATTERN_BYTES: usize = 64 << 10;

/// Compiles a pattern of a suite or of the command line within [`MAX_REGEX_BYTES`]; a
/// pattern longer than [`MAX_REGEX_PATTERN_BYTES`] is refused unread.
pub fn compile_regex(pattern: &str) -> Result<Regex, regex::Error> {
    refuse_long(pattern)?;
    RegexBuilder::new(pattern)
        .size_limit(MAX_REGEX_BYTES)
        .dfa_size_limit(REGEX_DFA_CACHE_BYTES)
        .build()
}

/// Compiles a pattern as [`compile_regex`] does, into the `regex` crate's own engine (the
/// `meta::Regex` a `Regex` wraps, built with the same settings), which also tells the memory
/// it holds ([`meta::Regex::memory_usage`]): for the regexes that only search (`is_match`)
/// and are counted in a suite's total.
pub fn compile_meta_regex(pattern: &str) -> Result<meta::Regex, regex::Error> {
    refuse_long(pattern)?;
    meta::Builder::new()
        .configure(
            meta::Config::new()
                .match_kind(MatchKind::LeftmostFirst)
                .utf8_empty(true)
                .nfa_size_limit(Some(MAX_REGEX_BYTES))
                .hybrid_cache_capacity(REGEX_DFA_CACHE_BYTES),
        )
        .syntax(syntax::Config::new().utf8(true))
        .build(pattern)
        // As `regex` turns its engine's errors into its own.
        .map_err(|error| match (error.size_limit(), error.syntax_error()) {
            (Some(limit), _) => regex::Error::CompiledTooBig(limit),
            (None, Some(syntax)) => regex::Error::Syntax(syntax.to_string()),
            (None, None) => regex::Error::Syntax(error.to_string()),
        })
}

/// Refuses a pattern longer than [`MAX_REGEX_PATTERN_BYTES`].
fn refuse_long(pattern: &str) -> Result<(), regex::Error> {
    if pattern.len() > MAX_REGEX_PATTERN_BYTES {
        return Err(regex::Error::Syntax(format!(
            "the pattern is {} bytes long, longer than {} KiB, the limit for one pattern",
            pattern.len(),
            MAX_REGEX_PATTERN_BYTES >> 10
        )));
    }
    Ok(())
}

/// How to split a tool name into server and tool.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum Naming {
    /// The scheme of the detected format (see each format in `docs/formats.md`).
    Default,
    /// Never split.
    None,
    /// `mcp__<server>__<tool>` (Claude Code, Codex, OpenCode): the server runs to the first
    /// `__` after the prefix.
    McpDouble,
    /// `mcp_<server>_<tool>` (VS Code, Gemini CLI, Cursor), resolved against known servers,
    /// longest first; a name that starts with no known server is not split.
    McpSingle {
        /// The servers that may appear in names.
        servers: Vec<String>,
    },
    /// `<server>-<tool>` (GitHub Copilot), resolved against known servers, longest first;
    /// without a list, split at the first `-`.
    Dash {
        /// The servers that may appear in names.
        servers: Vec<String>,
    },
    /// A regular expression with the named groups `server` and `tool`; a name it does not
    /// match is not split.
    Regex(Regex),
}

impl Naming {
    /// The scheme's name, as written in suites and on the command line.
    pub fn name(&self) -> &'static str {
        match self {
            Self::Default => "default",
            Self::None => "none",
            Self::McpDouble => "mcp-double",
            Self::McpSingle { .. } => "mcp-single",
            Self::Dash { .. } => "dash",
            Self::Regex(_) => "regex",
        }
    }

    /// The schemes that take no parameter, by name, and `mcp-single`, `dash` and `regex`,
    /// which take servers or a pattern.
    pub const NAMES: &'static [&'static str] = &[
        "default",
        "none",
        "mcp-double",
        "mcp-single",
        "dash",
        "regex",
    ];

    /// Builds a scheme from its name, a server list and a pattern.
    pub fn from_parts(
        name: &str,
        servers: Vec<String>,
        pattern: Option<&str>,
    ) -> Result<Self, NamingError> {
        Self::from_parts_with(name, servers, pattern, compile_regex)
    }

    /// [`Naming::from_parts`], with the pattern of a `regex` scheme compiled by `compile`
    /// instead of [`compile_regex`]: a suite's reader gives the regex it compiled once for
    /// every place the suite writes that pattern.
    pub fn from_parts_with(
        name: &str,
        servers: Vec<String>,
        pattern: Option<&str>,
        compile: impl FnOnce(&str) -> Result<Regex, regex::Error>,
    ) -> Result<Self, NamingError> {
        Ok(match name {
            "default" => Self::Default,
            "none" => Self::None,
            "mcp-double" => Self::McpDouble,
            "mcp-single" => Self::McpSingle { servers },
            "dash" => Self::Dash { servers },
            "regex" => {
                let pattern = pattern.ok_or(NamingError::MissingPattern)?;
                let regex = compile(pattern).map_err(|error| match error {
                    regex::Error::CompiledTooBig(limit) => NamingError::TooBig { limit },
                    other => NamingError::Pattern(other.to_string()),
                })?;
                let names: Vec<&str> = regex.capture_names().flatten().collect();
                if !(names.contains(&"server") && names.contains(&"tool")) {
                    return Err(NamingError::Groups);
                }
                Self::Regex(regex)
            }
            other => return Err(NamingError::Unknown(other.to_owned())),
        })
    }

    /// Splits `name` into `(server, tool)`, or `None` when the scheme does not apply.
    pub fn split(&self, name: &str) -> Option<(String, String)> {
        let pair = |server: &str, tool: &str| {
            (!server.is_empty() && !tool.is_empty()).then(|| (server.to_owned(), tool.to_owned()))
        };
        match self {
            Self::Default | Self::None => None,
            Self::McpDouble => {
                let rest = name.strip_prefix("mcp__")?;
                let (server, tool) = rest.split_once("__")?;
                pair(server, tool)
            }
            Self::McpSingle { servers } => {
                let rest = name.strip_prefix("mcp_")?;
                longest_prefix(rest, servers, '_').and_then(|(s, t)| pair(s, t))
            }
            Self::Dash { servers } if servers.is_empty() => {
                let (server, tool) = name.split_once('-')?;
                pair(server, tool)
            }
            Self::Dash { servers } => {
                longest_prefix(name, servers, '-').and_then(|(s, t)| pair(s, t))
            }
            Self::Regex(regex) => {
                let captures = regex.captures(name)?;
                pair(
                    captures.name("server")?.as_str(),
                    captures.name("tool")?.as_str(),
                )
            }
        }
    }
}

/// The longest server `s` of `servers` such that `name` starts with `s` and `separator`.
fn longest_prefix<'n>(
    name: &'n str,
    servers: &[String],
    separator: char,
) -> Option<(&'n str, &'n str)> {
    servers
        .iter()
        .filter(|server| {
            name.strip_prefix(server.as_str())
                .is_some_and(|rest| rest.starts_with(separator))
        })
        .max_by_key(|server| server.len())
        .map(|server| {
            (
                &name[..server.len()],
                &name[server.len() + separator.len_utf8()..],
            )
        })
}

/// Why a naming scheme could not be built.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum NamingError {
    /// No scheme has this name.
    Unknown(String),
    /// `regex` needs a pattern.
    MissingPattern,
    /// The pattern does not compile.
    Pattern(String),
    /// The pattern lacks the named groups `server` and `tool`.
    Groups,
    /// The pattern compiles to more than `limit` bytes ([`MAX_REGEX_BYTES`]).
    TooBig {
        /// The limit, in bytes.
        limit: usize,
    },
}

impl fmt::Display for NamingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Unknown(name) => write!(f, "unknown naming scheme `{name}`"),
            Self::MissingPattern => f.write_str("the `regex` naming scheme needs a `pattern`"),
            Self::Pattern(error) => write!(f, "invalid naming pattern: {error}"),
            Self::Groups => {
                f.write_str("the naming pattern needs the named groups `server` and `tool`")
            }
            Self::TooBig { limit } => write!(
                f,
                "the naming pattern compiles to more than {} MiB, the limit for one regex",
                limit >> 20
            ),
        }
    }
}

impl std::error::Error for NamingError {}
