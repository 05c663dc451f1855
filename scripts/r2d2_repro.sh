#!/usr/bin/env bash
# The R2D2 paper's comparisons (../shared/spec/repro.md 4.3; docs/r2d2.md) on
# the TITAN V configuration (configs/titanv.yaml, the paper's Table 1) with
# the R2D2 suite (workloads tagged `r2d2`), every run on the timing model
# through `rfsim compare`:
#   base       the original code (the reference of the instruction counts)
#   scalar     the original code on the paper's baseline GPU, which has a
#              scalar pipeline for operations on uniform operands
#              (mechanisms.r2d2.scalar_pipeline; the reference of the time
#              and energy figures)
#   r2d2       the transformed kernels (mechanism r2d2)
#   baselines  the original code, counting what ideal WP/TB/LN, DAC, DARSIE
#              and DARSIE+Scalar would execute (mechanisms.r2d2.mode=baselines)
#   dac, darsie, darsie_scalar  the original code on the machine that skips
#              what DAC, DARSIE or DARSIE+Scalar skip (those instructions free;
#              mechanisms.r2d2.mode, docs/r2d2.md)
#   fetch7     R2D2 with 7 more fetch cycles at each warp's start (section 5.4)
#   idcalc5    R2D2 with 5 more cycles of register ID calculation (section 5.4)
# Every timed variant runs with the scalar pipeline (the paper's baseline has
# it); --no-scalar-pipeline runs them all without it, against base.
# scripts/r2d2_figures.py then writes Fig. 4, 12, 13, 14-15 and 16 and the
# latency study beside the paper's numbers.
#
#   [RFSIM=path/to/rfsim] scripts/r2d2_repro.sh [-o OUT] [-w WORKLOADS] [-j JOBS] [--sms N] [--large]
#                                              [--no-scalar-pipeline]
#   --sms N: SMs of the GPU (default 80, Table 1; fewer puts more of the
#            small inputs' blocks on each SM)
#   RFSIM: run this rfsim binary (no set-up or build)
#
# Writes OUT/compare.json, compare.csv and report.html (docs/compare.md), and
# OUT/r2d2_figures.md with fig12.png and fig13.png (scripts/r2d2_figures.py),
# printed at the end.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=results/r2d2-repro-$(date +%Y%m%d-%H%M%S)
workloads=r2d2
sms=80
scalar=1
extra=()
while (($#)); do
  case $1 in
    -o|--out) out=$2; shift 2 ;;
    -w) workloads=$2; shift 2 ;;
    -j) extra+=(-j "$2"); shift 2 ;;
    --sms) sms=$2; shift 2 ;;
    --large) extra+=(--large); shift ;;
    --no-scalar-pipeline) scalar=0; shift ;;
    -h|--help) sed -n '2,31p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "r2d2_repro.sh: error: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done
if [[ -z ${RFSIM:-} ]]; then "$here/scripts/setup.sh"; fi
rfsim=${RFSIM:-${RFSIM_BUILD_DIR:-$here/build}/rfsim}
cd "$here"
m=mechanisms.r2d2
sp=""
scalar_variant=()
if ((scalar)); then
  sp=",$m.scalar_pipeline=true"
  scalar_variant=(--variant "scalar:+r2d2,$m.mode=baselines$sp")
fi
"$rfsim" compare -c titanv -w "$workloads" -o "$out" --set "gpu.num_sms=$sms" "${extra[@]}" \
  "${scalar_variant[@]}" \
  --variant "r2d2:+r2d2$sp" \
  --variant "baselines:+r2d2,$m.mode=baselines" \
  --variant "dac:+r2d2,$m.mode=dac$sp" \
  --variant "darsie:+r2d2,$m.mode=darsie$sp" \
  --variant "darsie_scalar:+r2d2,$m.mode=darsie_scalar" \
  --variant "fetch7:+r2d2,$m.fetch_cycles=7$sp" \
  --variant "idcalc5:+r2d2,$m.idcalc_cycles=5$sp"
/usr/bin/python3 "$here/scripts/r2d2_figures.py" "$out"
