#include "cost/liberty.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include <fmt/format.h>

#include "common/error.h"

namespace rfsim::cost {

namespace {

struct Token {
  enum Kind { Word, String, Punct, End } kind = End;
  std::string text;
  int line = 0;
};

class Lexer {
 public:
  Lexer(const std::string& text, const std::string& file) : s_(text), file_(file) {}

  Token next() {
    skip();
    Token t;
    t.line = line_;
    if (i_ >= s_.size()) return t;
    const char c = s_[i_];
    if (c == '"') {
      size_t j = i_ + 1;
      std::string out;
      while (j < s_.size() && s_[j] != '"') {
        if (s_[j] == '\\' && j + 1 < s_.size() && (s_[j + 1] == '\n' || s_[j + 1] == '\r')) {
          j += 1;  // a continuation inside a string
        } else {
          if (s_[j] == '\n') ++line_;
          out += s_[j];
        }
        ++j;
      }
      if (j >= s_.size()) fail(t.line, "unterminated string");
      i_ = j + 1;
      t.kind = Token::String;
      t.text = std::move(out);
      return t;
    }
    if (std::string_view("(){}:;,").find(c) != std::string_view::npos) {
      ++i_;
      t.kind = Token::Punct;
      t.text = std::string(1, c);
      return t;
    }
    size_t j = i_;
    while (j < s_.size() && !std::isspace(static_cast<unsigned char>(s_[j])) &&
           std::string_view("(){}:;,\"").find(s_[j]) == std::string_view::npos)
      ++j;
    t.kind = Token::Word;
    t.text = s_.substr(i_, j - i_);
    i_ = j;
    return t;
  }

  [[noreturn]] void fail(int line, const std::string& what) const {
    throw Error(fmt::format("{}:{}: liberty: {}", file_, line, what));
  }

 private:
  void skip() {
    for (;;) {
      while (i_ < s_.size() && (std::isspace(static_cast<unsigned char>(s_[i_])) || s_[i_] == '\\')) {
        if (s_[i_] == '\n') ++line_;
        ++i_;
      }
      if (s_.compare(i_, 2, "/*") == 0) {
        const size_t e = s_.find("*/", i_ + 2);
        if (e == std::string::npos) fail(line_, "unterminated comment");
        line_ += static_cast<int>(std::count(s_.begin() + static_cast<long>(i_), s_.begin() + static_cast<long>(e), '\n'));
        i_ = e + 2;
      } else if (s_.compare(i_, 2, "//") == 0) {
        while (i_ < s_.size() && s_[i_] != '\n') ++i_;
      } else {
        return;
      }
    }
  }

  const std::string& s_;
  std::string file_;
  size_t i_ = 0;
  int line_ = 1;
};

class Parser {
 public:
  Parser(const std::string& text, const std::string& file) : lex_(text, file) { tok_ = lex_.next(); }

  LibertyGroup parseTop() {
    LibertyGroup top;
    top.line = tok_.line;
    body(top, /*top=*/true);
    if (top.groups.size() != 1 || top.groups[0].type != "library")
      lex_.fail(top.line, "the file must hold one library (...) { } group");
    return std::move(top.groups[0]);
  }

 private:
  Token take() {
    Token t = tok_;
    tok_ = lex_.next();
    return t;
  }
  bool isPunct(const char* p) const { return tok_.kind == Token::Punct && tok_.text == p; }
  void expect(const char* p) {
    if (!isPunct(p)) lex_.fail(tok_.line, fmt::format("expected '{}', found '{}'", p, tok_.text));
    take();
  }

  void body(LibertyGroup& g, bool top) {
    for (;;) {
      if (tok_.kind == Token::End) {
        if (!top) lex_.fail(tok_.line, fmt::format("group '{}' opened on line {} is not closed", g.type, g.line));
        return;
      }
      if (isPunct("}")) {
        if (top) lex_.fail(tok_.line, "unbalanced '}'");
        take();
        return;
      }
      if (tok_.kind != Token::Word) lex_.fail(tok_.line, fmt::format("expected a name, found '{}'", tok_.text));
      const Token name = take();
      if (isPunct(":")) {
        take();
        std::string value;
        while (tok_.kind != Token::End && !isPunct(";") && !isPunct("}")) {
          if (!value.empty()) value += ' ';
          value += take().text;
        }
        if (isPunct(";")) take();  // the semicolon is optional before a newline in some libraries
        g.simple[name.text] = value;
      } else if (isPunct("(")) {
        take();
        std::vector<std::string> args;
        while (!isPunct(")")) {
          if (tok_.kind == Token::End) lex_.fail(name.line, fmt::format("'{}(' is not closed", name.text));
          if (isPunct(",")) {
            take();
            continue;
          }
          args.push_back(take().text);
        }
        take();
        if (isPunct("{")) {
          take();
          LibertyGroup child;
          child.type = name.text;
          child.args = std::move(args);
          child.line = name.line;
          body(child, false);
          g.groups.push_back(std::move(child));
        } else {
          if (isPunct(";")) take();
          g.complex.emplace_back(name.text, std::move(args));
        }
      } else {
        lex_.fail(name.line, fmt::format("expected ':' or '(' after '{}'", name.text));
      }
    }
  }

