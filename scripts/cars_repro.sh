#!/usr/bin/env bash
# The CARS paper's comparison: experiments/cars.yaml through rfsim compare, then its figures.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

usage() {
  cat <<'TXT'
Usage: scripts/cars_repro.sh [--quick] [--sms N] [--no-ports] [--swl LIMITS] [-o OUT] [-w WORKLOADS] [-j JOBS]
                             [--large] [--no-large80] [--fig8-80] [--full2] [other rfsim compare options]

Reproduces the CARS paper's comparison (docs/cars-repro.md) as experiments/cars.yaml
describes it, on the function-calling suite (the workloads tagged `calls`): the V100
baseline, Idealized Virtual Warps, 10 MB L1, static warp limits 1/2/3/4/8/16 (Best-SWL
is the best per workload), ALL-HIT, CARS (reference rename unit), the fully inlined
code (the paper's LTO baseline) and the L1D with 2/4/8 ports for the baseline and CARS;
then scripts/cars_figures.py writes the figures into OUT/figures/.

  --quick        a few workloads (fib, gol, sssp, traffic), the small inputs, the warp
                 limits 8 and 16, no L1D-port variants: the same figures and tables, in
                 about a minute (options after it still apply)
  --sms N        SMs of the V100 for OUT/small and OUT/large (default 8: on 80 our small
                 inputs put 1 to 4 warps on each SM, where nothing CARS changes binds; on
                 8, 10 to 40); OUT/large80 keeps 80
  --no-ports     without the six L1D-port variants of Fig. 17 (--skip ports)
  --swl LIMITS   the static warp limits Best-SWL chooses from (default 1,2,3,4,8,16, the
                 paper's; at the large inputs the limits 1 to 3 run 1.7 to 7.8 times the
                 baseline's cycles on cfd and deep_calls, and take as much longer to run)
  --large        one comparison, every variant at the large inputs (108 runs without the
                 warp limits 1 to 3: about an hour on 2 cores)
  --no-large80   leave OUT/large80 out
  --fig8-80      OUT/large80 with every variant of Fig. 8 (IVW, 10 MB L1, the warp limits
                 4, 8 and 16 or --swl's, ALL-HIT, CARS, the inlined code; no L1D ports):
                 108 runs, about 25 minutes on 2 cores instead of 11 (the warp limits 1
                 to 3 take hours there; --swl 1,2,3,4,8,16 asks for them)
  --full2        also OUT/full2: the baseline, 10 MB L1, ALL-HIT and CARS at the large
                 inputs on 2 SMs, where the large inputs keep every SM full, as the
                 paper's applications keep the GPU's (48 runs, 42 minutes with one job on
                 2026-12-03; docs/cars-repro.md, "Measured: large inputs on 2 SMs")

By default it runs what docs/cars-repro.md quotes, as three comparisons in OUT:
  OUT/small      every variant at the small inputs on 8 SMs (216 runs)
  OUT/large      the baseline and CARS at the large inputs on 8 SMs (24 runs): Fig. 8,
                 Fig. 9 and Table III
  OUT/large80    the same on the paper's V100 with its 80 SMs (24 runs, in full; about
                 11 minutes on 2 cores): the memory system shared by as many SMs as on
                 the chip
each with its figures in figures/. With --quick or --large, one comparison in OUT.
It exits 1 if a run failed (the figures list it).
  defaults: OUT = results/cars-repro-<date>-<time>, WORKLOADS = calls. A second run
  into the same OUT resumes (finished runs are kept; use a new OUT after changing --sms).
  RFSIM=path/to/rfsim: that binary, no set-up or build.
TXT
}

args=()
swl=""
swl_args=()  # the warp limits' variants, for the comparison that has them
one=0   # one comparison with the options given, instead of the three docs/cars-repro.md quotes
large80=1
fig8_80=0   # --fig8-80: every Fig. 8 variant in OUT/large80
full2=0     # --full2: OUT/full2, every SM full
smsargs=()  # --sms: the SMs of OUT/small and OUT/large (OUT/large80 keeps the paper's 80)
out=""
while (($#)); do
  case $1 in
    --quick) one=1; args+=(-w fib,gol,sssp,traffic --skip ports); swl=8,16; shift ;;
    --large) one=1; args+=(--large); shift ;;
    -o | --out) need_value "$@"; out=$2; shift 2 ;;
    --sms) need_value "$@"; smsargs=(--set "gpu.num_sms=$2"); shift 2 ;;
    --no-ports) args+=(--skip ports); shift ;;
    --no-large80) large80=0; shift ;;
    --fig8-80) fig8_80=1; shift ;;
    --full2) full2=1; shift ;;
    --swl) need_value "$@"; swl=$2; shift 2 ;;
    -h | --help) usage; exit 0 ;;
    *) args+=("$1"); shift ;;
  esac
