/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "daemon/base/sigbus.h"

/* Read by the handler: plain words, written with atomics, never moved. */
static struct {
	uintptr_t base;
	size_t len;
	int tripped;
} guards[SIGBUS_GUARDS];

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	uintptr_t a = (uintptr_t)si->si_addr;
	for (int i = 0; i < SIGBUS_GUARDS; i++) {
		uintptr_t b = __atomic_load_n(&guards[i].base, __ATOMIC_ACQUIRE);
		size_t len = __atomic_load_n(&guards[i].len, __ATOMIC_ACQUIRE);
		if (!b || a < b || a >= b + len)
			continue;
		/* mmap is a plain system call here, safe in a handler */
		void *p = mmap((void *)b, len, PROT_READ | PROT_WRITE,
			       MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p != MAP_FAILED) {
			__atomic_store_n(&guards[i].tripped, 1, __ATOMIC_RELEASE);
			return; /* the faulting access runs again, on zeros */
		}
		break;
	}
	/* Not ours: die of it, as without a handler (sigaction is safe here,
	 * signal() is not listed as such). */
	struct sigaction dfl;
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigaction(sig, &dfl, NULL);
}

int sigbus_install(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sigbus;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	return sigaction(SIGBUS, &sa, NULL) < 0 ? -errno : 0;
}

int sigbus_guard(void *base, size_t len)
{
	for (int i = 0; i < SIGBUS_GUARDS; i++) {
		if (__atomic_load_n(&guards[i].base, __ATOMIC_ACQUIRE))
			continue;
		guards[i].tripped = 0;
		__atomic_store_n(&guards[i].len, len, __ATOMIC_RELEASE);
		__atomic_store_n(&guards[i].base, (uintptr_t)base, __ATOMIC_RELEASE);
		return i;
	}
	return -ENOSPC;
}

void sigbus_unguard(int slot)
{
	if (slot >= 0 && slot < SIGBUS_GUARDS)
		__atomic_store_n(&guards[slot].base, 0, __ATOMIC_RELEASE);
}

bool sigbus_tripped(int slot)
{
	return slot >= 0 && slot < SIGBUS_GUARDS &&
	       __atomic_load_n(&guards[slot].tripped, __ATOMIC_ACQUIRE);
}
