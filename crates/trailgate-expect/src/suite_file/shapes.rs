//! Finding every node of a path shape in one walk. The walk fails on purpose at each node of
//! the shape, as [`Locate`](super::locate::Locate) does at its one node, but the node's
//! parent takes the error, which carries the node's position, and reads on. A scalar fails
//! in its visitor, once it is read; a list or map is left unread, so that the reader fails as
//! it skips the items ("invalid length"), once it has read the whole node. Either way the
//! reader stands just past the node, as after a node read without error.

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

use super::PathSeg;
use super::locate::LOCATED;

/// One step of a path shape: a [`PathSeg`] with its index left open.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Step {
    /// [`PathSeg::Key`].
    Key(String),
    /// [`PathSeg::KeyName`]; a shape ends there.
    KeyName(String),
    /// [`PathSeg::Index`], whatever the index.
    Index,
    /// [`PathSeg::RepeatedKey`]; a shape ends there.
    RepeatedKey(String),
}

/// The shape of `path` and its indices. A path that names a key ends there: [`Locate`]
/// reads no further.
pub(super) fn shape_of(path: &[PathSeg<'_>]) -> (Vec<Step>, Vec<usize>) {
    let mut shape = Vec::with_capacity(path.len());
    let mut indices = Vec::new();
    for &seg in path {
        match seg {
            PathSeg::Key(key) => shape.push(Step::Key(key.to_owned())),
            PathSeg::Index(index) => {
                shape.push(Step::Index);
                indices.push(index);
            }
            PathSeg::KeyName(key) => {
                shape.push(Step::KeyName(key.to_owned()));
                break;
            }
            PathSeg::RepeatedKey(key) => {
                shape.push(Step::RepeatedKey(key.to_owned()));
                break;
            }
        }
    }
    (shape, indices)
}

/// What [`Positions`] knows of a node.
pub(super) enum Found {
    /// The node starts at this byte offset.
    At(usize),
    /// There is no such node, or none that [`Locate`] would place.
    Nowhere,
    /// The walk of its shape did not place the node; a walk to the node alone will.
    Unplaced,
}

/// Where the nodes of a document start, for each path shape walked so far.
#[derive(Debug, Clone, Default)]
pub(super) struct Positions {
    shapes: BTreeMap<Vec<Step>, Walked>,
}

/// What the walk of one shape found.
#[derive(Debug, Clone)]
pub(super) struct Walked {
    /// For each node of the shape, by its indices: the byte offset where it starts, or
    /// `None` for an empty list or map, which the walk cannot place.
    nodes: BTreeMap<Vec<usize>, Option<usize>>,
    /// Whether the walk read the whole document. One that stopped early (on a document
    /// the reader refuses) may have missed nodes that a walk to one of them would find.
    complete: bool,
}

impl Positions {
    /// The node of `shape` at `indices`, walking the shape first with `walk` if needed.
    pub(super) fn find(
        &mut self,
        shape: Vec<Step>,
        indices: &[usize],
        walk: impl FnOnce(&[Step]) -> Walked,
    ) -> Found {
        let walked = self
            .shapes
            .entry(shape)
            .or_insert_with_key(|shape| walk(shape));
        match walked.nodes.get(indices) {
            Some(Some(offset)) => Found::At(*offset),
            None if walked.complete => Found::Nowhere,
            Some(None) | None => Found::Unplaced,
        }
    }
}

/// Walks `text` once along `shape`, placing each node of the shape; `document` is the
/// reader of `text`.
pub(super) fn walk_shape<'de, D: Deserializer<'de>>(
    document: D,
    text: &str,
    shape: &[Step],
) -> Walked {
    let walk = ShapeWalk {
        shape,
        indices: RefCell::new(Vec::new()),
        found: RefCell::new(Vec::new()),
        collection: Cell::new(false),
    };
    let complete = Node {
        walk: &walk,
        depth: 0,
    }
    .deserialize(document)
    .is_ok();
    let found = walk.found.into_inner();
    let mut positions: Vec<Position> = found.iter().filter_map(|(_, at)| *at).collect();
    positions.sort_unstable();
    positions.dedup();
    let offsets = offsets_at(text, &positions);
    let nodes = found
        .into_iter()
        .map(|(indices, at)| {
            let offset = at.and_then(|position| {
                let i = positions.binary_search(&position).ok()?;
                offsets.get(i).copied()
            });
            (indices, offset)
        })
        .collect();
    Walked { nodes, complete }
}

/// The byte offsets of `positions`, 1-based lines and columns in ascending order, counted
/// as the YAML reader counts them: a column is a character, and a line ends at `\r\n`,
/// `\r`, `\n`, U+0085, U+2028 or U+2029.
pub(super) fn offsets_at(text: &str, positions: &[Position]) -> Vec<usize> {
    let mut offsets = Vec::with_capacity(positions.len());
    let mut wanted = positions.iter().peekable();
    let (mut line, mut column) = (1, 1);
    let mut chars = text.char_indices().peekable();
    loop {
        let offset = chars.peek().map_or(text.len(), |&(i, _)| i);
        while wanted.next_if(|&&at| at <= (line, column)).is_some() {
            offsets.push(offset);
        }
        if wanted.peek().is_none() {
            return offsets;
        }
        let Some((_, c)) = chars.next() else {
            offsets.extend(wanted.map(|_| text.len()));
            return offsets;
        };
        match c {
            '\r' => {
                chars.next_if(|&(_, next)| next == '\n');
                (line, column) = (line + 1, 1);
            }
            '\n' | '\u{85}' | '\u{2028}' | '\u{2029}' => (line, column) = (line + 1, 1),
            _ => column += 1,
        }
    }
}

/// The 1-based line and column an error raised at a node of a shape walk carries, or
/// `None` for any other error. The error reaches the node's parent as the generic error
/// type of a serde access, whose only reading is its message: the reader ends it with
/// ` at line L column C`, but does not print the byte offset (see [`offsets_at`]).
fn marked_position(message: &str) -> Option<Position> {
    let unread = message.contains("invalid length")
        && (message.contains("expected sequence of 0 elements")
            || message.contains("expected map containing 0 entries"));
    if !(unread || message.contains(LOCATED)) {
        return None;
    }
    marked_at(message)
}

/// The 1-based line and column the YAML reader ends an error's message with.
pub(super) fn marked_at(message: &str) -> Option<Position> {
    let Some((_, position)) = message.rsplit_once(" at line ") else {
        // The reader leaves out the position of the first character.
        return Some((1, 1));
    };
    let (line, column) = position.split_once(" column ")?;
    Some((line.parse().ok()?, column.parse().ok()?))
}

/// A 1-based line and column, as the YAML reader counts them.
pub(super) type Position = (usize, usize);

/// A walk of the document along a shape, and what it found.
struct ShapeWalk<'s> {
    shape: &'s [Step],
    /// The indices of the node being read, one per [`Step::Index`] passed.
    indices: RefCell<Vec<usize>>,
    /// Each node of the shape found, by its indices: its 1-based line and column, or
    /// `None` for an empty list or map.
    found: RefCell<Vec<(Vec<usize>, Option<Position>)>>,
    /// Set when the node of the shape just read was a list or a map.
    collection: Cell<bool>,
}

