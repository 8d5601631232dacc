//! Finding every number of a document that the YAML reader reads as a float, with its text.
//! The walk fails on purpose at each such scalar, once it is read; the scalar's parent takes
//! the error, which carries the scalar's position, and reads on, as the walks of
//! `shapes.rs` do at the nodes of a shape.

use std::cell::RefCell;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

use super::shapes::{Position, marked_at, offsets_at};

/// The message of the error a float fails with: this, then the float's bits.
const FLOAT: &str = "\u{0}trailgate: float ";

/// Every float scalar of `text`, in document order (an alias's again at each alias): its
/// value and the byte offset where it starts; `None` when the walk could not read the whole
/// document (a document the suite's reading refuses anyway).
pub(super) fn floats_of<'de, D: Deserializer<'de>>(
    document: D,
    text: &str,
) -> Option<Vec<(f64, usize)>> {
    let found = RefCell::new(Vec::new());
    let walk = Walk { found: &found };
    match walk.deserialize(document) {
        Ok(()) => {}
        // The document is one float.
        Err(error) => walk.caught(&error.to_string())?,
    }
    let found = found.into_inner();
    let mut positions: Vec<Position> = found.iter().map(|(_, at)| *at).collect();
    positions.sort_unstable();
    positions.dedup();
    let offsets = offsets_at(text, &positions);
    found
        .into_iter()
        .map(|(value, at)| {
            let i = positions.binary_search(&at).ok()?;
            Some((value, *offsets.get(i)?))
        })
        .collect()
}

/// A walk of the whole document that fails at each float and reads on.
#[derive(Clone, Copy)]
struct Walk<'f> {
    found: &'f RefCell<Vec<(f64, Position)>>,
}

impl Walk<'_> {
    /// Notes the float an error of this walk says it failed at; `None` for any other error.
    fn caught(self, message: &str) -> Option<()> {
        let (_, rest) = message.split_once(FLOAT)?;
        let bits = rest.split(' ').next()?.parse().ok()?;
        let at = marked_at(message)?;
        self.found.borrow_mut().push((f64::from_bits(bits), at));
        Some(())
    }

    /// Reads a child with `read`; a float fails on purpose, and is noted.
    fn child<T, E: de::Error>(self, read: Result<Option<T>, E>) -> Result<Option<()>, E> {
        match read {
            Ok(read) => Ok(read.map(|_| ())),
            Err(error) => match self.caught(&error.to_string()) {
                Some(()) => Ok(Some(())),
                None => Err(error),
            },
        }
    }
}

impl<'de> DeserializeSeed<'de> for Walk<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Walk<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any YAML node")
    }
    fn visit_f64<E: de::Error>(self, value: f64) -> Result<(), E> {
        Err(E::custom(format!("{FLOAT}{}", value.to_bits())))
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_i128<E: de::Error>(self, _: i128) -> Result<(), E> {
        Ok(())
    }
    fn visit_u128<E: de::Error>(self, _: u128) -> Result<(), E> {
        Ok(())
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_none<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_enum<A: de::EnumAccess<'de>>(self, data: A) -> Result<(), A::Error> {
        // A tagged node: read it whole, so that the walk can go on.
        let (IgnoredAny, variant) = data.variant()?;
        de::VariantAccess::newtype_variant::<IgnoredAny>(variant)?;
        Ok(())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while self.child(seq.next_element_seed(self))?.is_some() {}
        Ok(())
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while map.next_key::<IgnoredAny>()?.is_some() {
            self.child(map.next_value_seed(self).map(Some))?;
        }
        Ok(())
    }
}
