#include "ptx/lexer.h"

#include <cctype>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

#include "common/error.h"

namespace rfsim::ptx {

namespace {

bool isIdentStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '%'; }
bool isFollow(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$'; }

class Lexer {
 public:
  Lexer(const std::string& text, const std::string& file) : s_(text), file_(file) {}

  std::vector<Token> run() {
    std::vector<Token> out;
    for (;;) {
      skipSpaceAndComments();
      Token t;
      t.line = line_;
      t.col = col();
      if (i_ >= s_.size()) {
        t.kind = Tok::End;
        out.push_back(std::move(t));
        return out;
      }
      const char c = s_[i_];
      const char n = i_ + 1 < s_.size() ? s_[i_ + 1] : '\0';
      if (std::isdigit(static_cast<unsigned char>(c)) ||
          (c == '-' && std::isdigit(static_cast<unsigned char>(n)))) {
        number(t);
      } else if (isIdentStart(c)) {
        ident(t);
      } else if (c == '.' && (isFollow(n))) {
        t.kind = Tok::Directive;
        const size_t b = i_++;
        word();
        t.text = s_.substr(b, i_ - b);
      } else if (c == '"') {
        string(t);
      } else if (c != '\0' && std::strchr("{}[](),;:+-@!|<>=", c) != nullptr) {
        t.kind = Tok::Punct;
        t.text = std::string(1, c);
        ++i_;
      } else {
        fail(t.line, t.col, fmt::format("bad token '{}'", printable(c)));
      }
      out.push_back(std::move(t));
    }
  }

 private:
  uint32_t col() const { return static_cast<uint32_t>(i_ - line_start_ + 1); }

  [[noreturn]] void fail(uint32_t line, uint32_t col, const std::string& msg) const {
    throw Error(fmt::format("{}:{}:{}: {}", file_, line, col, escapeControl(msg)));
  }

  // A character outside printable ASCII as \xNN (control characters as
  // escapeControl writes them).
  static std::string printable(char c) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isprint(u)) return std::string(1, c);
    if (u < 0x80) return escapeControl(std::string(1, c));
    return fmt::format("\\x{:02x}", static_cast<unsigned>(u));
  }

  void newline() {
    ++line_;
    line_start_ = i_ + 1;
  }

  void skipSpaceAndComments() {
    while (i_ < s_.size()) {
      const char c = s_[i_];
      if (c == '\n') {
        newline();
        ++i_;
      } else if (std::isspace(static_cast<unsigned char>(c))) {
        ++i_;
      } else if (c == '/' && i_ + 1 < s_.size() && s_[i_ + 1] == '/') {
        while (i_ < s_.size() && s_[i_] != '\n') ++i_;
      } else if (c == '/' && i_ + 1 < s_.size() && s_[i_ + 1] == '*') {
        const uint32_t l = line_, k = col();
        i_ += 2;
        for (;;) {
          if (i_ + 1 >= s_.size()) fail(l, k, "unterminated comment");
          if (s_[i_] == '*' && s_[i_ + 1] == '/') break;
          if (s_[i_] == '\n') newline();
          ++i_;
        }
        i_ += 2;
      } else {
        break;
      }
    }
  }

  // One word after a dot or an identifier start; `::` joins parts
  // (`.L2::evict_last`, `.shared::cta`).
  void word() {
    for (;;) {
      while (i_ < s_.size() && isFollow(s_[i_])) ++i_;
      if (i_ + 2 < s_.size() && s_[i_] == ':' && s_[i_ + 1] == ':' && isFollow(s_[i_ + 2])) {
        i_ += 2;
        continue;
      }
      return;
    }
  }

  void ident(Token& t) {
    t.kind = Tok::Ident;
    const size_t b = i_++;
    while (i_ < s_.size() && isFollow(s_[i_])) ++i_;
    // Dotted suffixes belong to the identifier: opcodes with modifiers
    // (`ld.global.nc.v4.f32`) and special registers (`%tid.x`).
    while (i_ + 1 < s_.size() && s_[i_] == '.' && isFollow(s_[i_ + 1])) {
      ++i_;
      word();
    }
    t.text = s_.substr(b, i_ - b);
  }

  void string(Token& t) {
    t.kind = Tok::String;
    ++i_;
    std::string v;
    for (;;) {
      if (i_ >= s_.size() || s_[i_] == '\n') fail(t.line, t.col, "unterminated string");
      const char c = s_[i_++];
      if (c == '"') break;
      if (c == '\\' && i_ < s_.size()) {
        const char e = s_[i_++];
        v += e == 'n' ? '\n' : e == 't' ? '\t' : e;
        continue;
      }
      v += c;
    }
    t.text = std::move(v);
  }