impl ShapeWalk<'_> {
    /// Notes the node of the shape at the current indices.
    fn record(&self, at: Option<Position>) {
        let indices = self.indices.borrow().clone();
        self.found.borrow_mut().push((indices, at));
    }

    /// Reads a node at `depth` with `read`. A node of the shape fails on purpose: its
    /// position is recorded and the walk reads on.
    fn settle<E: de::Error>(
        &self,
        depth: usize,
        read: impl FnOnce() -> Result<Option<()>, E>,
    ) -> Result<Option<()>, E> {
        if depth < self.shape.len() {
            return read();
        }
        self.collection.set(false);
        match read() {
            Ok(Some(())) => {
                // A list or map that the reader skipped without complaint is empty.
                if self.collection.get() {
                    self.record(None);
                }
                Ok(Some(()))
            }
            Ok(None) => Ok(None),
            Err(error) => match marked_position(&error.to_string()) {
                Some(position) => {
                    self.record(Some(position));
                    Ok(Some(()))
                }
                None => Err(error),
            },
        }
    }
}

/// A node met by a [`ShapeWalk`], `depth` steps into the shape.
#[derive(Clone, Copy)]
struct Node<'w, 's> {
    walk: &'w ShapeWalk<'s>,
    depth: usize,
}

impl Node<'_, '_> {
    /// The step from this node to the next, or `None` when the node is one of the shape.
    fn step(&self) -> Option<&Step> {
        self.walk.shape.get(self.depth)
    }

    /// A child of this node, one step further into the shape.
    fn child(self) -> Self {
        Self {
            depth: self.depth + 1,
            ..self
        }
    }

    /// A scalar fails on purpose when it is a node of the shape.
    fn scalar<E: de::Error>(self) -> Result<(), E> {
        if self.step().is_none() {
            Err(E::custom(LOCATED))
        } else {
            Ok(())
        }
    }
}

