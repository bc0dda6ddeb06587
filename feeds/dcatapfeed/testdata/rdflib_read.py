"""Reads the feed's documents with rdflib for the feed tests (feed_test.go).

stdin: JSON {"graphs": [{"id": "...", "docs": [{"path": "<file>", "format": "turtle|xml|json-ld|nt"}]}]}
  Each graph is the union of its documents (each parsed on its own, so blank nodes of two
  documents are different nodes, as in the Go parser).
stdout: JSON {"<id>": {"triples": <count>, "error": "<parse error or empty>",
  "canonical": "<the graph's sorted N-Triples after rdflib.compare.to_canonical_graph>"}}
"""
import json
import sys

import rdflib
from rdflib.compare import to_canonical_graph


def main():
    spec = json.load(sys.stdin)
    out = {}
    for g in spec["graphs"]:
        graph = rdflib.Graph()
        err = ""
        for d in g["docs"]:
            try:
                graph.parse(d["path"], format=d["format"])
            except Exception as e:  # the test prints the reason
                err = "%s: %s: %s" % (d["path"], type(e).__name__, e)
                break
        canon = ""
        if not err and g.get("canonical"):
            lines = to_canonical_graph(graph).serialize(format="nt").splitlines()
            canon = "\n".join(sorted(l for l in lines if l.strip()))
        out[g["id"]] = {"triples": len(graph), "error": err, "canonical": canon}
    json.dump(out, sys.stdout)


main()
