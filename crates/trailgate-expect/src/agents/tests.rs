//! The per-agent table: rows by name, calls without an agent left out, sums over runs.

use trailgate_trace::{Call, Run, Status};

use super::AgentTable;

fn call(agent: Option<&str>, server: Option<&str>, name: &str, status: Status) -> Call {
    Call {
        server: server.map(str::to_owned),
        name: name.to_owned(),
        args: serde_json::json!({}).into(),
        args_raw: None,
        result: None,
        status,
        step: 0,
        completed: true,
        agent: agent.map(str::to_owned),
        time: None,
    }
}

fn run(calls: Vec<Call>) -> Run {
    Run {
        calls,
        ..Run::default()
    }
}

/// `(agent, calls, errors, tools)` of each row.
fn rows(table: &AgentTable) -> Vec<(String, u64, u64, Vec<String>)> {
    table
        .rows()
        .map(|(agent, row)| {
            (
                agent.to_owned(),
                row.calls,
                row.errors,
                row.tools.iter().cloned().collect(),
            )
        })
        .collect()
}

#[test]
fn a_run_without_agents_has_no_table() {
    let table = AgentTable::of_run(&run(vec![call(None, None, "search", Status::Ok)]));
    assert!(table.is_empty());
}

#[test]
fn rows_by_name_count_calls_errors_and_distinct_tools_over_runs() {
    let mut table = AgentTable::of_run(&run(vec![
        call(Some("router"), None, "plan", Status::Ok),
        call(Some("Billing"), Some("db"), "refund", Status::Error),
        call(None, None, "search", Status::Ok),
        call(Some("router"), None, "plan", Status::Unknown),
    ]));
    table.add(AgentTable::of_run(&run(vec![
        call(Some("Billing"), Some("db"), "invoices", Status::Ok),
        call(Some("router"), None, "route", Status::Error),
    ])));
    table.add(AgentTable::of_run(&run(vec![call(
        None,
        None,
        "x",
        Status::Error,
    )])));
    assert_eq!(
        rows(&table),
        vec![
            (
                "Billing".to_owned(),
                2,
                1,
                vec!["db.invoices".to_owned(), "db.refund".to_owned()]
            ),
            (
                "router".to_owned(),
                3,
                1,
                vec!["plan".to_owned(), "route".to_owned()]
            ),
        ]
    );
}
