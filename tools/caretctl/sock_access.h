/* SPDX-License-Identifier: Apache-2.0 */
#ifndef CARETCTL_SOCK_ACCESS_H
#define CARETCTL_SOCK_ACCESS_H

#include <stddef.h>

/* Who may connect to the socket at path, from its owner, group and mode,
 * for the permission-denied message. */
void cli_socket_access(const char *path, char *out, size_t len);

#endif
