// The IR the PTX front end produces and every later layer reads: a module of
// functions, each a list of basic blocks of decoded instructions over typed
// virtual registers. It is a plain data structure (docs/architecture.md: the
// compiler and the simulator talk through data, not through each other's
// internals).
//
// Decoding happens once, at load: every opcode, type and modifier is an enum,
// every operand names a register id, an immediate, a symbol or a block, so an
// executor can switch on them without looking at text again.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace rfsim::ptx {

// ---------------------------------------------------------------------------
// Types and state spaces (PTX ISA 9.0, sections 5.1 and 5.2).

enum class Type : uint8_t {
  None,
  Pred,
  B8, B16, B32, B64, B128,
  U8, U16, U32, U64,
  S8, S16, S32, S64,
  F16, F16x2, BF16, BF16x2, F32, F64,
};
unsigned typeBits(Type t);  // Pred: 1; None: 0
bool isSigned(Type t);      // S*
bool isFloat(Type t);       // F*, BF*
bool isBits(Type t);        // B*
const char* typeName(Type t);  // "s32", "f64", ...

enum class Space : uint8_t { None, Generic, Global, Shared, Local, Const, Param, Reg };
const char* spaceName(Space s);

// ---------------------------------------------------------------------------
// Opcodes (PTX ISA 9.0, chapter 9). One enum value per base opcode; the
// variants are in the modifiers.

enum class Op : uint8_t {
  // data movement and conversion
  Mov, Ld, Ldu, St, Cvta, Cvt, Prefetch,
  // integer and float arithmetic
  Add, Sub, Mul, Mad, Mul24, Mad24, Div, Rem, Abs, Neg, Min, Max, Fma, Sad,
  Rcp, Sqrt, Rsqrt, Ex2, Lg2, Sin, Cos, Tanh, Copysign, Testp,
  // bit manipulation
  And, Or, Xor, Not, Cnot, Shl, Shr, Popc, Clz, Brev, Bfe, Bfi, Prmt, Lop3, Shf, Bfind, Fns, Bmsk,
  // comparison and selection
  Setp, Set, Selp, Slct,
  // control flow
  Bra, Call, Ret, Exit, Trap, Brkpt,
  // synchronisation and communication
  Bar, Membar, Fence, Atom, Red, Shfl, Vote, Activemask, Match, Nanosleep,
  // integer dot products and special
  Dp4a, Dp2a,
  // an instruction a mechanism added to the machine ISA (Instr::ext; ptx/isa_ext.h)
  Ext,
  Count_
};
const char* opName(Op op);

// Comparison operators of setp/set/slct (PTX ISA 9.7.6.1, 9.7.4.x).
enum class Cmp : uint8_t {
  None, Eq, Ne, Lt, Le, Gt, Ge,
  Lo, Ls, Hi, Hs,                      // unsigned
  Equ, Neu, Ltu, Leu, Gtu, Geu, Num, Nan  // unordered float
};
// Boolean combiners (setp's .and/.or/.xor with a predicate; also vote modes).
enum class BoolOp : uint8_t { None, And, Or, Xor };
// Rounding: floating (rn rz rm rp) and integer (rni rzi rmi rpi).
enum class Round : uint8_t { None, Rn, Rz, Rm, Rp, Rna, Rni, Rzi, Rmi, Rpi };
// mul/mad result part.
enum class MulMode : uint8_t { None, Lo, Hi, Wide };
enum class AtomOp : uint8_t { None, Add, Min, Max, Exch, Cas, And, Or, Xor, Inc, Dec };
enum class ShflMode : uint8_t { None, Up, Down, Bfly, Idx };
enum class VoteMode : uint8_t { None, All, Any, Uni, Ballot };
// Special registers (PTX ISA 10).
enum class SReg : uint8_t {
  None, Tid, Ntid, Ctaid, Nctaid, Laneid, Warpid, Nwarpid, Smid, Nsmid, Gridid,
  Clock, Clock64, LanemaskEq, LanemaskLe, LanemaskLt, LanemaskGe, LanemaskGt,
  DynamicSmemSize, TotalSmemSize, GlobalTimer, Envreg,
};

