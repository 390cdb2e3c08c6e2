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
