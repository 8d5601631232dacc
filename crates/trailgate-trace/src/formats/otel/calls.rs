//! The calls of a file's spans: the spans' parent tree, the steps (one per inference
//! span), the tool spans grouped by the call they record (nested in one another, or sharing
//! a call id or a JSON-RPC request), and one call per group, in order.

use std::collections::BTreeMap;

use super::spans::{Layer, Role, Span, ToolSpan};
use crate::formats::{complete, open_call};
use crate::model::{Call, Status};

/// The calls of the spans, in order, one per tool call however many spans recorded it.
pub(super) fn span_calls(spans: &[Span]) -> Vec<Call> {
    let tree = Tree::new(spans);
    let steps = Steps::new(&tree);
    let mut tools: Vec<usize> = (0..spans.len())
        .filter(|&i| spans[i].tool().is_some())
        .collect();
    tools.sort_by_key(|&i| spans[i].key());
    let mut groups = Groups::new(spans);
    groups.merge_nested(&tree, &tools);
    groups.merge_by_id(spans, &tools);
    // Members in call order: each group's first member places the call.
    let mut members: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for &i in &tools {
        members.entry(groups.find(i)).or_default().push(i);
    }
    let mut ordered: Vec<Vec<usize>> = members.into_values().collect();
    ordered.sort_by_key(|group| group.first().map(|&i| spans[i].key()));
    ordered
        .into_iter()
        .filter_map(|group| build_call(spans, &steps, group))
        .collect()
}

/// One call from the spans that recorded it.
fn build_call(spans: &[Span], steps: &Steps<'_>, mut group: Vec<usize>) -> Option<Call> {
    // Preference order: the agent's own span, then the MCP client's, then the server's.
    group.sort_by_key(|&i| (spans[i].tool().map(|tool| tool.layer), spans[i].key()));
    let tools: Vec<(usize, &ToolSpan)> = group
        .iter()
        .filter_map(|&i| spans[i].tool().map(|tool| (i, tool)))
        .collect();
    let &(primary, first) = tools.first()?;
    // A recorded server comes with the name that server knows the tool by; without one,
    // the agent's name is kept, which a naming scheme may still split.
    let (server, name) = tools
        .iter()
        .find_map(|(_, tool)| {
            tool.server
                .as_ref()
                .map(|server| (Some(server), &tool.name))
        })
        .unwrap_or((None, &first.name));
    let args = tools.iter().find_map(|(_, tool)| tool.args.as_ref());
    let result = tools.iter().find_map(|(_, tool)| tool.result.clone());
    let error = tools.iter().any(|(_, tool)| tool.error);
    let ended = tools
        .iter()
        .any(|&(i, _)| spans[i].end.is_some_and(|end| end > 0));
    let mut call = open_call(server.cloned(), name.clone(), args, steps.of(primary));
    call.agent = tools
        .iter()
        .find_map(|&(i, _)| steps.tree.agent(i))
        .map(str::to_owned);
    let nanos = |value: Option<u64>| value.filter(|&n| n > 0).and_then(|n| i64::try_from(n).ok());
    call.time =
        crate::formats::usage::interval(nanos(spans[primary].start), nanos(spans[primary].end));
    if ended || error || result.is_some() {
        let status = if error { Status::Error } else { Status::Ok };
        complete(&mut call, result, status);
    }
    Some(call)
}

/// Parent links between the spans of the file, and for each span the nearest ancestor
/// that is not an [`Role::Other`] span, both worked out once: every question about a span's
/// ancestry is then answered in constant time, so that no shape of parent links (a chain of
/// thousands of spans, a cycle) makes reading slower than linear.
struct Tree<'s> {
    spans: &'s [Span],
    /// The nearest ancestor of each span whose role is not `Other`.
    marked: Vec<Option<usize>>,
    /// The nearest ancestor of each span that names its agent (`gen_ai.agent.name`).
    agents: Vec<Option<usize>>,
}

impl<'s> Tree<'s> {
    fn new(spans: &'s [Span]) -> Self {
        let mut index = BTreeMap::new();
        for (i, span) in spans.iter().enumerate() {
            if let Some(id) = &span.id {
                index.entry((span.trace.as_str(), id.as_str())).or_insert(i);
            }
        }
        let parents: Vec<Option<usize>> = spans
            .iter()
            .map(|span| {
                let parent = span.parent.as_deref()?;
                index.get(&(span.trace.as_str(), parent)).copied()
            })
            .collect();
        let marked = nearest_marked(&parents, |i| !matches!(spans[i].role, Role::Other));
        let agents = nearest_marked(&parents, |i| spans[i].agent.is_some());
        Self {
            spans,
            marked,
            agents,
        }
    }

