#include "config.h"
#include "tests/testutil.h"
int main (void) { return test_skip_all ("not written yet"); }
