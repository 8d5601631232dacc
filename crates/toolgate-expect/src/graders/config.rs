//! The graders of a test as the suite writes them: each a `type:` and a `config:`, checked by
//! its kind's module (`graders/<kind>/config.rs`), at most one of each kind.
//!
//! A `config:` is read before its `type:` is known, since YAML lets `type:` come after it;
//! so [`RawGraderConfig`] takes the keys of every kind, each read by the kind that owns it,
//! and the keys that do not belong to the grader's kind are reported afterwards.

use std::fmt;
use std::sync::LazyLock;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, Visitor};

use crate::error::Problem;
use crate::expect::Expectations;
use crate::suite_file::{PathSeg, SuiteFile, join};
use crate::tool_matcher::config::TestClasses;

use super::Block;
use super::budget::{self, BudgetGrader};
use super::call_accuracy::{self, CallAccuracyGrader};
use super::dependencies::{self, DependenciesGrader};
use super::errors::{self, ErrorsGrader};
use super::tool_calls::{self, ToolCallsGrader};
use super::tool_correctness::{self, ToolCorrectnessGrader};
use super::trajectory::{self, TrajectoryGrader};

// An entry of a test's `graders:`. (Plain comments on the derived types: schemars would
// put a doc comment into `toolgate schema`.) Read by hand (below) so that a `type:` written
// before `config:` tells the config which kind owns a key that two kinds share
// (`expected`).
#[derive(JsonSchema)]
#[schemars(deny_unknown_fields)]
pub(crate) struct RawGrader {
    #[schemars(rename = "type")]
    kind: GraderKind,
    config: RawGraderConfig,
}

// A grader's `type:`: the kinds written under `graders:`.
#[derive(Deserialize, JsonSchema, Clone, Copy, PartialEq, Eq)]
enum GraderKind {
    #[serde(rename = "tool-calls")]
    ToolCalls,
    #[serde(rename = "tool-correctness")]
    ToolCorrectness,
    #[serde(rename = "call-accuracy")]
    CallAccuracy,
    #[serde(rename = "trajectory")]
    Trajectory,
    #[serde(rename = "budget")]
    Budget,
    #[serde(rename = "errors")]
    Errors,
    #[serde(rename = "dependencies")]
    Dependencies,
}

impl GraderKind {
    /// Every kind, in the order their keys are listed.
    const ALL: [Self; 7] = [
        Self::ToolCalls,
        Self::ToolCorrectness,
        Self::CallAccuracy,
        Self::Trajectory,
        Self::Budget,
        Self::Errors,
        Self::Dependencies,
    ];

    fn block(self) -> Block {
        match self {
            Self::ToolCalls => Block::ToolCalls,
            Self::ToolCorrectness => Block::ToolCorrectness,
            Self::CallAccuracy => Block::CallAccuracy,
            Self::Trajectory => Block::Trajectory,
            Self::Budget => Block::Budget,
            Self::Errors => Block::Errors,
            Self::Dependencies => Block::Dependencies,
        }
    }

    /// The keys of its `config` other than `expect`, which every kind takes.
    fn own_keys(self) -> &'static [&'static str] {
        match self {
            Self::ToolCalls => tool_calls::config::RawConfig::KEYS,
            Self::ToolCorrectness => tool_correctness::config::RawConfig::KEYS,
            Self::CallAccuracy => call_accuracy::config::RawConfig::KEYS,
            Self::Trajectory => trajectory::config::RawConfig::KEYS,
            Self::Budget => budget::config::RawConfig::KEYS,
            Self::Errors => errors::config::RawConfig::KEYS,
            Self::Dependencies => dependencies::config::RawConfig::KEYS,
        }
    }
}

impl fmt::Display for GraderKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.block().key())
    }
}

/// The graders of one test, checked, at most one of each kind.
#[derive(Default)]
pub(crate) struct Graders {
    pub(crate) tool_calls: Option<ToolCallsGrader>,
    pub(crate) tool_correctness: Option<ToolCorrectnessGrader>,
    pub(crate) call_accuracy: Option<CallAccuracyGrader>,
    pub(crate) trajectory: Option<TrajectoryGrader>,
    pub(crate) budget: Option<BudgetGrader>,
    pub(crate) errors: Option<ErrorsGrader>,
    pub(crate) dependencies: Option<DependenciesGrader>,
}

