#!/usr/bin/env bash
# The mechanisms that compose (docs/mechanisms.md "Composition"), each pair
# beside its two mechanisms alone and the baseline, through `rfsim compare`:
#   r2d2 + cars    the R2D2 suite on the TITAN V configuration
#   r2d2 + ltrf    the R2D2 suite on the Maxwell configuration (LTRF's)
#   regdem + cars  the RegDem suite on the GTX Titan X configuration (RegDem's)
#   regdem + ltrf  the RegDem suite on the Maxwell configuration
# Every run's CPU check; per pair the geometric-mean speedup over the
# baseline (end-to-end cycles) and warp instructions of each variant, and how
# many launches ran the combined code. Writes OUT/<pair>/ and
# OUT/composition.md, and prints the summary.
#
#   [RFSIM=path/to/rfsim] scripts/composition.sh [-o OUT] [-j JOBS] [--sms N] [--pairs LIST]
#   --sms N: SMs of every GPU (default 8); --pairs: e.g. r2d2+cars,regdem+ltrf
#   RFSIM: run this rfsim binary (no set-up or build)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=results/composition-$(date +%Y%m%d-%H%M%S)
sms=8
pairs=r2d2+cars,r2d2+ltrf,regdem+cars,regdem+ltrf
extra=()
while (($#)); do
  case $1 in
    -o|--out) out=$2; shift 2 ;;
    -j) extra+=(-j "$2"); shift 2 ;;
    --sms) sms=$2; shift 2 ;;
    --pairs) pairs=$2; shift 2 ;;
    -h|--help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "composition.sh: error: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done
if [[ -z ${RFSIM:-} ]]; then "$here/scripts/setup.sh"; fi
rfsim=${RFSIM:-${RFSIM_BUILD_DIR:-$here/build}/rfsim}
cd "$here"
mkdir -p "$out"
status=0  # a failed run fails the script, after every pair ran
IFS=, read -ra list <<<"$pairs"
for p in "${list[@]}"; do
  a=${p%+*} b=${p#*+}
  case $p in
    r2d2+cars) cfg=titanv suite=r2d2 ;;
    r2d2+ltrf) cfg=maxwell suite=r2d2 ;;
    regdem+cars) cfg=titanx suite=regdem ;;
    regdem+ltrf) cfg=maxwell suite=regdem ;;
    *) echo "composition.sh: error: no pair '$p' (r2d2+cars, r2d2+ltrf, regdem+cars, regdem+ltrf)" >&2; exit 2 ;;
  esac
  echo "== $p: the $suite suite on $cfg, $sms SMs"
  "$rfsim" compare -c "$cfg" -w "$suite" -o "$out/${a}_$b" --set "gpu.num_sms=$sms" "${extra[@]}" \
    --variant "$a:+$a" --variant "$b:+$b" --variant "${a}_$b:+$a,+$b" || status=1
done
/usr/bin/python3 - "$out" "$pairs" <<'PY'
import csv, json, math, pathlib, sys
out = pathlib.Path(sys.argv[1])
lines = [f"# Composed mechanisms ({out})", "",
         "| pair | configuration | workloads | all checks passed | launches on the combined code | "
         "speedup A / B / A+B (geomean) | warp instructions A / B / A+B vs base (geomean) |",
         "|---|---|---|---|---|---|---|"]
for p in sys.argv[2].split(","):
    a, b = p.split("+")
    d = out / f"{a}_{b}"
    rows = list(csv.DictReader(open(d / "compare.csv")))
    cfg = rows[0]["config"] if rows and "config" in rows[0] else ""
    names = sorted({r["workload"] for r in rows})
    ok = all(r["passed"] == "true" for r in rows)
    def gm(v, key):
        xs = [float(r[key]) for r in rows if r["variant"] == v and r.get(key) not in (None, "")]
        return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")
    base = {r["workload"]: float(r["warp_instrs"]) for r in rows if r["variant"] == "base"}
    def gi(v):
        xs = [float(r["warp_instrs"]) / base[r["workload"]] for r in rows if r["variant"] == v and base.get(r["workload"])]
        return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")
    both = f"{a}_{b}"
    combined = total = 0
    for f in sorted(d.glob(f"runs/*/{both}/*/stats.json")):
        for w in json.load(open(f))["workloads"].values():
            for l in w.get("launches", []):
                total += 1
                combined += l.get("variant") == f"{a}+{b}"
    lines.append(f"| {a} + {b} | {cfg} | {len(names)} | {'yes' if ok else 'NO'} | {combined} of {total} | "
                 f"{gm(a, 'speedup'):.3f} / {gm(b, 'speedup'):.3f} / {gm(both, 'speedup'):.3f} | "
                 f"{gi(a):.3f} / {gi(b):.3f} / {gi(both):.3f} |")
text = "\n".join(lines)
(out / "composition.md").write_text(text + "\n")
print(text)
PY
exit $status
