#!/usr/bin/env bash
# One CUDA test program (tests/cudart/apps) built by nvcc and run by
# `rfsim exec` on the model, with what the case expects checked.
#   run_app.sh CASE BUILD_DIR
# Exits 77 (ctest: skipped) with a message where nvcc does not exist.
set -uo pipefail
case_name=$1
build=$(cd "$2" && pwd)
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
nvcc=${NVCC:-$(command -v nvcc || true)}
[[ -z $nvcc && -x /usr/local/cuda/bin/nvcc ]] && nvcc=/usr/local/cuda/bin/nvcc
if [[ -z $nvcc ]]; then
  echo "SKIPPED: nvcc not found (CUDA 13); the CUDA test programs need it to be built"
  exit 77
fi
work=$build/cudart-tests/$case_name
rm -rf "$work"
mkdir -p "$work"
cd "$work"
rfsim=$build/rfsim
ptx=(-gencode arch=compute_75,code=compute_75)

fail() { echo "FAIL ($case_name): $*"; exit 1; }
compile() {  # output, nvcc arguments...
  local out=$1
  shift
  "$nvcc" "$@" -o "$out" || fail "nvcc $*"
}
# run EXPECTED_STATUS rfsim-exec-options... -- app args...: stdout+stderr in log
run() {
  local want=$1
  shift
  "$rfsim" exec "$@" > log 2>&1
  local got=$?
  cat log
  [[ $got == "$want" ]] || fail "rfsim exec exited with $got, expected $want"
}
expect() { grep -q -- "$1" log || fail "the output lacks '$1'"; }
stat_of() {  # a jq path into stats.json
  jq -r "$1" out/stats.json
}

