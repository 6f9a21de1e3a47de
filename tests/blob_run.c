/*
 * blob_run INSTALL_DIR: run every jam of a built package injected (from its
 * blob) and as a Local Function, compare, and print one line per run.
 * tests/test_tc_pkg.sh builds it natively and for aarch64 (run under
 * qemu-aarch64-static) and checks both print the same lines.
 * Exit: 0 all agree, 1 a mismatch or load failure (reason on stderr).
 */
#include "blob_exec.h"

int main(int argc, char **argv)
{
    char why[512];

    if (argc != 2) {
        fprintf(stderr, "usage: blob_run INSTALL_DIR\n");
        return 2;
    }
    if (tc_test_run_package(argv[1], stdout, why, sizeof(why)) != 0) {
        fprintf(stderr, "blob_run: %s\n", why);
        return 1;
    }
    return 0;
}