/// The test's `graders:` at `path` (the test's), checked: at most one of each kind, each
/// config with the keys of its kind only, and each checked by its kind.
pub(crate) fn check(
    file: &SuiteFile,
    graders: Vec<RawGrader>,
    path: &[PathSeg<'_>],
    classes: TestClasses<'_>,
    problems: &mut Vec<Problem>,
) -> Graders {
    let mut checked = Graders::default();
    let mut seen: Vec<GraderKind> = Vec::new();
    for (index, grader) in graders.into_iter().enumerate() {
        let grader_path = join(path, &[PathSeg::Key("graders"), PathSeg::Index(index)]);
        let config_path = join(&grader_path, &[PathSeg::Key("config")]);
        let kind = grader.kind;
        if seen.contains(&kind) {
            problems.push(
                file.located(
                    Problem::new(
                        "toolgate::suite::duplicate_grader",
                        format!("a test takes one `{kind}` grader"),
                        format!("a second `{kind}` grader"),
                    )
                    .with_help("merge the two configs into the first one"),
                    &join(&grader_path, &[PathSeg::Key("type")]),
                ),
            );
            continue;
        }
        seen.push(kind);
        // A key the grader's kind shares with another, read as the other's (its `type:` came
        // after `config:`), is the one problem reported: the kind's own check would only
        // add that the key is missing.
        if grader.config.check_keys(file, kind, &config_path, problems) {
            continue;
        }
        let RawGraderConfig {
            tool_calls: calls,
            tool_correctness: correctness,
            call_accuracy: accuracy,
            trajectory: path_config,
            budget: budget_config,
            errors: errors_config,
            dependencies: edges_config,
            expect,
        } = grader.config;
        match kind {
            GraderKind::ToolCalls => {
                checked.tool_calls =
                    calls.check(expect, file, index, &config_path, classes, problems);
            }
            GraderKind::ToolCorrectness => {
                checked.tool_correctness =
                    correctness.check(expect, file, &config_path, classes, problems);
            }
            GraderKind::CallAccuracy => {
                checked.call_accuracy =
                    accuracy.check(expect, file, &config_path, classes, problems);
            }
            GraderKind::Trajectory => {
                checked.trajectory =
                    path_config.check(expect, file, &config_path, classes, problems);
            }
            GraderKind::Budget => {
                checked.budget = budget_config.check(expect, file, &config_path, classes, problems);
            }
            GraderKind::Errors => {
                checked.errors = errors_config.check(expect, file, &config_path, classes, problems);
            }
            GraderKind::Dependencies => {
                checked.dependencies =
                    edges_config.check(expect, file, &config_path, classes, problems);
            }
        }
    }
    checked
}

/// The `config:` of a grader: the keys of every kind, each read by its kind. Its keys are
/// checked against the grader's kind afterwards ([`RawGraderConfig::check_keys`]).
#[derive(Default)]
pub(crate) struct RawGraderConfig {
    tool_calls: tool_calls::config::RawConfig,
    tool_correctness: tool_correctness::config::RawConfig,
    call_accuracy: call_accuracy::config::RawConfig,
    trajectory: trajectory::config::RawConfig,
    budget: budget::config::RawConfig,
    errors: errors::config::RawConfig,
    dependencies: dependencies::config::RawConfig,
    expect: Option<Expectations>,
}

/// Every key of a grader's config: each kind's in [`GraderKind::ALL`] order, a key two
/// kinds share once, then `expect`.
fn keys() -> &'static [&'static str] {
    static KEYS: LazyLock<Vec<&'static str>> = LazyLock::new(|| {
        let mut keys: Vec<&'static str> = Vec::new();
        for key in GraderKind::ALL.iter().flat_map(|kind| kind.own_keys()) {
            if !keys.contains(key) {
                keys.push(key);
            }
        }
        keys.push("expect");
        keys
    });
    &KEYS
}