done
if [[ -n $swl ]]; then
  IFS=, read -r -a limits <<<"$swl"
  for n in "${limits[@]}"; do
    [[ $n =~ ^[0-9]+$ ]] || die "--swl takes warp limits separated by commas, not '$swl'"
  done
  # The limits experiments/cars.yaml has (group swl) that are not wanted, and
  # those wanted that it lacks.
  for n in 1 2 3 4 8 16; do [[ ",$swl," == *",$n,"* ]] || swl_args+=(--skip "swl$n"); done
  for n in "${limits[@]}"; do [[ " 1 2 3 4 8 16 " == *" $n "* ]] || swl_args+=(--variant "swl$n:sm.warp_limit=$n"); done
fi
use_rfsim
cd "$here"
if ((one)); then
  "$rfsim" compare --experiment experiments/cars.yaml ${out:+-o "$out"} "${args[@]}" "${smsargs[@]}" "${swl_args[@]}" ||
    { echo "$script: some runs failed; the figures list them" >&2; exit 1; }
  exit 0
fi
[[ -n $out ]] || out=results/cars-repro-$(date +%Y%m%d-%H%M%S)
mkdir -p "$out"
st=0
"$rfsim" compare --experiment experiments/cars.yaml -o "$out/small" "${args[@]}" "${smsargs[@]}" "${swl_args[@]}" || st=1
"$rfsim" compare --experiment experiments/cars.yaml --large --skip ivw 10MB-L1 swl all-hit inlined ports \
  -o "$out/large" "${args[@]}" "${smsargs[@]}" || st=1
if ((large80)); then
  # The paper's scale: Table 1's 80 SMs at the large inputs, in full.
  if ((fig8_80)); then
    # Every variant of Fig. 8; the warp limits 4, 8 and 16 unless --swl chose.
    l80=(--skip ports)
    if [[ -n $swl ]]; then l80+=("${swl_args[@]}"); else l80+=(--skip swl1 swl2 swl3); fi
  else
    l80=(--skip ivw 10MB-L1 swl all-hit inlined ports)
  fi
  "$rfsim" compare --experiment experiments/cars.yaml --large "${l80[@]}" \
    -o "$out/large80" --set gpu.num_sms=80 "${args[@]}" || st=1
  echo "$script: $out/small, $out/large and $out/large80 (figures/figures.md in each)"
else
  echo "$script: $out/small and $out/large (figures/figures.md in each)"
fi
if ((full2)); then
  # Every SM full: the large inputs on 2 SMs (the per-SM picture of inputs that fill the
  # GPU, with the whole V100's L2 and DRAM behind the two).
  "$rfsim" compare --experiment experiments/cars.yaml --large --skip ivw swl inlined ports \
    -o "$out/full2" --set gpu.num_sms=2 "${args[@]}" || st=1
  echo "$script: and $out/full2 (figures/figures.md)"
fi
((st == 0)) || { echo "$script: some runs failed; the figures list them" >&2; exit 1; }
