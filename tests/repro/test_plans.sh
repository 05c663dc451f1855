#!/usr/bin/env bash
# What the CARS and R2D2 reproductions run by default, checked without
# simulating: RFSIM is a stand-in that logs each command line and fails the
# comparisons FAIL_ON names. Checks the comparisons and their SM counts (the
# paper's 80 SMs for OUT/large80 whatever --sms says), that a failed
# comparison does not stop the next, and the exit status.
#   test_plans.sh
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

cat >"$tmp/rfsim" <<'SH'
#!/usr/bin/env bash
echo "$*" >>"$LOG"
for pattern in ${FAIL_ON:-}; do [[ "$*" == *"$pattern"* ]] && exit 1; done
exit 0
SH
chmod +x "$tmp/rfsim"

# run SCRIPT OUT ARGS...: the script's exit status; its commands in $tmp/log.
run() {
  local s=$1 out=$2
  shift 2
  : >"$tmp/log"
  (cd "$root" && LOG=$tmp/log RFSIM=$tmp/rfsim "scripts/$s" -o "$out" "$@" >/dev/null 2>&1)
}
line() { sed -n "${1}p" "$tmp/log"; }

# CARS: three comparisons; --sms moves the first two and not OUT/large80.
run cars_repro.sh "$tmp/c" --sms 16 -j 2 || fail "cars_repro.sh: exit status $?"
[[ $(wc -l <"$tmp/log") -eq 3 ]] || fail "cars_repro.sh: $(wc -l <"$tmp/log") commands, not 3: $(cat "$tmp/log")"
for i in 1 2; do [[ $(line $i) == *"gpu.num_sms=16"* ]] || fail "cars_repro.sh: comparison $i without --sms 16: $(line $i)"; done
l3=$(line 3)
[[ $l3 == *"-o $tmp/c/large80"* && $l3 == *"--large"* && $l3 == *"gpu.num_sms=80"* ]] ||
  fail "cars_repro.sh: the third command is not OUT/large80 at the large inputs on 80 SMs: $l3"
[[ $l3 != *"gpu.num_sms=16"* && $l3 == *"-j 2"* ]] || fail "cars_repro.sh: OUT/large80 took --sms or lost -j: $l3"
[[ $l3 == *"--skip ivw 10MB-L1 swl all-hit inlined ports"* ]] || fail "cars_repro.sh: OUT/large80 runs more than base and CARS: $l3"
# --fig8-80: every Fig. 8 variant there, the warp limits 4, 8, 16 unless --swl chose.
run cars_repro.sh "$tmp/c5" --fig8-80 || fail "cars_repro.sh --fig8-80: exit status $?"
l3=$(line 3)
[[ $l3 == *"-o $tmp/c5/large80"* && $l3 == *"--skip ports --skip swl1 swl2 swl3"* && $l3 != *"ivw"* ]] ||
  fail "cars_repro.sh --fig8-80: OUT/large80 is not every Fig. 8 variant with the limits 4, 8, 16: $l3"
run cars_repro.sh "$tmp/c6" --fig8-80 --swl 2,16 || fail "cars_repro.sh --fig8-80 --swl: exit status $?"
l3=$(line 3)
[[ $l3 == *"--skip swl1"* && $l3 == *"--skip swl4"* && $l3 != *"--skip swl2"* && $l3 != *"--skip swl16"* ]] ||
  fail "cars_repro.sh --fig8-80 --swl 2,16: OUT/large80 does not keep the limits 2 and 16 alone: $l3"
run cars_repro.sh "$tmp/c2" --no-large80 || fail "cars_repro.sh --no-large80: exit status $?"
[[ $(wc -l <"$tmp/log") -eq 2 ]] || fail "cars_repro.sh --no-large80: $(wc -l <"$tmp/log") commands, not 2"
# A failed comparison: the others still run, and the script exits 1.
FAIL_ON="$tmp/c3/small" run cars_repro.sh "$tmp/c3"
st=$?
[[ $st -eq 1 ]] || fail "cars_repro.sh: exit status $st after a failed comparison, not 1"
[[ $(wc -l <"$tmp/log") -eq 3 ]] || fail "cars_repro.sh: a failed comparison stopped the others"
FAIL_ON=compare run cars_repro.sh "$tmp/c4" --quick
st=$?
[[ $st -eq 1 ]] || fail "cars_repro.sh --quick: exit status $st after a failed comparison, not 1"

# R2D2: OUT on 16 SMs, OUT/large80 sampled on the experiment's 80, then Table 3.
run r2d2_repro.sh "$tmp/r" || fail "r2d2_repro.sh: exit status $?"
[[ $(wc -l <"$tmp/log") -eq 3 ]] || fail "r2d2_repro.sh: $(wc -l <"$tmp/log") commands, not 3: $(cat "$tmp/log")"
[[ $(line 1) == *"-o $tmp/r "* && $(line 1) == *"gpu.num_sms=16"* ]] || fail "r2d2_repro.sh: OUT is not on 16 SMs: $(line 1)"
l2=$(line 2)
[[ $l2 == *"-o $tmp/r/large80"* && $l2 == *"--large"* && $l2 == *"sim.sample=all"* && $l2 != *"gpu.num_sms"* ]] ||
  fail "r2d2_repro.sh: the second command is not OUT/large80, sampled on the experiment's SMs: $l2"
[[ $(line 3) == *"r2d2-table3"* ]] || fail "r2d2_repro.sh: the third command is not Table 3: $(line 3)"
FAIL_ON="$tmp/r3/large80" run r2d2_repro.sh "$tmp/r3"
st=$?
[[ $st -eq 1 && $(wc -l <"$tmp/log") -eq 3 ]] ||
  fail "r2d2_repro.sh: exit status $st and $(wc -l <"$tmp/log") commands after a failed comparison (want 1 and 3)"
echo "PASS: the CARS and R2D2 reproductions' default comparisons"
