/* SPDX-License-Identifier: Apache-2.0 */
#ifndef CARETD_VERSION_H
#define CARETD_VERSION_H
#define CARETD_VERSION "0.1.0"
#endif
