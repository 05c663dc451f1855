// The device code inside a CUDA executable: the fat binary nvcc embeds
// (section .nv_fatbin) and registers through __cudaRegisterFatBinary.
//
// Layout, as nvcc 13 writes it (read off executables built here; NVIDIA does
// not document it -- docs/cudart.md shows the bytes):
//   wrapper  (__fatBinC_Wrapper_t, 24 bytes): magic 0x466243b1, version
//            (1; 2 with relocatable device code, where the last word points
//            to a null-terminated array of the pre-linked fatbins), pointer
//            to the fatbin, pointer
//   fatbin   header (16 bytes): magic 0xba55ed50, u16 version 1, u16 header
//            size, u64 size of the entries that follow
//   entry    header (u16 kind: 1 PTX, 2 ELF; u16; u32 header size; u64
//            payload size, padded; u32 compressed size; u32; u16 minor,
//            u16 major: PTX ISA version of a PTX entry; u32 arch (75 for
//            sm_75 / compute_75); u32, u32; u64 flags: 0x8000 zstd,
//            0x2000 LZ4 block; u64; u64 uncompressed size), then the payload
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace rfsim::rt {

inline constexpr uint32_t kFatbinWrapperMagic = 0x466243b1;
inline constexpr uint32_t kFatbinMagic = 0xba55ed50;
// The newest PTX ISA the front end reads (CUDA 13.0 writes 9.0).
inline constexpr uint32_t kMaxPtxVersion = 90;  // major * 10 + minor

enum class FatbinKind : uint16_t { Ptx = 1, Elf = 2 };

struct FatbinEntry {
  FatbinKind kind = FatbinKind::Ptx;
  uint32_t arch = 0;         // 75: compute_75 (PTX) or sm_75 (ELF)
  uint32_t ptx_version = 0;  // PTX entries: major * 10 + minor
  uint64_t flags = 0;
  std::string compression;   // "none", "zstd" or "lz4"
  size_t offset = 0;         // of the entry header, from the fatbin's start
  std::string payload;       // decompressed; PTX without its trailing NUL bytes
};

struct Fatbin {
  std::vector<FatbinEntry> entries;
  size_t size = 0;  // bytes, header included
  // The PTX entry to run: the newest PTX ISA the front end reads, then the
  // highest arch; null if there is none.
  const FatbinEntry* choosePtx() const;
  // "sm_75, sm_80": the SASS architectures present (for error messages).
  std::string elfArchs() const;
};

// Parses one fatbin at `data` (at most `limit` bytes readable; pass the
// header's size when unknown). Throws rfsim::Error naming `what`, the entry
// and the byte offset on a wrong magic, a truncated entry, an unknown
// compression or a payload that does not decompress to its stated size.
Fatbin parseFatbin(const void* data, size_t limit, const std::string& what);

// The fatbins a registration wrapper (__fatBinC_Wrapper_t) points to: its
// own and, in version 2, the pre-linked ones (relocatable device code).
std::vector<Fatbin> parseFatbinWrapper(const void* wrapper, const std::string& what);

// The PTX of `fatbins` ready for the front end, one text per module, or an
// error that says what the executable holds and which -gencode to add.
std::vector<std::string> ptxModules(const std::vector<Fatbin>& fatbins, const std::string& what);

// Which of `modules` (PTX texts) a device link keeps: those defining one of
// `roots` (the kernels and variables the host code registered), then, until
// nothing changes, those defining a .visible name a kept module mentions.
// The CUDA device runtime, which nvcc links into every -rdc=true program
// and whose kernels and variables it registers, is kept only when the
// program's own code calls into it. Returns indices, in order.
std::vector<size_t> linkedModules(const std::vector<std::string>& modules, const std::vector<std::string>& roots);
// True for the CUDA device runtime's PTX (cuda_device_runtime.cu).
bool isDeviceRuntime(const std::string& module);

}  // namespace rfsim::rt
