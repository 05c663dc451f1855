// The application's call site of a return address, for the messages of
// calls the model does not implement: dladdr finds the file (executable or
// library) and the symbol where the file exports one; otherwise the file's
// own symbol table (.symtab, present unless the file was stripped) names
// the function. The file and offset are always given: addr2line turns them
// into a function and line.
#include <elf.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cxxabi.h>
#include <dlfcn.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include <fmt/format.h>

#include "cudart/api.h"

namespace rfsim::cudart {
namespace {

std::string demangle(const char* name) {
  int status = 0;
  char* d = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  std::string s = status == 0 && d ? d : name;
  std::free(d);
  return s;
}

// The function in `file`'s .symtab holding `addr` (a link-time address) and
// the offset into it, or "" when the file has no such symbol.
std::string symtabFunction(const char* file, uint64_t addr, uint64_t* off) {
  const int fd = open(file, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "";
  struct stat st{};
  void* map = fstat(fd, &st) == 0 && st.st_size > 0 ? mmap(nullptr, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0) : MAP_FAILED;
  close(fd);
  if (map == MAP_FAILED) return "";
  const auto* base = static_cast<const uint8_t*>(map);
  const auto size = static_cast<uint64_t>(st.st_size);
  std::string found;
  const auto* eh = reinterpret_cast<const Elf64_Ehdr*>(base);
  const bool ok = size >= sizeof(Elf64_Ehdr) && std::memcmp(eh->e_ident, ELFMAG, SELFMAG) == 0 &&
                  eh->e_ident[EI_CLASS] == ELFCLASS64 && eh->e_shentsize == sizeof(Elf64_Shdr) &&
                  eh->e_shoff + uint64_t{eh->e_shnum} * sizeof(Elf64_Shdr) <= size;
  for (unsigned i = 0; ok && i < eh->e_shnum && found.empty(); ++i) {
    const auto* sh = reinterpret_cast<const Elf64_Shdr*>(base + eh->e_shoff) + i;
    if (sh->sh_type != SHT_SYMTAB || sh->sh_link >= eh->e_shnum || sh->sh_offset + sh->sh_size > size) continue;
    const auto* strtab = reinterpret_cast<const Elf64_Shdr*>(base + eh->e_shoff) + sh->sh_link;
    if (strtab->sh_offset + strtab->sh_size > size) continue;
    const auto* syms = reinterpret_cast<const Elf64_Sym*>(base + sh->sh_offset);
    for (uint64_t k = 0; k < sh->sh_size / sizeof(Elf64_Sym); ++k) {
      const Elf64_Sym& s = syms[k];
      if (ELF64_ST_TYPE(s.st_info) != STT_FUNC || addr < s.st_value || addr >= s.st_value + s.st_size ||
          s.st_name >= strtab->sh_size)
        continue;
      const char* name = reinterpret_cast<const char*>(base + strtab->sh_offset + s.st_name);
      if (!std::memchr(name, 0, strtab->sh_size - s.st_name)) continue;
      found = demangle(name);
      *off = addr - s.st_value;
      break;
    }
  }
  munmap(map, size);
  return found;
}

}  // namespace

std::string callSite(const void* ret) {
  Dl_info info{};
  if (!ret || !dladdr(ret, &info) || !info.dli_fname || !info.dli_fname[0]) return fmt::format("{}", ret);
  const auto at = reinterpret_cast<uint64_t>(ret);
  const uint64_t rel = at - reinterpret_cast<uint64_t>(info.dli_fbase);
  std::string fn;
  uint64_t off = 0;
  if (info.dli_sname && info.dli_saddr) {
    fn = demangle(info.dli_sname);
    off = at - reinterpret_cast<uint64_t>(info.dli_saddr);
  } else {
    // A position-independent file's symbols are relative to where it was
    // loaded; a fixed-address executable's are absolute.
    const auto* eh = static_cast<const Elf64_Ehdr*>(info.dli_fbase);
    fn = symtabFunction(info.dli_fname, eh->e_type == ET_DYN ? rel : at, &off);
  }
  const std::string where = fmt::format("{}+{:#x}", info.dli_fname, rel);
  return fn.empty() ? where : fmt::format("{}+{:#x} ({})", fn, off, where);
}

}  // namespace rfsim::cudart