  Lexer lex_;
  Token tok_;
};

std::vector<double> numbers(const std::vector<std::string>& args, const std::string& file, int line) {
  std::vector<double> out;
  for (const std::string& a : args) {
    size_t i = 0;
    while (i < a.size()) {
      while (i < a.size() && (a[i] == ',' || std::isspace(static_cast<unsigned char>(a[i])))) ++i;
      if (i >= a.size()) break;
      char* end = nullptr;
      const double v = std::strtod(a.c_str() + i, &end);
      if (end == a.c_str() + i) throw Error(fmt::format("{}:{}: liberty: '{}' is not a list of numbers", file, line, a));
      out.push_back(v);
      i = static_cast<size_t>(end - a.c_str());
    }
  }
  return out;
}

double number(const std::string& s, const std::string& file, int line) {
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end == s.c_str()) throw Error(fmt::format("{}:{}: liberty: '{}' is not a number", file, line, s));
  return v;
}

const std::vector<std::string>* complexAttr(const LibertyGroup& g, const std::string& name) {
  for (const auto& [n, a] : g.complex)
    if (n == name) return &a;
  return nullptr;
}

LibertyTable table(const LibertyGroup& g, const std::map<std::string, const LibertyGroup*>& templates,
                   const std::string& file) {
  LibertyTable t;
  const LibertyGroup* tmpl = nullptr;
  if (!g.args.empty()) {
    auto it = templates.find(g.args[0]);
    if (it == templates.end() && g.args[0] != "scalar")
      throw Error(fmt::format("{}:{}: liberty: table template '{}' is not defined", file, g.line, g.args[0]));
    if (it != templates.end()) tmpl = it->second;
  }
  auto pick = [&](const char* what, const LibertyGroup* src) -> const std::vector<std::string>* {
    if (const auto* a = complexAttr(g, what)) return a;
    return src ? complexAttr(*src, what) : nullptr;
  };
  if (tmpl) {
    if (const auto* v = tmpl->attr("variable_1")) t.var1 = *v;
    if (const auto* v = tmpl->attr("variable_2")) t.var2 = *v;
  }
  if (const auto* a = pick("index_1", tmpl)) t.index1 = numbers(*a, file, g.line);
  if (const auto* a = pick("index_2", tmpl)) t.index2 = numbers(*a, file, g.line);
  if (const auto* a = complexAttr(g, "values")) t.values = numbers(*a, file, g.line);
  const size_t rows = std::max<size_t>(1, t.index1.size()), cols = std::max<size_t>(1, t.index2.size());
  if (t.values.size() != rows * cols)
    throw Error(fmt::format("{}:{}: liberty: table has {} values for {} x {} indices", file, g.line, t.values.size(),
                            rows, cols));
  return t;
}

// Linear interpolation weights of x over the axis (extrapolating at the ends).
void weights(const std::vector<double>& axis, double x, size_t& i, double& f) {
  if (axis.size() < 2) {
    i = 0;
    f = 0.0;
    return;
  }
  i = 0;
  while (i + 2 < axis.size() && x > axis[i + 1]) ++i;
  const double span = axis[i + 1] - axis[i];
  f = span != 0.0 ? (x - axis[i]) / span : 0.0;
}

}  // namespace

const std::string* LibertyGroup::attr(const std::string& name) const {
  auto it = simple.find(name);
  return it == simple.end() ? nullptr : &it->second;
}

std::vector<const LibertyGroup*> LibertyGroup::children(const std::string& t) const {
  std::vector<const LibertyGroup*> out;
  for (const auto& g : groups)
    if (g.type == t) out.push_back(&g);
  return out;
}

LibertyGroup parseLiberty(const std::string& text, const std::string& file) { return Parser(text, file).parseTop(); }

