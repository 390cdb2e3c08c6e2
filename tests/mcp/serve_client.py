"""The official MCP Python SDK against a running `redline serve`: `/mcp` over
streamable HTTP, then `redline mcp FOLDER` bridged to it over stdio, then a
client killed in the middle of a call. The user's side (decisions, answers,
saves) is played through the server's HTTP API, as the open window does.

Usage: python serve_client.py REDLINE_BIN FOLDER DATA_DIR BASE_URL TOKEN
Every protocol-level fact is asserted here; the Rust test checks the bytes
on disk afterwards.
"""

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request

import httpx
from mcp import ClientSession, types
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

from common import error_code, propose_line, redline_mcp, structured

TOOLS = {
    "search_project", "read_file", "list_files", "links", "propose_edits", "clarify_user",
    "review_status", "review_undo",
}


class Api:
    """The running server's HTTP API, as the UI calls it."""

    def __init__(self, base, token):
        self.base, self.token = base, token

    def raw(self, method, path, body=None, headers=None):
        request = urllib.request.Request(
            self.base + path,
            method=method,
            data=None if body is None else json.dumps(body).encode(),
            headers={"Content-Type": "application/json", **(headers or {})},
        )
        try:
            with urllib.request.urlopen(request, timeout=30) as reply:
                return reply.status, json.loads(reply.read() or b"null")
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read() or b"null")

    def call(self, method, path, body=None):
        status, answer = self.raw(method, path, body, {"Authorization": f"Bearer {self.token}"})
        assert status == 200, (method, path, status, answer)
        return answer

    async def acall(self, method, path, body=None):
        return await asyncio.to_thread(self.call, method, path, body)

    def group(self, job_id):
        groups = [g for g in self.call("GET", "/api/review")["jobs"] if g["job_id"] == job_id]
        assert len(groups) == 1, (job_id, groups)
        return groups[0]

    async def question(self, client, seen=()):
        """The open question of `client`'s job: its job and question ids."""
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            for session in await self.acall("GET", "/api/agent/sessions"):
                if session["agent_id"] != f"mcp:{client}" or not session["last_job_id"]:
                    continue
                job = session["last_job_id"]
                page = await self.acall("GET", f"/api/agent/jobs/{job}/events?cursor=0")
                asked = [
                    e["data"]["question_id"]
                    for e in page["events"]
                    if e["type"] == "clarification.requested"
                    and e["data"]["question_id"] not in seen
                ]
                if asked and page["status"] == "waiting_for_user":
                    return job, asked[-1]
            await asyncio.sleep(0.1)
        raise AssertionError(f"{client} asked nothing")


def session_of(read, write, name):
    return ClientSession(read, write, client_info=types.Implementation(name=name, version="1.0"))


async def over_http(api, base, token):
    """`/mcp` on the running server: the guard, the tools, a proposal live in
    its review, and a waiting review_status answered by a decision."""
    hello = {
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "x", "version": "1"}},
    }
    mcp_headers = {"Accept": "application/json, text/event-stream"}
    status, answer = api.raw("POST", "/mcp", hello, mcp_headers)
    assert (status, answer["error"]["code"]) == (401, "unauthorized"), (status, answer)
    status, answer = api.raw("POST", "/mcp", hello, {
        **mcp_headers, "Authorization": f"Bearer {token}", "Origin": "http://evil.example"})
    assert (status, answer["error"]["code"]) == (403, "forbidden"), (status, answer)

    client = httpx.AsyncClient(
        headers={"Authorization": f"Bearer {token}"},
        timeout=httpx.Timeout(30, read=300),
    )
    async with client, streamable_http_client(f"{base}/mcp", http_client=client) as (read, write, _):
        async with session_of(read, write, "http-agent") as session:
            init = await session.initialize()
            assert init.serverInfo.name == "redline", init.serverInfo
            tools = {t.name for t in (await session.list_tools()).tools}
            assert tools == TOOLS, sorted(tools)

            refused = await session.call_tool("read_file", {"file_path": "../../etc/passwd"})
            assert error_code(refused) == "escapes_root", refused.structuredContent
            read = structured(await session.call_tool("read_file", {"file_path": "notes/gamma.md"}))
            assert "Status: final" in read["content"], read
            proposed = await propose_line(
                session, "notes/gamma.md", 3, "Status: final", "Status: archived\n", "Gamma is archived.")
            assert proposed["status"] == "pending_review", proposed
            job = proposed["job_id"]
            [hunk] = [h["hunk_id"] for f in proposed["files"] for h in f["hunks"]]

            # Live in the running server's review, grouped under the client.
            group = api.group(job)
            assert group["source"] == "http-agent", group
            assert [h["hunk_id"] for h in group["hunks"]] == [hunk], group

            # A waiting review_status returns when the decision arrives.
            waiting = asyncio.create_task(session.call_tool(
                "review_status", {"job_id": job, "wait_ms": 60000}))
            await asyncio.sleep(1.0)
            assert not waiting.done(), "review_status waits for the decision"
            started = time.monotonic()
            await api.acall("POST", f"/api/agent/hunks/{hunk}/decide", {"status": "accepted"})
            decided = structured(await asyncio.wait_for(waiting, 30))
            assert time.monotonic() - started < 20, "answered when the decision came"
            assert [(h["hunk_id"], h["status"]) for h in decided["hunks"]] == [(hunk, "accepted")], decided

            # The decision is a step of the history: undone and redone
            # exactly, and a step named wrong is refused.
            wrong = await session.call_tool("review_undo", {"step_id": "s_999999"})
            assert error_code(wrong) == "conflict", wrong.structuredContent
            undone = structured(await session.call_tool("review_undo", {}))
            assert undone["undone"] is True, undone
            assert [(m["hunk_id"], m["to"]) for m in undone["moved"]] == [(hunk, "pending")], undone
            status = structured(await session.call_tool("review_status", {"job_id": job}))
            assert [h["status"] for h in status["hunks"]] == ["pending"], status
            redone = structured(await session.call_tool(
                "review_undo", {"redo": True, "step_id": undone["step_id"]}))
            assert [(m["hunk_id"], m["to"]) for m in redone["moved"]] == [(hunk, "accepted")], redone
            await api.acall("POST", "/api/files/save", {"path": "notes/gamma.md"})
            return job


