/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Metric formulas (library-internal, shared with the tool and the tests;
 * not exported by the .so): Intel's formulas over named values, parsed once
 * and evaluated exactly as written, every division by zero and every value
 * not given reported, never hidden.
 *
 * Grammar, loosest first, as perf's metric expressions (tools/perf/util/
 * expr.y) bind:
 *
 *   expr    := or [ "if" or "else" expr ]     X if C else Y (Python's)
 *   or      := and { ( "|" | "||" ) and }     1 if either is not 0
 *   and     := cmp { ( "&" | "&&" ) cmp }     1 if both are not 0
 *   cmp     := sum [ ( "<" | ">" | "<=" | ">=" | "==" | "=" ) sum ]
 *   sum     := product { ( "+" | "-" ) product }
 *   product := unary { ( "*" | "/" ) unary }
 *   unary   := "-" unary | primary
 *   primary := NUMBER | NAME [ "[" N "]" ]
 *              | ( "min" | "max" ) "(" expr "," expr ")" | "(" expr ")"
 *
 * NUMBER is decimal with an optional fraction and exponent (1e9); NAME one
 * of the names given to pmuctl_expr_parse().  "=" compares like "==";
 * ">" and "<" followed by "=" after blanks are ">=" and "<=" (Intel's Granite
 * Rapids and Lion Cove formulas write "> ="); "&&" and "||" are "&" and "|"
 * (Sierra Forest's thresholds).  NAME[N], unit N of a value counted per
 * unit (Intel's power-control metrics), parses but has no value here.
 * Only the branch "if" chooses is evaluated, and "&" and "|" evaluate
 * their right side only when the left does not decide, so a guarded
 * division is no error.
 */
#ifndef PMUCTL_EXPR_H
#define PMUCTL_EXPR_H

#include <stdbool.h>
#include <stddef.h>

struct pmuctl_expr;

/**
 * pmuctl_expr_parse() - compile a formula
 * @text:	the formula.
 * @names:	the names it may use; value i of pmuctl_expr_eval() is
 *		@names[i].
 * @nnames:	how many.
 * @out:	out: the compiled formula, for pmuctl_expr_free().
 * @msg:	out: what is wrong and where, when the return value is not 0.
 *
 * Return: 0; -EINVAL for a malformed formula or an unknown name (@msg
 * quotes it and its offset); -E2BIG for one too deep (200 levels) or too
 * long (more than 65536 nodes); -ENOMEM.
 */
int pmuctl_expr_parse(const char *text, const char *const *names,
		      unsigned int nnames, struct pmuctl_expr **out,
		      char *msg, size_t msglen);

/**
 * pmuctl_expr_eval() - evaluate a compiled formula
 * @e:		the formula.
 * @values:	value i is that of name i.
 * @have:	have[i] false: value i is missing (NULL: all are there).
 * @result:	out: the value.
 * @msg:	out: why, when the return value is not 0.
 *
 * Return: 0; -EDOM for a division by zero the formula reaches (@msg
 * quotes the divisor); -ENODATA for a missing value it reaches, or a
 * NAME[N] (@msg names it).
 */
int pmuctl_expr_eval(const struct pmuctl_expr *e, const double *values,
		     const bool *have, double *result, char *msg, size_t msglen);

/* Which names the formula uses: used[i] set for each; others untouched. */
void pmuctl_expr_uses(const struct pmuctl_expr *e, bool *used);

void pmuctl_expr_free(struct pmuctl_expr *e);

/*
 * snprintf() into @msg (@len bytes) where @msg is not NULL: how the
 * library's resolvers say why (events.c, metrics.c).
 */
void pmuctl_say(char *msg, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif /* PMUCTL_EXPR_H */
