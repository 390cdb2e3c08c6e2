//! Finding things for the person at the keyboard, over the same project the
//! agent sees (its working buffers included): files by a fuzzy match of
//! their paths (quick open, [`paths`]) and lines by the agent's own search
//! engine, with the spans that matched ([`lines`]).

pub mod lines;
pub mod paths;
