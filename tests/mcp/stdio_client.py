"""The official MCP Python SDK driving `redline mcp FOLDER` over stdio.

Usage: python stdio_client.py REDLINE_BIN FOLDER DATA_DIR
Prints one JSON line with what the Rust test checks afterwards (the job id
and hunk ids); every protocol-level fact is asserted here.
"""

import asyncio
import json
import sys

from mcp import ClientSession, types
from mcp.client.stdio import stdio_client

from common import error_code, propose_line, redline_mcp, structured


async def main(redline, folder, data):
    params = redline_mcp(redline, folder, data)
    async with stdio_client(params) as (read, write):
        async with ClientSession(
            read, write, client_info=types.Implementation(name="py-agent", version="1.0")
        ) as session:
            init = await session.initialize()
            assert init.serverInfo.name == "redline", init.serverInfo

            tools = {t.name: t for t in (await session.list_tools()).tools}
            assert set(tools) == {
                "search_project", "read_file", "list_files", "links",
                "propose_edits", "clarify_user", "review_status", "review_undo",
            }, sorted(tools)
            assert "step_id" in tools["review_undo"].inputSchema["properties"]
            assert "query" in tools["search_project"].inputSchema["properties"]
            assert tools["search_project"].inputSchema["required"] == ["query"]
            assert "edits" in tools["propose_edits"].inputSchema["properties"]

            found = structured(await session.call_tool("search_project", {"query": "Owner"}))
            assert found["total"] == 2, found
            listed = structured(await session.call_tool("list_files", {}))
            assert "notes/alpha.md" in listed["files"], listed

            # Hostile paths are refused with the API's codes; the server lives on.
            for path, code in [("../outside.md", "escapes_root"), ("/etc/passwd", "absolute_path")]:
                refused = await session.call_tool("read_file", {"file_path": path})
                assert error_code(refused) == code, refused.structuredContent

            read = structured(await session.call_tool("read_file", {"file_path": "notes/alpha.md"}))
            assert "Owner: Ann" in read["content"], read

            proposed = await propose_line(
                session, "notes/alpha.md", 4, "Owner: Ann", "Owner: Bo\n", "Alpha goes to Bo.")
            assert proposed["status"] == "pending_review", proposed
            [file] = proposed["files"]
            assert file["file_path"] == "notes/alpha.md", file
            hunks = [h["hunk_id"] for h in file["hunks"]]
            assert hunks, file

            status = structured(await session.call_tool(
                "review_status", {"job_id": proposed["job_id"]}))
            assert [h["status"] for h in status["hunks"]] == ["pending"] * len(hunks), status

            unknown = await session.call_tool("review_status", {"job_id": "job_999"})
            assert error_code(unknown) == "not_found", unknown.structuredContent

            # The session's limits, as the test's config.toml sets them: one
            # proposal, ten calls (this is the ninth, then the tenth and one more).
            again = await session.call_tool("propose_edits", {"edits": [], "summary": "More."})
            assert error_code(again) == "limit_reached", again.structuredContent
            structured(await session.call_tool("list_files", {}))
            over = await session.call_tool("list_files", {})
            assert error_code(over) == "limit_reached", over.structuredContent
            assert "max_mcp_calls_per_session" in over.content[0].text, over.content

            print(json.dumps({"job_id": proposed["job_id"], "hunks": hunks}))


# A hang fails the test instead of holding CI.
asyncio.run(asyncio.wait_for(main(*sys.argv[1:4]), 120))