    /// The agent of span `i`: the `gen_ai.agent.name` of the span itself or of its nearest
    /// ancestor that has one (docs/formats.md#agents).
    fn agent(&self, i: usize) -> Option<&'s str> {
        let spans = self.spans;
        spans.get(i)?.agent.as_deref().or_else(|| {
            let ancestor = self.agents.get(i).copied().flatten()?;
            spans.get(ancestor)?.agent.as_deref()
        })
    }

    /// The nearest ancestor of span `i` whose role is not `Other`: an inference, agent or
    /// tool span. A cycle of parent links through `Other` spans only (malformed input) has
    /// none.
    fn marked_ancestor(&self, i: usize) -> Option<usize> {
        self.marked.get(i).copied().flatten()
    }
}

/// For each node, its nearest proper ancestor for which `marked` holds, following `parents`;
/// `None` when the links end, or loop, before one. Linear: each node is settled once.
fn nearest_marked(parents: &[Option<usize>], marked: impl Fn(usize) -> bool) -> Vec<Option<usize>> {
    // 0: not yet, 1: on the current path, 2: settled.
    let mut state = vec![0_u8; parents.len()];
    let mut found = vec![None; parents.len()];
    let mut path = Vec::new();
    for start in 0..parents.len() {
        if state[start] == 2 {
            continue;
        }
        let mut node = start;
        let answer = loop {
            state[node] = 1;
            path.push(node);
            let Some(parent) = parents[node] else {
                break None;
            };
            if marked(parent) {
                break Some(parent);
            }
            match state[parent] {
                2 => break found[parent],
                // A loop of unmarked spans: no marked ancestor.
                1 => break None,
                _ => node = parent,
            }
        };
        // Every node on the path reached `answer` through unmarked spans only.
        for node in path.drain(..) {
            found[node] = answer;
            state[node] = 2;
        }
    }
    found
}

/// Steps: one per inference span, numbered in start order. An inference span nested in
/// another (two instrumentations of one model call) is the same step.
struct Steps<'t> {
    tree: &'t Tree<'t>,
    /// The start times of the counted inference spans that have one, in step order.
    starts: Vec<u64>,
    /// The step of each inference span, counted or nested; `None` for other spans.
    inference_step: Vec<Option<u32>>,
}

impl<'t> Steps<'t> {
    fn new(tree: &'t Tree<'t>) -> Self {
        let spans = tree.spans;
        let mut counted: Vec<usize> = (0..spans.len())
            .filter(|&i| matches!(spans[i].role, Role::Inference))
            .filter(|&i| nearest_inference(tree, i).is_none())
            .collect();
        counted.sort_by_key(|&i| spans[i].key());
        let step: BTreeMap<usize, u32> = counted
            .iter()
            .zip(0_u32..)
            .map(|(&i, step)| (i, step))
            .collect();
        let starts = counted.iter().filter_map(|&i| spans[i].start).collect();
        // An uncounted inference span is nested in another through `Other` spans only; its
        // step is that of the counted span at the top of the nesting.
        let counted_above = nearest_marked(
            &(0..spans.len())
                .map(|i| nearest_inference(tree, i))
                .collect::<Vec<_>>(),
            |i| step.contains_key(&i),
        );
        let inference_step = (0..spans.len())
            .map(|i| {
                step.get(&i)
                    .or_else(|| counted_above[i].and_then(|c| step.get(&c)))
                    .copied()
            })
            .collect();
        Self {
            tree,
            starts,
            inference_step,
        }
    }

    /// The step of a tool span: its inference ancestor's, when the parent links reach one
    /// before an agent or another tool span; otherwise the last inference span that started
    /// at or before it (instrumentations often make tool spans siblings of the inference
    /// that asked for them); 0 without either.
    fn of(&self, i: usize) -> u32 {
        if let Some(inference) = nearest_inference(self.tree, i) {
            return self.of_inference(inference);
        }
        let Some(start) = self.tree.spans[i].start else {
            return 0;
        };
        let before = self.starts.partition_point(|&s| s <= start);
        u32::try_from(before.saturating_sub(1)).unwrap_or(u32::MAX)
    }

    /// The step of an inference span: its own when it is counted, otherwise that of the
    /// counted inference span it is nested in (0 without one).
    fn of_inference(&self, i: usize) -> u32 {
        self.inference_step.get(i).copied().flatten().unwrap_or(0)
    }
}

