# Shared by the comparison scripts (sourced, not run): a clean git environment under $WORK and
# the generated repository they time.

# bench_env WORK: git identity and configuration that no user or system setting can change.
bench_env() {
  WORK=$1
  mkdir -p "$WORK"
  export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.com
  export GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.com
  export GIT_CONFIG_NOSYSTEM=1 HOME="$WORK/home"
  mkdir -p "$HOME"
}

# make_tree N DIR: a repository in DIR (made afresh, and the current directory afterwards) of N
# files src/mNNNN/fNNNNNN.rs of 20 lines each, committed and packed.
make_tree() {
  local n=$1 dir=$2
  rm -rf "$dir" && mkdir -p "$dir" && cd "$dir"
  git init -q -b main
  git config gc.auto 0
  git config maintenance.auto false
  python3 - "$n" <<'PY'
import os, sys
n = int(sys.argv[1])
for i in range(n):
    d = f"src/m{i // 100:04d}"
    os.makedirs(d, exist_ok=True)
    with open(f"{d}/f{i:06d}.rs", "w") as f:
        f.write("".join(f"fn f{i}_{j}() -> u32 {{ {j} }}\n" for j in range(20)))
PY
  git add -A && git commit -q -m init
  # A packed, stable object store (set before any commit: otherwise the commit starts a
  # background `git gc --auto` that packs objects while the timings run).
  git gc -q
}
