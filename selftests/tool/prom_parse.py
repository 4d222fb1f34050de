#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Parse a pmuctl watch --format exposition with Debian's
python3-prometheus-client and print it in one canonical form, so that the
tests compare what a real parser read, not the bytes pmuctl wrote.

usage: prom_parse.py prometheus|openmetrics FILE

Prints per family "TYPE NAME", then per sample
"  NAME {sorted labels as JSON} VALUE"; exit 1 with the parser's error, 2
without the parser.  Prometheus text is parsed with
prometheus_client.parser (the text format 0.0.4), OpenMetrics with
prometheus_client.openmetrics.parser, which refuses a missing "# EOF",
a counter sample without _total and bad escapes.  The text parser is
lenient where the OpenMetrics one is not: it makes an untyped family of a
sample its TYPE line does not name, and takes a family with no samples;
the tests' expected output has neither.
"""
import json
import sys

try:
    from prometheus_client import parser as text_parser
    from prometheus_client.openmetrics import parser as om_parser
except ImportError as e:
    print(f"prom_parse.py: {e}: install python3-prometheus-client", file=sys.stderr)
    sys.exit(2)


def main():
    fmt, path = sys.argv[1], sys.argv[2]
    with open(path, encoding="utf-8") as f:
        text = f.read()
    parse = {"prometheus": text_parser.text_string_to_metric_families,
             "openmetrics": om_parser.text_string_to_metric_families}[fmt]
    try:
        families = list(parse(text))
    except Exception as e:  # the parsers raise ValueError and others
        print(f"prom_parse.py: {path}: {type(e).__name__}: {e}", file=sys.stderr)
        sys.exit(1)
    for fam in families:
        print(f"{fam.type} {fam.name}")
        for s in fam.samples:
            v = int(s.value) if float(s.value).is_integer() else s.value
            print(f"  {s.name} {json.dumps(s.labels, sort_keys=True)} {v}")


if __name__ == "__main__":
    main()
