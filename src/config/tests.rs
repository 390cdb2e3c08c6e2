// figment's Jail returns its own (large) error type; that is its API, not ours.
#![allow(clippy::result_large_err)]

use super::*;

#[test]
fn defaults_are_the_documented_values() {
    figment::Jail::expect_with(|_| {
        let limits = Config::load_from(None).unwrap().limits;
        assert_eq!(limits.max_tool_calls_per_job, 12);
        assert_eq!(limits.max_search_results_default, 20);
        assert_eq!(limits.max_search_results_cap, 50);
        assert_eq!(limits.max_search_snippet_lines, 20);
        assert_eq!(limits.max_read_bytes_default, 65536);
        assert_eq!(limits.max_read_lines_default, 800);
        assert_eq!(limits.poll_interval_ms, 2000);
        Ok(())
    });
}

#[test]
fn environment_overrides_file_overrides_defaults() {
    figment::Jail::expect_with(|jail| {
        jail.create_file(
            "redline.toml",
            "data_dir = \"/tmp/from-file\"\n[limits]\nmax_search_results_cap = 30\nmax_read_lines_default = 100\n",
        )?;
        jail.set_env("REDLINE_MAX_SEARCH_RESULTS_CAP", "40");
        let config = Config::load_from(Some(Path::new("redline.toml"))).unwrap();
        assert_eq!(config.limits.max_search_results_cap, 40);
        assert_eq!(config.limits.max_read_lines_default, 100);
        assert_eq!(config.limits.max_search_results_default, 20);
        assert_eq!(config.data_dir(), PathBuf::from("/tmp/from-file"));
        jail.set_env("REDLINE_DATA_DIR", "/tmp/from-env");
        let config = Config::load_from(Some(Path::new("redline.toml"))).unwrap();
        assert_eq!(config.data_dir(), PathBuf::from("/tmp/from-env"));
        Ok(())
    });
}

#[test]
fn cost_uses_the_exact_price_else_the_longest_prefix() {
    let config = Config::default();
    let cost = config.cost_usd("gpt-4o-mini-2024-07-18", 1_000_000, 1_000_000);
    assert!((cost - 0.75).abs() < 1e-9, "{cost}");
    assert!((config.cost_usd("gpt-4o", 1_000_000, 0) - 2.5).abs() < 1e-9);
    assert_eq!(config.cost_usd("my-local-model", 5_000, 5_000), 0.0);
}

#[test]
fn nested_settings_come_from_the_environment() {
    figment::Jail::expect_with(|jail| {
        jail.set_env("REDLINE_AGENT_MODE", "hybrid_auto");
        jail.set_env("REDLINE_REMOTE__MODEL", "gpt-4.1");
        jail.set_env("REDLINE_HTTP__MAX_RETRIES", "7");
        let config = Config::load_from(None).unwrap();
        assert_eq!(config.agent_mode, AgentMode::HybridAuto);
        assert_eq!(config.remote.model, "gpt-4.1");
        assert_eq!(config.http.max_retries, 7);
        Ok(())
    });
}

#[test]
fn a_bad_value_names_its_key() {
    figment::Jail::expect_with(|jail| {
        jail.set_env("REDLINE_MAX_READ_BYTES_DEFAULT", "lots");
        let err = Config::load_from(None)
            .unwrap_err()
            .to_string()
            .to_lowercase();
        assert!(err.contains("max_read_bytes_default"), "{err}");
        Ok(())
    });
}

#[test]
fn a_key_no_setting_has_is_refused_with_its_line() {
    figment::Jail::expect_with(|jail| {
        jail.create_file(
            "redline.toml",
            "agent_mode = \"local\"\n\n[limits]\nmax_search_results_cap = 30\nmax_tool_calls_per_jobb = 3\n",
        )?;
        let err = Config::load_from(Some(Path::new("redline.toml"))).unwrap_err();
        assert_eq!(err.line(), Some(5), "{err}");
        let text = err.to_string();
        assert!(text.contains("max_tool_calls_per_jobb"), "{text}");
        assert!(text.ends_with("(line 5)"), "{text}");
        // At the top and in any section alike.
        jail.create_file(
            "top.toml",
            "data_dir = \"/tmp/x\"\nagent_moed = \"local\"\n",
        )?;
        let err = Config::load_from(Some(Path::new("top.toml"))).unwrap_err();
        assert_eq!(err.line(), Some(2), "{err}");
        jail.create_file(
            "remote.toml",
            "[remote]\nprovider = \"openai\"\nmodle = \"gpt-4.1\"\n",
        )?;
        let err = Config::load_from(Some(Path::new("remote.toml"))).unwrap_err();
        assert!(err.to_string().contains("modle"), "{err}");
        assert_eq!(err.line(), Some(3), "{err}");
        Ok(())
    });
}

#[test]
fn a_value_of_the_wrong_type_in_the_file_names_its_key_and_line() {
    figment::Jail::expect_with(|jail| {
        jail.create_file(
            "redline.toml",
            "[limits]\n\nmax_read_lines_default = \"many\"\n",
        )?;
        let err = Config::load_from(Some(Path::new("redline.toml"))).unwrap_err();
        assert!(err.to_string().contains("max_read_lines_default"), "{err}");
        assert_eq!(err.line(), Some(3), "{err}");
        Ok(())
    });
}

#[test]
fn other_redline_variables_are_not_settings_but_a_typo_in_a_section_is_refused() {
    figment::Jail::expect_with(|jail| {
        jail.set_env("REDLINE_NO_KEYCHAIN", "1");
        jail.set_env("REDLINE_REQUIRE_RG", "1");
        jail.set_env("REDLINE_REMOTE__MODEL", "gpt-4.1");
        assert_eq!(Config::load_from(None).unwrap().remote.model, "gpt-4.1");
        jail.set_env("REDLINE_REMOTE__MODL", "gpt-4.1");
        let err = Config::load_from(None).unwrap_err();
        assert!(err.to_string().contains("modl"), "{err}");
        assert_eq!(err.line(), None, "not from a file");
        Ok(())
    });
}
