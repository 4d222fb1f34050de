// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Metric formulas: a recursive-descent parser into an array of nodes and
 * a lazy evaluator (expr.h has the grammar).
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expr.h"

#define EXPR_MAX_NODES	65536
#define EXPR_MAX_DEPTH	200

enum expr_op {
	X_NUM, X_VAR, X_NEG,
	X_ADD, X_SUB, X_MUL, X_DIV,
	X_LT, X_GT, X_LE, X_GE, X_EQ,
	X_AND, X_OR, X_MIN, X_MAX, X_IF,
};

struct expr_node {
	enum expr_op op;
	int a, b, c;		/* operands: node indexes; X_IF: a if b else c */
	unsigned int var;	/* X_VAR */
	int index;		/* X_VAR: NAME[index], -1 for NAME */
	double num;		/* X_NUM */
	unsigned int from, to;	/* its text: [from, to) */
};

struct pmuctl_expr {
	struct expr_node *n;
	unsigned int nr;
	int root;
	char *text;
	char **names;
	unsigned int nnames;
};

struct parser {
	const char *s;
	size_t pos;
	struct pmuctl_expr *e;
	const char *const *names;
	unsigned int nnames;
	unsigned int depth;
	int err;
	char *msg;
	size_t msglen;
};

void pmuctl_say(char *msg, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!msg || !len)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, len, fmt, ap);
	va_end(ap);
}

static int fail(struct parser *p, int err, const char *what)
{
	if (!p->err) {
		p->err = err;
		pmuctl_say(p->msg, p->msglen, "%s at offset %zu: '%.20s'", what, p->pos,
		    p->s + p->pos);
	}
	return -1;
}

static void skip(struct parser *p)
{
	while (p->s[p->pos] == ' ' || p->s[p->pos] == '\t' || p->s[p->pos] == '\n')
		p->pos++;
}

static bool is_name_char(char c, bool first)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (!first && ((c >= '0' && c <= '9') || c == '.'));
}

/* The name at the cursor (not consumed): its length, 0 if none. */
static size_t name_len(const struct parser *p)
{
	size_t n = 0;

	if (!is_name_char(p->s[p->pos], true))
		return 0;
	while (is_name_char(p->s[p->pos + n], n == 0))
		n++;
	return n;
}

/* Is the keyword @kw at the cursor (a whole name)? Consumes it if so. */
static bool keyword(struct parser *p, const char *kw)
{
	size_t n;

	skip(p);
	n = name_len(p);
	if (n != strlen(kw) || strncmp(p->s + p->pos, kw, n))
		return false;
	p->pos += n;
	return true;
}

/* Is @tok at the cursor?  Consumes it if so. */
static bool punct(struct parser *p, const char *tok)
{
	size_t n = strlen(tok);

	skip(p);
	if (strncmp(p->s + p->pos, tok, n))
		return false;
	p->pos += n;
	return true;
}

static int node(struct parser *p, enum expr_op op, int a, int b, int c,
		unsigned int from)
{
	struct pmuctl_expr *e = p->e;
	struct expr_node *x;

	if (p->err)
		return -1;
	if (e->nr == EXPR_MAX_NODES)
		return fail(p, -E2BIG, "formula too long");
	if (!(e->nr & 63)) {
		struct expr_node *grown = realloc(e->n, (e->nr + 64) * sizeof(*grown));

		if (!grown)
			return fail(p, -ENOMEM, "out of memory");
		e->n = grown;
	}
	x = &e->n[e->nr];
	memset(x, 0, sizeof(*x));
	x->op = op;
	x->a = a;
	x->b = b;
	x->c = c;
	x->index = -1;
	x->from = from;
	x->to = (unsigned int)p->pos;
	return (int)e->nr++;
}

static int parse_expr(struct parser *p);

