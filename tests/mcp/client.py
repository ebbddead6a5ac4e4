"""A foreign MCP client for git-clada's server: the official Python SDK (`mcp` from PyPI).

`tests/cli/mcp_server.rs` runs it with a JSON spec on stdin; it starts `git-clada mcp` as a child
process through the SDK's stdio transport, performs the spec's steps in order and prints a
JSON transcript of what it saw (results, errors, progress, elicitation requests, git output).
The Rust test does the asserting, and checks the repository with the real git CLI.

Spec: {"server": [argv...], "cwd": DIR, "elicit": null|"yes"|"no"|"always"|"decline",
       "steps": [STEP...]}  or  {"parallel": [SPEC, SPEC, ...]} (clients at once).
Steps: {"do": "info"} | {"do": "tools"} | {"do": "prompts"} | {"do": "prompt", "name", "args"}
       | {"do": "call", "tool", "args", "progress": bool}
       | {"do": "cancel", "tool", "args", "when_file": PATH}  (cancel once PATH exists)
       | {"do": "together", "calls": [{"tool", "args", "progress": bool, "when_file": PATH,
          "cancel_when_file": PATH}, ...]}  (calls in flight at once in one session: each
          starts once its when_file exists, and is cancelled once its cancel_when_file does)
       | {"do": "git", "args": [...]}
       | {"do": "lock", "path": P} / {"do": "unlock"}  (hold an flock on P, as another
         git-clada holding the repository's lock would)
"""

import fcntl
import json
import os
import subprocess
import sys
import time

import anyio
import mcp_types as types
from jsonschema.validators import validator_for
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError


def schema_problem(schema):
    """None when `schema` is a valid JSON Schema (for its declared draft), else why not."""
    try:
        validator_for(schema).check_schema(schema)
        return None
    except Exception as e:  # noqa: BLE001 - any failure is the finding
        return str(e)


def result_record(result):
    texts = [c.text for c in result.content if getattr(c, "type", None) == "text"]
    return {
        "isError": bool(result.is_error),
        "text": "\n".join(texts),
        "structured": result.structured_content,
    }


async def step(client, spec, s, elicited):
    result = await _step(client, spec, s, elicited)
    # Every structured result must match the tool's declared output schema, errors included.
    schema = spec.get("_outputs", {}).get(s.get("tool"))
    if schema is not None and isinstance(result, dict) and result.get("structured") is not None:
        errors = sorted(validator_for(schema)(schema).iter_errors(result["structured"]), key=str)
        result["outputMismatch"] = [e.message for e in errors]
    return result


async def _step(client, spec, s, elicited):
    kind = s["do"]
    cwd = spec["cwd"]
    if kind == "info":
        caps = client.server_capabilities
        return {
            "protocolVersion": client.protocol_version,
            "name": client.server_info.name if client.server_info else None,
            "tools": caps.tools is not None,
            "prompts": caps.prompts is not None,
            "instructions": client.instructions,
        }
    if kind == "tools":
        listed = await client.list_tools()
        out = []
        for t in listed.tools:
            out.append(
                {
                    "name": t.name,
                    "description": t.description,
                    "inputSchema": t.input_schema,
                    "inputProblem": schema_problem(t.input_schema),
                    "hasOutputSchema": t.output_schema is not None,
                    "outputProblem": schema_problem(t.output_schema) if t.output_schema else None,
                    "readOnly": t.annotations.read_only_hint if t.annotations else None,
                }
            )
        return {"tools": out}
    if kind == "prompts":
        listed = await client.list_prompts()
        return {"prompts": [p.name for p in listed.prompts]}
    if kind == "prompt":
        try:
            got = await client.get_prompt(s["name"], s.get("args"))
        except MCPError as e:
            return {"error": {"code": e.code, "message": e.message}}
        return {"text": got.messages[0].content.text}
    if kind == "call":
        progress = []

        async def on_progress(value, total, message):
            progress.append({"progress": value, "message": message})

        try:
            result = await client.call_tool(
                s["tool"],
                s.get("args", {}),
                progress_callback=on_progress if s.get("progress") else None,
            )
        except MCPError as e:
            return {"error": {"code": e.code, "message": e.message}}
        record = result_record(result)
        record["progress"] = progress
        record["elicited"] = list(elicited)
        elicited.clear()
        return record
    if kind == "cancel":
        marker = os.path.join(cwd, s["when_file"])
        scope = anyio.CancelScope()
        finished = {}

        async def run():
            with scope:
                finished["result"] = await client.call_tool(s["tool"], s.get("args", {}))

        async with anyio.create_task_group() as tg:
            tg.start_soon(run)
            deadline = time.monotonic() + 30
            while not os.path.exists(marker) and time.monotonic() < deadline:
                await anyio.sleep(0.05)
            await anyio.sleep(0.2)
            scope.cancel()
        pid = None
        gone = None
        if os.path.exists(marker):
            with open(marker) as f:
                pid = int(f.read().strip() or 0)
            # The server kills the exec's process group on cancellation; wait for it to go.
            deadline = time.monotonic() + 20
            gone = False
            while time.monotonic() < deadline:
                try:
                    os.kill(pid, 0)
                except ProcessLookupError:
                    gone = True
                    break
                await anyio.sleep(0.05)
        return {"cancelled": scope.cancel_called, "finished": "result" in finished, "pid": pid, "pidGone": gone}
    if kind == "together":
        return {"calls": await together(client, cwd, s["calls"])}
    if kind == "lock":
        held = open(os.path.join(cwd, s["path"]), "a+")
        fcntl.flock(held, fcntl.LOCK_EX)
        spec["_held"] = held
        return {"locked": True}
    if kind == "unlock":
        spec.pop("_held").close()
        return {"locked": False}
    if kind == "git":
        out = subprocess.run(["git", *s["args"]], cwd=cwd, capture_output=True, text=True)
        return {"stdout": out.stdout, "code": out.returncode}
    raise ValueError(f"unknown step {kind!r}")