async def wrote_directly(api, base, token, folder):
    """An agent that writes through its shell rather than proposing: the
    window is told it connected (to offer review mode), its change is
    grouped for review by itself, review_status (no job named) reports it,
    and learns that the user put it back; once it is gone, it is no longer
    counted as connected."""
    path = os.path.join(folder, "notes/beta.md")
    with open(path, encoding="utf-8") as f:
        before = f.read()
    client = httpx.AsyncClient(
        headers={"Authorization": f"Bearer {token}"},
        timeout=httpx.Timeout(30, read=300),
    )
    async with client, streamable_http_client(f"{base}/mcp", http_client=client) as (read, write, _):
        async with session_of(read, write, "shell-agent") as session:
            await session.initialize()
            deadline = time.monotonic() + 10
            while "shell-agent" not in (await api.acall("GET", "/api/project"))["mcp_clients"]:
                assert time.monotonic() < deadline, "the connection is not listed"
                await asyncio.sleep(0.05)
            events = (await api.acall("GET", "/api/events?cursor=0"))["events"]
            connected = [e["data"] for e in events if e["type"] == "mcp.connected" and e["data"]["client"] == "shell-agent"]
            assert connected == [{"client": "shell-agent", "outside_changes": "record"}], connected
            with open(path, "a", encoding="utf-8") as f:
                f.write("Written straight to disk.\n")
            deadline = time.monotonic() + 20
            while True:
                status = (await session.call_tool("review_status", {})).structuredContent or {}
                hunks = [h for h in status.get("hunks", []) if h["file_path"] == "notes/beta.md"]
                if hunks:
                    break
                assert time.monotonic() < deadline, status
                await asyncio.sleep(0.1)
            # Kept as written (the default, record mode), until the user says otherwise.
            assert [h["status"] for h in hunks] == ["accepted"], hunks
            job = status["job_id"]
            for h in hunks:
                await api.acall("POST", f"/api/agent/hunks/{h['hunk_id']}/decide", {"status": "rejected"})
            await api.acall("POST", "/api/files/save", {"path": "notes/beta.md"})
            status = structured(await session.call_tool("review_status", {"job_id": job}))
            assert [h["status"] for h in status["hunks"]] == ["rejected"], status
    with open(path, encoding="utf-8") as f:
        assert f.read() == before, "put back"
    deadline = time.monotonic() + 10
    while "shell-agent" in (await api.acall("GET", "/api/project"))["mcp_clients"]:
        assert time.monotonic() < deadline, "still listed as connected after it closed its session"
        await asyncio.sleep(0.05)


