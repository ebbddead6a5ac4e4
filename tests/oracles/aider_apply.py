"""Applies aider SEARCH/REPLACE replies the way aider's editblock coder does, without a chat.

The oracle of tests/cli/differential_formats.rs for the aider front end:

    python aider_apply.py CASES.json

CASES.json is a list of {"root": DIR, "reply": FILE, "newline": "lf" | "crlf"}. For each case
the reply is parsed with aider.coders.editblock_coder.find_original_update_blocks; the files the
blocks name that do not exist are created empty (aider's "Create new file?" answered yes); then
each block is applied with do_replace to its file, read and written the way aider's InputOutput
does (text mode: universal newlines when reading, the given line ending when writing, as
aider's --line-endings). Other files are not tried when a block fails (aider would try the
other files in the chat). Prints one JSON list with, per case,
{"parse_error": null or the message, "edits": [{"path": ..., "ok": true/false}, ...]}.
"""

import json
import sys
from pathlib import Path

from aider.coders.editblock_coder import (
    DEFAULT_FENCE,
    do_replace,
    find_original_update_blocks,
)


def run(root, reply, newline):
    out = {"parse_error": None, "edits": []}
    try:
        edits = list(find_original_update_blocks(reply, DEFAULT_FENCE, None))
    except ValueError as e:
        out["parse_error"] = str(e.args[0])
        return out
    edits = [e for e in edits if e[0] is not None]
    for path, _, _ in edits:
        full = root / path
        if not full.exists():
            full.parent.mkdir(parents=True, exist_ok=True)
            full.touch()
    for path, original, updated in edits:
        full = root / path
        ok = False
        if full.is_file():
            with open(full, "r", encoding="utf-8") as f:
                content = f.read()
            try:
                new = do_replace(str(full), content, original, updated, DEFAULT_FENCE)
            except Exception as e:  # aider reports these as "Exception while updating files"
                new = None
            if new:
                with open(full, "w", encoding="utf-8", newline=newline) as f:
                    f.write(new)
                ok = True
        out["edits"].append({"path": path, "ok": ok})
    return out


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        cases = json.load(f)
    results = []
    for case in cases:
        with open(case["reply"], "r", encoding="utf-8", newline="") as f:
            reply = f.read()
        newline = "\r\n" if case.get("newline") == "crlf" else "\n"
        results.append(run(Path(case["root"]), reply, newline))
    print(json.dumps(results))


if __name__ == "__main__":
    main()
