/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What differs between the kernels pmuctl.ko builds for (Debian's 6.1 and
 * 6.12), and nowhere else.  Kbuild detects the features from the headers.
 */
#ifndef PMUCTL_KMOD_COMPAT_H
#define PMUCTL_KMOD_COMPAT_H

#include <linux/syscore_ops.h>

/*
 * syscore ops: callbacks take a context pointer, and the ops hang off a
 * struct syscore, where linux/syscore_ops.h defines one (Debian's
 * 6.12.117); before that, register_syscore_ops() (6.1).
 */
#ifdef PMUCTL_HAVE_STRUCT_SYSCORE
#define PMUCTL_SYSCORE_ARGS	void *data
#else
#define PMUCTL_SYSCORE_ARGS	void
#endif

struct pmuctl_syscore {
#ifdef PMUCTL_HAVE_STRUCT_SYSCORE
	struct syscore sc;
#endif
	struct syscore_ops ops;
};

static inline void pmuctl_syscore_register(struct pmuctl_syscore *p)
{
#ifdef PMUCTL_HAVE_STRUCT_SYSCORE
	p->sc.ops = &p->ops;
	register_syscore(&p->sc);
#else
	register_syscore_ops(&p->ops);
#endif
}

static inline void pmuctl_syscore_unregister(struct pmuctl_syscore *p)
{
#ifdef PMUCTL_HAVE_STRUCT_SYSCORE
	unregister_syscore(&p->sc);
#else
	unregister_syscore_ops(&p->ops);
#endif
}

#endif /* PMUCTL_KMOD_COMPAT_H */
