// Catch2 runner under SystemC's sc_main (see common/sc_entry.cpp); ctest
// runs each test case in its own process (catch_discover_tests), so a test may
// elaborate and run a SystemC model once.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <cstdlib>
#include <systemc>

#include "mech/mechanism.h"

int sc_main(int argc, char* argv[]) {
  rfsim::mech::registerMechanisms();
  return Catch::Session().run(argc, argv);
}
