// The one translation unit that holds Catch2's main() for the app tests.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