async def wait_for_file(cwd, rel, seconds=60):
    path = os.path.join(cwd, rel)
    deadline = time.monotonic() + seconds
    while not os.path.exists(path):
        if time.monotonic() > deadline:
            raise TimeoutError(f"{rel} never appeared")
        await anyio.sleep(0.05)


async def together(client, cwd, calls):
    """Calls in flight at once; each record says how it ended and what progress it saw."""
    out = [None] * len(calls)

    async def one(i, c):
        progress = []

        async def on_progress(value, total, message):
            progress.append({"progress": value, "message": message})

        if c.get("when_file"):
            await wait_for_file(cwd, c["when_file"])
        scope = anyio.CancelScope()
        record = {"cancelled": False, "finished": False}
        async with anyio.create_task_group() as tg:
            async def cancel_later():
                await wait_for_file(cwd, c["cancel_when_file"])
                await anyio.sleep(0.2)
                scope.cancel()

            if c.get("cancel_when_file"):
                tg.start_soon(cancel_later)
            with scope:
                try:
                    result = await client.call_tool(
                        c["tool"],
                        c.get("args", {}),
                        progress_callback=on_progress if c.get("progress") else None,
                    )
                    record.update(result_record(result))
                    record["finished"] = True
                except MCPError as e:
                    record["error"] = {"code": e.code, "message": e.message}
            record["cancelled"] = scope.cancel_called
            tg.cancel_scope.cancel()
        record["progress"] = progress
        out[i] = record

    async with anyio.create_task_group() as tg:
        for i, c in enumerate(calls):
            tg.start_soon(one, i, c)
    return out


async def run_client(spec):
    elicited = []
    answer = spec.get("elicit")

    async def elicit(context, params):
        elicited.append(params.message)
        if answer == "decline":
            return types.ElicitResult(action="decline")
        return types.ElicitResult(action="accept", content={"answer": answer})

    server = StdioServerParameters(
        command=spec["server"][0],
        args=spec["server"][1:],
        cwd=spec["cwd"],
        env=dict(os.environ),
    )
    transcript = []
    async with Client(
        server,
        elicitation_callback=elicit if answer else None,
        read_timeout_seconds=120,
    ) as client:
        listed = await client.list_tools()
        spec["_outputs"] = {t.name: t.output_schema for t in listed.tools if t.output_schema}
        for s in spec["steps"]:
            try:
                transcript.append(await step(client, spec, s, elicited))
            except Exception as e:  # noqa: BLE001 - recorded for the Rust test to report
                transcript.append({"exception": f"{type(e).__name__}: {e}"})
    return {"steps": transcript}


async def main():
    spec = json.load(sys.stdin)
    if "parallel" in spec:
        results = [None] * len(spec["parallel"])

        async def one(i, s):
            results[i] = await run_client(s)

        async with anyio.create_task_group() as tg:
            for i, s in enumerate(spec["parallel"]):
                tg.start_soon(one, i, s)
        json.dump({"parallel": results}, sys.stdout)
    else:
        json.dump(await run_client(spec), sys.stdout)


if __name__ == "__main__":
    anyio.run(main)
