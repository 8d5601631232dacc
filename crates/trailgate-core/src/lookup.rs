//! A map that is only looked up, for keys looked up once per call (tool names and
//! servers): hashed with 64-bit FNV-1a, which is fast on short keys, and without a way to
//! list its entries, so that the order of a hash map can never reach output (clippy's
//! `disallowed-types` keeps `HashMap` itself out of the workspace).
//!
//! The hash is not keyed: fill it with what a suite declares, or bound what a trace can put
//! in it, so that no input can crowd it with colliding keys.

use std::borrow::Borrow;
use std::fmt;
use std::hash::{BuildHasherDefault, Hash, Hasher};

#[allow(clippy::disallowed_types)] // Wrapped: `LookupMap` lists nothing.
type Inner<K, V> = std::collections::HashMap<K, V, BuildHasherDefault<Fnv>>;

/// A map for look-ups only: see the [module](self).
#[derive(Clone)]
pub struct LookupMap<K, V>(Inner<K, V>);

impl<K: Hash + Eq, V> LookupMap<K, V> {
    /// An empty map; it allocates on the first insertion.
    pub fn new() -> Self {
        Self(Inner::default())
    }

    /// An empty map with room for `capacity` keys, so that it is not grown as they come.
    pub fn with_capacity(capacity: usize) -> Self {
        Self(Inner::with_capacity_and_hasher(
            capacity,
            BuildHasherDefault::default(),
        ))
    }

    /// The value of `key`, if it has one.
    pub fn get<Q>(&self, key: &Q) -> Option<&V>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        self.0.get(key)
    }

    /// Sets the value of `key`, returning the one it replaces.
    pub fn insert(&mut self, key: K, value: V) -> Option<V> {
        self.0.insert(key, value)
    }

    /// How many keys have a value.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether no key has a value.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl<K: Hash + Eq, V> Default for LookupMap<K, V> {
    fn default() -> Self {
        Self::new()
    }
}

impl<K: Hash + Eq, V> FromIterator<(K, V)> for LookupMap<K, V> {
    fn from_iter<I: IntoIterator<Item = (K, V)>>(entries: I) -> Self {
        Self(entries.into_iter().collect())
    }
}

/// Shows the size only: the entries would show in the map's order.
impl<K, V> fmt::Debug for LookupMap<K, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "LookupMap({} entries)", self.0.len())
    }
}

/// The FNV-1a hasher, 64 bits, a byte at a time.
struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Self {
        Self(0xcbf2_9ce4_8422_2325)
    }
}

impl Hasher for Fnv {
    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.0 = (self.0 ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
        }
    }

    fn finish(&self) -> u64 {
        self.0
    }
}