  static int hexDigit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  }

  void number(Token& t) {
    const size_t b = i_;
    const bool neg = s_[i_] == '-';
    if (neg) ++i_;
    auto at = [&](size_t k) { return k < s_.size() ? s_[k] : '\0'; };
    auto badNumber = [&]() {
      size_t e = i_;
      while (e < s_.size() && (isFollow(s_[e]) || s_[e] == '.')) ++e;
      fail(t.line, t.col, fmt::format("bad number '{}'", s_.substr(b, e - b)));
    };
    const char c0 = at(i_), c1 = at(i_ + 1);
    if (c0 == '0' && (c1 == 'f' || c1 == 'F' || c1 == 'd' || c1 == 'D')) {
      // Hex float: exactly 8 (0f) or 16 (0d) hex digits of IEEE bits.
      const unsigned digits = (c1 == 'f' || c1 == 'F') ? 8 : 16;
      i_ += 2;
      uint64_t bits = 0;
      for (unsigned k = 0; k < digits; ++k) {
        const int h = hexDigit(at(i_));
        if (h < 0) badNumber();
        bits = bits << 4 | static_cast<uint64_t>(h);
        ++i_;
      }
      if (isFollow(at(i_))) badNumber();
      if (neg) bits ^= digits == 8 ? 0x80000000ull : 0x8000000000000000ull;
      t.kind = Tok::Float;
      t.fbits = bits;
      t.fwidth = static_cast<uint8_t>(digits * 4);
      t.text = s_.substr(b, i_ - b);
      return;
    }
    uint64_t v = 0;
    bool overflow = false;
    auto accumulate = [&](unsigned base, int d) {
      const uint64_t nv = v * base + static_cast<uint64_t>(d);
      if (v != 0 && (nv - static_cast<uint64_t>(d)) / base != v) overflow = true;
      v = nv;
    };
    if (c0 == '0' && (c1 == 'x' || c1 == 'X')) {
      i_ += 2;
      if (hexDigit(at(i_)) < 0) badNumber();
      while (hexDigit(at(i_)) >= 0) accumulate(16, hexDigit(s_[i_++]));
    } else if (c0 == '0' && (c1 == 'b' || c1 == 'B')) {
      i_ += 2;
      if (at(i_) != '0' && at(i_) != '1') badNumber();
      while (at(i_) == '0' || at(i_) == '1') accumulate(2, s_[i_++] - '0');
    } else {
      const size_t ds = i_;
      while (std::isdigit(static_cast<unsigned char>(at(i_)))) ++i_;
      const bool is_float = (at(i_) == '.' && std::isdigit(static_cast<unsigned char>(at(i_ + 1)))) ||
                            at(i_) == 'e' || at(i_) == 'E';
      if (is_float) {
        if (at(i_) == '.') {
          ++i_;
          while (std::isdigit(static_cast<unsigned char>(at(i_)))) ++i_;
        }
        if (at(i_) == 'e' || at(i_) == 'E') {
          ++i_;
          if (at(i_) == '+' || at(i_) == '-') ++i_;
          if (!std::isdigit(static_cast<unsigned char>(at(i_)))) badNumber();
          while (std::isdigit(static_cast<unsigned char>(at(i_)))) ++i_;
        }
        if (isFollow(at(i_))) badNumber();
        const double d = std::strtod(s_.substr(b, i_ - b).c_str(), nullptr);  // inf when out of range
        std::memcpy(&t.fbits, &d, 8);
        t.kind = Tok::Float;
        t.fwidth = 64;
        t.text = s_.substr(b, i_ - b);
        return;
      }
      const bool octal = s_[ds] == '0' && i_ - ds > 1;
      for (size_t k = ds; k < i_; ++k) {
        const int d = s_[k] - '0';
        if (octal && d > 7) badNumber();
        accumulate(octal ? 8 : 10, d);
      }
    }
    if (at(i_) == 'U' || at(i_) == 'u') ++i_;
    if (isFollow(at(i_))) badNumber();
    if (overflow) fail(t.line, t.col, fmt::format("integer literal '{}' does not fit in 64 bits", s_.substr(b, i_ - b)));
    t.kind = Tok::Int;
    t.ival = static_cast<int64_t>(neg ? ~v + 1 : v);
    t.text = s_.substr(b, i_ - b);
  }

  const std::string& s_;
  const std::string& file_;
  size_t i_ = 0;
  size_t line_start_ = 0;
  uint32_t line_ = 1;
};

}  // namespace

std::vector<Token> lex(const std::string& text, const std::string& file_name) {
  size_t n = text.size();
  while (n > 0 && text[n - 1] == '\0') --n;
  if (n == text.size()) return Lexer(text, file_name).run();
  const std::string trimmed = text.substr(0, n);
  return Lexer(trimmed, file_name).run();
}

std::string escapeControl(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    switch (c) {
      case '\0': out += "\\0"; break;
      case '\t': out += "\\t"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      default:
        if (u < 0x20 || u == 0x7f) out += fmt::format("\\x{:02x}", static_cast<unsigned>(u));
        else out += c;
    }
  }
  return out;
}

}  // namespace rfsim::ptx
