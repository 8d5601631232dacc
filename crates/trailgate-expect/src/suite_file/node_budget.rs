//! Counting the nodes of a YAML document as the reader expands its aliases, to refuse a
//! document that would expand past the budget before anything is built from it.

use std::cell::Cell;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

/// The message of the error that stops [`NodeBudget`].
pub(super) const EXPANSION: &str = "\u{0}trailgate: expansion limit";

/// Counts the nodes of a YAML document, following aliases, and fails past `limit`.
#[derive(Clone, Copy)]
pub(super) struct NodeBudget<'c> {
    pub(super) counted: &'c Cell<usize>,
    pub(super) limit: usize,
}

impl NodeBudget<'_> {
    fn count<E: de::Error>(self) -> Result<(), E> {
        let counted = self.counted.get() + 1;
        self.counted.set(counted);
        if counted > self.limit {
            return Err(E::custom(EXPANSION));
        }
        Ok(())
    }
}

impl<'de> DeserializeSeed<'de> for NodeBudget<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for NodeBudget<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any YAML node")
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        self.count()
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        self.count()
    }

    fn visit_i128<E: de::Error>(self, _: i128) -> Result<(), E> {
        self.count()
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        self.count()
    }

    fn visit_u128<E: de::Error>(self, _: u128) -> Result<(), E> {
        self.count()
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        self.count()
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
        self.count()
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        self.count()
    }

    fn visit_none<E: de::Error>(self) -> Result<(), E> {
        self.count()
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        self.deserialize(deserializer)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        self.count()?;
        while seq.next_element_seed(self)?.is_some() {}
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        self.count()?;
        while map.next_key_seed(self)?.is_some() {
            map.next_value_seed(self)?;
        }
        Ok(())
    }

    fn visit_enum<A: de::EnumAccess<'de>>(self, data: A) -> Result<(), A::Error> {
        // A tagged node (`!tag value`): count it; the full read says what is wrong with it.
        self.count()?;
        let (IgnoredAny, variant) = data.variant()?;
        de::VariantAccess::newtype_variant_seed(variant, self)
    }
}
