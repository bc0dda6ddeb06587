package rdf

// Graph is a set of triples (adding one twice keeps one). Match calls fn for every triple that
// matches the pattern s, p, o, where a zero Term matches anything; fn's error stops the walk and
// is returned. Implementations: NewMemGraph (in memory) and the spilling graph of NewGraph,
// which moves to a temporary file on disk past a threshold. A Graph is not safe for concurrent
// writes; Match may run while nothing is added.
type Graph interface {
	// Add adds t; an error means the graph could not store it (disk).
	Add(t Triple) error
	// Len is the number of distinct triples.
	Len() int
	// Match walks the triples matching (s, p, o); zero terms are wildcards.
	Match(s, p, o Term, fn func(Triple) error) error
	// Close releases what the graph holds (its temporary file); the graph is unusable after.
	Close() error
}

// MemGraph is a Graph in memory, indexed by subject and by object.
type MemGraph struct {
	set  map[Triple]struct{}
	byS  map[Term][]Triple
	byO  map[Term][]Triple
	list []Triple
}

// NewMemGraph returns an empty in-memory graph.
func NewMemGraph() *MemGraph {
	return &MemGraph{set: map[Triple]struct{}{}, byS: map[Term][]Triple{}, byO: map[Term][]Triple{}}
}

// Add adds t. It never fails.
func (g *MemGraph) Add(t Triple) error {
	if _, ok := g.set[t]; ok {
		return nil
	}
	g.set[t] = struct{}{}
	g.byS[t.S] = append(g.byS[t.S], t)
	g.byO[t.O] = append(g.byO[t.O], t)
	g.list = append(g.list, t)
	return nil
}

// Len is the number of distinct triples.
func (g *MemGraph) Len() int { return len(g.list) }

// Match walks the triples matching (s, p, o) in the order they were added.
func (g *MemGraph) Match(s, p, o Term, fn func(Triple) error) error {
	candidates := g.list
	switch {
	case !s.IsZero():
		candidates = g.byS[s]
	case !o.IsZero():
		candidates = g.byO[o]
	}
	for _, t := range candidates {
		if (s.IsZero() || t.S == s) && (p.IsZero() || t.P == p) && (o.IsZero() || t.O == o) {
			if err := fn(t); err != nil {
				return err
			}
		}
	}
	return nil
}

// Close drops the triples.
func (g *MemGraph) Close() error {
	*g = MemGraph{}
	return nil
}
