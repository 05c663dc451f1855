#!/usr/bin/env bash
# A matrix of configurations x workloads under the timing model (docs/sweep.md).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

usage() {
  cat <<'TXT'
Usage: scripts/sweep.sh [options]

Runs a matrix of configurations x workloads under the timing model, one
`rfsim run --timing` per cell, in parallel, and writes a summary CSV.
docs/sweep.md has the details and a SLURM job-array version.

  scripts/sweep.sh                                  # v100 titanv maxwell x every workload
  scripts/sweep.sh -c "v100 maxwell" -w "saxpy vecadd" -j 4 -o results/sweep-test
  scripts/sweep.sh --large --set l1d.size_kb=64 -w sgemm
  RFSIM=/tmp/build/rfsim scripts/sweep.sh ...       # another binary

Options:
  -c, --configs "CFG ..."    configurations: names (v100 titanv maxwell) or YAML files (default: all three)
  -w, --workloads "W ..."    workloads (default: every one `rfsim workloads` lists)
  -j, --jobs N               cells run at once (default: nproc)
  -o, --out DIR              output folder (default: results/sweep-<date>-<time>)
  --large                    the large input sizes
  --set KEY=VALUE            passed to every cell's `rfsim run` (repeatable)
  --rfsim PATH               the binary (default: $RFSIM, else ${RFSIM_BUILD_DIR:-build}/rfsim)
  --list-cells               print the cells, one "CONFIG WORKLOAD" per line (line N+1 is cell N), and exit
  --cell N                   run cell N only (0-based; for job arrays), no summary
  --summarize                only (re)write DIR/summary.csv from the cells already run

Each cell writes DIR/<config>/<workload>/ (rfsim's results: stats.json,
checks.json, config.yaml, manifest.json), its console output to
DIR/logs/<config>__<workload>.log and its exit status and wall time to
DIR/logs/<config>__<workload>.meta. A failed cell does not stop the others;
the script exits 1 at the end if any cell did not pass.
TXT
}

self="$here/scripts/sweep.sh"

configs="v100 titanv maxwell"
workloads=""
jobs=$(nproc)
out=""
large=0
sets=()
rfsim=${RFSIM:-${RFSIM_BUILD_DIR:-$here/build}/rfsim}
mode=sweep
cell=""

while (($#)); do
  case $1 in
    -c | --configs) need_value "$@"; configs=$2; shift 2 ;;
    -w | --workloads) need_value "$@"; workloads=$2; shift 2 ;;
    -j | --jobs) need_value "$@"; jobs=$2; shift 2 ;;
    -o | --out) need_value "$@"; out=$2; shift 2 ;;
    --large) large=1; shift ;;
    --set) need_value "$@"; sets+=("$2"); shift 2 ;;
    --rfsim) need_value "$@"; rfsim=$2; shift 2 ;;
    --list-cells) mode=list; shift ;;
    --cell) need_value "$@"; mode=cell; cell=$2; shift 2 ;;
    --summarize) mode=summarize; shift ;;
    -h | --help) usage; exit 0 ;;
    *) die "unknown option '$1' (see --help)" ;;
  esac
done
[[ $jobs =~ ^[1-9][0-9]*$ ]] || die "-j: expected a positive integer, got '$jobs'"
[[ -x $rfsim ]] || die "no rfsim binary at $rfsim (build it, or set RFSIM=/path/to/rfsim or --rfsim)"
rfsim=$(cd "$(dirname "$rfsim")" && pwd)/$(basename "$rfsim")

if [[ -z $workloads ]]; then
  workloads=$("$rfsim" workloads | awk '{print $1}' | paste -sd' ' -)
fi
read -ra cfg_list <<<"$configs"
# Cells run from the repository root: a YAML file given relative to here
# becomes absolute (a name such as v100 stays a name).
for k in "${!cfg_list[@]}"; do
  [[ -f ${cfg_list[k]} ]] && cfg_list[k]=$(cd "$(dirname "${cfg_list[k]}")" && pwd)/$(basename "${cfg_list[k]}")
