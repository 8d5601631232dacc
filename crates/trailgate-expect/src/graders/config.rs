//! The graders of a test as the suite writes them: each a `type:` and a `config:`, checked by
//! its kind's module (`graders/<kind>/config.rs`), at most one of each kind.
//!
//! A `config:` is read before its `type:` is known, since YAML lets `type:` come after it;
//! so [`RawGraderConfig`] takes the keys of every kind, each read by the kind that owns it,
//! and the keys that do not belong to the grader's kind are reported afterwards.

use std::fmt;
use std::marker::PhantomData;
use std::sync::LazyLock;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::Deserialize;
use serde::de::{
    self, DeserializeSeed, Deserializer, EnumAccess, MapAccess, VariantAccess, Visitor,
};
use serde_json::Value;

use crate::error::Problem;
use crate::expect::Expectations;
use crate::gate::Gate;
use crate::schema::described;
use crate::suite_file::{Items, PathSeg, SuiteFile, join};
use crate::tool_matcher::config::TestClasses;

use super::{Block, Grader, Graders, registry};

// An entry of a test's `graders:`. (Plain comments on the derived types: schemars would
// put a doc comment into `trailgate schema`.) Read by hand (below) so that a `type:` written
// before `config:` tells the config which kind owns a key that two kinds share
// (`expected`).
#[derive(JsonSchema)]
#[schemars(deny_unknown_fields)]
pub(crate) struct RawGrader {
    #[schemars(rename = "type")]
    kind: GraderKind,
    config: RawGraderConfig,
}

