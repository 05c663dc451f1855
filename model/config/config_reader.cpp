// loadConfig() and applyOverride(): a visitor walks GpuConfig::visit() beside
// the YAML tree, so the field list in gpu_config.h is the only schema.
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "common/error.h"
#include "config/config_detail.h"
#include "config/config_io.h"

namespace rfsim::config {

namespace {

// Where values come from: a file (positions from the YAML marks) or the
// command line (no positions; the message starts with "--set").
struct Origin {
  std::string source;
  bool has_positions;

  std::string at(const YAML::Mark& mark) const {
    if (!has_positions || mark.is_null()) return source;
    return fmt::format("{}:{}:{}", source, mark.line + 1, mark.column + 1);
  }
};

std::string describe(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map: return "a map";
    case YAML::NodeType::Sequence: return "a list";
    case YAML::NodeType::Scalar: return fmt::format("'{}'", node.Scalar());
    default: return "no value";
  }
}

// Quoted scalars ("32", '32') are strings in YAML; a numeric or boolean field
// does not take them, so that `max_warps: "32"` is a type error as it would be
// in any YAML-aware tool.
bool isQuoted(const YAML::Node& node) {
  return node.Tag() == "!" || node.Tag() == "tag:yaml.org,2002:str";
}

struct Entry {
  YAML::Node key;
  YAML::Node value;
  bool used = false;
};

// Reads one YAML map into one struct through its visit(). Keys the struct
// does not visit are reported by finish(), with the closest known key.
class SectionReader {
 public:
  SectionReader(const Origin& origin, std::string prefix, const YAML::Node& map)
      : origin_(origin), prefix_(std::move(prefix)) {
    // By value: yaml-cpp's iterator hands out a temporary pair, so a reference
    // to its members would dangle.
    for (const auto& kv : map) {
      const YAML::Node key = kv.first;
      if (!key.IsScalar())
        throw Error(fmt::format("{}: key in section '{}': keys must be plain names, got {}", origin_.at(key.Mark()),
                                prefix_.empty() ? "(top level)" : prefix_, describe(key)));
      for (const auto& e : entries_) {
        if (e.key.Scalar() == key.Scalar())
          throw Error(fmt::format("{}: key '{}': duplicate key (first at line {})", origin_.at(key.Mark()),
                                  dotted(key.Scalar()), e.key.Mark().line + 1));
      }
      entries_.push_back(Entry{key, kv.second});
    }
  }

  template <class T>
  void integer(const char* key, T& ref, IntRange range, const char* /*unit*/, const char* /*desc*/) {
    const Entry* e = take(key);
    if (!e) return;
    const std::string& text = scalar(*e, key, "an integer");
    int64_t value = 0;
    if (auto why = detail::parseInteger(text, detail::intTypeOf<T>(), range, value)) fail(*e, key, *why);
    ref = static_cast<T>(value);
  }

  // A YAML list of integers (`[0, 8, 16]`, or one item per line); `[]` is
  // the empty list.
  void integers(const char* key, std::vector<uint32_t>& ref, IntRange range, const char* /*unit*/,
                const char* /*desc*/) {
    const Entry* e = take(key);
    if (!e) return;
    if (!e->value.IsSequence())
      fail(*e, key, fmt::format("expected a list of integers such as [0, 8, 16], got {}", describe(e->value)));
    std::vector<uint32_t> values;
    for (size_t i = 0; i < e->value.size(); ++i) {
      const YAML::Node item = e->value[i];
      const std::string where = fmt::format("item {} of the list", i + 1);
      if (!item.IsScalar() || isQuoted(item))
        fail(*e, key, fmt::format("{}: expected an integer, got {}", where, describe(item)));
      int64_t v = 0;
      if (auto why = detail::parseInteger(item.Scalar(), detail::intTypeOf<uint32_t>(), range, v))
        fail(*e, key, fmt::format("{}: {}", where, *why));
      values.push_back(static_cast<uint32_t>(v));
    }
    ref = std::move(values);
  }

  void real(const char* key, double& ref, RealRange range, const char* /*unit*/, const char* /*desc*/) {
    const Entry* e = take(key);
    if (!e) return;
    if (auto why = detail::parseReal(scalar(*e, key, "a number"), range, ref)) fail(*e, key, *why);
  }

  void boolean(const char* key, bool& ref, const char* /*desc*/) {
    const Entry* e = take(key);
    if (!e) return;
    if (auto why = detail::parseBool(scalar(*e, key, "true or false"), ref)) fail(*e, key, *why);
  }

