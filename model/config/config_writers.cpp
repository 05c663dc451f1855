// The writers: resolved YAML (written beside every run's results), JSON, and
// the Markdown reference of docs/configuration.md, each one visitor over
// GpuConfig::visit().
#include <algorithm>
#include <cctype>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "config/config_detail.h"
#include "config/config_io.h"

namespace rfsim::config {

namespace {

bool isYamlKeyword(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  static const char* const kWords[] = {"null", "~", "true", "false", "yes", "no", "on", "off", "y", "n"};
  return std::any_of(std::begin(kWords), std::end(kWords), [&](const char* w) { return s == w; });
}

// Plain when the text is a simple name YAML reads back as the same string,
// double-quoted (with escapes) otherwise.
std::string yamlString(const std::string& s) {
  const bool plain = !s.empty() && (std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_') &&
                     std::all_of(s.begin(), s.end(),
                                 [](unsigned char c) { return std::isalnum(c) || c == '_' || c == '-' || c == '.'; }) &&
                     !isYamlKeyword(s);
  if (plain) return s;
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c == 0x7f) {
      out += fmt::format("\\x{:02x}", c);
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

// A list as YAML's flow form reads it back: [0, 8, 16].
std::string flowList(const std::vector<uint32_t>& values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i) out += fmt::format("{}{}", i ? ", " : "", values[i]);
  return out + "]";
}

std::string bracket(const char* unit, const std::string& range) {
  return *unit ? fmt::format("[{}, {}]", unit, range) : fmt::format("[{}]", range);
}

class YamlWriter {
 public:
  YamlWriter(std::string& out, int depth) : out_(out), indent_(2 * depth, ' ') {}

  template <class T> void integer(const char* key, T& ref, IntRange r, const char* unit, const char* desc) {
    line(key, fmt::format("{}", ref), fmt::format("{} {}", desc, bracket(unit, fmt::format("{}..{}", r.lo, r.hi))));
  }
  void integers(const char* key, std::vector<uint32_t>& ref, IntRange r, const char* unit, const char* desc) {
    line(key, flowList(ref),
         fmt::format("{} {}", desc, bracket(unit, fmt::format("list of {}..{}", r.lo, r.hi))));
  }
  void real(const char* key, double& ref, RealRange r, const char* unit, const char* desc) {
    line(key, detail::formatReal(ref), fmt::format("{} {}", desc, bracket(unit, fmt::format("{}..{}", r.lo, r.hi))));
  }
  void boolean(const char* key, bool& ref, const char* desc) { line(key, ref ? "true" : "false", desc); }
  void text(const char* key, std::string& ref, const char* desc) { line(key, yamlString(ref), desc); }
  void choice(const char* key, ChoiceRef ref, const char* desc) {
    line(key, yamlString(ref.name()), fmt::format("{} [{}]", desc, detail::joinChoices(ref.names(), " | ")));
  }
  template <class S> void section(const char* key, S& sub, const char* desc) {
    out_ += fmt::format("\n{}# {}\n{}{}:\n", indent_, desc, indent_, key);
    YamlWriter inner(out_, static_cast<int>(indent_.size() / 2) + 1);
    sub.visit(inner);
  }

 private:
  void line(const char* key, const std::string& value, const std::string& comment) {
    // Trailing comments start in one column, so the values read as a table.
    out_ += fmt::format("{}{:<{}}  # {}\n", indent_, fmt::format("{}: {}", key, value), 30 - indent_.size(),
                        comment);
  }

  std::string& out_;
  std::string indent_;
};

class JsonWriter {
 public:
  explicit JsonWriter(nlohmann::json& obj) : obj_(obj) {}

  template <class T> void integer(const char* key, T& ref, IntRange, const char*, const char*) { obj_[key] = ref; }
  void integers(const char* key, std::vector<uint32_t>& ref, IntRange, const char*, const char*) { obj_[key] = ref; }
  void real(const char* key, double& ref, RealRange, const char*, const char*) { obj_[key] = ref; }
  void boolean(const char* key, bool& ref, const char*) { obj_[key] = ref; }
  void text(const char* key, std::string& ref, const char*) { obj_[key] = ref; }
  void choice(const char* key, ChoiceRef ref, const char*) { obj_[key] = ref.name(); }
  template <class S> void section(const char* key, S& sub, const char*) {
    nlohmann::json& child = obj_[key] = nlohmann::json::object();
    JsonWriter inner(child);
    sub.visit(inner);
  }

 private:
  nlohmann::json& obj_;
};

std::string cell(std::string s) {
  // A '|' would end the table cell.
  for (size_t pos = 0; (pos = s.find('|', pos)) != std::string::npos; pos += 2) s.replace(pos, 1, "\\|");
  return s;
}

class MarkdownWriter {
 public:
  MarkdownWriter(std::string& out, std::string prefix) : out_(out), prefix_(std::move(prefix)) {}

  template <class T> void integer(const char* key, T& ref, IntRange r, const char* unit, const char* desc) {
    row(key, detail::intTypeOf<T>().name, fmt::format("{}", ref), fmt::format("{} .. {}", r.lo, r.hi), unit, desc);
  }
  void integers(const char* key, std::vector<uint32_t>& ref, IntRange r, const char* unit, const char* desc) {
    row(key, "list of uint32", flowList(ref), fmt::format("each {} .. {}", r.lo, r.hi), unit, desc);
  }
  void real(const char* key, double& ref, RealRange r, const char* unit, const char* desc) {
    row(key, "real", detail::formatReal(ref), fmt::format("{} .. {}", r.lo, r.hi), unit, desc);
  }
  void boolean(const char* key, bool& ref, const char* desc) {
    row(key, "bool", ref ? "true" : "false", "true, false", "", desc);
  }
  void text(const char* key, std::string& ref, const char* desc) { row(key, "text", ref, "", "", desc); }
  void choice(const char* key, ChoiceRef ref, const char* desc) {
    std::string list;
    for (const auto& c : ref.names()) list += (list.empty() ? "`" : ", `") + c + "`";
    row(key, "choice", ref.name(), list, "", desc);
  }
  template <class S> void section(const char* key, S& sub, const char*) {
    MarkdownWriter inner(out_, prefix_ + key + ".");
    sub.visit(inner);
  }

 private:
  void row(const char* key, const std::string& type, const std::string& def, const std::string& range,
           const std::string& unit, const std::string& desc) {
    out_ += fmt::format("| `{}{}` | {} | `{}` | {} | {} | {} |\n", prefix_, key, type, cell(def), cell(range),
                        cell(unit), cell(desc));
  }

  std::string& out_;
  std::string prefix_;
};

class KeyLister {
 public:
  KeyLister(std::vector<std::string>& keys, std::string prefix) : keys_(keys), prefix_(std::move(prefix)) {}

  template <class T> void integer(const char* key, T&, IntRange, const char*, const char*) { add(key); }
  void integers(const char* key, std::vector<uint32_t>&, IntRange, const char*, const char*) { add(key); }
  void real(const char* key, double&, RealRange, const char*, const char*) { add(key); }
  void boolean(const char* key, bool&, const char*) { add(key); }
  void text(const char* key, std::string&, const char*) { add(key); }
  void choice(const char* key, ChoiceRef, const char*) { add(key); }
  template <class S> void section(const char* key, S& sub, const char*) {
    KeyLister inner(keys_, prefix_ + key + ".");
    sub.visit(inner);
  }

 private:
  void add(const char* key) { keys_.push_back(prefix_ + key); }

  std::vector<std::string>& keys_;
  std::string prefix_;
};

}  // namespace

std::string toYaml(const GpuConfig& cfg) {
  // visit() takes a mutable struct (one list serves readers and writers).
  GpuConfig copy = cfg;
  std::string out = fmt::format(
      "# rfsim configuration '{}', resolved: every field with the value in effect,\n"
      "# defaults included. It loads back as a configuration file.\n",
      cfg.name);
  YamlWriter writer(out, 0);
  copy.visit(writer);
  return out;
}

nlohmann::json toJson(const GpuConfig& cfg) {
  GpuConfig copy = cfg;
  nlohmann::json out = nlohmann::json::object();
  JsonWriter writer(out);
  copy.visit(writer);
  return out;
}

std::string configReferenceMarkdown() {
  GpuConfig defaults;
  std::string out =
      "| key | type | default | range / choices | unit | description |\n"
      "|---|---|---|---|---|---|\n";
  MarkdownWriter writer(out, "");
  defaults.visit(writer);
  return out;
}

std::vector<std::string> configKeys() {
  GpuConfig defaults;
  std::vector<std::string> keys;
  KeyLister lister(keys, "");
  defaults.visit(lister);
  return keys;
}

}  // namespace rfsim::config