/// The nearest inference ancestor of span `i`, searched up to the first agent or tool span.
fn nearest_inference(tree: &Tree<'_>, i: usize) -> Option<usize> {
    tree.marked_ancestor(i)
        .filter(|&a| matches!(tree.spans[a].role, Role::Inference))
}

/// Tool spans grouped by the call they record (union-find over span indices).
struct Groups {
    parent: Vec<usize>,
    /// The layers present in each group, by root.
    layers: Vec<u8>,
}

impl Groups {
    fn new(spans: &[Span]) -> Self {
        Self {
            parent: (0..spans.len()).collect(),
            layers: spans
                .iter()
                .map(|span| span.tool().map_or(0, |tool| tool.layer.bit()))
                .collect(),
        }
    }

    fn find(&mut self, mut i: usize) -> usize {
        while self.parent[i] != i {
            self.parent[i] = self.parent[self.parent[i]];
            i = self.parent[i];
        }
        i
    }

    fn union(&mut self, a: usize, b: usize) {
        let (a, b) = (self.find(a), self.find(b));
        if a != b {
            self.parent[b] = a;
            self.layers[a] |= self.layers[b];
        }
    }

    /// Whether `a` and `b` are in different groups that share no layer: an id seen on two
    /// spans of the same layer is two calls, not one recorded twice.
    fn disjoint(&mut self, a: usize, b: usize) -> bool {
        let (a, b) = (self.find(a), self.find(b));
        a != b && self.layers[a] & self.layers[b] == 0
    }

    /// A tool span inside another tool span (an MCP client span under `execute_tool`, the
    /// server's span under the client's, two instrumentations of one call) is the same call
    /// when nothing says otherwise: no agent or inference span between them, no conflicting
    /// call ids, and matching names.
    fn merge_nested(&mut self, tree: &Tree<'_>, tools: &[usize]) {
        for &b in tools {
            let Some(a) = tree.marked_ancestor(b) else {
                continue;
            };
            if let (Role::Tool(outer), Some(inner)) = (&tree.spans[a].role, tree.spans[b].tool())
                && same_call(outer, inner)
            {
                self.union(a, b);
            }
        }
    }

    /// Spans of different layers with the same `gen_ai.tool.call.id`, or an MCP client span
    /// and a server span with the same JSON-RPC request id in the same session, are one call.
    fn merge_by_id(&mut self, spans: &[Span], tools: &[usize]) {
        let mut by_call: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
        let mut by_request: BTreeMap<(&str, &str, &str), Vec<usize>> = BTreeMap::new();
        for &b in tools {
            let Some(tool) = spans[b].tool() else {
                continue;
            };
            if let Some(id) = &tool.call_id {
                let earlier = by_call.entry(id.as_str()).or_default();
                for &a in earlier.iter() {
                    if let Some(other) = spans[a].tool()
                        && other.layer != tool.layer
                        && names_match(&other.name, &tool.name)
                        && self.disjoint(a, b)
                    {
                        self.union(a, b);
                    }
                }
                earlier.push(b);
            }
            if let Some((request, session)) = &tool.request
                && tool.layer != Layer::Tool
            {
                let key = (request.as_str(), session.as_str(), tool.name.as_str());
                let earlier = by_request.entry(key).or_default();
                for &a in earlier.iter() {
                    if spans[a]
                        .tool()
                        .is_some_and(|other| other.layer != tool.layer)
                        && self.disjoint(a, b)
                    {
                        self.union(a, b);
                    }
                }
                earlier.push(b);
            }
        }
    }
}

/// Whether a tool span nested in another records the same call.
fn same_call(outer: &ToolSpan, inner: &ToolSpan) -> bool {
    match (&outer.call_id, &inner.call_id) {
        (Some(a), Some(b)) if a != b => false,
        (Some(a), Some(b)) if a == b => true,
        _ => names_match(&outer.name, &inner.name),
    }
}

/// Equal names, or one name that is the other with a prefix ending in a separator: the
/// agent's `mcp__github__search_issues` and the MCP server's `search_issues`.
fn names_match(a: &str, b: &str) -> bool {
    let (long, short) = if a.len() >= b.len() { (a, b) } else { (b, a) };
    long == short
        || long
            .strip_suffix(short)
            .is_some_and(|prefix| prefix.ends_with(['_', '-', '.', '/', ':']) && !short.is_empty())
}
