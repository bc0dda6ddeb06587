package dcatap

import "errors"

// ErrBlankNode is returned by Canonical for a graph that still has a blank node.
var ErrBlankNode = errors.New("blank node in a record graph (skolemize it first)")

// ErrInvalidTriple is returned by Canonical for a triple that is not RDF.
var ErrInvalidTriple = errors.New("invalid triple")
