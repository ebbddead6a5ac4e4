"""Applies an aider SEARCH/REPLACE reply the way aider's editblock coder does, without a chat.

Used by tests/differential_formats.rs as the oracle for the aider front end:

    python aider_apply.py ROOT REPLY_FILE [lf|crlf]

Parses REPLY_FILE with aider.coders.editblock_coder.find_original_update_blocks, creates the
files a block names that do not exist (aider's "Create new file?" answered yes), then applies
each block with do_replace to the file read and written the way aider's InputOutput does (text
mode: universal newlines when reading, the given line ending when writing). No other chat files
are tried when a block fails (aider would try the other files in the chat). Prints one JSON
object: {"parse_error": null or the message, "edits": [{"path": ..., "ok": true/false}, ...]}.
"""

import json
import sys
from pathlib import Path

from aider.coders.editblock_coder import (
    DEFAULT_FENCE,
    do_replace,
    find_original_update_blocks,
)


def main():
    root = Path(sys.argv[1])
    with open(sys.argv[2], "r", encoding="utf-8", newline="") as f:
        reply = f.read()
    newline = "\r\n" if len(sys.argv) > 3 and sys.argv[3] == "crlf" else "\n"
    out = {"parse_error": None, "edits": []}
    try:
        edits = list(find_original_update_blocks(reply, DEFAULT_FENCE, None))
    except ValueError as e:
        out["parse_error"] = str(e.args[0])
        print(json.dumps(out))
        return
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
            new = do_replace(str(full), content, original, updated, DEFAULT_FENCE)
            if new:
                with open(full, "w", encoding="utf-8", newline=newline) as f:
                    f.write(new)
                ok = True
        out["edits"].append({"path": path, "ok": ok})
    print(json.dumps(out))


if __name__ == "__main__":
    main()