  void text(const char* key, std::string& ref, const char* /*desc*/) {
    const Entry* e = take(key);
    if (!e) return;
    ref = scalar(*e, key, "text", /*quoted_ok=*/true);
  }

  void choice(const char* key, ChoiceRef ref, const char* /*desc*/) {
    const Entry* e = take(key);
    if (!e) return;
    const std::string& text = scalar(*e, key, "one of " + detail::joinChoices(ref.names(), ", "), true);
    if (!ref.set(text)) fail(*e, key, detail::choiceError(text, ref.names()));
  }

  template <class S> void section(const char* key, S& sub, const char* /*desc*/) {
    const Entry* e = take(key);
    if (!e) return;
    // `sm:` with every line below it commented out is an empty section,
    // not an error: it keeps the defaults like an absent one.
    if (e->value.IsNull()) return;
    if (!e->value.IsMap())
      fail(*e, key, fmt::format("expected a section (a map of keys), got {}", describe(e->value)));
    SectionReader reader(origin_, dotted(key), e->value);
    sub.visit(reader);
    reader.finish();
  }

  // Called once the struct's visit() has named every key it knows.
  void finish() const {
    for (const auto& e : entries_) {
      if (e.used) continue;
      std::string reason = prefix_.empty() ? "unknown section" : fmt::format("unknown key in section '{}'", prefix_);
      if (prefix_.empty())
        for (const auto& t : mechanismSectionTypes())
          if (std::find(t.moved_in.begin(), t.moved_in.end(), e.key.Scalar()) != t.moved_in.end())
            throw Error(fmt::format("{}: key '{}': the section moved to 'mechanisms.{}.{}' (its keys are the same)",
                                    origin_.at(e.key.Mark()), e.key.Scalar(), t.name, e.key.Scalar()));
      if (auto near = detail::closestKey(e.key.Scalar(), known_)) reason += fmt::format("; did you mean '{}'?", *near);
      throw Error(fmt::format("{}: key '{}': {}", origin_.at(e.key.Mark()), dotted(e.key.Scalar()), reason));
    }
  }

 private:
  std::string dotted(const std::string& key) const { return prefix_.empty() ? key : prefix_ + "." + key; }

  const Entry* take(const char* key) {
    known_.emplace_back(key);
    for (auto& e : entries_) {
      if (e.key.Scalar() == key) {
        e.used = true;
        return &e;
      }
    }
    return nullptr;
  }

  const std::string& scalar(const Entry& e, const char* key, const std::string& expected, bool quoted_ok = false) {
    if (!e.value.IsScalar()) fail(e, key, fmt::format("expected {}, got {}", expected, describe(e.value)));
    if (!quoted_ok && isQuoted(e.value))
      fail(e, key, fmt::format("expected {}, got the quoted string \"{}\"", expected, e.value.Scalar()));
    return e.value.Scalar();
  }

  [[noreturn]] void fail(const Entry& e, const char* key, const std::string& reason) const {
    // A missing value (`max_warps:`) has its mark on the next line; the key's
    // mark is where the user has to look.
    const YAML::Mark mark = e.value.IsNull() ? e.key.Mark() : e.value.Mark();
    throw Error(fmt::format("{}: key '{}': {}", origin_.at(mark), dotted(key), reason));
  }