/// What reads and checks the `config:` of a grader kind ([`Grader::Config`]).
pub(crate) trait GraderConfig: Default {
    /// The grader it gives.
    type Grader;
    /// Whether the kind is written under a test's `graders:` (the equal-function-set block
    /// is written at the test's top level, and reads its own block).
    const IN_GRADERS: bool = true;
    /// The keys of the config other than `expect`, which every kind takes.
    const KEYS: &'static [&'static str];

    /// Reads the value of `key`, one of [`KEYS`](Self::KEYS).
    fn read<'de, D: Deserializer<'de>>(&mut self, key: &str, value: D) -> Result<(), D::Error>;
    /// Each key, and whether the config holds it.
    fn keys_present(&self) -> Vec<(&'static str, bool)>;
    /// The properties of the config's keys in `trailgate schema`.
    fn schema_properties(generator: &mut SchemaGenerator) -> serde_json::Map<String, Value>;
    /// The grader, when the config at `path` (of the test's grader at `index`) is valid;
    /// otherwise its problems are added to `problems`.
    fn check(
        self,
        expect: Option<Expectations>,
        file: &SuiteFile,
        index: usize,
        path: &[PathSeg<'_>],
        classes: TestClasses<'_>,
        problems: &mut Vec<Problem>,
    ) -> Option<Self::Grader>;
}

/// The items of a [`GraderConfig`] implementation that follow from the config's fields, one
/// per key, named as the key and each an `Option` read as itself: `KEYS`, `read`,
/// `keys_present` and `schema_properties`. Written inside the `impl` block.
macro_rules! config_keys {
    ($($field:ident),* $(,)?) => {
        /// Its keys, in the order the schema lists them.
        const KEYS: &[&str] = &[$(stringify!($field)),*];

        /// Reads the value of `key`, one of [`Self::KEYS`]; any other key reads nothing.
        fn read<'de, D: serde::Deserializer<'de>>(
            &mut self,
            key: &str,
            value: D,
        ) -> Result<(), D::Error> {
            $(
                if key == stringify!($field) {
                    self.$field = serde::Deserialize::deserialize(value)?;
                    return Ok(());
                }
            )*
            let _ = (key, value);
            Ok(())
        }

        /// Each key, with whether the config has it.
        fn keys_present(&self) -> Vec<(&'static str, bool)> {
            vec![$((stringify!($field), self.$field.is_some())),*]
        }

        fn schema_properties(
            generator: &mut schemars::SchemaGenerator,
        ) -> serde_json::Map<String, serde_json::Value> {
            $crate::graders::config::own_properties::<Self>(generator)
        }
    };
}

pub(crate) use config_keys;

/// The gates of the `expect:` of a config of kind `block` at `path` (the config's), on the
/// kind's metrics, its default gate when `expect:` is omitted or empty: what most kinds'
/// `check` writes (a kind whose targets or default depend on its config calls
/// [`expect::gates`] itself).
pub(crate) fn block_gates(
    block: Block,
    expect: Option<Expectations>,
    file: &SuiteFile,
    path: &[PathSeg<'_>],
    problems: &mut Vec<Problem>,
) -> Vec<Gate> {
    crate::expect::gates(
        file,
        expect,
        block.key(),
        block.targets(),
        block.default_gate(),
        &join(path, &[PathSeg::Key("expect")]),
        problems,
    )
}

/// The properties a config type describes in its own JSON Schema.
pub(crate) fn own_properties<T: JsonSchema>(
    generator: &mut SchemaGenerator,
) -> serde_json::Map<String, Value> {
    match T::json_schema(generator).get("properties") {
        Some(Value::Object(own)) => own.clone(),
        _ => serde_json::Map::new(),
    }
}

/// The config of a kind that is not written under `graders:`: it has no key and gives no
/// grader there.
pub(crate) struct NotInGraders<G>(PhantomData<G>);

impl<G> Default for NotInGraders<G> {
    fn default() -> Self {
        Self(PhantomData)
    }
}

impl<G> GraderConfig for NotInGraders<G> {
    type Grader = G;
    const IN_GRADERS: bool = false;
    const KEYS: &'static [&'static str] = &[];

    fn read<'de, D: Deserializer<'de>>(&mut self, _key: &str, _value: D) -> Result<(), D::Error> {
        Ok(())
    }

    fn keys_present(&self) -> Vec<(&'static str, bool)> {
        Vec::new()
    }

    fn schema_properties(_generator: &mut SchemaGenerator) -> serde_json::Map<String, Value> {
        serde_json::Map::new()
    }

    fn check(
        self,
        _expect: Option<Expectations>,
        _file: &SuiteFile,
        _index: usize,
        _path: &[PathSeg<'_>],
        _classes: TestClasses<'_>,
        _problems: &mut Vec<Problem>,
    ) -> Option<G> {
        None
    }
}

/// A grader's `type:`: one of the kinds written under `graders:`.
#[derive(Clone, Copy, PartialEq, Eq)]
struct GraderKind(Block);

impl GraderKind {
    /// The kinds written under `graders:`, in registry order.
    fn all() -> impl Iterator<Item = Self> {
        Block::ALL
            .iter()
            .copied()
            .filter(|block| block.in_graders())
            .map(Self)
    }

    /// Their keys, as a `type:` names them.
    fn names() -> &'static [&'static str] {
        static NAMES: LazyLock<Vec<&'static str>> =
            LazyLock::new(|| GraderKind::all().map(|kind| kind.0.key()).collect());
        &NAMES
    }

    /// The keys of its `config` other than `expect`, which every kind takes.
    fn own_keys(self) -> &'static [&'static str] {
        self.0.config_keys()
    }

    /// The keys of its `config`, `expect` last: what an unknown key's help lists.
    fn config_keys(self) -> &'static [&'static str] {
        static KEYS: LazyLock<Vec<Vec<&'static str>>> = LazyLock::new(|| {
            Block::ALL
                .iter()
                .map(|block| {
                    let mut keys = block.config_keys().to_vec();
                    keys.push("expect");
                    keys
                })
                .collect()
        });
        Block::ALL
            .iter()
            .position(|block| *block == self.0)
            .and_then(|index| KEYS.get(index))
            .map_or(&[], Vec::as_slice)
    }
}

impl fmt::Display for GraderKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0.key())
    }
}

// `type:` is read as serde's derived reader of a unit enum reads it (an enum whose variant
// names the kind), so that every message stays as it was.
impl<'de> Deserialize<'de> for GraderKind {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_enum("GraderKind", GraderKind::names(), KindVisitor)
    }
}

struct KindVisitor;

impl<'de> Visitor<'de> for KindVisitor {
    type Value = GraderKind;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("enum GraderKind")
    }

    fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<GraderKind, A::Error> {
        let (kind, variant) = data.variant::<KindName>()?;
        variant.unit_variant()?;
        Ok(kind.0)
    }
}