struct Mods {
  Cmp cmp = Cmp::None;
  BoolOp boolop = BoolOp::None;
  Round round = Round::None;
  MulMode mul = MulMode::None;
  AtomOp atom = AtomOp::None;
  ShflMode shfl = ShflMode::None;
  VoteMode vote = VoteMode::None;
  uint8_t vec = 1;        // .v2 / .v4 on ld/st/mov
  bool ftz = false;
  bool sat = false;
  bool approx = false;    // .approx (rcp, sqrt, sin, ...); .full on div is approx = false, full = true
  bool full = false;
  bool uni = false;       // bra.uni / call.uni
  bool volatile_ = false; // ld.volatile / st.volatile
  bool relaxed_or_stronger = false;  // .relaxed/.acquire/.release/.sc given (memory-model qualifiers)
  bool nc = false;        // ld.global.nc
  bool to = false;        // cvta.to.<space> (else cvta.<space>: to generic)
  bool sync = false;      // .sync forms (shfl.sync, vote.sync, bar.sync/barrier.sync)
  bool aligned = false;   // barrier.sync.aligned
  bool arrive = false;    // bar.arrive
  bool red_popc = false;  // bar.red.popc (BoolOp carries .and/.or)
  bool shift_clamp = false;  // shf.l.clamp vs .wrap; shf direction in mul: Lo = left, Hi = right
  bool cc = false;        // add.cc/addc: carry out
  bool carry_in = false;  // addc/subc
  // Added by the parser (appended, layout above unchanged):
  bool warp = false;      // bar.warp.sync (a warp-level barrier on a member mask)
  bool shiftamt = false;  // bfind.shiftamt: shift amount instead of bit position
  // ld/st: the last source is a register the address adds (SASS's
  // [R+UR+imm] form; no PTX syntax: passes make it, e.g. a uniform offset
  // a mechanism's pass gives a loop's updates).
  bool uaddr = false;
};

// ---------------------------------------------------------------------------
// Operands.

enum class OperandKind : uint8_t {
  None,
  Reg,      // regs[0]
  Vec,      // {regs[0..vec_n)}: vector operand of ld/st/mov (a sink `_` is kNoReg; in a
            // source, kNoReg is an immediate element, its value at bits [i*w, (i+1)*w) of the
            // 128 bits imm_hi:imm (vecImm/setVecImm), w the element width: typeBits(type) /
            // vec_n for mov, typeBits(type) for ld/st)
  Imm,      // imm: integer value, or the IEEE bits of a float literal (0f..., 0d..., 1.5)
  SReg,     // sreg, dim (0=x 1=y 2=z; 0 for scalar special registers)
  Sym,      // sym: the address of a variable, or a function (for indirect calls/function pointers)
  Addr,     // [base + imm]: base is regs[0] (reg != kNoReg) or sym (sym != kNoSym); imm is the offset
  Label,    // block: a branch target (block index in the function)
  PredOut,  // the `|%p` second destination of setp/shfl: regs[0] (kNoReg for `_`)
};

inline constexpr uint32_t kNoReg = 0xffffffffu;
inline constexpr uint32_t kNoSym = 0xffffffffu;

struct Operand {
  OperandKind kind = OperandKind::None;
  uint8_t vec_n = 0;   // Vec: number of elements
  SReg sreg = SReg::None;
  uint8_t dim = 0;
  bool negate = false;  // `!%p` as a source predicate
  // Machine programs only (back end, ptx/machine.h): the width in bits of the
  // value in the register(s): 1 (predicate), 16, 32 or 64 (an aligned pair
  // regs[i], regs[i]+1, low word in the even register). 0 in a PTX program,
  // where the register's declared type gives the width.
  uint8_t mbits = 0;
  std::array<uint32_t, 4> regs{kNoReg, kNoReg, kNoReg, kNoReg};
  int64_t imm = 0;
  int64_t imm_hi = 0;      // Vec: bits 64..127 of the immediate elements (a .v4.b32 or .v2.b64 source)
  uint32_t sym = kNoSym;   // index into Module::symbols
  uint32_t block = 0;      // Label
};

// The immediate elements of a Vec source: element i of width w (8..64 bits)
// at bits [i*w, (i+1)*w) of imm_hi:imm. An element past bit 128 (a 256-bit
// .v4.b64 access) reads as 0; setVecImm returns false for a nonzero one.
uint64_t vecImm(const Operand& o, unsigned i, unsigned w);
bool setVecImm(Operand& o, unsigned i, unsigned w, uint64_t v);

// ---------------------------------------------------------------------------
// Instructions.

struct SrcLoc {
  uint32_t line = 0;  // 1-based, in the PTX file
  uint32_t col = 0;
};

