/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Fuzz targets, in libFuzzer's interface: built with clang -fsanitize=fuzzer
 * for `make fuzz`, or linked with driver.c (a deterministic mutation loop,
 * any compiler) for the short run of `make check`.
 */
#ifndef CARET_FUZZ_H
#define CARET_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
