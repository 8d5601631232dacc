//! The JSON Schemas of the types the suite reads with a visitor of their own. Each such type
//! describes itself by hand, next to its visitor, with [`described!`]; the other types derive
//! theirs from the same definitions that read them (`trailgate schema`).

/// Implements `JsonSchema` from a `json_schema!` body.
macro_rules! described {
    ($type:ty, $name:literal, $schema:expr) => {
        impl schemars::JsonSchema for $type {
            fn schema_name() -> std::borrow::Cow<'static, str> {
                $name.into()
            }
            fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
                let make: fn(&mut schemars::SchemaGenerator) -> schemars::Schema = $schema;
                make(generator)
            }
        }
    };
}

pub(crate) use described;
