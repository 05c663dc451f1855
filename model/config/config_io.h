// Reading, overriding, checking and writing a GpuConfig. Everything here is
// driven by the visit() field lists in gpu_config.h, so a field added there is
// read, written, overridable and documented without touching this layer.
//
// Every user error throws rfsim::Error with a one-line message that says where
// (file:line:column from the YAML, or "--set"), which dotted key, and why:
//   configs/x.yaml:12:5: key 'sm.max_warps': value 200 out of range [1, 64]
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "config/gpu_config.h"

namespace rfsim::config {

// Starts from the defaults in code; every key present in `file` overrides its
// default, a section or key left out keeps it. Refuses unknown keys, values
// of the wrong type or outside their range, and then checks the cross-field
// rules of validate() (so the result is always a consistent configuration).
GpuConfig loadConfig(const std::filesystem::path& file);

// Applies one command-line override "section.key=value" (the value is read as
// a YAML scalar, with the same checks as in a file). Cross-field rules are not
// checked here, since a series of overrides may pass through inconsistent
// states: call validate(cfg, "...") once all of them are applied.
void applyOverride(GpuConfig& cfg, const std::string& assignment);

// Cross-field rules (documented in docs/configuration.md). `source` names where
// the configuration came from and starts the error message.
void validate(const GpuConfig& cfg, const std::string& source);

// The resolved configuration as YAML, every field present, each with its
// description, unit and range as a comment. loadConfig() reads it back to an
// identical configuration.
std::string toYaml(const GpuConfig& cfg);
nlohmann::json toJson(const GpuConfig& cfg);

// A Markdown table of every key: dotted key, type, default, range or choices,
// unit, description. docs/configuration.md embeds it.
std::string configReferenceMarkdown();

// Every field's dotted key ("sm.max_warps"), in declaration order.
std::vector<std::string> configKeys();

}  // namespace rfsim::config