impl<'de> DeserializeSeed<'de> for Node<'_, '_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Node<'_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any YAML node")
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        self.scalar()
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        self.scalar()
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        self.scalar()
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        self.scalar()
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
        self.scalar()
    }
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        self.scalar()
    }
    fn visit_none<E: de::Error>(self) -> Result<(), E> {
        self.scalar()
    }
    // Numbers past 64 bits (a gate value too large): placed like any scalar, as
    // `Locate` places them.
    fn visit_i128<E: de::Error>(self, _: i128) -> Result<(), E> {
        self.scalar()
    }
    fn visit_u128<E: de::Error>(self, _: u128) -> Result<(), E> {
        self.scalar()
    }
    fn visit_enum<A: de::EnumAccess<'de>>(self, data: A) -> Result<(), A::Error> {
        // A tagged node: read it whole, so that the walk can go on.
        let (IgnoredAny, variant) = data.variant()?;
        de::VariantAccess::newtype_variant::<IgnoredAny>(variant)?;
        Ok(())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        match self.step() {
            None => self.walk.collection.set(true),
            Some(Step::Index) => {
                let mut index = 0;
                loop {
                    self.walk.indices.borrow_mut().push(index);
                    let read = self
                        .walk
                        .settle(self.depth + 1, || seq.next_element_seed(self.child()));
                    self.walk.indices.borrow_mut().pop();
                    if read?.is_none() {
                        break;
                    }
                    index += 1;
                }
            }
            Some(_) => while seq.next_element::<IgnoredAny>()?.is_some() {},
        }
        Ok(())
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let (name, step) = match self.step() {
            None => {
                self.walk.collection.set(true);
                return Ok(());
            }
            Some(step @ (Step::Key(name) | Step::KeyName(name) | Step::RepeatedKey(name))) => {
                (name.as_str(), step)
            }
            Some(Step::Index) => {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                return Ok(());
            }
        };
        // While a key called `name` is sought: whether that key is itself the node sought.
        let mut seeking = Some(matches!(step, Step::KeyName(_)));
        loop {
            let key = match seeking {
                Some(mark) => map.next_key_seed(KeyRead { wanted: name, mark }),
                None => map
                    .next_key::<IgnoredAny>()
                    .map(|key| key.map(|IgnoredAny| KeyMatch::Other)),
            };
            let key = match key {
                Ok(Some(key)) => key,
                Ok(None) => break,
                Err(error) => {
                    // Only a key that is the node sought fails on purpose.
                    let (Some(true), Some(position)) =
                        (seeking, marked_position(&error.to_string()))
                    else {
                        return Err(error);
                    };
                    self.walk.record(Some(position));
                    seeking = None;
                    map.next_value::<IgnoredAny>()?;
                    continue;
                }
            };
            match (key, step) {
                (KeyMatch::Wanted, Step::Key(_)) => {
                    seeking = None;
                    self.walk.settle(self.depth + 1, || {
                        map.next_value_seed(self.child()).map(Some)
                    })?;
                    continue;
                }
                // The first occurrence of a repeated key; the second is the node sought.
                (KeyMatch::Wanted, _) => seeking = Some(true),
                (KeyMatch::Stop, _) => seeking = None,
                (KeyMatch::Other, _) => {}
            }
            map.next_value::<IgnoredAny>()?;
        }
        Ok(())
    }
}

/// A key read by a [`ShapeWalk`].
enum KeyMatch {
    /// The key sought.
    Wanted,
    /// Another key.
    Other,
    /// A key [`KeyProbe`] fails on, so that [`Locate`] finds nothing past it in this map.
    Stop,
}

/// Reads a key for a [`ShapeWalk`]: whether it is `wanted`, failing on purpose at it when
/// `mark` says it is the node sought.
struct KeyRead<'k> {
    wanted: &'k str,
    mark: bool,
}

impl<'de> DeserializeSeed<'de> for KeyRead<'_> {
    type Value = KeyMatch;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<KeyMatch, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for KeyRead<'_> {
    type Value = KeyMatch;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a key")
    }
    fn visit_str<E: de::Error>(self, key: &str) -> Result<KeyMatch, E> {
        match (key == self.wanted, self.mark) {
            (true, true) => Err(E::custom(LOCATED)),
            (true, false) => Ok(KeyMatch::Wanted),
            (false, _) => Ok(KeyMatch::Other),
        }
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<KeyMatch, E> {
        Ok(KeyMatch::Other)
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<KeyMatch, E> {
        Ok(KeyMatch::Other)
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<KeyMatch, E> {
        Ok(KeyMatch::Other)
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<KeyMatch, E> {
        Ok(KeyMatch::Other)
    }
    fn visit_unit<E: de::Error>(self) -> Result<KeyMatch, E> {
        Ok(KeyMatch::Other)
    }
    fn visit_i128<E: de::Error>(self, _: i128) -> Result<KeyMatch, E> {
        Ok(KeyMatch::Stop)
    }
    fn visit_u128<E: de::Error>(self, _: u128) -> Result<KeyMatch, E> {
        Ok(KeyMatch::Stop)
    }
    fn visit_none<E: de::Error>(self) -> Result<KeyMatch, E> {
        Ok(KeyMatch::Stop)
    }
    fn visit_enum<A: de::EnumAccess<'de>>(self, data: A) -> Result<KeyMatch, A::Error> {
        let (IgnoredAny, variant) = data.variant()?;
        de::VariantAccess::newtype_variant::<IgnoredAny>(variant)?;
        Ok(KeyMatch::Stop)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<KeyMatch, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(KeyMatch::Other)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<KeyMatch, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(KeyMatch::Other)
    }
}