struct CallInfo {
  bool indirect = false;
  // Machine programs only: the physical registers the call reads (arguments)
  // and writes (results), one id per 32-bit register (a pair is two ids);
  // args/rets below are then the arguments passed on the stack, if any.
  std::vector<uint32_t> machine_uses, machine_defs;
  // Machine programs only: when clobbers_known, the registers the call may
  // change (one id per register), because the back end compiled the callee
  // and everything it calls in this module (whole-program knowledge, as
  // ptxas uses it for a callee defined in the same unit); otherwise every
  // register the ABI lets a call change (mach::Abi::clobberedByCall).
  bool clobbers_known = false;
  std::vector<uint32_t> machine_clobbers;
  uint32_t callee = 0;        // function index (direct)
  uint32_t target_reg = kNoReg;  // register holding the function address (indirect)
  uint32_t prototype = kNoSym;   // index into Module::prototypes (indirect calls), or kNoSym
  std::vector<uint32_t> targets;  // .calltargets list (function indices), if given
  std::vector<uint32_t> args;     // Param-space symbols passed as arguments, in order
  std::vector<uint32_t> rets;     // Param-space symbols receiving return values
};

// What a machine instruction is for (back end). Plain code is Code; the rest
// are the instructions the back end adds, which later passes and the
// statistics tell apart (a register stack replaces Save/Restore with pushes
// and pops; Spill/Fill are register-pressure traffic).
enum class MRole : uint8_t {
  Code,
  Spill,     // st.local of a value evicted for register pressure
  Fill,      // ld.local reloading a spilled value
  Save,      // prologue: st.local of a callee-saved register (ABI)
  Restore,   // epilogue: ld.local of a callee-saved register (ABI)
  StackAdj,  // stack pointer adjustment of a prologue or epilogue
  ArgMove,   // a move into or out of an argument/result register (call sequence)
  ArgStack,  // a stack-passed argument or result (call sequence)
  DemStore,  // st.shared of a register demoted to shared memory, after its write
  DemLoad,   // ld.shared of a demoted register, before its read
};
const char* mroleName(MRole r);

struct Instr {
  Op op = Op::Mov;
  Type type = Type::None;   // the instruction type (.s32 of add.s32, destination type of cvt)
  Type type2 = Type::None;  // second type: cvt's source, setp's compared type when set has two, ...
  Space space = Space::None;  // ld/st/atom/red/cvta/prefetch space; Generic when none is written
  Mods mods;
  // Guard predicate `@%p` / `@!%p`: guard.kind == Reg when present.
  Operand guard;
  // Destinations then sources, in the order PTX writes them (for st: the
  // address is src[0], the value src[1]; for atom: dst[0], address src[0],
  // operands src[1..]).
  uint8_t ndst = 0, nsrc = 0;
  std::array<Operand, 2> dst;
  std::array<Operand, 5> src;
  uint32_t call = kNoSym;  // index into Function::calls for Op::Call
  SrcLoc loc;
  // Machine programs only.
  MRole role = MRole::Code;
  uint16_t ext = 0;   // Op::Ext: the instruction's id in the ISA extension table (ptx/isa_ext.h)
  uint64_t ctrl = 0;  // control fields registered by mechanisms (ptx/isa_ext.h); 0: none
  // Bit k < 5: the values src[k] reads are not read again after this instruction; bit 5: the guard's.
  // Marked by the back end on its values before registers are assigned, so where two values share
  // a register (a coalesced copy) a bit can be set while the register still holds a live value:
  // a pass that needs register-level bits marks them again.
  uint8_t dead = 0;
  // Maxwell-style dependency control (sm.dependency: barriers; backend/depctl.h),
  // as SASS control codes hold it: the cycles before the warp's next
  // instruction may issue (stall, 1..15; 0: not assigned), the dependency
  // barrier the instruction sets when its results are written (wbar) and
  // when its sources have been read (rbar), 1..6 for barriers 0..5 (0: none),
  // and the barriers it waits on before it issues (bit b: barrier b).
  uint8_t stall = 0, wbar = 0, rbar = 0, wait = 0;
};

struct BasicBlock {
  std::string label;  // PTX label, or "" for the entry / a fall-through block
  std::vector<Instr> instrs;
  // Filled by analysis (cfg.h): successor and predecessor block indices.
  std::vector<uint32_t> succs, preds;
  // `.pragma "nounroll";` inside the block (NVVM marks the loops it kept
  // rolled, a remainder loop among them): the back end leaves it rolled.
  bool nounroll = false;
};

