// SPDX-License-Identifier: GPL-2.0
/*
 * The metric formula evaluator (user/expr.c): precedence as perf's
 * expr.y binds, min/max, Python's "X if C else Y" and its laziness,
 * division by zero and missing values reported, malformed formulas
 * refused with where.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"

#include "expr.h"

static const char *const names[] = { "a", "b", "c", "smt_on", "a_b" };
#define NNAMES	(sizeof(names) / sizeof(names[0]))

static int eval(const char *text, const double *v, const bool *have,
		double *r, char *msg, size_t len)
{
	struct pmuctl_expr *e;
	int ret = pmuctl_expr_parse(text, names, NNAMES, &e, msg, len);

	if (ret)
		return ret;
	ret = pmuctl_expr_eval(e, v, have, r, msg, len);
	pmuctl_expr_free(e);
	return ret;
}

TEST(precedence_and_functions)
{
	/* a = 2, b = 3, c = 4, smt_on = 1, a_b = 10 */
	static const double v[] = { 2, 3, 4, 1, 10 };
	static const struct {
		const char *text;
		double want;
	} cases[] = {
		{ "a + b * c", 14 },
		{ "( a + b ) * c", 20 },
		{ "a - b - c", -5 },		/* left to right */
		{ "a_b / a / 5", 1 },		/* left to right */
		{ "a_b / ( a / 5 )", 25 },
		{ "-a * b", -6 },
		{ "- - a", 2 },
		{ "a - -b", 5 },
		{ "100 * ( a / a_b )", 20 },
		{ "0.5 * a", 1 },
		{ "1e3 * a", 2000 },
		{ "min( a , b ) + max( a , b )", 5 },
		{ "max( 1 - a / b , 0 )", 1.0 - 2.0 / 3.0 },
		{ "min( a_b , max( b , c ) )", 4 },
		{ "a + b > c", 1 },		/* comparison below the sum */
		{ "a > b", 0 },
		{ "a < b", 1 },
		{ "a >= 2", 1 },
		{ "a <= 1", 0 },
		{ "a == 2", 1 },
		{ "a = 2", 1 },
		{ "a > = 2", 1 },		/* Intel's "> =" is >= */
		{ "a < = 1", 0 },
		{ "a > 1 && b > 2", 1 },
		{ "a > 5 || b > 2", 1 },
		{ "1e9 / 1e8", 10 },
		{ "( a > 1 ) & ( b > 5 )", 0 },
		{ "( a > 1 ) | ( b > 5 )", 1 },
		{ "a > 1 & b > 2", 1 },		/* & below comparisons */
		{ "a > 1 | b > 5 & c > 5", 1 },	/* & binds tighter than | */
		{ "a if smt_on else b", 2 },
		{ "a if smt_on - 1 else b", 3 },
		{ "a + 1 if a > b else c * 2", 8 },	/* if is the loosest */
		{ "a if a > b else b if b > c else c", 4 },	/* right-assoc */
		{ "( a if smt_on else b ) * 10", 20 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char msg[160];
		double r = NAN;
		int ret = eval(cases[i].text, v, NULL, &r, msg, sizeof(msg));

		EXPECT_EQ(0, ret) TH_LOG("'%s': %s", cases[i].text, msg);
		EXPECT_TRUE(r - cases[i].want < 1e-12 && cases[i].want - r < 1e-12)
			TH_LOG("'%s' = %g, want %g", cases[i].text, r, cases[i].want);
	}
}

TEST(division_by_zero_is_reported_where_reached)
{
	static const double v[] = { 2, 0, 4, 0, 10 };
	char msg[160];
	double r = 1;

	ASSERT_EQ(-EDOM, eval("a / ( b * c )", v, NULL, &r, msg, sizeof(msg)));
	EXPECT_STREQ("division by zero: 'b * c' is 0", msg);
	EXPECT_EQ(0, r);
	ASSERT_EQ(-EDOM, eval("1 + a / b", v, NULL, &r, msg, sizeof(msg)));
	EXPECT_STREQ("division by zero: 'b' is 0", msg);
	/* a branch not taken, or a side & and | do not need, is not evaluated */
	ASSERT_EQ(0, eval("a / b if b else c", v, NULL, &r, msg, sizeof(msg)));
	EXPECT_EQ(4, r);
	ASSERT_EQ(0, eval("( b > 0 ) & ( a / b > 1 )", v, NULL, &r, msg, sizeof(msg)));
	EXPECT_EQ(0, r);
	ASSERT_EQ(0, eval("( a > 0 ) | ( a / b > 1 )", v, NULL, &r, msg, sizeof(msg)));
	EXPECT_EQ(1, r);
	/* min and max evaluate both */
	ASSERT_EQ(-EDOM, eval("min( a , a / b )", v, NULL, &r, msg, sizeof(msg)));
}