  const Origin& origin_;
  std::string prefix_;
  std::vector<Entry> entries_;
  std::vector<std::string> known_;
};

// The position of a dotted key in the document, for cross-field errors.
YAML::Mark markOf(const YAML::Node& root, const std::string& dotted_key) {
  YAML::Node node = root;
  YAML::Mark mark = YAML::Mark::null_mark();
  std::stringstream parts(dotted_key);
  std::string part;
  while (std::getline(parts, part, '.')) {
    if (!node.IsMap()) return YAML::Mark::null_mark();
    bool found = false;
    for (const auto& kv : node) {
      if (kv.first.IsScalar() && kv.first.Scalar() == part) {
        mark = kv.first.Mark();
        node.reset(kv.second);
        found = true;
        break;
      }
    }
    if (!found) return YAML::Mark::null_mark();
  }
  return mark;
}

std::string readFile(const std::filesystem::path& file) {
  std::error_code ec;
  if (!std::filesystem::exists(file, ec))
    throw Error(fmt::format("{}: cannot open configuration file: no such file", file.string()));
  if (std::filesystem::is_directory(file, ec))
    throw Error(fmt::format("{}: cannot open configuration file: it is a directory", file.string()));
  std::ifstream in(file, std::ios::binary);
  if (!in) throw Error(fmt::format("{}: cannot open configuration file: {}", file.string(), std::strerror(errno)));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// "sm.max_warps" + value -> {sm: {max_warps: value}}, the shape a file has.
YAML::Node nest(const std::vector<std::string>& parts, size_t i, const YAML::Node& leaf) {
  if (i == parts.size()) return leaf;
  YAML::Node map(YAML::NodeType::Map);
  map[parts[i]] = nest(parts, i + 1, leaf);
  return map;
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t");
  return s.substr(b, e - b + 1);
}

}  // namespace

namespace {

// The keys given below `mechanisms.<name>:` (MechanismsConfig::given).
void recordMechanismKeys(GpuConfig& cfg, const YAML::Node& root) {
  const YAML::Node m = root["mechanisms"];
  if (!m || !m.IsMap()) return;
  for (const auto& kv : m) {
    const std::string name = kv.first.Scalar();
    if (name == "enabled" || !kv.second.IsMap()) continue;
    for (const auto& f : kv.second) {
      const std::string key = "mechanisms." + name + "." + f.first.Scalar();
      auto& g = cfg.mechanisms.given;
      if (std::find(g.begin(), g.end(), key) == g.end()) g.push_back(key);
    }
  }
}

}  // namespace

GpuConfig loadConfig(const std::filesystem::path& file) {
  const std::string name = file.string();
  const std::string text = readFile(file);
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    throw Error(fmt::format("{}:{}:{}: YAML syntax error: {}", name, e.mark.line + 1, e.mark.column + 1, e.msg));
  } catch (const YAML::Exception& e) {
    throw Error(fmt::format("{}: YAML error: {}", name, e.what()));
  }
  if (root.IsNull())
    throw Error(fmt::format("{}:1:1: configuration is empty; expected a map of sections such as 'gpu:' and 'sm:'",
                            name));
  const Origin origin{name, true};
  if (!root.IsMap())
    throw Error(fmt::format("{}: top level must be a map of sections, got {}", origin.at(root.Mark()),
                            describe(root)));

  GpuConfig cfg;
  SectionReader reader(origin, "", root);
  cfg.visit(reader);
  reader.finish();
  recordMechanismKeys(cfg, root);

  if (auto v = detail::firstViolation(cfg)) {
    YAML::Mark mark = markOf(root, v->key);
    if (mark.is_null()) mark = markOf(root, v->other_key);
    throw Error(detail::formatViolation(origin.at(mark), *v));
  }
  return cfg;
}

void applyOverride(GpuConfig& cfg, const std::string& assignment) {
  const auto eq = assignment.find('=');
  if (eq == std::string::npos)
    throw Error(fmt::format("--set: '{}': expected KEY=VALUE, e.g. sm.max_warps=32", assignment));
  const std::string key = trim(assignment.substr(0, eq));
  std::vector<std::string> parts;
  std::stringstream ss(key);
  for (std::string part; std::getline(ss, part, '.');) parts.push_back(part);
  if (key.empty() || key.back() == '.' ||
      std::any_of(parts.begin(), parts.end(), [](const std::string& p) { return p.empty(); }))
    throw Error(fmt::format("--set: '{}': expected KEY=VALUE with a dotted key, e.g. sm.max_warps=32", assignment));

  const auto fields = configKeys();
  if (std::find(fields.begin(), fields.end(), key) == fields.end()) {
    const std::string prefix = key + ".";
    for (const auto& f : fields) {
      if (f.compare(0, prefix.size(), prefix) == 0)
        throw Error(fmt::format("--set: key '{}': is a section; --set takes a single field such as '{}'", key, f));
    }
  }

  YAML::Node value;
  try {
    value = YAML::Load(assignment.substr(eq + 1));
  } catch (const YAML::Exception& e) {
    throw Error(fmt::format("--set: key '{}': cannot read the value: {}", key, e.msg));
  }

  // Through the same reader as a file, on a copy so that a refused override
  // leaves `cfg` as it was.
  const Origin origin{"--set", false};
  const YAML::Node root = nest(parts, 0, value);
  GpuConfig updated = cfg;
  SectionReader reader(origin, "", root);
  updated.visit(reader);
  reader.finish();
  recordMechanismKeys(updated, root);
  cfg = std::move(updated);
}

void validate(const GpuConfig& cfg, const std::string& source) {
  if (auto v = detail::firstViolation(cfg)) throw Error(detail::formatViolation(source, *v));
}

}  // namespace rfsim::config
