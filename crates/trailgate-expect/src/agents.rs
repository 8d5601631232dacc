//! The per-agent table of a test (docs/reports.md#agents): for each agent that made calls
//! in the test's runs, its calls, its failed calls and the distinct tools it called. Counted
//! over every run, not only the listed ones; calls the trace records without an agent are
//! not in the table. A test none of whose calls has an agent has no table, and its reports
//! are what they were before agents were read.

use std::collections::{BTreeMap, BTreeSet};

use trailgate_trace::{Run, Status};

/// One agent's row: its calls, how many failed, and the tools it called.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AgentRow {
    /// The calls the agent made.
    pub calls: u64,
    /// Those with status `error`.
    pub errors: u64,
    /// The distinct tools it called (`server.name` or `name`), in byte order.
    pub tools: BTreeSet<String>,
}

/// The calls of a test's runs per agent, by agent name in byte order. Adds up run by run
/// (and shard by shard: the sums of two tables are the table of their runs).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AgentTable {
    rows: BTreeMap<String, AgentRow>,
}

impl AgentTable {
    /// The table of one run's calls; empty, at the cost of one look at each call, when no
    /// call has an agent.
    pub fn of_run(run: &Run) -> Self {
        let mut table = Self::default();
        if run.calls.iter().all(|call| call.agent.is_none()) {
            return table;
        }
        for call in &run.calls {
            let Some(agent) = &call.agent else {
                continue;
            };
            let row = table.rows.entry(agent.clone()).or_default();
            row.calls += 1;
            row.errors += u64::from(call.status == Status::Error);
            let tool = match &call.server {
                Some(server) => format!("{server}.{}", call.name),
                None => call.name.clone(),
            };
            row.tools.insert(tool);
        }
        table
    }

    /// Adds `other`'s rows to this table's.
    pub fn add(&mut self, other: Self) {
        for (agent, row) in other.rows {
            let mine = self.rows.entry(agent).or_default();
            mine.calls += row.calls;
            mine.errors += row.errors;
            mine.tools.extend(row.tools);
        }
    }

    /// Whether no call had an agent: then the reports show no table.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The rows, by agent name in byte order.
    pub fn rows(&self) -> impl Iterator<Item = (&str, &AgentRow)> {
        self.rows.iter().map(|(agent, row)| (agent.as_str(), row))
    }
}

#[cfg(test)]
mod tests;
