//! Event enums whose variants each carry one payload and one wire name,
//! given once: the name is the variant's serde rename (`{"type": "<name>",
//! "data": {...}}`) and what its `kind()` answers.

/// Declares an event enum: `Variant(Payload) = "wire.name",` per variant
/// (attributes and doc comments before each kept), with `kind()`.
macro_rules! named_events {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $( $(#[$vmeta:meta])* $variant:ident($payload:ty) = $wire:literal, )*
        }
    ) => {
        $(#[$meta])*
        #[serde(tag = "type", content = "data")]
        $vis enum $name {
            $( $(#[$vmeta])* #[serde(rename = $wire)] $variant($payload), )*
        }

        impl $name {
            /// The event's type name, e.g. `job.status`.
            pub fn kind(&self) -> &'static str {
                match self {
                    $( $name::$variant(_) => $wire, )*
                }
            }
        }
    };
}

pub(crate) use named_events;

/// Reads an event field that once held a list and now holds its length
/// (the list grew with the proposal: 20,000 paths in one event), so that
/// the events stored by an earlier version still read.
pub(crate) fn count_or_list<'de, D>(deserializer: D) -> Result<usize, D::Error>
where
    D: serde::Deserializer<'de>,
{
    #[derive(serde::Deserialize)]
    #[serde(untagged)]
    enum CountOrList {
        Count(usize),
        List(Vec<serde::de::IgnoredAny>),
    }
    Ok(
        match <CountOrList as serde::Deserialize>::deserialize(deserializer)? {
            CountOrList::Count(n) => n,
            CountOrList::List(items) => items.len(),
        },
    )
}

#[cfg(test)]
mod tests {
    #[derive(serde::Deserialize)]
    struct Counted {
        #[serde(deserialize_with = "super::count_or_list")]
        files: usize,
    }

    #[test]
    fn a_count_reads_as_a_count_and_an_old_list_as_its_length() {
        let read = |json| serde_json::from_str::<Counted>(json).map(|c| c.files);
        assert_eq!(read(r#"{"files": 3}"#).unwrap(), 3);
        assert_eq!(read(r#"{"files": ["a.md", "b.md"]}"#).unwrap(), 2);
        assert!(read(r#"{"files": "a.md"}"#).is_err());
    }
}
