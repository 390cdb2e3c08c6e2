//! Agent definitions: a named system prompt, the tools it may use,
//! and optionally its own model. The built-in `default` edits notes; more come
//! from the configuration file's `[[agents]]`.

use globset::{Glob, GlobSetBuilder};

pub use crate::config::AgentDefinition;

impl AgentDefinition {
    /// The built-in agent: edits a folder of notes on request.
    pub fn builtin() -> AgentDefinition {
        AgentDefinition {
            agent_id: "default".into(),
            display_name: "Notes editor".into(),
            description: "Finds what an instruction concerns across the folder and proposes edits."
                .into(),
            system_prompt: "You edit a folder of text notes for the user. Change only what the \
                            instruction asks for, keep each note's style, and never invent facts."
                .into(),
            tool_allowlist: None,
            tool_denylist: None,
            model: None,
        }
    }

    /// Whether `tool` is available to this agent. The check runs on the
    /// server for every call, so a denied tool cannot be called even by a
    /// model that guesses its name.
    pub fn allows(&self, tool: &str) -> bool {
        let matches = |patterns: &Option<Vec<String>>| {
            patterns.as_ref().map(|patterns| {
                let mut set = GlobSetBuilder::new();
                for p in patterns {
                    // A pattern that does not compile matches nothing.
                    if let Ok(glob) = Glob::new(p) {
                        set.add(glob);
                    }
                }
                set.build().is_ok_and(|s| s.is_match(tool))
            })
        };
        matches(&self.tool_allowlist).unwrap_or(true)
            && !matches(&self.tool_denylist).unwrap_or(false)
    }
}

/// Every agent: the built-in one, then the configured ones (a configured
/// `default` replaces the built-in).
pub fn definitions(configured: &[AgentDefinition]) -> Vec<AgentDefinition> {
    let mut agents = Vec::new();
    if !configured.iter().any(|a| a.agent_id == "default") {
        agents.push(AgentDefinition::builtin());
    }
    agents.extend(configured.iter().cloned());
    agents
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allow_then_deny() {
        let mut agent = AgentDefinition::builtin();
        assert!(agent.allows("read_file") && agent.allows("propose_edits"));
        agent.tool_allowlist = Some(vec!["*_file*".into(), "search_*".into()]);
        agent.tool_denylist = Some(vec!["list_*".into()]);
        assert!(agent.allows("read_file"));
        assert!(agent.allows("search_project"));
        assert!(!agent.allows("list_files"));
        assert!(!agent.allows("propose_edits"));
    }
}
