"""What the MCP test clients share: how they start `redline mcp`, how they
propose a one-line change, and how they read a tool's result."""

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


async def propose_line(session, path, line, old, new, summary):
    """`propose_edits` replacing line `line` of `path` (which reads `old`)
    with `new`; its structured result."""
    return structured(await session.call_tool("propose_edits", {
        "edits": [{
            "file_path": path, "operation": "replace",
            "start_line": line, "end_line": line,
            "new_text": new, "old_text": old,
        }],
        "summary": summary,
    }))
