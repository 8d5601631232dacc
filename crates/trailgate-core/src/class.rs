//! Equal-function classes and the index that finds, for a call, the classes it can satisfy.

use std::collections::BTreeMap;

use crate::lookup::LookupMap;
use std::fmt;

use crate::id::{Member, ToolId, ToolRef};

/// The name of a class, unique within a [`ClassSet`].
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ClassName(String);

impl ClassName {
    /// Wraps a class name.
    pub fn new(name: impl Into<String>) -> Self {
        Self(name.into())
    }

    /// The name as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for ClassName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A named group of interchangeable tools: calling any member satisfies the class.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Class {
    /// The class's name.
    pub name: ClassName,
    /// The tools that satisfy it.
    pub members: Vec<Member>,
}

impl Class {
    /// A class from its name and members.
    pub fn new(name: impl Into<String>, members: Vec<Member>) -> Self {
        Self {
            name: ClassName::new(name),
            members,
        }
    }
}

/// The position of a class in its [`ClassSet`], in declaration order.
pub type ClassIndex = usize;

/// Classes in declaration order, checked and indexed for look-up by tool identity.
///
/// Finding the classes a call can satisfy costs at most two map look-ups, whatever the number
/// of classes, and allocates nothing.
#[derive(Debug, Clone)]
pub struct ClassSet {
    classes: Vec<Class>,
    /// The members, by tool name: most calls name a tool no class has, and one look-up
    /// settles them.
    by_tool: LookupMap<String, ToolClasses>,
    /// Each distinct list of classes a call can satisfy, once, the empty list first: calls
    /// with the same list are alike to the assignment, and its position here names it
    /// ([`ClassSet::candidate_set`]).
    sets: Vec<Vec<ClassIndex>>,
}

/// The classes of one tool's members as [`ClassSet::new`] gathers them: of the bare
/// members, and of the qualified ones by server.
type GatheredClasses = (Vec<ClassIndex>, BTreeMap<String, Vec<ClassIndex>>);

/// The classes whose members name one tool, as positions in [`ClassSet::sets`].
#[derive(Debug, Clone)]
struct ToolClasses {
    /// Of the bare members: classes, ascending.
    bare: usize,
    /// Of the qualified members: server -> classes, ascending, merged with `bare`, so that
    /// one look-up gives a call's classes.
    by_server: LookupMap<String, usize>,
}

impl ClassSet {
    /// Checks the classes (unique non-empty names, at least one member each) and indexes
    /// them. An empty list is allowed: it is the "nothing expected" case.
    pub fn new(classes: Vec<Class>) -> Result<Self, ClassSetError> {
        let mut seen: BTreeMap<&str, ClassIndex> = BTreeMap::new();
        for (index, class) in classes.iter().enumerate() {
            if class.name.as_str().is_empty() {
                return Err(ClassSetError::EmptyName { index });
            }
            if class.members.is_empty() {
                return Err(ClassSetError::NoMembers {
                    class: class.name.clone(),
                });
            }
            if let Some(&first) = seen.get(class.name.as_str()) {
                return Err(ClassSetError::DuplicateName {
                    class: class.name.clone(),
                    first,
                    second: index,
                });
            }
            seen.insert(class.name.as_str(), index);
        }

        let mut gathered: BTreeMap<String, GatheredClasses> = BTreeMap::new();
        for (index, class) in classes.iter().enumerate() {
            for member in &class.members {
                let (bare, by_server) = gathered.entry(member.tool().to_owned()).or_default();
                let slot = match member.server() {
                    None => bare,
                    Some(server) => by_server.entry(server.to_owned()).or_default(),
                };
                // Classes are visited in ascending order, so a duplicate member of one class
                // can only repeat the last entry.
                if slot.last() != Some(&index) {
                    slot.push(index);
                }
            }
        }
        let mut numbered: BTreeMap<Vec<ClassIndex>, usize> = BTreeMap::from([(Vec::new(), 0)]);
        let mut sets = vec![Vec::new()];
        let mut number = |list: Vec<ClassIndex>| {
            *numbered.entry(list).or_insert_with_key(|list| {
                sets.push(list.clone());
                sets.len() - 1
            })
        };
        let by_tool = gathered
            .into_iter()
            .map(|(tool, (bare, by_server))| {
                let by_server = by_server
                    .into_iter()
                    .map(|(server, qualified)| (server, number(merge_ascending(&bare, &qualified))))
                    .collect();
                let bare = number(bare);
                (tool, ToolClasses { bare, by_server })
            })
            .collect();
        Ok(Self {
            classes,
            by_tool,
            sets,
        })
    }

    /// The classes, in declaration order.
    pub fn classes(&self) -> &[Class] {
        &self.classes
    }

    /// The number of classes.
    pub fn len(&self) -> usize {
        self.classes.len()
    }

    /// Whether there are no classes.
    pub fn is_empty(&self) -> bool {
        self.classes.is_empty()
    }

    /// The classes a call with this identity can satisfy, in declaration order.
    pub fn candidates(&self, call: &ToolId) -> Vec<ClassIndex> {
        self.candidates_of(call.as_tool_ref()).to_vec()
    }

    /// [`ClassSet::candidates`] of a borrowed identity, as a slice of the index.
    pub fn candidates_of(&self, call: ToolRef<'_>) -> &[ClassIndex] {
        self.set(self.candidate_set(call))
    }

    /// The number of the list of classes a call with this identity can satisfy: calls with
    /// the same number have the same list ([`ClassSet::set`]), and 0 is the empty list.
    pub(crate) fn candidate_set(&self, call: ToolRef<'_>) -> usize {
        let Some(tool) = self.by_tool.get(call.name()) else {
            return 0;
        };
        call.server()
            .and_then(|server| tool.by_server.get(server))
            .copied()
            .unwrap_or(tool.bare)
    }

    /// The list of classes numbered `set` by [`ClassSet::candidate_set`].
    pub(crate) fn set(&self, set: usize) -> &[ClassIndex] {
        self.sets.get(set).map_or(&[], Vec::as_slice)
    }

    /// How many lists [`ClassSet::candidate_set`] numbers.
    pub(crate) fn set_count(&self) -> usize {
        self.sets.len()
    }
}

/// The classes of two lists, ascending, each once.
fn merge_ascending(bare: &[ClassIndex], qualified: &[ClassIndex]) -> Vec<ClassIndex> {
    let mut merged: Vec<ClassIndex> = bare.iter().chain(qualified).copied().collect();
    merged.sort_unstable();
    merged.dedup();
    merged
}

/// Why a list of classes was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ClassSetError {
    /// The class at this position has an empty name.
    EmptyName {
        /// Its position in declaration order.
        index: ClassIndex,
    },
    /// A class lists no members, so no call could ever satisfy it.
    NoMembers {
        /// The class.
        class: ClassName,
    },
    /// Two classes share a name.
    DuplicateName {
        /// The shared name.
        class: ClassName,
        /// The position of the first class with this name.
        first: ClassIndex,
        /// The position of the second.
        second: ClassIndex,
    },
}

impl fmt::Display for ClassSetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::EmptyName { index } => write!(f, "class {} has an empty name", index + 1),
            Self::NoMembers { class } => write!(f, "class `{class}` has no members"),
            Self::DuplicateName { class, .. } => {
                write!(f, "class name `{class}` is declared twice")
            }
        }
    }
}

impl std::error::Error for ClassSetError {}
