#!/usr/bin/env bash
# Make a CUDA_INSTALL_PATH for building and running GPGPU-Sim over a CUDA 13 install:
# every file of the real install, through symbolic links, plus
#   include/texture_types.h  the real header, then the texture-reference struct that CUDA 12
#                  removed (CUDA 11's fields), which GPGPU-Sim's texture code still names;
#   bin/cuobjdump  the stand-in scripts/gpgpusim/cuobjdump.py (-lptx and -xptx only);
#   bin/ptxas      the real ptxas, with the two lines of its -v report that GPGPU-Sim's
#                  ptxinfo parser predates (", used N barriers" and "Compile time = ...")
#                  taken out; the registers, shared, local and constant memory it reads
#                  are left as ptxas printed them.
# Usage: scripts/gpgpusim/cuda_overlay.sh OVERLAY_DIR [CUDA_DIR, default /usr/local/cuda]
set -euo pipefail
out=${1:?usage: cuda_overlay.sh OVERLAY_DIR [CUDA_DIR]}
cuda=${2:-/usr/local/cuda}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out/bin"
for f in "$cuda"/*; do
  [[ $(basename "$f") == bin || $(basename "$f") == include ]] || ln -sfn "$(readlink -f "$f")" "$out/$(basename "$f")"
done
for f in "$cuda"/bin/*; do
  ln -sfn "$(readlink -f "$f")" "$out/bin/$(basename "$f")"
done
mkdir -p "$out/include"
for f in "$(readlink -f "$cuda/include")"/*; do
  ln -sfn "$f" "$out/include/$(basename "$f")"
done
rm -f "$out/include/texture_types.h"
cat > "$out/include/texture_types.h" <<HDR
/* scripts/gpgpusim/cuda_overlay.sh: the CUDA 13 header, then the texture reference
   (removed in CUDA 12) with CUDA 11's fields, for GPGPU-Sim's texture code. */
#include "$(readlink -f "$cuda/include")/texture_types.h"
#ifndef RFSIM_GPGPUSIM_TEXREF_COMPAT
#define RFSIM_GPGPUSIM_TEXREF_COMPAT
#include "driver_types.h"
struct textureReference {
  int normalized;
  enum cudaTextureFilterMode filterMode;
  enum cudaTextureAddressMode addressMode[3];
  struct cudaChannelFormatDesc channelDesc;
  int sRGB;
  unsigned int maxAnisotropy;
  enum cudaTextureFilterMode mipmapFilterMode;
  float mipmapLevelBias;
  float minMipmapLevelClamp;
  float maxMipmapLevelClamp;
  int disableTrilinearOptimization;
  int __cudaReserved[14];
};
#endif
HDR
ln -sfn "$here/cuobjdump.py" "$out/bin/cuobjdump"
rm -f "$out/bin/ptxas"
cat > "$out/bin/ptxas" <<WRAP
#!/usr/bin/env bash
# ptxas for GPGPU-Sim's ptxinfo parser (scripts/gpgpusim/cuda_overlay.sh)
err=\$(mktemp)
"$(readlink -f "$cuda/bin/ptxas")" "\$@" 2>"\$err"
rc=\$?
sed -E -e 's/, used [0-9]+ barriers//' -e '/Compile time =/d' "\$err" >&2
rm -f "\$err"
exit \$rc
WRAP
chmod +x "$out/bin/ptxas"
echo "$out"
