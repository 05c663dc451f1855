// Links PTX modules compiled separately (nvcc -rdc=true, one module per
// translation unit) into one, as the device linker (nvlink) does before a
// launch: a function or variable declared .extern in one module binds to
// its definition in another. Linking rules:
// - a declaration binds to the definition of the same name, whichever
//   module has it; declarations that stay unbound stay extern (the back end
//   and the run then report them where they are used, as for one module);
// - two definitions of one function or variable: a .weak one gives way to a
//   strong one, two .weak ones keep the first module's (nvcc -rdc emits a
//   class's vtable .weak in every unit that builds its objects); two strong
//   ones are an error;
// - a function's declarations and definition must agree on the number of
//   parameters and results, and the modules on .target's architecture and
//   .address_size.
// Every error names both files and the symbol.
#pragma once

#include <filesystem>
#include <vector>

#include "ptx/ir.h"

namespace rfsim::ptx {

// `mods` in link order (the first one's .version, .target and file name
// lead; Module::file becomes "a.ptx+b.ptx"). Throws rfsim::Error.
Module link(std::vector<Module> mods);

// Parses each file and links them.
Module parseAndLink(const std::vector<std::filesystem::path>& files);

}  // namespace rfsim::ptx
