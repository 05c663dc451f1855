#!/usr/bin/env bash
# RegDem's f(occupancy) (RegDem eq. 3), measured on our own timing model.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

usage() {
  cat <<'TXT'
Usage: [RFSIM=path/to/rfsim] scripts/regdem_f_occupancy.sh [-c CONFIG] [-o OUT] [--small] [--regs LIST]

RegDem's f(occupancy) (paper eq. 3), measured on our own timing model as the paper
measured it on its GPU (section 4: "compute-intensive microbenchmarks across various
thread block sizes", occupancy "controlled by modifying register usage, measuring only
the impact of occupancy on performance"): ubench_occupancy, one dependent FMA chain per
thread in blocks of 64, 128 and 256 threads, its register count padded
(compiler.reserved_registers). Each launch is four whole waves of the blocks the SMs
hold (one on the small input), so no launch ends in a part-filled wave. f(x) is the
time per block at occupancy x (cycles over blocks per SM) over the same at full
occupancy, per block size; the table is the mean over block sizes at each occupancy,
printed as the `mechanisms.regdem.f_occupancy` value.

  -c CONFIG   the configuration (default titanx)
  -o OUT      the output folder (default results/regdem-f-<date>-<time>)
  --small     the small input (default: the large one)
  --regs LIST the register counts, comma-separated (default 32,40,48,56,64,72,80,96,128,168,240:
              full occupancy down to one block of 256 threads per SM)
  RFSIM       run this rfsim binary (no set-up or build), e.g. a copy that a rebuild
              cannot replace while the sweep runs

Writes OUT/points.csv (block, registers, blocks per SM, occupancy, cycles, f) and
OUT/f_table.txt; prints the table.
TXT
}

config=titanx
out=results/regdem-f-$(date +%Y%m%d-%H%M%S)
size=--large
regs_list=32,40,48,56,64,72,80,96,128,168,240
while (($#)); do
  case $1 in
    -c | --config) need_value "$@"; config=$2; shift 2 ;;
    -o | --out) need_value "$@"; out=$2; shift 2 ;;
    --small) size=; shift ;;
    --regs) need_value "$@"; regs_list=$2; shift 2 ;;
    -h | --help) usage; exit 0 ;;
    *) die "unknown option '$1' (see --help)" ;;
  esac
done
use_rfsim
mkdir -p "$out"
# Register counts from full occupancy down to one block of 256 threads per
# SM on a 64 K-register SM: the padding is the count less the kernel's own.
"$rfsim" backend -c "$config" "$here/workloads/ubench_occupancy/ubench_occupancy.ptx" --json "$out/backend.json" >/dev/null
base=$(/usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
print(next(f["regs"] for m in d["modules"] for f in m["functions"] if f["name"] == "occ_fma"))' "$out/backend.json")
read -r reserved max_warps < <("$rfsim" config -c "$config" --json | /usr/bin/python3 -c 'import json,sys
c = json.load(sys.stdin); print(c["compiler"]["reserved_registers"], c["sm"]["max_warps"])')
IFS=, read -r -a regs_all <<<"$regs_list"
for regs in "${regs_all[@]}"; do
  [[ $regs =~ ^[0-9]+$ ]] || die "--regs takes register counts separated by commas, not '$regs_list'"
  pad=$((regs - base))
  ((pad >= 0)) || continue
  dir=$out/regs$regs
  [[ -f $dir/stats.json ]] && continue
  echo "regdem_f_occupancy: $regs registers (padding $pad)" >&2
  "$rfsim" run -q -c "$config" --workloads ubench_occupancy --timing $size \
    --set compiler.reserved_registers=$((pad + reserved)) \
    -o "$dir" --overwrite >/dev/null
done
/usr/bin/python3 - "$out" "$max_warps" <<'EOF'
import collections, json, pathlib, sys
out = pathlib.Path(sys.argv[1])
# Blocks of 64, 128 and 256 threads, in launch order (the driver's).
blocks = [64, 128, 256]
table = []
for d in sorted(out.glob("regs*"), key=lambda p: int(p.name[4:])):
    s = json.loads((d / "stats.json").read_text())
    for i, l in enumerate(s["workloads"]["ubench_occupancy"]["launches"]):
        table.append((blocks[i], l["regs_per_thread"], l["blocks_per_sm"], l["cycles"]))
max_warps = int(sys.argv[2])
# Every launch is the same number of whole waves: its work is proportional to
# its blocks per SM, so the time for the same work is cycles / blocks per SM.
full = {b: min(c / n for bb, r, n, c in table if bb == b and n * b // 32 == max_warps) for b in blocks}
lines = ["block,registers,blocks_per_sm,occupancy,cycles,f"]
by_occ = collections.defaultdict(list)
for b, r, n, c in table:
    occ = n * (b // 32) / max_warps
    f = c / n / full[b]
    lines.append(f"{b},{r},{n},{occ:.4f},{c},{f:.4f}")
    by_occ[round(occ, 4)].append(f)
(out / "points.csv").write_text("\n".join(lines) + "\n")
pts = sorted((o, sum(v) / len(v)) for o, v in by_occ.items())
text = ",".join(f"{o:g}:{f:.3f}" for o, f in pts)
(out / "f_table.txt").write_text(text + "\n")
print("\n".join(lines))
print(f"f_occupancy: {text}")
EOF
