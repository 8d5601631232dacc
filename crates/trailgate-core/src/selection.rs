//! The maximum assignment of calls to classes, built one call at a time.

use crate::class::{ClassIndex, ClassSet};
use crate::id::{ToolId, ToolRef};
use crate::matching::Augmenter;
use crate::percent::Counts;

/// The position of a call in its run, in trace order, from 0.
pub type CallIndex = usize;

/// What one call counted as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum CallOutcome {
    /// The call satisfied this class: a true positive.
    Satisfied(ClassIndex),
    /// The call matches a member of this class, which another call satisfied: it neither
    /// counts nor penalises. When it matches several satisfied classes, this is the first
    /// in declaration order.
    Repeat(ClassIndex),
    /// The call satisfied no class and repeats none: a false positive.
    Unexpected,
}

/// The outcome of scoring one run against a [`ClassSet`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct RunSelection {
    /// For each class, in declaration order, the call that satisfied it.
    pub satisfied_by: Vec<Option<CallIndex>>,
    /// For each call, in trace order, what it counted as.
    pub calls: Vec<CallOutcome>,
    /// The run's counts.
    pub counts: Counts,
}

/// Scores one run: the calls, in trace order, against the classes.
///
/// ```
/// use trailgate_core::{score, Class, ClassSet, Member, ToolId};
///
/// let classes = ClassSet::new(vec![
///     Class::new("search", vec![Member::parse("brave.web_search")?, Member::parse("google.search")?]),
///     Class::new("fetch", vec![Member::parse("http.get")?]),
/// ])?;
/// let run = score(&classes, &[ToolId::qualified("google", "search"), ToolId::qualified("shell", "exec")]);
/// let metrics = run.counts.metrics();
/// assert_eq!((metrics.precision.value(), metrics.recall.value(), metrics.f1.value()), (50, 50, 50));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn score<'a>(classes: &ClassSet, calls: impl IntoIterator<Item = &'a ToolId>) -> RunSelection {
    let mut selector = Selector::new(classes);
    for call in calls {
        selector.push(call);
    }
    selector.finish()
}

/// Builds the maximum assignment of calls to classes while the calls arrive, so a run can
/// be scored as its trace streams in.
///
/// Each class is satisfied by at most one call and each call satisfies at most one class.
/// Every new call looks for an augmenting path (Kuhn's algorithm), trying classes in
/// declaration order; with calls arriving in trace order this fixes one deterministic
/// maximum assignment. When no call can satisfy two classes it is the first-come walk of
/// the seed document.
#[derive(Debug)]
pub struct Selector<'c> {
    classes: &'c ClassSet,
    /// By the number of a set of candidate classes ([`ClassSet::candidate_set`]): whether
    /// an augmenting path from it was once not found. By Berge's lemma none will be found
    /// later either, and calls with the same candidates have the same edges, whatever their
    /// identity, so such calls are settled without a search. The empty set is dead.
    dead: Vec<bool>,
    /// The number of the candidate set of each call, by position.
    call_ids: Vec<usize>,
    /// Calls (left) matched to classes (right).
    matching: Augmenter,
    matched: usize,
}

impl<'c> Selector<'c> {
    /// A selector with no calls yet.
    pub fn new(classes: &'c ClassSet) -> Self {
        let mut dead = vec![false; classes.set_count()];
        if let Some(empty) = dead.first_mut() {
            *empty = true;
        }
        Self {
            classes,
            dead,
            call_ids: Vec::new(),
            matching: Augmenter::new(classes.len()),
            matched: 0,
        }
    }

    /// A selector with no calls yet, with room for `calls` calls: the same as
    /// [`Selector::new`], without growing its lists when the run's length is known.
    pub fn with_capacity(classes: &'c ClassSet, calls: usize) -> Self {
        let mut selector = Self::new(classes);
        selector.call_ids.reserve(calls);
        selector.matching.left_match.reserve(calls);
        selector
    }

    /// Adds the next call in trace order.
    pub fn push(&mut self, call: &ToolId) {
        self.push_ref(call.as_tool_ref());
    }

    /// [`Selector::push`] of a borrowed identity: the selector keeps no copy of it.
    pub fn push_ref(&mut self, call: ToolRef<'_>) {
        let id = self.classes.candidate_set(call);
        let position = self.call_ids.len();
        self.call_ids.push(id);
        self.matching.push_left();
        if self.dead[id] || self.matched == self.classes.len() {
            return;
        }
        let (classes, call_ids) = (self.classes, &self.call_ids);
        if self
            .matching
            .augment(position, |call| classes.set(call_ids[call]))
        {
            self.matched += 1;
        } else {
            self.dead[id] = true;
        }
    }

    /// The assignment, the outcome of every call and the counts.
    pub fn finish(self) -> RunSelection {
        let class_call = &self.matching.right_match;
        let calls: Vec<CallOutcome> = self
            .call_ids
            .iter()
            .zip(&self.matching.left_match)
            .map(|(&id, &class)| match class {
                Some(class) => CallOutcome::Satisfied(class),
                None => self
                    .classes
                    .set(id)
                    .iter()
                    .find(|&&class| class_call[class].is_some())
                    .map_or(CallOutcome::Unexpected, |&class| CallOutcome::Repeat(class)),
            })
            .collect();
        let false_positives = calls
            .iter()
            .filter(|outcome| matches!(outcome, CallOutcome::Unexpected))
            .count();
        let counts = Counts::new(
            self.matched as u64,
            false_positives as u64,
            (self.classes.len() - self.matched) as u64,
        );
        RunSelection {
            satisfied_by: self.matching.right_match,
            calls,
            counts,
        }
    }
}