/// The name of a kind, in the variant's place.
struct KindName(GraderKind);

impl<'de> Deserialize<'de> for KindName {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_identifier(KindNameVisitor)
    }
}

struct KindNameVisitor;

impl Visitor<'_> for KindNameVisitor {
    type Value = KindName;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("variant identifier")
    }

    fn visit_str<E: de::Error>(self, name: &str) -> Result<KindName, E> {
        GraderKind::all()
            .find(|kind| kind.0.key() == name)
            .map(KindName)
            .ok_or_else(|| E::unknown_variant(name, GraderKind::names()))
    }
}

described!(GraderKind, "GraderKind", |_| json_schema!({
    "enum": GraderKind::names(),
    "type": "string"
}));

/// The test's `graders:` at `path` (the test's), checked: at most one of each kind, each
/// config with the keys of its kind only, and each checked by its kind. The equal-function
/// set block is not among them: the caller adds it.
pub(crate) fn check(
    file: &SuiteFile,
    graders: Items<RawGrader>,
    path: &[PathSeg<'_>],
    classes: TestClasses<'_>,
    problems: &mut Vec<Problem>,
) -> Graders {
    let mut checked = Graders::default();
    let mut seen: Vec<GraderKind> = Vec::new();
    for (index, grader) in graders.read() {
        let grader_path = join(path, &[PathSeg::Key("graders"), PathSeg::Index(index)]);
        let config_path = join(&grader_path, &[PathSeg::Key("config")]);
        let kind = grader.kind;
        if seen.contains(&kind) {
            problems.push(
                file.located(
                    Problem::new(
                        "trailgate::suite::duplicate_grader",
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
        let context = CheckContext {
            file,
            index,
            path: &config_path,
            classes,
        };
        grader.config.check(kind.0, context, &mut checked, problems);
    }
    checked
}

/// Where a grader's config is checked.
struct CheckContext<'a> {
    file: &'a SuiteFile,
    index: usize,
    path: &'a [PathSeg<'a>],
    classes: TestClasses<'a>,
}

/// Builds, from the registry, the config that holds the keys of every kind, with its reader
/// and its check, and [`Block`]'s facts about configs.
macro_rules! configs {
    ($($field:ident: $variant:ident = $grader:ty, $key:literal;)*) => {
        /// The `config:` of a grader: the keys of every kind, each read by its kind. Its
        /// keys are checked against the grader's kind afterwards
        /// ([`RawGraderConfig::check_keys`]).
        #[derive(Default)]
        pub(crate) struct RawGraderConfig {
            $($field: <$grader as Grader>::Config,)*
            expect: Option<Expectations>,
        }

        impl RawGraderConfig {
            /// Reads the value of `key`, one of [`keys`], with the kind that owns it: the
            /// grader's own kind when its `type:` came first and it has the key, otherwise
            /// the first kind that has it.
            fn read<'de, D: Deserializer<'de>>(
                &mut self,
                key: &str,
                value: D,
                kind: Option<Block>,
            ) -> Result<(), D::Error> {
                let owner = kind
                    .filter(|kind| kind.config_keys().contains(&key))
                    .or_else(|| {
                        Block::ALL
                            .iter()
                            .copied()
                            .find(|kind| kind.config_keys().contains(&key))
                    });
                match owner {
                    $(Some(Block::$variant) => self.$field.read(key, value),)*
                    None => {
                        self.expect = Deserialize::deserialize(value)?;
                        Ok(())
                    }
                }
            }

            /// Each key of every kind, with the kind that read it and whether the config
            /// holds it, then `expect` (read for the grader's own kind, `kind`).
            fn keys_present(&self, kind: Block) -> Vec<(Block, &'static str, bool)> {
                let mut present = Vec::new();
                $(present.extend(
                    self.$field
                        .keys_present()
                        .into_iter()
                        .map(|(key, held)| (Block::$variant, key, held)),
                );)*
                present.push((kind, "expect", self.expect.is_some()));
                present
            }

            /// The grader of kind `block` from the config, checked, into `graders`.
            fn check(
                self,
                block: Block,
                at: CheckContext<'_>,
                graders: &mut Graders,
                problems: &mut Vec<Problem>,
            ) {
                let CheckContext { file, index, path, classes } = at;
                match block {
                    $(
                        Block::$variant => {
                            graders.$field = self.$field.check(
                                self.expect, file, index, path, classes, problems,
                            );
                        }
                    )*
                }
            }

            /// Every kind's key properties, in registry order.
            fn schema_properties(
                generator: &mut SchemaGenerator,
            ) -> serde_json::Map<String, Value> {
                let mut properties = serde_json::Map::new();
                $(
                    let own = <<$grader as Grader>::Config as GraderConfig>::schema_properties(
                        generator,
                    );
                    for (key, schema) in own {
                        // A key two kinds share takes either kind's value.
                        let merged = match properties.remove(&key) {
                            Some(first) => serde_json::json!({ "anyOf": [first, schema] }),
                            None => schema,
                        };
                        properties.insert(key, merged);
                    }
                )*
                properties
            }
        }

        impl Block {
            /// Whether the kind is written under a test's `graders:`.
            fn in_graders(self) -> bool {
                match self {
                    $(Self::$variant => <<$grader as Grader>::Config as GraderConfig>::IN_GRADERS,)*
                }
            }

            /// The keys of the kind's `config:` other than `expect`.
            fn config_keys(self) -> &'static [&'static str] {
                match self {
                    $(Self::$variant => <<$grader as Grader>::Config as GraderConfig>::KEYS,)*
                }
            }
        }
    };
}

registry!(configs);

/// The keys of the `config:` of the kind a `type:` names, `expect` last; `None` when it
/// names no kind written under `graders:`.
pub(crate) fn keys_of_kind(name: &str) -> Option<&'static [&'static str]> {
    GraderKind::all()
        .find(|kind| kind.0.key() == name)
        .map(GraderKind::config_keys)
}

/// Every key of a grader's config: each kind's in registry order, a key two kinds share
/// once, then `expect`.
fn keys() -> &'static [&'static str] {
    static KEYS: LazyLock<Vec<&'static str>> = LazyLock::new(|| {
        let mut keys: Vec<&'static str> = Vec::new();
        for key in GraderKind::all().flat_map(GraderKind::own_keys) {
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
        let allowed = || kind.own_keys().iter().copied().chain(["expect"]);
        for (reader, key, present) in self.keys_present(kind.0) {
            if present && reader != kind.0 && allowed().any(|k| k == key) {
                // A key two kinds share, read before the grader's `type:` was known.
                misread = true;
                problems.push(
                    file.located(
                        Problem::new(
                            "trailgate::suite::type_after_config",
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
                            "trailgate::suite::misplaced_key",
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
        while let Some(Key(index)) = map.next_key_seed(KeySeed(self.0))? {
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
        self.config
            .read(self.key, deserializer, self.kind.map(|kind| kind.0))
    }
}

/// A key of a config, by its position in [`keys`].
struct Key(usize);

/// Reads a key of a config; with the grader's kind when its `type:` came first.
struct KeySeed(Option<GraderKind>);

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = Key;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Key, D::Error> {
        deserializer.deserialize_identifier(self)
    }
}

impl Visitor<'_> for KeySeed {
    type Value = Key;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("field identifier")
    }

    /// A key of another kind is read, to be refused by `check_keys` as misplaced; a key of
    /// no kind is unknown, and the help lists the keys of this grader's kind alone when its
    /// `type:` is known (every kind's otherwise, which the problem made of the error narrows
    /// to the kind a later `type:` names: `SuiteFile::grader_keys_at`).
    fn visit_str<E: de::Error>(self, key: &str) -> Result<Key, E> {
        keys()
            .iter()
            .position(|k| *k == key)
            .map(Key)
            .ok_or_else(|| E::unknown_field(key, self.0.map_or_else(keys, GraderKind::config_keys)))
    }
}

impl JsonSchema for RawGraderConfig {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "RawGraderConfig".into()
    }

    /// Every kind's keys, as each kind describes them, and `expect`.
    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let mut properties = Self::schema_properties(generator);
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
