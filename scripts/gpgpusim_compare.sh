#!/usr/bin/env bash
# rfsim's speed against GPGPU-Sim's on the same CUDA applications, the same executables and
# V100-like configurations (rfsim `-c v100`, GPGPU-Sim's SM7_QV100), on this machine. Not a
# test: GPGPU-Sim is not part of the project. How GPGPU-Sim was built for CUDA 13, and the
# figures measured: docs/performance.md, "Against GPGPU-Sim"; scripts/gpgpusim/README.md.
#
# For each application, in turn (alternated): rfsim with the SMs on one thread, rfsim with
# `sim.parallel_sms` on RFSIM_THREADS threads, GPGPU-Sim; RFSIM_RUNS rounds, GPGPU-Sim in the
# first GPGPUSIM_RUNS of them. Every run under `nice -n ${NICE}` and GNU time. Prints one line
# per run (with the load average when it started and when it ended), then a table of rfsim's
# best run against GPGPU-Sim's: simulated cycles, warp instructions, wall and CPU (user +
# system) seconds, warp instructions per wall second, peak MiB, and the ratios: rfsim's rate
# over GPGPU-Sim's, GPGPU-Sim's wall seconds over rfsim's, and the same for CPU seconds (on a
# loaded machine the CPU time varies less than the wall time; with threads it adds theirs up).
#
# Usage: GPGPUSIM_ROOT=/path/to/gpgpu-sim_distribution [RODINIA_DIR=/path/to/gpu-rodinia] \
#          scripts/gpgpusim_compare.sh [saxpy] [sgemm] [hotspot] [pathfinder]
# Environment:
#   GPGPUSIM_ROOT  a GPGPU-Sim tree built by scripts/gpgpusim/build_gpgpusim.sh; required
#   GPGPUSIM_CUDA  the CUDA_INSTALL_PATH GPGPU-Sim runs with (default: made under WORK by
#                  scripts/gpgpusim/cuda_overlay.sh over CUDA_DIR)
#   CUDA_DIR       the CUDA 13 install (default /usr/local/cuda): nvcc builds the applications
#   RODINIA_DIR    a Rodinia checkout (cuda/hotspot, cuda/pathfinder); needed for those two
#   WORK           applications, inputs and run folders (default /tmp/gpgpusim-compare)
#   RFSIM_RUNS     rounds of rfsim runs, the best kept (default 2)
#   GPGPUSIM_RUNS  GPGPU-Sim runs, the first rounds (default 1)
#   RFSIM_THREADS  threads of the parallel-SM runs (default 2; 0: no such runs)
#   NICE           niceness of every run (default 19)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
rfsim=${RFSIM_BUILD_DIR:-$here/build}/rfsim
: "${GPGPUSIM_ROOT:?set GPGPUSIM_ROOT to a built GPGPU-Sim tree}"
cuda=${CUDA_DIR:-/usr/local/cuda}
work=${WORK:-/tmp/gpgpusim-compare}
rfsim_runs=${RFSIM_RUNS:-2}
gsim_runs=${GPGPUSIM_RUNS:-1}
threads=${RFSIM_THREADS:-2}
nice=${NICE:-19}
apps=("$@")
((${#apps[@]})) || apps=(saxpy sgemm hotspot pathfinder)
[[ -x $rfsim ]] || { echo "gpgpusim_compare: $rfsim not built (/work/wt/build.sh rfsim rfsim_cudart)" >&2; exit 1; }
# shellcheck disable=SC2012
gsim_lib=$(ls -d "$GPGPUSIM_ROOT"/lib/*/*/release | head -1)
[[ -f $gsim_lib/libcudart.so ]] || { echo "gpgpusim_compare: no libcudart.so in $gsim_lib" >&2; exit 1; }
# An application built by nvcc 13 asks for libcudart.so.13.
[[ -e $gsim_lib/libcudart.so.13 ]] || ln -s libcudart.so "$gsim_lib/libcudart.so.13"
gsim_cfg=$GPGPUSIM_ROOT/configs/tested-cfgs/SM7_QV100
mkdir -p "$work/apps" "$work/runs"
gsim_cuda=${GPGPUSIM_CUDA:-$work/cuda}
[[ -n ${GPGPUSIM_CUDA:-} ]] || "$here/scripts/gpgpusim/cuda_overlay.sh" "$gsim_cuda" "$cuda" >/dev/null

# The applications: nvcc 13, the shared CUDA runtime (so that either simulator's library
# loads), PTX for compute_75 (CUDA 13's oldest) and no SASS, the fatbin uncompressed
# (GPGPU-Sim reads the PTX as text), and the launch sequence of CUDA 12 and older
# (cudaLaunchKernel, which GPGPU-Sim implements, instead of __cudaGetKernel and
# __cudaLaunchKernel, which it does not). rfsim runs either.
# shellcheck disable=SC2054
nvcc_flags=(-O2 -cudart shared --no-compress -legacy-launch-seq -gencode arch=compute_75,code=compute_75)
build_app() { # name source
  [[ -x $work/apps/$1 && $work/apps/$1 -nt $2 ]] && return
  nice -n "$nice" "$cuda/bin/nvcc" "${nvcc_flags[@]}" -o "$work/apps/$1" "$2"
}
declare -A cmd
for a in "${apps[@]}"; do
  case $a in
    saxpy) build_app saxpy_app "$here/scripts/gpgpusim/saxpy_app.cu"; cmd[$a]="$work/apps/saxpy_app 1048576" ;;
    sgemm) build_app sgemm_app "$here/scripts/gpgpusim/sgemm_app.cu"; cmd[$a]="$work/apps/sgemm_app 256" ;;
    hotspot)
      : "${RODINIA_DIR:?set RODINIA_DIR for hotspot}"
      build_app hotspot "$RODINIA_DIR/cuda/hotspot/hotspot.cu"
      [[ -f $work/apps/temp_512 ]] ||
        python3 "$here/scripts/gpgpusim/hotspot_input.py" 512 "$work/apps/temp_512" "$work/apps/power_512"
      cmd[$a]="$work/apps/hotspot 512 2 2 $work/apps/temp_512 $work/apps/power_512 output.out" ;;
    pathfinder)
      : "${RODINIA_DIR:?set RODINIA_DIR for pathfinder}"
      build_app pathfinder "$RODINIA_DIR/cuda/pathfinder/pathfinder.cu"
      cmd[$a]="$work/apps/pathfinder 100000 100 20" ;;
    *) echo "gpgpusim_compare: unknown application $a (saxpy sgemm hotspot pathfinder)" >&2; exit 2 ;;
  esac
