// The PTX front end's entry points: text in, decoded IR (ir.h) out. Accepts
// what nvcc 13 emits for sm_75 and later (PTX ISA 9.0); anything else is
// refused with an rfsim::Error "file:line:col: message" that names the
// offending token, never accepted half-understood.
#pragma once

#include <filesystem>
#include <string>

#include "ptx/ir.h"

namespace rfsim::ptx {

// Reads and parses a .ptx file; Module::file is the path as given.
Module parseFile(const std::filesystem::path& path);

// Parses PTX text; `file_name` is used in messages and as Module::file.
Module parseString(const std::string& text, const std::string& file_name);

}  // namespace rfsim::ptx