async def bridged(api, redline, folder, data):
    """`redline mcp FOLDER` while the server has the folder open: a proposal
    shows in the server's review, and questions are answered or skipped
    there."""
    params = redline_mcp(redline, folder, data)
    async with stdio_client(params) as (read, write):
        async with session_of(read, write, "bridged-agent") as session:
            await session.initialize()
            tools = {t.name for t in (await session.list_tools()).tools}
            assert tools == TOOLS, sorted(tools)

            structured(await session.call_tool("read_file", {"file_path": "notes/alpha.md"}))
            proposed = await propose_line(
                session, "notes/alpha.md", 4, "Owner: Ann", "Owner: Bo\n", "Alpha goes to Bo.")
            job = proposed["job_id"]
            group = api.group(job)
            assert group["source"] == "bridged-agent", group
            sessions = [s for s in api.call("GET", "/api/agent/sessions")
                        if s["agent_id"] == "mcp:bridged-agent"]
            assert [s["name"] for s in sessions] == ["bridged-agent"], sessions

            # A question answered on the card (through the API).
            asking = asyncio.create_task(session.call_tool(
                "clarify_user", {"question": "Who owns Beta?", "suggested_answers": ["Ann", "Bo"]}))
            asked_job, question = await api.question("bridged-agent")
            await api.acall("POST", f"/api/agent/jobs/{asked_job}/clarify",
                            {"question_id": question, "answer": "42"})
            answered = structured(await asyncio.wait_for(asking, 30))
            assert answered == {"status": "answered", "answer": "42"}, answered

            # And one skipped.
            asking = asyncio.create_task(session.call_tool("clarify_user", {"question": "Also Gamma?"}))
            asked_job, second = await api.question("bridged-agent", seen={question})
            await api.acall("POST", f"/api/agent/jobs/{asked_job}/clarify",
                            {"question_id": second, "skip": True})
            skipped = structured(await asyncio.wait_for(asking, 30))
            assert skipped == {"status": "no_user_answer", "answer": None}, skipped

            # The decision reaches the bridged client too, with the reason
            # the user gave; then the user changes their mind.
            [hunk] = [h["hunk_id"] for h in group["hunks"]]
            await api.acall("POST", f"/api/agent/hunks/{hunk}/decide",
                            {"status": "rejected", "reason": "Bo is on leave"})
            status = structured(await session.call_tool("review_status", {"job_id": job}))
            assert [(h["status"], h.get("reason")) for h in status["hunks"]] == \
                [("rejected", "Bo is on leave")], status
            await api.acall("POST", f"/api/agent/hunks/{hunk}/decide", {"status": "accepted"})
            status = structured(await session.call_tool("review_status", {"job_id": job}))
            assert [h["status"] for h in status["hunks"]] == ["accepted"], status
            return job


def rpc(process, message):
    process.stdin.write((json.dumps(message) + "\n").encode())
    process.stdin.flush()


async def dropped(api, redline, folder, data):
    """A client killed while its call waits: the server lives on, and what
    was staged before stays staged."""
    env = {**os.environ, "REDLINE_DATA_DIR": data,
           "REDLINE_CONFIG": os.path.join(data, "config.toml"),
           "REDLINE_NO_KEYCHAIN": "1", "REDLINE_LOG": "warn"}
    process = subprocess.Popen([redline, "mcp", folder], env=env,
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        rpc(process, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "dropped-agent", "version": "1"}}})
        assert json.loads(process.stdout.readline())["result"]["serverInfo"]["name"] == "redline"
        rpc(process, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        rpc(process, {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "propose_edits", "arguments": {
                "edits": [{"file_path": "notes/beta.md", "operation": "replace",
                           "start_line": 3, "end_line": 3,
                           "new_text": "Status: final\n", "old_text": "Status: draft"}],
                "summary": "Beta is final."}}})
        staged = json.loads(process.stdout.readline())["result"]["structuredContent"]
        assert staged["status"] == "pending_review", staged
        rpc(process, {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
            "name": "clarify_user", "arguments": {"question": "Are you there?"}}})
        await api.question("dropped-agent")
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait()
    # The server answers, and the proposal made before the drop waits for review.
    group = api.group(staged["job_id"])
    assert group["source"] == "dropped-agent", group
    assert api.call("GET", "/api/project")["name"], "the server lives on"
    return staged["job_id"]


async def main(redline, folder, data, base, token):
    api = Api(base, token)
    said = {
        "http_job": await over_http(api, base, token),
        "shell": await wrote_directly(api, base, token, folder),
        "bridged_job": await bridged(api, redline, folder, data),
        "dropped_job": await dropped(api, redline, folder, data),
    }
    # The user saves what they accepted.
    await api.acall("POST", "/api/files/save", {"path": "notes/alpha.md"})
    print(json.dumps(said))


# A hang fails the test instead of holding CI.
asyncio.run(asyncio.wait_for(main(*sys.argv[1:6]), 120))
