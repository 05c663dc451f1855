// Tokens of PTX source text (PTX ISA 9.0, chapter 4), each with its line and
// column, for the parser and for messages that name the offending token.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace rfsim::ptx {

enum class Tok : uint8_t {
  Ident,      // `foo`, `%r12`, `$L__BB0_2`, `_`, and dotted opcodes/registers: `ld.global.f32`, `%tid.x`
  Directive,  // `.reg`, `.b32`, `.align`, `.L2::128B`: a dot and one word
  Int,        // 12, 0x1F, 017, 0b101, with optional U suffix; a leading `-` is part of it
  Float,      // 0f3F800000, 0d4000000000000000, 1.5
  String,     // "nounroll" (text holds the contents without the quotes)
  Punct,      // one of { } [ ] ( ) , ; : + - @ ! | < > =
  End,
};

struct Token {
  Tok kind = Tok::End;
  std::string text;      // as written (String: unquoted contents)
  uint32_t line = 0, col = 0;
  // Int: value (two's complement when negative).
  int64_t ival = 0;
  // Float: IEEE bits; fwidth is 32 for `0f`, 64 for `0d` and decimal literals.
  uint64_t fbits = 0;
  uint8_t fwidth = 0;

  bool is(Tok k, const char* t) const { return kind == k && text == t; }
  bool punct(char c) const { return kind == Tok::Punct && text.size() == 1 && text[0] == c; }
};

// Splits `text` into tokens ending with one Tok::End. Throws rfsim::Error
// "file:line:col: message" on a character or literal PTX does not have.
// NUL bytes at the end of `text` end the input (PTX taken out of a CUDA
// fatbin is padded with them); one anywhere else is a bad token.
std::vector<Token> lex(const std::string& text, const std::string& file_name);

// `s` with NUL and the other ASCII control characters written as escapes
// (\0, \t, \n, \r, \x1b, ...), so a message quoting source text shows
// them instead of ending or breaking at them.
std::string escapeControl(const std::string& s);

}  // namespace rfsim::ptx