impl RawGraderConfig {
    /// Reads the value of `key`, one of [`keys`], with the kind that owns it: the grader's
    /// own kind when its `type:` came first and it has the key, otherwise the first kind
    /// that has it.
    fn read<'de, D: Deserializer<'de>>(
        &mut self,
        key: &str,
        value: D,
        kind: Option<GraderKind>,
    ) -> Result<(), D::Error> {
        let owner = kind
            .filter(|kind| kind.own_keys().contains(&key))
            .or_else(|| {
                GraderKind::ALL
                    .into_iter()
                    .find(|kind| kind.own_keys().contains(&key))
            });
        match owner {
            Some(GraderKind::ToolCalls) => self.tool_calls.read(key, value),
            Some(GraderKind::ToolCorrectness) => self.tool_correctness.read(key, value),
            Some(GraderKind::CallAccuracy) => self.call_accuracy.read(key, value),
            Some(GraderKind::Trajectory) => self.trajectory.read(key, value),
            Some(GraderKind::Budget) => self.budget.read(key, value),
            Some(GraderKind::Errors) => self.errors.read(key, value),
            Some(GraderKind::Dependencies) => self.dependencies.read(key, value),
            None => {
                self.expect = Deserialize::deserialize(value)?;
                Ok(())
            }
        }
    }

    /// Every key present in the config must belong to the grader's kind. Whether a key of
    /// the kind was read as another kind's.
    fn check_keys(
        &self,
        file: &SuiteFile,
        kind: GraderKind,
        path: &[PathSeg<'_>],
        problems: &mut Vec<Problem>,
    ) -> bool {
        let mut misread = false;
        let present = (self.tool_calls.keys_present().into_iter())
            .map(|key| (GraderKind::ToolCalls, key))
            .chain(
                (self.tool_correctness.keys_present().into_iter())
                    .map(|key| (GraderKind::ToolCorrectness, key)),
            )
            .chain(
                (self.call_accuracy.keys_present().into_iter())
                    .map(|key| (GraderKind::CallAccuracy, key)),
            )
            .chain(
                (self.trajectory.keys_present().into_iter())
                    .map(|key| (GraderKind::Trajectory, key)),
            )
            .chain((self.budget.keys_present().into_iter()).map(|key| (GraderKind::Budget, key)))
            .chain((self.errors.keys_present().into_iter()).map(|key| (GraderKind::Errors, key)))
            .chain(
                (self.dependencies.keys_present().into_iter())
                    .map(|key| (GraderKind::Dependencies, key)),
            )
            .chain([(kind, ("expect", self.expect.is_some()))]);
        let allowed = || kind.own_keys().iter().copied().chain(["expect"]);
        for (reader, (key, present)) in present {
            if present && reader != kind && allowed().any(|k| k == key) {
                // A key two kinds share, read before the grader's `type:` was known.
                misread = true;
                problems.push(
                    file.located(
                        Problem::new(
                            "toolgate::suite::type_after_config",
                            format!("`{key}` was read before the grader's `type: {kind}`"),
                            "read as another kind's key",
                        )
                        .with_help(format!(
                            "`{key}` means something else in another grader kind: write \
                             `type: {kind}` before `config:`"
                        )),
                        &join(path, &[PathSeg::KeyName(key)]),
                    ),
                );
            } else if present && !allowed().any(|k| k == key) {
                let list = allowed()
                    .map(|k| format!("`{k}`"))
                    .collect::<Vec<_>>()
                    .join(", ");
                problems.push(
                    file.located(
                        Problem::new(
                            "toolgate::suite::misplaced_key",
                            format!("`{key}` is not a key of the `{kind}` grader"),
                            format!("not a `{kind}` key"),
                        )
                        .with_help(format!("the `{kind}` grader takes {list}")),
                        &join(path, &[PathSeg::KeyName(key)]),
                    ),
                );
            }
        }
        misread
    }
}

// The reader below is written by hand to read, and to fail, as serde's derived reader of one
// struct called `RawGraderConfig` with every kind's keys did, so that every message stays as
// it was. The YAML reader hands a struct a map only (an empty value as an empty map; anything
// else fails with `expecting`), and a key as a string only, so those are the readings needed.

impl<'de> Deserialize<'de> for RawGrader {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_struct("RawGrader", GRADER_KEYS, GraderVisitor)
    }
}

/// The keys of a grader entry.
const GRADER_KEYS: &[&str] = &["type", "config"];

struct GraderVisitor;

impl<'de> Visitor<'de> for GraderVisitor {
    type Value = RawGrader;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("struct RawGrader")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawGrader, A::Error> {
        let mut kind: Option<GraderKind> = None;
        let mut config: Option<RawGraderConfig> = None;
        while let Some(GraderKey(index)) = map.next_key()? {
            if index == 0 {
                if kind.is_some() {
                    return Err(de::Error::duplicate_field("type"));
                }
                kind = Some(map.next_value()?);
            } else {
                if config.is_some() {
                    return Err(de::Error::duplicate_field("config"));
                }
                config = Some(map.next_value_seed(ConfigVisitor(kind))?);
            }
        }
        Ok(RawGrader {
            kind: kind.ok_or_else(|| de::Error::missing_field("type"))?,
            config: config.ok_or_else(|| de::Error::missing_field("config"))?,
        })
    }
}

