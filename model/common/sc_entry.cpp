// The process entry of every rfsim program. SystemC's library has a main()
// that prints its banner before calling sc_main(); this one replaces it so the
// banner can be turned off first (SystemC reads the variable only once, at
// start-up), then enters sc_main() through the same sc_elab_and_sim().
#include <cstdlib>

#include <systemc>

int main(int argc, char* argv[]) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  return sc_core::sc_elab_and_sim(argc, argv);
}
