//! The crate docs promise that an embedder can score calls with this crate alone.

use trailgate_core::{CallOutcome, Class, ClassSet, Counts, Member, ToolId, score};

#[test]
fn seed_worked_example_scores_with_core_alone() {
    let classes = ClassSet::new(vec![
        Class::new(
            "search",
            vec![
                Member::parse("brave.web_search").unwrap(),
                Member::parse("google.search").unwrap(),
            ],
        ),
        Class::new("fetch", vec![Member::parse("http.get").unwrap()]),
    ])
    .unwrap();

    let first = score(
        &classes,
        &[
            ToolId::qualified("brave", "web_search"),
            ToolId::qualified("http", "get"),
        ],
    );
    let second = score(
        &classes,
        &[
            ToolId::qualified("google", "search"),
            ToolId::qualified("shell", "exec"),
        ],
    );

    assert_eq!(first.counts, Counts::new(2, 0, 0));
    assert_eq!(first.counts.metrics().f1.value(), 100);
    assert_eq!(second.counts, Counts::new(1, 1, 1));
    assert_eq!(second.satisfied_by, vec![Some(0), None]);
    assert_eq!(second.calls[1], CallOutcome::Unexpected);
    let m = second.counts.metrics();
    assert_eq!(
        (m.precision.value(), m.recall.value(), m.f1.value()),
        (50, 50, 50)
    );
}

#[test]
fn core_depends_on_num_bigint_alone() {
    let manifest = include_str!("../../Cargo.toml");
    let deps: Vec<&str> = manifest
        .split("[dependencies]")
        .nth(1)
        .and_then(|rest| rest.split('[').next())
        .unwrap_or_default()
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .collect();
    // docs/ARCHITECTURE.md: exact binomials outgrow 128 bits, and a big-integer crate is the
    // one dependency core takes on for them.
    assert_eq!(
        deps,
        ["num-bigint.workspace = true"],
        "trailgate-core's only dependency is num-bigint"
    );
}