/// A key of a grader entry, by its position in [`GRADER_KEYS`].
struct GraderKey(usize);

impl<'de> Deserialize<'de> for GraderKey {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct GraderKeyVisitor;
        impl Visitor<'_> for GraderKeyVisitor {
            type Value = GraderKey;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("field identifier")
            }
            fn visit_str<E: de::Error>(self, key: &str) -> Result<GraderKey, E> {
                GRADER_KEYS
                    .iter()
                    .position(|k| *k == key)
                    .map(GraderKey)
                    .ok_or_else(|| E::unknown_field(key, GRADER_KEYS))
            }
        }
        deserializer.deserialize_identifier(GraderKeyVisitor)
    }
}

impl<'de> Deserialize<'de> for RawGraderConfig {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        ConfigVisitor(None).deserialize(deserializer)
    }
}

impl<'de> DeserializeSeed<'de> for ConfigVisitor {
    type Value = RawGraderConfig;

    fn deserialize<D: Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<RawGraderConfig, D::Error> {
        deserializer.deserialize_struct("RawGraderConfig", keys(), self)
    }
}

/// Reads a config; with the grader's kind when its `type:` came first.
struct ConfigVisitor(Option<GraderKind>);

impl<'de> Visitor<'de> for ConfigVisitor {
    type Value = RawGraderConfig;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("struct RawGraderConfig")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawGraderConfig, A::Error> {
        let mut config = RawGraderConfig::default();
        let mut seen = vec![false; keys().len()];
        while let Some(Key(index)) = map.next_key()? {
            let key = keys()[index];
            // A key given twice is refused before its second value is read, even when the
            // first was `null`, as the derived reader does.
            if std::mem::replace(&mut seen[index], true) {
                return Err(de::Error::duplicate_field(key));
            }
            map.next_value_seed(KeyValue {
                config: &mut config,
                key,
                kind: self.0,
            })?;
        }
        Ok(config)
    }
}

/// Reads the value of one key into a config.
struct KeyValue<'c> {
    config: &'c mut RawGraderConfig,
    key: &'static str,
    kind: Option<GraderKind>,
}

impl<'de> DeserializeSeed<'de> for KeyValue<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        self.config.read(self.key, deserializer, self.kind)
    }
}

/// A key of a config, by its position in [`keys`].
struct Key(usize);

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_identifier(KeyVisitor)
    }
}

struct KeyVisitor;

impl Visitor<'_> for KeyVisitor {
    type Value = Key;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("field identifier")
    }

    fn visit_str<E: de::Error>(self, key: &str) -> Result<Key, E> {
        keys()
            .iter()
            .position(|k| *k == key)
            .map(Key)
            .ok_or_else(|| E::unknown_field(key, keys()))
    }
}

impl JsonSchema for RawGraderConfig {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "RawGraderConfig".into()
    }

    /// Every kind's keys, as each kind describes them, and `expect`.
    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let mut properties = serde_json::Map::new();
        for kind in [
            tool_calls::config::RawConfig::json_schema(generator),
            tool_correctness::config::RawConfig::json_schema(generator),
            call_accuracy::config::RawConfig::json_schema(generator),
            trajectory::config::RawConfig::json_schema(generator),
            budget::config::RawConfig::json_schema(generator),
            errors::config::RawConfig::json_schema(generator),
            dependencies::config::RawConfig::json_schema(generator),
        ] {
            if let Some(serde_json::Value::Object(own)) = kind.get("properties") {
                for (key, schema) in own {
                    // A key two kinds share takes either kind's value.
                    let merged = match properties.remove(key) {
                        Some(first) => serde_json::json!({ "anyOf": [first, schema] }),
                        None => schema.clone(),
                    };
                    properties.insert(key.clone(), merged);
                }
            }
        }
        properties.insert(
            "expect".to_owned(),
            generator.subschema_for::<Option<Expectations>>().to_value(),
        );
        json_schema!({
            "description": "The `config:` of a grader. Its keys are checked against the grader's kind afterwards.",
            "type": "object",
            "properties": properties,
            "additionalProperties": false
        })
    }
}

#[cfg(test)]
mod tests;