done

# GNU time's last line, "wall KiB user system", as "wall KiB cpu".
times_of() { tail -1 "$1" | awk '{ printf "%s %s %.2f", $1, $2, $3 + $4 }'; }

# One run: prints "app sim round load cycles warp_instrs seconds peak_KiB cpu_seconds status".
run_rfsim() { # app sim round [--set ...]
  local a=$1 sim=$2 r=$3 dir=$work/runs/$1-$2-$3
  shift 3
  rm -rf "$dir" "$dir.out" && mkdir -p "$dir"
  local load st=0
  load=$(cut -d' ' -f1 /proc/loadavg)
  # shellcheck disable=SC2086  # the application's command line
  (cd "$dir" && nice -n "$nice" /usr/bin/time -f '%e %M %U %S' -o time.txt "$rfsim" exec -q --timing -c v100 --sample off "$@" \
    --name "$a" -o "$dir.out" -- ${cmd[$a]} >app.log 2>&1) || st=$?
  local cyc wi
  read -r cyc wi < <(jq -r --arg a "$a" '.workloads[$a].summary | "\(.cycles.value) \(.warp_instrs.value)"' \
    "$dir.out/stats.json" 2>/dev/null || echo "- -")
  echo "$a $sim $r $load/$(cut -d' ' -f1 /proc/loadavg) $cyc $wi $(times_of "$dir/time.txt") $st"
}
run_gsim() { # app round
  local a=$1 r=$2 dir=$work/runs/$1-gpgpusim-$2
  rm -rf "$dir" && mkdir -p "$dir"
  cp "$gsim_cfg"/* "$dir/"
  # SM7_QV100 takes PTX for compute capability 7.0 at most; CUDA 13 writes 7.5 at least. The
  # option only chooses which PTX of the fatbin to load (ptxas then runs for that PTX's sm).
  sed -i 's/^-gpgpu_ptx_force_max_capability 70/-gpgpu_ptx_force_max_capability 75/' "$dir/gpgpusim.config"
  local load st=0
  load=$(cut -d' ' -f1 /proc/loadavg)
  # setup_environment sets what the library reads at run time (LD_LIBRARY_PATH, and
  # CUOBJDUMP_SIM_FILE and PTX_SIM_* for CUDA 6 and newer).
  # shellcheck disable=SC2016,SC2086  # the inner script's own variables; the command line
  (cd "$dir" && CUDA_INSTALL_PATH=$gsim_cuda bash -c 'source "$0/setup_environment" release >/dev/null || exit 1
    exec "$@"' "$GPGPUSIM_ROOT" nice -n "$nice" /usr/bin/time -f '%e %M %U %S' -o time.txt ${cmd[$a]} >gpgpusim.log 2>&1) || st=$?
  # The totals GPGPU-Sim prints after its last kernel: cycles, warp instructions (its own
  # count of issued warp instructions, PTX).
  local cyc wi
  cyc=$(grep -o 'gpu_tot_sim_cycle = [0-9]*' "$dir/gpgpusim.log" | tail -1 | grep -o '[0-9]*$' || echo -)
  wi=$(grep -o 'gpgpu_n_tot_w_icount = [0-9]*' "$dir/gpgpusim.log" | tail -1 | grep -o '[0-9]*$' || echo -)
  echo "$a gpgpusim $r $load/$(cut -d' ' -f1 /proc/loadavg) ${cyc:--} ${wi:--} $(times_of "$dir/time.txt") $st"
}

machine="$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) cores"
echo "machine: $machine; $(date -u '+%F %H:%M UTC'); rfsim $(git -C "$here" rev-parse --short HEAD)," \
  "GPGPU-Sim $(git -C "$GPGPUSIM_ROOT" rev-parse --short HEAD 2>/dev/null || echo '?'); nice $nice"
log=$work/runs.txt
: >"$log"
printf '%-10s %-12s %5s %11s %12s %12s %9s %10s %9s %6s\n' app simulator round load cycles warp_instrs seconds peak_KiB cpu_s status
rounds=$((rfsim_runs > gsim_runs ? rfsim_runs : gsim_runs))
for a in "${apps[@]}"; do
  for ((r = 1; r <= rounds; r++)); do
    lines=()
    if ((r <= rfsim_runs)); then
      lines+=("$(run_rfsim "$a" rfsim "$r")")
      ((threads > 0)) && lines+=("$(run_rfsim "$a" "rfsim-${threads}t" "$r" --set sim.parallel_sms=true --threads "$threads")")
    fi
    ((r <= gsim_runs)) && lines+=("$(run_gsim "$a" "$r")")
    for l in "${lines[@]}"; do
      echo "$l" >>"$log"
      # shellcheck disable=SC2086
      printf '%-10s %-12s %5s %11s %12s %12s %9s %10s %9s %6s\n' $l
    done
  done
done

echo
echo "best run of each (fewest wall seconds); ratios against GPGPU-Sim: x_rate = rfsim's warp instr/s" \
  "over GPGPU-Sim's, x_time = GPGPU-Sim's wall seconds over rfsim's, x_cpu = the same for CPU seconds"
awk '
  $10 == 0 && $5 != "-" {
    k = $1 " " $2
    if (!(k in best) || $7 < sec[k]) { best[k] = 1; cyc[k] = $5; wi[k] = $6; sec[k] = $7; kb[k] = $8; cpu[k] = $9 }
    if (!($1 in seen)) { seen[$1] = 1; order[++n] = $1 }
    sims[$1] = sims[$1] " " $2
  }
  END {
    printf "%-10s %-12s %10s %11s %8s %8s %12s %8s %7s %7s %7s\n", "app", "simulator", "cycles", "warp_instrs", "seconds",
      "cpu_s", "warp_instr/s", "peak_MiB", "x_rate", "x_time", "x_cpu"
    for (i = 1; i <= n; i++) {
      a = order[i]; g = a " gpgpusim"
      split(sims[a], s, " "); delete done
      for (j = 1; j in s; j++) {
        k = a " " s[j]
        if (k in done) continue
        done[k] = 1
        rate = sec[k] > 0 ? wi[k] / sec[k] : 0
        xr = "-"; xt = "-"; xc = "-"
        if ((g in best) && s[j] != "gpgpusim" && sec[g] > 0 && wi[g] > 0) {
          xr = sprintf("%.1f", rate / (wi[g] / sec[g])); xt = sprintf("%.1f", sec[g] / sec[k])
          if (cpu[k] > 0) xc = sprintf("%.1f", cpu[g] / cpu[k])
        }
        printf "%-10s %-12s %10d %11d %8.2f %8.2f %12.0f %8.1f %7s %7s %7s\n", a, s[j], cyc[k], wi[k], sec[k], cpu[k], rate,
          kb[k] / 1024, xr, xt, xc
      }
    }
  }' "$log"
echo "(runs: $log; folders: $work/runs)"
