/* SPDX-License-Identifier: Apache-2.0 */
/* One version for the package: caretd, caretctl and caret-agentctl print
 * it, debian/changelog and tests/integration/test_deb.py check it. In
 * proto/ because every program may include proto/, and tools/ may not
 * include daemon/ (tests/unit/check_layers.py). */
#ifndef CARET_VERSION_H
#define CARET_VERSION_H
#define CARETD_VERSION "0.1.0"
#endif