double LibertyTable::lookup(double load_pf, double transition_ns) const {
  auto valueOf = [&](const std::string& var) {
    return var.find("capacitance") != std::string::npos ? load_pf : transition_ns;
  };
  const double x1 = valueOf(var1), x2 = valueOf(var2);
  size_t i = 0, j = 0;
  double fi = 0.0, fj = 0.0;
  weights(index1, x1, i, fi);
  weights(index2, x2, j, fj);
  const size_t cols = std::max<size_t>(1, index2.size());
  auto at = [&](size_t r, size_t c) { return values[std::min(r, std::max<size_t>(1, index1.size()) - 1) * cols + std::min(c, cols - 1)]; };
  const double a = at(i, j) + fj * (at(i, j + 1) - at(i, j));
  const double b = at(i + 1, j) + fj * (at(i + 1, j + 1) - at(i + 1, j));
  return index1.size() < 2 ? a : a + fi * (b - a);
}

const LibertyPin* LibertyCell::pin(const std::string& n) const {
  auto it = pins.find(n);
  return it == pins.end() ? nullptr : &it->second;
}

const LibertyCell& LibertyLibrary::cell(const std::string& n) const {
  auto it = cells.find(n);
  if (it == cells.end()) throw Error(fmt::format("liberty: library {} has no cell {}", name, n));
  return it->second;
}

LibertyLibrary readLiberty(const std::string& text, const std::string& file) {
  const LibertyGroup lib = parseLiberty(text, file);
  LibertyLibrary out;
  out.name = lib.args.empty() ? "" : lib.args[0];
  if (const auto* v = lib.attr("nom_voltage")) out.voltage = number(*v, file, lib.line);
  if (const auto* u = lib.attr("voltage_unit"); u && *u != "1V")
    throw Error(fmt::format("{}: liberty: voltage unit {} (only 1V is read)", file, *u));
  if (const auto* u = lib.attr("leakage_power_unit")) {
    static const std::map<std::string, double> units{{"1W", 1.0},    {"1mW", 1e-3},  {"1uW", 1e-6},
                                                     {"1nW", 1e-9},  {"1pW", 1e-12}, {"100nW", 1e-7},
                                                     {"10nW", 1e-8}, {"100pW", 1e-10}};
    auto it = units.find(*u);
    if (it == units.end()) throw Error(fmt::format("{}: liberty: leakage unit {} not understood", file, *u));
    out.leakage_w = it->second;
  }
  if (const auto* a = complexAttr(lib, "capacitive_load_unit"); a && a->size() == 2) {
    const double k = number((*a)[0], file, lib.line);
    const std::string u = (*a)[1];
    out.cap_pf = u == "pf" ? k : u == "ff" ? k * 1e-3 : u == "nf" ? k * 1e3 : 0.0;
    if (out.cap_pf == 0.0) throw Error(fmt::format("{}: liberty: capacitance unit {} not understood", file, u));
  }
  std::map<std::string, const LibertyGroup*> templates;
  for (const auto& g : lib.groups)
    if ((g.type == "power_lut_template" || g.type == "lu_table_template") && !g.args.empty()) templates[g.args[0]] = &g;

  for (const LibertyGroup* cg : lib.children("cell")) {
    LibertyCell c;
    c.name = cg->args.empty() ? "" : cg->args[0];
    if (const auto* a = cg->attr("area")) c.area = number(*a, file, cg->line);
    if (const auto* a = cg->attr("cell_leakage_power")) c.leakage = number(*a, file, cg->line);
    c.sequential = !cg->children("ff").empty() || !cg->children("latch").empty();
    for (const LibertyGroup* pg : cg->children("pin")) {
      LibertyPin p;
      p.name = pg->args.empty() ? "" : pg->args[0];
      if (const auto* a = pg->attr("direction")) p.direction = *a;
      if (const auto* a = pg->attr("capacitance")) p.capacitance = number(*a, file, pg->line) * out.cap_pf;
      if (const auto* a = pg->attr("clock")) p.clock = *a == "true";
      for (const LibertyGroup* ig : pg->children("internal_power")) {
        LibertyPower w;
        if (const auto* a = ig->attr("related_pin")) w.related_pin = *a;
        for (const LibertyGroup& tg : ig->groups) {
          if (tg.type == "rise_power") w.rise = table(tg, templates, file);
          if (tg.type == "fall_power") w.fall = table(tg, templates, file);
        }
        p.power.push_back(std::move(w));
      }
      c.pins[p.name] = std::move(p);
    }
    out.cells[c.name] = std::move(c);
  }
  if (out.cells.empty()) throw Error(fmt::format("{}: liberty: library {} has no cells", file, out.name));
  return out;
}

}  // namespace rfsim::cost
