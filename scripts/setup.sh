#!/usr/bin/env bash
# Installs what is missing (Debian 12 packages only) and builds what is stale.
# Idempotent: a second run checks the packages and lets the build tool decide,
# which takes seconds.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${RFSIM_BUILD_DIR:-$here/build}

packages=(
  build-essential cmake ninja-build pkg-config lld
  libsystemc-dev verilator gtkwave catch2 libyaml-cpp-dev
  nlohmann-json3-dev libcli11-dev libfmt-dev libzstd-dev liblz4-dev
  yosys opensta
  xvfb x11-apps imagemagick xdotool jq time chromium
  python3 python3-matplotlib python3-tqdm
  slurm-wlm munge
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  if [[ $(id -u) -ne 0 ]]; then
    if command -v sudo >/dev/null; then sudo=sudo; else
      echo "setup: error: packages missing (${missing[*]}) and not root: install them with apt-get" >&2
      exit 1
    fi
  else sudo=; fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  echo "setup: packages installed in $SECONDS s"
fi

# OSU 0.18 um standard cells with real timing tables, for the cost report. Only
# the files are wanted (installing the package pulls in qflow), so the .deb is
# downloaded and unpacked into the build folder.
tech=$build/tech/osu018
lib=$tech/usr/share/qflow/tech/osu018/osu018_stdcells.lib
if [[ ! -f $lib ]]; then
  echo "setup: unpacking qflow-tech-osu018 into $tech"
  mkdir -p "$tech"
  ( cd "$tech" && rm -f qflow-tech-osu018_*.deb &&
    { apt-get download qflow-tech-osu018 >/dev/null 2>&1 ||
      { apt-get update -qq && apt-get download qflow-tech-osu018 >/dev/null; }; } &&
    dpkg-deb -x qflow-tech-osu018_*.deb . && rm -f qflow-tech-osu018_*.deb )
  [[ -f $lib ]] || { echo "setup: error: $lib missing after unpacking qflow-tech-osu018" >&2; exit 1; }
fi

if [[ ! -f $build/build.ninja ]]; then
  cmake -S "$here" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
fi
jobs=${RFSIM_JOBS:-$(nproc)}
build_start=$SECONDS
if ! cmake --build "$build" -j "$jobs" >"$build/build.log" 2>&1; then
  tail -n 60 "$build/build.log" >&2
  echo "setup: error: build failed; full log in $build/build.log" >&2
  exit 1
fi
if ((SECONDS - build_start > 5)); then echo "setup: built in $((SECONDS - build_start)) s"; fi
