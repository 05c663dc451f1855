#!/usr/bin/env bash
# The R2D2 paper's Table 3 (section 5.8.1; ../shared/spec/repro.md 4.3):
# backprop's instruction reduction and speedup over the blocks per grid, on
# the TITAN V configuration (configs/titanv.yaml), through `rfsim compare`
# with the workloads tagged `r2d2-table3` (r2_bp04 ... r2_bp64: r2_backprop
# at 4096 to 65536 input units, grids of 256 to 4096 blocks; docs/workloads.md
# says how the paper's BP_N is read). Prints the table beside the paper's and
# writes it to OUT/r2d2_table3.md.
#
#   [RFSIM=path/to/rfsim] scripts/r2d2_table3.sh [-o OUT] [-j JOBS] [--sms N]
#   --sms N: SMs of the GPU (default 80, Table 1)
#   RFSIM: run this rfsim binary (no set-up or build)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=results/r2d2-table3-$(date +%Y%m%d-%H%M%S)
sms=80
extra=()
while (($#)); do
  case $1 in
    -o|--out) out=$2; shift 2 ;;
    -j) extra+=(-j "$2"); shift 2 ;;
    --sms) sms=$2; shift 2 ;;
    -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "r2d2_table3.sh: error: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done
if [[ -z ${RFSIM:-} ]]; then "$here/scripts/setup.sh"; fi
rfsim=${RFSIM:-${RFSIM_BUILD_DIR:-$here/build}/rfsim}
cd "$here"
"$rfsim" compare -c titanv -w r2d2-table3 -o "$out" --set "gpu.num_sms=$sms" "${extra[@]}" --variant "r2d2:+r2d2"
/usr/bin/python3 - "$out" <<'PY'
import csv, pathlib, sys
out = pathlib.Path(sys.argv[1])
paper = {"r2_bp04": (38.3, 1.35), "r2_bp08": (38.8, 1.35), "r2_bp16": (39.2, 1.36), "r2_bp32": (39.6, 1.36),
         "r2_bp64": (39.7, 1.36)}
rows = {}
for r in csv.DictReader(open(out / "compare.csv")):
    rows.setdefault(r["workload"], {})[r["variant"]] = r
lines = [f"# R2D2 Table 3: backprop over the blocks per grid ({out})", "",
         "| workload | input units | blocks | warp instructions base | R2D2 | reduction | paper | speedup | paper |",
         "|---|---|---|---|---|---|---|---|---|"]
for w in sorted(rows, key=lambda w: int(w[5:])):
    b, r = rows[w].get("base"), rows[w].get("r2d2")
    if not b or not r or b["passed"] != "true" or r["passed"] != "true":
        lines.append(f"| {w} | | | failed | | | | | |")
        continue
    n = int(w[5:]) * 1024
    bi, ri = float(b["warp_instrs"]), float(r["warp_instrs"])
    pr, ps = paper[w]
    lines.append(f"| {w} | {n} | {n // 16} | {bi:.0f} | {ri:.0f} | {100 * (1 - ri / bi):.1f} % | {pr} % | "
                 f"{float(r['speedup']):.3f} | {ps} |")
text = "\n".join(lines)
(out / "r2d2_table3.md").write_text(text + "\n")
print(text)
PY
