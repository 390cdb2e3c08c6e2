"""What the MCP test clients share: how they start `redline mcp`, and how
they read a tool's result."""

import os

from mcp import StdioServerParameters


def redline_mcp(redline, folder, data):
    """`redline mcp FOLDER` with its data (and no config file but the
    test's) in DATA_DIR, no keychain."""
    return StdioServerParameters(
        command=redline,
        args=["mcp", folder],
        env={
            "REDLINE_DATA_DIR": data,
            "REDLINE_CONFIG": os.path.join(data, "config.toml"),
            "REDLINE_NO_KEYCHAIN": "1",
            "REDLINE_LOG": "warn",
        },
    )


def structured(result):
    """A successful result's structured content."""
    assert not result.isError, result.content
    return result.structuredContent


def error_code(result):
    """A tool error's code."""
    assert result.isError, result
    return result.structuredContent["error"]["code"]
