// Generators are templates (pspmv/generators.hpp); this unit checks the header compiles alone.
#include "pspmv/io/generators.hpp"
