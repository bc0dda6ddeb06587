"""Runs pySHACL for the parity test (profiles_test.go, TestPySHACLParity).

stdin: JSON {"shapes": {"<profile>": ["<turtle file>", ...]}, "jobs": [{"id": "...",
"profile": "<profile>", "data": "<n-triples file>"}]}
stdout: JSON {"<id>": {"conforms": bool, "results": [{"focus": "<kind|value|datatype|lang>",
"path": "<IRI or empty>", "severity": "sh:Violation|sh:Warning|sh:Info",
"constraint": "<component IRI>"}]}}

The data graph is read from N-Triples with its blank-node labels kept (a shared bnode_context),
so focus nodes that are blank nodes print with the labels the Go side wrote. pySHACL runs with
its defaults: no inference, no ontology graph, warnings count against conformance.
"""
import json
import sys

import pyshacl.validator
import rdflib
from pyshacl import validate
from rdflib.namespace import SH, XSD
from rdflib.plugins.parsers.ntriples import NTGraphSink, W3CNTriplesParser


def term_key(t, labels):
    """The term as the Go side keys it: kind|value|datatype|lang (xsd:string as no datatype,
    the language tag lower-cased), so that no serialiser's escaping is compared."""
    if isinstance(t, rdflib.BNode):
        return "B|" + labels.get(t, str(t)) + "||"
    if isinstance(t, rdflib.URIRef):
        return "I|" + str(t) + "||"
    dt = "" if t.datatype is None or t.datatype == XSD.string else str(t.datatype)
    return "L|" + str(t) + "|" + dt + "|" + (t.language or "").lower()


# pySHACL builds a ShapesGraph (shape discovery, parsing) from the shapes graph on every call;
# the parity run validates hundreds of record graphs against three shapes graphs, so build each
# once. The ShapesGraph is read-only during validation; the parity test's verdicts are the same
# with and without this.
_shapes_graph_class = pyshacl.validator.ShapesGraph
_shapes_graphs = {}


def _cached_shapes_graph(graph, *args):
    if id(graph) not in _shapes_graphs:
        _shapes_graphs[id(graph)] = _shapes_graph_class(graph, *args)
    return _shapes_graphs[id(graph)]


pyshacl.validator.ShapesGraph = _cached_shapes_graph


def main():
    spec = json.load(sys.stdin)
    shapes = {}
    for name, files in spec["shapes"].items():
        g = rdflib.Graph()
        for f in files:
            g.parse(f, format="turtle")
        shapes[name] = g
    out = {}
    for job in spec["jobs"]:
        data = rdflib.Graph()
        ctx = {}
        with open(job["data"], "rb") as f:
            W3CNTriplesParser(NTGraphSink(data), bnode_context=ctx).parse(f, bnode_context=ctx)
        labels = {b: l for l, b in ctx.items()}
        conforms, report, _ = validate(data, shacl_graph=shapes[job["profile"]], inference="none",
                                       abort_on_first=False, allow_warnings=False)
        results = []
        top = [r for rep in report.subjects(rdflib.RDF.type, SH.ValidationReport) for r in report.objects(rep, SH.result)]
        for r in top:  # the report's own results, not nested sh:detail ones
            path = report.value(r, SH.resultPath)
            results.append({
                "focus": term_key(report.value(r, SH.focusNode), labels),
                "path": "" if path is None else (str(path) if isinstance(path, rdflib.URIRef) else "?" + path.n3()),
                "severity": "sh:" + str(report.value(r, SH.resultSeverity)).rsplit("#", 1)[-1],
                "constraint": str(report.value(r, SH.sourceConstraintComponent)),
            })
        out[job["id"]] = {"conforms": bool(conforms), "results": results}
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
