//! Copying JSON text into a serializer value by value, without building it in memory: how
//! the JSON report carries entries spilled to disk and `merge` carries a shard's tests (read
//! from their place in the shard's file, through [`JsonRead`]).
//!
//! `serde_transcode` does the same generically, but a number read with `serde_json`'s
//! `arbitrary_precision` (which keeps every number as the text the trace wrote, so that an
//! integer beyond 64 bits is not turned into a float) arrives as a one-entry map that only
//! `serde_json`'s own `Number` may write back. This copy recognises that map and hands the
//! number to `Number`, so numbers come out exactly as they went in.

use std::cell::RefCell;
use std::fmt;
use std::io::Read;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{self, Serialize, SerializeMap, SerializeSeq, Serializer};

/// the key under which `serde_json` hands over a number kept as text.
const NUMBER_TOKEN: &str = "$serde_json::private::Number";

/// A JSON value read from `text`, written to whatever serializer serializes this.
pub(crate) struct JsonText<'t>(pub(crate) &'t str);

impl Serialize for JsonText<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut deserializer = serde_json::Deserializer::from_str(self.0);
        let written = Transcoder::new(&mut deserializer).serialize(serializer)?;
        deserializer.end().map_err(ser::Error::custom)?;
        Ok(written)
    }
}

/// One JSON value read from a reader, written to the serializer that serializes this, once:
/// the reader is consumed. The reader is read byte by byte (give it a buffer); nothing but
/// the value and trailing whitespace may follow it.
pub(crate) struct JsonRead<R>(RefCell<Option<R>>);

impl<R: Read> JsonRead<R> {
    pub(crate) fn new(reader: R) -> Self {
        Self(RefCell::new(Some(reader)))
    }
}

impl<R: Read> Serialize for JsonRead<R> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let reader = self
            .0
            .borrow_mut()
            .take()
            .ok_or_else(|| ser::Error::custom("a value is written once"))?;
        let mut deserializer = serde_json::Deserializer::from_reader(reader);
        let written = Transcoder::new(&mut deserializer).serialize(serializer)?;
        deserializer.end().map_err(ser::Error::custom)?;
        Ok(written)
    }
}

/// One value of a deserializer, serialized once.
struct Transcoder<D>(RefCell<Option<D>>);

impl<D> Transcoder<D> {
    fn new(deserializer: D) -> Self {
        Self(RefCell::new(Some(deserializer)))
    }
}

impl<'de, D: Deserializer<'de>> Serialize for Transcoder<D> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let deserializer = self
            .0
            .borrow_mut()
            .take()
            .ok_or_else(|| ser::Error::custom("a value is written once"))?;
        deserializer
            .deserialize_any(Copy(serializer))
            .map_err(ser::Error::custom)
    }
}

/// Writes each value it visits to the serializer it holds.
struct Copy<S>(S);

impl<'de, S: Serializer> Visitor<'de> for Copy<S> {
    type Value = S::Ok;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E: de::Error>(self, value: bool) -> Result<S::Ok, E> {
        self.0.serialize_bool(value).map_err(de::Error::custom)
    }

    fn visit_i64<E: de::Error>(self, value: i64) -> Result<S::Ok, E> {
        self.0.serialize_i64(value).map_err(de::Error::custom)
    }

    fn visit_u64<E: de::Error>(self, value: u64) -> Result<S::Ok, E> {
        self.0.serialize_u64(value).map_err(de::Error::custom)
    }

    fn visit_f64<E: de::Error>(self, value: f64) -> Result<S::Ok, E> {
        self.0.serialize_f64(value).map_err(de::Error::custom)
    }

    fn visit_str<E: de::Error>(self, value: &str) -> Result<S::Ok, E> {
        self.0.serialize_str(value).map_err(de::Error::custom)
    }

    fn visit_unit<E: de::Error>(self) -> Result<S::Ok, E> {
        self.0.serialize_unit().map_err(de::Error::custom)
    }

    fn visit_none<E: de::Error>(self) -> Result<S::Ok, E> {
        self.0.serialize_none().map_err(de::Error::custom)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<S::Ok, D::Error> {
        self.0
            .serialize_some(&Transcoder::new(deserializer))
            .map_err(de::Error::custom)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<S::Ok, A::Error> {
        let mut out = self
            .0
            .serialize_seq(seq.size_hint())
            .map_err(de::Error::custom)?;
        while seq.next_element_seed(Element(&mut out))?.is_some() {}
        out.end().map_err(de::Error::custom)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<S::Ok, A::Error> {
        let Some(first) = map.next_key::<String>()? else {
            let out = self.0.serialize_map(Some(0)).map_err(de::Error::custom)?;
            return out.end().map_err(de::Error::custom);
        };
        if first == NUMBER_TOKEN {
            // A number kept as the text it was written as: serde_json's `Number` writes it
            // back as it is.
            let text: String = map.next_value()?;
            let number: serde_json::Number =
                serde_json::from_str(&text).map_err(de::Error::custom)?;
            return number.serialize(self.0).map_err(de::Error::custom);
        }
        let mut out = self
            .0
            .serialize_map(map.size_hint())
            .map_err(de::Error::custom)?;
        out.serialize_key(&first).map_err(de::Error::custom)?;
        map.next_value_seed(Value(&mut out))?;
        while let Some(key) = map.next_key::<String>()? {
            out.serialize_key(&key).map_err(de::Error::custom)?;
            map.next_value_seed(Value(&mut out))?;
        }
        out.end().map_err(de::Error::custom)
    }
}

/// An element of a sequence, written into the sequence being serialized.
struct Element<'a, S>(&'a mut S);

impl<'de, S: SerializeSeq> DeserializeSeed<'de> for Element<'_, S> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        self.0
            .serialize_element(&Transcoder::new(deserializer))
            .map_err(de::Error::custom)
    }
}

/// A value of a map, written into the map being serialized.
struct Value<'a, S>(&'a mut S);

impl<'de, S: SerializeMap> DeserializeSeed<'de> for Value<'_, S> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        self.0
            .serialize_value(&Transcoder::new(deserializer))
            .map_err(de::Error::custom)
    }
}

#[cfg(test)]
mod tests;
