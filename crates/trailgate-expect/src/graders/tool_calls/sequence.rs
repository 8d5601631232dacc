//! How a run's calls advance a `tool-calls` grader's `sequence`, and what explains where it
//! stopped: the call that came closest to the entry it stopped at.

use trailgate_trace::{Call, Run};

use crate::run::Detail;

use super::{Field, FieldCheck, Miss, MissAt, NearMiss, ToolCallsGrader, ToolMatch, tool_text};

/// What explains where a run's `sequence` stopped, gathered as it is graded to
/// [`Detail::Full`] (nothing is kept below it).
pub(super) struct SequenceNear<'a> {
    full: bool,
    /// The call of the next entry's tool that got furthest through its conditions since the
    /// entry before it matched.
    near: Option<(usize, &'a Call, MissAt<'a>)>,
    /// For each entry, the last call that satisfied it before it was next.
    early: Vec<Option<usize>>,
    /// The call that matched the last entry matched so far.
    previous: Option<usize>,
}

impl<'a> SequenceNear<'a> {
    pub(super) fn new(entries: usize, detail: Detail) -> Self {
        let full = detail == Detail::Full;
        Self {
            full,
            near: None,
            early: if full {
                vec![None; entries]
            } else {
                Vec::new()
            },
            previous: None,
        }
    }

    /// Keeps `call`, which missed the next entry, when it got further than the one kept.
    fn keep(&mut self, index: usize, call: &'a Call, miss: MissAt<'a>) {
        if self.full
            && self
                .near
                .as_ref()
                .is_none_or(|(_, _, near)| miss.depth() > near.depth())
        {
            self.near = Some((index, call, miss));
        }
    }

    /// Keeps `call`, which has no result, when it meets every other condition of the next
    /// entry, `matcher`.
    pub(super) fn no_result(&mut self, matcher: &ToolMatch, index: usize, call: &'a Call) {
        if matches!(
            matcher.check_fields(call),
            FieldCheck::Match | FieldCheck::Miss(MissAt::Field(Field::Result, None))
        ) {
            self.keep(index, call, MissAt::NoResult);
        }
    }

    /// Notes that the call at `index` satisfied `entry` before the entries ahead of it.
    fn early(&mut self, entry: usize, index: usize) {
        if let Some(slot) = self.early.get_mut(entry) {
            *slot = Some(index);
        }
    }

    /// Notes that the call at `index` matched the next entry.
    pub(super) fn advanced(&mut self, index: usize) {
        self.near = None;
        self.previous = Some(index);
    }

    /// The near miss of the entry the sequence stopped at, `stopped`.
    pub(super) fn near_miss(self, stopped: usize, run: &Run) -> Option<NearMiss> {
        if let Some((index, call, miss)) = self.near {
            return Some(NearMiss {
                call: index + 1,
                tool: tool_text(call),
                miss: miss.to_miss(),
            });
        }
        let early = self.early.get(stopped).copied().flatten()?;
        let call = run.calls.get(early)?;
        Some(NearMiss {
            call: early + 1,
            tool: tool_text(call),
            miss: Miss::Order {
                previous: self.previous.map_or(0, |previous| previous + 1),
            },
        })
    }
}

impl ToolCallsGrader {
    /// Checks `call`, at `index`, against the `sequence` entries its name matches,
    /// `entries`: whether it matched the next one, `next`. Every entry is checked for
    /// missing arguments (reported through `missing`); only the next one in order can
    /// advance, and taking the earliest match is never worse for a subsequence.
    pub(super) fn sequence_step<'a>(
        &'a self,
        entries: &[usize],
        next: usize,
        (index, call): (usize, &'a Call),
        near: &mut SequenceNear<'a>,
        missing: &mut dyn FnMut(usize, &'static str),
    ) -> bool {
        let mut advanced = false;
        for &entry in entries {
            match self.sequence[entry].check_fields(call) {
                FieldCheck::Missing(field) => missing(entry, field),
                FieldCheck::Match if entry == next && !advanced => advanced = true,
                // Entries are in list order, so a call that advanced the sequence is not
                // kept as an early match of a later entry.
                FieldCheck::Match if entry > next && !advanced => near.early(entry, index),
                FieldCheck::Miss(miss) if entry == next => near.keep(index, call, miss),
                _ => {}
            }
        }
        advanced
    }
}
