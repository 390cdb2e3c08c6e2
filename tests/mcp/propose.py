"""One external agent's proposal through `redline mcp FOLDER`, with the
official MCP Python SDK: asks the user QUESTION first when one is given,
reads each file it edits, proposes, and prints one JSON line: the answer
(`asked`) and the proposal's result (`proposed`). The browser test uses it
as the agent whose work shows in the open window.

Usage: python propose.py REDLINE_BIN FOLDER DATA_DIR CLIENT_NAME EDITS_JSON [QUESTION]
"""

import asyncio
import json
import sys

from mcp import ClientSession, types
from mcp.client.stdio import stdio_client

from common import redline_mcp


async def main(redline, folder, data, client, edits, question=None):
    edits = json.loads(edits)
    params = redline_mcp(redline, folder, data)
    async with stdio_client(params) as (read, write):
        info = types.Implementation(name=client, version="1.0")
        async with ClientSession(read, write, client_info=info) as session:
            await session.initialize()
            asked = None
            if question:
                result = await session.call_tool(
                    "clarify_user", {"question": question, "suggested_answers": ["Ann", "Bo"]})
                assert not result.isError, result.content
                asked = result.structuredContent
            for path in sorted({e["file_path"] for e in edits}):
                result = await session.call_tool("read_file", {"file_path": path})
                assert not result.isError, result.content
            result = await session.call_tool(
                "propose_edits", {"edits": edits, "summary": f"{client}'s edits."})
            assert not result.isError, result.content
            print(json.dumps({"asked": asked, "proposed": result.structuredContent}))


# A hang fails the test instead of holding CI.
asyncio.run(asyncio.wait_for(main(*sys.argv[1:7]), 120))
