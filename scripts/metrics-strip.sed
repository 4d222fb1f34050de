# SPDX-License-Identifier: LGPL-2.1-or-later
# Formulas and thresholds of events/intel/*.metrics without the blanks no
# name or number needs, a tab after their keyword (scripts/metrics-c.awk).
/^(formula|threshold) /{
s/^(formula|threshold) /\1\t/
s/ +([^A-Za-z0-9_.\t ])/\1/g
s/([^A-Za-z0-9_.\t ]) +/\1/g
}
