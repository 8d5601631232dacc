//! Finding one node by its path: walk the document again and fail on purpose at the node,
//! so that the parser reports the node's position.

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

use super::PathSeg;

pub(super) const LOCATED: &str = "\u{0}trailgate: located";

pub(super) struct Locate<'p>(pub(super) &'p [PathSeg<'p>]);

impl<'de> DeserializeSeed<'de> for Locate<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl Locate<'_> {
    fn here<E: de::Error>(&self) -> Result<(), E> {
        if self.0.is_empty() {
            Err(E::custom(LOCATED))
        } else {
            Ok(())
        }
    }
}

impl<'de> Visitor<'de> for Locate<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any YAML node")
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        self.here()
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        self.here()
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        self.here()
    }
    fn visit_i128<E: de::Error>(self, _: i128) -> Result<(), E> {
        self.here()
    }
    fn visit_u128<E: de::Error>(self, _: u128) -> Result<(), E> {
        self.here()
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        self.here()
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
        self.here()
    }
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        self.here()
    }
    fn visit_none<E: de::Error>(self) -> Result<(), E> {
        self.here()
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let Some((&head, rest)) = self.0.split_first() else {
            return Err(de::Error::custom(LOCATED));
        };
        let PathSeg::Index(wanted) = head else {
            return Ok(());
        };
        let mut index = 0;
        while index < wanted {
            if seq.next_element::<IgnoredAny>()?.is_none() {
                return Ok(());
            }
            index += 1;
        }
        seq.next_element_seed(Locate(rest)).map(|_| ())
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let Some((&head, rest)) = self.0.split_first() else {
            return Err(de::Error::custom(LOCATED));
        };
        if let PathSeg::RepeatedKey(key) = head {
            // The first occurrence is found like a key; the second is reported like a key name.
            let mut probe = PathSeg::Key(key);
            while let Some(found) = map.next_key_seed(KeyProbe(probe))? {
                if found {
                    probe = PathSeg::KeyName(key);
                }
                map.next_value::<IgnoredAny>()?;
            }
            return Ok(());
        }
        while let Some(found) = map.next_key_seed(KeyProbe(head))? {
            if found {
                return map.next_value_seed(Locate(rest));
            }
            map.next_value::<IgnoredAny>()?;
        }
        Ok(())
    }
}

/// Reads a key: `true` when it is the wanted key, and a located error when the key itself
/// is the node sought.
pub(super) struct KeyProbe<'p>(PathSeg<'p>);

impl<'de> DeserializeSeed<'de> for KeyProbe<'_> {
    type Value = bool;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<bool, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for KeyProbe<'_> {
    type Value = bool;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a key")
    }
    fn visit_str<E: de::Error>(self, key: &str) -> Result<bool, E> {
        match self.0 {
            PathSeg::Key(wanted) => Ok(key == wanted),
            PathSeg::KeyName(wanted) if key == wanted => Err(E::custom(LOCATED)),
            _ => Ok(false),
        }
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<bool, E> {
        Ok(false)
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<bool, E> {
        Ok(false)
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<bool, E> {
        Ok(false)
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<bool, E> {
        Ok(false)
    }
    fn visit_unit<E: de::Error>(self) -> Result<bool, E> {
        Ok(false)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<bool, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(false)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<bool, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(false)
    }
}