// ---------------------------------------------------------------------------
// Symbols: module-level variables, function parameters, function-local
// variables (.local/.shared/.param declared in a body or a call sequence).

struct Symbol {
  std::string name;
  Space space = Space::None;
  Type type = Type::None;
  uint32_t align = 0;         // bytes; 0 = natural alignment of type
  uint64_t count = 1;         // array elements (0 for `[]`, unsized extern)
  uint64_t size = 0;          // bytes = count * element size
  bool is_extern = false;
  bool is_visible = false;
  bool is_weak = false;       // .weak/.common variable: the linker keeps one definition (a strong one if any)
  bool is_managed = false;    // .attribute(.managed): __managed__, shared with the host (unified memory)
  bool is_function = false;   // a function's address (`mov.u64 %rd, func`)
  uint32_t function = 0;      // when is_function
  int32_t owner = -1;         // function index for function-scoped symbols; -1 for module scope
  std::vector<uint8_t> init;  // initial bytes (little-endian), empty if none
  // Initialisers that are addresses (`{0, 0, _ZNK2Sq4areaEv}`): byte offset
  // within `init` -> symbol whose address goes there, as a 64-bit generic address.
  std::vector<std::pair<uint64_t, uint32_t>> init_addrs;
  SrcLoc loc;
};

struct RegInfo {
  std::string name;  // "%r12", "%p3", "%fd1"
  Type type = Type::None;
  // A PTX-level mechanism pass may pin a virtual register to a register of an
  // extension class (ptx/isa_ext.h; a 32-bit type, or a 64-bit one on an
  // even register of the class and the next): the back end lowers it to
  // that machine register and never allocates it. 0: not pinned.
  uint32_t ext_reg = 0;
};

struct Function {
  std::string name;
  bool is_entry = false;     // .entry (kernel)
  bool is_extern = false;    // declared, no body (malloc, free, vprintf, ...)
  bool is_visible = false;
  bool noreturn = false;
  bool is_weak = false;      // .weak (or .common): the linker may bind calls to another definition
  // The module (translation unit) it came from when modules were linked
  // (ptx/link.h): 0 for the first. Its compiler did not know the functions
  // of other units, so a call into another unit follows the full ABI.
  uint32_t unit = 0;
  std::vector<uint32_t> params;   // Param-space symbols, in order
  std::vector<uint32_t> rets;     // Param-space return symbols (func_retval0 ...)
  std::vector<RegInfo> regs;      // virtual registers, indexed by Operand::regs
  std::vector<BasicBlock> blocks; // blocks[0] is the entry
  std::vector<CallInfo> calls;    // indexed by Instr::call
  std::vector<uint32_t> locals;   // symbols declared inside the body (local/shared/param)
  // Directives kept for the back end and the workloads' reports.
  uint32_t maxntid[3] = {0, 0, 0}, reqntid[3] = {0, 0, 0};
  uint32_t minnctapersm = 0, maxnreg = 0;
  std::vector<std::string> pragmas;
  SrcLoc loc;
  // Machine programs only (back end): registers the function reads on entry
  // (its register arguments) and the ret reads (its register results), one id
  // per 32-bit register; the hardware register count (highest register used
  // + 1, R1 included); the stack frame in bytes.
  std::vector<uint32_t> machine_args, machine_rets;
  uint32_t machine_regs = 0;
  uint32_t machine_frame = 0;
};

// A .callprototype declaration (used by indirect calls).
struct Prototype {
  std::string label;
  std::vector<Type> params, rets;
  std::vector<uint64_t> param_sizes, ret_sizes;
};

struct Module {
  std::string file;           // where it was parsed from, for messages
  uint32_t version_major = 0, version_minor = 0;  // .version
  std::string target;         // "sm_75"
  uint32_t address_size = 64;
  // A machine program (ptx/machine.h): every function's registers are the
  // physical registers, operands carry Operand::mbits, calls pass values by
  // the back end's calling convention. False for a PTX program.
  bool machine = false;
  std::vector<Function> functions;
  std::vector<Symbol> symbols;
  std::vector<Prototype> prototypes;
  std::unordered_map<std::string, uint32_t> function_index;  // by name
  std::unordered_map<std::string, uint32_t> global_symbols;  // module-scope symbols by name

  const Function* findFunction(const std::string& name) const {
    auto it = function_index.find(name);
    return it == function_index.end() ? nullptr : &functions[it->second];
  }
};

}  // namespace rfsim::ptx