done
configs="${cfg_list[*]}"
read -ra wl_list <<<"$workloads"
((${#cfg_list[@]} && ${#wl_list[@]})) || die "empty configuration or workload list"

# The folder name of a configuration: v100, or a YAML file's base name.
cfg_name() {
  local b
  b=$(basename "$1")
  echo "${b%.yaml}"
}

cells=()
for c in "${cfg_list[@]}"; do
  for w in "${wl_list[@]}"; do cells+=("$c $w"); done
done

if [[ $mode == list ]]; then
  printf '%s\n' "${cells[@]}"
  exit 0
fi

if [[ -z $out ]]; then
  [[ $mode == sweep ]] || die "--cell and --summarize need -o DIR (the folder every cell of the sweep shares)"
  out=$here/results/sweep-$(date +%Y%m%d-%H%M%S)
fi
mkdir -p "$out/logs"
out=$(cd "$out" && pwd)

run_cell() {
  local i=$1
  if ! [[ $i =~ ^[0-9]+$ ]] || ((i >= ${#cells[@]})); then
    die "--cell $i: expected 0..$((${#cells[@]} - 1))"
  fi
  local c w name dir log args t0 t1 rc
  read -r c w <<<"${cells[$i]}"
  name=$(cfg_name "$c")
  dir="$out/$name/$w"
  log="$out/logs/${name}__$w.log"
  mkdir -p "$out/$name"
  args=(run --config "$c" --workloads "$w" --timing --out "$dir" --overwrite)
  ((large)) && args+=(--large)
  for s in "${sets[@]+"${sets[@]}"}"; do args+=(--set "$s"); done
  t0=$(date +%s.%N)
  rc=0
  (cd "$here" && "$rfsim" "${args[@]}") >"$log" 2>&1 || rc=$?
  t1=$(date +%s.%N)
  printf 'rc %s\nwall_s %s\ncommand %s\n' "$rc" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')" \
    "$rfsim ${args[*]}" >"$out/logs/${name}__$w.meta"
  echo "cell $i: $name $w: $( ((rc == 0)) && echo pass || echo "FAIL (exit $rc, see $log)")"
  return 0
}

summarize() {
  local list
  list=$(for c in "${cfg_list[@]}"; do
    for w in "${wl_list[@]}"; do echo "$(cfg_name "$c") $w"; done
  done)
  python3 - "$here/scripts" "$out" "$list" <<'EOF'
import csv, os, sys

sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[1])
from rfsim_tools.stats import StatsError, load_stats, lookup, workload

out, cells = sys.argv[2], [l.split() for l in sys.argv[3].splitlines() if l.strip()]
cols = ["config", "workload", "status", "cycles", "warp_instrs", "ipc", "wall_s", "sim_host_s", "detail"]
bad = 0
with open(os.path.join(out, "summary.csv"), "w", newline="") as f:
    wr = csv.writer(f)
    wr.writerow(cols)
    for cfg, wl in cells:
        row = dict.fromkeys(cols, "")
        row.update(config=cfg, workload=wl)
        meta_path = os.path.join(out, "logs", f"{cfg}__{wl}.meta")
        cell = os.path.join(out, cfg, wl)
        if not os.path.exists(meta_path):
            row["status"] = "not-run"
        else:
            meta = dict(l.rstrip("\n").split(" ", 1) for l in open(meta_path) if " " in l)
            row["wall_s"] = meta.get("wall_s", "")
            try:
                # stats.json (rfsim-stats/2): workloads.<wl>.{passed, detail, summary}.
                w = workload(load_stats(cell), wl, cell)
                st = w["summary"]
                row["cycles"] = lookup(st, "cycles")
                row["warp_instrs"] = lookup(st, "warp_instrs")
                row["ipc"] = f'{lookup(st, "ipc"):.4f}'
                row["sim_host_s"] = f'{lookup(st, "wall_time") / 1e6:.3f}'  # microseconds
                row["detail"] = w["detail"]
                row["status"] = "pass" if w["passed"] is True and meta.get("rc") == "0" else "fail"
            except (StatsError, KeyError, TypeError, ValueError):
                # No results: the run stopped before writing them (an error
                # thrown by the simulator); its last log line says why.
                row["status"] = "error"
                log = os.path.join(out, "logs", f"{cfg}__{wl}.log")
                lines = [l.strip() for l in open(log)] if os.path.exists(log) else []
                row["detail"] = next((l for l in reversed(lines) if l), f"exit {meta.get('rc')}")
        bad += row["status"] != "pass"
        wr.writerow([row[c] for c in cols])
print(f"summary: {os.path.join(out, 'summary.csv')} ({len(cells) - bad} of {len(cells)} cells passed)")
sys.exit(1 if bad else 0)
EOF
}

case $mode in
  cell)
    run_cell "$cell"
    ;;
  summarize)
    summarize
    ;;
  sweep)
    fwd=(-c "$configs" -w "$workloads" -o "$out" --rfsim "$rfsim")
    ((large)) && fwd+=(--large)
    for s in "${sets[@]+"${sets[@]}"}"; do fwd+=(--set "$s"); done
    echo "sweep: ${#cfg_list[@]} configurations x ${#wl_list[@]} workloads = ${#cells[@]} cells, $jobs at a time, into $out"
    # Each cell is this script again with --cell, so a cell runs the same
    # way here and in a job array; xargs's own status is ignored, the
    # summary says what failed.
    seq 0 $((${#cells[@]} - 1)) | xargs -P "$jobs" -I{} "$self" "${fwd[@]}" --cell {} || true
    summarize
    ;;
esac