TEST(a_missing_value_is_reported_where_reached)
{
	static const double v[] = { 2, 3, 4, 1, 10 };
	static const bool have[] = { true, false, true, true, true };
	char msg[160];
	double r = 1;

	ASSERT_EQ(-ENODATA, eval("a + b", v, have, &r, msg, sizeof(msg)));
	EXPECT_STREQ("no value for b", msg);
	ASSERT_EQ(0, eval("a if smt_on else b", v, have, &r, msg, sizeof(msg)));
	EXPECT_EQ(2, r);
	EXPECT_STREQ("", msg);
}

TEST(malformed_formulas_are_refused_with_where)
{
	static const struct {
		const char *text;
		const char *msg;
	} bad[] = {
		{ "a +", "unexpected end at offset 3: ''" },
		{ "( a + b", "')' expected at offset 7: ''" },
		{ "a + d", "unknown name at offset 4: 'd'" },
		{ "min( a b )", "',' expected at offset 7: 'b )'" },
		{ "a if b", "'else' expected at offset 6: ''" },
		{ "a $ b", "unexpected text at offset 2: '$ b'" },
		{ "2x", "bad number at offset 0: '2x'" },
		{ "", "unexpected end at offset 0: ''" },
		{ "a b", "unexpected text at offset 2: 'b'" },
		{ "max", "unknown name at offset 0: 'max'" },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct pmuctl_expr *e = (struct pmuctl_expr *)1;
		char msg[160];

		EXPECT_EQ(-EINVAL, pmuctl_expr_parse(bad[i].text, names, NNAMES, &e,
						     msg, sizeof(msg)))
			TH_LOG("'%s'", bad[i].text);
		EXPECT_EQ(NULL, e);
		EXPECT_STREQ(bad[i].msg, msg) TH_LOG("'%s'", bad[i].text);
	}
}

TEST(an_indexed_value_parses_and_has_no_value)
{
	static const double v[] = { 2, 3, 4, 1, 10 };
	char msg[160];
	double r;

	ASSERT_EQ(-ENODATA, eval("a[0] / b", v, NULL, &r, msg, sizeof(msg)));
	EXPECT_STREQ("no value for a[0]: pmuctl counts no unit's share", msg);
	ASSERT_EQ(-EINVAL, eval("a[x]", v, NULL, &r, msg, sizeof(msg)));
	EXPECT_STREQ("bad index at offset 1: '[x]'", msg);
}

TEST(too_deep_is_refused)
{
	char text[2200], msg[160];
	struct pmuctl_expr *e;
	size_t n = 0;

	for (int i = 0; i < 1000; i++)
		text[n++] = '(';
	text[n++] = 'a';
	for (int i = 0; i < 1000; i++)
		text[n++] = ')';
	text[n] = '\0';
	EXPECT_EQ(-E2BIG, pmuctl_expr_parse(text, names, NNAMES, &e, msg, sizeof(msg)));
	EXPECT_NE(NULL, strstr(msg, "too deep")) TH_LOG("%s", msg);
}

TEST(uses_names_each_name_the_formula_reads)
{
	struct pmuctl_expr *e;
	bool used[NNAMES] = { false };
	char msg[160];

	ASSERT_EQ(0, pmuctl_expr_parse("a_b / ( a + c ) if smt_on else 0", names,
				       NNAMES, &e, msg, sizeof(msg)));
	pmuctl_expr_uses(e, used);
	EXPECT_TRUE(used[0]);
	EXPECT_FALSE(used[1]);
	EXPECT_TRUE(used[2]);
	EXPECT_TRUE(used[3]);
	EXPECT_TRUE(used[4]);
	pmuctl_expr_free(e);
}

TEST_HARNESS_MAIN