static int parse_primary(struct parser *p)
{
	unsigned int from;
	size_t n;

	skip(p);
	from = (unsigned int)p->pos;
	if ((p->s[p->pos] >= '0' && p->s[p->pos] <= '9') || p->s[p->pos] == '.') {
		char *end;
		double v = strtod(p->s + p->pos, &end);
		int i;

		if (end == p->s + p->pos || is_name_char(*end, true))
			return fail(p, -EINVAL, "bad number");
		p->pos = (size_t)(end - p->s);
		i = node(p, X_NUM, -1, -1, -1, from);
		if (i >= 0)
			p->e->n[i].num = v;
		return i;
	}
	if (punct(p, "(")) {
		int i = parse_expr(p);

		if (i < 0)
			return i;
		if (!punct(p, ")"))
			return fail(p, -EINVAL, "')' expected");
		return i;
	}
	n = name_len(p);
	if (!n)
		return fail(p, -EINVAL, p->s[p->pos] ? "unexpected character" :
						       "unexpected end");
	if ((n == 3 && !strncmp(p->s + p->pos, "min", 3)) ||
	    (n == 3 && !strncmp(p->s + p->pos, "max", 3))) {
		enum expr_op op = p->s[p->pos + 1] == 'i' ? X_MIN : X_MAX;
		size_t save = p->pos;
		int a, b;

		p->pos += 3;
		if (punct(p, "(")) {
			a = parse_expr(p);
			if (a < 0)
				return a;
			if (!punct(p, ","))
				return fail(p, -EINVAL, "',' expected");
			b = parse_expr(p);
			if (b < 0)
				return b;
			if (!punct(p, ")"))
				return fail(p, -EINVAL, "')' expected");
			return node(p, op, a, b, -1, from);
		}
		p->pos = save;
	}
	for (unsigned int v = 0; v < p->nnames; v++) {
		if (strlen(p->names[v]) == n && !strncmp(p->names[v], p->s + p->pos, n)) {
			long index = -1;
			int i;

			p->pos += n;
			if (p->s[p->pos] == '[') {	/* NAME[N]: unit N's value */
				char *end;

				index = strtol(p->s + p->pos + 1, &end, 10);
				if (end == p->s + p->pos + 1 || *end != ']' ||
				    index < 0 || index > 65535)
					return fail(p, -EINVAL, "bad index");
				p->pos = (size_t)(end + 1 - p->s);
			}
			i = node(p, X_VAR, -1, -1, -1, from);
			if (i >= 0) {
				p->e->n[i].var = v;
				p->e->n[i].index = (int)index;
			}
			return i;
		}
	}
	return fail(p, -EINVAL, "unknown name");
}

static int parse_unary(struct parser *p)
{
	unsigned int from;
	int a;

	skip(p);
	from = (unsigned int)p->pos;
	if (!punct(p, "-"))
		return parse_primary(p);
	if (++p->depth > EXPR_MAX_DEPTH)
		return fail(p, -E2BIG, "formula too deep");
	a = parse_unary(p);
	p->depth--;
	return a < 0 ? a : node(p, X_NEG, a, -1, -1, from);
}

static int parse_product(struct parser *p)
{
	unsigned int from;
	int a;

	skip(p);
	from = (unsigned int)p->pos;
	a = parse_unary(p);
	while (a >= 0) {
		enum expr_op op;
		int b;

		if (punct(p, "*"))
			op = X_MUL;
		else if (punct(p, "/"))
			op = X_DIV;
		else
			break;
		b = parse_unary(p);
		if (b < 0)
			return b;
		a = node(p, op, a, b, -1, from);
	}
	return a;
}

static int parse_sum(struct parser *p)
{
	unsigned int from;
	int a;

	skip(p);
	from = (unsigned int)p->pos;
	a = parse_product(p);
	while (a >= 0) {
		enum expr_op op;
		int b;

		if (punct(p, "+"))
			op = X_ADD;
		else if (punct(p, "-"))
			op = X_SUB;
		else
			break;
		b = parse_product(p);
		if (b < 0)
			return b;
		a = node(p, op, a, b, -1, from);
	}
	return a;
}

static int parse_cmp(struct parser *p)
{
	static const struct {
		const char *tok;
		enum expr_op op;
	} cmps[] = {	/* two-character ones first */
		{ "<=", X_LE }, { ">=", X_GE }, { "==", X_EQ },
		{ "<", X_LT }, { ">", X_GT }, { "=", X_EQ },
	};
	unsigned int from;
	int a, b;

	skip(p);
	from = (unsigned int)p->pos;
	a = parse_sum(p);
	if (a < 0)
		return a;
	for (size_t i = 0; i < sizeof(cmps) / sizeof(cmps[0]); i++) {
		enum expr_op op = cmps[i].op;

		if (!punct(p, cmps[i].tok))
			continue;
		/* "> =" and "< =": Intel's spelling of >= and <= in places */
		if ((op == X_GT || op == X_LT) && punct(p, "="))
			op = op == X_GT ? X_GE : X_LE;
		b = parse_sum(p);
		return b < 0 ? b : node(p, op, a, b, -1, from);
	}
	return a;
}

static int parse_and(struct parser *p)
{
	unsigned int from;
	int a;

	skip(p);
	from = (unsigned int)p->pos;
	a = parse_cmp(p);
	while (a >= 0 && (punct(p, "&&") || punct(p, "&"))) {
		int b = parse_cmp(p);

		if (b < 0)
			return b;
		a = node(p, X_AND, a, b, -1, from);
	}
	return a;
}

static int parse_or(struct parser *p)
{
	unsigned int from;
	int a;

	skip(p);
	from = (unsigned int)p->pos;
	a = parse_and(p);
	while (a >= 0 && (punct(p, "||") || punct(p, "|"))) {
		int b = parse_and(p);

		if (b < 0)
			return b;
		a = node(p, X_OR, a, b, -1, from);
	}
	return a;
}

