// Shared-memory bank conflicts of one warp access.
//
// Rule (as GPGPU-Sim with gpgpu_shmem_limited_broadcast 0, and Volta):
// memory is interleaved in 4-byte words over `banks` banks (bank = word %
// banks). An access is served in phases of 128 bytes' worth of lanes: all 32
// lanes for 1/2/4-byte accesses, two half-warps (lanes 0-15, 16-31) for
// 8-byte accesses, four quarter-warps for 16-byte accesses. In a phase, a
// bank serves one distinct word per pass; lanes reading the same word share
// it (broadcast). The degree is the sum over phases with an active lane of
// max over banks of the distinct words in that bank. So a conflict-free
// 8-byte access costs 2 passes and a 16-byte one 4, the minimum to move 256
// or 512 bytes through 32 4-byte banks.
#pragma once

#include <cstdint>

namespace rfsim::sm {

// addr[32]: byte address of each lane; mask: active lanes; bytes: 1, 2, 4,
// 8 or 16 per lane; banks: 1..64. Returns 0 when no lane is active.
uint32_t sharedConflictDegree(const uint64_t* addr, uint32_t mask, uint32_t bytes, uint32_t banks);
// The phases of the access with an active lane: the passes it takes without
// any conflict (1 for 1- to 4-byte lanes, up to 2 for 8, up to 4 for 16).
uint32_t sharedPhases(uint32_t mask, uint32_t bytes);

}  // namespace rfsim::sm
