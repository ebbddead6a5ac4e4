#!/usr/bin/env python3
"""Turns an `strace -f -s 1000000 -xx` recording into a C program that makes the same file
system calls, in the same order, with the same bytes written, and nothing else.

Timing that program against the recorded command gives the command's floor for the work it
did on the file system: what would remain if everything else it does (starting up, parsing,
hashing, compressing, deciding) cost nothing. Calls of all threads run in one sequence, in
the order they finished.

    replay.py LOG MODE [CREATED] > prog.c      MODE: all | essential
        all        every file system call of the recording
        essential  the same without the probes a different implementation of the same design
                   might not need: stats of anything but a worktree file (git's own files,
                   folders, missing paths), stats of open files, readlink
    CREATED: where to list the loose objects the recording created (one path per line): a
    replay's prep deletes them, so that it writes them anew as the command did.
"""
import re
import sys

CALL = re.compile(r"^(\w+)\((.*)\)\s+= (-?\d+|0x[0-9a-f]+)")
STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')
OBJECT = re.compile(r"objects/[0-9a-f]{2}/[0-9a-f]{38}$")


# Calls on paths alone, as the replay makes them (`linkat` with AT_FDCWD on both sides is `link`).
PATH_CALLS = {
    "rename": "rename({0},{1});",
    "linkat": "link({0},{1});",
    "link": "link({0},{1});",
    "unlink": "unlink({0});",
    "mkdir": "mkdir({0},0777);",
}


def calls(lines):
    """(pid, text) of each finished call, with `<unfinished ...>` halves joined."""
    pending = {}
    for line in lines:
        m = re.match(r"^(\d+)\s+(.*)$", line)
        if not m:
            continue
        pid, rest = m.groups()
        if rest.endswith("<unfinished ...>"):
            pending[pid] = rest[: -len("<unfinished ...>")].rstrip()
            continue
        resumed = re.match(r"^<\.\.\. (\w+) resumed>(.*)$", rest)
        if resumed:
            rest = pending.pop(pid, "") + resumed.group(2)
        yield pid, rest


def text(escaped):
    """The bytes of an `-xx` string."""
    return bytes.fromhex(escaped.replace("\\x", "")) if escaped else b""


def fd(arg):
    return "AT_FDCWD" if arg == "AT_FDCWD" else f"F({arg})"


def probe(path, args):
    """A stat that an implementation of the same design might not need to make: anything but
    a regular file of the worktree (git's own files, folders, links)."""
    p = text(path).decode(errors="replace")
    return "S_IFREG" not in args or ".git/" in p or p.startswith(".git")


def translate(name, args, ret, mode):
    strs = STRING.findall(args)
    a = [x.strip() for x in args.split(",")]
    q = lambda s: f'"{s}"'
    if name == "openat" and strs:
        flags = a[2] if len(a) > 2 else "O_RDONLY"
        perm = a[3] if len(a) > 3 and a[3].startswith("0") else "0"
        call = f"openat({fd(a[0])},{q(strs[0])},{flags},{perm})"
        return f"S({ret},{call});" if ret >= 0 else f"{call};"
    if name == "close":
        return f"C({a[0]});"
    if name == "read" and ret >= 0:
        return f"read(F({a[0]}),buf,{max(ret, 1)});"
    if name == "pread64" and ret >= 0:
        return f"pread(F({a[0]}),buf,{max(ret, 1)},{a[-1]});"
    if name == "write" and a[0] not in ("1", "2") and ret >= 0:
        return f'write(F({a[0]}),"{strs[0] if strs else ""}",{ret});'
    if name == "pwrite64" and ret >= 0:
        return f'pwrite(F({a[0]}),"{strs[0] if strs else ""}",{ret},{a[-1]});'
    if name == "lseek":
        return f"lseek(F({a[0]}),{a[1]},{a[2]});"
    if name in ("statx", "newfstatat"):
        if not strs or strs[0] == "":
            return None if mode == "essential" else f"fstat(F({a[0]}),&st);"
        if mode == "essential" and (ret < 0 or probe(strs[0], args)):
            return None
        nofollow = "AT_SYMLINK_NOFOLLOW" if "NOFOLLOW" in args else "0"
        return f"fstatat({fd(a[0])},{q(strs[0])},&st,{nofollow});"
    if name in PATH_CALLS:
        return PATH_CALLS[name].format(*map(q, strs))
    if name in ("fchmod", "ftruncate", "flock"):
        return f"{name}(F({a[0]}),{a[1]});"
    if name == "readlink" and mode != "essential":
        return f"readlink({q(strs[0])},(char*)buf,1023);"
    if name == "getdents64" and ret >= 0:
        return f"syscall(SYS_getdents64,F({a[0]}),buf,32768);"
    return None


def main():
    log, mode = sys.argv[1], sys.argv[2]
    lines = open(log, encoding="latin-1").read().splitlines()
    body, created = [], set()
    for _, call in calls(lines):
        m = CALL.match(call)
        if not m:
            continue
        name, args, ret = m.groups()
        ret = int(ret, 0)
        if name in ("rename", "linkat", "link") and ret == 0:
            target = text(STRING.findall(args)[-1]).decode(errors="replace")
            if OBJECT.search(target):
                created.add(target)
        c = translate(name, args, ret, mode)
        if c:
            body.append(c)
    if len(sys.argv) > 3:
        with open(sys.argv[3], "w") as out:
            out.writelines(o + "\n" for o in sorted(created))
    print("#define _GNU_SOURCE")
    for h in ("fcntl.h", "unistd.h", "stdio.h", "sys/stat.h", "sys/file.h", "sys/syscall.h"):
        print(f"#include <{h}>")
    print("static int map[65536]; static char buf[1 << 20]; static struct stat st;")
    print("#define F(x) (map[x])\n#define S(n, e) (map[n] = (e))\n#define C(x) close(map[x])")
    print("int main(void) {")
    print("\n".join(body))
    print("return 0; }")


if __name__ == "__main__":
    main()
