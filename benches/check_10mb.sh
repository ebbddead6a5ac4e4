#!/usr/bin/env bash
# Row "`check` of a 10 MB reply": throughput of `git clada check` (parse, schema check, every
# path through the sandbox) on a 10 MB reply of prose with ~2,000 write blocks, in SHAM and in
# the replacer format, inside a 10,000-file repository (the replacer's paths are matched
# against the tracked files). Interleaved with `git clada parse` of the same reply, the
# parse-only floor; both must see the same number of blocks.
#
#   benches/check_10mb.sh        (RUNS=15)
source "$(dirname "$0")/lib/common.sh"
dir="$BENCH_DIR/tree-10000-packed"
make_tree 10000 "$dir" packed
for fmt in sham replacer; do
    reply="$BENCH_DIR/check-$fmt.md"
    [ -s "$reply" ] || python3 - "$fmt" >"$reply" <<'PY'
import random, sys
fmt = sys.argv[1]
rng = random.Random(0x5eed)
words = "the parser reads each line once and keeps blocks in order so that errors point at exact columns we change function because tests need a clearer result with `Vec<String>` **bold** überall naïve 日本語 →".split()
code = ["fn main() {", "    let mut total = 0usize;", "    for (i, line) in text.lines().enumerate() {",
        "        total += line.len() * i;", "    }", "    println!(\"{total} = {:?}\", items);", "}",
        "def handler(event, context):", "    # key = \"value\" inside a heredoc is content", "",
        "\tindented_with_tab = true;"]
out, size, n = [], 0, 0
while size < 10 << 20:
    part = " ".join(rng.choice(words) for _ in range(rng.randint(40, 160))) + "\n\n"
    if rng.random() < 0.2:
        body = "".join(rng.choice(code) + "\n" for _ in range(rng.randint(40, 120)))
        path = f"src/m{n % 100:04d}/generated_{n}.rs"
        if fmt == "sham":
            part += (f"```sh nesl\n#!nesl [@three-char-SHA-256: b{n:x}]\naction = \"file_write\"\n"
                     f"path = \"{path}\"\ncontent = <<'EOT_b{n:x}'\n{body}EOT_b{n:x}\n#!end_b{n:x}\n```\n\n")
        else:
            part += f"<<<EXPLANATION>>>\nwhy\n<<<FILE>>>\n{path}\n<<<OVERWRITE>>>\n{body}<<<END>>>\n\n"
        n += 1
    out.append(part)
    size += len(part.encode())
sys.stdout.write("".join(out))
PY
    mb=$(python3 -c "import os,sys; print(os.path.getsize(sys.argv[1]) / 1e6)" "$reply")
    json="$BENCH_DIR/check-$fmt.json"
    python3 "$LIB/interleave.py" --title "check of a ${mb%.*} MB reply ($fmt)" --cwd "$dir" \
        --side check "$BIN check $reply" "" \
        --side parse "$BIN parse $reply" "" \
        --json "$json"
    # Same blocks seen: check's count of valid actions against parse's count of blocks.
    c=$("$BIN" -C "$dir" --format json check "$reply" | python3 -c "import json,sys; r=json.load(sys.stdin); r=r[0] if isinstance(r,list) else r; print(r.get('totalBlocks', r))")
    p=$("$BIN" -C "$dir" parse "$reply" | python3 -c "import json,sys; r=json.load(sys.stdin); print(len(r['blocks']) if isinstance(r,dict) else len(r))")
    [ "$c" = "$p" ] || { echo "check saw $c blocks, parse $p" >&2; exit 1; }
    python3 - "$json" "$mb" "$c" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); mb = float(sys.argv[2])
c, p = (s["median_ms"] / 1e3 for s in r["sides"])
print(f"  {sys.argv[3]} blocks: check {mb / c:.0f} MB/s, parse alone {mb / p:.0f} MB/s")
PY
    trace "check ($fmt)" "$dir" "$BIN" check "$reply"
done
