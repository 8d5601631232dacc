//! Reading on past a shape error, so that one run reports every mistake of a suite.
//!
//! serde stops at the first error, and a reader cannot resume in the middle of a value. So a
//! suite whose reading fails is read again from the start with the item the error came out
//! of skipped: the innermost entry of a [`Items`] list (a test, or a grader of a test). Each
//! reading adds one problem, up to the suite's limit on problems, so the time is at most that
//! many readings of the file. An error outside every item (a top-level key, `tests:` not a
//! list) ends the reading with the problems found so far.

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, Deserialize, Deserializer, IgnoredAny, SeqAccess, Visitor};

thread_local! {
    /// The reading under way on this thread, when it is one that recovers
    /// ([`recovering`]); any other reading of an [`Items`] reads it as a plain list.
    static RECOVERY: RefCell<Option<Recovery>> = const { RefCell::new(None) };
}

#[derive(Default)]
struct Recovery {
    /// The positions of the items being read, outermost first.
    at: Vec<usize>,
    /// The items the earlier readings failed in, skipped by this one.
    skip: BTreeSet<Vec<usize>>,
    /// The innermost item this reading's error came out of.
    failed: Option<Vec<usize>>,
}

/// A list of items read one by one; in a reading that recovers, an item an earlier reading
/// failed in is skipped and kept as `None`, so the others keep their positions.
pub(crate) struct Items<T>(Vec<Option<T>>);

impl<T> Items<T> {
    /// The items read, each with its position in the list.
    pub(crate) fn read(self) -> impl Iterator<Item = (usize, T)> {
        self.0
            .into_iter()
            .enumerate()
            .filter_map(|(index, item)| item.map(|item| (index, item)))
    }

    /// How many items the list has, read or skipped.
    pub(crate) fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether the list has no item, read or skipped.
    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl<T> Default for Items<T> {
    fn default() -> Self {
        Self(Vec::new())
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Items<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_seq(ItemsVisitor(PhantomData))
    }
}

struct ItemsVisitor<T>(PhantomData<T>);

impl<'de, T: Deserialize<'de>> Visitor<'de> for ItemsVisitor<T> {
    type Value = Items<T>;

    // As serde's reader of a `Vec` says it, so that the message stays as it was.
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a sequence")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Items<T>, A::Error> {
        let mut items = Vec::new();
        loop {
            let skip = RECOVERY.with_borrow_mut(|recovery| {
                recovery.as_mut().is_some_and(|recovery| {
                    recovery.at.push(items.len());
                    recovery.skip.contains(&recovery.at)
                })
            });
            let next = if skip {
                seq.next_element::<IgnoredAny>()
                    .map(|item| item.map(|_| None))
            } else {
                seq.next_element::<T>().map(|item| item.map(Some))
            };
            RECOVERY.with_borrow_mut(|recovery| {
                if let Some(recovery) = recovery {
                    if next.is_err() && recovery.failed.is_none() {
                        recovery.failed = Some(recovery.at.clone());
                    }
                    recovery.at.pop();
                }
            });
            match next? {
                Some(item) => items.push(item),
                None => return Ok(Items(items)),
            }
        }
    }
}

/// Reads with `read` until it succeeds, skipping after each error the item it came out of:
/// the value read, if any, and every error met on the way, in the order met. At most `limit`
/// errors are gathered; no value is given when a reading fails outside every item or the
/// limit is reached.
pub(crate) fn recovering<T, E: de::Error>(
    limit: usize,
    mut read: impl FnMut() -> Result<T, E>,
) -> (Option<T>, Vec<E>) {
    /// Ends the recovering reading however this function is left.
    struct Reset;
    impl Drop for Reset {
        fn drop(&mut self) {
            RECOVERY.with_borrow_mut(|recovery| *recovery = None);
        }
    }
    let _reset = Reset;
    RECOVERY.with_borrow_mut(|recovery| *recovery = Some(Recovery::default()));
    let mut errors = Vec::new();
    loop {
        let error = match read() {
            Ok(value) => return (Some(value), errors),
            Err(error) => error,
        };
        errors.push(error);
        let failed = RECOVERY.with_borrow_mut(|recovery| {
            let recovery = recovery.as_mut()?;
            recovery.at.clear();
            let failed = recovery.failed.take()?;
            recovery.skip.insert(failed).then_some(())
        });
        if failed.is_none() || errors.len() >= limit {
            return (None, errors);
        }
    }
}
