/* SPDX-License-Identifier: Apache-2.0 */
/* The version lives in proto/caret_version.h (tools/ print it too); this
 * name stays only for daemon/commands.c and daemon/main.c until they
 * include that header themselves. */
#ifndef CARETD_VERSION_H
#define CARETD_VERSION_H
#include "proto/caret_version.h"
#endif