case $case_name in
  args)
    compile app -cudart shared "${ptx[@]}" "$here/apps/args.cu"
    run 0 -q -o out -- ./app 80
    expect "args: all checks passed"
    expect "device printf: i=5 f=1.25 d=0.500"
    expect "cudaGraphCreate is not implemented"
    [[ $(stat_of '.workloads.app.summary.launches.value') == 1 ]] || fail "one launch expected in stats.json"
    ;;
  args-lz4 | args-plain)
    mode=--compress-mode=speed
    timing=()
    # The plain one on the timing model: one launch, then the results at exit.
    [[ $case_name == args-plain ]] && mode=--no-compress && timing=(--timing)
    compile app -cudart shared "${ptx[@]}" $mode "$here/apps/args.cu"
    run 0 -q "${timing[@]}" --set gpu.num_sms=4 -o out -- ./app 4
    expect "args: all checks passed"
    expect "device printf: i=5"
    [[ -f out/manifest.json ]] || fail "no manifest.json"
    ;;
  symbols)
    compile app -cudart shared "${ptx[@]}" "$here/apps/symbols.cu"
    run 0 -o out -- ./app
    expect "symbols: all checks passed"
    expect "rfsim: 1 kernel _Z3usePfPi<<<(1,1,1), (32,1,1)>>>"
    ;;
  noparams)
    compile app -cudart shared "${ptx[@]}" "$here/apps/noparams.cu"
    run 0 -q -o out -- ./app
    expect "noparams: all checks passed (total 2080)"
    [[ $(stat_of '.workloads.app.summary.launches.value') == 2 ]] || fail "two launches expected in stats.json"
    ;;
  shared-per-kernel)
    compile app -cudart shared "${ptx[@]}" "$here/apps/shared_per_kernel.cu"
    run 0 -q -o out -- ./app
    expect "shared_per_kernel: all checks passed"
    ;;
  carveout)
    compile app -cudart shared "${ptx[@]}" "$here/apps/carveout.cu"
    run 0 -q --timing --set gpu.num_sms=2 -o out -- ./app
    expect "carveout: all checks passed"
    # The driver's choice per launch (docs/memory.md): none, then MaxShared;
    # 2 x 40 KB, then MaxL1 (one block: 64 KB); 64 KB of dynamic memory.
    got=$(jq -c '[.workloads.app.launches[].carveout | [.shared_kb, .l1d_kb]]' out/stats.json)
    [[ $got == '[[0,128],[96,32],[96,32],[64,64],[64,64]]' ]] || fail "carve-outs $got"
    ;;
  thrust)
    compile app -cudart shared "${ptx[@]}" -I"$here/apps" "$here/apps/thrust_algos.cu"
    run 0 -o out -- ./app
    expect "thrust_algos: all checks passed"
    expect "the device reports compute capability 7.5, the lowest the application's PTX targets"
    rm -rf out
    run 0 -q --timing --set gpu.num_sms=4 -o out -- ./app
    expect "thrust_algos: all checks passed"
    [[ $(stat_of '.workloads.app.total.gpu.cycles.value') -gt 0 ]] || fail "no cycles in stats.json"
    ;;
  cub | cub-histogram-float)
    # thrust's and CUB's algorithms in one module (cub: all but the float
    # histogram, which gets a module of its own), run functionally and on a
    # 4-SM timing model; the CUB kernel that does each one's work must have run.
    declare -A kernel=([select]=DeviceSelectSweepKernel [histogram]=DeviceHistogramSweepKernel
      [segreduce]=DeviceSegmentedReduceKernel [reduce]=DeviceReduceKernel [foreach]=for_each13static_kernel)
    algos=(select histogram segreduce reduce foreach)
    what=all macro=()
    [[ $case_name == cub-histogram-float ]] && algos=(histogram) what=histogram-float macro=(-DALGO_HISTOGRAM_FLOAT)
    compile app -cudart shared "${ptx[@]}" "${macro[@]}" -I"$here/apps" "$here/apps/cub_algos.cu"
    for mode in functional timing; do
      rm -rf out
      timing=()
      [[ $mode == timing ]] && timing=(--timing --set gpu.num_sms=4)
      run 0 -q "${timing[@]}" -o out -- ./app "$what"
      expect "cub_algos $what: all checks passed"
      for algo in "${algos[@]}"; do
        ran=$(stat_of "[.workloads.app.launches[].kernel | select(test(\"${kernel[$algo]}\"))] | length")
        [[ $ran -gt 0 ]] || fail "$mode: no launch of ${kernel[$algo]} ($algo)"
      done
    done
    [[ $(stat_of '.workloads.app.total.gpu.cycles.value') -gt 0 ]] || fail "no cycles in stats.json"
    ;;
  mempool)
    compile app -cudart shared "${ptx[@]}" "$here/apps/mempool.cu"
    run 0 -q -o out -- ./app
    expect "mempool: all checks passed"
    expect "cudaFreeAsync: cudaErrorInvalidValue (1): 0x[0-9a-f]* is not the start of a live"
    expect "the default memory pool cannot be destroyed"
    ;;
  mapped)
    compile app -cudart shared "${ptx[@]}" "$here/apps/mapped.cu"
    run 0 -q -o out -- ./app
    expect "mapped: all checks passed"
    expect "cudaHostUnregister: cudaErrorHostMemoryNotRegistered (713)"
    # On the timing model the kernels' accesses cross the host link, not the
    # L2: fill writes 1024 ints (32 lines); scale reads 1024 floats from a
    # page (32 lines) and writes as many 32 bytes past a page (each warp's
    # 128 bytes straddle two lines: 64), and 20 warps add to the counter
    # atomically.
    rm -rf out
    run 0 -q --timing --set gpu.num_sms=2 -o out -- ./app
    expect "mapped: all checks passed"
    host() { stat_of ".workloads.app.launches[$1].gpu.mem.host.$2.value"; }
    got="$(host 0 writes) $(host 0 write_bytes) $(host 0 reads) $(stat_of '.workloads.app.launches[0].gpu.mem.l2.accesses.value')"
    [[ $got == "32 4096 0 0" ]] || fail "fill: host writes, bytes, reads, L2 accesses $got"
    got="$(host 1 reads) $(host 1 writes) $(host 1 atomics)"
    [[ $got == "32 64 20" ]] || fail "scale: host reads, writes, atomics $got"
    ;;
  unsupported)
    compile app -cudart shared "${ptx[@]}" "$here/apps/unsupported.cu"
    run 0 -q -o out -- ./app
    expect "unsupported: all checks passed"
    expect "cudaGraphCreate is not implemented by the model's CUDA runtime (CUDA graphs and stream capture are not modelled); called from main+0x[0-9a-f]* (\./app+0x[0-9a-f]*); it returns cudaErrorNotSupported"
    expect "cudaIpcGetMemHandle is not implemented .*(interprocess communication is not modelled); called from main+"
    expect "cudaCreateTextureObject is not implemented .*read the array through a pointer"
    # The file offset is the call's return address: addr2line puts it in main.
    if command -v addr2line > /dev/null; then
      off=$(grep -o "cudaGraphCreate.*(\./app+0x[0-9a-f]*)" log | grep -o "0x[0-9a-f]*)$" | tr -d ')')
      [[ $(addr2line -f -e app "$off" | head -1) == main ]] || fail "addr2line does not put $off in main"
    fi
    ;;
  per-thread)
    compile app -cudart shared --default-stream per-thread "${ptx[@]}" "$here/apps/per_thread.cu"
    nm -D app | grep -q "cudaMemcpy2D_ptds" || fail "nvcc did not call the per-thread forms"
    run 0 -q -o out -- ./app
    expect "per_thread: all checks passed"
    grep -q "is not implemented" log && fail "a call was not implemented"
    ;;
  events)
    compile app -cudart shared "${ptx[@]}" "$here/apps/events.cu"
    run 0 -q -o out -- ./app functional
    expect "events: all checks passed"
    ;;
  events-timing)
    compile app -cudart shared "${ptx[@]}" "$here/apps/events.cu"
    run 0 --timing --set gpu.num_sms=2 -o out -- ./app timing
    expect "events: all checks passed"
    expect "cycles, IPC"
    [[ $(stat_of '.workloads.app.total.gpu.cycles.value') -gt 0 ]] || fail "no cycles in stats.json"
    [[ -f out/hierarchy.json ]] || fail "no hierarchy.json"
    ;;
  fault)
    compile app -cudart shared "${ptx[@]}" "$here/apps/fault.cu"
    # The application handles the error and exits 0; rfsim exec says a kernel failed.
    run 1 -q -o out -- ./app
    expect "cudaDeviceSynchronize returned cudaErrorIllegalAddress"
    expect "kernel _Z4wildPi<<<(1,1,1), (32,1,1)>>>"
    expect "out of bounds at"
    [[ $(stat_of '.workloads.app.passed') == false ]] || fail "stats.json says the run passed"
    ;;
  spin | spin-timing)
    # A kernel that never ends: stopped, in functional and timing runs, with
    # its warps and PCs, by the livelock proof with the default
    # configuration (the whole V100); the folder stays .partial with the reason.
    compile app -cudart shared "${ptx[@]}" "$here/apps/spin.cu"
    timing=()
    [[ $case_name == spin-timing ]] && timing=(--timing)
    run 1 -q "${timing[@]}" -o out -- ./app
    expect "spin: cudaDeviceSynchronize returned cudaErrorLaunchTimeout"
    expect "kernel _Z4spinPVi.*stopped as a runaway kernel"
    expect "livelock"
    expect "proven"
    expect "warp 1: .*pc [0-9]* (line [0-9]*)"
    expect "results left incomplete"
    [[ -f out.partial/INCOMPLETE ]] || fail "no out.partial/INCOMPLETE"
    grep -q "stopped as a runaway kernel" out.partial/INCOMPLETE || fail "INCOMPLETE does not give the reason"
    [[ -e out/manifest.json ]] && fail "the stopped run has a manifest"
    # The cap on instructions, from the command line.
    rm -rf out.partial
    run 1 -q "${timing[@]}" --max-instructions 20000 -o out -- ./app
    expect "sim.max_instructions (20000"
    ;;
  exit-midway)
    compile app -cudart shared "${ptx[@]}" "$here/apps/exit_midway.cu"
    run 3 -q -o out -- ./app
    [[ -f out/manifest.json ]] || fail "no manifest.json: the results are not whole"
    [[ $(stat_of '.workloads.app.summary.launches.value') == 1 ]] || fail "one launch expected"
    # A second run into the same folder that makes no CUDA call writes nothing:
    # the first run's results stay, and are not reported as the second's.
    cp out/manifest.json first-manifest.json
    run 4 -q --overwrite -o out -- ./app early
    expect "without writing its results"
    grep -q "kernel launches" log && fail "the first run's results were reported as the second's"
    cmp -s out/manifest.json first-manifest.json || fail "the first run's results changed"
    ;;
  rdc)
    compile app -cudart shared -rdc=true "${ptx[@]}" "$here/apps/rdc_main.cu" "$here/apps/rdc_lib.cu"
    run 0 -q -o out -- ./app
    expect "rdc: all checks passed"
    [[ $(stat_of '.run.ptx | length') == 2 ]] || fail "two PTX modules expected (the device runtime left out)"
    ;;
  static-runtime)
    compile app "${ptx[@]}" "$here/apps/exit_midway.cu"  # nvcc's default: the static CUDA runtime
    run 1 -q -o out -- ./app
    expect "rebuild it with nvcc -cudart shared"
    ;;
  not-cuda)
    # A program without CUDA is not blamed on the static runtime.
    run 1 -q -o out -- /bin/true
    expect "does not link libcudart.so.13 dynamically and holds no CUDA runtime of its own"
    grep -q "static CUDA runtime" log && fail "blames the static runtime"
    ;;
  missing-app)
    # A program that does not exist: the cause itself, not a guess.
    run 1 -q -o out -- ./no-such-app
    expect "./no-such-app: No such file or directory"
    grep -q "CUDA call" log && fail "guesses at CUDA calls"
    ;;
  sass-only)
    compile app -cudart shared -gencode arch=compute_75,code=sm_75 "$here/apps/exit_midway.cu"
    run 1 -q -o out -- ./app
    expect "holds only SASS (sm_75"
    expect "gencode arch=compute_75,code=compute_75"
    ;;
  bad-ptx)
    compile app -cudart shared "${ptx[@]}" "$here/apps/bad_ptx.cu"
    run 1 -q -o out -- ./app
    expect "bad_ptx: cudaMalloc returned cudaErrorInvalidPtx"
    expect "ptx/module0.ptx:[0-9]*:[0-9]*: unsupported instruction 'isspacep.global'"
    ;;
  progress)
    # On a terminal (script gives the application one): the line of totals,
    # rewritten in place; with -q, or in a pipe, none.
    compile app -cudart shared "${ptx[@]}" "$here/apps/progress.cu"
    # RFSIM_PROGRESS_AFTER_MS=0: the line from the first launch on (by
    # default after a second, which a fast machine may not reach).
    script -qec "env RFSIM_PROGRESS_AFTER_MS=0 $rfsim exec -o out -- ./app 600" /dev/null > log 2>&1 || fail "rfsim exec on a terminal failed"
    expect "progress: 600 launches"
    grep -q $'\rexec: [0-9]* kernels launched, [0-9.]*[kMG]* warp instructions, [0-9.]*[kMG]* warp-instr/s' log ||
      fail "no line of totals on a terminal"
    rm -rf out
    script -qec "env RFSIM_PROGRESS_AFTER_MS=0 $rfsim exec -q -o out -- ./app 600" /dev/null > log 2>&1 || fail "rfsim exec -q on a terminal failed"
    expect "progress: 600 launches"
    grep -q "kernels launched" log && fail "a line of totals with -q"
    rm -rf out
    RFSIM_PROGRESS_AFTER_MS=0 run 0 -o out -- ./app 600
    grep -q "kernels launched" log && fail "a line of totals in a pipe"
    grep -q $'\r' log && fail "a carriage return in a pipe"
    ;;
  abi)
    # Compiles only if model/cudart/cuda_abi.h matches CUDA's headers (static_asserts).
    compile app -I"$here/../../model" "$here/apps/abi_check.cu"
    ./app | tee log
    expect "match the headers of CUDA"
    ;;
  *) fail "unknown case" ;;
esac
echo "PASS ($case_name)"
