/* SPDX-License-Identifier: Apache-2.0 */
/*
 * caretd maps the header page of every agent segment shared (it writes the
 * control words and sleeps on futexes there), and the file's untrusted
 * owner can shrink it at any time: the next access would kill caretd with
 * SIGBUS (B2). A guarded mapping that faults is replaced, from the signal
 * handler, by an anonymous page (zeros), the access completes, and the
 * guard is marked tripped so the registry drops the segment. Wayland
 * compositors treat client shm pools the same way (wl_shm_buffer_begin_access
 * in wayland-server's wayland-shm.c). A SIGBUS anywhere else still kills.
 */
#ifndef CARETD_SIGBUS_H
#define CARETD_SIGBUS_H

#include <stdbool.h>
#include <stddef.h>

/* Mappings guarded at once: the most agents caretd attaches. */
#define SIGBUS_GUARDS 4096

int sigbus_install(void);
/* A slot for [base, base + len) (page-aligned), or -ENOSPC. */
int sigbus_guard(void *base, size_t len);
/* Frees the slot (before the mapping is unmapped). */
void sigbus_unguard(int slot);
/* True once an access through the slot's mapping faulted. */
bool sigbus_tripped(int slot);

#endif