static int parse_expr(struct parser *p)
{
	unsigned int from;
	int a, c, r;

	if (++p->depth > EXPR_MAX_DEPTH)
		return fail(p, -E2BIG, "formula too deep");
	skip(p);
	from = (unsigned int)p->pos;
	a = parse_or(p);
	if (a >= 0 && keyword(p, "if")) {
		c = parse_or(p);
		if (c < 0)
			return c;
		if (!keyword(p, "else"))
			return fail(p, -EINVAL, "'else' expected");
		r = parse_expr(p);
		if (r < 0)
			return r;
		a = node(p, X_IF, a, c, r, from);
	}
	p->depth--;
	return a;
}

void pmuctl_expr_free(struct pmuctl_expr *e)
{
	if (!e)
		return;
	for (unsigned int i = 0; i < e->nnames; i++)
		free(e->names[i]);
	free(e->names);
	free(e->text);
	free(e->n);
	free(e);
}

int pmuctl_expr_parse(const char *text, const char *const *names,
		      unsigned int nnames, struct pmuctl_expr **out,
		      char *msg, size_t msglen)
{
	struct parser p = {
		.s = text, .names = names, .nnames = nnames,
		.msg = msg, .msglen = msglen,
	};
	struct pmuctl_expr *e = calloc(1, sizeof(*e));

	*out = NULL;
	pmuctl_say(msg, msglen, "%s", "");
	if (!e)
		return -ENOMEM;
	p.e = e;
	e->root = parse_expr(&p);
	skip(&p);
	if (!p.err && p.s[p.pos])
		fail(&p, -EINVAL, "unexpected text");
	e->text = strdup(text);
	e->names = calloc(nnames ? nnames : 1, sizeof(*e->names));
	if (!p.err && (!e->text || !e->names))
		p.err = -ENOMEM;
	for (unsigned int i = 0; !p.err && i < nnames; i++) {
		e->names[i] = strdup(names[i]);
		e->nnames = i + 1;
		if (!e->names[i])
			p.err = -ENOMEM;
	}
	if (p.err) {
		pmuctl_expr_free(e);
		return p.err;
	}
	*out = e;
	return 0;
}

struct evaluator {
	const struct pmuctl_expr *e;
	const double *v;
	const bool *have;
	int err;
	char *msg;
	size_t msglen;
};

static double eval(struct evaluator *ev, int i)
{
	const struct expr_node *x = &ev->e->n[i];
	double a, b;

	if (ev->err)
		return 0;
	switch (x->op) {
	case X_NUM:
		return x->num;
	case X_VAR:
		if (x->index >= 0) {
			ev->err = -ENODATA;
			pmuctl_say(ev->msg, ev->msglen, "no value for %s[%d]: pmuctl counts no unit's share",
			    ev->e->names[x->var], x->index);
			return 0;
		}
		if (ev->have && !ev->have[x->var]) {
			ev->err = -ENODATA;
			pmuctl_say(ev->msg, ev->msglen, "no value for %s", ev->e->names[x->var]);
			return 0;
		}
		return ev->v[x->var];
	case X_NEG:
		return -eval(ev, x->a);
	case X_IF:
		return eval(ev, x->b) != 0 ? eval(ev, x->a) : eval(ev, x->c);
	case X_AND:
		return eval(ev, x->a) != 0 && eval(ev, x->b) != 0;
	case X_OR:
		return eval(ev, x->a) != 0 || eval(ev, x->b) != 0;
	default:
		break;
	}
	a = eval(ev, x->a);
	b = eval(ev, x->b);
	switch (x->op) {
	case X_ADD:
		return a + b;
	case X_SUB:
		return a - b;
	case X_MUL:
		return a * b;
	case X_DIV:
		if (b == 0 && !ev->err) {
			const struct expr_node *d = &ev->e->n[x->b];

			ev->err = -EDOM;
			pmuctl_say(ev->msg, ev->msglen, "division by zero: '%.*s' is 0",
			    (int)(d->to - d->from), ev->e->text + d->from);
			return 0;
		}
		return a / b;
	case X_LT:
		return a < b;
	case X_GT:
		return a > b;
	case X_LE:
		return a <= b;
	case X_GE:
		return a >= b;
	case X_EQ:
		return a == b;
	case X_MIN:
		return a < b ? a : b;
	case X_MAX:
		return a > b ? a : b;
	default:
		return NAN;
	}
}

int pmuctl_expr_eval(const struct pmuctl_expr *e, const double *values,
		     const bool *have, double *result, char *msg, size_t msglen)
{
	struct evaluator ev = {
		.e = e, .v = values, .have = have, .msg = msg, .msglen = msglen,
	};
	double r;

	pmuctl_say(msg, msglen, "%s", "");
	r = eval(&ev, e->root);
	*result = ev.err ? 0 : r;
	return ev.err;
}

void pmuctl_expr_uses(const struct pmuctl_expr *e, bool *used)
{
	for (unsigned int i = 0; i < e->nr; i++)
		if (e->n[i].op == X_VAR)
			used[e->n[i].var] = true;
}
